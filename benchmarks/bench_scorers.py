"""Speed of the quality evaluators on binarized MNIST, against references measured in the same run.

On the first 2000 images of the MNIST test set (784 binary pixels each):

* ``infogain`` (bit-packed values and dense uint8) vs
  ``sklearn.feature_selection.mutual_info_classif(discrete_features=True)``:
  largest absolute difference of the values and the speed-up;
* ``relief`` vs ``skrebate.ReliefF(n_neighbors=1)`` (if skrebate is installed):
  the reference runs on the first 500 images only (it takes tens of seconds),
  and metafx on the same 500; the rank correlation of the weights is printed
  too (skrebate's ReliefF weighs the misses of each class by its prior and
  breaks distance ties its own way, so the values differ);
* time per Simba epoch (T = m steps; a restart adds one e(w) evaluation) and per G-flip pass as m doubles,
  with the ratio to the previous m (Theta(N m^2) predicts 4).

    python benchmarks/bench_scorers.py [--data-dir ../shared/data/mnist] [--skip-reference] [--max-m 2000]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from functools import partial
from pathlib import Path

import numpy as np


def best_of(fn, repeats: int) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeats):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default=os.environ.get(
        "METAFX_MNIST_DIR", str(Path(__file__).resolve().parents[2] / "shared/data/mnist")))
    ap.add_argument("--skip-reference", action="store_true", help="do not run skrebate (slow)")
    ap.add_argument("--max-m", type=int, default=2000, help="largest m for the Simba / G-flip scaling")
    ap.add_argument("--gflip-features", type=int, default=784, help="features (pixels) used for G-flip passes")
    args = ap.parse_args(argv)
    if not Path(args.data_dir).is_dir():
        print(f"MNIST not found at {args.data_dir}; pass --data-dir or set METAFX_MNIST_DIR; skipping")
        return 0
    import metafx
    from metafx._kernels.packing import pack_columns

    Xall, yall = metafx.load_dataset("mnist", data_dir=args.data_dir)
    X = np.ascontiguousarray(Xall[:2000].reshape(2000, -1), dtype=np.uint8)
    y = np.asarray(yall[:2000])
    m, n = X.shape
    fv = metafx.plugin.FeatureValues(n_samples=m, packed=pack_columns(X))
    print(f"binarized MNIST: {m} images x {n} pixels, {len(np.unique(y))} classes")

    # ---------------------------------------------------------------- infogain
    from sklearn.feature_selection import mutual_info_classif

    metafx.score_features(fv, y)
    t_packed, ig = best_of(lambda: metafx.score_features(fv, y, "infogain"), 20)
    t_dense, ig_dense = best_of(lambda: metafx.score_features(X, y, "infogain"), 20)
    t_sk, ref = best_of(lambda: mutual_info_classif(X, y, discrete_features=True), 2)
    diff = max(np.abs(ig - ref).max(), np.abs(ig_dense - ref).max())
    print("\ninfogain vs sklearn mutual_info_classif(discrete_features=True)")
    print(f"  max |difference|:            {diff:.2e}  ({'identical to 1e-9' if diff <= 1e-9 else 'DIFFERENT'})")
    print(f"  sklearn:                     {1e3 * t_sk:10.1f} ms")
    print(f"  metafx, packed bits:         {1e3 * t_packed:10.3f} ms   speed-up {t_sk / t_packed:8.0f} x")
    print(f"  metafx, dense uint8:         {1e3 * t_dense:10.3f} ms   speed-up {t_sk / t_dense:8.0f} x")

    # ---------------------------------------------------------------- relief
    print("\nrelief (every instance once)")
    metafx.score_features(X[:50], y[:50], "relief")
    for mm in (500, 2000):
        t, _ = best_of(partial(metafx.score_features, X[:mm], y[:mm], "relief"), 5)
        print(f"  metafx relief, m={mm}:        {1e3 * t:10.1f} ms")
        if mm == 500:
            t_relief_500 = t
    try:
        import skrebate
    except ImportError:
        skrebate = None
        print("  skrebate not installed (pip install skrebate): no reference")
    if skrebate is not None and not args.skip_reference:
        from scipy.stats import spearmanr

        r = skrebate.ReliefF(n_neighbors=1, n_jobs=1)
        t0 = time.perf_counter()
        r.fit(X[:500].astype(np.float64), y[:500])
        t_ref = time.perf_counter() - t0
        ours = metafx.score_features(X[:500], y[:500], "relief")
        oursf = metafx.score_features(X[:500], y[:500], "relief-f")
        ok = np.abs(ours) + np.abs(r.feature_importances_) > 0
        rho = spearmanr(ours[ok], r.feature_importances_[ok]).statistic
        rhof = spearmanr(oursf[ok], r.feature_importances_[ok]).statistic
        print(f"  skrebate.ReliefF(n_neighbors=1), m=500 (reference on 500 images only): {1e3 * t_ref:10.1f} ms")
        print(f"  speed-up at m=500:           {t_ref / t_relief_500:8.0f} x")
        print(f"  Spearman rank correlation with skrebate over non-zero pixels: relief {rho:.3f}, relief-f {rhof:.3f}")

    # ---------------------------------------------------------------- Simba epoch, G-flip pass
    from metafx.default_plugins.selectors import GFlip

    sizes = [s for s in (250, 500, 1000, 2000) if s <= args.max_m]
    from metafx._kernels import margin as K

    print(f"\nSimba: one epoch (T = m steps of Algorithm 2, linear utility) and one e(w) evaluation, N = {n}")
    Xf = X.astype(np.float64)
    codes = y.astype(np.int64)
    K.simba_pass(Xf[:50], codes[:50], np.arange(50), np.ones(n), 0, 1.0)
    prev = None
    for s in sizes:
        order = np.random.default_rng(0).permutation(s)
        t, w = best_of(partial(K.simba_pass, Xf[:s], codes[:s], order, np.ones(n), 0, 1.0), 2 if s < 2000 else 1)
        t_e, _ = best_of(partial(K.loo_margins, Xf[:s], codes[:s], (w / np.abs(w).max()) ** 2), 1)
        ratio = f"x{t / prev:5.2f}" if prev else "      "
        print(f"  m={s:5d}: epoch {t:8.3f} s  {ratio}   e(w) evaluation {t_e:7.3f} s")
        prev = t
    nf = min(args.gflip_features, n)
    cols = np.argsort(-X.var(axis=0), kind="stable")[:nf]
    print(f"\nG-flip: one pass (linear utility), N = {nf} most variable pixels")
    GFlip(max_passes=1).select(X[:50, cols], y[:50])
    prev = None
    for s in sizes:
        sel = GFlip(max_passes=1, random_state=0)
        t, _ = best_of(partial(sel.select, X[:s, cols], y[:s]), 1)
        ratio = f"x{t / prev:5.2f}" if prev else ""
        print(f"  m={s:5d}: {t:8.3f} s  {ratio}   (e after the pass {sel.history_[-1]:.1f})")
        prev = t
    return 0


if __name__ == "__main__":
    sys.exit(main())
