"""Describers of ``tabular`` features: extra meta-features computed from the expression alone."""

from __future__ import annotations

import numpy as np

from metafx import MetaFeatureDescriber

from .family import TabularFamily, expr_columns, expr_ops
from .operators import OPERATORS

__all__ = ["OperatorCounts", "InputColumns"]


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
