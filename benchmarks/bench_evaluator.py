"""The ``cv-linear-svm`` evaluator: speed and faithfulness of its settings.

Candidate sets are drawn the way searches draw them, at uniform random points of
the ``pixel-and`` meta-feature space (engine ``random``; budget 3000; half the sets
with ``oversample`` 1, half with 4), on 2000 MNIST training images (``--n-train``).  Every variant
scores every set; the reference is the evaluator as it was before the packed design
(``design="merge", tol=1e-3, complement=False``).  Printed per variant: evaluation time as a ratio
to the yardstick (one ``LinearSVC(C=0.1, dual=False)`` fit on 2000 x 784 raw
pixels, measured in the same condition), the Spearman correlation of its
qualities with the reference's, the largest difference, and in how many of the
groups of ``--per-group`` consecutive sets (one group = the sets a 50-step search
would compare) it picks the reference's best set.

    python benchmarks/bench_evaluator.py [--sets 100] [--n-train 2000] [--load idle|loaded|both]

With ``--n-train 8000`` the sets are drawn on 8000 images and the variants capped at
``max_train`` fit each fold on a subset (below 4000 images with two folds the cap changes nothing).
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
from _yardstick import DEFAULT_MNIST, competing, conditions, mnist, yardstick

VARIANTS = {  # every variant but the default names complement=False: that is how they were measured
    "reference (merge, tol 1e-3)": dict(design="merge", tol=1e-3, max_train=None, complement=False),
    "packed, tol 1e-3": dict(design="packed", tol=1e-3, max_train=None, complement=False),
    "packed, tol 0.05": dict(design="packed", tol=0.05, max_train=None, complement=False),
    "packed, tol 0.1": dict(design="packed", tol=0.1, max_train=None, complement=False),
    "packed, tol 0.3": dict(design="packed", tol=0.3, max_train=None, complement=False),
    "packed, tol 0.1, complement": dict(design="packed", tol=0.1, max_train=None, complement=True),
    "tol 0.1, max_train 2000": dict(complement=False),
    "tol 0.1, max_train 1000": dict(max_train=1000, complement=False),
    "default (tol 0.1, max_train 2000, complement 0.9)": dict(),
}
DEFAULT_VARIANTS = ["reference (merge, tol 1e-3)", "packed, tol 0.1", "packed, tol 0.1, complement",
                    "tol 0.1, max_train 2000", "default (tol 0.1, max_train 2000, complement 0.9)"]


def draw_sets(X, y, n_sets: int, seed: int):
    """``n_sets`` candidate sets (FeatureValues) drawn by the loop at uniform random points."""
    import metafx
    from metafx.default_plugins.svm_evaluator import CVLinearSVM

    sets = []

    class Recorder(CVLinearSVM):
        def evaluate(self, values, labels, *, random_state=None):
            sets.append((values, random_state))
            return 0.0

    half = n_sets // 2
    for k, (steps, oversample) in enumerate(((half, 1.0), (n_sets - half, 4.0))):
        metafx.search(X, y, budget=3000, steps=steps, engine="random", evaluator=Recorder(), seed=seed + k,
                      oversample=oversample, progress=False)
    return sets


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default=DEFAULT_MNIST)
    ap.add_argument("--sets", type=int, default=100)
    ap.add_argument("--per-group", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--load", default="idle", choices=["both", "idle", "loaded"])
    ap.add_argument("--n-train", type=int, default=2000)
    ap.add_argument("--variants", nargs="+", default=DEFAULT_VARIANTS, choices=list(VARIANTS))
    args = ap.parse_args(argv)
    from scipy.stats import spearmanr

    from metafx.core.validation import split_indices
    from metafx.default_plugins.svm_evaluator import CVLinearSVM

    X, y = mnist(args.data_dir)
    tr, _ = split_indices(len(y), args.n_train, 0, args.seed)
    Xtr, ytr = X[tr], y[tr]
    sets = draw_sets(Xtr, ytr, args.sets, args.seed)
    CVLinearSVM().evaluate(sets[0][0], ytr, random_state=sets[0][1])  # compile / load kernels
    names = list(args.variants)
    print(f"{len(sets)} candidate sets (budget 3000, {args.n_train} MNIST images, sizes "
          f"{min(v.n_features for v, _ in sets)}-{max(v.n_features for v, _ in sets)} features)")
    for label, n_comp in conditions(args.load):
        with competing(n_comp):
            yd = yardstick(X, y)
            q, secs = {}, {}
            for name in names:
                ev = CVLinearSVM(**VARIANTS[name])
                t = time.perf_counter()
                q[name] = np.array([ev.evaluate(v, ytr, random_state=rs) for v, rs in sets])
                secs[name] = time.perf_counter() - t
            yd = (yd + yardstick(X, y)) / 2
        ref = q[names[0]]
        g = args.per_group
        groups = [slice(i, i + g) for i in range(0, len(sets) - g + 1, g)]
        print(f"[{label}] yardstick {yd:.3f} s; per 50 sets = one default search's evaluations")
        print(f"  {'variant':<30}{'yardsticks/50 sets':>19}{'speed-up':>10}{'Spearman':>10}{'max |dq|':>10}"
              f"{'same best':>11}")
        for name in names:
            per50 = secs[name] / yd * 50 / len(sets)
            same = sum(int(np.argmax(ref[s]) == np.argmax(q[name][s])) for s in groups)
            rho = spearmanr(ref, q[name])[0]
            print(f"  {name:<30}{per50:19.1f}{secs[names[0]] / secs[name]:10.2f}{rho:10.4f}"
                  f"{np.abs(q[name] - ref).max():10.4f}{f'{same}/{len(groups)}':>11}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
