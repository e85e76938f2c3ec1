"""Prediction time of a result's final model: ``FeatureClassifier`` against the pipeline it replaces.

A search on ``--n-train`` MNIST training images (engine ``--engine``, budget ``--budget``,
``--steps`` steps) gives a feature set; its final model is fitted as
``metafx.holdout_error`` fits it (C by 3-fold CV).  On ``--n-test`` other images, timed in
the same run (median of ``--repeats``):

- transform: ``result.transform(X)``, the features alone (the dense 0/1 matrix);
- pipeline: the features as ``FeatureValues``, then ``fit_linear_svm``'s pipeline
  (uint8 -> CSR float -> merge of duplicate columns -> ``LinearSVC.predict``);
- FeatureClassifier: ``predict`` (the features once, then the folded weights).

Printed: seconds, ratios to transform, the pipeline / FeatureClassifier ratio, and
that both predict the same classes.

    python benchmarks/bench_classifier_predict.py [--budget 3000] [--steps 20] [--n-test 5000]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from _yardstick import DEFAULT_MNIST, mnist


def _median_time(fn, repeats: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeats):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return float(np.median(times)), out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default=DEFAULT_MNIST)
    ap.add_argument("--engine", default="mufasa")
    ap.add_argument("--budget", type=float, default=3000)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--n-train", type=int, default=2000)
    ap.add_argument("--n-test", type=int, default=5000)
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)

    import metafx
    from metafx.core.validation import split_indices
    from metafx.learn.classifier import FeatureClassifier
    from metafx.learn.svm import fit_linear_svm

    X, y = mnist(args.data_dir)
    tr, te = split_indices(len(y), args.n_train, args.n_test, args.seed)
    res = metafx.search(X[tr], y[tr], engine=args.engine, budget=args.budget, steps=args.steps, seed=args.seed,
                        progress=False)
    family, batch = res.feature_batch()
    values = family.compute(family.prepare(X[tr]), batch)
    n_groups = len(values.duplicate_groups()[2])
    clf = FeatureClassifier(res).fit(X[tr], y[tr])
    pipe = fit_linear_svm(values, y[tr], random_state=0)
    Xte = X[te]

    def old():
        return pipe.predict(family.compute(family.prepare(Xte), batch))

    t_tr, _ = _median_time(lambda: res.transform(Xte), args.repeats)
    t_old, p_old = _median_time(old, args.repeats)
    t_new, p_new = _median_time(lambda: clf.predict(Xte), args.repeats)
    print(f"{args.engine}, budget {args.budget:g}, {args.steps} steps, seed {args.seed}: {res.n_features} features "
          f"({n_groups} distinct on the training images), C {clf.C_:g}; predicting {len(te)} images")
    print(f"{'':20s} {'seconds':>9s} {'/ transform':>12s}")
    for name, t in (("transform", t_tr), ("pipeline", t_old), ("FeatureClassifier", t_new)):
        print(f"{name:20s} {t:9.4f} {t / t_tr:12.2f}")
    print(f"pipeline / FeatureClassifier: {t_old / t_new:.2f}; same predictions: {bool(np.array_equal(p_old, p_new))}"
          f"; test error {100 * np.mean(p_new != y[te]):.2f} %")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
