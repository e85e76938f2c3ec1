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


# ------------------------------------------------------------------ scorers: infogain
def class_counts(X: np.ndarray, y_codes: np.ndarray, n_classes: int) -> np.ndarray:
    """``(n_features, n_classes)``: number of non-zero values of each column within each class."""
    m, p = X.shape
    out = np.zeros((p, n_classes), dtype=np.int64)
    for j in range(p):
        for i in range(m):
            if X[i, j] != 0:
                out[j, y_codes[i]] += 1
    return out


def infogain(x: np.ndarray, y: np.ndarray, pseudo_count: float = 0.0, values=None) -> float:
    """I(x; y) in nats from the (pseudo-count corrected) empirical joint distribution."""
    values = sorted(set(x.tolist())) if values is None else list(values)
    classes = sorted(set(y.tolist()))
    table = np.zeros((len(values), len(classes)))
    for a, b in zip(x.tolist(), y.tolist()):
        table[values.index(a), classes.index(b)] += 1
    table += pseudo_count
    P = table / table.sum()
    mi = 0.0
    for i in range(P.shape[0]):
        for j in range(P.shape[1]):
            if P[i, j] > 0:
                mi += P[i, j] * np.log(P[i, j] / (P[i, :].sum() * P[:, j].sum()))
    return max(mi, 0.0)
