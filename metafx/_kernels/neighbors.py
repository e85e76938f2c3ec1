"""Kernels of the nearest-neighbour classifiers and the potential-function criterion.

Distances are squared Euclidean on float64 rows, or Hamming (= squared
Euclidean of 0/1 vectors) on bit-packed rows ``(m, ceil(N/64))`` uint64.
Among equally near training points the lowest index wins.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from . import JIT
from .packing import _popcount64

__all__ = [
    "diameter",
    "loo_potential_scores",
    "net_indices",
    "nn_index",
    "nn_index_packed",
    "pairwise_dist",
    "potential_scores",
    "prune_net",
    "weighted_knn_vote",
]

_BLOCK = 32


@numba.njit(**JIT)
def _nn_index(A, B, out, dist):
    m, n = A.shape
    for q in range(B.shape[0]):
        best = np.inf
        bi = -1
        for j in range(m):
            s = 0.0
            f = 0
            while f < n:
                end = min(f + _BLOCK, n)
                for g in range(f, end):
                    d = B[q, g] - A[j, g]
                    s += d * d
                if s >= best:
                    break
                f = end
            if s < best:
                best = s
                bi = j
        out[q] = bi
        dist[q] = best


def nn_index(A: np.ndarray, B: np.ndarray):
    """Nearest row of ``A`` to each row of ``B``: ``(index, squared distance)``."""
    A = np.ascontiguousarray(A, dtype=np.float64)
    B = np.ascontiguousarray(B, dtype=np.float64)
    out = np.full(B.shape[0], -1, np.int64)
    dist = np.full(B.shape[0], np.inf)
    if A.shape[0] and B.shape[0]:
        _nn_index(A, B, out, dist)
    return out, dist


@numba.njit(**JIT)
def _nn_index_packed(A, B, out, dist):
    m, nw = A.shape
    for q in range(B.shape[0]):
        best = np.int64(1) << 62
        bi = -1
        for j in range(m):
            s = np.int64(0)
            for v in range(nw):
                s += np.int64(_popcount64(B[q, v] ^ A[j, v]))
                if s >= best:
                    break
            if s < best:
                best = s
                bi = j
        out[q] = bi
        dist[q] = best


def nn_index_packed(A: np.ndarray, B: np.ndarray):
    """:func:`nn_index` on packed binary rows (Hamming distance)."""
    A = np.ascontiguousarray(A, dtype=np.uint64)
    B = np.ascontiguousarray(B, dtype=np.uint64)
    out = np.full(B.shape[0], -1, np.int64)
    dist = np.full(B.shape[0], np.inf)
    if A.shape[0] and B.shape[0]:
        _nn_index_packed(A, B, out, dist)
    return out, dist


# ------------------------------------------------------------------ net-based condensing
@numba.njit(**JIT)
def _net(X, gamma2, out):
    m, n = X.shape
    k = 0
    for p in range(m):
        add = True
        for a in range(k):
            j = out[a]
            s = 0.0
            for f in range(n):
                d = X[p, f] - X[j, f]
                s += d * d
                if s >= gamma2:
                    break
            if s < gamma2:
                add = False
                break
        if add:
            out[k] = p
            k += 1
    return k


def net_indices(X: np.ndarray, gamma2: float) -> np.ndarray:
    """Algorithm 1 of the compression paper: greedy ``gamma``-net of the rows in index order.

    Row ``p`` joins the net when its squared distance to every net point is
    ``>= gamma2`` (the squared margin, compared exactly as computed).
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    out = np.zeros(X.shape[0], np.int64)
    if X.shape[0] == 0:
        return out
    k = _net(X, float(gamma2), out)
    return out[:k].copy()


@numba.njit(**JIT)
def _pairwise(X, D):
    m, n = X.shape
    for i in range(m):
        for j in range(i + 1, m):
            s = 0.0
            for f in range(n):
                d = X[i, f] - X[j, f]
                s += d * d
            D[i, j] = math.sqrt(s)
            D[j, i] = D[i, j]


def pairwise_dist(X: np.ndarray) -> np.ndarray:
    """``(m, m)`` Euclidean distances."""
    X = np.ascontiguousarray(X, dtype=np.float64)
    D = np.zeros((X.shape[0], X.shape[0]))
    if X.shape[1]:
        _pairwise(X, D)
    return D


@numba.njit(**JIT)
def _diameter(X):
    m, n = X.shape
    best = 0.0
    for i in range(m):
        for j in range(i + 1, m):
            s = 0.0
            for f in range(n):
                d = X[i, f] - X[j, f]
                s += d * d
            if s > best:
                best = s
    return math.sqrt(best)


def diameter(X: np.ndarray) -> float:
    """Largest Euclidean distance between two rows."""
    X = np.ascontiguousarray(X, dtype=np.float64)
    return float(_diameter(X)) if X.shape[0] > 1 and X.shape[1] else 0.0


@numba.njit(**JIT)
def _prune(D, codes, radii, gamma, alive):
    k = D.shape[0]
    for r in radii:
        for p in range(k):
            if not alive[p]:
                continue
            ok = True
            for o in range(k):
                if alive[o] and codes[o] != codes[p] and D[p, o] < 2.0 * r:
                    ok = False
                    break
            if not ok:
                continue
            for q in range(k):
                if q != p and alive[q] and D[p, q] < r - gamma:
                    alive[q] = False


def prune_net(D: np.ndarray, codes: np.ndarray, radii: np.ndarray, gamma: float) -> np.ndarray:
    """Algorithm 2 of the compression paper on a net with distance matrix ``D``; the kept mask.

    For each radius ``r`` (decreasing) and each kept net point ``p`` whose
    other-label net points are all ``>= 2 r`` away, every other kept net point
    within ``r - gamma`` of ``p`` is removed.
    """
    alive = np.ones(D.shape[0], dtype=np.bool_)
    if D.shape[0]:
        _prune(np.ascontiguousarray(D, np.float64), np.ascontiguousarray(codes, np.int64),
               np.ascontiguousarray(radii, np.float64), float(gamma), alive)
    return alive


# ------------------------------------------------------------------ potential function rule
@numba.njit(**JIT)
def _potentials(A, codes, n_classes, B, inv_s2, exclude_self, out):
    m, n = A.shape
    d = np.empty(m)
    for q in range(B.shape[0]):
        dmin = np.inf
        for j in range(m):
            if exclude_self and j == q:
                d[j] = np.inf
                continue
            s = 0.0
            for f in range(n):
                t = B[q, f] - A[j, f]
                s += t * t
            d[j] = s
            if s < dmin:
                dmin = s
        total = 0.0
        for j in range(m):
            if d[j] < np.inf:
                v = math.exp(-(d[j] - dmin) * inv_s2)
                out[q, codes[j]] += v
                total += v
        if total > 0.0:
            for c in range(n_classes):
                out[q, c] /= total


def potential_scores(A, codes, n_classes, B, sigma):
    """Normalized class potentials ``phi_k(x) / sum_i phi_i(x)`` of each row of ``B`` (Gaussian psi).

    ``psi(x, y) = exp(-||x - y||^2 / sigma^2)``; the common factor
    ``exp(-min_j d_j / sigma^2)`` is divided out before summing (it cancels in
    the normalization), so far queries do not underflow.  A row without any
    potential mass (no training point) is all zeros.
    """
    A = np.ascontiguousarray(A, dtype=np.float64)
    B = np.ascontiguousarray(B, dtype=np.float64)
    out = np.zeros((B.shape[0], n_classes))
    if A.shape[0] and B.shape[0]:
        _potentials(A, np.ascontiguousarray(codes, np.int64), n_classes, B, 1.0 / float(sigma) ** 2, False, out)
    return out


def loo_potential_scores(X, codes, n_classes, sigma):
    """:func:`potential_scores` of every row of ``X`` against the others (leave-one-out)."""
    X = np.ascontiguousarray(X, dtype=np.float64)
    out = np.zeros((X.shape[0], n_classes))
    if X.shape[0]:
        _potentials(X, np.ascontiguousarray(codes, np.int64), n_classes, X, 1.0 / float(sigma) ** 2, True, out)
    return out


# ------------------------------------------------------------------ weighted K-NN
@numba.njit(**JIT)
def _wknn(A, codes, n_classes, B, W, k, out):
    m, n = A.shape
    d = np.empty(m)
    votes = np.empty(n_classes)
    near = np.empty(n_classes)
    for q in range(B.shape[0]):
        for j in range(m):
            s = 0.0
            for f in range(n):
                t = B[q, f] - A[j, f]
                s += W[q, f] * t * t
            d[j] = s
        nb = np.argsort(d, kind="mergesort")[:k]
        for c in range(n_classes):
            votes[c] = 0.0
            near[c] = np.inf
        for a in range(nb.shape[0]):
            c = codes[nb[a]]
            votes[c] += 1.0
            if a < near[c]:
                near[c] = a
        best = 0
        for c in range(1, n_classes):
            if votes[c] > votes[best] or (votes[c] == votes[best] and near[c] < near[best]):
                best = c
        out[q] = best


def weighted_knn_vote(A, codes, n_classes, B, W, k):
    """Majority class among the ``k`` nearest rows of ``A`` under ``sum_f W[q, f] (x_f - q_f)^2``.

    Vote ties go to the class whose member is nearest.
    """
    A = np.ascontiguousarray(A, dtype=np.float64)
    B = np.ascontiguousarray(B, dtype=np.float64)
    W = np.ascontiguousarray(W, dtype=np.float64)
    out = np.zeros(B.shape[0], np.int64)
    if A.shape[0] and B.shape[0]:
        _wknn(A, np.ascontiguousarray(codes, np.int64), int(n_classes), B, W, min(int(k), A.shape[0]), out)
    return out
