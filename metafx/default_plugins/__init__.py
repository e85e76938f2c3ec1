"""Built-in plugins: registered through the same hooks as third-party ones."""

from __future__ import annotations

from . import baselines, datasets, evaluators, families, mufasa, optuna_engine, svm_evaluator
from . import local_families, wrappers

#: modules registered by :func:`metafx.plugins.get_plugin_manager` before entry points
BUILTIN_PLUGINS = [families, datasets, svm_evaluator, mufasa, evaluators, baselines, optuna_engine, local_families,
                   wrappers]
