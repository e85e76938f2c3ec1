"""Plain Mufasa with cheaper settings of ``cv-linear-svm`` on development partitions: time and test error.

For each partition (``--partitions``, default the development partitions 100-109: 2000 training and
2000 test images drawn from MNIST's training set with the partition as split seed; partitions of one
10,000-image pool overlap) and each evaluator setting (``--variants``), a plain Mufasa search (budget
3000, 50 steps, seed = partition) runs, timed in yardsticks (``_yardstick.py``: one LinearSVC fit on
2000 x 784 raw pixels, measured before each partition); its result's test error is that of
``FeatureClassifier`` (a linear SVM on the features, C by 3-fold CV on the training part), the same
final model for every setting.  A screen, not a decision: no default changes on it.

    python experiments/evaluator_options/bench_evaluator_options_dev.py [--partitions 100 ... 109] [--variants default c05 tol03 c05tol03]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))  # the yardstick
from _yardstick import DEFAULT_MNIST, mnist, yardstick

VARIANTS = {
    "default": {},
    "c05": {"complement": 0.5},
    "tol03": {"tol": 0.3},
    "c05tol03": {"complement": 0.5, "tol": 0.3},
}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default=DEFAULT_MNIST)
    ap.add_argument("--partitions", type=int, nargs="+", default=list(range(100, 110)))
    ap.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=list(VARIANTS))
    ap.add_argument("--budget", type=float, default=3000)
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--out", default=None, help="append one JSON line per run to this file")
    args = ap.parse_args(argv)

    import metafx
    from metafx.core.validation import split_indices

    X, y = mnist(args.data_dir)
    rows: dict[str, list[tuple[float, float]]] = {v: [] for v in args.variants}
    for p in args.partitions:
        tr, te = split_indices(len(y), 2000, 2000, p)
        ys = yardstick(X, y)
        for v in args.variants:
            t = time.perf_counter()
            res = metafx.search(X[tr], y[tr], budget=args.budget, steps=args.steps, seed=p,
                                evaluator_params=VARIANTS[v], progress=False)
            s = time.perf_counter() - t
            clf = res.fit_classifier(X[tr], y[tr], random_state=p)
            err = float(np.mean(clf.predict(X[te]) != y[te]))
            rows[v].append((s / ys, err))
            rec = {"partition": p, "variant": v, "yardsticks": s / ys, "seconds": s, "yardstick": ys,
                   "test_error": err, "cv_quality": res.best_quality, "n_features": res.n_features}
            print(json.dumps(rec), flush=True)
            if args.out:
                with open(args.out, "a") as fh:
                    fh.write(json.dumps(rec) + "\n")
    print(f"{'variant':10s} {'yardsticks (median)':>20s} {'test error % (mean +- sd)':>26s} {'vs default':>11s}")
    base = np.array([e for _, e in rows.get("default", [])])
    for v in args.variants:
        t = np.array([a for a, _ in rows[v]])
        e = np.array([b for _, b in rows[v]])
        d = f"{100 * np.mean(e - base):+.2f}" if len(base) == len(e) and v != "default" else ""
        print(f"{v:10s} {np.median(t):20.1f} {100 * e.mean():19.2f} +- {100 * e.std(ddof=1) if len(e) > 1 else 0:.2f}"
              f" {d:>11s}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
