"""CV quality of a point's set: the loop's oversample draw (infogain per cost) against the ``guided``
engine's redundancy-filtered draw, on MNIST training images only (no test images).

    python bench/bench_guided_draw.py --partition 0 --budget 3000

For each of three points (near good points of earlier searches) and each pool factor, 4 draws
(generators 0-3) are scored with the search's evaluator (2-fold CV of a linear SVM); the table
gives the mean accuracy over draws and points.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import numpy as np

import metafx
from metafx.core.validation import split_indices
from metafx.default_plugins.guided import GuidedSearch
from metafx.loop.components import make_component
from metafx.loop.problem import SearchProblem

POINTS = [{"numInputs": 4, "percentPos": 51, "shiftInvLen": 3, "scatter": 1.25},
          {"numInputs": 8, "percentPos": 8, "shiftInvLen": 3, "scatter": 2.46},
          {"numInputs": 3, "percentPos": 57, "shiftInvLen": 2, "scatter": 1.59}]


def main() -> None:
    here = Path(__file__).resolve().parents[1]
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default=os.environ.get("METAFX_MNIST_DIR", str(here.parent / "shared/data/mnist")))
    ap.add_argument("--partition", type=int, default=0)
    ap.add_argument("--budget", type=float, default=3000)
    ap.add_argument("--factors", type=float, nargs="+", default=[4, 8, 16])
    ap.add_argument("--max-corr", type=float, default=0.5)
    ap.add_argument("--only-guided", action="store_true", help="skip the oversample rows")
    args = ap.parse_args()
    X, y = metafx.load_dataset("mnist", data_dir=args.data_dir)
    tr, _ = split_indices(len(y), 2000, 2000, seed=args.partition)
    print("| draw | pool factor | mean CV accuracy | per point |")
    print("|---|---|---|---|")
    hows = ["oversample (infogain per cost)", f"guided filter (max_corr {args.max_corr:g})"]
    for how in hows[1:] if args.only_guided else hows:
        for f in args.factors:
            prob = SearchProblem(make_component("family", "pixel-and"), X[tr], y[tr],
                                 make_component("evaluator", "cv-linear-svm"), args.budget,
                                 eval_seed=args.partition, oversample=f)
            eng = GuidedSearch.create({"pool_factor": f, "max_corr": args.max_corr})
            eng.setup(prob, 0)
            means = []
            for pt in POINTS:
                qs = []
                for s in range(4):
                    rng = np.random.default_rng(s)
                    draw = (lambda: prob.draw(pt, rng)) if how.startswith("over") else (
                        lambda: eng.point_set(prob, pt, rng))
                    qs.append(prob.evaluate(pt, None, draw=draw).quality)
                means.append(float(np.mean(qs)))
            print(f"| {how} | {f:g} | {np.mean(means):.4f} | {' / '.join(f'{m:.4f}' for m in means)} |", flush=True)


if __name__ == "__main__":
    main()
