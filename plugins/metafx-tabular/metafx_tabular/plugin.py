"""The hook implementations of the metafx-tabular plugin.

This module is the plugin: ``pyproject.toml`` points the ``metafx`` entry
point at it, and metafx calls each ``@metafx.plugin.hookimpl`` function once with a
``register`` callback when it builds its registry.  Register *classes*; each
needs a unique class attribute ``name``.
"""

from __future__ import annotations

import metafx
import metafx.plugin

from .describers import ColumnKinds, InputColumns, OperatorCounts
from .evaluator import CVLinear, CVTree
from .family import TabularFamily


@metafx.plugin.hookimpl
def metafx_register_families(register):
    register(TabularFamily)


@metafx.plugin.hookimpl
def metafx_register_describers(register):
    register(OperatorCounts)
    register(InputColumns)
    register(ColumnKinds)


@metafx.plugin.hookimpl
def metafx_register_evaluators(register):
    register(CVLinear)
    register(CVTree)
