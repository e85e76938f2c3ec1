"""A small Gaussian process over meta-feature points, and expected improvement.

Used by the ``guided`` engine to model set quality as a smooth function of the meta-features of a step's point
(thesis section 5.2 applies the same idea to single features).  Unit signal variance, a Matern 5/2 kernel; the
length scale and the noise share are the pair of largest log marginal likelihood on fixed grids.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.linalg import solve_triangular
from scipy.special import ndtr

__all__ = ["TARGET", "TASK_NOISE_GRID", "expected_improvement", "gp_posterior", "gp_posterior_map",
           "gp_posterior_tasks", "learned_task_noises", "quality_map"]

_LENGTHS = (0.1, 0.2, 0.35, 0.6, 1.0)
_NOISES = (0.01, 0.1, 0.3, 0.6)


def _distances(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Euclidean distances between the rows of ``A`` and those of ``B`` (the squares summed a column at a
    time, in column order: the same sums as ``((A[:, None] - B[None]) ** 2).sum(-1)``, without its 3-d array)."""
    sq = np.zeros((A.shape[0], B.shape[0]))
    for j in range(A.shape[1]):
        diff = A[:, j, None] - B[None, :, j]
        sq += diff * diff
    return np.sqrt(np.maximum(sq, 0.0))


def _matern52_of(D: np.ndarray, length: float) -> np.ndarray:
    """The Matern 5/2 kernel (unit variance) at distances ``D``."""
    d = D / length
    s5 = math.sqrt(5.0) * d
    return (1.0 + s5 + 5.0 / 3.0 * d * d) * np.exp(-s5)


def gp_posterior(X: np.ndarray, y: np.ndarray, Xq: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and standard deviation at ``Xq`` of a GP fitted on ``(X, y)`` (``y`` standardized inside).

    Unit signal variance, Matern 5/2; the length scale and the noise share are the
    pair of largest log marginal likelihood on a fixed grid.  Returned in the units
    of the standardized ``y``.
    """
    X = np.asarray(X, dtype=np.float64)
    Xq = np.asarray(Xq, dtype=np.float64)
    mean, sd = _gp_posterior(_distances(X, X), np.asarray(y, dtype=np.float64), _distances(Xq, X))
    assert sd is not None  # sd=True
    return mean, sd


def _gp_posterior(D: np.ndarray, y: np.ndarray, Dq: np.ndarray,
                  sd: bool = True) -> tuple[np.ndarray, np.ndarray | None]:
    """:func:`gp_posterior` from the distances ``D`` among the training rows and ``Dq`` from the query rows
    to them (two models on the same rows share them); ``sd=False``: the mean only (``None`` for the
    standard deviation)."""
    mu0, sd0 = float(y.mean()), float(y.std())
    z = (y - mu0) / (sd0 if sd0 > 0 else 1.0)
    return _fit_predict(D, z, Dq, extra=1e-9 * np.eye(len(z)), cross=0.0, prior_var=0.0, sd=sd)


def _fit_predict(D: np.ndarray, z: np.ndarray, Dq: np.ndarray, *, extra: np.ndarray, cross: np.ndarray | float,
                 prior_var: float, sd: bool) -> tuple[np.ndarray, np.ndarray | None]:
    """The grid fit and the prediction both posteriors share: the covariance of the rows is
    ``(1 - noise) K(D) + noise I + extra``, the query rows' covariance with them ``(1 - noise) K(Dq) + cross``
    and their prior variance ``(1 - noise) + prior_var``, for the (length, noise) pair of the grids with the
    largest log marginal likelihood of ``z``."""
    _, length, noise, L, a = _grid_fit(D, z, extra)
    Ks = (1.0 - noise) * _matern52_of(Dq, length) + cross
    mean = Ks @ a
    if not sd:
        return mean, None
    v = solve_triangular(L, Ks.T, lower=True, check_finite=False)
    var = np.maximum((1.0 - noise) + prior_var - (v * v).sum(0), 1e-12)
    return mean, np.sqrt(var)


def _grid_fit(D: np.ndarray, z: np.ndarray, extra: np.ndarray) -> tuple[float, float, float, np.ndarray, np.ndarray]:
    """``(log marginal likelihood, length, noise, L, K^-1 z)`` of the (length, noise) pair of the grids with the
    largest log marginal likelihood of ``z`` (covariance ``(1 - noise) K(D) + noise I + extra``, Cholesky ``L``)."""
    eye = np.eye(len(z))
    best = None
    for length in _LENGTHS:
        K0 = _matern52_of(D, length)
        for noise in _NOISES:
            L, a, ll = _cholesky_ll((1.0 - noise) * K0 + noise * eye + extra, z)
            if best is None or ll > best[0] + 1e-12:
                best = (ll, length, noise, L, a)
    assert best is not None  # the grids are not empty
    return best


def _cholesky_ll(K: np.ndarray, z: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """The Cholesky factor of ``K``, ``K^-1 z`` and the log marginal likelihood of ``z`` (its constant left out)."""
    L = np.linalg.cholesky(K)
    a = solve_triangular(L.T, solve_triangular(L, z, lower=True, check_finite=False), lower=False, check_finite=False)
    return L, a, -0.5 * float(z @ a) - float(np.log(np.diag(L)).sum())


#: the task of the search itself in :func:`gp_posterior_tasks` (related tasks are 0, 1, ...)
TARGET = -1


def gp_posterior_tasks(D: np.ndarray, z: np.ndarray, task: np.ndarray, Dq: np.ndarray, *, offset: float,
                       task_noise: float | np.ndarray, sd: bool = True) -> tuple[np.ndarray, np.ndarray | None]:
    """Mean and standard deviation, at query rows of the target task, of a GP fitted on rows of several tasks.

    ``z``: each row's quality, standardized within its task (the caller's choice of scale); ``task``: each
    row's task, :data:`TARGET` for the search itself; ``D`` and ``Dq`` as in :func:`gp_posterior`'s distances
    (among the rows, and from the query rows to them).  Each task's qualities are one function of the point
    shared by all tasks (Matern 5/2, the length scale and noise share chosen on the grids by the largest log
    marginal likelihood, as in :func:`gp_posterior`), plus a constant of the task with variance ``offset`` (a
    standardized task may sit higher or lower than another where both were measured), plus, for the rows of
    related tasks, extra independent noise of variance ``task_noise`` (where their function differs from the
    target's; ``task_noise`` may be an array, one variance per row, the target's rows' values unused).  Returned in
    the units of ``z``; ``sd=False``: the mean only.
    """
    z = np.asarray(z, dtype=np.float64)
    task = np.asarray(task)
    n = len(z)
    same = (task[:, None] == task[None, :]).astype(np.float64)
    related = np.diag((task != TARGET) * np.broadcast_to(np.asarray(task_noise, dtype=np.float64), (n,)))
    base = offset * same + related + 1e-9 * np.eye(n)
    return _fit_predict(D, z, Dq, extra=base, cross=offset * (task == TARGET)[None, :], prior_var=offset, sd=sd)


def quality_map(Xp: np.ndarray, zp: np.ndarray, task: np.ndarray, Xq: np.ndarray, *, offset: float,
                task_noise: float | np.ndarray) -> np.ndarray:
    """The related tasks' quality map at rows ``Xq`` (thesis section 5.5: qualities predicted across tasks from
    the meta-features): the posterior mean, at a task none of them is, of :func:`gp_posterior_tasks` fitted on
    the related tasks' rows ``Xp`` alone (``zp`` standardized within each task, ``task`` their tasks, none of
    them :data:`TARGET`).  That is the shared smooth function's mean: a new task's constant is independent of
    theirs, so it adds nothing to the mean."""
    Xp, Xq, task = np.asarray(Xp, dtype=np.float64), np.asarray(Xq, dtype=np.float64), np.asarray(task)
    if np.any(task == TARGET) or not len(task):
        raise ValueError("quality_map needs rows of related tasks only (none of task TARGET), and at least one")
    mean, _ = gp_posterior_tasks(_distances(Xp, Xp), zp, task, _distances(Xq, Xp), offset=offset,
                                 task_noise=task_noise, sd=False)
    return mean


def gp_posterior_map(Xp: np.ndarray, zp: np.ndarray, task: np.ndarray, X: np.ndarray, z: np.ndarray,
                     Xq: np.ndarray, *, offset: float, task_noise: float | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and standard deviation at the target's query rows ``Xq`` of a model whose prior mean is the related
    tasks' :func:`quality_map` (``Xp``, ``zp``, ``task``, ``offset``, ``task_noise`` as there) and whose residual,
    the target's ``z`` at its rows ``X`` minus the map there, is a GP of its own: the target's constant (variance
    ``offset``) plus a smooth function (Matern 5/2, unit variance, the length scale and noise share of largest
    log marginal likelihood of the residual on the grids of :func:`gp_posterior`).  The related rows enter through
    the map only.  Without target rows: the map, and the residual's prior standard deviation."""
    Xq = np.asarray(Xq, dtype=np.float64)
    X = np.asarray(X, dtype=np.float64).reshape(len(z), Xq.shape[1])
    m = quality_map(Xp, zp, task, np.concatenate([X, Xq]), offset=offset, task_noise=task_noise)
    at_rows, at_query = m[:len(X)], m[len(X):]
    if not len(X):
        return at_query, np.full(len(Xq), math.sqrt(1.0 + offset))
    n = len(X)
    residual = np.asarray(z, dtype=np.float64) - at_rows
    mean, sd = _fit_predict(_distances(X, X), residual, _distances(Xq, X), extra=offset + 1e-9 * np.eye(n),
                            cross=offset, prior_var=offset, sd=True)
    assert sd is not None  # sd=True
    return at_query + mean, sd


#: the extra noise variances :func:`learned_task_noises` chooses from, in the order that breaks ties
TASK_NOISE_GRID = (0.5, 0.1, 2.0, 8.0)


def learned_task_noises(D: np.ndarray, z: np.ndarray, task: np.ndarray, *, offset: float,
                        grid: tuple[float, ...] = TASK_NOISE_GRID) -> dict[int, float]:
    """Each related task's extra noise variance in :func:`gp_posterior_tasks`, learned from how well its rows
    predict the target's (``D``, ``z``, ``task`` as there; the target's rows are those of task :data:`TARGET`).

    For related task ``t`` and each value ``s`` of ``grid``: the log density of the target's ``z`` given task
    ``t``'s ``z`` alone, in the model of :func:`gp_posterior_tasks` on the rows of both tasks with ``task_noise=s``
    and the (length, noise) pair of largest log marginal likelihood on task ``t``'s rows alone (as
    :func:`gp_posterior` would fit them, ``z`` as given).  The value of largest density is ``t``'s (ties: the
    first in ``grid``), so a task whose qualities do not follow the target's where both were measured gets a
    large variance and weighs little.  Without target rows every task gets ``grid[0]``.
    """
    z = np.asarray(z, dtype=np.float64)
    task = np.asarray(task)
    target = np.flatnonzero(task == TARGET)
    out = {}
    for t in (int(v) for v in np.unique(task[task != TARGET])):
        if not len(target):
            out[t] = float(grid[0])
            continue
        own = np.flatnonzero(task == t)
        rows = np.concatenate([own, target])
        _, length, noise, _, _ = _grid_fit(D[np.ix_(own, own)], z[own], 1e-9 * np.eye(len(own)))
        is_t = np.arange(len(rows)) < len(own)
        shared = (1.0 - noise) * _matern52_of(D[np.ix_(rows, rows)], length) + (noise + 1e-9) * np.eye(len(rows))
        shared += offset * (is_t[:, None] == is_t[None, :])
        best = None
        for s in grid:
            K = shared + np.diag(s * is_t)
            cond = _cholesky_ll(K, z[rows])[2] - _cholesky_ll(K[np.ix_(is_t, is_t)], z[own])[2]
            if best is None or cond > best[0] + 1e-12:
                best = (cond, float(s))
        assert best is not None  # the grid is not empty
        out[t] = best[1]
    return out


def expected_improvement(mean: np.ndarray, sd: np.ndarray, best: float, xi: float = 0.0) -> np.ndarray:
    """``E[max(f - best - xi, 0)]`` for ``f ~ N(mean, sd^2)`` (maximization)."""
    imp = mean - best - xi
    zz = imp / sd
    return imp * ndtr(zz) + sd * np.exp(-0.5 * zz * zz) / math.sqrt(2.0 * math.pi)
