"""First occurrences among repeated rows (features with equal values), in one pass over a hash table.

A row is kept when no earlier row of the array equals it (every word compared, so a shared
hash never merges different rows).  The ``guided`` engine drops the repeats of a pool with it
before ranking; it gives the mask that
:meth:`metafx.core.values.FeatureValues.duplicate_groups`'s ``first`` indices make, without
sorting the rows' hashes.
"""

from __future__ import annotations

import numba
import numpy as np

from . import JIT

__all__ = ["first_of_repeats"]


@numba.njit(**JIT)
def _mix(z):
    """splitmix64's finalizer."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@numba.njit(**JIT)
def _first(rows, keep):
    n, W = rows.shape
    size = 1
    while size < 2 * n:
        size *= 2
    mask = np.uint64(size - 1)
    table = np.full(size, -1, np.int64)
    hashes = np.empty(n, np.uint64)
    for i in range(n):
        h = np.uint64(W)
        for w in range(W):
            h = (h ^ rows[i, w]) * np.uint64(0x9E3779B97F4A7C15)
            h = h ^ (h >> np.uint64(29))
        h = _mix(h)
        hashes[i] = h
        slot = h & mask
        while True:
            j = table[slot]
            if j < 0:
                table[slot] = i
                keep[i] = True
                break
            if hashes[j] == h:
                same = True
                for w in range(W):
                    if rows[i, w] != rows[j, w]:
                        same = False
                        break
                if same:
                    keep[i] = False
                    break
            slot = (slot + np.uint64(1)) & mask


def first_of_repeats(rows: np.ndarray) -> np.ndarray:
    """Bool mask over the rows of a 2-D integer array (e.g. bit-packed features): True where no earlier row
    is equal."""
    rows = np.ascontiguousarray(rows)
    if rows.ndim != 2 or rows.dtype.kind not in "biu":
        raise ValueError(f"first_of_repeats needs a 2-D integer array, got {rows.dtype} of shape {rows.shape}")
    keep = np.zeros(rows.shape[0], dtype=np.bool_)
    if rows.shape[0] == 0:
        return keep
    if rows.shape[1] == 0:  # rows without values are all equal
        keep[0] = True
        return keep
    _first(rows.view(np.uint64) if rows.dtype.itemsize == 8 else rows.astype(np.uint64), keep)
    return keep
