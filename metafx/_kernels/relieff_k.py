"""Relief-F with ``k`` nearest hits and ``k`` nearest misses of every other class.

Conventions of :mod:`metafx._kernels.margin`: ``X`` C-contiguous float64,
``codes`` int64 ``0..K-1``, plain squared Euclidean distance, leave-one-out,
among equally distant candidates the lowest index wins.
"""

from __future__ import annotations

import numba
import numpy as np

from . import JIT

__all__ = ["relieff_k_weights"]


@numba.njit(**JIT)
def _relieff_k(X, codes, n_classes, queries, k, w):
    m, n = X.shape
    d = np.empty(m)
    chosen = np.empty((n_classes, k), np.int64)
    count = np.empty(n_classes, np.int64)
    hit_term = np.empty(n)
    miss_term = np.empty(n)
    cls_term = np.empty(n)
    for q in range(queries.shape[0]):
        i = queries[q]
        for j in range(m):
            s = 0.0
            for f in range(n):
                a = X[i, f] - X[j, f]
                s += a * a
            d[j] = s
        d[i] = np.inf
        order = np.argsort(d, kind="mergesort")  # stable: the lower index first among equal distances
        count[:] = 0
        for t in range(m - 1):
            j = order[t]
            c = codes[j]
            if count[c] < k:
                chosen[c, count[c]] = j
                count[c] += 1
        ci = codes[i]
        n_miss_classes = 0
        for c in range(n_classes):
            if c != ci and count[c] > 0:
                n_miss_classes += 1
        if count[ci] == 0 or n_miss_classes == 0:
            continue
        hit_term[:] = 0.0
        for t in range(count[ci]):
            j = chosen[ci, t]
            for f in range(n):
                a = X[i, f] - X[j, f]
                hit_term[f] += a * a
        miss_term[:] = 0.0
        for c in range(n_classes):
            if c == ci or count[c] == 0:
                continue
            cls_term[:] = 0.0
            for t in range(count[c]):
                j = chosen[c, t]
                for f in range(n):
                    a = X[i, f] - X[j, f]
                    cls_term[f] += a * a
            for f in range(n):
                miss_term[f] += cls_term[f] / count[c]
        for f in range(n):
            w[f] += miss_term[f] / n_miss_classes - hit_term[f] / count[ci]


def relieff_k_weights(X, codes, n_classes, queries, k):
    """``w_f = sum_q [ mean_{c != y_q} mean_{j in M_c(q)} (x_qf - x_jf)^2 - mean_{j in H(q)} (x_qf - x_jf)^2 ]``.

    ``H(q)``: the ``k`` nearest other instances of ``q``'s class; ``M_c(q)``: the ``k``
    nearest of class ``c`` (fewer when the class has fewer members); the miss term is
    the plain average over the other classes that have members.  A query without a
    hit or without a miss adds nothing.
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    w = np.zeros(X.shape[1])
    queries = np.ascontiguousarray(queries, np.int64)
    if queries.shape[0] and X.shape[0] > 1:
        _relieff_k(X, np.ascontiguousarray(codes, np.int64), int(n_classes), queries, int(k), w)
    return w
