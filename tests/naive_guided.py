"""Slow, obviously correct references for the ``guided`` engine's model, portfolio and draw.

The Gaussian process is written from its textbook formulas (Rasmussen & Williams 2006,
eqs. 2.25-2.26 and 2.30) with explicit inverses and loops over pairs of points; the
expected improvement is integrated numerically; the portfolio is the module docstring's
rule spelt out feature by feature.
"""

from __future__ import annotations

import math

import numpy as np

LENGTHS = (0.1, 0.2, 0.35, 0.6, 1.0)
NOISES = (0.01, 0.1, 0.3, 0.6)


def matern52(a, b, length):
    r = math.sqrt(sum((float(x) - float(z)) ** 2 for x, z in zip(a, b, strict=True))) / length
    return (1 + math.sqrt(5) * r + 5 * r * r / 3) * math.exp(-math.sqrt(5) * r)


def best_fit(z, covariance):
    """(length, noise, K^-1) of largest log marginal likelihood of ``z`` over the grids, ``covariance(length,
    noise)`` the rows' covariance matrix; ties to the earlier pair."""
    best = None
    for length in LENGTHS:
        for noise in NOISES:
            K = covariance(length, noise)
            Kinv = np.linalg.inv(K)
            ll = -0.5 * z @ Kinv @ z - 0.5 * np.linalg.slogdet(K)[1]
            if best is None or ll > best[0] + 1e-12:
                best = (ll, length, noise, Kinv)
    return best[1:]


def gp_posterior(X, y, Xq):
    """Standardize y; pick (length, noise) of largest log marginal likelihood; posterior mean and sd."""
    y = np.asarray(y, dtype=float)
    sd0 = y.std()
    z = (y - y.mean()) / (sd0 if sd0 > 0 else 1.0)
    n = len(z)
    length, noise, Kinv = best_fit(z, lambda length, noise: np.array(
        [[(1 - noise) * matern52(X[i], X[j], length) + (noise + 1e-9) * (i == j) for j in range(n)]
         for i in range(n)]))
    mean, sd = [], []
    for q in Xq:
        k = np.array([(1 - noise) * matern52(q, X[i], length) for i in range(n)])
        mean.append(k @ Kinv @ z)
        sd.append(math.sqrt(max((1 - noise) - k @ Kinv @ k, 1e-12)))
    return np.array(mean), np.array(sd)


def gp_posterior_tasks(X, z, task, Xq, offset, task_noise):  # task_noise: a number or one per row
    """Several tasks (task -1: the target, queried): the covariance of rows i, j is the shared kernel, plus
    ``offset`` when they are of the same task, plus noise on the diagonal (``task_noise`` more on a related
    task's rows); (length, noise) of largest log marginal likelihood; posterior at target rows ``Xq``."""
    z = np.asarray(z, dtype=float)
    n = len(z)
    length, noise, Kinv = best_fit(z, lambda length, noise: np.array(
        [[(1 - noise) * matern52(X[i], X[j], length) + offset * (task[i] == task[j])
          + (noise + 1e-9 + np.broadcast_to(task_noise, (n,))[i] * (task[i] != -1)) * (i == j)
          for j in range(n)] for i in range(n)]))
    mean, sd = [], []
    for q in Xq:
        k = np.array([(1 - noise) * matern52(q, X[i], length) + offset * (task[i] == -1) for i in range(n)])
        mean.append(k @ Kinv @ z)
        sd.append(math.sqrt(max((1 - noise) + offset - k @ Kinv @ k, 1e-12)))
    return np.array(mean), np.array(sd)


def learned_task_noises(X, z, task, offset, grid):
    """Per related task: (length, noise) of largest log marginal likelihood on its rows alone; for each ``s`` of
    ``grid``, the Gaussian conditional of the target rows (task -1) given that task's, from the joint covariance
    (shared kernel, ``offset`` within a task, ``s`` more on the related task's diagonal) with explicit inverses;
    the ``s`` of largest log density (the first of equals)."""
    z = np.asarray(z, dtype=float)
    task = np.asarray(task)
    T = [i for i in range(len(z)) if task[i] == -1]
    out = {}
    for t in sorted({int(v) for v in task if v != -1}):
        own = [i for i in range(len(z)) if task[i] == t]
        length, noise, _ = best_fit(z[own], lambda length, noise, own=own: np.array(
            [[(1 - noise) * matern52(X[i], X[j], length) + (noise + 1e-9) * (i == j) for j in own] for i in own]))

        def cov(i, j, s, length=length, noise=noise):
            return ((1 - noise) * matern52(X[i], X[j], length) + offset * (task[i] == task[j])
                    + (noise + 1e-9 + s * (task[i] != -1)) * (i == j))

        chosen = None
        for s in grid:
            Ktt = np.array([[cov(i, j, s) for j in own] for i in own])
            KTt = np.array([[cov(i, j, s) for j in own] for i in T])
            KTT = np.array([[cov(i, j, s) for j in T] for i in T])
            inv = np.linalg.inv(Ktt)
            r = z[T] - KTt @ inv @ z[own]
            S = KTT - KTt @ inv @ KTt.T
            dens = -0.5 * r @ np.linalg.inv(S) @ r - 0.5 * np.linalg.slogdet(S)[1]
            if chosen is None or dens > chosen[0] + 1e-9:
                chosen = (dens, s)
        out[t] = chosen[1]
    return out


def expected_improvement(mean, sd, best, xi):
    """E[max(f - best - xi, 0)], f ~ N(mean, sd^2), by the trapezoidal rule on +-12 sd."""
    out = []
    for m, s in zip(mean, sd, strict=True):
        f = np.linspace(m - 12 * s, m + 12 * s, 200001)
        dens = np.exp(-0.5 * ((f - m) / s) ** 2) / (s * math.sqrt(2 * math.pi))
        out.append(np.trapezoid(np.maximum(f - best - xi, 0) * dens, f) if hasattr(np, "trapezoid")
                   else np.trapz(np.maximum(f - best - xi, 0) * dens, f))
    return np.array(out)


def phi(a, b):
    """Pearson correlation of two 0/1 columns (the phi coefficient), from the 2x2 table."""
    n = len(a)
    n11 = sum(1 for u, v in zip(a, b, strict=True) if u and v)
    na, nb = sum(a), sum(b)
    return (n * n11 - na * nb) / math.sqrt(na * (n - na) * nb * (n - nb))


def diverse(D, order, costs, budget, max_corr):
    """Go through ``order``; keep a non-constant column that fits and has |phi| <= max_corr to all kept."""
    kept, spent = [], 0.0
    for i in order:
        col = [int(v) for v in D[:, i]]
        if spent + costs[i] > budget * (1 + 1e-12) or sum(col) in (0, len(col)):
            continue
        if all(abs(phi(col, [int(v) for v in D[:, j]])) <= max_corr for j in kept):
            kept.append(int(i))
            spent += costs[i]
    return kept


def dense_diverse(X, order, costs, budget, max_corr):
    """The real-valued filter as the ``guided`` engine ran it in Python before it was compiled (kept as the
    twin of :func:`metafx._kernels.diverse.dense_diverse_prefix`): a loop over ``order`` that copies the kept
    centred columns for every candidate."""
    X = np.asarray(X, dtype=np.float64)
    Z = X - X.mean(0)
    norm = np.sqrt((Z * Z).sum(0))
    kept = []
    spent = 0.0
    limit = float(budget) * (1 + 1e-12)
    for i in np.asarray(order, dtype=np.intp):
        if spent + costs[i] > limit or norm[i] == 0:
            continue
        if kept:
            r = np.abs(Z[:, kept].T @ Z[:, i]) / (norm[kept] * norm[i])
            if np.any(r > max_corr):
                continue
        kept.append(int(i))
        spent += float(costs[i])
    return kept


def conditional_infogain(col, y, given):
    """I(Y; col | given) in nats: the infogain of col within each value of the given column, weighted."""
    n = len(y)
    out = 0.0
    for v in set(given):
        rows = [i for i in range(n) if given[i] == v]
        out += len(rows) / n * infogain([col[i] for i in rows], [y[i] for i in rows])
    return out


def cmim(D, y, order, costs, budget):
    """Conditional infomax per cost, spelt out: while something fits, keep the column of ``order`` with the
    largest min(I(Y; X), min over kept s of I(Y; X | X_s)) / cost (the first of equals); stop when no
    column that fits scores above 1e-9 / m nats."""
    m = len(y)
    y = list(y)
    cols = {int(i): [int(v) for v in D[:, i]] for i in order}
    memo = {}  # each information is computed once (the values do not change as columns are kept)

    def info(i, s=None):
        if (i, s) not in memo:
            memo[i, s] = infogain(cols[i], y) if s is None else conditional_infogain(cols[i], y, cols[s])
        return memo[i, s]

    kept, spent = [], 0.0
    while True:
        best, arg = 1e-9 / m, None
        for i in order:
            i = int(i)
            if i in kept or spent + costs[i] > budget * (1 + 1e-12):
                continue
            score = min([info(i)] + [info(i, s) for s in kept])
            if score / costs[i] > best * (1 + 1e-9) + 1e-15:
                best, arg = score / costs[i], i
        if arg is None:
            return kept
        kept.append(arg)
        spent += costs[arg]


def first_of_repeats(D):
    """Mask: column not equal to an earlier column."""
    keep = []
    for i in range(D.shape[1]):
        keep.append(not any(np.array_equal(D[:, i], D[:, j]) for j in range(i)))
    return np.array(keep)


def infogain(col, y):
    """Mutual information (nats) of a discrete column and the labels, from counts."""
    n = len(y)
    out = 0.0
    for v in set(col):
        for c in set(y):
            pij = sum(1 for a, b in zip(col, y, strict=True) if a == v and b == c) / n
            if pij > 0:
                out += pij * math.log(pij / ((list(col).count(v) / n) * (list(y).count(c) / n)))
    return out


def point_set_order(D, y, costs):
    """Columns that repeat no earlier one, by infogain per cost (best first, ties in draw order)."""
    keep = first_of_repeats(D)
    score = [infogain(list(D[:, i]), list(y)) / costs[i] for i in range(D.shape[1])]
    idx = [i for i in range(D.shape[1]) if keep[i]]
    return sorted(idx, key=lambda i: (-score[i], i))


def round_robin(lengths):
    """(source, position) pairs: position 0 of every source, then position 1, ..."""
    return [(s, r) for r in range(max(lengths)) for s in range(len(lengths)) if r < lengths[s]]


def quality_map(train_uv, quality, query_uv, shape, n=7, alpha=0.1):
    """Thesis Algorithm 5 with the regression of T 5.2, footnote 3, spelt out: ``n x n`` Gaussian bumps
    at the middles of equal cells of the image (std 3/4 of the spacing), a linear model on their
    responses with an unpenalized intercept and a ridge penalty ``alpha``, solved in closed form on
    centred data; its predictions at ``query_uv`` ((row, col) pairs)."""
    h, w = shape
    rows = -0.5 + (np.arange(n) + 0.5) * h / n
    cols = -0.5 + (np.arange(n) + 0.5) * w / n
    sr, sc = 0.75 * h / n, 0.75 * w / n

    def bumps(uv):
        out = np.empty((len(uv), n * n))
        for i, (r, c) in enumerate(uv):
            for a in range(n):
                for b in range(n):
                    out[i, a * n + b] = math.exp(-(r - rows[a]) ** 2 / (2 * sr * sr) - (c - cols[b]) ** 2 / (2 * sc * sc))
        return out

    B = bumps(np.asarray(train_uv, float))
    q = np.asarray(quality, float)
    mu, qm = B.mean(0), q.mean()
    a = np.linalg.solve((B - mu).T @ (B - mu) + alpha * np.eye(n * n), (B - mu).T @ (q - qm))
    return qm + (bumps(np.asarray(query_uv, float)) - mu) @ a


def pixel_and_draw(fam, point, budget, rng):
    """The pixel-AND family's draw in plain NumPy (rows, cols, neg, k, shift of its batch), as the module docstring
    of :mod:`metafx.default_plugins.pixel_families` describes it: batches of ``max(64, 3 * missing)`` proposals
    (centres by the family, jitters ``U(-0.5, 0.5)`` per feature and axis, Gaussian offsets), the first accepted
    ones kept; then ``round(K * percentPos / 100)`` positive inputs at random slots."""
    from metafx.default_plugins.pixel_families import MAX_INPUTS

    K, a, target = int(point["numInputs"]), int(point["shiftInvLen"]), float(point["scatter"])
    n = int(math.floor(float(budget) / (0.5 * (1 + a * a)) + 1e-9))
    h, w = fam.image_shape
    if n <= 0:  # nothing drawn
        z = np.zeros((0, MAX_INPUTS), np.int16)
        return z, z.copy(), np.zeros((0, MAX_INPUTS), bool), np.zeros(0, np.int8), np.zeros(0, np.int8)
    if K == 1:
        pr, pc = fam._centres(n, rng)
        rows, cols = pr[:, None], pc[:, None]
    else:
        sigma = target / (math.sqrt(math.pi / 2) * math.sqrt((K - 1) / K))
        got_r, got_c, have = [], [], 0
        while have < n:
            batch = max(64, 3 * (n - have))
            qr, qc = fam._centres(batch, rng)
            ur = rng.uniform(-0.5, 0.5, (batch, 1))
            uc = rng.uniform(-0.5, 0.5, (batch, 1))
            zr = rng.standard_normal((batch, K))
            zc = rng.standard_normal((batch, K))
            pr = np.rint(qr[:, None] + ur + sigma * zr).astype(np.int64)
            pc = np.rint(qc[:, None] + uc + sigma * zc).astype(np.int64)
            ok = ((pr >= 0) & (pr < h) & (pc >= 0) & (pc < w)).all(axis=1)
            ok &= (np.diff(np.sort(pr * w + pc, axis=1), axis=1) != 0).all(axis=1)  # distinct
            scatter = np.hypot(pr - pr.mean(1, keepdims=True), pc - pc.mean(1, keepdims=True)).mean(1)
            ok &= np.abs(scatter - target) <= fam.scatter_tol
            idx = np.flatnonzero(ok)[: n - have]
            got_r.append(pr[idx])
            got_c.append(pc[idx])
            have += idx.size
        rows, cols = np.concatenate(got_r), np.concatenate(got_c)
    n_pos = int(round(K * float(point["percentPos"]) / 100.0))
    neg = np.zeros((n, MAX_INPUTS), dtype=bool)
    neg[:, :K] = np.argsort(rng.random((n, K)), axis=1) >= n_pos
    R = np.zeros((n, MAX_INPUTS), np.int16)
    C = np.zeros((n, MAX_INPUTS), np.int16)
    R[:, :K], C[:, :K] = rows, cols
    return R, C, neg, np.full(n, K, np.int8), np.full(n, a, np.int8)


def gp_posterior_map(Xp, zp, task, X, z, Xq, offset, task_noise):
    """The related tasks' quality map (``gp_posterior_tasks`` fitted on their rows alone, at target rows) as the
    prior mean; the residual ``z - map`` at the target's rows ``X`` a GP with the target's constant (``offset``)
    plus the shared kernel and noise, (length, noise) of largest log marginal likelihood; explicit inverses."""
    m, _ = gp_posterior_tasks(Xp, zp, task, list(X) + list(Xq), offset, task_noise)
    r = np.asarray(z, dtype=float) - m[:len(X)]
    n = len(r)
    length, noise, Kinv = best_fit(r, lambda length, noise: np.array(
        [[(1 - noise) * matern52(X[i], X[j], length) + offset + (noise + 1e-9) * (i == j) for j in range(n)]
         for i in range(n)]))
    mean, sd = [], []
    for k_, q in enumerate(Xq):
        k = np.array([(1 - noise) * matern52(q, X[i], length) + offset for i in range(n)])
        mean.append(m[len(X) + k_] + k @ Kinv @ r)
        sd.append(math.sqrt(max((1 - noise) + offset - k @ Kinv @ k, 1e-12)))
    return np.array(mean), np.array(sd)
