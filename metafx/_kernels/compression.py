"""Kernels of the sample-compression tools (nets under the L1 or L2 metric).

``l1`` selects the metric: True for ``sum |a_f - b_f|``, False for the
Euclidean ``sqrt(sum (a_f - b_f)^2)``.  Every comparison uses the distance as
computed here, so the nets are valid for exactly this function.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from . import JIT

__all__ = [
    "ball_cover_counts",
    "brute_force_net",
    "cross_metric",
    "diameter_metric",
    "hierarchy_net",
    "max_dist_from",
    "nn_metric",
    "pairwise_metric",
]


@numba.njit(**JIT)
def _dist(X, i, Y, j, l1):
    s = 0.0
    n = X.shape[1]
    if l1:
        for f in range(n):
            s += abs(X[i, f] - Y[j, f])
        return s
    for f in range(n):
        d = X[i, f] - Y[j, f]
        s += d * d
    return math.sqrt(s)


# ------------------------------------------------------------------ Algorithm 1 (brute force)
@numba.njit(**JIT)
def _brute(X, gamma, l1, out):
    k = 0
    for p in range(X.shape[0]):
        add = True
        for a in range(k):
            if _dist(X, p, X, out[a], l1) < gamma:
                add = False
                break
        if add:
            out[k] = p
            k += 1
    return k


def brute_force_net(X: np.ndarray, gamma: float, l1: bool) -> np.ndarray:
    """Algorithm 1: scan rows in index order; add ``p`` when ``d(p, net) >= gamma``.  O(n |net|)."""
    X = np.ascontiguousarray(X, dtype=np.float64)
    out = np.zeros(X.shape[0], np.int64)
    if X.shape[0] == 0:
        return out
    k = _brute(X, float(gamma), bool(l1), out)
    return out[:k].copy()


# ------------------------------------------------------------------ net hierarchy
@numba.njit(**JIT)
def _max_dist_from(X, c, l1):
    best = 0.0
    for j in range(X.shape[0]):
        d = _dist(X, c, X, j, l1)
        if d > best:
            best = d
    return best


def max_dist_from(X: np.ndarray, c: int, l1: bool) -> float:
    X = np.ascontiguousarray(X, dtype=np.float64)
    return float(_max_dist_from(X, int(c), bool(l1)))


@numba.njit(**JIT)
def _next_level(X, l1, r_new, k, net, in_net, pos, parent, newparent, oldpar, head, nxt, nb_ptr, nb_idx):
    """One level of the net hierarchy at radius ``r_new``: each point outside the net is covered by the first
    net point closer than ``r_new`` among the children of its parent's neighbours, or else joins the net (a
    child of its parent).  Returns (the new net size, the distances evaluated)."""
    dist_evals = 0
    for a in range(k):
        u = net[a]
        head[u] = u
        nxt[u] = -1
        oldpar[u] = u
    for q in range(X.shape[0]):
        if in_net[q]:
            newparent[q] = q
            continue
        pq = parent[q]
        pp = pos[pq]
        found = -1
        for t in range(nb_ptr[pp], nb_ptr[pp + 1]):
            v = head[nb_idx[t]]
            while v != -1:
                dist_evals += 1
                if _dist(X, q, X, v, l1) < r_new:
                    found = v
                    break
                v = nxt[v]
            if found >= 0:
                break
        if found < 0:
            in_net[q] = True
            net[k] = q
            pos[q] = k
            k += 1
            nxt[q] = head[pq]
            head[pq] = q
            oldpar[q] = pq
            newparent[q] = q
        else:
            newparent[q] = found
    for q in range(X.shape[0]):
        parent[q] = newparent[q]
    return k, dist_evals


@numba.njit(**JIT)
def _count_neighbours(X, l1, rad, k, net, pos, oldpar, head, nxt, nb_ptr, nb_idx):
    """The offsets (``k + 1``) of the new neighbour lists: per net point, the children of its old parent's
    neighbours closer than ``rad``; and the distances evaluated."""
    cnt = np.zeros(k + 1, np.int64)
    dist_evals = 0
    for a in range(k):
        p = net[a]
        pp = pos[oldpar[p]]
        c = 0
        for t in range(nb_ptr[pp], nb_ptr[pp + 1]):
            v = head[nb_idx[t]]
            while v != -1:
                dist_evals += 1
                if _dist(X, p, X, v, l1) < rad:
                    c += 1
                v = nxt[v]
        cnt[a + 1] = cnt[a] + c
    return cnt, dist_evals


@numba.njit(**JIT)
def _fill_neighbours(X, l1, rad, k, net, pos, oldpar, head, nxt, nb_ptr, nb_idx, cnt):
    """The new neighbour lists at the offsets ``cnt`` (:func:`_count_neighbours`), in the same order."""
    new_idx = np.empty(cnt[k], np.int64)
    for a in range(k):
        p = net[a]
        pp = pos[oldpar[p]]
        c = cnt[a]
        for t in range(nb_ptr[pp], nb_ptr[pp + 1]):
            v = head[nb_idx[t]]
            while v != -1:
                if _dist(X, p, X, v, l1) < rad:
                    new_idx[c] = v
                    c += 1
                v = nxt[v]
    return new_idx


@numba.njit(**JIT)
def _hier(X, gamma, l1, r0, slack, max_pairs, net, stats):
    n = X.shape[0]
    in_net = np.zeros(n, np.bool_)
    pos = np.full(n, -1, np.int64)
    parent = np.zeros(n, np.int64)
    newparent = np.zeros(n, np.int64)
    oldpar = np.zeros(n, np.int64)
    head = np.full(n, -1, np.int64)
    nxt = np.full(n, -1, np.int64)
    # level 0: one point covering everything (r0 > max distance from it)
    net[0] = 0
    in_net[0] = True
    pos[0] = 0
    k = 1
    nb_ptr = np.zeros(2, np.int64)
    nb_ptr[1] = 1
    nb_idx = np.zeros(1, np.int64)
    r = r0
    levels = 0
    dist_evals = 0
    while True:
        r_new = r / 2.0
        final = False
        if r_new <= gamma:
            r_new = gamma
            final = True
        levels += 1
        k, evals = _next_level(X, l1, r_new, k, net, in_net, pos, parent, newparent, oldpar, head, nxt, nb_ptr,
                               nb_idx)
        dist_evals += evals
        if final:
            break
        # neighbours at the new level: pairs closer than 4 r_new, among the children of the old neighbours
        rad = 4.0 * r_new * slack
        cnt, evals = _count_neighbours(X, l1, rad, k, net, pos, oldpar, head, nxt, nb_ptr, nb_idx)
        dist_evals += evals
        if cnt[k] > max_pairs:
            stats[0] = levels
            stats[1] = dist_evals
            stats[2] = cnt[k]
            return -1
        nb_idx = _fill_neighbours(X, l1, rad, k, net, pos, oldpar, head, nxt, nb_ptr, nb_idx, cnt)
        nb_ptr = cnt
        r = r_new
    stats[0] = levels
    stats[1] = dist_evals
    stats[2] = nb_idx.shape[0]
    return k


def hierarchy_net(X: np.ndarray, gamma: float, l1: bool, max_pairs: int = 50_000_000):
    """``gamma``-net by the net hierarchy of [C] section 2: ``(net indices in insertion order, stats)``.

    Returns ``None`` as indices when a level's neighbour lists would exceed
    ``max_pairs`` entries (very high doubling dimension); ``stats`` =
    ``(levels, distance evaluations, neighbour pairs of the last level)``.
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    n = X.shape[0]
    stats = np.zeros(3, np.int64)
    if n == 0:
        return np.zeros(0, np.int64), stats
    R = float(_max_dist_from(X, 0, bool(l1)))
    if R < gamma:
        stats[1] = n
        return np.zeros(1, np.int64), stats
    net = np.zeros(n, np.int64)
    k = _hier(X, float(gamma), bool(l1), 2.0 * R, 1.0 + 1e-9, int(max_pairs), net, stats)
    if k < 0:
        return None, stats
    return net[:k].copy(), stats


# ------------------------------------------------------------------ distances, 1-NN
@numba.njit(**JIT)
def _pairwise(X, l1, D):
    m = X.shape[0]
    for i in range(m):
        for j in range(i + 1, m):
            D[i, j] = _dist(X, i, X, j, l1)
            D[j, i] = D[i, j]


def pairwise_metric(X: np.ndarray, l1: bool) -> np.ndarray:
    X = np.ascontiguousarray(X, dtype=np.float64)
    D = np.zeros((X.shape[0], X.shape[0]))
    if X.shape[0] > 1:
        _pairwise(X, bool(l1), D)
    return D


@numba.njit(**JIT)
def _nn(A, B, l1, out, dist):
    for q in range(B.shape[0]):
        best = np.inf
        bi = -1
        for j in range(A.shape[0]):
            d = _dist(B, q, A, j, l1)
            if d < best:
                best = d
                bi = j
        out[q] = bi
        dist[q] = best


def nn_metric(A: np.ndarray, B: np.ndarray, l1: bool):
    """Nearest row of ``A`` (lowest index on ties) to each row of ``B``: ``(index, distance)``."""
    A = np.ascontiguousarray(A, dtype=np.float64)
    B = np.ascontiguousarray(B, dtype=np.float64)
    out = np.full(B.shape[0], -1, np.int64)
    dist = np.full(B.shape[0], np.inf)
    if A.shape[0] and B.shape[0]:
        _nn(A, B, bool(l1), out, dist)
    return out, dist


# ------------------------------------------------------------------ doubling dimension
@numba.njit(**JIT)
def _ball_counts(X, centers, radii, l1, out):
    n = X.shape[0]
    dc = np.empty(n)
    members = np.empty(n, np.int64)
    net = np.empty(n, np.int64)
    for a in range(centers.shape[0]):
        c = centers[a]
        for j in range(n):
            dc[j] = _dist(X, c, X, j, l1)
        for b in range(radii.shape[0]):
            r = radii[b]
            m = 0
            for j in range(n):
                if dc[j] <= r:
                    members[m] = j
                    m += 1
            k = 0
            half = r / 2.0
            for t in range(m):
                p = members[t]
                add = True
                for u in range(k):
                    if _dist(X, p, X, net[u], l1) < half:
                        add = False
                        break
                if add:
                    net[k] = p
                    k += 1
            out[a, b] = k


def ball_cover_counts(X: np.ndarray, centers: np.ndarray, radii: np.ndarray, l1: bool) -> np.ndarray:
    """``(len(centers), len(radii))``: size of the greedy ``r/2``-net of the closed ball ``B(c, r)`` in ``X``."""
    X = np.ascontiguousarray(X, dtype=np.float64)
    out = np.zeros((len(centers), len(radii)), np.int64)
    if X.shape[0] and len(centers) and len(radii):
        _ball_counts(X, np.ascontiguousarray(centers, np.int64), np.ascontiguousarray(radii, np.float64),
                     bool(l1), out)
    return out


@numba.njit(**JIT)
def _cross(A, B, l1, D):
    for i in range(A.shape[0]):
        for j in range(B.shape[0]):
            D[i, j] = _dist(A, i, B, j, l1)


def cross_metric(A: np.ndarray, B: np.ndarray, l1: bool) -> np.ndarray:
    """``(len(A), len(B))`` distances."""
    A = np.ascontiguousarray(A, dtype=np.float64)
    B = np.ascontiguousarray(B, dtype=np.float64)
    D = np.zeros((A.shape[0], B.shape[0]))
    if A.shape[0] and B.shape[0]:
        _cross(A, B, bool(l1), D)
    return D


@numba.njit(**JIT)
def _diam(X, l1):
    best = 0.0
    for i in range(X.shape[0]):
        for j in range(i + 1, X.shape[0]):
            d = _dist(X, i, X, j, l1)
            if d > best:
                best = d
    return best


def diameter_metric(X: np.ndarray, l1: bool) -> float:
    """Largest distance between two rows (O(n^2) time, O(1) memory)."""
    X = np.ascontiguousarray(X, dtype=np.float64)
    return float(_diam(X, bool(l1))) if X.shape[0] > 1 else 0.0
