"""Acceptance test of the pixel-AND family's rejection sampler (and the placement of the drawn inputs).

A drawn set of ``K`` input positions ``(rows[i], cols[i])`` is accepted when
every position lies inside the ``h x w`` image, the positions are distinct and
the set's scatter (mean distance of the inputs from their centre of gravity)
is within ``tol`` of the target.  One pass per row replaces about ten NumPy
calls on the whole batch.  The scatter is summed in input order; rows whose
distance from the tolerance's edge is below :data:`EDGE` are marked for the
caller to decide with NumPy's own arithmetic (NumPy sums eight terms in another
order), so the accepted rows are exactly those of the NumPy test
(``tests/test_kernels.py`` checks it against the NumPy twin).

:func:`place_and_accept` also places the inputs, from the random numbers the
family drew: ``rint(centre + jitter + sigma * z)`` with NumPy's operations in
NumPy's order (no fused multiply-add: ``fastmath=False``), so the positions are
NumPy's bit for bit, without its temporary arrays.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from . import JIT

__all__ = ["accept_positions", "place_and_accept", "EDGE"]

#: rows with ``| |scatter - target| - tol | < EDGE`` are left to NumPy
EDGE = 1e-9


@numba.njit(**JIT)
def _accept(rows, cols, h, w, target, tol, edge, out):
    n, K = rows.shape
    for i in range(n):
        _accept_row(rows, cols, i, K, h, w, target, tol, edge, out)


@numba.njit(**JIT)
def _accept_row(rows, cols, i, K, h, w, target, tol, edge, out):
    """Sets ``out[i]``: the verdict on row ``i`` (see :func:`accept_positions`)."""
    out[i] = 0
    inside = True
    for j in range(K):
        if rows[i, j] < 0 or rows[i, j] >= h or cols[i, j] < 0 or cols[i, j] >= w:
            inside = False
            break
    if not inside:
        return
    distinct = True
    for j in range(1, K):
        for k in range(j):
            if rows[i, j] == rows[i, k] and cols[i, j] == cols[i, k]:
                distinct = False
                break
        if not distinct:
            break
    if not distinct:
        return
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


@numba.njit(**JIT)
def _place(qr, qc, ur, uc, zr, zc, sigma, h, w, target, tol, edge, rows, cols, out):
    n, K = zr.shape
    for i in range(n):
        cr = qr[i] + ur[i]
        cc = qc[i] + uc[i]
        for j in range(K):
            rows[i, j] = np.int64(np.rint(cr + sigma * zr[i, j]))
            cols[i, j] = np.int64(np.rint(cc + sigma * zc[i, j]))
        _accept_row(rows, cols, i, K, h, w, target, tol, edge, out)


def place_and_accept(qr: np.ndarray, qc: np.ndarray, ur: np.ndarray, uc: np.ndarray, zr: np.ndarray,
                     zc: np.ndarray, sigma: float, h: int, w: int, target: float,
                     tol: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Inputs placed at ``rint(q + u + sigma * z)`` per row (centre pixels ``qr``/``qc``, jitters
    ``ur``/``uc`` of shape ``(n,)``, offsets ``zr``/``zc`` of shape ``(n, K)``), as int64 ``rows``/``cols``,
    and :func:`accept_positions`'s verdict on them: the same arrays as the NumPy expression
    ``np.rint(qr[:, None] + ur[:, None] + sigma * zr).astype(np.int64)`` and the test after it."""
    zr = np.ascontiguousarray(zr, dtype=np.float64)
    zc = np.ascontiguousarray(zc, dtype=np.float64)
    n, K = zr.shape
    rows = np.empty((n, K), np.int64)
    cols = np.empty((n, K), np.int64)
    out = np.zeros(n, np.int8)
    if K == 0 or n == 0:
        return rows, cols, out
    _place(np.ascontiguousarray(qr, dtype=np.float64), np.ascontiguousarray(qc, dtype=np.float64),
           np.ascontiguousarray(ur, dtype=np.float64).reshape(n), np.ascontiguousarray(uc, dtype=np.float64).reshape(n),
           zr, zc, float(sigma), int(h), int(w), float(target), float(tol), EDGE, rows, cols, out)
    return rows, cols, out


@numba.njit(**JIT)
def _propose(rng, qr, qc, K, sigma, h, w, target, tol, edge, need, zr, ur, uc, rows, cols, verdict):
    n = qr.shape[0]
    for i in range(n):  # the random numbers in NumPy's order: ur, uc, zr (row by row), zc (row by row)
        ur[i] = rng.uniform(-0.5, 0.5)
    for i in range(n):
        uc[i] = rng.uniform(-0.5, 0.5)
    for i in range(n):
        for j in range(K):
            zr[i, j] = rng.standard_normal()
    got = 0  # rows written (accepted, or at the edge)
    sure = 0  # rows accepted for sure
    code = np.empty(K, np.int64)
    for i in range(n):
        ok = sure < need  # after the `need`-th accepted row only the stream goes on
        if ok:
            cr = qr[i] + ur[i]
            for j in range(K):
                r = np.int64(np.rint(cr + sigma * zr[i, j]))
                if r < 0 or r >= h:
                    ok = False
                    break
                rows[got, j] = r
        if not ok:
            for j in range(K):
                rng.standard_normal()
            continue
        cc = qc[i] + uc[i]
        for j in range(K):
            c = np.int64(np.rint(cc + sigma * rng.standard_normal()))
            if ok:
                if c < 0 or c >= w:
                    ok = False
                else:
                    cols[got, j] = c
                    code[j] = rows[got, j] * w + c
                    for t in range(j):
                        if code[t] == code[j]:
                            ok = False
                            break
        if not ok:
            continue
        v = _scatter_verdict(rows, cols, got, K, target, tol, edge)
        if v != 0:
            verdict[got] = v
            if v == 1:
                sure += 1
            got += 1
    return got


@numba.njit(**JIT)
def _scatter_verdict(rows, cols, i, K, target, tol, edge):
    """1 when the scatter of row ``i`` is within ``tol`` of ``target``, 0 when not, 2 when within ``edge`` of
    the tolerance's edge (summed here in input order; the caller decides with NumPy's order)."""
    sr = 0.0
    sc = 0.0
    for j in range(K):
        sr += rows[i, j]
        sc += cols[i, j]
    r0 = sr / K
    c0 = sc / K
    s = 0.0
    for j in range(K):
        dr = rows[i, j] - r0
        dc = cols[i, j] - c0
        s += math.sqrt(dr * dr + dc * dc)
    d = abs(s / K - target)
    if abs(d - tol) < edge:
        return 2
    return 1 if d <= tol else 0


def propose_positions(rng: np.random.Generator, qr: np.ndarray, qc: np.ndarray, K: int, sigma: float, h: int, w: int,
                      target: float, tol: float, need: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One batch of the pixel-AND sampler after its centres ``qr``/``qc`` (``n`` pixels): draws from ``rng`` the
    jitters ``ur = rng.uniform(-0.5, 0.5, (n, 1))``, ``uc`` (the same), the offsets ``zr =
    rng.standard_normal((n, K))``, ``zc`` (the same) -- the very numbers and generator state of these four
    NumPy calls -- places the inputs as :func:`place_and_accept` does and tests them.  Returns the rows
    accepted or left at the tolerance's edge, in order (``rows``, ``cols`` of shape ``(g, K)``, int64), with
    their verdicts (1 or 2, see :func:`accept_positions`); rows after the ``need``-th accepted one are not
    placed (their random numbers are still drawn)."""
    qr = np.ascontiguousarray(qr, dtype=np.int64)
    qc = np.ascontiguousarray(qc, dtype=np.int64)
    n = qr.shape[0]
    if qc.shape != (n,) or K < 1:
        raise ValueError(f"propose_positions: centres of shapes {qr.shape} and {qc.shape}, K={K}")
    rows = np.empty((n, K), np.int64)
    cols = np.empty((n, K), np.int64)
    verdict = np.zeros(n, np.int8)
    got = _propose(rng, qr, qc, int(K), float(sigma), int(h), int(w), float(target), float(tol), EDGE, int(need),
                   np.empty((n, K)), np.empty(n), np.empty(n), rows, cols, verdict)
    return rows[:got], cols[:got], verdict[:got]


@numba.njit(**JIT)
def _negated(rng, n, K, n_pos, neg):
    vals = np.empty(K)
    order = np.empty(K, np.int64)
    for i in range(n):
        for j in range(K):
            vals[j] = rng.random()
        for j in range(K):  # insertion sort of the row's indices by value (stable)
            v = vals[j]
            t = j
            while t > 0 and vals[order[t - 1]] > v:
                order[t] = order[t - 1]
                t -= 1
            order[t] = j
        for j in range(K):
            neg[i, j] = order[j] >= n_pos


def negated_slots(rng: np.random.Generator, n: int, K: int, n_pos: int, width: int) -> np.ndarray:
    """``(n, width)`` bool: in slots ``0..K-1`` of each row, ``np.argsort(rng.random((n, K)), axis=1) >= n_pos``
    (the same numbers drawn from ``rng``; ties, of probability about ``K**2 * 2**-54`` a row, in index order);
    the other slots False."""
    neg = np.zeros((int(n), int(width)), dtype=np.bool_)
    if n > 0 and K > 0:
        _negated(rng, int(n), int(K), int(n_pos), neg)
    return neg
