"""Choosing meta-features, redundancy against homogeneity: the thesis's Figure 5.6 (section 5.6).

Task: 9 against 4, 200 training and 200 test images (binary MNIST), drawn
anew in each repeat.  Features: the pixel-AND features of section 5.3.2
without shift invariance (``shiftInvLen = 1``: every feature costs 1) and with
a fixed scatter (1.5 pixels), from the ``pixel-and-local`` family.  A search
(``--steps`` = 50 evaluations, quality = 2-fold CV accuracy of a linear SVM)
over one meta-feature while the others are drawn at random per feature:

* location: the (x, y) of a 4 x 4 window holding the inputs (percentPos
  random per feature; numInputs fixed, 1 by default, or random per feature
  with ``--location-num-inputs random``: the thesis does not say);
* numInputs: the number of inputs (window location and percentPos random);
* random: no search, every meta-feature random.

The search engine is ``optuna`` (TPE) by default, for both arms.  The thesis
used Mufasa; here Mufasa's local search (``--engine mufasa``: start at the
image centre, moves of +-3 pixels) ends in a mediocre window in most repeats:
the location landscape is flat around the centre and has several separate
good regions, so the comparison would measure the search rather than the
meta-feature (docs/quality_map.md has both).  With one input per feature the
window holds only 32 distinct features, so redundancy shows early; with 3 or
random inputs it holds thousands and location stays ahead longer (same page).

For each number of features, a linear SVM (C = 0.1) trained on the chosen
features is tested on the test images.  The thesis reports location better for
few features, numInputs better for many (nearby features are redundant), and
random worst.

Writes ``fig5_6.csv``, ``summary.json`` and ``fig5_6.png`` to ``--out``.

    python examples/meta_feature_choice.py                    # MNIST, 8 repeats (~5 min)
    python examples/meta_feature_choice.py --data digits      # 8x8 digits: 150 / 150 images
    python examples/meta_feature_choice.py --repeats 3 --counts 10 40 160
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _qm_common import Timer, base_parser, load, out_dir, pyplot, write_csv, write_json

ARMS = ("location", "numInputs", "random")


def arm_setup(arm: str, location_k: str) -> tuple[tuple[str, ...], dict]:
    """(randomized meta-features, fixed meta-features) of an arm."""
    if arm == "location":
        if location_k == "random":
            return ("numInputs", "percentPos"), {"shiftInvLen": 1}
        return ("percentPos",), {"shiftInvLen": 1, "numInputs": int(location_k)}
    if arm == "numInputs":
        return ("x", "y", "percentPos"), {"shiftInvLen": 1}
    return ("numInputs", "percentPos", "x", "y"), {"shiftInvLen": 1}


def main(argv=None) -> dict:
    ap = base_parser(__doc__.splitlines()[0], "meta_feature_choice")
    ap.add_argument("--repeats", type=int, default=8, help="train/test draws (about 35 s each on MNIST)")
    ap.add_argument("--counts", type=int, nargs="+", default=None, help="numbers of selected features")
    ap.add_argument("--steps", type=int, default=50, help="search steps J (evaluations)")
    ap.add_argument("--n-train", type=int, default=None, help="training images (mnist 200)")
    ap.add_argument("--n-test", type=int, default=None, help="test images (mnist 200)")
    ap.add_argument("--digits-pair", type=int, nargs=2, default=[9, 4])
    ap.add_argument("--C", type=float, default=0.1, help="C of the linear SVMs")
    ap.add_argument("--engine", default="optuna", help="search engine of the location and numInputs arms")
    ap.add_argument("--cv-folds", type=int, default=2, help="folds of the search's quality (CV accuracy of a linear SVM)")
    ap.add_argument("--location-num-inputs", default="1",
                    help="numInputs of the location arm's features: an integer (default 1) "
                         "or 'random' (uniform 1-8 per feature)")
    args = ap.parse_args(argv)

    from sklearn.exceptions import ConvergenceWarning
    from sklearn.svm import LinearSVC

    import metafx

    PixelAndLocalFamily = metafx.plugin.get_registry().get("family", "pixel-and-local")

    timer = Timer()
    X, y = load(args)
    a, b = args.digits_pair
    idx = np.flatnonzero((y == a) | (y == b))
    X, y = X[idx], y[idx]
    small = X.shape[1] < 28
    n_train = args.n_train or (150 if small else 200)
    n_test = args.n_test or (150 if small else 200)
    counts = args.counts or ([2, 5, 10, 20, 40, 80] if small else [5, 10, 20, 40, 80, 160, 320])

    err = {arm: {n: [] for n in counts} for arm in ARMS}
    best_points = {arm: {n: [] for n in counts} for arm in ARMS}
    for rep in range(args.repeats):
        rng = np.random.default_rng([args.seed, rep])
        perm = rng.permutation(len(y))
        tr, te = perm[:n_train], perm[n_train:n_train + n_test]
        for arm in ARMS:
            randomize, fixed = arm_setup(arm, args.location_num_inputs)
            fam = PixelAndLocalFamily(randomize=randomize).fit(X[tr])
            for n in counts:
                seed = int(rng.integers(2**31))
                if arm == "random":
                    batch = fam.draw(fixed, float(n), np.random.default_rng(seed))
                    F_tr, F_te = fam.transform(X[tr], batch), fam.transform(X[te], batch)
                else:
                    res = metafx.search(X[tr], y[tr], family=fam, budget=float(n), steps=args.steps, seed=seed, engine=args.engine,
                                        fixed=fixed, evaluator_params={"C": args.C, "n_splits": args.cv_folds}, progress=False)
                    F_tr, F_te = res.transform(X[tr]), res.transform(X[te])
                    best_points[arm][n].append({k: v for k, v in res.best_point.items() if k not in fixed})
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", ConvergenceWarning)
                    svm = LinearSVC(C=args.C, max_iter=5000).fit(F_tr, y[tr])
                err[arm][n].append(float(np.mean(svm.predict(F_te) != y[te])))
        print(f"repeat {rep + 1}/{args.repeats}: " + ", ".join(
            f"{arm} {np.mean(err[arm][counts[0]]):.3f}/{np.mean(err[arm][counts[-1]]):.3f}" for arm in ARMS)
            + f" (error at {counts[0]}/{counts[-1]} features; {timer.seconds:.0f} s)", flush=True)

    rows = [{"n_features": n, "meta_feature": arm, "error_mean": float(np.mean(err[arm][n])),
             "error_std": float(np.std(err[arm][n])), "repeats": len(err[arm][n])} for arm in ARMS for n in counts]
    out = out_dir(args)
    write_csv(out / "fig5_6.csv", rows)
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(5, 3.6))
    for arm in ARMS:
        ax.errorbar(counts, [np.mean(err[arm][n]) for n in counts],
                    [np.std(err[arm][n]) / np.sqrt(len(err[arm][n])) for n in counts],
                    marker="o", ms=3, capsize=2, label={"location": "(x, y) location", "numInputs": "numInputs",
                                                        "random": "random features"}[arm])
    ax.set_xscale("log")
    ax.set_xlabel("number of features")
    ax.set_ylabel("test error (linear SVM)")
    ax.set_title(f"Figure 5.6 ({args.data}, {a} vs {b}, {n_train}/{n_test} images, {args.repeats} repeats, "
                 f"{args.engine}; bars: s.e.m.)", fontsize=8)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "fig5_6.png", dpi=120)

    mean = {arm: {n: float(np.mean(err[arm][n])) for n in counts} for arm in ARMS}
    diff = {n: mean["location"][n] - mean["numInputs"][n] for n in counts}  # < 0: location better
    # paired over repeats (both arms see the same train/test draw in a repeat)
    pdiff = {n: np.array(err["location"][n]) - np.array(err["numInputs"][n]) for n in counts}
    paired = {str(n): {"mean": round(float(d.mean()), 4), "sem": round(float(d.std(ddof=1) / np.sqrt(len(d))), 4)
                       if len(d) > 1 else None, "location_better": int((d < 0).sum()), "numInputs_better": int((d > 0).sum())}
              for n, d in pdiff.items()}
    few, many = counts[: len(counts) // 2], counts[len(counts) // 2:]
    crossing = next((n for n in counts if diff[n] > 0), None)
    summary = {
        "data": args.data, "pair": [a, b], "n_train": n_train, "n_test": n_test, "repeats": args.repeats,
        "steps": args.steps, "engine": args.engine, "C": args.C, "cv_folds": args.cv_folds,
        "error_mean": {arm: {str(n): round(v, 4) for n, v in mean[arm].items()} for arm in ARMS},
        "location_minus_numInputs": {str(n): round(v, 4) for n, v in diff.items()},
        "location_minus_numInputs_paired": paired,
        "first_count_where_numInputs_wins": crossing,
        "location_num_inputs": args.location_num_inputs,
        "numInputs_chosen": {str(n): [p["numInputs"] for p in best_points["numInputs"][n]] for n in counts},
        "location_chosen": {str(n): [[p["x"], p["y"]] for p in best_points["location"][n]] for n in counts},
        "claims": {
            "R5.7 location better than numInputs with few features (smaller half of the counts, on average)":
                bool(np.mean([diff[n] for n in few]) < 0),
            "R5.7 numInputs better than location with many features (larger half of the counts, on average)":
                bool(np.mean([diff[n] for n in many]) > 0),
            "R5.7 random selection worst (at every count, against both)":
                all(mean["random"][n] > max(mean["location"][n], mean["numInputs"][n]) for n in counts),
        },
        "seconds": round(timer.seconds, 1),
    }
    write_json(out / "summary.json", summary)
    print(f"wrote {out}/fig5_6.csv, summary.json, fig5_6.png")
    for k, v in summary["claims"].items():
        print(f"  {'held' if v else 'NOT held'}: {k}")
    return summary


if __name__ == "__main__":
    main()
