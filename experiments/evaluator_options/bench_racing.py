"""How many fold fits exact racing would save: a fold is skipped when no accuracy on it could make the step's
quality reach the best so far (the only comparison ``mufasa`` and ``random`` make).

A search runs with ``cv-linear-svm`` as it is (its qualities bit for bit: the evaluator below returns the mean of
``CVLinearSVM.fold_accuracies``, which is what ``evaluate`` returns) and records every fold's accuracy.  Then,
step by step, with ``b`` the best quality before the step and ``k`` folds: after the first ``t`` folds, the rest
are skipped when ``(sum of their accuracies + (k - t)) / k < b`` (an accuracy is at most 1).  Printed: the share of
fold fits skipped (of ``k`` per step) and the steps concerned.

    python experiments/evaluator_options/bench_racing.py [--partitions 100 101 102] [--engines mufasa random]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))  # the yardstick
from _yardstick import DEFAULT_MNIST, mnist


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default=DEFAULT_MNIST)
    ap.add_argument("--partitions", type=int, nargs="+", default=[100, 101, 102])
    ap.add_argument("--engines", nargs="+", default=["mufasa", "random"])
    ap.add_argument("--n-train", type=int, default=2000)
    ap.add_argument("--budget", type=float, default=3000)
    ap.add_argument("--steps", type=int, default=50)
    args = ap.parse_args(argv)

    import metafx
    from metafx.core.validation import split_indices
    from metafx.default_plugins.svm_evaluator import CVLinearSVM

    X, y = mnist(args.data_dir)
    print(f"{args.n_train} images, budget {args.budget:g}, {args.steps} steps, cv-linear-svm defaults (2 folds)")
    for engine in args.engines:
        shares = []
        for p in args.partitions:
            tr, _ = split_indices(len(y), args.n_train, 0, p)
            folds: list[list[float]] = []

            class Recording(CVLinearSVM):
                def evaluate(self, values, labels, *, random_state=None, _folds=folds):
                    accs = self.fold_accuracies(values, labels, random_state=random_state)
                    _folds.append(accs)
                    return float(np.mean(accs))

            res = metafx.search(X[tr], y[tr], engine=engine, budget=args.budget, steps=args.steps,
                                evaluator=Recording(), seed=p, progress=False)
            assert len(folds) == len(res.trajectory) and all(
                float(np.mean(a)) == r.quality for a, r in zip(folds, res.trajectory, strict=True))
            best, skipped, steps = -np.inf, 0, []
            for j, accs in enumerate(folds):
                k = len(accs)
                for t in range(1, k):
                    if (sum(accs[:t]) + (k - t)) / k < best:
                        skipped += k - t
                        steps.append(j + 1)
                        break
                best = max(best, float(np.mean(accs)))
            share = skipped / sum(len(a) for a in folds)
            shares.append(share)
            print(f"  {engine:8s} partition {p}: {100 * share:5.1f} % of fold fits skipped (steps {steps})")
        print(f"  {engine:8s} mean {100 * np.mean(shares):.1f} %")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
