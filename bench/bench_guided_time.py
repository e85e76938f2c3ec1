"""Search time of engine ``guided`` against ``mufasa+o4`` and ``random+o4`` (the issue's limit: 1.5 times
``mufasa+o4``), measured in alternation so that every method sees the same load.

    python bench/bench_guided_time.py --partitions 0 1 --budgets 1000 3000 12000

For each partition (2000 training MNIST images, seed = partition) and budget, the three 50-step searches
run one after the other (default evaluator); each time is also given in yardsticks (``bench/_yardstick.py``,
measured right before the group).  Prints one Markdown row per budget: mean seconds and mean ratio to
``mufasa+o4`` over the partitions.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _yardstick import DEFAULT_MNIST, mnist, yardstick  # noqa: E402

import metafx  # noqa: E402
from metafx.core.validation import split_indices  # noqa: E402

METHODS = {"mufasa+o4": ("mufasa", 4.0), "random+o4": ("random", 4.0), "guided": ("guided", 1.0)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default=DEFAULT_MNIST)
    ap.add_argument("--partitions", type=int, nargs="+", default=[0, 1])
    ap.add_argument("--budgets", type=float, nargs="+", default=[1000, 3000, 12000])
    ap.add_argument("--steps", type=int, default=50)
    args = ap.parse_args()
    X, y = mnist(args.data_dir)
    secs: dict = {}
    for b in args.budgets:
        for p in args.partitions:
            tr, _ = split_indices(len(y), 2000, 2000, seed=p)
            ys = yardstick(X, y)
            for m, (engine, o) in METHODS.items():
                t = time.perf_counter()
                metafx.search(X[tr], y[tr], family="pixel-and", budget=b, steps=args.steps, engine=engine,
                              seed=p, progress=False, oversample=o)
                s = time.perf_counter() - t
                secs.setdefault((b, m), []).append((s, s / ys))
                print(f"partition {p} budget {b:g} {m}: {s:.1f} s ({s / ys:.1f} yardsticks)", file=sys.stderr,
                      flush=True)
    print("| budget | " + " | ".join(f"{m} s (yardsticks)" for m in METHODS) + " | guided / mufasa+o4 |")
    print("|---|" + "---|" * (len(METHODS) + 1))
    for b in args.budgets:
        cells = [f"{np.mean([s for s, _ in secs[(b, m)]]):.1f} ({np.mean([v for _, v in secs[(b, m)]]):.0f})"
                 for m in METHODS]
        ratio = np.mean([g[0] / mu[0] for g, mu in zip(secs[(b, "guided")], secs[(b, "mufasa+o4")])])
        print(f"| {b:g} | " + " | ".join(cells) + f" | {ratio:.2f} |")


if __name__ == "__main__":
    main()
