"""metafx: meta-feature-guided feature extraction.

Search the small space of *meta-features* (number of inputs, shift length,
scatter, ...) of a huge family of candidate features, under a cost budget, and
get back a concrete, good feature set (Navot 2006, chapter 5).

>>> import metafx
>>> X, y = metafx.load_dataset("digits")
>>> result = metafx.search(X[:400], y[:400], budget=60, steps=3, seed=0, progress=False)
>>> result.transform(X[:2]).shape[0]
2
"""

from __future__ import annotations

__version__ = "0.1.0"

from ._api import make_component, search
from .base import (
    Dataset,
    FeatureFamily,
    FeatureScorer,
    FeatureSelector,
    MetaFeatureDescriber,
    SearchEngine,
    SetEvaluator,
)
from .data import load_dataset
from .exceptions import (
    DuplicateComponentError,
    MetafxError,
    StorageError,
    UnknownComponentError,
    ValidationError,
)
from .hookspecs import hookimpl, hookspec
from .plugins import get_registry, register_plugin, unregister_plugin
from . import bounds, transfer
from .quality_map import QualityMap, smooth_qualities
from .transfer import source_qualities, transfer_direct, transfer_indirect, transfer_quality
from .scoring import score_features, select_features
from .types import Dimension, FeatureValues, MetaFeatureSpace, SearchResult, StepRecord

__all__ = [
    "__version__",
    "QualityMap",
    "smooth_qualities",
    "source_qualities",
    "transfer_direct",
    "transfer_indirect",
    "transfer_quality",
    "bounds",
    "transfer",
    "search",
    "score_features",
    "select_features",
    "load_dataset",
    "make_component",
    "get_registry",
    "register_plugin",
    "unregister_plugin",
    "hookimpl",
    "hookspec",
    "SearchResult",
    "StepRecord",
    "MetaFeatureSpace",
    "Dimension",
    "FeatureValues",
    "FeatureFamily",
    "MetaFeatureDescriber",
    "FeatureScorer",
    "SetEvaluator",
    "FeatureSelector",
    "SearchEngine",
    "Dataset",
    "MetafxError",
    "ValidationError",
    "UnknownComponentError",
    "DuplicateComponentError",
    "StorageError",
]

# Imported on first use so that ``import metafx`` does not load scikit-learn.
_LAZY = {"MetaFeatureExtractor": "metafx.sklearn"}
__all__ += list(_LAZY)


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'metafx' has no attribute {name!r}")
