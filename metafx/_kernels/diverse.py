"""Greedy choice of weakly correlated binary features (the ``guided`` engine's pruning).

Features are bit-packed rows (``(n_features, ceil(m/64))`` uint64 words, see
:mod:`.packing`).  Going through ``order`` (best first), a feature is kept when
it fits what is left of the budget and the absolute phi coefficient (Pearson's
correlation of two 0/1 columns) between it and every feature kept so far is at
most ``max_corr``; constant features are never kept.

A pair is refused when ``|m * n11 - na * nb| / sqrt(na (m - na) nb (m - nb)) > max_corr``
(``n11`` the samples where both are 1, ``na`` and ``nb`` their ones).  The kernel
compares the squares first, with a margin of ``1e-9`` (relative) on either side
that is far wider than their rounding, and computes the quotient only for the
pairs within the margin: the same features are kept as by the test itself, ties
included (``tests/test_guided_draw_kernels.py`` checks it against the rule spelt out).
The features kept last are checked first: a feature is most often too close to
one kept just before it, so a refused feature is refused sooner.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from . import JIT
from .packing import _popcount64, popcount_rows

__all__ = ["dense_diverse_prefix", "diverse_prefix"]

#: relative margin of the squared comparison (the exact test decides within it)
MARGIN = 1e-9


@numba.njit(**JIT)
def _diverse(packed, ones, order, costs, budget, max_corr, m, min_cost, out):
    nc = 0
    spent = 0.0
    W = packed.shape[1]
    fm = float(m)
    below = max_corr * max_corr * (1.0 - MARGIN)
    above = max_corr * max_corr * (1.0 + MARGIN)
    cap = min(order.shape[0], 1024)
    kept = np.empty((cap, W), dtype=np.uint64)  # the kept rows, contiguous
    kept_ones = np.empty(cap, dtype=np.float64)
    kept_var = np.empty(cap, dtype=np.float64)  # nb * (m - nb)
    for t in range(order.shape[0]):
        if budget - spent < min_cost:
            break
        i = order[t]
        if spent + costs[i] > budget:
            continue
        na = ones[i]
        if na == 0 or na == m:
            continue
        fa = float(na)
        va = fa * (fm - fa)
        ok = True
        for q in range(nc):  # the latest kept first
            s = nc - 1 - q
            n11 = np.uint64(0)
            for w in range(W):
                n11 += _popcount64(packed[i, w] & kept[s, w])
            nb = kept_ones[s]
            num = fm * float(n11) - fa * nb
            sq = num * num
            prod = va * kept_var[s]
            if sq < below * prod:
                continue
            if sq > above * prod or abs(num) / math.sqrt(fa * float(m - na) * nb * (fm - nb)) > max_corr:
                ok = False
                break
        if ok:
            if nc == kept.shape[0]:  # grow the buffers
                bigger = np.empty((2 * nc, W), dtype=np.uint64)
                bigger[:nc] = kept
                kept = bigger
                more = np.empty(2 * nc, dtype=np.float64)
                more[:nc] = kept_ones
                kept_ones = more
                more = np.empty(2 * nc, dtype=np.float64)
                more[:nc] = kept_var
                kept_var = more
            kept[nc] = packed[i]
            kept_ones[nc] = fa
            kept_var[nc] = va
            out[nc] = i
            nc += 1
            spent += costs[i]
    return nc


def diverse_prefix(packed: np.ndarray, m: int, order: np.ndarray, costs: np.ndarray, budget: float,
                   max_corr: float) -> np.ndarray:
    """Indices kept (in the order kept) from ``order``: fits the budget, |phi| <= ``max_corr`` to all kept."""
    packed = np.ascontiguousarray(packed, dtype=np.uint64)
    order = np.ascontiguousarray(order, dtype=np.int64)
    costs = np.ascontiguousarray(costs, dtype=np.float64)
    out = np.empty(order.shape[0], dtype=np.int64)
    if order.shape[0] == 0:
        return out
    ones = popcount_rows(packed)
    min_cost = float(costs[order].min())
    nc = _diverse(packed, ones, order, costs, float(budget) * (1 + 1e-12), float(max_corr), int(m), min_cost, out)
    return out[:nc]


@numba.njit(**JIT)
def _dense_diverse(Z, norm, order, costs, budget, max_corr, min_cost, out):
    nc = 0
    spent = 0.0
    m = Z.shape[1]
    for t in range(order.shape[0]):
        if budget - spent < min_cost:
            break
        i = order[t]
        if spent + costs[i] > budget or norm[i] == 0.0:
            continue
        ok = True
        for q in range(nc):  # the latest kept first
            k = out[nc - 1 - q]
            s = 0.0
            for r in range(m):
                s += Z[k, r] * Z[i, r]
            if abs(s) / (norm[k] * norm[i]) > max_corr:
                ok = False
                break
        if ok:
            out[nc] = i
            nc += 1
            spent += costs[i]
    return nc


def dense_diverse_prefix(X: np.ndarray, order: np.ndarray, costs: np.ndarray, budget: float,
                         max_corr: float) -> np.ndarray:
    """:func:`diverse_prefix` for real-valued columns ``X`` (samples x features): the absolute Pearson
    correlation of the centred columns, ``|z_a . z_b| / (|z_a| |z_b|)``, in place of phi; constant columns are
    never kept.  Compiled, with the packed kernel's early stop once no feature of ``order`` can fit."""
    X = np.asarray(X, dtype=np.float64)
    order = np.ascontiguousarray(order, dtype=np.int64)
    costs = np.ascontiguousarray(costs, dtype=np.float64)
    out = np.empty(order.shape[0], dtype=np.int64)
    if order.shape[0] == 0:
        return out
    Z = np.ascontiguousarray((X - X.mean(0)).T)  # features x samples: each feature's values contiguous
    norm = np.sqrt((Z * Z).sum(1))
    min_cost = float(costs[order].min())
    nc = _dense_diverse(Z, norm, order, costs, float(budget) * (1 + 1e-12), float(max_corr), min_cost, out)
    return out[:nc]
