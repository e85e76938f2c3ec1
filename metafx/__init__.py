"""metafx: meta-feature-guided feature extraction.

Search the small space of *meta-features* (number of inputs, shift length,
scatter, ...) of a huge family of candidate features, under a cost budget, and
get back a concrete, good feature set (Navot 2006, chapter 5).

>>> import metafx
>>> X, y = metafx.load_dataset("digits")
>>> result = metafx.search(X[:400], y[:400], budget=60, steps=3, seed=0, progress=False)
>>> result.transform(X[:2]).shape[0]
2

Plugin authors find every name they need in :mod:`metafx.plugin`.
"""

from __future__ import annotations

import importlib

from .analysis.scoring import score_features, select_features
from .core import __version__
from .core.base import (
    Candidate,
    Dataset,
    FeatureFamily,
    FeatureScorer,
    FeatureSelector,
    MetaFeatureDescriber,
    SearchEngine,
    SetEvaluator,
)
from .core.exceptions import (
    DuplicateComponentError,
    MetafxError,
    StorageError,
    UnknownComponentError,
    ValidationError,
)
from .core.values import Dimension, FeatureValues, MetaFeatureSpace, StepRecord
from .hooks.manager import get_registry, register_plugin, unregister_plugin
from .hooks.spec import hookimpl, hookspec
from .learn import bounds
from .loop.api import search
from .loop.components import load_dataset, make_component
from .loop.logs import set_log_level
from .loop.loop import SearchInterrupted
from .loop.result import SearchResult

__all__ = [
    "__version__",
    "search",
    "set_log_level",
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
    "SearchInterrupted",
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
    "Candidate",
    "Dataset",
    "MetafxError",
    "ValidationError",
    "UnknownComponentError",
    "DuplicateComponentError",
    "StorageError",
    "bounds",
]

# Loaded on first use, so that ``import metafx`` does not load scikit-learn or matplotlib.
_LAZY = {
    "MetaFeatureExtractor": "metafx.sklearn",
    "QualityMap": "metafx.analysis.quality_map",
    "smooth_qualities": "metafx.analysis.quality_map",
    "source_qualities": "metafx.analysis.transfer",
    "transfer_direct": "metafx.analysis.transfer",
    "transfer_indirect": "metafx.analysis.transfer",
    "transfer_quality": "metafx.analysis.transfer",
    "test_error": "metafx.analysis.evaluation",
    "FeatureClassifier": "metafx.learn.classifier",
    "plot_result": "metafx.plotting",
}
_LAZY_MODULES = {"transfer": "metafx.analysis.transfer", "quality_map": "metafx.analysis.quality_map",
                 "compression": "metafx.learn.compression", "potential_bounds": "metafx.learn.potential_bounds",
                 "plotting": "metafx.plotting"}
__all__ += list(_LAZY) + list(_LAZY_MODULES)


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    if name in _LAZY_MODULES:
        return importlib.import_module(_LAZY_MODULES[name])
    raise AttributeError(f"module 'metafx' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
