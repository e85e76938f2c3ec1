"""Counting kernels of the per-feature scorers (Infogain).

The joint counts of a binary feature and the class label are all Infogain
needs.  On bit-packed values they are popcounts: the number of samples of
class ``c`` where feature ``f`` is 1 is ``popcount(packed[f] & class_mask[c])``
summed over the words.
"""

from __future__ import annotations

import numba
import numpy as np

from . import JIT
from .packing import _popcount64, pack_columns

__all__ = ["class_masks", "dense_binary_class_counts", "mutual_info_from_counts", "packed_class_counts"]


def class_masks(codes: np.ndarray, n_classes: int) -> np.ndarray:
    """``(n_classes, ceil(m/64))`` packed indicator of each class (codes ``0..K-1``)."""
    codes = np.asarray(codes, dtype=np.intp)
    onehot = np.zeros((codes.shape[0], n_classes), dtype=np.uint8)
    onehot[np.arange(codes.shape[0]), codes] = 1
    return pack_columns(onehot)


@numba.njit(**JIT)
def _packed_class_counts(packed, masks, out):
    nf, nw = packed.shape
    nk = masks.shape[0]
    for f in range(nf):
        for k in range(nk):
            s = np.uint64(0)
            for w in range(nw):
                s += _popcount64(packed[f, w] & masks[k, w])
            out[f, k] = np.int64(s)


def packed_class_counts(packed: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """``(n_features, n_classes)`` number of ones of each feature within each class."""
    packed = np.ascontiguousarray(packed, dtype=np.uint64)
    masks = np.ascontiguousarray(masks, dtype=np.uint64)
    out = np.zeros((packed.shape[0], masks.shape[0]), dtype=np.int64)
    if packed.size and masks.size:
        _packed_class_counts(packed, masks, out)
    return out


@numba.njit(**JIT)
def _dense_binary_class_counts(X, codes, out):
    m, nf = X.shape
    for i in range(m):
        c = codes[i]
        for j in range(nf):
            if X[i, j] != 0:
                out[c, j] += 1


def dense_binary_class_counts(X: np.ndarray, codes: np.ndarray, n_classes: int) -> np.ndarray:
    """``(n_features, n_classes)`` number of non-zero entries of each column within each class."""
    X = np.ascontiguousarray(X)
    if X.dtype == bool:
        X = X.view(np.uint8)
    codes = np.ascontiguousarray(codes, dtype=np.intp)
    out = np.zeros((n_classes, X.shape[1]), dtype=np.int64)
    if X.size:
        _dense_binary_class_counts(X, codes, out)
    return np.ascontiguousarray(out.T)


@numba.njit(**JIT)
def _mi_binary(ones, class_sizes, pseudo, n_logs, out):
    # ones: (nf, K) counts of value 1 per class; value 0 counts are class_sizes - ones.
    # n_logs > 0: every count is an integer below it, and log(j + pseudo) is looked up
    nf, nk = ones.shape
    nl = n_logs
    logs = np.empty(nl)
    for j in range(nl):
        logs[j] = np.log(j + pseudo)
    log_col = np.empty(nk)
    total = 0.0
    for k in range(nk):
        total += class_sizes[k] + 2.0 * pseudo
        log_col[k] = np.log(class_sizes[k] + 2.0 * pseudo)
    log_total = np.log(total)
    for f in range(nf):
        row1 = 0.0
        for k in range(nk):
            row1 += ones[f, k] + pseudo
        row0 = total - row1
        log_row1 = np.log(row1)
        log_row0 = np.log(row0)
        mi = 0.0
        for k in range(nk):  # the logarithms are those of the same numbers, taken once
            n1 = ones[f, k] + pseudo
            n0 = class_sizes[k] - ones[f, k] + pseudo
            if n1 > 0.0:
                l1 = logs[np.int64(ones[f, k])] if nl else np.log(n1)
                mi += n1 / total * (l1 - log_row1 - log_col[k] + log_total)
            if n0 > 0.0:
                l0 = logs[np.int64(class_sizes[k] - ones[f, k])] if nl else np.log(n0)
                mi += n0 / total * (l0 - log_row0 - log_col[k] + log_total)
        out[f] = mi if mi > 0.0 else 0.0


def mutual_info_from_counts(ones: np.ndarray, class_sizes: np.ndarray, pseudo_count: float = 0.0) -> np.ndarray:
    """Mutual information (nats) of binary features and the label from their joint counts.

    ``ones[f, k]`` is the number of samples of class ``k`` with feature ``f``
    equal to 1; ``pseudo_count`` is added to each of the ``2 * K`` cells.
    """
    ones = np.ascontiguousarray(ones, dtype=np.float64)
    sizes = np.ascontiguousarray(class_sizes, dtype=np.float64)
    out = np.zeros(ones.shape[0], dtype=np.float64)
    if ones.size:
        pseudo = float(pseudo_count)
        top = float(sizes.max()) if sizes.size else 0.0
        counted = (top < 2**31 and np.all(sizes == np.floor(sizes)) and np.all(ones == np.floor(ones))
                   and float(ones.min()) >= 0 and np.all(ones <= sizes))
        # integer counts: the logarithms of the few numbers j + pseudo they can make are taken once each
        _mi_binary(ones, sizes, pseudo, int(top) + 1 if counted else 0, out)
    return out
