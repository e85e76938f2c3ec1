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

__all__ = ["packed_to_csr"]


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
def _fill(packed, weights, m, indptr, indices, data):
    cursor = indptr[:-1].copy()
    for g in range(packed.shape[0]):
        wg = weights[g]
        for w in range(packed.shape[1]):
            x = packed[g, w]
            base = w * 64
            while x:
                low = x & (~x + np.uint64(1))
                i = base + np.int64(_popcount64(low - np.uint64(1)))
                if i < m:
                    c = cursor[i]
                    indices[c] = g
                    data[c] = wg
                    cursor[i] = c + 1
                x ^= low


def packed_to_csr(packed: np.ndarray, weights: np.ndarray, m: int, dtype=np.float64):
    """``(indptr, indices, data)`` of the ``(m, n_columns)`` CSR matrix whose column ``g``
    is ``weights[g]`` times the 0/1 packed row ``packed[g]`` (column indices sorted in each row).

    Bits at positions ``>= m`` are ignored.
    """
    packed = np.ascontiguousarray(packed, dtype=np.uint64)
    weights = np.ascontiguousarray(weights, dtype=dtype)
    m = int(m)
    counts = np.zeros(m, dtype=np.int64)
    if packed.size and m:
        _count(packed, m, counts)
    indptr = np.zeros(m + 1, dtype=np.int32)
    np.cumsum(counts, out=indptr[1:])
    nnz = int(indptr[-1])
    indices = np.empty(nnz, dtype=np.int32)
    data = np.empty(nnz, dtype=dtype)
    if nnz:
        _fill(packed, weights, m, indptr, indices, data)
    return indptr, indices, data
