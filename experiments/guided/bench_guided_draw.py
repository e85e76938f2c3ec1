"""CV quality of a point's set: the loop's oversample draw (infogain per cost) against the ``guided``
engine's redundancy-filtered draw, on MNIST training images only (no test images).

    python experiments/guided/bench_guided_draw.py --partition 0 --budget 3000
    python experiments/guided/bench_guided_draw.py --partition 100 --budget 3000 --only-guided --factors 16 \
        --rankings infogain ovr --points 8,25,3,1.96 4,50,5,2.5 7,29,3,1.95 --test

For each of three points (near good points of earlier searches) and each pool factor, 4 draws
(generators 0-3) are scored with the search's evaluator (2-fold CV of a linear SVM); the table
gives the mean accuracy over draws and points.  ``--rankings``: the order in which the filter of
the ``guided`` draw takes the pool's features: ``infogain`` (the engine's: infogain per cost) or
``ovr`` (class by class: every feature at its best rank among the ten one-vs-rest infogains per
cost, ties by class) or ``cmim`` (the engine's ``selector="cmim"``: conditional infomax per cost in place
of the filter) or ``relief`` (Relief weights per cost, with each image's 5 nearest hits and 5
nearest misses found once on the raw pixels).  ``--test`` (dev partitions >= 10 only) adds the test error of the protocol's
final SVM on each set.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

import numpy as np

import metafx
from metafx._kernels.scoring import mutual_info_from_counts, packed_class_counts
from metafx.core.validation import split_indices
from metafx.default_plugins.guided import GuidedSearch
from metafx.default_plugins.scorers import class_masks, encode_labels
from metafx.learn.svm import fit_linear_svm
from metafx.loop.components import make_component
from metafx.loop.problem import SearchProblem

POINTS = [{"numInputs": 4, "percentPos": 51, "shiftInvLen": 3, "scatter": 1.25},
          {"numInputs": 8, "percentPos": 8, "shiftInvLen": 3, "scatter": 2.46},
          {"numInputs": 3, "percentPos": 57, "shiftInvLen": 2, "scatter": 1.59}]


class OvrGuided(GuidedSearch):
    """The ``guided`` draw with the ``ovr`` ranking (see the module docstring)."""

    def _pool_order(self, problem, values, costs, first):
        codes, k = encode_labels(problem.y)
        sizes = np.bincount(codes, minlength=k).astype(np.float64)
        ones = packed_class_counts(values.packed, class_masks(codes, k)).astype(np.float64)
        ovr = np.empty((len(first), k))
        for c in range(k):  # class c against the rest, from the same counts
            two = np.stack([ones[first, c], ones[first].sum(1) - ones[first, c]], axis=1)
            ovr[:, c] = mutual_info_from_counts(two, np.array([sizes[c], sizes.sum() - sizes[c]])) / costs[first]
        ranks = np.argsort(np.argsort(-ovr, axis=0, kind="stable"), axis=0, kind="stable")
        return first[np.lexsort((np.argmin(ranks, axis=1), ranks.min(axis=1)))]


class ReliefGuided(GuidedSearch):
    """The ``guided`` draw with the ``relief`` ranking (see the module docstring); set ``neighbours`` to
    the images' nearest hits and misses (:func:`pixel_neighbours`) before drawing."""

    def _pool_order(self, problem, values, costs, first):
        hits, misses = self.neighbours
        V = values.dense(np.float32)
        w = np.zeros(V.shape[1])
        for j in range(misses.shape[1]):
            w += np.abs(V - V[misses[:, j]]).mean(0) - np.abs(V - V[hits[:, j]]).mean(0)
        return first[np.argsort(-(w[first] / costs[first]), kind="stable")]


def pixel_neighbours(X: np.ndarray, y: np.ndarray, k: int = 5) -> tuple[np.ndarray, np.ndarray]:
    """Each image's ``k`` nearest hits (same label, itself excluded) and misses, by pixel distance."""
    A = X.reshape(len(X), -1).astype(np.float32)
    sq = (A * A).sum(1)
    D = sq[:, None] + sq[None, :] - 2 * A @ A.T
    np.fill_diagonal(D, np.inf)
    same = y[:, None] == y[None, :]
    hits = np.argsort(np.where(same, D, np.inf), axis=1, kind="stable")[:, :k]
    misses = np.argsort(np.where(same, np.inf, D), axis=1, kind="stable")[:, :k]
    return hits, misses


def main() -> None:
    here = Path(__file__).resolve().parents[2]
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default=os.environ.get("METAFX_MNIST_DIR", str(here.parent / "shared/data/mnist")))
    ap.add_argument("--partition", type=int, default=0)
    ap.add_argument("--budget", type=float, default=3000)
    ap.add_argument("--factors", type=float, nargs="+", default=[4, 8, 16])
    ap.add_argument("--max-corr", type=float, default=0.5)
    ap.add_argument("--only-guided", action="store_true", help="skip the oversample rows")
    ap.add_argument("--rankings", nargs="+", default=["infogain"], choices=["infogain", "ovr", "relief", "cmim"])
    ap.add_argument("--points", nargs="+", default=None,
                    help="points as numInputs,percentPos,shiftInvLen,scatter (default: three fixed points)")
    ap.add_argument("--test", action="store_true", help="also the test error (dev partitions >= 10 only)")
    ap.add_argument("--family-params", type=json.loads, default=None,
                    help='JSON parameters of the pixel-and family, e.g. \'{"location_prior": "ink"}\'')
    args = ap.parse_args()
    if args.test and args.partition < 10:
        raise SystemExit("--test: partitions 0-9 are the protocol's, whose test images are not for choosing")
    points = POINTS if args.points is None else [
        dict(zip(("numInputs", "percentPos", "shiftInvLen"), map(int, t.split(",")[:3]), strict=True), scatter=float(t.split(",")[3]))
        for t in args.points]
    X, y = metafx.load_dataset("mnist", data_dir=args.data_dir)
    tr, te = split_indices(len(y), 2000, 2000, seed=args.partition)
    neighbours = pixel_neighbours(X[tr], y[tr]) if "relief" in args.rankings else None
    print("| draw | pool factor | mean CV accuracy | per point |" + (" mean test error % |" if args.test else ""))
    print("|---|---|---|---|" + ("---|" if args.test else ""))
    hows = ["oversample (infogain per cost)"] + [f"guided filter (max_corr {args.max_corr:g}, {r})" for r in args.rankings]
    for how in hows[1:] if args.only_guided else hows:
        for f in args.factors:
            prob = SearchProblem(make_component("family", "pixel-and", args.family_params), X[tr], y[tr],
                                 make_component("set-evaluator", "cv-linear-svm"), args.budget,
                                 eval_seed=args.partition, oversample=f)
            engine = {"ovr)": OvrGuided, "relief)": ReliefGuided}.get(how.rsplit(" ", 1)[-1], GuidedSearch)
            eng = engine.create({"pool_factor": f, "max_corr": args.max_corr,
                                 "selector": "cmim" if how.endswith("cmim)") else "filter"})
            if engine is ReliefGuided:
                eng.neighbours = neighbours
            eng.setup(prob, 0)
            prepared_test = prob.family.prepare(X[te]) if args.test else None
            means, errors = [], []
            for pt in points:
                qs = []
                for s in range(4):
                    rng = np.random.default_rng(s)
                    if how.startswith("over"):
                        batch = prob.draw(pt, rng)
                    else:
                        batch = eng.point_set(prob, pt, rng)
                    qs.append(prob.evaluate(pt, None, draw=lambda b=batch: b).quality)
                    if args.test:
                        model = fit_linear_svm(prob.family.compute(prob.prepared, batch), y[tr], C="cv",
                                               random_state=args.partition)
                        errors.append(float(np.mean(model.predict(prob.family.compute(prepared_test, batch)) != y[te])))
                means.append(float(np.mean(qs)))
            test = f" {100 * np.mean(errors):.2f} |" if args.test else ""
            print(f"| {how} | {f:g} | {np.mean(means):.4f} | {' / '.join(f'{m:.4f}' for m in means)} |{test}", flush=True)


if __name__ == "__main__":
    main()
