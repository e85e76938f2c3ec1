"""Reading the target: classification or regression, and the cheap per-column score."""

from __future__ import annotations

import numpy as np

__all__ = ["MAX_CLASSES", "column_scores", "infer_task"]

#: a numeric target with more distinct values than this is read as a regression target
MAX_CLASSES = 20


def infer_task(y: np.ndarray) -> str:
    """``"classification"`` for labels, ``"regression"`` for a real target.

    Non-numeric and boolean targets are labels; a numeric target is a
    regression target when it has non-integer values or more than
    :data:`MAX_CLASSES` distinct values.

    >>> infer_task(np.array([0, 1, 1, 2]))
    'classification'
    >>> infer_task(np.array([0.5, 1.25, 3.0]))
    'regression'
    """
    y = np.asarray(y)
    if y.dtype.kind not in "iuf":
        return "classification"
    if y.dtype.kind == "f" and not np.all(np.mod(y, 1) == 0):
        return "regression"
    return "regression" if np.unique(y).size > MAX_CLASSES else "classification"


def column_scores(X: np.ndarray, y: np.ndarray, task: str) -> np.ndarray:
    """A cheap score of every column alone (higher is better).

    Classification: the ANOVA F statistic of the column across classes;
    regression: the absolute Pearson correlation with ``y``.  Constant columns score 0.
    """
    X = np.asarray(X, dtype=np.float64)
    if task == "classification":
        from sklearn.feature_selection import f_classif

        with np.errstate(divide="ignore", invalid="ignore"):
            F, _ = f_classif(X, y)
        return np.nan_to_num(F, nan=0.0, posinf=np.finfo(np.float64).max)
    yc = np.asarray(y, dtype=np.float64) - np.mean(y)
    Xc = X - X.mean(axis=0)
    den = np.sqrt((Xc**2).sum(axis=0) * (yc**2).sum())
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(den > 0, (Xc * yc[:, None]).sum(axis=0) / den, 0.0)
    return np.abs(r)
