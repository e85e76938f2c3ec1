"""Conditional infomax selection of binary features (CMIM, Fleuret 2004), per cost.

The next feature kept maximizes ``min(I(Y; X), min over kept s of I(Y; X | X_s)) / cost`` among those that
fit what is left of the budget (ties: the earlier in ``first``); it stops when no score is above 1e-9 nats
times m.  The minimum is updated lazily (a feature's partial score only falls): a max-heap of upper bounds,
a feature brought up to date only when it is on top.  Samples are re-packed class by class, a feature when
first needed, so that a pair's class-wise joint counts are one pass over the words.
"""

from __future__ import annotations

import numba
import numpy as np

from . import JIT
from .packing import _popcount64
from .scoring import class_masks, packed_class_counts

__all__ = ["cmim_select"]


@numba.njit(**JIT)
def _repack(packed, j, sample_order, bitpos, out):
    for r in range(sample_order.shape[0]):
        i = sample_order[r]
        if (packed[j, i >> 6] >> np.uint64(i & 63)) & np.uint64(1):
            p = bitpos[r]
            out[j, p >> 6] |= np.uint64(1) << np.uint64(p & 63)


@numba.njit(**JIT)
def _cmi(P, a, b, seg_lo, seg_hi, ones, Nc, T, hs_b):
    # m I(Y; X_a | X_b) = m H(Y | X_b) - m H(Y | X_a, X_b),  m H(Y | Z) = sum_z T(n_z) - sum_{z,c} T(n_zc)
    n11 = 0
    n10 = 0
    n01 = 0
    inner = 0.0
    m = 0
    for c in range(Nc.shape[0]):
        x11 = 0
        for w in range(seg_lo[c], seg_hi[c]):
            x11 += _popcount64(P[a, w] & P[b, w])
        x10 = ones[a, c] - x11
        x01 = ones[b, c] - x11
        inner += T[x11] + T[x10] + T[x01] + T[Nc[c] - x10 - x01 - x11]
        n11 += x11
        n10 += x10
        n01 += x01
        m += Nc[c]
    return hs_b - (T[n11] + T[n10] + T[n01] + T[m - n11 - n10 - n01] - inner)


@numba.njit(**JIT)
def _before(key, a, b):
    # heap order: higher key first, then the earlier candidate
    return key[a] > key[b] or (key[a] == key[b] and a < b)


@numba.njit(**JIT)
def _push(heap, size, key, j):
    k = size
    heap[k] = j
    while k > 0:
        parent = (k - 1) >> 1
        if _before(key, heap[k], heap[parent]):
            heap[k], heap[parent] = heap[parent], heap[k]
            k = parent
        else:
            break
    return size + 1


@numba.njit(**JIT)
def _pop(heap, size, key):
    top = heap[0]
    size -= 1
    heap[0] = heap[size]
    k = 0
    while True:
        left = 2 * k + 1
        if left >= size:
            break
        best = left
        if left + 1 < size and _before(key, heap[left + 1], heap[left]):
            best = left + 1
        if _before(key, heap[best], heap[k]):
            heap[k], heap[best] = heap[best], heap[k]
            k = best
        else:
            break
    return top, size


@numba.njit(**JIT)
def _select(packed, sample_order, bitpos, n_words, seg_lo, seg_hi, ones, Nc, T, s0, hs, costs, budget, out):
    n = packed.shape[0]
    P = np.zeros((n, n_words), dtype=np.uint64)
    packed_yet = np.zeros(n, dtype=np.bool_)
    key = np.empty(n, dtype=np.float64)  # candidate j (its rank in the pool order): upper bound of score / cost
    ps = s0.copy()
    last = np.zeros(n, dtype=np.int64)
    heap = np.empty(n, dtype=np.int64)
    size = 0
    for j in range(n):
        key[j] = s0[j] / costs[j]
        if s0[j] > 1e-9:
            size = _push(heap, size, key, j)
    nsel = 0
    spent = 0.0
    while size > 0:
        j, size = _pop(heap, size, key)
        if spent + costs[j] > budget:
            continue  # never fits again
        if not packed_yet[j]:
            _repack(packed, j, sample_order, bitpos, P)
            packed_yet[j] = True
        while last[j] < nsel:
            s = out[last[j]]
            v = _cmi(P, j, s, seg_lo, seg_hi, ones, Nc, T, hs[s])
            if v < ps[j]:
                ps[j] = v
            last[j] += 1
            key[j] = ps[j] / costs[j]
            if size > 0 and not _before(key, j, heap[0]):
                break
        if ps[j] <= 1e-9:
            continue
        if last[j] == nsel and (size == 0 or _before(key, j, heap[0])):
            out[nsel] = j
            nsel += 1
            spent += costs[j]
        else:
            size = _push(heap, size, key, j)
    return nsel


def cmim_select(packed: np.ndarray, m: int, codes: np.ndarray, first: np.ndarray, costs: np.ndarray,
                budget: float) -> np.ndarray:
    """Indices kept by CMIM per cost among ``first`` (ties: the earlier in ``first``), in the order kept.

    ``packed``: bit-packed binary features (``(n_features, ceil(m/64))``), ``codes``: class codes
    ``0..K-1`` of the ``m`` samples, ``costs``: one per feature; the kept features' costs sum to at most
    ``budget``.  Constant features and features with no information left are never kept.
    """
    first = np.asarray(first, dtype=np.int64)
    codes = np.asarray(codes, dtype=np.int64)
    if len(first) == 0 or m == 0:
        return first[:0]
    K = int(codes.max()) + 1
    Nc = np.bincount(codes, minlength=K).astype(np.int64)
    sample_order = np.argsort(codes, kind="stable").astype(np.int64)
    seg_words = (Nc + 63) // 64
    seg_lo = np.concatenate([[0], np.cumsum(seg_words)[:-1]]).astype(np.int64)
    seg_hi = (seg_lo + seg_words).astype(np.int64)
    starts = np.concatenate([[0], np.cumsum(Nc)[:-1]])
    cls = codes[sample_order]
    bitpos = (seg_lo[cls] * 64 + (np.arange(m) - starts[cls])).astype(np.int64)
    sub = np.ascontiguousarray(packed[first], dtype=np.uint64)
    ones = packed_class_counts(sub, class_masks(codes, K)).astype(np.int64)
    T = np.zeros(m + 1)
    T[1:] = np.arange(1, m + 1) * np.log(np.arange(1, m + 1))
    n1 = ones.sum(1)
    hs = T[n1] + T[m - n1] - T[ones].sum(1) - T[Nc[None, :] - ones].sum(1)  # m H(Y | X)
    s0 = (T[m] - T[Nc].sum()) - hs
    s0[(n1 == 0) | (n1 == m)] = 0.0
    c = np.ascontiguousarray(np.asarray(costs, dtype=np.float64)[first])
    out = np.empty(len(first), dtype=np.int64)
    k = _select(sub, sample_order, bitpos, int(seg_hi[-1]), seg_lo, seg_hi, ones, Nc, T, s0, hs, c,
                float(budget) * (1 + 1e-12), out)
    return first[out[:k]]
