"""Design matrices straight from bit-packed columns.

A linear model on duplicate-merged binary features sees one column per group of
equal features, ``sqrt(count)`` times the group's values (see
:func:`metafx.learn.svm.merge_matrix`).  :func:`packed_to_csr` writes that
matrix in CSR form (rows = samples) from the packed words of the groups' first
features, visiting only the set bits: no dense ``(n_samples, n_features)``
matrix and no sparse matrix product is made.
"""

from __future__ import annotations

import numba
import numpy as np

from . import JIT
from .packing import _popcount64

__all__ = ["packed_to_csr", "packed_scores", "packed_row_counts"]


@numba.njit(inline="always")
def _word_rows(x, base, pos, buf):
    """The output rows ``pos[base + i]`` of the set bits ``i`` of word ``x``, in increasing ``i``,
    written to ``buf``; returns how many."""
    n = 0
    while x:
        low = x & (~x + np.uint64(1))
        buf[n] = pos[base + np.int64(_popcount64(low - np.uint64(1)))]
        n += 1
        x ^= low
    return n


@numba.njit(**JIT)
def _count(packed, m, counts):
    for g in range(packed.shape[0]):
        for w in range(packed.shape[1]):
            x = packed[g, w]
            base = w * 64
            while x:
                low = x & (~x + np.uint64(1))
                i = base + np.int64(_popcount64(low - np.uint64(1)))
                if i < m:
                    counts[i] += 1
                x ^= low


@numba.njit(**JIT)
def _fill(packed, weights, mask, pos, indptr, indices, data):
    buf = np.empty(64, dtype=np.int64)
    cursor = indptr[:-1].copy()
    for g in range(packed.shape[0]):
        wg = weights[g]
        for w in range(packed.shape[1]):
            for t in range(_word_rows(packed[g, w] & mask[w], w * 64, pos, buf)):
                r = buf[t]
                c = cursor[r]
                indices[c] = g
                data[c] = wg
                cursor[r] = c + 1


@numba.njit(**JIT)
def _scores(packed, weights, coef_t, mask, pos, out):
    buf = np.empty(64, dtype=np.int64)
    k = coef_t.shape[1]
    for g in range(packed.shape[0]):
        wg = weights[g]
        for w in range(packed.shape[1]):
            for t in range(_word_rows(packed[g, w] & mask[w], w * 64, pos, buf)):
                r = buf[t]
                for c in range(k):
                    out[r, c] += wg * coef_t[g, c]


def _selection(m: int, n_words: int, rows) -> tuple[np.ndarray, np.ndarray]:
    """``(mask, pos)``: the wanted samples as packed bits (``n_words`` words; none past ``m``), and
    ``pos[i]``, the output row of sample ``i`` (``-1``: not wanted)."""
    size = 64 * max(n_words, -(-m // 64))
    pos = np.full(size, -1, dtype=np.int64)
    if rows is None:
        rows = np.arange(m, dtype=np.int64)
    else:
        rows = np.asarray(rows, dtype=np.int64)
        if rows.ndim != 1 or (rows.size and (rows.min() < 0 or rows.max() >= m or np.any(np.diff(rows) <= 0))):
            raise ValueError(f"rows must be increasing sample indices in [0, {m}), got {rows!r}")
    pos[rows] = np.arange(len(rows), dtype=np.int64)
    bits = np.zeros(size, dtype=np.uint8)
    bits[rows] = 1
    mask = np.packbits(bits, bitorder="little").view(np.uint64)[:n_words]
    return mask, pos


def packed_row_counts(packed: np.ndarray, m: int) -> np.ndarray:
    """The number of set bits of every sample (column of ``packed``) below ``m``: the row
    lengths of :func:`packed_to_csr`'s matrix, to be reused for several ``rows``."""
    packed = np.ascontiguousarray(packed, dtype=np.uint64)
    counts = np.zeros(int(m), dtype=np.int64)
    if packed.size and m:
        _count(packed, int(m), counts)
    return counts


def packed_to_csr(packed: np.ndarray, weights: np.ndarray, m: int, dtype=np.float64, rows=None,
                  row_counts=None):
    """``(indptr, indices, data)`` of the ``(m, n_columns)`` CSR matrix whose column ``g``
    is ``weights[g]`` times the 0/1 packed row ``packed[g]`` (column indices sorted in each row).

    ``rows`` (increasing sample indices): only those rows, in that order (the matrix's
    ``[rows]``, without forming the rest).  ``row_counts``: :func:`packed_row_counts` of
    ``packed``, if known.  Bits at positions ``>= m`` are ignored.
    """
    packed = np.ascontiguousarray(packed, dtype=np.uint64)
    weights = np.ascontiguousarray(weights, dtype=dtype)
    m = int(m)
    mask, pos = _selection(m, packed.shape[1], rows)
    if row_counts is None:
        row_counts = packed_row_counts(packed, m)
    counts = row_counts if rows is None else row_counts[np.asarray(rows, dtype=np.int64)]
    indptr = np.zeros(len(counts) + 1, dtype=np.int32)
    np.cumsum(counts, out=indptr[1:])
    nnz = int(indptr[-1])
    indices = np.empty(nnz, dtype=np.int32)
    data = np.empty(nnz, dtype=dtype)
    if nnz:
        _fill(packed, weights, mask, pos, indptr, indices, data)
    return indptr, indices, data


def packed_scores(packed: np.ndarray, weights: np.ndarray, coef: np.ndarray, m: int, rows=None) -> np.ndarray:
    """``D[rows] @ coef.T`` for the design ``D`` of :func:`packed_to_csr` (column ``g`` is
    ``weights[g]`` times ``packed[g]``), from the set bits: ``(len(rows), len(coef))`` float64.

    Each entry adds the products ``weights[g] * coef[c, g]`` in increasing ``g``, the order and
    operands of SciPy's CSR product, so the values are those of ``csr @ coef.T``.
    """
    packed = np.ascontiguousarray(packed, dtype=np.uint64)
    weights = np.ascontiguousarray(weights, dtype=np.float64)
    coef_t = np.ascontiguousarray(np.asarray(coef, dtype=np.float64).T)
    m = int(m)
    mask, pos = _selection(m, packed.shape[1], rows)
    out = np.zeros((m if rows is None else len(rows), coef_t.shape[1]), dtype=np.float64)
    if packed.size and out.size:
        _scores(packed, weights, coef_t, mask, pos, out)
    return out
