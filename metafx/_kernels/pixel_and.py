"""Packed evaluation of shift-invariant pixel-AND features.

Images are bit-packed per pixel (see :mod:`.packing`) into *planes*:
``planes[0, q]`` holds pixel ``q`` of a zero-padded image, ``planes[1, q]`` its
negation (with the padding bits of the last word cleared), so a negated input
is a plain lookup and a pixel shifted past the bottom or right edge reads as 0
(its negation as 1).  A feature with ``k`` inputs and shift length ``a`` costs
``k * a * a * ceil(m / 64)`` word operations.
"""

from __future__ import annotations

import numba
import numpy as np

from . import JIT
from .packing import n_words, pack_columns, tail_mask
from .threads import use_threads

__all__ = ["PAD", "eval_pixel_and", "make_planes", "word_ops"]

#: rows and columns of zeros added below and right of the image (max shift - 1)
PAD = 7


def make_planes(images: np.ndarray) -> np.ndarray:
    """``(2, (H + PAD) * (W + PAD), ceil(m / 64))`` planes of binary images ``(m, H, W)``."""
    m, h, w = images.shape
    padded = np.zeros((m, h + PAD, w + PAD), dtype=np.uint8)
    padded[:, :h, :w] = images
    pos = pack_columns(padded.reshape(m, -1))
    neg = ~pos & tail_mask(m)
    if n_words(m) > 1:
        neg[:, :-1] = ~pos[:, :-1]
    return np.ascontiguousarray(np.stack([pos, neg]))


@numba.njit(**JIT)
def _eval_one(planes, idx, neg, k, shift, wp, o, tmp, f):
    nw = planes.shape[2]
    kk = k[f]
    a = shift[f]
    for w in range(nw):
        o[w] = 0
    for dy in range(a):
        for dx in range(a):
            off = dy * wp + dx
            p0 = planes[neg[f, 0], idx[f, 0] + off]
            for w in range(nw):
                tmp[w] = p0[w]
            for j in range(1, kk):
                pj = planes[neg[f, j], idx[f, j] + off]
                for w in range(nw):
                    tmp[w] &= pj[w]
            for w in range(nw):
                o[w] |= tmp[w]


@numba.njit(**JIT)
def _eval_serial(planes, idx, neg, k, shift, wp, out):
    tmp = np.empty(planes.shape[2], dtype=np.uint64)
    for f in range(idx.shape[0]):
        _eval_one(planes, idx, neg, k, shift, wp, out[f], tmp, f)


@numba.njit(parallel=True, **JIT)
def _eval_parallel(planes, idx, neg, k, shift, wp, out):
    for f in numba.prange(idx.shape[0]):
        tmp = np.empty(planes.shape[2], dtype=np.uint64)
        _eval_one(planes, idx, neg, k, shift, wp, out[f], tmp, f)


def eval_pixel_and(
    planes: np.ndarray,
    width: int,
    rows: np.ndarray,
    cols: np.ndarray,
    neg: np.ndarray,
    k: np.ndarray,
    shift: np.ndarray,
    parallel: bool | None = None,
) -> np.ndarray:
    """Packed values ``(n_features, n_words)`` of pixel-AND features.

    ``rows``, ``cols``, ``neg`` are ``(n_features, 8)``; only the first ``k[f]``
    entries of row ``f`` are inputs.  ``width`` is the unpadded image width.
    ``parallel``: ``None`` (default) runs numba's threads only when the batch
    holds at least :data:`~metafx._kernels.threads.PARALLEL_MIN_WORD_OPS` word
    operations (see :mod:`.threads`); ``True``/``False`` force the choice.
    """
    nf = rows.shape[0]
    out = np.zeros((nf, planes.shape[2]), dtype=np.uint64)
    if nf == 0:
        return out
    wp = int(width) + PAD
    idx = (rows.astype(np.int64) * wp + cols.astype(np.int64)).astype(np.int64)
    k = k.astype(np.int64)
    shift = shift.astype(np.int64)
    work = word_ops(k, shift, planes.shape[2])
    kernel = _eval_parallel if use_threads(work, parallel) else _eval_serial
    kernel(planes, idx, neg.astype(np.int64), k, shift, wp, out)
    return out


def word_ops(k: np.ndarray, shift: np.ndarray, words: int) -> int:
    """Word operations of a batch: ``sum(k * a * a) * words``."""
    return int(np.sum(np.asarray(k, dtype=np.int64) * np.asarray(shift, dtype=np.int64) ** 2)) * int(words)
