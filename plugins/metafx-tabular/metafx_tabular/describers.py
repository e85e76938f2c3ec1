"""Describers of ``tabular`` features: extra meta-features computed from the expression alone."""

from __future__ import annotations

import numpy as np

from metafx.plugin import MetaFeatureDescriber

from .expressions import expr_columns, expr_ops
from .family import TabularFamily
from .operators import OPERATORS

__all__ = ["ColumnKinds", "InputColumns", "OperatorCounts"]


class OperatorCounts(MetaFeatureDescriber):
    """How many times each operator occurs in a feature (``n_threshold``, ``n_log``, ...)."""

    name = "tabular-ops"
    summary = "count of each operator in a tabular feature"
    families = ("tabular",)
    columns = tuple(f"n_{name}" for name in OPERATORS)

    def describe(self, family: TabularFamily, batch) -> np.ndarray:
        names = list(OPERATORS)
        out = np.zeros((len(batch), len(names)))
        for i, e in enumerate(batch.exprs):
            for op in expr_ops(e):
                out[i, names.index(op)] += 1
        return out


class InputColumns(MetaFeatureDescriber):
    """Properties of a feature's input columns: mean and worst quality rank, number of distinct tags."""

    name = "tabular-inputs"
    summary = "mean / worst quality rank and number of distinct tags of a tabular feature's inputs"
    families = ("tabular",)
    columns = ("mean_rank", "worst_rank", "n_tags")

    def describe(self, family: TabularFamily, batch) -> np.ndarray:
        rank = np.asarray(family.column_rank, dtype=np.float64)
        tags = family._tags()
        out = np.zeros((len(batch), 3))
        for i, e in enumerate(batch.exprs):
            cols = expr_columns(e)
            out[i] = rank[cols].mean(), rank[cols].max(), len({tags[j] for j in cols if tags[j]})
        return out


#: the operator families, in the order of the ``op_group`` meta-feature
OP_GROUPS = ("arith", "missing", "category", "date")


class ColumnKinds(MetaFeatureDescriber):
    """The operator's family and the kinds of a feature's input columns.

    ``op_group``: 0 arithmetic, 1 missing-value indicator, 2 categorical
    (frequency and group-by), 3 dates; ``n_numeric``, ``n_categorical``,
    ``n_datetime``: input columns of each kind; ``n_with_missing``: input
    columns that had missing values in training.
    """

    name = "tabular-kinds"
    summary = "operator family and kinds of the input columns (numeric, categorical, datetime, with missing values)"
    families = ("tabular",)
    columns = ("op_group", "n_numeric", "n_categorical", "n_datetime", "n_with_missing")

    def describe(self, family: TabularFamily, batch) -> np.ndarray:
        kinds = family._kinds()
        miss = list(family.column_missing or [False] * len(kinds))
        out = np.zeros((len(batch), len(self.columns)))
        for i, e in enumerate(batch.exprs):
            cols = expr_columns(e)
            out[i] = (OP_GROUPS.index(OPERATORS[e["op"]].group),
                      sum(kinds[j] == "numeric" for j in cols), sum(kinds[j] == "categorical" for j in cols),
                      sum(kinds[j] == "datetime" for j in cols), sum(bool(miss[j]) for j in cols))
        return out
