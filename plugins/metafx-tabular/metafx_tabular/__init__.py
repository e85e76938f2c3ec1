"""metafx-tabular: a metafx plugin for numeric tables.

* feature family ``tabular``: operator expressions (threshold, log, square,
  mul, ratio, diff) over 1-3 numeric columns, and group-by aggregates,
  frequency encoding, missing-value indicators and calendar parts over
  categorical, datetime and incomplete columns (pandas DataFrames welcome),
  searched by their meta-features (arity, depth, root operator, the inputs'
  quality rank and tags);
* describers ``tabular-ops``, ``tabular-inputs`` and ``tabular-kinds``;
* set evaluators ``cv-linear`` (repeated 5-fold CV of logistic regression
  (log-loss) or ridge regression (R^2)) and ``cv-tree`` (k-fold CV of small
  gradient-boosted trees), scoring features next to the table's own columns;
* ``TableExtractor``: the scikit-learn transformer for DataFrames.

Installed, it is found by metafx through the ``metafx`` entry point (see
``pyproject.toml``); nothing needs importing::

    import metafx
    result = metafx.search(X, y, family="tabular", evaluator="cv-linear", budget=30)
"""

from __future__ import annotations

from .describers import ColumnKinds, InputColumns, OperatorCounts
from .evaluator import CVLinear, CVTree
from .extractor import TableExtractor, corrected_t_test
from .family import TabularBatch, TabularFamily
from .operators import OPERATORS, Operator

__version__ = "0.1.0"

__all__ = [
           "OPERATORS",
           "CVLinear",
           "CVTree",
           "ColumnKinds",
           "InputColumns",
           "Operator",
           "OperatorCounts",
           "TableExtractor",
           "TabularBatch",
           "TabularFamily",
           "corrected_t_test",
]
