"""pluggy hook specifications of metafx.

Every kind of component is registered through one hook that receives a
``register`` callback.  ``register(cls)`` takes a component *class* whose class
attribute ``name`` is unique among components of that kind::

    import metafx

    @metafx.hookimpl
    def metafx_register_families(register):
        register(MyFamily)

Built-in components are registered through exactly these hooks (see
:mod:`metafx.default_plugins`); third-party plugins are found through the
``metafx`` entry-point group.  See ``docs/plugins.md`` for each hook.
"""

from __future__ import annotations

from typing import Callable

import pluggy

PROJECT_NAME = "metafx"

hookspec = pluggy.HookspecMarker(PROJECT_NAME)
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)

Register = Callable[[type], None]


@hookspec
def metafx_register_families(register: Register) -> None:
    """Register :class:`metafx.base.FeatureFamily` subclasses."""


@hookspec
def metafx_register_describers(register: Register) -> None:
    """Register :class:`metafx.base.MetaFeatureDescriber` subclasses."""


@hookspec
def metafx_register_evaluators(register: Register) -> None:
    """Register quality evaluators.

    Accepted bases: :class:`metafx.base.FeatureScorer` (one score per feature),
    :class:`metafx.base.SetEvaluator` (one number per feature set) and
    :class:`metafx.base.FeatureSelector` (returns a subset of columns).
    """


@hookspec
def metafx_register_search_engines(register: Register) -> None:
    """Register :class:`metafx.base.SearchEngine` subclasses."""


@hookspec
def metafx_register_datasets(register: Register) -> None:
    """Register :class:`metafx.base.Dataset` subclasses (named loaders)."""


HOOK_KINDS = {
    "metafx_register_families": "family",
    "metafx_register_describers": "describer",
    "metafx_register_evaluators": "evaluator",
    "metafx_register_search_engines": "engine",
    "metafx_register_datasets": "dataset",
}
