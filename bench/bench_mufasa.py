"""Wall time of one Mufasa run and its split between drawing features, computing
them (packed numba kernel) and the classifier (2-fold CV linear SVM).

Default: MNIST, 2000 training images, budget 3000, 50 steps (the thesis's setting).

    python bench/bench_mufasa.py [--data-dir DIR] [--budget 3000] [--steps 50] [--seed 0]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default=os.environ.get("METAFX_MNIST_DIR", str(Path(__file__).resolve().parents[2] / "shared/data/mnist")))
    ap.add_argument("--budget", type=float, default=3000)
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--n-train", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    import metafx
    from metafx.core.validation import split_indices

    if not Path(args.data_dir).is_dir():
        print(f"MNIST not found at {args.data_dir}; pass --data-dir", file=sys.stderr)
        return 1
    X, y = metafx.load_dataset("mnist", data_dir=args.data_dir)
    tr, _ = split_indices(len(y), args.n_train, 0, 0)
    metafx.search(X[tr][:200], y[tr][:200], budget=20, steps=1, seed=0, progress=False)  # compile / load kernels
    t = time.perf_counter()
    res = metafx.search(X[tr], y[tr], budget=args.budget, steps=args.steps, seed=args.seed, progress=False)
    wall = time.perf_counter() - t
    tm = res.metadata["timings"]
    other = wall - sum(tm.values())
    print(f"Mufasa: budget {args.budget:g}, {args.steps} steps, {args.n_train} MNIST images, 2-fold CV linear SVM")
    print(f"  wall time          {wall:7.2f} s   (best CV quality {res.best_quality:.4f} at {res.best_point})")
    for k, label in (("draw", "drawing features"), ("compute", "computing features"), ("evaluate", "classifier (CV SVM)")):
        print(f"  {label:<19}{tm[k]:7.2f} s   {100 * tm[k] / wall:5.1f} %")
    print(f"  {'other':<19}{other:7.2f} s   {100 * other / wall:5.1f} %")
    return 0


if __name__ == "__main__":
    sys.exit(main())
