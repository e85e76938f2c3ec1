"""metafx-tabular: a metafx plugin for numeric tables.

* feature family ``tabular``: operator expressions (threshold, log, square,
  mul, ratio, diff) over 1-3 columns, searched by their meta-features
  (arity, depth, root operator, the inputs' quality rank and tags);
* describers ``tabular-ops`` and ``tabular-inputs``;
* set evaluator ``cv-linear``: repeated 5-fold CV of logistic regression
  (log-loss) or ridge regression (R^2), scoring features next to the table's
  own columns.

Installed, it is found by metafx through the ``metafx`` entry point (see
``pyproject.toml``); nothing needs importing::

    import metafx
    result = metafx.search(X, y, family="tabular", evaluator="cv-linear", budget=30)
"""

from __future__ import annotations

from .describers import InputColumns, OperatorCounts
from .evaluator import CVLinear
from .family import TabularBatch, TabularFamily
from .operators import OPERATORS, Operator

__version__ = "0.1.0"

__all__ = ["TabularFamily", "TabularBatch", "CVLinear", "OperatorCounts", "InputColumns", "Operator", "OPERATORS"]
