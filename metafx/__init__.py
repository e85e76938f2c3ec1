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

from metafx_cli import guard_rest_of_startup, startup_guard  # nothing heavy: the command's one-line guard

# `python -m metafx.cli` imports this package before any code of the command: a Ctrl-C or a bad environment
# during these imports is one line there (a program importing metafx gets the exception as it is)
with startup_guard():
    from . import _environment  # noqa: F401 - first: checks the environment before numba is imported
    from .analysis.scoring import score_features, select_features
    from .core import __version__
    from .core.exceptions import (
        DuplicateComponentError,
        MetafxError,
        StorageError,
        UnknownComponentError,
        ValidationError,
    )
    from .learn import bounds
    from .loop.api import search
    from .loop.components import load_dataset
    from .loop.logs import set_log_level
    from .loop.loop import SearchInterrupted
    from .loop.result import SearchResult
guard_rest_of_startup()

__all__ = [
    "DuplicateComponentError",
    "MetafxError",
    "SearchInterrupted",
    "SearchResult",
    "StorageError",
    "UnknownComponentError",
    "ValidationError",
    "__version__",
    "bounds",
    "load_dataset",
    "score_features",
    "search",
    "select_features",
    "set_log_level",
]

# Loaded on first use, so that ``import metafx`` does not load scikit-learn or matplotlib.
_LAZY = {
    "MetaFeatureExtractor": "metafx.sklearn",
    "FeatureClassifier": "metafx.learn.classifier",
    "QualityMap": "metafx.analysis.quality_map",
    "smooth_qualities": "metafx.analysis.quality_map",
    "source_qualities": "metafx.analysis.transfer",
    "transfer_direct": "metafx.analysis.transfer",
    "transfer_indirect": "metafx.analysis.transfer",
    "transfer_quality": "metafx.analysis.transfer",
    "plot_result": "metafx.plotting",
}
_LAZY_MODULES = {"transfer": "metafx.analysis.transfer", "quality_map": "metafx.analysis.quality_map",
                 "compression": "metafx.learn.compression", "potential_bounds": "metafx.learn.potential_bounds",
                 "plotting": "metafx.plotting", "export": "metafx.export"}
__all__ += list(_LAZY) + list(_LAZY_MODULES)

_LAZY["holdout_error"] = "metafx.analysis.evaluation"
__all__.append("holdout_error")


def __getattr__(name: str):
    if name == "plugin":  # the plugin authors' API, as ``metafx.plugin`` after ``import metafx``
        return importlib.import_module("metafx.plugin")
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    if name in _LAZY_MODULES:
        return importlib.import_module(_LAZY_MODULES[name])
    raise AttributeError(f"module 'metafx' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
