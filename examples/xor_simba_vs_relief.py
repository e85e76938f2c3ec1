"""Simba vs Relief on the xor problem (thesis section 3.7.1).

1000 instances, 10 features drawn uniformly from [-1, 1]; the label is the
parity of the signs of the first three features (``sign(x1 x2 x3)``), the
other seven are irrelevant.  For each seed the script prints, for Simba
(linear utility, one pass T = m per restart, restarts keeping the best e(w))
and Relief (every instance once), the angle in radians between the learned
weight vector and the correct one ``(1, 1, 1, 0, ..., 0)``, and whether the
three relevant features are ranked first.

Simba's weight vector is ``|w| / max |w|`` (the square root of what
``metafx.score_features(..., "simba")`` returns, which is ``w^2``); Relief's
is its weight vector as returned.

    python examples/xor_simba_vs_relief.py             # 20 seeds, m = 1000
    python examples/xor_simba_vs_relief.py --seeds 5 --m 400 --restarts 3
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import metafx


def xor_data(m: int, n_features: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.0, 1.0, size=(m, n_features))
    y = (np.prod(np.sign(X[:, :3]), axis=1) > 0).astype(int)
    return X, y


def angle(w: np.ndarray, target: np.ndarray) -> float:
    nw = np.linalg.norm(w)
    if nw == 0:
        return float("nan")
    c = float(w @ target) / (nw * np.linalg.norm(target))
    return float(np.arccos(np.clip(c, -1.0, 1.0)))


def top3(w: np.ndarray) -> bool:
    return set(np.argsort(-w, kind="stable")[:3].tolist()) == {0, 1, 2}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", type=int, default=20, help="number of data sets (seeds 0..S-1)")
    p.add_argument("--m", type=int, default=1000, help="instances per data set")
    p.add_argument("--features", type=int, default=10, help="features (the first 3 are relevant)")
    p.add_argument("--restarts", type=int, default=10, help="Simba random restarts")
    args = p.parse_args(argv)

    target = np.zeros(args.features)
    target[:3] = 1.0
    print(f"xor: m={args.m}, {args.features} features, label = parity of the signs of features 1-3")
    print(f"{'seed':>4}  {'simba angle':>11} {'top3':>5}  {'relief angle':>12} {'top3':>5}")
    rows = []
    t0 = time.perf_counter()
    for seed in range(args.seeds):
        X, y = xor_data(args.m, args.features, seed)
        w_simba = np.sqrt(metafx.score_features(X, y, "simba", n_restarts=args.restarts, random_state=seed))
        w_relief = metafx.score_features(X, y, "relief")
        row = (angle(w_simba, target), top3(w_simba), angle(w_relief, target), top3(w_relief))
        rows.append(row)
        print(f"{seed:>4}  {row[0]:>11.3f} {row[1]!s:>5}  {row[2]:>12.3f} {row[3]!s:>5}")
    a = np.array(rows, dtype=float)
    print(f"mean angle: simba {np.nanmean(a[:, 0]):.3f} rad, relief {np.nanmean(a[:, 2]):.3f} rad")
    print(f"relevant features ranked first: simba {int(a[:, 1].sum())}/{len(rows)}, "
          f"relief {int(a[:, 3].sum())}/{len(rows)}")
    print(f"({time.perf_counter() - t0:.1f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
