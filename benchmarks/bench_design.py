"""Where the ``cv-linear-svm`` evaluator's own work goes (besides liblinear), over one default search's sets.

The sets a plain Mufasa search scores (MNIST, 2000 training images, budget 3000, 50 steps, seed 0) are
recorded; then, per search (summed over its sets, mean of ``--repeats``), the milliseconds spent finding the
duplicate groups, transposing their bits to the samples' words, writing each fold's training rows as CSR and
scoring each fold's test rows, next to liblinear's fits of the same folds.

    python benchmarks/bench_design.py [--repeats 3]
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings

from _yardstick import DEFAULT_MNIST, mnist


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default=DEFAULT_MNIST)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    import sklearn
    from sklearn.exceptions import ConvergenceWarning

    import metafx
    from metafx._kernels.design import rows_scores, transpose_bits
    from metafx.core.validation import split_indices
    from metafx.default_plugins.svm_evaluator import CVLinearSVM
    from metafx.learn.svm import grouped_bits, linear_svc, rows_design, stratified_folds

    X, y = mnist(args.data_dir)
    tr, _ = split_indices(len(y), 2000, 0, 0)
    Xt, yt = X[tr], y[tr]
    sets = []

    class Recorder(CVLinearSVM):
        def evaluate(self, values, labels, *, random_state=None):
            sets.append((values, random_state))
            return super().evaluate(values, labels, random_state=random_state)

    metafx.search(Xt, yt, budget=3000, steps=50, seed=0, evaluator=Recorder(), progress=False)
    parts = dict.fromkeys(("duplicate groups", "transpose", "training rows (CSR)", "test scores", "liblinear fits"), 0.0)
    with sklearn.config_context(assume_finite=True, skip_parameter_validation=True), warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for _ in range(args.repeats):
            for values, seed in sets:
                folds = stratified_folds(yt, 2, seed, 2000)
                t = time.perf_counter()
                bits, weights = grouped_bits(values)
                parts["duplicate groups"] += time.perf_counter() - t
                t = time.perf_counter()
                T = transpose_bits(bits, values.n_samples)
                parts["transpose"] += time.perf_counter() - t
                for a, b in folds:
                    t = time.perf_counter()
                    M = rows_design(T, weights, a)
                    parts["training rows (CSR)"] += time.perf_counter() - t
                    t = time.perf_counter()
                    model = linear_svc(0.1, M, tol=0.1, dual=True).fit(M, yt[a])
                    parts["liblinear fits"] += time.perf_counter() - t
                    t = time.perf_counter()
                    rows_scores(T, weights, model.coef_, b)
                    parts["test scores"] += time.perf_counter() - t
    print(f"{len(sets)} sets of one default search (2000 MNIST images, budget 3000); ms per search:")
    for k, v in parts.items():
        print(f"  {k:<22}{1e3 * v / args.repeats:8.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
