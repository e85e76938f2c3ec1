"""Search time of engine ``guided`` against ``mufasa+o4`` and ``random+o4`` (the issue's limit: 1.5 times
``mufasa+o4``), measured in alternation so that every method sees the same load.

    python benchmarks/bench_guided_time.py --partitions 0 1 --budgets 1000 3000 12000
    python benchmarks/bench_guided_time.py --guided-params '{"cost_power": 1}'   # adds a variant of guided
    python benchmarks/bench_guided_time.py --reselect 1                          # adds guided+r1 (no reselect)

For each partition (2000 training MNIST images, seed = partition) and budget, the three 50-step searches
run one after the other (default evaluator); each time is also given in yardsticks (``benchmarks/_yardstick.py``,
measured right before the group).  Prints one Markdown row per budget: mean seconds and mean ratio to
``mufasa+o4`` over the partitions.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _yardstick import DEFAULT_MNIST, mnist, yardstick

import metafx
from metafx.core.validation import split_indices

METHODS = {"mufasa+o4": ("mufasa", 4.0, None), "random+o4": ("random", 4.0, None), "guided": ("guided", 1.0, None)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default=DEFAULT_MNIST)
    ap.add_argument("--partitions", type=int, nargs="+", default=[0, 1])
    ap.add_argument("--budgets", type=float, nargs="+", default=[1000, 3000, 12000])
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--guided-params", type=json.loads, default=None,
                    help="JSON engine_params of a variant of guided, timed as a fourth method")
    ap.add_argument("--reselect", type=int, default=None,
                    help="also time guided+rR: guided with metafx.search(..., reselect=R) (guided's default: 3)")
    args = ap.parse_args()
    methods = dict(METHODS)
    if args.guided_params:
        methods["guided'"] = ("guided", 1.0, None)
    if args.reselect:
        methods[f"guided+r{args.reselect}"] = ("guided", 1.0, args.reselect)
    X, y = mnist(args.data_dir)
    secs: dict = {}
    for b in args.budgets:
        for p in args.partitions:
            tr, _ = split_indices(len(y), 2000, 2000, seed=p)
            ys = yardstick(X, y)
            for m, (engine, o, r) in methods.items():
                t = time.perf_counter()
                metafx.search(X[tr], y[tr], family="pixel-and", budget=b, steps=args.steps, engine=engine,
                              seed=p, progress=False, oversample=o, reselect=r,
                              engine_params=args.guided_params if m == "guided'" else None)
                s = time.perf_counter() - t
                secs.setdefault((b, m), []).append((s, s / ys))
                print(f"partition {p} budget {b:g} {m}: {s:.1f} s ({s / ys:.1f} yardsticks)", file=sys.stderr,
                      flush=True)
    if args.guided_params:
        print(f"guided': guided with engine_params {json.dumps(args.guided_params)}")
    print("| budget | " + " | ".join(f"{m} s (yardsticks)" for m in methods) + " | "
          + " | ".join(f"{g} / mufasa+o4" for g in methods if g.startswith("guided")) + " |")
    print("|---|" + "---|" * (len(methods) + sum(g.startswith("guided") for g in methods)))
    for b in args.budgets:
        cells = [f"{np.mean([s for s, _ in secs[(b, m)]]):.1f} ({np.mean([v for _, v in secs[(b, m)]]):.0f})"
                 for m in methods]
        cells += [f"{np.mean([g[0] / mu[0] for g, mu in zip(secs[(b, m)], secs[(b, 'mufasa+o4')], strict=True)]):.2f}"
                  for m in methods if m.startswith("guided")]
        print(f"| {b:g} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
