"""Predicting the quality of unseen pixels: the thesis's Figures 5.1 and 5.2 (section 5.2).

Protocol: a fixed random set of 2000 images (binary MNIST); features = the 784
pixels, meta-features = (x, y), quality = Infogain (10 classes).  Each repeat
puts aside a random half of the pixels (392) as *test features*; a growing
number of *training features* is drawn from the other half; a
``metafx.QualityMap`` (ridge regression over 7 x 7 Gaussian bumps, std 3
pixels) fitted on them predicts the test features' quality.

* Figure 5.1: correlation between predicted and directly measured Infogain of
  the test features, against the number of training features.
* Figure 5.2: error of 1-NN on 2000 other images using the top-n test features
  ranked by the prediction (map fitted on 100 training features), by their
  direct Infogain, or at random.

Writes ``fig5_1.csv``, ``fig5_2.csv``, ``summary.json``, ``fig5_1.png`` and
``fig5_2.png`` to ``--out`` (default ``~/metafx-examples/quality_prediction``).

    python examples/quality_prediction.py                      # MNIST, 20 repeats
    python examples/quality_prediction.py --data digits        # 8x8 digits (32 held-out pixels)
    python examples/quality_prediction.py --repeats 5          # quicker
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _qm_common import Timer, base_parser, corr, load, one_nn_error, out_dir, pyplot, write_csv, write_json


def main(argv=None) -> dict:
    ap = base_parser(__doc__.splitlines()[0], "quality_prediction")
    ap.add_argument("--repeats", type=int, default=20, help="re-splits of the pixels (thesis: 20)")
    ap.add_argument("--n-images", type=int, default=None, help="images to measure Infogain on (mnist 2000)")
    ap.add_argument("--n-test-images", type=int, default=None, help="1-NN test images (mnist 2000)")
    ap.add_argument("--train-sizes", type=int, nargs="+", default=None, help="numbers of training features")
    ap.add_argument("--fig52-train", type=int, default=None, help="training features of the Figure 5.2 map (100)")
    ap.add_argument("--alpha", type=float, default=0.1, help="ridge penalty of the RBF-grid regression")
    args = ap.parse_args(argv)

    import metafx

    RBFGridRegressor = metafx.quality_map.RBFGridRegressor
    measure_qualities = metafx.quality_map.measure_qualities

    timer = Timer()
    X, y = load(args)
    n_pix = X.shape[1] * X.shape[2]
    mnist_like = n_pix >= 784
    n_img = args.n_images or (2000 if mnist_like else 800)
    n_test_img = args.n_test_images or (2000 if mnist_like else 800)
    half = n_pix // 2
    sizes = args.train_sizes or ([5, 10, 20, 30, 50, 75, 100, 150, 200, 300, 392] if mnist_like
                                 else [3, 5, 8, 10, 15, 20, 25, 32])
    sizes = [s for s in sizes if s <= n_pix - half]
    k52 = args.fig52_train or (100 if mnist_like else max(4, round(100 * n_pix / 784)))
    top_ns = sorted({n for n in ([5, 10, 20, 30, 50, 75, 100, 150, 200, 300, 392] if mnist_like
                                 else [2, 4, 6, 8, 12, 16, 24, 32]) if n <= half})

    rng = np.random.default_rng(args.seed)
    perm = rng.permutation(len(y))
    tr, te = perm[:n_img], perm[n_img:n_img + n_test_img]
    Xtr, ytr, Xte, yte = X[tr], y[tr], X[te], y[te]
    fam = metafx.plugin.get_registry().get("family", "pixels")().fit(Xtr)
    pixels = fam.all_features()
    q_direct = measure_qualities(fam, Xtr, ytr)  # Infogain of every pixel on the 2000 images
    flat_tr = Xtr.reshape(len(ytr), -1).astype(np.float32)
    flat_te = Xte.reshape(len(yte), -1).astype(np.float32)
    reg = RBFGridRegressor(alpha=args.alpha)

    corr_rows, err = [], {m: {n: [] for n in top_ns} for m in ("predicted", "direct", "random")}
    corrs = {s: [] for s in sizes}
    for rep in range(args.repeats):
        r = np.random.default_rng([args.seed, rep])
        p = r.permutation(n_pix)
        test, pool = p[:half], p[half:]
        for s in sizes:
            qm = metafx.QualityMap(regressor=reg).fit(fam, Xtr, ytr, features=pixels.take(pool[:s]))
            corrs[s].append(corr(qm.predict(pixels.take(test)), q_direct[test]))
        # Figure 5.2: rank the test features, 1-NN with the top n
        qm = metafx.QualityMap(regressor=reg).fit(fam, Xtr, ytr, features=pixels.take(pool[:k52]))
        orders = {
            "predicted": test[qm.rank(pixels.take(test))],
            "direct": test[np.argsort(-q_direct[test], kind="stable")],
            "random": test[r.permutation(half)],
        }
        for m, order in orders.items():
            for n in top_ns:
                cols = order[:n]
                err[m][n].append(one_nn_error(flat_tr[:, cols], ytr, flat_te[:, cols], yte))
        print(f"repeat {rep + 1}/{args.repeats}: corr with {sizes[-1]} training features "
              f"{corrs[sizes[-1]][-1]:.3f}  ({timer.seconds:.0f} s)", flush=True)

    out = out_dir(args)
    for s in sizes:
        corr_rows.append({"n_train_features": s, "corr_mean": float(np.mean(corrs[s])),
                          "corr_std": float(np.std(corrs[s])), "repeats": len(corrs[s])})
    err_rows = [{"n_features": n, "ranking": m, "error_mean": float(np.mean(err[m][n])),
                 "error_std": float(np.std(err[m][n]))} for m in err for n in top_ns]
    write_csv(out / "fig5_1.csv", corr_rows)
    write_csv(out / "fig5_2.csv", err_rows)

    plt = pyplot()
    fig, ax = plt.subplots(figsize=(5, 3.6))
    ax.errorbar(sizes, [r["corr_mean"] for r in corr_rows], [r["corr_std"] for r in corr_rows], marker="o", ms=3)
    ax.set_xlabel("number of training features")
    ax.set_ylabel("corr(predicted, measured Infogain)")
    ax.set_title(f"Figure 5.1 ({args.data}, {half} test pixels, {args.repeats} repeats)", fontsize=9)
    fig.tight_layout()
    fig.savefig(out / "fig5_1.png", dpi=120)
    fig, ax = plt.subplots(figsize=(5, 3.6))
    for m in err:
        ax.errorbar(top_ns, [np.mean(err[m][n]) for n in top_ns], [np.std(err[m][n]) for n in top_ns],
                    marker="o", ms=3, label={"predicted": f"predicted ({k52} training features)",
                                             "direct": "direct Infogain", "random": "random"}[m])
    ax.set_xscale("log")
    ax.set_xlabel("number of top test features")
    ax.set_ylabel("1-NN test error")
    ax.set_title(f"Figure 5.2 ({args.data}, {n_img} training / {n_test_img} test images)", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "fig5_2.png", dpi=120)

    gap = {n: float(np.mean(err["predicted"][n]) - np.mean(err["direct"][n])) for n in top_ns}
    rand_gap = {n: float(np.mean(err["random"][n]) - np.mean(err["predicted"][n])) for n in top_ns}
    summary = {
        "data": args.data, "repeats": args.repeats, "n_images": n_img, "n_test_images": n_test_img,
        "held_out_pixels": half, "fig52_training_features": k52, "alpha": args.alpha,
        "corr_by_training_features": {str(r["n_train_features"]): round(r["corr_mean"], 4) for r in corr_rows},
        "error_predicted_minus_direct": {str(n): round(v, 4) for n, v in gap.items()},
        "error_random_minus_predicted": {str(n): round(v, 4) for n, v in rand_gap.items()},
        "claims": {
            "R5.1 prediction accurate with enough training features (corr >= 0.9 at the largest size)":
                bool(corr_rows[-1]["corr_mean"] >= 0.9),
            "R5.2 predicted ranking nearer direct Infogain than random (every n < all)":
                bool(all(abs(gap[n]) < rand_gap[n] + gap[n] for n in top_ns if n < half)),
            "R5.2 predicted ranking within 0.02 of direct Infogain (every n >= 50)":
                bool(all(abs(gap[n]) <= 0.02 for n in top_ns if n >= 50 and n < half)),
            "R5.2 random ranking worse than predicted (for every n < all)":
                bool(all(v > 0 for n, v in rand_gap.items() if n < half)),
        },
        "seconds": round(timer.seconds, 1),
    }
    write_json(out / "summary.json", summary)
    print(f"wrote {out}/fig5_1.csv, fig5_2.csv, summary.json, fig5_1.png, fig5_2.png")
    for k, v in summary["claims"].items():
        print(f"  {'held' if v else 'NOT held'}: {k}")
    return summary


if __name__ == "__main__":
    main()
