"""Time of a point's set in the ``guided`` engine with and without ``feature_map`` (the quality map at
feature level), on one MNIST partition's training images, and the time of the infogain scoring that
``feature_map`` repeats (the first half of the pool is scored to fit the map, then the whole pool is
scored for the ranking).  Ratios are within one run; best of ``--repeats``.

    python benchmarks/bench_feature_map_draw.py --partition 100 --budget 12000 --point 6,40,5,1.7
"""

from __future__ import annotations

import argparse
import time
from functools import partial

import numpy as np

import metafx
from metafx.core.validation import split_indices
from metafx.default_plugins.guided import GuidedSearch
from metafx.loop.components import make_component
from metafx.loop.problem import SearchProblem


def best_of(fn, repeats):
    fn()  # compile / warm caches
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--partition", type=int, default=100)
    ap.add_argument("--budget", type=float, default=12000.0)
    ap.add_argument("--point", default="6,40,5,1.7", help="numInputs,percentPos,shiftInvLen,scatter")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--data-dir", default=None, help="MNIST directory (default: METAFX_MNIST_DIR)")
    args = ap.parse_args()
    X, y = metafx.load_dataset("mnist", data_dir=args.data_dir)
    tr, _ = split_indices(len(y), 2000, 2000, seed=args.partition)
    prob = SearchProblem(make_component("family", "pixel-and"), X[tr], y[tr],
                         make_component("set-evaluator", "cv-linear-svm"), args.budget, eval_seed=args.partition)
    k, p, s, sc = args.point.split(",")
    point = {"numInputs": int(k), "percentPos": int(p), "shiftInvLen": int(s), "scatter": float(sc)}
    print(f"partition {args.partition}, budget {args.budget:g}, point {point}")
    base = None
    for R in (None, 2, 4):
        eng = GuidedSearch.create({"feature_map": R})
        eng.setup(prob, 0)
        t = best_of(lambda eng=eng: eng.point_set(prob, point, np.random.default_rng(0)), args.repeats)
        base = base or t
        line = f"feature_map={R}: a point's set {1000 * t:.1f} ms ({t / base:.2f} x off)"
        if R is not None:
            pool, values = eng.mapped_pool(prob, point, np.random.default_rng(0))
            half = values.take(np.arange(len(pool) // 2))
            again = best_of(partial(eng.scorer_.score, half, prob.y), args.repeats)
            line += f"; the repeated infogain of the first half {1000 * again:.1f} ms ({again / t:.1%} of the set)"
        print(line)


if __name__ == "__main__":
    main()
