"""Soft k-nearest-neighbour regression estimates and the fit criterion of thesis eq. 4.1 and 4.2.

Used by the ``sks`` scorer and the ``forward`` / ``backward`` selectors' ``"soft-knn"`` criterion.
"""

from __future__ import annotations

import numpy as np

__all__ = ["column_sqdiff", "soft_knn_criterion", "soft_knn_loo", "sq_distances"]


def soft_knn_loo(D: np.ndarray, g: np.ndarray, k: int, beta: float) -> np.ndarray:
    """Leave-one-out soft k-NN estimates ``ĝ(x)`` from a squared-distance matrix ``D`` (m x m).

    ``ĝ(x) = sum_{x' in N(x)} g(x') exp(-d(x, x')/beta) / Z`` over the ``k`` nearest
    other instances (ties: lower index first).  The weights are computed relative
    to the nearest neighbour's distance (the common factor cancels in the ratio),
    so a small ``beta`` does not underflow.
    """
    m = D.shape[0]
    k = min(int(k), m - 1)
    Dm = D.copy()
    np.fill_diagonal(Dm, np.inf)
    nb = np.argsort(Dm, axis=1, kind="stable")[:, :k]
    d = np.take_along_axis(Dm, nb, axis=1)
    wts = np.exp(-(d - d[:, :1]) / beta)
    return (wts * g[nb]).sum(axis=1) / wts.sum(axis=1)


def soft_knn_criterion(D: np.ndarray, g: np.ndarray, k: int, beta: float) -> float:
    """Thesis eq. 4.2 on a feature set: ``e = -1/2 sum_x (g(x) - ĝ(x))^2`` (leave-one-out)."""
    r = g - soft_knn_loo(D, g, k, beta)
    return float(-0.5 * np.dot(r, r))


def column_sqdiff(x: np.ndarray) -> np.ndarray:
    d = x[:, None] - x[None, :]
    return d * d


def sq_distances(X: np.ndarray) -> np.ndarray:
    """Exact squared Euclidean distances (column by column, no Gram-matrix cancellation)."""
    m = X.shape[0]
    D = np.zeros((m, m))
    for f in range(X.shape[1]):
        D += column_sqdiff(X[:, f])
    return D
