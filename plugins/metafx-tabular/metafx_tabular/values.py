"""The values of the ``tabular`` family's features on a table (:meth:`metafx_tabular.TabularFamily.compute`,
``transform``), and the design matrix of the table's own columns they are scored next to."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .expressions import _level_codes
from .operators import operator

__all__ = ["MAX_ONEHOT", "batch_values", "design_matrix", "expr_values"]

#: categories of a column one-hot encoded in the design matrix (the most frequent ones)
MAX_ONEHOT = 20


def expr_values(e: Mapping[str, Any], Z: np.ndarray) -> np.ndarray:
    """The values of expression ``e`` on the scaled table ``Z`` (its stored constants applied)."""
    if "col" in e:
        if "levels" in e:
            return _level_codes(Z[:, int(e["col"])], e["levels"])
        return Z[:, int(e["col"])]
    op = operator(e["op"])
    v = op.apply([expr_values(a, Z) for a in e["args"]], e)
    if "range" in e:
        v = np.clip(v, *e["range"])
    if "center" in e:
        v = (v - e["center"]) / e["scale"]
    return v


def batch_values(Z: np.ndarray, exprs: Sequence[Mapping[str, Any]]) -> np.ndarray:
    """The values of every expression, one column each, NaN where an input they need is missing."""
    out = np.empty((Z.shape[0], len(exprs)), dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        for i, e in enumerate(exprs):
            out[:, i] = expr_values(e, Z)
    # values far outside the training range are clipped so a linear model never sees inf
    np.clip(out, -1e6, 1e6, out=out)
    return out


def design_matrix(Z: np.ndarray, kinds: Sequence[str], categories: Sequence[Sequence[str] | None] | None) -> np.ndarray:
    """The table as model inputs: numeric columns (scaled) and datetime columns (days) as they are,
    categorical columns one-hot (their ``MAX_ONEHOT`` most frequent categories); NaN where missing."""
    if all(k == "numeric" for k in kinds):
        return Z
    categories = categories or [None] * len(kinds)
    parts = []
    for j, k in enumerate(kinds):
        cats = categories[j]
        if k != "categorical" or cats is None:
            parts.append(Z[:, j : j + 1])
        else:
            L = min(len(cats), MAX_ONEHOT)
            parts.append((Z[:, j : j + 1] == np.arange(L)[None, :]).astype(np.float64))
    return np.hstack(parts)
