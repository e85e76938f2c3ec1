"""A joint one-vs-rest dual coordinate descent (numba, below) against liblinear on cv-linear-svm's fold designs.

The solver minimizes LinearSVC's objective (squared hinge, L2, the bias a feature of value 1, ``dual=True``) by
dual coordinate descent with shrinking (Hsieh et al. 2008), the classes' problems solved in one pass over each
sample's features, one shared random order per epoch.  Checked first: at ``tol=1e-8`` its coefficients equal
``LinearSVC``'s to 1e-8 on a random sparse problem (2 and 4 classes).  Then, on the first fold of the sets drawn
at ``--sets`` steps of plain Mufasa on a development partition, per set: liblinear's time (``LiblinearOvR``, the
evaluator's own), the joint solver's cold, and warm-started from the previous set's dual variables (they are per
sample, so they carry over between feature sets), with epochs and test-fold accuracy.

    python benchmarks/bench_dual_cd.py [--partition 101] [--sets 8]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numba
import numpy as np
from _yardstick import DEFAULT_MNIST, mnist


@numba.njit(cache=True)
def _solve(indptr, indices, data, Y, C, tol, max_iter, seed, W, alpha):
    n = indptr.shape[0] - 1
    P = Y.shape[1]
    g = W.shape[0] - 1  # the bias is row g
    diag = 0.5 / C
    QD = np.empty(n)
    for i in range(n):
        s = 1.0 + diag
        for p in range(indptr[i], indptr[i + 1]):
            s += data[p] * data[p]
        QD[i] = s
    for i in range(n):  # w of the starting alphas
        for c in range(P):
            a = alpha[i, c] * Y[i, c]
            if a != 0.0:
                for p in range(indptr[i], indptr[i + 1]):
                    W[indices[p], c] += a * data[p]
                W[g, c] += a
    active = np.ones((n, P), dtype=np.bool_)
    n_active = np.full(P, n, dtype=np.int64)
    done = np.zeros(P, dtype=np.bool_)
    pg_max_old = np.full(P, np.inf)
    pg_min_old = np.full(P, -np.inf)
    pg_max_new = np.empty(P)
    pg_min_new = np.empty(P)
    dots = np.empty(P)
    delta = np.empty(P)
    ac = np.empty(P, dtype=np.int64)
    mc = np.empty(P, dtype=np.int64)
    order = np.arange(n)
    np.random.seed(seed)
    it = 0
    n_done = 0
    while it < max_iter and n_done < P:
        for s in range(n - 1, 0, -1):
            r = np.random.randint(0, s + 1)
            order[s], order[r] = order[r], order[s]
        pg_max_new[:] = -np.inf
        pg_min_new[:] = np.inf
        for s in range(n):
            i = order[s]
            na = 0
            for c in range(P):
                if not done[c] and active[i, c]:
                    ac[na] = c
                    na += 1
            if na == 0:
                continue
            for t in range(na):
                dots[ac[t]] = W[g, ac[t]]
            for p in range(indptr[i], indptr[i + 1]):
                j = indices[p]
                v = data[p]
                for t in range(na):
                    dots[ac[t]] += W[j, ac[t]] * v
            nm = 0
            for t in range(na):
                c = ac[t]
                a = alpha[i, c]
                G = Y[i, c] * dots[c] - 1.0 + a * diag
                PG = 0.0
                if a == 0.0:
                    if G > pg_max_old[c]:
                        active[i, c] = False
                        n_active[c] -= 1
                        continue
                    elif G < 0.0:
                        PG = G
                else:
                    PG = G
                pg_max_new[c] = max(pg_max_new[c], PG)
                pg_min_new[c] = min(pg_min_new[c], PG)
                if abs(PG) > 1e-12:
                    new = max(a - G / QD[i], 0.0)
                    alpha[i, c] = new
                    mc[nm] = c
                    delta[nm] = (new - a) * Y[i, c]
                    nm += 1
            if nm:
                for p in range(indptr[i], indptr[i + 1]):
                    j = indices[p]
                    v = data[p]
                    for t in range(nm):
                        W[j, mc[t]] += delta[t] * v
                for t in range(nm):
                    W[g, mc[t]] += delta[t]
        it += 1
        for c in range(P):
            if done[c]:
                continue
            if pg_max_new[c] - pg_min_new[c] <= tol:
                if n_active[c] == n:
                    done[c] = True
                    n_done += 1
                else:
                    for i in range(n):
                        active[i, c] = True
                    n_active[c] = n
                    pg_max_old[c] = np.inf
                    pg_min_old[c] = -np.inf
            else:
                pg_max_old[c] = pg_max_new[c] if pg_max_new[c] > 0.0 else np.inf
                pg_min_old[c] = pg_min_new[c] if pg_min_new[c] < 0.0 else -np.inf
    return it


def dual_cd_ovr(M, codes, n_classes, C, tol, max_iter, seed=0, alpha=None):
    """``(coef, intercept, epochs, alpha)`` on CSR ``M``; two classes: one problem, positive for class 1."""
    P = 1 if n_classes == 2 else n_classes
    Y = np.where(codes == 1, 1.0, -1.0)[:, None] if P == 1 else np.where(
        codes[:, None] == np.arange(P)[None, :], 1.0, -1.0)
    W = np.zeros((M.shape[1] + 1, P))
    alpha = np.zeros((len(codes), P)) if alpha is None else np.array(alpha, dtype=np.float64)
    ep = _solve(M.indptr.astype(np.int64), M.indices.astype(np.int64), M.data.astype(np.float64), Y, float(C),
                float(tol), int(max_iter), int(seed), W, alpha)
    return np.ascontiguousarray(W[:-1].T), W[-1].copy(), int(ep), alpha


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default=DEFAULT_MNIST)
    ap.add_argument("--partition", type=int, default=101)
    ap.add_argument("--sets", type=int, default=8)
    args = ap.parse_args(argv)
    import scipy.sparse as sp
    from sklearn.svm import LinearSVC

    import metafx
    from metafx._kernels.design import rows_scores, transpose_bits
    from metafx.core.validation import split_indices
    from metafx.default_plugins.svm_evaluator import CVLinearSVM
    from metafx.learn.svm import LiblinearOvR, complement_dense, grouped_bits, rows_design, stratified_folds

    warnings.simplefilter("ignore")
    rng = np.random.default_rng(0)
    S = sp.random(301, 57, density=0.2, random_state=1, format="csr")
    S.data[:] = 1.0
    for k in (2, 4):
        yk = rng.integers(0, k, 301)
        ref = LinearSVC(C=0.3, tol=1e-8, max_iter=100000, dual=True).fit(S, yk)
        coef, b, _, _ = dual_cd_ovr(S, yk, k, 0.3, 1e-8, 100000)
        assert np.abs(coef - ref.coef_).max() < 1e-8 and np.abs(b - ref.intercept_).max() < 1e-8
    print("checked: equal to LinearSVC at tol 1e-8 (2 and 4 classes)")

    X, y = mnist(args.data_dir)
    tr, _ = split_indices(len(y), 2000, 0, args.partition)
    Xt, yt = X[tr], y[tr]
    sets = []

    class Recorder(CVLinearSVM):
        def evaluate(self, values, labels, *, random_state=None):
            sets.append((values, random_state))
            return super().evaluate(values, labels, random_state=random_state)

    metafx.search(Xt, yt, budget=3000, steps=args.sets, evaluator=Recorder(), seed=args.partition, progress=False)
    ev = CVLinearSVM()
    totals = np.zeros(3)
    prev = None
    print(f"{'groups':>6s} {'liblinear s':>11s} {'cold s':>7s} {'ep':>3s} {'warm s':>7s} {'ep':>3s}  accuracy (ll / cold / warm)")
    for n, (values, rs) in enumerate(sets):
        f, te = stratified_folds(yt, ev.n_splits, rs, ev.max_train)[0]
        bits, w = grouped_bits(values)
        T = transpose_bits(complement_dense(bits, values.n_samples, ev.complement), values.n_samples)
        M = rows_design(T, w, f)
        codes = yt[f]
        if n == 0:
            dual_cd_ovr(M, codes, 10, ev.C, ev.tol, ev.max_iter)  # compile
        t0 = time.perf_counter()
        c0, b0 = LiblinearOvR(codes, ev.C, ev.tol, ev.max_iter).fit(M)
        t1 = time.perf_counter()
        c1, b1, e1, alpha = dual_cd_ovr(M, codes, 10, ev.C, ev.tol, ev.max_iter)
        t2 = time.perf_counter()
        c2, b2, e2, _ = dual_cd_ovr(M, codes, 10, ev.C, ev.tol, ev.max_iter, alpha=prev) if prev is not None \
            else (c1, b1, e1, None)
        t3 = time.perf_counter()
        prev = alpha
        acc = [np.mean(np.argmax(rows_scores(T, w, c, te) + b, 1) == yt[te]) for c, b in ((c0, b0), (c1, b1), (c2, b2))]
        times = np.array([t1 - t0, t2 - t1, t3 - t2 if n else t2 - t1])
        totals += times
        print(f"{M.shape[1]:6d} {times[0]:11.3f} {times[1]:7.3f} {e1:3d} {times[2]:7.3f} {e2:3d}  "
              f"{acc[0]:.4f} / {acc[1]:.4f} / {acc[2]:.4f}")
    print(f"total: joint cold / liblinear {totals[1] / totals[0]:.2f}, joint warm / liblinear {totals[2] / totals[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
