"""What an optuna storage costs the ``optuna`` engine per trial.

Runs the same search (TPE, digits, a cheap evaluator so that the storage shows)
in memory, on an SQLite file and, when a server is given, on PostgreSQL, and
prints per trial: wall milliseconds between the first and the last step
(opening the study excluded), the storage overhead (storage minus in-memory)
and the ratio to the in-memory run of the same round, the same in CPU time of
this process (what the storage costs here, less sensitive to a busy machine;
the database server's own work is not in it), SQL statements and commits
(SQLAlchemy's count, read-only transactions included).
Medians over ``--repeat`` rounds; the three storages alternate within a round.

    python benchmarks/bench_optuna_storage.py [--steps 40] [--repeat 3] [--evaluator loo-1nn] [--load idle|loaded|both]
        [--postgres postgresql://user@127.0.0.1:55432/db]   # default: $METAFX_TEST_POSTGRES_URL

"loaded": the same next to one competing busy process (``benchmarks/_yardstick.py``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
import uuid

import sqlalchemy
from _yardstick import competing, conditions
from sqlalchemy import event

import metafx

_COUNT = {"statements": 0, "commits": 0}


@event.listens_for(sqlalchemy.engine.Engine, "before_cursor_execute")
def _statement(*args, **kw):
    _COUNT["statements"] += 1


@event.listens_for(sqlalchemy.engine.Engine, "commit")
def _commit(*args, **kw):
    _COUNT["commits"] += 1


def one(X, y, storage, args) -> dict:
    marks: list[float] = []
    counts: list[tuple[int, int]] = []
    cpu: list[float] = []

    def cb(state, rec):
        marks.append(time.perf_counter())
        cpu.append(time.process_time())
        counts.append((_COUNT["statements"], _COUNT["commits"]))

    t0 = time.perf_counter()
    metafx.search(X, y, budget=args.budget, steps=args.steps, engine="optuna", evaluator=args.evaluator,
                  engine_params={"sampler": "tpe"}, seed=0, progress=False, callbacks=[cb], storage=storage,
                  study_name=f"bench-{uuid.uuid4().hex[:8]}" if storage else None)
    n = len(marks) - 1
    return {"per_trial": (marks[-1] - marks[0]) / n, "open": marks[0] - t0, "cpu": (cpu[-1] - cpu[0]) / n,
            "statements": (counts[-1][0] - counts[0][0]) / n, "commits": (counts[-1][1] - counts[0][1]) / n}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--budget", type=float, default=40)
    ap.add_argument("--n-train", type=int, default=300)
    ap.add_argument("--evaluator", default="loo-1nn")
    ap.add_argument("--postgres", default=os.environ.get("METAFX_TEST_POSTGRES_URL"))
    ap.add_argument("--load", default="idle", choices=["both", "idle", "loaded"])
    args = ap.parse_args()
    for label, n_competing in conditions(args.load):
        with competing(n_competing):
            table(args, label)


def table(args, label: str) -> None:
    X, y = metafx.load_dataset("digits")
    X, y = X[: args.n_train], y[: args.n_train]
    tmp = tempfile.mkdtemp()
    stores = {"memory": lambda r: None, "sqlite": lambda r: f"sqlite:///{tmp}/bench-{r}.db"}
    if args.postgres:
        stores["postgresql"] = lambda r: args.postgres
    one(X, y, None, args)  # warm up (numba, imports)
    runs: dict[str, list[dict]] = {k: [] for k in stores}
    for r in range(args.repeat):
        for name, url in stores.items():
            runs[name].append(one(X, y, url(r), args))
    mem = [m["per_trial"] for m in runs["memory"]]
    print(f"[{label}] optuna engine, TPE, {args.steps} steps, budget {args.budget:g}, evaluator {args.evaluator}, "
          f"digits n={args.n_train}; medians of {args.repeat}")
    print(f"{'storage':<11} {'ms/trial':>9} {'overhead ms':>12} {'ratio':>6} {'CPU ms/trial':>13} {'CPU overhead':>13} "
          f"{'open s':>7} {'SQL/trial':>10} {'commits/trial':>14}")
    mem_cpu = [m["cpu"] for m in runs["memory"]]
    for name, ms in runs.items():
        per = statistics.median(m["per_trial"] for m in ms)
        over = statistics.median(m["per_trial"] - b for m, b in zip(ms, mem, strict=True))
        ratio = statistics.median(m["per_trial"] / b for m, b in zip(ms, mem, strict=True))
        cpu = statistics.median(m["cpu"] for m in ms)
        cpu_over = statistics.median(m["cpu"] - b for m, b in zip(ms, mem_cpu, strict=True))
        print(f"{name:<11} {per * 1e3:9.1f} {over * 1e3:12.1f} {ratio:6.2f} {cpu * 1e3:13.1f} {cpu_over * 1e3:13.1f} "
              f"{statistics.median(m['open'] for m in ms):7.2f} {statistics.median(m['statements'] for m in ms):10.1f} "
              f"{statistics.median(m['commits'] for m in ms):14.1f}")


if __name__ == "__main__":
    main()
