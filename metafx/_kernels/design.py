"""Design matrices straight from bit-packed columns.

A linear model on duplicate-merged binary features sees one column per group of
equal features, ``sqrt(count)`` times the group's values (see
:func:`metafx.learn.svm.merge_matrix`).  Features are packed by column (one
row of words per feature, bit ``i`` = sample ``i``); a CSR matrix and a
product with it go by sample.  :func:`transpose_bits` turns the columns'
words into the samples' words (bit ``g`` of sample ``i``'s row = column
``g``), 64 x 64 bits at a time; then :func:`rows_to_csr` writes any subset of
the rows in CSR form and :func:`rows_scores` multiplies them by a weight
matrix, each reading one sample's words in order.  No dense
``(n_samples, n_features)`` matrix and no sparse product is made.
"""

from __future__ import annotations

import numba
import numpy as np

from . import JIT
from .packing import _popcount64

__all__ = ["dense_scores", "rows_scores", "rows_to_csr", "transpose_bits"]

_MASKS = np.array([0x00000000FFFFFFFF, 0x0000FFFF0000FFFF, 0x00FF00FF00FF00FF, 0x0F0F0F0F0F0F0F0F,
                   0x3333333333333333, 0x5555555555555555], dtype=np.uint64)


@numba.njit(inline="always")
def _transpose64(a, masks):
    """In place: bit ``j`` of ``a[k]`` becomes bit ``k`` of ``a[j]`` (64 words; bit 0 is the lowest)."""
    j = 32
    for s in range(6):
        m = masks[s]
        sh = np.uint64(j)
        k = 0
        while k < 64:
            if k & j == 0:
                t = ((a[k] >> sh) ^ a[k + j]) & m
                a[k] ^= t << sh
                a[k + j] ^= t
            k += 1
        j >>= 1


@numba.njit(**JIT)
def _transpose(packed, m, masks, out):
    n_cols, n_words = packed.shape
    buf = np.empty(64, dtype=np.uint64)
    for cb in range(out.shape[1]):
        for w in range(n_words):
            for t in range(64):
                g = cb * 64 + t
                buf[t] = packed[g, w] if g < n_cols else np.uint64(0)
            _transpose64(buf, masks)
            for s in range(64):
                i = w * 64 + s
                if i < m:
                    out[i, cb] = buf[s]


@numba.njit(**JIT)
def _row_lengths(T, rows, out):
    for r in range(rows.shape[0]):
        n = 0
        for cb in range(T.shape[1]):
            n += _popcount64(T[rows[r], cb])
        out[r] = n


@numba.njit(**JIT)
def _fill(T, rows, weights, indptr, indices, data):
    for r in range(rows.shape[0]):
        i = rows[r]
        c = indptr[r]
        for cb in range(T.shape[1]):
            x = T[i, cb]
            base = cb * 64
            while x:
                low = x & (~x + np.uint64(1))
                g = base + np.int64(_popcount64(low - np.uint64(1)))
                indices[c] = g
                data[c] = weights[g]
                c += 1
                x ^= low


@numba.njit(**JIT)
def _scores(T, rows, W, out):
    k = W.shape[1]
    acc = np.zeros(k, dtype=np.float64)
    for r in range(rows.shape[0]):
        i = rows[r]
        acc[:] = 0.0
        for cb in range(T.shape[1]):
            x = T[i, cb]
            base = cb * 64
            while x:
                low = x & (~x + np.uint64(1))
                g = base + np.int64(_popcount64(low - np.uint64(1)))
                for c in range(k):
                    acc[c] += W[g, c]
                x ^= low
        for c in range(k):
            out[r, c] = acc[c]


def transpose_bits(packed: np.ndarray, m: int) -> np.ndarray:
    """The samples' words of column-packed bits: ``(m, ceil(n_columns / 64))`` uint64 whose row
    ``i`` has bit ``g`` set when column ``g`` (row ``g`` of ``packed``) has bit ``i`` set.
    Bits of ``packed`` at positions ``>= m`` are ignored."""
    packed = np.ascontiguousarray(packed, dtype=np.uint64)
    m = int(m)
    out = np.zeros((m, -(-packed.shape[0] // 64)), dtype=np.uint64)
    if out.size and packed.shape[1]:
        _transpose(packed, m, _MASKS, out)
    return out


def _rows(m: int, rows) -> np.ndarray:
    if rows is None:
        return np.arange(m, dtype=np.int64)
    out = np.asarray(rows, dtype=np.int64)
    if out.ndim != 1 or (out.size and (out.min() < 0 or out.max() >= m or np.any(np.diff(out) <= 0))):
        raise ValueError(f"rows must be increasing sample indices in [0, {m}), got {rows!r}")
    return out


def rows_to_csr(T: np.ndarray, weights: np.ndarray, rows=None, dtype=np.float64):
    """``(indptr, indices, data)`` of the CSR matrix of the samples ``rows`` (increasing; all by
    default) whose column ``g`` is ``weights[g]`` times bit ``g`` of the sample's words ``T``
    (:func:`transpose_bits`); column indices sorted in each row."""
    T = np.ascontiguousarray(T, dtype=np.uint64)
    weights = np.ascontiguousarray(weights, dtype=dtype)
    rows = _rows(T.shape[0], rows)
    lengths = np.zeros(rows.shape[0], dtype=np.int64)
    if rows.size and T.shape[1]:
        _row_lengths(T, rows, lengths)
    indptr = np.zeros(rows.shape[0] + 1, dtype=np.int32)
    np.cumsum(lengths, out=indptr[1:])
    nnz = int(indptr[-1])
    indices = np.empty(nnz, dtype=np.int32)
    data = np.empty(nnz, dtype=dtype)
    if nnz:
        _fill(T, rows, weights, indptr, indices, data)
    return indptr, indices, data


def rows_scores(T: np.ndarray, weights: np.ndarray, coef: np.ndarray, rows=None) -> np.ndarray:
    """``D[rows] @ coef.T`` for the design ``D`` of :func:`rows_to_csr`: ``(len(rows), len(coef))``
    float64.  Each entry adds the products ``weights[g] * coef[c, g]`` in increasing ``g``, the
    order and operands of SciPy's CSR product, so the values are those of ``csr @ coef.T``."""
    T = np.ascontiguousarray(T, dtype=np.uint64)
    weights = np.asarray(weights, dtype=np.float64)
    # the products SciPy forms (data times the dense operand), each rounded once, summed in column order
    W = np.ascontiguousarray(weights[:, None] * np.asarray(coef, dtype=np.float64).T)
    rows = _rows(T.shape[0], rows)
    out = np.zeros((rows.shape[0], W.shape[1]), dtype=np.float64)
    if out.size and T.shape[1]:
        _scores(T, rows, W, out)
    return out


@numba.njit(**JIT)
def _dense_scores(X, W, out):
    n, p = X.shape
    k = W.shape[0]
    for i in range(n):
        for c in range(k):
            s = 0.0
            for j in range(p):
                t = W[c, j] * X[i, j]
                s = s + t
            out[i, c] = s


def dense_scores(X: np.ndarray, W: np.ndarray) -> np.ndarray:
    """``X @ W.T`` for real-valued features ``X`` (``(n, p)``) and weights ``W`` (``(k, p)``), each entry the sum
    of ``W[c, j] * X[i, j]`` in increasing ``j`` from 0.0, in float64: an order of additions fixed, so that an
    exported model (``metafx export``) computes the same bits (a BLAS product may add in any order)."""
    X = np.ascontiguousarray(X, dtype=np.float64)
    W = np.ascontiguousarray(W, dtype=np.float64)
    out = np.empty((X.shape[0], W.shape[0]), dtype=np.float64)
    if out.size:
        _dense_scores(X, W, out)
    return out
