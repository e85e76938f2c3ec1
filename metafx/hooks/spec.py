"""pluggy hook specifications of metafx.

Every kind of component is registered through one hook that receives a
:class:`Register` object.  ``register(cls)`` (or ``register.add(cls)``) takes a
component *class* whose class attribute ``name`` is unique among components of
that kind, and checks that it is a subclass of the kind's base class::

    import metafx

    @metafx.plugin.hookimpl
    def metafx_register_families(register):
        register(MyFamily)

Built-in components are registered through exactly these hooks (the modules
of :mod:`metafx.default_plugins`, loaded by dotted name); third-party plugins
are found through the ``metafx`` entry-point group.  See ``docs/plugins.md``
for each hook.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    from .registry import Register

PROJECT_NAME = "metafx"

hookspec = pluggy.HookspecMarker(PROJECT_NAME)
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)


@hookspec
def metafx_register_families(register: Register[Any]) -> None:
    """Register :class:`metafx.plugin.FeatureFamily` subclasses."""


@hookspec
def metafx_register_describers(register: Register[Any]) -> None:
    """Register :class:`metafx.plugin.MetaFeatureDescriber` subclasses."""


@hookspec
def metafx_register_evaluators(register: Register[Any]) -> None:
    """Register quality evaluators, of three roles.

    Accepted bases, each filed under its own component kind:
    :class:`metafx.plugin.SetEvaluator` (``"set-evaluator"``: one number per
    feature set), :class:`metafx.plugin.FeatureScorer` (``"scorer"``: one score
    per feature) and :class:`metafx.plugin.FeatureSelector` (``"selector"``:
    returns a subset of columns).  The three roles share one namespace.
    """


@hookspec
def metafx_register_search_engines(register: Register[Any]) -> None:
    """Register :class:`metafx.plugin.SearchEngine` subclasses."""


@hookspec
def metafx_register_datasets(register: Register[Any]) -> None:
    """Register :class:`metafx.plugin.Dataset` subclasses (named loaders)."""


HOOK_KINDS = {
    "metafx_register_families": "family",
    "metafx_register_describers": "describer",
    "metafx_register_evaluators": "evaluator",  # the umbrella: each class is filed under its role
    "metafx_register_search_engines": "engine",
    "metafx_register_datasets": "dataset",
}
