"""The measurements behind the default budget and number of steps (docs/design.md).

A plain Mufasa search (cv-linear-svm quality) on 1000 of scikit-learn's digits
(binarized), tested with the CLI's final linear SVM on the other 797, for a few
(budget, steps) settings and seeds: mean test error and wall seconds per search.

    python experiments/defaults/bench_defaults.py [--seeds 0 1 2] [--settings 100:20 500:20 500:50 1000:50]
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    ap.add_argument("--settings", nargs="+", default=["100:20", "500:20", "500:50", "1000:50"],
                    help="budget:steps pairs")
    args = ap.parse_args(argv)
    import metafx
    from metafx.analysis.evaluation import holdout_error

    X, y = metafx.load_dataset("digits")
    idx = np.random.default_rng(0).permutation(len(y))
    tr, te = idx[:1000], idx[1000:]
    metafx.search(X[tr], y[tr], budget=20, steps=1, progress=False)  # compile the kernels first
    for setting in args.settings:
        budget, steps = (float(v) for v in setting.split(":"))
        errs, secs = [], []
        for seed in args.seeds:
            t = time.perf_counter()
            r = metafx.search(X[tr], y[tr], budget=budget, steps=int(steps), seed=seed, progress=False)
            secs.append(time.perf_counter() - t)
            errs.append(holdout_error(r, X[tr], y[tr], X[te], y[te], C="cv", random_state=seed)[0])
        print(f"budget {budget:g}, {int(steps)} steps: test error {100 * np.mean(errs):.2f} % "
              f"(seeds {args.seeds}: {[round(100 * e, 2) for e in errs]}), {np.mean(secs):.1f} s per search",
              flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
