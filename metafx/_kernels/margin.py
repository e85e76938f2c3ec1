"""Nearest hit / nearest miss search and the loops of Relief, Simba, G-flip and RGS.

Conventions shared by every kernel:

* ``X`` is a C-contiguous float64 ``(m, N)`` matrix, ``codes`` int64 class
  codes ``0..K-1``; ``w2`` holds the *squared* feature weights, so the
  weighted squared distance is ``sum_f w2[f] * (x_f - x'_f)**2``
  (thesis eq. 3.1: ``||z||_w^2 = sum_i w_i^2 z_i^2``).
* Leave-one-out: instance ``i`` is never its own neighbour.  Among equally
  distant candidates the lowest index wins.  ``-1`` marks a missing
  neighbour (a single-member class has no nearest hit; with one class there
  is no nearest miss); such instances are skipped by the loops.
* Utility codes: 0 linear ``u(t) = t``, 1 zero-one ``u(t) = [t > 0]``,
  2 sigmoid ``u(t) = 1 / (1 + exp(-beta t))``.
* Binary data can use bit-packed *rows* (``(m, ceil(N/64))`` uint64, the
  transpose of :class:`metafx.plugin.FeatureValues` packing): squared Euclidean
  distance between 0/1 vectors is the Hamming distance, a popcount of XOR.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from . import JIT
from .packing import _popcount64

__all__ = [
    "gflip_toggle_value",
    "hit_miss",
    "hit_miss_packed",
    "knn_mean_sqdist",
    "loo_margins",
    "loo_margins_packed",
    "margin_sum_from_D",
    "nearest_by_class",
    "nearest_by_class_packed",
    "relief_weights",
    "relieff_weights",
    "rgs_pass",
    "rgs_value_and_gradient",
    "simba_gradient",
    "simba_pass",
    "sq_distance_matrix",
    "sq_distance_matrix_packed",
    "toggle_feature",
    "utility",
]

_BLOCK = 32  # features summed between two early-abandon checks


# ------------------------------------------------------------------ utilities
@numba.njit(**JIT)
def _u(theta, code, beta):
    if code == 0:
        return theta
    if code == 1:
        return 1.0 if theta > 0.0 else 0.0
    return 1.0 / (1.0 + math.exp(-beta * theta))


@numba.njit(**JIT)
def _du(theta, code, beta):
    if code == 0:
        return 1.0
    if code == 1:
        return 0.0
    s = 1.0 / (1.0 + math.exp(-beta * theta))
    return beta * s * (1.0 - s)


@numba.njit(**JIT)
def _utility_sum(theta, valid, code, beta):
    s = 0.0
    for i in range(theta.shape[0]):
        if valid[i]:
            s += _u(theta[i], code, beta)
    return s


def utility(theta: np.ndarray, code: int, beta: float) -> np.ndarray:
    """``u(theta)`` element-wise (NumPy; for reporting)."""
    theta = np.asarray(theta, dtype=np.float64)
    if code == 0:
        return theta.copy()
    if code == 1:
        return (theta > 0).astype(np.float64)
    return 1.0 / (1.0 + np.exp(-beta * theta))


# ------------------------------------------------------------------ nearest hit / miss
@numba.njit(**JIT)
def _hit_miss_one(X, codes, w2, i):
    """Nearest hit and nearest miss of row ``i`` (weighted squared distance, early abandon)."""
    m, n = X.shape
    ci = codes[i]
    bh = np.inf
    bm = np.inf
    ih = -1
    im = -1
    for j in range(m):
        if j == i:
            continue
        same = codes[j] == ci
        bound = bh if same else bm
        s = 0.0
        f = 0
        while f < n:
            end = min(f + _BLOCK, n)
            for g in range(f, end):
                d = X[i, g] - X[j, g]
                s += w2[g] * d * d
            if s >= bound:
                break
            f = end
        if s < bound:
            if same:
                bh = s
                ih = j
            else:
                bm = s
                im = j
    return ih, im, bh, bm


@numba.njit(**JIT)
def _hit_miss(X, codes, w2, queries, hit, miss, dhit, dmiss):
    for q in range(queries.shape[0]):
        ih, im, bh, bm = _hit_miss_one(X, codes, w2, queries[q])
        hit[q] = ih
        miss[q] = im
        dhit[q] = bh
        dmiss[q] = bm


def hit_miss(X: np.ndarray, codes: np.ndarray, w2: np.ndarray, queries: np.ndarray | None = None):
    """Nearest hit / miss of each query row: ``(hit, miss, d2_hit, d2_miss)`` (squared distances, inf if none)."""
    X = np.ascontiguousarray(X, dtype=np.float64)
    codes = np.ascontiguousarray(codes, dtype=np.int64)
    w2 = np.ascontiguousarray(w2, dtype=np.float64)
    queries = np.arange(X.shape[0], dtype=np.int64) if queries is None else np.ascontiguousarray(queries, np.int64)
    q = queries.shape[0]
    hit = np.full(q, -1, np.int64)
    miss = np.full(q, -1, np.int64)
    dh = np.full(q, np.inf)
    dm = np.full(q, np.inf)
    if q:
        _hit_miss(X, codes, w2, queries, hit, miss, dh, dm)
    return hit, miss, dh, dm


@numba.njit(**JIT)
def _hit_miss_one_packed(R, codes, i):
    m, nw = R.shape
    ci = codes[i]
    bh = np.int64(1) << 62
    bm = np.int64(1) << 62
    ih = -1
    im = -1
    for j in range(m):
        if j == i:
            continue
        same = codes[j] == ci
        bound = bh if same else bm
        s = np.int64(0)
        w = 0
        while w < nw:
            end = min(w + 4, nw)
            for v in range(w, end):
                s += np.int64(_popcount64(R[i, v] ^ R[j, v]))
            if s >= bound:
                break
            w = end
        if s < bound:
            if same:
                bh = s
                ih = j
            else:
                bm = s
                im = j
    return ih, im, bh, bm


@numba.njit(**JIT)
def _hit_miss_packed(R, codes, queries, hit, miss, dhit, dmiss):
    for q in range(queries.shape[0]):
        ih, im, bh, bm = _hit_miss_one_packed(R, codes, queries[q])
        hit[q] = ih
        miss[q] = im
        dhit[q] = bh if ih >= 0 else np.inf
        dmiss[q] = bm if im >= 0 else np.inf


def hit_miss_packed(R: np.ndarray, codes: np.ndarray, queries: np.ndarray | None = None):
    """:func:`hit_miss` with unit weights on binary rows packed as ``(m, ceil(N/64))`` uint64 (Hamming)."""
    R = np.ascontiguousarray(R, dtype=np.uint64)
    codes = np.ascontiguousarray(codes, dtype=np.int64)
    queries = np.arange(R.shape[0], dtype=np.int64) if queries is None else np.ascontiguousarray(queries, np.int64)
    q = queries.shape[0]
    hit = np.full(q, -1, np.int64)
    miss = np.full(q, -1, np.int64)
    dh = np.full(q, np.inf)
    dm = np.full(q, np.inf)
    if q:
        _hit_miss_packed(R, codes, queries, hit, miss, dh, dm)
    return hit, miss, dh, dm


@numba.njit(**JIT)
def _nearest_by_class(X, codes, w2, queries, idx, dist):
    m, n = X.shape
    for q in range(queries.shape[0]):
        i = queries[q]
        for j in range(m):
            if j == i:
                continue
            c = codes[j]
            bound = dist[q, c]
            s = 0.0
            f = 0
            while f < n:
                end = min(f + _BLOCK, n)
                for g in range(f, end):
                    d = X[i, g] - X[j, g]
                    s += w2[g] * d * d
                if s >= bound:
                    break
                f = end
            if s < bound:
                dist[q, c] = s
                idx[q, c] = j


def nearest_by_class(X, codes, n_classes, w2, queries=None):
    """Nearest neighbour of each query row within every class (self excluded): ``(idx, d2)`` of shape (q, K)."""
    X = np.ascontiguousarray(X, dtype=np.float64)
    codes = np.ascontiguousarray(codes, dtype=np.int64)
    w2 = np.ascontiguousarray(w2, dtype=np.float64)
    queries = np.arange(X.shape[0], dtype=np.int64) if queries is None else np.ascontiguousarray(queries, np.int64)
    idx = np.full((queries.shape[0], n_classes), -1, np.int64)
    dist = np.full((queries.shape[0], n_classes), np.inf)
    if queries.shape[0]:
        _nearest_by_class(X, codes, w2, queries, idx, dist)
    return idx, dist


@numba.njit(**JIT)
def _nearest_by_class_packed(R, codes, queries, idx, dist):
    m, nw = R.shape
    for q in range(queries.shape[0]):
        i = queries[q]
        for j in range(m):
            if j == i:
                continue
            c = codes[j]
            s = 0
            for v in range(nw):
                s += _popcount64(R[i, v] ^ R[j, v])
            if s < dist[q, c]:
                dist[q, c] = s
                idx[q, c] = j


def nearest_by_class_packed(R, codes, n_classes, queries=None):
    """:func:`nearest_by_class` with unit weights on packed binary rows (Hamming distance)."""
    R = np.ascontiguousarray(R, dtype=np.uint64)
    codes = np.ascontiguousarray(codes, dtype=np.int64)
    queries = np.arange(R.shape[0], dtype=np.int64) if queries is None else np.ascontiguousarray(queries, np.int64)
    idx = np.full((queries.shape[0], n_classes), -1, np.int64)
    dist = np.full((queries.shape[0], n_classes), np.inf)
    if queries.shape[0]:
        _nearest_by_class_packed(R, codes, queries, idx, dist)
    return idx, dist


# ------------------------------------------------------------------ margins
def _margins(dh, dm):
    valid = np.isfinite(dh) & np.isfinite(dm)
    theta = np.zeros(dh.shape[0])
    theta[valid] = 0.5 * (np.sqrt(dm[valid]) - np.sqrt(dh[valid]))
    return theta, valid


def loo_margins(X, codes, w2):
    """Leave-one-out hypothesis margins ``0.5 (||x - nearmiss||_w - ||x - nearhit||_w)`` and the valid mask."""
    _, _, dh, dm = hit_miss(X, codes, w2)
    return _margins(dh, dm)


def loo_margins_packed(R, codes):
    """:func:`loo_margins` with unit weights on packed binary rows."""
    _, _, dh, dm = hit_miss_packed(R, codes)
    return _margins(dh, dm)


# ------------------------------------------------------------------ Relief
@numba.njit(**JIT)
def _relief_accumulate(X, queries, hit, miss, w):
    n = X.shape[1]
    for q in range(queries.shape[0]):
        h = hit[q]
        mm = miss[q]
        if h < 0 or mm < 0:
            continue
        i = queries[q]
        for f in range(n):
            a = X[i, f] - X[mm, f]
            b = X[i, f] - X[h, f]
            w[f] += a * a - b * b


def relief_weights(X, queries, hit, miss):
    """Relief (thesis Alg 3): ``w_f = sum_q (x_f - nearmiss_f)^2 - (x_f - nearhit_f)^2`` over the queries."""
    X = np.ascontiguousarray(X, dtype=np.float64)
    w = np.zeros(X.shape[1])
    _relief_accumulate(X, np.ascontiguousarray(queries, np.int64), np.ascontiguousarray(hit, np.int64),
                       np.ascontiguousarray(miss, np.int64), w)
    return w


@numba.njit(**JIT)
def _relieff_accumulate(X, codes, queries, idx, w):
    n = X.shape[1]
    K = idx.shape[1]
    for q in range(queries.shape[0]):
        i = queries[q]
        ci = codes[i]
        h = idx[q, ci]
        n_miss = 0
        for c in range(K):
            if c != ci and idx[q, c] >= 0:
                n_miss += 1
        if h < 0 or n_miss == 0:
            continue
        for f in range(n):
            b = X[i, f] - X[h, f]
            s = 0.0
            for c in range(K):
                if c != ci and idx[q, c] >= 0:
                    a = X[i, f] - X[idx[q, c], f]
                    s += a * a
            w[f] += s / n_miss - b * b


def relieff_weights(X, codes, queries, idx):
    """Relief-F: the miss term is the average over the nearest instance of every other class."""
    X = np.ascontiguousarray(X, dtype=np.float64)
    w = np.zeros(X.shape[1])
    _relieff_accumulate(X, np.ascontiguousarray(codes, np.int64), np.ascontiguousarray(queries, np.int64),
                        np.ascontiguousarray(idx, np.int64), w)
    return w


# ------------------------------------------------------------------ Simba
@numba.njit(**JIT)
def _simba_delta(X, i, h, mm, dh, dm, w, code, beta, delta):
    """Delta of thesis Alg 2 step (c) for instance ``i`` (added to ``delta``)."""
    n = X.shape[1]
    nh = math.sqrt(dh)
    nm = math.sqrt(dm)
    theta = 0.5 * (nm - nh)
    up = _du(theta, code, beta)
    for f in range(n):
        a = X[i, f] - X[mm, f]
        b = X[i, f] - X[h, f]
        # d||z||_w / dw_f = w_f z_f^2 / ||z||_w, extended by 0 where ||z||_w = 0
        t1 = a * a / nm if nm > 0.0 else 0.0
        t2 = b * b / nh if nh > 0.0 else 0.0
        delta[f] += 0.5 * up * (t1 - t2) * w[f]


@numba.njit(**JIT)
def _simba_pass(X, codes, order, w, code, beta):
    n = X.shape[1]
    w2 = np.empty(n)
    delta = np.zeros(n)
    for t in range(order.shape[0]):
        i = order[t]
        for f in range(n):
            w2[f] = w[f] * w[f]
        h, mm, dh, dm = _hit_miss_one(X, codes, w2, i)
        if h < 0 or mm < 0:
            continue
        for f in range(n):
            delta[f] = 0.0
        _simba_delta(X, i, h, mm, dh, dm, w, code, beta, delta)
        for f in range(n):
            w[f] += delta[f]


def simba_pass(X, codes, order, w, code, beta):
    """Simba (thesis Alg 2, step 2) visiting the instances in ``order``; updates ``w`` in place."""
    X = np.ascontiguousarray(X, dtype=np.float64)
    if order.shape[0] and X.shape[1]:
        _simba_pass(X, np.ascontiguousarray(codes, np.int64), np.ascontiguousarray(order, np.int64), w, code, beta)
    return w


@numba.njit(**JIT)
def _simba_gradient(X, codes, w, code, beta, grad):
    n = X.shape[1]
    w2 = np.empty(n)
    for f in range(n):
        w2[f] = w[f] * w[f]
    for i in range(X.shape[0]):
        h, mm, dh, dm = _hit_miss_one(X, codes, w2, i)
        if h < 0 or mm < 0:
            continue
        _simba_delta(X, i, h, mm, dh, dm, w, code, beta, grad)


def simba_gradient(X, codes, w, code, beta):
    """Gradient of ``e(w)`` (thesis eq. 3.3) with every instance's nearest hit / miss held fixed."""
    X = np.ascontiguousarray(X, dtype=np.float64)
    grad = np.zeros(X.shape[1])
    if X.shape[1]:
        _simba_gradient(X, np.ascontiguousarray(codes, np.int64), np.ascontiguousarray(w, np.float64),
                        code, beta, grad)
    return grad


# ------------------------------------------------------------------ G-flip (distance-matrix form)
@numba.njit(**JIT)
def _sq_distance_matrix(X, D):
    m, n = X.shape
    for i in range(m):
        for j in range(i + 1, m):
            s = 0.0
            for f in range(n):
                d = X[i, f] - X[j, f]
                s += d * d
            D[i, j] = s
            D[j, i] = s


def sq_distance_matrix(X):
    """``(m, m)`` squared Euclidean distances (zero diagonal)."""
    X = np.ascontiguousarray(X, dtype=np.float64)
    D = np.zeros((X.shape[0], X.shape[0]))
    if X.shape[1]:
        _sq_distance_matrix(X, D)
    return D


@numba.njit(**JIT)
def _sq_distance_matrix_packed(R, D):
    m, nw = R.shape
    for i in range(m):
        for j in range(i + 1, m):
            s = 0
            for v in range(nw):
                s += _popcount64(R[i, v] ^ R[j, v])
            D[i, j] = s
            D[j, i] = s


def sq_distance_matrix_packed(R):
    """:func:`sq_distance_matrix` of packed binary rows (Hamming distances)."""
    R = np.ascontiguousarray(R, dtype=np.uint64)
    D = np.zeros((R.shape[0], R.shape[0]))
    if R.shape[1]:
        _sq_distance_matrix_packed(R, D)
    return D


@numba.njit(**JIT)
def _margin_sum_toggle(D, x, sign, codes, code, beta):
    # e of the distance matrix D + sign * (x_i - x_j)^2 (sign 0: D itself)
    m = D.shape[0]
    total = 0.0
    for i in range(m):
        ci = codes[i]
        bh = np.inf
        bm = np.inf
        xi = x[i]
        for j in range(m):
            if j == i:
                continue
            d = xi - x[j]
            s = D[i, j] + sign * d * d
            if s < 0.0:
                s = 0.0
            if codes[j] == ci:
                if s < bh:
                    bh = s
            elif s < bm:
                bm = s
        if bh < np.inf and bm < np.inf:
            total += _u(0.5 * (math.sqrt(bm) - math.sqrt(bh)), code, beta)
    return total


def margin_sum_from_D(D, codes, code, beta):
    """``e(F) = sum_x u(theta_F(x))`` (leave-one-out) from the squared-distance matrix of ``F``."""
    x = np.zeros(D.shape[0])
    return float(_margin_sum_toggle(D, x, 0.0, np.ascontiguousarray(codes, np.int64), code, beta))


def gflip_toggle_value(D, x, sign, codes, code, beta):
    """``e`` after adding (``sign=+1``) or removing (``sign=-1``) the feature with values ``x``; ``D`` unchanged."""
    return float(_margin_sum_toggle(D, np.ascontiguousarray(x, np.float64), float(sign),
                                    np.ascontiguousarray(codes, np.int64), code, beta))


@numba.njit(**JIT)
def _toggle_feature(D, x, sign):
    m = D.shape[0]
    for i in range(m):
        for j in range(i + 1, m):
            d = x[i] - x[j]
            s = D[i, j] + sign * d * d
            if s < 0.0:
                s = 0.0
            D[i, j] = s
            D[j, i] = s


def toggle_feature(D, x, sign):
    """In place: ``D += sign * (x_i - x_j)^2`` (clipped at 0)."""
    _toggle_feature(D, np.ascontiguousarray(x, np.float64), float(sign))
    return D


# ------------------------------------------------------------------ RGS
@numba.njit(**JIT)
def _rgs_sample(X, g, w, k, beta, i, d, grad, need_grad):
    """ĝ_w(x_i) (soft k-NN, leave-one-out) and, if asked, d ĝ / d w (added to grad with factor)."""
    m, n = X.shape
    for j in range(m):
        s = 0.0
        for f in range(n):
            t = X[i, f] - X[j, f]
            s += w[f] * w[f] * t * t
        d[j] = s
    d[i] = np.inf
    nb = np.argsort(d, kind="mergesort")[:k]
    dmin = d[nb[0]]
    e = np.empty(k)
    Z = 0.0
    G = 0.0
    for a in range(k):
        e[a] = math.exp(-(d[nb[a]] - dmin) / beta)
        Z += e[a]
        G += g[nb[a]] * e[a]
    ghat = G / Z
    if need_grad:
        for f in range(n):
            A = 0.0
            B = 0.0
            for a in range(k):
                t = X[i, f] - X[nb[a], f]
                A += e[a] * t * t
                B += g[nb[a]] * e[a] * t * t
            grad[f] = (2.0 * w[f] / beta) * (A * G - Z * B) / (Z * Z)
    return ghat


@numba.njit(**JIT)
def _rgs_pass(X, g, order, w, k, beta, eta):
    m, n = X.shape
    d = np.empty(m)
    grad = np.empty(n)
    for t in range(order.shape[0]):
        i = order[t]
        ghat = _rgs_sample(X, g, w, k, beta, i, d, grad, True)
        r = g[i] - ghat
        for f in range(n):
            w[f] += eta[t] * r * grad[f]


def rgs_pass(X, g, order, w, k, beta, eta):
    """RGS (thesis Alg 4) over the instances in ``order`` with step sizes ``eta``; updates ``w`` in place."""
    X = np.ascontiguousarray(X, dtype=np.float64)
    if order.shape[0] and X.shape[1]:
        _rgs_pass(X, np.ascontiguousarray(g, np.float64), np.ascontiguousarray(order, np.int64), w, int(k),
                  float(beta), np.ascontiguousarray(eta, np.float64))
    return w


@numba.njit(**JIT)
def _rgs_value_and_gradient(X, g, w, k, beta, total_grad):
    m, n = X.shape
    d = np.empty(m)
    grad = np.empty(n)
    e = 0.0
    for i in range(m):
        ghat = _rgs_sample(X, g, w, k, beta, i, d, grad, True)
        r = g[i] - ghat
        e -= 0.5 * r * r
        for f in range(n):
            total_grad[f] += r * grad[f]
    return e


def rgs_value_and_gradient(X, g, w, k, beta):
    """``e(w) = -1/2 sum (g(x) - ĝ_w(x))^2`` (thesis eq. 4.2) and its gradient (neighbour sets held fixed)."""
    X = np.ascontiguousarray(X, dtype=np.float64)
    grad = np.zeros(X.shape[1])
    e = _rgs_value_and_gradient(X, np.ascontiguousarray(g, np.float64), np.ascontiguousarray(w, np.float64),
                                int(k), float(beta), grad)
    return float(e), grad


@numba.njit(**JIT)
def _knn_mean_sqdist(X, k):
    m, n = X.shape
    d = np.empty(m)
    total = 0.0
    for i in range(m):
        for j in range(m):
            s = 0.0
            for f in range(n):
                t = X[i, f] - X[j, f]
                s += t * t
            d[j] = s
        d[i] = np.inf
        d.sort()
        for a in range(k):
            total += d[a]
    return total / (m * k)


def knn_mean_sqdist(X, k):
    """Mean squared distance between each point and its ``k`` nearest other points."""
    X = np.ascontiguousarray(X, dtype=np.float64)
    return float(_knn_mean_sqdist(X, int(k)))
