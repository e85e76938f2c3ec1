"""Slow, obviously correct references for the ``guided`` engine's model and portfolio.

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
    r = math.sqrt(sum((float(x) - float(z)) ** 2 for x, z in zip(a, b))) / length
    return (1 + math.sqrt(5) * r + 5 * r * r / 3) * math.exp(-math.sqrt(5) * r)


def gp_posterior(X, y, Xq):
    """Standardize y; pick (length, noise) of largest log marginal likelihood; posterior mean and sd."""
    y = np.asarray(y, dtype=float)
    sd0 = y.std()
    z = (y - y.mean()) / (sd0 if sd0 > 0 else 1.0)
    n = len(z)
    best = None
    for length in LENGTHS:
        for noise in NOISES:
            K = np.array([[(1 - noise) * matern52(X[i], X[j], length) + (noise + 1e-9) * (i == j)
                           for j in range(n)] for i in range(n)])
            Kinv = np.linalg.inv(K)
            ll = -0.5 * z @ Kinv @ z - 0.5 * np.linalg.slogdet(K)[1]
            if best is None or ll > best[0] + 1e-12:
                best = (ll, length, noise, Kinv)
    _, length, noise, Kinv = best
    mean, sd = [], []
    for q in Xq:
        k = np.array([(1 - noise) * matern52(q, X[i], length) for i in range(n)])
        mean.append(k @ Kinv @ z)
        sd.append(math.sqrt(max((1 - noise) - k @ Kinv @ k, 1e-12)))
    return np.array(mean), np.array(sd)


def expected_improvement(mean, sd, best, xi):
    """E[max(f - best - xi, 0)], f ~ N(mean, sd^2), by the trapezoidal rule on +-12 sd."""
    out = []
    for m, s in zip(mean, sd):
        f = np.linspace(m - 12 * s, m + 12 * s, 200001)
        dens = np.exp(-0.5 * ((f - m) / s) ** 2) / (s * math.sqrt(2 * math.pi))
        out.append(np.trapezoid(np.maximum(f - best - xi, 0) * dens, f) if hasattr(np, "trapezoid")
                   else np.trapz(np.maximum(f - best - xi, 0) * dens, f))
    return np.array(out)


def portfolio(source_costs, source_keep, budget):
    """Indices (source, position) chosen: each source's prefix within budget/k, then round-robin fill.

    ``source_costs[s]`` are the costs of source s's features in its order; ``source_keep[s]`` says
    which are not repeats of an earlier feature (sources in order, then positions).
    """
    k = len(source_costs)
    lists = [[i for i in range(len(c)) if keep[i]] for c, keep in zip(source_costs, source_keep)]
    chosen, spent, pos = [], 0.0, [0] * k
    for s in range(k):
        used = 0.0
        while pos[s] < len(lists[s]) and used + source_costs[s][lists[s][pos[s]]] <= budget / k * (1 + 1e-12):
            used += source_costs[s][lists[s][pos[s]]]
            chosen.append((s, lists[s][pos[s]]))
            pos[s] += 1
        spent += used
    progress = True
    while progress:
        progress = False
        for s in range(k):
            while pos[s] < len(lists[s]) and spent + source_costs[s][lists[s][pos[s]]] > budget * (1 + 1e-12):
                pos[s] += 1
            if pos[s] < len(lists[s]):
                spent += source_costs[s][lists[s][pos[s]]]
                chosen.append((s, lists[s][pos[s]]))
                pos[s] += 1
                progress = True
    return sorted(chosen)
