"""Inductive transfer of pixel quality between digit-pair tasks: the thesis's Figure 5.5 (section 5.5).

A task = telling two digits apart (45 pairs).  Each repeat splits the digits
0-9 at random into two sets of five; the 10 pairs of the first set are the
candidate *training tasks*, the 10 pairs of the second set the *test tasks*
(no digit in common).  For k = 1..10 training tasks (random k-subsets of the 10,
all of them when there are few), each pixel's Infogain is averaged over the
training tasks and the test task's Infogain is predicted:

* direct: that average;
* indirect: a ``metafx.QualityMap`` fitted on the average, over (x, y)
  (7 x 7 Gaussian bumps) or over r = distance from the image centre (7 bumps).

Score: correlation with the test task's "real" Infogain, measured on all its
images.  Qualities of training tasks use ``--n-per-task`` images per task
(default: all).

Writes ``fig5_5.csv``, ``summary.json`` and ``fig5_5.png`` to ``--out``.

    python examples/inductive_transfer.py                    # MNIST (t10k: ~2000 images per task)
    python examples/inductive_transfer.py --data digits
    python examples/inductive_transfer.py --repeats 3 --subsets 5
"""

from __future__ import annotations

import itertools
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _qm_common import Timer, base_parser, corr, load, out_dir, pyplot, write_csv, write_json

METHODS = ("direct", "indirect (x,y)", "indirect r")


def main(argv=None) -> dict:
    ap = base_parser(__doc__.splitlines()[0], "inductive_transfer")
    ap.add_argument("--repeats", type=int, default=10, help="random splits of the digits into 5 + 5")
    ap.add_argument("--subsets", type=int, default=20, help="k-subsets of training tasks per k and repeat")
    ap.add_argument("--n-per-task", type=int, default=None,
                    help="images per training task for its Infogain (default: all)")
    ap.add_argument("--alpha", type=float, default=0.1, help="ridge penalty of the RBF-grid regression")
    args = ap.parse_args(argv)

    import metafx

    RBFGridRegressor = metafx.quality_map.RBFGridRegressor
    meta_feature_matrix = metafx.quality_map.meta_feature_matrix

    timer = Timer()
    X, y = load(args)
    fam = metafx.plugin.get_registry().get("family", "pixels")().fit(X)
    pixels = fam.all_features()
    pairs = list(itertools.combinations(range(10), 2))
    rng = np.random.default_rng(args.seed)

    def task(a: int, b: int, n: int | None):
        idx = np.flatnonzero((y == a) | (y == b))
        if n is not None and n < idx.size:
            idx = np.sort(rng.choice(idx, n, replace=False))
        return X[idx], y[idx]

    # Infogain of every pixel on every task: "real" (all images) and training (n_per_task images)
    def infogain(Xt, yt):
        return metafx.score_features(fam.compute(fam.prepare(Xt), pixels), yt)

    real = {p: infogain(*task(*p, None)) for p in pairs}
    if args.n_per_task is None:
        train_q = real
    else:
        train_q = {}
        for p in pairs:
            train_q[p] = infogain(*task(*p, args.n_per_task))
    M_xy, _ = meta_feature_matrix(fam, pixels)
    M_r, _ = meta_feature_matrix(fam, pixels, ["r"])
    maps = {
        "indirect (x,y)": metafx.QualityMap(regressor=RBFGridRegressor(alpha=args.alpha)),
        "indirect r": metafx.QualityMap(regressor=RBFGridRegressor(alpha=args.alpha), meta_features=["r"]),
    }
    metas = {"indirect (x,y)": (M_xy, ["x", "y"]), "indirect r": (M_r, ["r"])}

    scores = {m: {k: [] for k in range(1, 11)} for m in METHODS}
    for rep in range(args.repeats):
        digits = rng.permutation(10)
        A, B = sorted(digits[:5]), sorted(digits[5:])
        train_tasks = list(itertools.combinations(A, 2))
        test_tasks = list(itertools.combinations(B, 2))
        for k in range(1, 11):
            n_sub = math.comb(10, k)
            if n_sub <= args.subsets:
                subsets = list(itertools.combinations(range(10), k))
            else:
                subsets = [tuple(rng.choice(10, k, replace=False)) for _ in range(args.subsets)]
            for sub in subsets:
                Q = np.stack([train_q[train_tasks[i]] for i in sub])
                preds = {"direct": metafx.transfer_direct(Q)}
                for m, qm in maps.items():
                    M, cols = metas[m]
                    preds[m] = qm.fit_meta(M, Q.mean(0), columns=cols, family=fam).smooth()
                for t in test_tasks:
                    for m in METHODS:
                        scores[m][k].append(corr(preds[m], real[t]))
        print(f"repeat {rep + 1}/{args.repeats}: k=1 direct {np.mean(scores['direct'][1]):.3f}, "
              f"indirect r {np.mean(scores['indirect r'][1]):.3f}  ({timer.seconds:.0f} s)", flush=True)

    rows = [{"n_training_tasks": k, "method": m, "corr_mean": float(np.mean(scores[m][k])),
             "corr_std": float(np.std(scores[m][k])), "n": len(scores[m][k])} for m in METHODS for k in range(1, 11)]
    out = out_dir(args)
    write_csv(out / "fig5_5.csv", rows)
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(5, 3.6))
    for m in METHODS:
        ax.errorbar(range(1, 11), [np.mean(scores[m][k]) for k in range(1, 11)],
                    [np.std(scores[m][k]) for k in range(1, 11)], marker="o", ms=3, capsize=2, label=m)
    ax.set_xlabel("number of training tasks")
    ax.set_ylabel("corr(predicted, real Infogain)")
    ax.set_title(f"Figure 5.5 ({args.data}, {args.repeats} digit splits)", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "fig5_5.png", dpi=120)

    mean = {m: {k: float(np.mean(scores[m][k])) for k in range(1, 11)} for m in METHODS}
    summary = {
        "data": args.data, "repeats": args.repeats, "subsets": args.subsets, "n_per_task": args.n_per_task,
        "alpha": args.alpha,
        "corr_mean": {m: {str(k): round(v, 4) for k, v in mean[m].items()} for m in METHODS},
        "claims": {
            "R5.6 indirect (r) beats direct for every number of training tasks":
                all(mean["indirect r"][k] > mean["direct"][k] for k in range(1, 11)),
            "R5.6 indirect (x,y) beats direct for every number of training tasks":
                all(mean["indirect (x,y)"][k] > mean["direct"][k] for k in range(1, 11)),
            "R5.6 r beats (x,y) for every number of training tasks":
                all(mean["indirect r"][k] > mean["indirect (x,y)"][k] for k in range(1, 11)),
        },
        "seconds": round(timer.seconds, 1),
    }
    write_json(out / "summary.json", summary)
    print(f"wrote {out}/fig5_5.csv, summary.json, fig5_5.png")
    for k, v in summary["claims"].items():
        print(f"  {'held' if v else 'NOT held'}: {k}")
    return summary


if __name__ == "__main__":
    main()
