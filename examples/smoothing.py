"""Smoothing quality estimates from few instances: the thesis's Figure 5.7 (section 5.7).

2000 binary MNIST images, the 784 pixels as features, (x, y) as meta-features.
Reference quality: each pixel's Infogain on all 2000 images.  For a growing
number m of training instances (a random subset of the 2000), compare with the
reference (correlation over the 784 pixels):

* direct: Infogain measured on the m instances;
* indirect: ``metafx.smooth_qualities``, a quality map (ridge regression over
  7 x 7 Gaussian bumps, std 3 pixels) fitted on the m-instance Infogain of all
  pixels and evaluated on the same pixels.

The thesis reports the indirect estimate better below about 100 instances, and
no significant gain in classification error.  The classification check here:
1-NN trained on the m instances, with the top ``--top`` pixels by either
estimate, tested on ``--n-test-images`` other images.

Writes ``fig5_7.csv``, ``summary.json`` and ``fig5_7.png`` to ``--out``.

    python examples/smoothing.py                   # MNIST, 20 repeats
    python examples/smoothing.py --data digits
    python examples/smoothing.py --repeats 5
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _qm_common import Timer, base_parser, corr, load, one_nn_error, out_dir, pyplot, write_csv, write_json


def main(argv=None) -> dict:
    ap = base_parser(__doc__.splitlines()[0], "smoothing")
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--n-images", type=int, default=None, help="reference images (mnist 2000)")
    ap.add_argument("--n-test-images", type=int, default=None, help="1-NN test images (mnist 2000)")
    ap.add_argument("--sizes", type=int, nargs="+", default=None, help="numbers of training instances")
    ap.add_argument("--top", type=int, default=None, help="pixels used by the 1-NN check (mnist 100)")
    ap.add_argument("--alpha", type=float, default=0.1, help="ridge penalty of the RBF-grid regression")
    args = ap.parse_args(argv)

    import metafx

    RBFGridRegressor = metafx.quality_map.RBFGridRegressor
    default_domain = metafx.quality_map.default_domain
    meta_feature_matrix = metafx.quality_map.meta_feature_matrix

    timer = Timer()
    X, y = load(args)
    small = X.shape[1] < 28
    n_img = args.n_images or (800 if small else 2000)
    n_test = args.n_test_images or (800 if small else 2000)
    sizes = args.sizes or [10, 20, 30, 50, 75, 100, 150, 200, 300, 500, 1000]
    sizes = [s for s in sizes if s < n_img]
    top = args.top or (16 if small else 100)

    rng = np.random.default_rng(args.seed)
    perm = rng.permutation(len(y))
    ref_idx, test_idx = perm[:n_img], perm[n_img:n_img + n_test]
    fam = metafx.plugin.get_registry().get("family", "pixels")().fit(X)
    pixels = fam.all_features()
    flat = X.reshape(len(y), -1)
    q_ref = metafx.score_features(flat[ref_idx], y[ref_idx])
    M, cols = meta_feature_matrix(fam, pixels)
    reg = RBFGridRegressor(alpha=args.alpha, domain=default_domain(fam, cols, M))

    res = {k: {s: [] for s in sizes} for k in ("corr_direct", "corr_indirect", "err_direct", "err_indirect")}
    for rep in range(args.repeats):
        r = np.random.default_rng([args.seed, rep])
        for s in sizes:
            sub = ref_idx[r.choice(n_img, s, replace=False)]
            q = metafx.score_features(flat[sub], y[sub])
            sm = metafx.smooth_qualities(M, q, regressor=reg)
            res["corr_direct"][s].append(corr(q, q_ref))
            res["corr_indirect"][s].append(corr(sm, q_ref))
            for k, est in (("err_direct", q), ("err_indirect", sm)):
                cols_top = np.argsort(-est, kind="stable")[:top]
                res[k][s].append(one_nn_error(flat[sub][:, cols_top], y[sub], flat[test_idx][:, cols_top], y[test_idx]))
        print(f"repeat {rep + 1}/{args.repeats}: m={sizes[0]}: direct {res['corr_direct'][sizes[0]][-1]:.3f}, "
              f"indirect {res['corr_indirect'][sizes[0]][-1]:.3f}  ({timer.seconds:.0f} s)", flush=True)

    mean = {k: {s: float(np.mean(v[s])) for s in sizes} for k, v in res.items()}
    std = {k: {s: float(np.std(v[s])) for s in sizes} for k, v in res.items()}
    rows = [{"n_instances": s, **{f"{k}_mean": mean[k][s] for k in res}, **{f"{k}_std": std[k][s] for k in res}}
            for s in sizes]
    out = out_dir(args)
    write_csv(out / "fig5_7.csv", rows)
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6))
    for k, lab in (("corr_direct", "direct Infogain"), ("corr_indirect", "meta-feature prediction")):
        axes[0].errorbar(sizes, [mean[k][s] for s in sizes], [std[k][s] for s in sizes], marker="o", ms=3,
                         capsize=2, label=lab)
    axes[0].set_xscale("log")
    axes[0].set_xlabel("number of training instances")
    axes[0].set_ylabel(f"corr with Infogain on {n_img} images")
    axes[0].set_title(f"Figure 5.7 ({args.data}, {args.repeats} repeats)", fontsize=9)
    axes[0].legend(fontsize=8)
    for k, lab in (("err_direct", "top by direct"), ("err_indirect", "top by prediction")):
        axes[1].errorbar(sizes, [mean[k][s] for s in sizes], [std[k][s] for s in sizes], marker="o", ms=3,
                         capsize=2, label=lab)
    axes[1].set_xscale("log")
    axes[1].set_xlabel("number of training instances")
    axes[1].set_ylabel(f"1-NN test error, top {top} pixels")
    axes[1].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "fig5_7.png", dpi=120)

    better = [s for s in sizes if mean["corr_indirect"][s] > mean["corr_direct"][s]]
    crossover = next((s for s in sizes if mean["corr_indirect"][s] <= mean["corr_direct"][s]), None)
    err_gap = {s: mean["err_direct"][s] - mean["err_indirect"][s] for s in sizes}  # > 0: smoothing helps
    # paired z: mean (direct - indirect) error over repeats / its standard error; > 0 means smoothing helps
    err_z = {s: float(np.mean(np.subtract(res["err_direct"][s], res["err_indirect"][s]))
                      / (np.std(np.subtract(res["err_direct"][s], res["err_indirect"][s])) / np.sqrt(args.repeats)
                         + 1e-12)) for s in sizes}
    summary = {
        "data": args.data, "repeats": args.repeats, "n_images": n_img, "n_test_images": n_test, "top": top,
        "alpha": args.alpha,
        "corr_direct": {str(s): round(v, 4) for s, v in mean["corr_direct"].items()},
        "corr_indirect": {str(s): round(v, 4) for s, v in mean["corr_indirect"].items()},
        "indirect_better_at": better,
        "first_size_where_direct_is_as_good": crossover,
        "error_direct_minus_indirect": {str(s): round(v, 4) for s, v in err_gap.items()},
        "error_gap_z": {str(s): round(v, 2) for s, v in err_z.items()},
        "claims": {
            "R5.8 indirect better than direct below ~100 instances (every size < 100)":
                all(mean["corr_indirect"][s] > mean["corr_direct"][s] for s in sizes if s < 100),
            "R5.8 advantage disappears above ~100 (direct at least as good from some size in 100..300 on)":
                crossover is not None and 100 <= crossover <= 300
                and all(mean["corr_indirect"][s] <= mean["corr_direct"][s] for s in sizes if s >= crossover),
            "R5.8 no significant classification gain from smoothing (z < 2 at every size)":
                all(z < 2 for z in err_z.values()),
            "(not a thesis claim) smoothing significantly worse for 1-NN (z <= -2 at some size)":
                any(z <= -2 for z in err_z.values()),
        },
        "seconds": round(timer.seconds, 1),
    }
    write_json(out / "summary.json", summary)
    print(f"wrote {out}/fig5_7.csv, summary.json, fig5_7.png")
    for k, v in summary["claims"].items():
        print(f"  {'held' if v else 'NOT held'}: {k}")
    return summary


if __name__ == "__main__":
    main()
