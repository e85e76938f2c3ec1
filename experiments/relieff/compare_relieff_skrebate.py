"""relief-f with n_neighbors = 1 and 10 against skrebate.ReliefF on the first 500 bundled digits (0/1 pixels).

Prints the Spearman rank correlation (over pixels where either weight is non-zero) and the largest absolute
difference, our weights divided by m (skrebate averages over the instances), for a two-class task (0-4 vs 5-9) and
the 10 digits; then the rank correlation on continuous data, where skrebate uses |diff| / range instead of the
squared difference.

    pip install skrebate && python experiments/relieff/compare_relieff_skrebate.py
"""

from __future__ import annotations

import numpy as np
import skrebate
from scipy.stats import spearmanr

import metafx


def main() -> None:
    X, y = metafx.load_dataset("digits")
    X = X.reshape(len(X), -1)[:500].astype(np.float64)
    y = y[:500]
    for task, yy in [("digits 0-4 vs 5-9", (y >= 5).astype(int)), ("digits 10 classes", y)]:
        for k in (1, 10):
            ref = skrebate.ReliefF(n_neighbors=k, n_jobs=1).fit(X, yy).feature_importances_
            ours = metafx.score_features(X, yy, "relief-f", n_neighbors=k) / X.shape[0]
            ok = np.abs(ours) + np.abs(ref) > 0
            print(f"{task}, k={k}: Spearman {spearmanr(ours[ok], ref[ok]).statistic:.4f}, "
                  f"max |difference| {np.abs(ours - ref).max():.4f}, skrebate range {ref.min():.3f}..{ref.max():.3f}")
    rng = np.random.default_rng(0)
    Xr = rng.random((300, 20))
    yr = (Xr[:, 0] + Xr[:, 1] > 1).astype(int)
    ref = skrebate.ReliefF(n_neighbors=10, n_jobs=1).fit(Xr, yr).feature_importances_
    ours = metafx.score_features(Xr, yr, "relief-f", n_neighbors=10)
    print(f"continuous 300 x 20, k=10: Spearman {spearmanr(ours, ref).statistic:.4f}")


if __name__ == "__main__":
    main()
