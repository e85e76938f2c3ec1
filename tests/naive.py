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
    for a, b in zip(x.tolist(), y.tolist(), strict=True):
        table[values.index(a), classes.index(b)] += 1
    table += pseudo_count
    P = table / table.sum()
    mi = 0.0
    for i in range(P.shape[0]):
        for j in range(P.shape[1]):
            if P[i, j] > 0:
                mi += P[i, j] * np.log(P[i, j] / (P[i, :].sum() * P[:, j].sum()))
    return max(mi, 0.0)


# ------------------------------------------------------------------ margins, Relief, Simba, G-flip, RGS
def weighted_sqdist(a: np.ndarray, b: np.ndarray, w2: np.ndarray) -> float:
    s = 0.0
    for f in range(a.shape[0]):
        s += w2[f] * (a[f] - b[f]) ** 2
    return s


def nearest_by_class(X, codes, n_classes, w2, queries):
    """For each query: index and squared distance of its nearest other instance in each class
    (-1 / inf when the class has no other member); ties -> lowest index."""
    idx = np.full((len(queries), n_classes), -1)
    dist = np.full((len(queries), n_classes), np.inf)
    for q, i in enumerate(queries):
        for j in range(X.shape[0]):
            if j == i:
                continue
            d = weighted_sqdist(X[i], X[j], w2)
            if d < dist[q, codes[j]]:
                dist[q, codes[j]] = d
                idx[q, codes[j]] = j
    return idx, dist


def hit_miss(X, codes, w2, i):
    """Nearest hit and nearest miss (any other class) of instance i: (hit, miss, d2_hit, d2_miss)."""
    hit, miss, dh, dm = -1, -1, np.inf, np.inf
    for j in range(X.shape[0]):
        if j == i:
            continue
        d = weighted_sqdist(X[i], X[j], w2)
        if codes[j] == codes[i] and d < dh:
            hit, dh = j, d
        if codes[j] != codes[i] and d < dm:
            miss, dm = j, d
    return hit, miss, dh, dm


def loo_margins(X, codes, w2):
    m = X.shape[0]
    theta = np.zeros(m)
    valid = np.zeros(m, dtype=bool)
    for i in range(m):
        h, mm, dh, dm = hit_miss(X, codes, w2, i)
        if h >= 0 and mm >= 0:
            valid[i] = True
            theta[i] = 0.5 * (np.sqrt(dm) - np.sqrt(dh))
    return theta, valid


def utility(theta, name, beta):
    theta = np.asarray(theta, dtype=float)
    if name == "linear":
        return theta
    if name == "zero-one":
        return (theta > 0).astype(float)
    return 1.0 / (1.0 + np.exp(-beta * theta))


def margin_evaluation(X, codes, w, name="linear", beta=1.0):
    """e(w) = sum_x u(theta_w(x)) (thesis eq. 3.2), leave-one-out, instances without hit or miss skipped."""
    theta, valid = loo_margins(X, codes, np.asarray(w, float) ** 2)
    return float(utility(theta[valid], name, beta).sum())


def relief(X, codes, queries):
    w = np.zeros(X.shape[1])
    for i in queries:
        h, mm, _, _ = hit_miss(X, codes, np.ones(X.shape[1]), i)
        if h >= 0 and mm >= 0:
            w += (X[i] - X[mm]) ** 2 - (X[i] - X[h]) ** 2
    return w


def relieff(X, codes, n_classes, queries):
    w = np.zeros(X.shape[1])
    idx, _ = nearest_by_class(X, codes, n_classes, np.ones(X.shape[1]), queries)
    for q, i in enumerate(queries):
        h = idx[q, codes[i]]
        misses = [idx[q, c] for c in range(n_classes) if c != codes[i] and idx[q, c] >= 0]
        if h < 0 or not misses:
            continue
        w += np.mean([(X[i] - X[j]) ** 2 for j in misses], axis=0) - (X[i] - X[h]) ** 2
    return w


def simba_delta(X, codes, w, i, name="linear", beta=1.0):
    """Delta of thesis Alg 2 step (c) for instance i (zero if it has no hit or miss)."""
    h, mm, dh, dm = hit_miss(X, codes, w ** 2, i)
    if h < 0 or mm < 0:
        return np.zeros(X.shape[1])
    nh, nm = np.sqrt(dh), np.sqrt(dm)
    theta = 0.5 * (nm - nh)
    if name == "linear":
        up = 1.0
    else:
        s = 1.0 / (1.0 + np.exp(-beta * theta))
        up = beta * s * (1 - s)
    t1 = (X[i] - X[mm]) ** 2 / nm if nm > 0 else np.zeros(X.shape[1])
    t2 = (X[i] - X[h]) ** 2 / nh if nh > 0 else np.zeros(X.shape[1])
    return 0.5 * up * (t1 - t2) * w


def simba_pass(X, codes, order, w, name="linear", beta=1.0):
    w = np.array(w, dtype=float)
    for i in order:
        w = w + simba_delta(X, codes, w, i, name, beta)
    return w


def gflip(X, codes, perms, name="linear", beta=1.0):
    """G-flip (thesis Alg 1) recomputing e(F) from scratch; perms[t] is the order of pass t.
    Returns (selected mask, e after each pass, number of passes run)."""
    n = X.shape[1]
    F = np.zeros(n, dtype=bool)
    history = []
    for order in perms:
        changed = False
        for f in order:
            plus, minus = F.copy(), F.copy()
            plus[f], minus[f] = True, False
            e1 = margin_evaluation(X, codes, plus.astype(float), name, beta)
            e2 = margin_evaluation(X, codes, minus.astype(float), name, beta)
            if e1 > e2 and not F[f]:
                F[f] = True
                changed = True
            elif e2 > e1 and F[f]:
                F[f] = False
                changed = True
        history.append(margin_evaluation(X, codes, F.astype(float), name, beta))
        if not changed:
            break
    return F, history


def soft_knn(X, g, w, k, beta, i):
    """ĝ_w(x_i) (thesis eq. 4.1, leave-one-out) and the neighbour indices."""
    d = np.array([weighted_sqdist(X[i], X[j], w ** 2) if j != i else np.inf for j in range(X.shape[0])])
    nb = np.argsort(d, kind="stable")[:k]
    e = np.exp(-d[nb] / beta)
    return float(np.sum(g[nb] * e) / np.sum(e)), nb


def rgs_value(X, g, w, k, beta):
    """e(w) = -1/2 sum_x (g(x) - ĝ_w(x))^2 (thesis eq. 4.2)."""
    return float(-0.5 * sum((g[i] - soft_knn(X, g, w, k, beta, i)[0]) ** 2 for i in range(X.shape[0])))


def rgs_sample_gradient(X, g, w, k, beta, i):
    """Corrected per-instance gradient of ALGORITHMS.md 5.2, written as the double sum over x', x''."""
    ghat, nb = soft_knn(X, g, w, k, beta, i)
    x = X[i]
    num = np.zeros(X.shape[1])
    den = 0.0
    for a in nb:
        for b in nb:
            da = weighted_sqdist(x, X[a], w ** 2)
            db = weighted_sqdist(x, X[b], w ** 2)
            aab = np.exp(-(da + db) / beta)
            num += g[b] * aab * w * ((x - X[a]) ** 2 - (x - X[b]) ** 2)
            den += aab
    dghat = (2.0 / beta) * num / den
    return (g[i] - ghat) * dghat


def rgs_pass(X, g, order, w, k, beta, eta):
    w = np.array(w, dtype=float)
    for t, i in enumerate(order):
        w = w + eta[t] * rgs_sample_gradient(X, g, w, k, beta, i)
    return w


# ------------------------------------------------------------------ nearest-neighbour classifiers, potentials
def nn_predict_index(A, B):
    """Index of the nearest row of A for each row of B (squared Euclidean; ties -> lowest index)."""
    out = []
    for b in B:
        d = [float(np.sum((a - b) ** 2)) for a in A]
        out.append(int(np.argmin(d)))
    return np.array(out, dtype=int)


def loo_1nn_correct(X, codes):
    m = X.shape[0]
    ok = np.zeros(m, dtype=bool)
    for i in range(m):
        d = [float(np.sum((X[i] - X[j]) ** 2)) if j != i else np.inf for j in range(m)]
        if m > 1:
            ok[i] = codes[int(np.argmin(d))] == codes[i]
    return ok


def gamma_net(X, gamma2):
    """Algorithm 1 of the compression paper, rows scanned in index order (squared distances vs gamma^2)."""
    net = []
    for p in range(X.shape[0]):
        if all(weighted_sqdist(X[p], X[j], np.ones(X.shape[1])) >= gamma2 for j in net):
            net.append(p)
    return net


def prune(X, codes, net, radii, gamma):
    """Algorithm 2 of the compression paper; returns the kept net indices (in net order)."""
    alive = {p: True for p in net}
    for r in radii:
        for p in net:
            if not alive[p]:
                continue
            if any(alive[o] and codes[o] != codes[p] and np.linalg.norm(X[p] - X[o]) < 2 * r for o in net):
                continue
            for q in net:
                if q != p and alive[q] and np.linalg.norm(X[p] - X[q]) < r - gamma:
                    alive[q] = False
    return [p for p in net if alive[p]]


def class_potentials(A, codes, n_classes, x, sigma, exclude=None):
    """phi_k(x) = (1/|S|) sum_{i: z_i = k} exp(-||x - x_i||^2 / sigma^2) (S without `exclude`)."""
    phi = np.zeros(n_classes)
    idx = [i for i in range(A.shape[0]) if i != exclude]
    for i in idx:
        phi[codes[i]] += np.exp(-np.sum((x - A[i]) ** 2) / sigma ** 2)
    return phi / len(idx)


def potential_h(X, codes, n_classes, sigma):
    """h = var - mean of the leave-one-out normalized margins (Teng et al. eq. 17)."""
    gams = []
    for i in range(X.shape[0]):
        phi = class_potentials(X, codes, n_classes, X[i], sigma, exclude=i)
        tot = np.sum(np.abs(phi))
        if tot == 0:
            gams.append(0.0)
            continue
        ph = phi / tot
        second = sorted(ph)[-2] if n_classes >= 2 else 0.0
        gams.append(ph[codes[i]] - second)
    gams = np.array(gams)
    return float(np.var(gams, ddof=1) - np.mean(gams)), gams


def weighted_knn_vote(A, codes, n_classes, B, W, k):
    out = []
    for q in range(B.shape[0]):
        d = np.array([np.sum(W[q] * (B[q] - a) ** 2) for a in A])
        nb = np.argsort(d, kind="stable")[:k]
        votes = np.zeros(n_classes)
        first = np.full(n_classes, np.inf)
        for rank, j in enumerate(nb):
            votes[codes[j]] += 1
            first[codes[j]] = min(first[codes[j]], rank)
        best = max(range(n_classes), key=lambda c: (votes[c], -first[c]))
        out.append(best)
    return np.array(out)


# ------------------------------------------------------------------ design from packed bits
def packed_to_dense_columns(packed: np.ndarray, weights: np.ndarray, m: int) -> np.ndarray:
    """The ``(m, n_columns)`` matrix whose column ``g`` is ``weights[g]`` times bit ``i`` of packed row ``g``."""
    out = np.zeros((m, packed.shape[0]))
    for g in range(packed.shape[0]):
        for i in range(m):
            if (int(packed[g, i // 64]) >> (i % 64)) & 1:
                out[i, g] = weights[g]
    return out


def merged_design(X: np.ndarray) -> np.ndarray:
    """Duplicate columns of a 0/1 matrix merged: one column per distinct column (in order of first
    appearance), ``sqrt(count)`` times its values (the merged design of metafx.learn.svm)."""
    cols, counts = [], []
    for j in range(X.shape[1]):
        for g, c in enumerate(cols):
            if np.array_equal(c, X[:, j]):
                counts[g] += 1
                break
        else:
            cols.append(X[:, j].copy())
            counts.append(1)
    if not cols:
        return np.zeros((X.shape[0], 0))
    return np.column_stack([np.sqrt(k) * c.astype(np.float64) for c, k in zip(cols, counts, strict=True)])


def sequential_scores(X, W):
    """``X @ W.T`` with Python floats: each entry ``W[c, j] * X[i, j]`` added in increasing ``j`` from 0.0."""
    out = np.empty((len(X), len(W)))
    for i in range(len(X)):
        for c in range(len(W)):
            s = 0.0
            for j in range(X.shape[1]):
                s = s + float(W[c, j]) * float(X[i, j])
            out[i, c] = s
    return out


# ------------------------------------------------------------------ metrics, Relief sums, planes (public kernels named
# by no other test: tests/test_public_kernel_twins.py)
def metric(a, b, l1: bool) -> float:
    """L1 or Euclidean distance of two rows."""
    d = np.asarray(a, float) - np.asarray(b, float)
    return float(np.abs(d).sum()) if l1 else float(np.sqrt((d * d).sum()))


def cross_metric(A, B, l1: bool) -> np.ndarray:
    return np.array([[metric(a, b, l1) for b in B] for a in A]).reshape(len(A), len(B))


def nn_metric(A, B, l1: bool):
    """Nearest row of A (lowest index on ties) to each row of B: (index, distance); (-1, inf) when A is empty."""
    idx, dist = np.full(len(B), -1), np.full(len(B), np.inf)
    for q, b in enumerate(B):
        for j, a in enumerate(A):
            d = metric(a, b, l1)
            if d < dist[q]:
                idx[q], dist[q] = j, d
    return idx, dist


def knn_mean_sqdist(X, k: int) -> float:
    """Mean over the points of the squared distances to their k nearest other points."""
    total = 0.0
    for i in range(len(X)):
        d = sorted(float(np.sum((X[i] - X[j]) ** 2)) for j in range(len(X)) if j != i)
        total += sum(d[:k])
    return total / (len(X) * k)


def normalized_potentials(A, codes, n_classes, B, sigma, loo: bool = False) -> np.ndarray:
    """Each row of B: its class potentials divided by their sum (zeros without any training point)."""
    out = np.zeros((len(B), n_classes))
    for q, x in enumerate(B):
        keep = [i for i in range(len(A)) if not (loo and i == q)]
        if not keep:
            continue
        phi = class_potentials(A[keep], np.asarray(codes)[keep], n_classes, x, sigma)
        out[q] = phi / phi.sum()
    return out


def relief_from(X, queries, hit, miss) -> np.ndarray:
    """Relief's sum over the queries given their nearest hit and miss (-1: the query is skipped)."""
    w = np.zeros(X.shape[1])
    for i, h, mm in zip(queries, hit, miss, strict=True):
        if h >= 0 and mm >= 0:
            w += (X[i] - X[mm]) ** 2 - (X[i] - X[h]) ** 2
    return w


def relieff_from(X, codes, queries, idx) -> np.ndarray:
    """Relief-F's sum given each query's nearest instance of every class (``idx[q, c]``, -1: none)."""
    w = np.zeros(X.shape[1])
    for q, i in enumerate(queries):
        h = idx[q, codes[i]]
        misses = [idx[q, c] for c in range(idx.shape[1]) if c != codes[i] and idx[q, c] >= 0]
        if h < 0 or not misses:
            continue
        w += np.mean([(X[i] - X[j]) ** 2 for j in misses], axis=0) - (X[i] - X[h]) ** 2
    return w


def planes(images, pad: int) -> np.ndarray:
    """The positive and negative bit planes of binary images (m, H, W) padded by ``pad`` zero rows and columns."""
    m, h, w = images.shape
    padded = np.zeros((m, h + pad, w + pad), dtype=np.uint8)
    padded[:, :h, :w] = images
    flat = padded.reshape(m, -1)
    return np.stack([pack_columns(flat), pack_columns(1 - flat)])
