"""Slow, obviously correct references of the wrapper selectors, SKS, R2W2 and k-neighbour Relief-F.

Written from the texts (thesis sections 1.2.1, 3.5.3, 3.5.4, 4.2, 4.3; Weston et al. 2000 as the
thesis summarizes it), loop by loop; the tests compare the library with these on random inputs.
"""

from __future__ import annotations

import numpy as np


def sqdist(a, b, cols):
    return float(sum((a[c] - b[c]) ** 2 for c in cols))


def knn_order(X, i, cols):
    """Other instances by increasing distance to instance i on ``cols`` (ties: lower index first)."""
    cand = [(sqdist(X[i], X[j], cols), j) for j in range(X.shape[0]) if j != i]
    return [j for _, j in sorted(cand)]


# ------------------------------------------------------------------ soft k-NN criterion (eq. 4.1, 4.2)
def soft_knn_estimate(X, g, i, cols, k, beta):
    nb = knn_order(X, i, cols)[:k]
    num = sum(g[j] * np.exp(-sqdist(X[i], X[j], cols) / beta) for j in nb)
    den = sum(np.exp(-sqdist(X[i], X[j], cols) / beta) for j in nb)
    return num / den


def soft_knn_e(X, g, cols, k, beta):
    k = min(k, X.shape[0] - 1)
    return -0.5 * sum((g[i] - soft_knn_estimate(X, g, i, cols, k, beta)) ** 2 for i in range(X.shape[0]))


def sks(X, g, k, beta):
    return np.array([soft_knn_e(X, g, [f], k, beta) for f in range(X.shape[1])])


# ------------------------------------------------------------------ CV 1-NN accuracy
def cv_1nn_accuracy(X, codes, cols, fold):
    """Each instance classified by its nearest instance outside its own fold (lower index on ties)."""
    m = X.shape[0]
    correct = 0
    for i in range(m):
        best, bj = np.inf, -1
        for j in range(m):
            if fold[j] == fold[i]:
                continue
            d = sqdist(X[i], X[j], cols)
            if d < best:
                best, bj = d, j
        correct += int(codes[bj] == codes[i])
    return correct / m


# ------------------------------------------------------------------ forward / backward
def forward(e, n, n_select=None, tol=0.0):
    """Greedy forward selection with e(list of columns)."""
    F = []
    cur = e(F)
    limit = n if n_select is None else min(n_select, n)
    while len(F) < limit:
        vals = [(e([*F, f]), f) for f in range(n) if f not in F]
        best = max(v for v, _ in vals)
        f = min(f for v, f in vals if v == best)
        if n_select is None and not best > cur + tol:
            break
        F.append(f)
        cur = best
    return F


def backward(e, n, n_select=None, tol=0.0):
    """Greedy backward elimination; returns (remaining columns sorted, removal order)."""
    F = list(range(n))
    cur = e(F)
    target = 0 if n_select is None else min(n_select, n)
    removed = []
    while len(F) > target:
        vals = [(e([c for c in F if c != f]), f) for f in F]
        best = max(v for v, _ in vals)
        f = min(f for v, f in vals if v == best)
        if n_select is None and best < cur - tol:
            break
        F.remove(f)
        removed.append(f)
        cur = best
    return sorted(F), removed


# ------------------------------------------------------------------ Relief-F with k neighbours
def relieff_k(X, codes, queries, k):
    _m, n = X.shape
    classes = sorted(set(codes.tolist()))
    w = np.zeros(n)
    for i in queries:
        order = knn_order(X, i, range(n))
        near = {c: [j for j in order if codes[j] == c][:k] for c in classes}
        hits = near[codes[i]]
        misses = [c for c in classes if c != codes[i] and near[c]]
        if not hits or not misses:
            continue
        hit = np.mean([(X[i] - X[j]) ** 2 for j in hits], axis=0)
        miss = np.mean([np.mean([(X[i] - X[j]) ** 2 for j in near[c]], axis=0) for c in misses], axis=0)
        w += miss - hit
    return w


# ------------------------------------------------------------------ R2W2
def rbf_kernel(X, s, gamma, ridge):
    m = X.shape[0]
    K = np.zeros((m, m))
    for i in range(m):
        for j in range(m):
            K[i, j] = np.exp(-gamma * sum((s[f] * (X[i, f] - X[j, f])) ** 2 for f in range(X.shape[1])))
        K[i, i] += ridge
    return K


def svm_dual(K, y):
    """Hard-margin dual: max sum a - 1/2 sum a_i a_j y_i y_j K_ij, a >= 0, sum a_i y_i = 0 (SLSQP)."""
    from scipy.optimize import minimize

    Q = np.outer(y, y) * K
    m = K.shape[0]
    res = minimize(lambda a: 0.5 * a @ Q @ a - a.sum(), np.full(m, 0.1), jac=lambda a: Q @ a - 1.0,
                   bounds=[(0, None)] * m, constraints=[{"type": "eq", "fun": lambda a: a @ y, "jac": lambda a: y}],
                   method="SLSQP", options={"ftol": 1e-14, "maxiter": 2000})
    return res.x


def radius_qp(K):
    """max sum b_i K_ii - sum b_i b_j K_ij over the simplex (SLSQP)."""
    from scipy.optimize import minimize

    m = K.shape[0]
    dg = np.diag(K)
    res = minimize(lambda b: b @ K @ b - b @ dg, np.full(m, 1.0 / m), jac=lambda b: 2 * K @ b - dg,
                   bounds=[(0, None)] * m, constraints=[{"type": "eq", "fun": lambda b: b.sum() - 1.0}],
                   method="SLSQP", options={"ftol": 1e-15, "maxiter": 2000})
    return res.x


def r2w2_objective(X, y, s, gamma, ridge):
    """(R^2 W^2, gradient) with the gradient summed pair by pair (envelope theorem)."""
    K = rbf_kernel(X, s, gamma, ridge)
    a = svm_dual(K, y)
    b = radius_qp(K)
    # ||w||^2 = twice the dual optimum = 2 sum a - sum_ij a_i a_j y_i y_j K_ij
    W2 = 2 * a.sum() - sum(a[i] * a[j] * y[i] * y[j] * K[i, j] for i in range(len(y)) for j in range(len(y)))
    R2 = sum(b[i] * K[i, i] for i in range(len(y))) - b @ K @ b
    m, n = X.shape
    grad = np.zeros(n)
    for f in range(n):
        dW2 = dR2 = 0.0
        for i in range(m):
            for j in range(m):
                dK = -2 * gamma * s[f] * (X[i, f] - X[j, f]) ** 2 * (K[i, j] - (ridge if i == j else 0.0))
                dW2 -= a[i] * a[j] * y[i] * y[j] * dK
                dR2 -= b[i] * b[j] * dK
        grad[f] = R2 * dW2 + W2 * dR2
    return R2 * W2, grad, R2, W2


def r2w2(X, y, gamma, ridge, n_iter, eta):
    """The descent loop as documented: normalized step, undo and halve on no decrease."""
    s = np.ones(X.shape[1])
    val, grad, _, _ = r2w2_objective(X, y, s, gamma, ridge)
    steps = 0
    while steps < n_iter and eta >= 1e-4:
        s_new = np.maximum(s - eta * grad / np.abs(grad).max(), 0.0)
        v_new, g_new, _, _ = r2w2_objective(X, y, s_new, gamma, ridge)
        if v_new < val:
            s, val, grad = s_new, v_new, g_new
            steps += 1
        else:
            eta /= 2
    return s * s / (s * s).max()
