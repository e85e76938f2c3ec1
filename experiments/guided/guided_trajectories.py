"""Fingerprints of ``guided`` searches, to check that a change of code leaves the searches the same bit for bit.

For each partition (2000 training MNIST images, seed = partition) and budget, one search (``--steps`` steps,
the engine's defaults unless ``--engine-params``) is run and one line is printed: the partition, the budget,
an MD5 digest of every step's (point, quality, cost, number of features) and of the chosen features, and the
best quality.  Run it before and after a change and compare the outputs (``diff``):

    python experiments/guided/guided_trajectories.py --partitions 0 1 --budgets 250 1000 6000 > before.txt
    python experiments/guided/guided_trajectories.py --partitions 0 1 --budgets 250 1000 6000 > after.txt
    diff before.txt after.txt
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))  # the MNIST loader
from _yardstick import DEFAULT_MNIST, mnist

import metafx
from metafx.core.validation import split_indices


def fingerprint(res) -> str:
    """MD5 of the trajectory (point, quality, cost, n_features, accepted per step) and the chosen features."""
    h = hashlib.md5()
    for r in res.trajectory:
        h.update(json.dumps([r.step, r.point, repr(r.quality), repr(r.cost), r.n_features, r.accepted],
                            sort_keys=True, default=str).encode())
    h.update(json.dumps(res.features, sort_keys=True).encode())
    return h.hexdigest()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default=DEFAULT_MNIST)
    ap.add_argument("--partitions", type=int, nargs="+", default=[0, 1])
    ap.add_argument("--budgets", type=float, nargs="+", default=[250, 1000, 6000])
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--engine-params", type=json.loads, default=None)
    args = ap.parse_args(argv)
    X, y = mnist(args.data_dir)
    for p in args.partitions:
        tr, _ = split_indices(len(y), 2000, 2000, seed=p)
        for b in args.budgets:
            res = metafx.search(X[tr], y[tr], family="pixel-and", budget=b, steps=args.steps, engine="guided",
                                engine_params=args.engine_params, seed=p, progress=False)
            print(f"partition {p} budget {b:g}: {fingerprint(res)} best {res.best_quality!r} "
                  f"({res.n_features} features)", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
