"""The ``tabular`` family's batch of features (:class:`TabularBatch`) and the values it computes
(:class:`TableValues`, which carry the table's own columns for the evaluators)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from metafx.plugin import FeatureValues

from .expressions import expr_columns, expr_depth, expr_ops

__all__ = ["TableValues", "TabularBatch"]


# --------------------------------------------------------------------------- batch
@dataclass
class TabularBatch:
    """Features of ``tabular``: a list of expressions (``metafx_tabular.expressions``)."""

    exprs: list[dict[str, Any]]
    costs: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        self.costs = np.array([len(expr_ops(e)) for e in self.exprs], dtype=np.float64)

    def __len__(self) -> int:
        return len(self.exprs)

    def take(self, idx: Sequence[int] | np.ndarray) -> TabularBatch:
        return TabularBatch([self.exprs[int(i)] for i in np.asarray(idx, dtype=np.intp).reshape(-1)])

    @property
    def arity(self) -> np.ndarray:
        return np.array([len(expr_columns(e)) for e in self.exprs], dtype=np.int64)

    @property
    def depth(self) -> np.ndarray:
        return np.array([expr_depth(e) for e in self.exprs], dtype=np.int64)

    def columns(self) -> list[list[int]]:
        return [expr_columns(e) for e in self.exprs]


# --------------------------------------------------------------------------- values
class TableValues(FeatureValues):
    """Feature values that also carry the (standardized) table they were computed from.

    ``columns`` lets an evaluator score a feature set *added to* the table's
    own columns, which is how constructed features are used on tables (see
    :class:`metafx_tabular.CVLinear`, ``with_columns``).  Everything else
    behaves as :class:`metafx.plugin.FeatureValues`.
    """

    def __init__(self, *, dense: np.ndarray, columns: np.ndarray) -> None:
        super().__init__(n_samples=dense.shape[0], dense=dense)
        self.columns = columns

    def take(self, columns: Sequence[int] | np.ndarray) -> TableValues:
        idx = np.asarray(columns, dtype=np.intp)
        return TableValues(dense=self.dense(np.float64)[:, idx], columns=self.columns)
