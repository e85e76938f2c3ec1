"""Slow, obviously correct NumPy references of the kernels (one per kernel).

Each function is written for clarity, not speed; the tests compare the fast
kernels with these on random inputs.
"""

from __future__ import annotations

import numpy as np


# ------------------------------------------------------------------ packing
def pack_columns(X: np.ndarray) -> np.ndarray:
    m, p = X.shape
    nw = (m + 63) // 64
    out = np.zeros((p, nw), dtype=np.uint64)
    for j in range(p):
        for i in range(m):
            if X[i, j]:
                out[j, i // 64] |= np.uint64(1) << np.uint64(i % 64)
    return out


# ------------------------------------------------------------------ pixel-and
def pixel_and_feature(images: np.ndarray, inputs, shift: int) -> np.ndarray:
    """Value of one pixel-AND feature on images ``(m, H, W)``, straight from its definition:
    OR over (dy, dx) in {0..a-1}^2 of AND over inputs (pixel(row+dy, col+dx) XOR negated),
    a pixel outside the image reading as 0."""
    m, h, w = images.shape
    out = np.zeros(m, dtype=np.uint8)
    for dy in range(shift):
        for dx in range(shift):
            acc = np.ones(m, dtype=np.uint8)
            for row, col, negated in inputs:
                r, c = row + dy, col + dx
                pix = images[:, r, c] if (0 <= r < h and 0 <= c < w) else np.zeros(m, dtype=np.uint8)
                acc &= pix ^ np.uint8(bool(negated))
            out |= acc
    return out


def pixel_and_features(images: np.ndarray, specs) -> np.ndarray:
    """``(m, n_features)`` values of JSON feature specs of the ``pixel-and`` family."""
    cols = [pixel_and_feature(images, s["inputs"], s["shift"]) for s in specs]
    return np.stack(cols, axis=1) if cols else np.zeros((images.shape[0], 0), dtype=np.uint8)
