"""Acceptance test of the pixel-AND family's rejection sampler.

A drawn set of ``K`` input positions ``(rows[i], cols[i])`` is accepted when
every position lies inside the ``h x w`` image, the positions are distinct and
the set's scatter (mean distance of the inputs from their centre of gravity)
is within ``tol`` of the target.  One pass per row replaces about ten NumPy
calls on the whole batch.  The scatter is summed in input order; rows whose
distance from the tolerance's edge is below :data:`EDGE` are marked for the
caller to decide with NumPy's own arithmetic (NumPy sums eight terms in another
order), so the accepted rows are exactly those of the NumPy test
(``tests/test_kernels.py`` checks it against the NumPy twin).
"""

from __future__ import annotations

import math

import numba
import numpy as np

from . import JIT

__all__ = ["accept_positions", "EDGE"]

#: rows with ``| |scatter - target| - tol | < EDGE`` are left to NumPy
EDGE = 1e-9


@numba.njit(**JIT)
def _accept(rows, cols, h, w, target, tol, edge, out):
    n, K = rows.shape
    for i in range(n):
        out[i] = 0
        inside = True
        for j in range(K):
            if rows[i, j] < 0 or rows[i, j] >= h or cols[i, j] < 0 or cols[i, j] >= w:
                inside = False
                break
        if not inside:
            continue
        distinct = True
        for j in range(1, K):
            for k in range(j):
                if rows[i, j] == rows[i, k] and cols[i, j] == cols[i, k]:
                    distinct = False
                    break
            if not distinct:
                break
        if not distinct:
            continue
        sr = 0.0
        sc = 0.0
        for j in range(K):
            sr += rows[i, j]
            sc += cols[i, j]
        r0 = sr / K
        c0 = sc / K
        s = 0.0
        for j in range(K):
            s += math.hypot(rows[i, j] - r0, cols[i, j] - c0)
        d = abs(s / K - target)
        if abs(d - tol) < edge:
            out[i] = 2  # too close to call in this summation order
        elif d <= tol:
            out[i] = 1


def accept_positions(rows: np.ndarray, cols: np.ndarray, h: int, w: int, target: float, tol: float) -> np.ndarray:
    """Per row of ``(n, K)`` int64 ``rows``/``cols``: 1 accepted, 0 refused, 2 inside and distinct
    but with a scatter within :data:`EDGE` of the tolerance's edge (decide with NumPy)."""
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    cols = np.ascontiguousarray(cols, dtype=np.int64)
    out = np.empty(rows.shape[0], np.int8)
    if rows.shape[1] == 0:
        out[:] = 0
        return out
    _accept(rows, cols, int(h), int(w), float(target), float(tol), EDGE, out)
    return out
