"""Everything a plugin author needs, in one public module.

A feature family, describer, evaluator, search engine or dataset is a class
derived from one of the base classes below and registered through a hook::

    from metafx.plugin import FeatureFamily, hookimpl

    class MyFamily(FeatureFamily):
        name = "my-family"
        ...

    @hookimpl
    def metafx_register_families(register):
        register(MyFamily)

See ``docs/plugins.md`` for each hook and a runnable example of each kind;
``metafx.testing`` holds the conformance suites a plugin's tests run.
"""

from __future__ import annotations

from .core.base import (
    Candidate,
    Component,
    Dataset,
    FamilyExport,
    FeatureBatch,
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
from .core.params import HasMethods, InstanceOf, Interval, Options, Satisfies
from .core.validation import (
    check_binary_images,
    check_choice,
    check_int,
    check_label_types,
    check_labels,
    check_number,
    check_regression_target,
    check_seed,
    check_table,
    check_xy,
)
from .core.values import Dimension, FeatureValues, MetaFeatureSpace, PriorObservation, StepRecord
from .hooks.manager import get_registry, register_plugin, unregister_plugin
from .hooks.registry import Register
from .hooks.spec import hookimpl, hookspec
from .loop.components import make_component
from .loop.loop import SearchState, run_search
from .loop.problem import Evaluation, SearchProblem, step_rng

__all__ = [  # noqa: RUF022 - grouped by purpose: the API reference lists the names in this order
    "hookimpl",
    "hookspec",
    "Register",
    "get_registry",
    "register_plugin",
    "unregister_plugin",
    "make_component",
    "Component",
    "FeatureBatch",
    "FeatureFamily",
    "FamilyExport",
    "MetaFeatureDescriber",
    "FeatureScorer",
    "SetEvaluator",
    "FeatureSelector",
    "SearchEngine",
    "Candidate",
    "Dataset",
    "Dimension",
    "MetaFeatureSpace",
    "FeatureValues",
    "StepRecord",
    "PriorObservation",
    "SearchProblem",
    "Evaluation",
    "SearchState",
    "run_search",
    "step_rng",
    "check_int",
    "check_number",
    "check_choice",
    "check_seed",
    "check_label_types",
    "check_labels",
    "check_regression_target",
    "check_xy",
    "check_binary_images",
    "check_table",
    "Interval",
    "Options",
    "InstanceOf",
    "HasMethods",
    "Satisfies",
    "MetafxError",
    "ValidationError",
    "UnknownComponentError",
    "DuplicateComponentError",
    "StorageError",
]
