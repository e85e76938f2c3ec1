"""Slow, obviously correct references for the potential-function bounds and the compression tools.

Written from the texts (Teng, Chen & Dang 2011, eqs. 5, 10-16; Gottlieb, Kontorovich &
Nisnevitch 2014, Algorithm 1, section 1.1, Corollary 1), loops over points, no tricks.
"""

from __future__ import annotations

import math

import numpy as np


# ------------------------------------------------------------------ potential function rules
def psi_gaussian(a, b, sigma):
    return math.exp(-float(np.sum((np.asarray(a) - np.asarray(b)) ** 2)) / sigma ** 2)


def psi_sinc(a, b, s):
    v = (2 * s) ** len(a)
    for ai, bi in zip(a, b, strict=True):
        t = 2 * s * (ai - bi)
        v *= 1.0 if t == 0 else math.sin(math.pi * t) / (math.pi * t)
    return v


def loo_margins(X, y, psi):
    """gamma(x_i, z_i, S(i)) = phi_{z_i} - second largest phi, phi_k = (1/(l-1)) sum_{j != i, z_j = k} psi."""
    X = np.asarray(X, dtype=float)
    labels = sorted(set(y))
    ell = len(y)
    out = []
    for i in range(ell):
        phi = {k: 0.0 for k in labels}
        for j in range(ell):
            if j != i:
                phi[y[j]] += psi(X[i], X[j]) / (ell - 1)
        vals = sorted(phi.values())
        second = vals[-2] if len(vals) > 1 else 0.0
        out.append(phi[y[i]] - second)
    return np.array(out)


def theorem4(margins, alpha, delta):
    ell = len(margins)
    total = 0.0
    for g in margins:
        if g <= 0:
            total += 1.0
        elif g <= alpha:
            total += 1.0 - g / alpha
    return total / ell + 2.0 / (ell * alpha) + (1 + 4.0 / alpha) * math.sqrt(math.log(2 / delta) / (2 * ell))


def theorem3(gap, ell, K, s, d):
    return 2 * K * math.exp(-ell * gap ** 2 / (2 * (2 * s) ** (2 * d)))


# ------------------------------------------------------------------ sample compression
def dist(a, b, metric):
    d = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    return float(np.abs(d).sum()) if metric == "l1" else float(math.sqrt((d * d).sum()))


def brute_force_net(X, gamma, metric):
    """Algorithm 1: scan in index order, add p when d(p, net) >= gamma."""
    net = []
    for p in range(len(X)):
        if all(dist(X[p], X[q], metric) >= gamma for q in net):
            net.append(p)
    return net


def is_gamma_net(X, net, gamma, metric):
    """(packing) net points pairwise >= gamma apart; (covering) every point strictly within gamma of one."""
    for a in range(len(net)):
        for b in range(a + 1, len(net)):
            if dist(X[net[a]], X[net[b]], metric) < gamma:
                return False
    for p in range(len(X)):
        if not any(dist(X[p], X[q], metric) < gamma for q in net):
            return False
    return True


def min_vertex_cover_size(X, y, gamma, metric):
    """Size of a minimum vertex cover of the graph joining opposite labels closer than gamma (exhaustive)."""
    import itertools

    n = len(y)
    edges = [(i, j) for i in range(n) for j in range(i + 1, n)
             if y[i] != y[j] and dist(X[i], X[j], metric) < gamma]
    for size in range(n + 1):
        for C in itertools.combinations(range(n), size):
            c = set(C)
            if all(i in c or j in c for i, j in edges):
                return size
    return n


def corollary1(n, eps, gamma, ddim, delta):
    ell = math.ceil(1 / gamma) ** (ddim + 1)
    if ell >= n:
        return math.inf
    return eps * n / (n - ell) + math.sqrt((ell * math.log(n) + 2 * math.log(n) + math.log(1 / delta)) / (2 * (n - ell)))
