"""The hook implementations of the metafx-tabular plugin.

This module is the plugin: ``pyproject.toml`` points the ``metafx`` entry
point at it, and metafx calls each ``@hookimpl`` function once with a
``register`` callback when it builds its registry.  Register *classes*; each
needs a unique class attribute ``name``.
"""

from __future__ import annotations

from metafx.plugin import Register, hookimpl

from .describers import ColumnKinds, InputColumns, OperatorCounts
from .evaluator import CVLinear, CVTree
from .family import TabularFamily


@hookimpl
def metafx_register_families(register: Register) -> None:
    register(TabularFamily)


@hookimpl
def metafx_register_describers(register: Register) -> None:
    register(OperatorCounts)
    register(InputColumns)
    register(ColumnKinds)


@hookimpl
def metafx_register_evaluators(register: Register) -> None:
    register(CVLinear)
    register(CVTree)
