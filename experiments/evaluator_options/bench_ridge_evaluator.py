"""A closed-form ridge evaluator (``CVRidge`` below) against ``cv-linear-svm``: cost and ranking.

``CVRidge`` is checked first against scikit-learn's ``RidgeClassifier`` on the merged design of one set.

On ``--n-train`` MNIST training images of a development partition (``--partition``, default 100):

1. a plain Mufasa search (budget 3000, 50 steps) with each evaluator, its wall time in
   yardsticks (``_yardstick.py``, the same run);
2. ``--sets`` candidate sets drawn at uniform random points (``bench_evaluator.draw_sets``), each
   scored by both evaluators: time per set for each, the Spearman correlation of the qualities
   and in how many groups of ``--per-group`` sets both pick the same best set.

    python experiments/evaluator_options/bench_ridge_evaluator.py [--partition 100] [--sets 40] [--alpha 10]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import scipy.linalg

from metafx.core.base import SetEvaluator
from metafx.core.validation import check_int, check_labels, check_number
from metafx.core.values import unpack_packed
from metafx.learn.svm import as_values, grouped_bits, majority_accuracy, stratified_folds

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))  # the yardstick and the sets' draw
from _yardstick import DEFAULT_MNIST, mnist, yardstick
from bench_evaluator import draw_sets


class CVRidge(SetEvaluator):
    """Mean accuracy of a one-vs-rest ridge classifier over stratified k folds (default 2).

    The classifier of each fold solves, for the ``+1/-1`` indicator ``Y`` of every class,
    ``min ||Y - D W - 1 b||^2 + alpha ||W||^2`` (an unpenalized intercept ``b``) on the fold's
    training rows ``D`` and predicts the class of largest score, as scikit-learn's
    ``RidgeClassifier``.  The solution is closed form: the Gram matrix of the centred design
    (integer counts of co-occurring bits, from a float32 product, exact below 2**24 samples),
    one Cholesky factorization and a solve for all classes at once; no iterations.  Features
    equal on every sample are merged first (one column ``sqrt(k)`` times the group's values:
    exact for an L2 penalty, see :func:`~metafx.learn.svm.merge_matrix`).  Folds and the cap
    ``max_train`` on each fold's training rows are those of ``cv-linear-svm``.

    Kept in this benchmark only: it is not cheaper than ``cv-linear-svm`` on MNIST sets (the
    Gram product and the Cholesky factorization of 900 columns cost more than liblinear's dual
    on 1000 x 900 sparse rows), so metafx does not offer it.

    This is another quality measure than ``cv-linear-svm`` (squared loss, not the squared
    hinge): a search with it may take other paths.  Non-binary feature values are used as
    they are (float64).  An empty feature set scores the accuracy of predicting the training
    majority class.
    """

    name = "cv-ridge"
    summary = "k-fold (default 2) stratified CV accuracy of a one-vs-rest ridge classifier (closed form)"

    def __init__(self, n_splits: int = 2, alpha: float = 10.0, max_train: int | None = 2000) -> None:
        self.n_splits = n_splits
        self.alpha = alpha
        self.max_train = max_train

    def check_params(self) -> None:
        check_int("n_splits", self.n_splits, 2)
        check_number("alpha", self.alpha, low=0, strict=True)
        check_int("max_train", self.max_train, 2, allow_none=True)

    def evaluate(self, X, y, *, random_state=None) -> float:
        values = as_values(X)
        y = check_labels(y, values.n_samples, continuous_ok=False)
        folds = stratified_folds(y, self.n_splits, random_state, self.max_train)
        if values.n_features == 0:
            return float(np.mean([majority_accuracy(y[tr], y[te]) for tr, te in folds]))
        if values.packed is not None:
            bits, weights = grouped_bits(values)
            D = unpack_packed(bits, values.n_samples).astype(np.float32)  # 0/1: products of counts are exact
        else:
            D, weights = values.dense(np.float64), np.ones(values.n_features)
        classes, codes = np.unique(y, return_inverse=True)
        Y = np.full((len(y), len(classes)), -1.0)
        Y[np.arange(len(y)), codes] = 1.0
        accs = []
        for tr, te in folds:
            scores = ridge_scores(D[tr], weights, Y[tr], D[te], float(self.alpha))
            accs.append(float(np.mean(scores.argmax(axis=1) == codes[te])))
        return float(np.mean(accs))


def ridge_scores(A: np.ndarray, weights: np.ndarray, Y: np.ndarray, B: np.ndarray, alpha: float) -> np.ndarray:
    """Scores on the rows ``B`` of the ridge fit of ``Y`` on the rows ``A`` (columns scaled by
    ``weights``; an unpenalized intercept): ``(B w) W + b`` with
    ``W = (Ac' Ac + alpha I)^-1 Ac' (Y - mean Y)``, ``Ac`` the centred ``A w``."""
    n = A.shape[0]
    G = np.asarray(A.T @ A, dtype=np.float64)  # counts (exact in float32 for 0/1 columns) or products
    s = np.asarray(A.sum(axis=0, dtype=np.float64))
    mu = s / n
    Ym = Y.mean(axis=0)
    # centred and weighted: Ac' Ac = w (G - n mu mu') w;  Ac' (Y - Ym) = w (A' Y - s Ym')
    G -= np.outer(s, mu)
    G *= np.outer(weights, weights)
    G[np.diag_indices_from(G)] += alpha
    R = (np.asarray(A.T @ Y.astype(A.dtype), dtype=np.float64) - np.outer(s, Ym)) * weights[:, None]
    W = scipy.linalg.cho_solve(scipy.linalg.cho_factor(G, lower=True, check_finite=False), R, check_finite=False)
    W *= weights[:, None]  # weights of the raw (unscaled) columns
    b = Ym - mu @ W
    return np.asarray(B, dtype=np.float64) @ W + b


def check_against_sklearn(values, y, alpha: float, random_state: int) -> None:
    """``CVRidge`` equals scikit-learn's ``RidgeClassifier`` fold by fold on the merged design of ``values``."""
    from sklearn.linear_model import RidgeClassifier

    from metafx.learn.svm import design_matrix, merge_matrix

    M = design_matrix(values, merge_matrix(values))
    D = M.toarray() if hasattr(M, "toarray") else np.asarray(M)
    accs = [np.mean(RidgeClassifier(alpha=alpha).fit(D[tr], y[tr]).predict(D[te]) == y[te])
            for tr, te in stratified_folds(y, 2, random_state, 2000)]
    q = CVRidge(alpha=alpha).evaluate(values, y, random_state=random_state)
    assert abs(q - float(np.mean(accs))) < 1e-12, (q, np.mean(accs))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default=DEFAULT_MNIST)
    ap.add_argument("--partition", type=int, default=100)
    ap.add_argument("--n-train", type=int, default=2000)
    ap.add_argument("--sets", type=int, default=40)
    ap.add_argument("--per-group", type=int, default=10)
    ap.add_argument("--alpha", type=float, default=10.0)
    ap.add_argument("--steps", type=int, default=50)
    args = ap.parse_args(argv)
    from scipy.stats import spearmanr

    import metafx
    from metafx.core.validation import split_indices
    from metafx.default_plugins.svm_evaluator import CVLinearSVM

    X, y = mnist(args.data_dir)
    tr, _ = split_indices(len(y), args.n_train, 0, args.partition)
    Xtr, ytr = X[tr], y[tr]
    ys = yardstick(X, y)
    print(f"partition {args.partition}, {args.n_train} images; yardstick {ys:.3f} s")
    for name, ev in (("cv-linear-svm", "cv-linear-svm"), ("cv-ridge", CVRidge(alpha=args.alpha))):
        t = time.perf_counter()
        res = metafx.search(Xtr, ytr, budget=3000, steps=args.steps, evaluator=ev, seed=args.partition,
                            progress=False)
        s = time.perf_counter() - t
        print(f"  mufasa with {name:14s} {s / ys:6.1f} yardsticks ({s:.2f} s), best quality {res.best_quality:.4f}, "
              f"{res.n_features} features")
    sets = draw_sets(Xtr, ytr, args.sets, args.partition)
    check_against_sklearn(sets[0][0], ytr, args.alpha, sets[0][1])
    q = {}
    for ev in (CVLinearSVM(), CVRidge(alpha=args.alpha)):
        t = time.perf_counter()
        q[ev.name] = np.array([ev.evaluate(v, ytr, random_state=rs) for v, rs in sets])
        print(f"  {ev.name:14s} {(time.perf_counter() - t) / len(sets) / ys:6.3f} yardsticks per set")
    a, b = q["cv-linear-svm"], q["cv-ridge"]
    groups = range(0, len(sets) - args.per_group + 1, args.per_group)
    same = sum(int(np.argmax(a[i:i + args.per_group]) == np.argmax(b[i:i + args.per_group])) for i in groups)
    print(f"  Spearman {spearmanr(a, b).statistic:.4f}; same best set in {same} of {len(groups)} groups; "
          f"mean quality svm {a.mean():.4f}, ridge {b.mean():.4f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
