"""The pixel-AND family's rejection sampler: propose input positions, place them, test them.

:func:`propose_positions` draws a point's random numbers from the family's generator in one numba pass (the
same numbers, in the same order, as NumPy's calls would draw them, so a search is the same bit for bit), places
each proposal's inputs as ``rint(centre + jitter + sigma * z)`` with NumPy's operations in NumPy's order, and
accepts a proposal when every input lies inside the image, the inputs are distinct and the set's scatter (mean
distance of the inputs from their centre of gravity) is within ``tol`` of the target.  The scatter is summed in
input order; rows whose distance from the tolerance's edge is below :data:`EDGE` are marked for the caller to
decide with NumPy's own arithmetic.  :func:`negated_slots` ranks the negated inputs.  Each kernel has a NumPy twin
in ``tests/naive_guided.py`` (``tests/test_guided_draw_kernels.py``).
"""

from __future__ import annotations

import math

import numba
import numpy as np

from . import JIT

__all__ = ["EDGE", "negated_slots", "propose_positions"]

#: rows with ``| |scatter - target| - tol | < EDGE`` are left to NumPy
EDGE = 1e-9


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
            for _ in range(K):
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
