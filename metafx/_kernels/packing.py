"""Bit packing along the sample axis.

Sample ``i`` of a binary column lives at bit ``i % 64`` of word ``i // 64``;
the unused high bits of the last word are always zero.
"""

from __future__ import annotations

import numba
import numpy as np

from . import JIT

__all__ = ["n_words", "pack_columns", "popcount_rows", "tail_mask", "unpack_columns"]


def n_words(m: int) -> int:
    return (int(m) + 63) // 64


def tail_mask(m: int) -> np.uint64:
    """Word with ones at the valid bits of the last word of an ``m``-sample column."""
    r = int(m) % 64
    return np.uint64(0xFFFFFFFFFFFFFFFF) if r == 0 else np.uint64((1 << r) - 1)


@numba.njit(**JIT)
def _pack(X, out):
    m, p = X.shape
    for i in range(m):
        w = i >> 6
        b = np.uint64(1) << np.uint64(i & 63)
        for j in range(p):
            if X[i, j] != 0:
                out[j, w] |= b


def pack_columns(X: np.ndarray) -> np.ndarray:
    """Pack the columns of a 0/1 ``(m, p)`` array into ``(p, ceil(m/64))`` uint64 words."""
    X = np.ascontiguousarray(X)
    if X.dtype == bool:
        X = X.view(np.uint8)
    m, p = X.shape
    out = np.zeros((p, n_words(m)), dtype=np.uint64)
    if m and p:
        _pack(X, out)
    return out


@numba.njit(**JIT)
def _unpack(packed, m, out):
    nf = packed.shape[0]
    for i in range(m):
        w = i >> 6
        s = np.uint64(i & 63)
        for f in range(nf):
            out[i, f] = np.uint8((packed[f, w] >> s) & np.uint64(1))


def unpack_columns(packed: np.ndarray, m: int) -> np.ndarray:
    """Inverse of :func:`pack_columns`: a ``(m, n_features)`` uint8 matrix."""
    packed = np.ascontiguousarray(packed, dtype=np.uint64)
    out = np.zeros((int(m), packed.shape[0]), dtype=np.uint8)
    if m and packed.shape[0]:
        _unpack(packed, int(m), out)
    return out


@numba.njit(**JIT)
def _popcount64(x):
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return (x * np.uint64(0x0101010101010101)) >> np.uint64(56)


@numba.njit(**JIT)
def _popcount_rows(packed, out):
    for f in range(packed.shape[0]):
        s = np.uint64(0)
        for w in range(packed.shape[1]):
            s += _popcount64(packed[f, w])
        out[f] = s


def popcount_rows(packed: np.ndarray) -> np.ndarray:
    """Number of set bits in each row of a uint64 array."""
    packed = np.ascontiguousarray(packed, dtype=np.uint64)
    out = np.zeros(packed.shape[0], dtype=np.int64)
    if packed.size:
        _popcount_rows(packed, out)
    return out
