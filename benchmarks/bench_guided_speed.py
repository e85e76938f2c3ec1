"""Time of engine ``guided``: the draw of a point's set and the whole default search, this tree against a
reference commit (the code before a change), both in yardsticks (``benchmarks/_yardstick.py``) measured in the same run.

    python benchmarks/bench_guided_speed.py --reference 9fb91be
    python benchmarks/bench_guided_speed.py --reference 9fb91be --partitions 100 101 --rounds 2 --budget 3000

The reference commit is exported (``git archive``) to a temporary directory; each measurement runs in a
fresh process with either tree first on ``PYTHONPATH``, the two trees in alternation, so both see the same
load.  Times are CPU seconds of the process (``time.process_time``; everything runs on one thread), which a
busy machine disturbs much less than wall-clock seconds.  A process measures, on the partition's 2000
training MNIST images (seed = partition):

* the yardstick (one ``LinearSVC(C=0.1, dual=False)`` fit on 2000 x 784 raw pixels as in ``_yardstick.py``,
  median of 3, in CPU seconds);
* *draw per point*: ``GuidedSearch.point_set`` (the engine's default ``pool_factor`` and filter) at
  six points met by earlier searches, generators 0-3 each, at ``--budget``; per point, the best of 3 passes;
* *search*: ``metafx.search(..., engine="guided", budget, steps)`` with every other default, in s, and the
  share of it spent in ``point_set`` and the portfolio draws (the engine's ``draw``).

Each process also prints a digest of the sets drawn and of the search's trajectory: the two trees must draw
the same sets and make the same search (the script says so, or stops).  The table gives, per tree, the
medians over rounds and partitions, and the ratio reference / this tree.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
POINTS = [{"numInputs": 4, "percentPos": 51, "shiftInvLen": 3, "scatter": 1.25},
          {"numInputs": 8, "percentPos": 8, "shiftInvLen": 3, "scatter": 2.46},
          {"numInputs": 3, "percentPos": 57, "shiftInvLen": 2, "scatter": 1.59},
          {"numInputs": 7, "percentPos": 29, "shiftInvLen": 1, "scatter": 3.44},
          {"numInputs": 2, "percentPos": 50, "shiftInvLen": 1, "scatter": 1.06},
          {"numInputs": 6, "percentPos": 40, "shiftInvLen": 5, "scatter": 1.9}]


def worker(args) -> dict:
    """One tree's measurements (run in a process whose ``PYTHONPATH`` starts with that tree)."""
    sys.path.insert(0, str(HERE))
    from _yardstick import mnist, yardstick

    import metafx
    from metafx.core.validation import split_indices
    from metafx.default_plugins.guided import GuidedSearch
    from metafx.loop.components import make_component
    from metafx.loop.problem import SearchProblem

    X, y = mnist(args.data_dir)
    tr, _ = split_indices(len(y), 2000, 2000, seed=args.partition)
    prob = SearchProblem(make_component("family", "pixel-and", None), X[tr], y[tr],
                         make_component("set-evaluator", "cv-linear-svm", None), args.budget, eval_seed=args.partition)
    eng = GuidedSearch()
    eng.setup(prob, args.partition)
    eng.point_set(prob, POINTS[0], np.random.default_rng(0))  # compile / load the kernels
    metafx.search(X[tr[:300]], y[tr[:300]], family="pixel-and", budget=60, steps=4, engine="guided", seed=0,
                  progress=False, engine_params={"n_init": 2, "portfolio_every": 2})
    ys = yardstick(X, y, clock=time.process_time)  # CPU seconds
    digest = hashlib.md5()
    draw = float("inf")
    for rep in range(3):
        t = time.process_time()
        for pt in POINTS:
            for s in range(4):
                b = eng.point_set(prob, pt, np.random.default_rng(s))
                if rep == 0:
                    digest.update(json.dumps(prob.family.to_json(b)).encode())
        draw = min(draw, (time.process_time() - t) / (4 * len(POINTS)))
    spent = [0.0]
    inner = GuidedSearch.draw

    def timed(self, *a, **k):
        t0 = time.process_time()
        try:
            return inner(self, *a, **k)
        finally:
            spent[0] += time.process_time() - t0

    GuidedSearch.draw = timed
    t, wall = time.process_time(), time.perf_counter()
    res = metafx.search(X[tr], y[tr], family="pixel-and", budget=args.budget, steps=args.steps, engine="guided",
                        seed=args.partition, progress=False)
    search, wall = time.process_time() - t, time.perf_counter() - wall
    GuidedSearch.draw = inner
    for r in res.trajectory:
        digest.update(json.dumps([r.step, r.point, repr(r.quality), r.n_features], sort_keys=True,
                                 default=str).encode())
    digest.update(json.dumps(res.features, sort_keys=True).encode())
    return {"yardstick": ys, "draw": draw, "search": search, "drawing": spent[0], "wall": wall,
            "digest": digest.hexdigest()}


def run_tree(tree: Path, args, partition: int) -> dict:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tree), os.environ.get("PYTHONPATH", "")]))
    cmd = [sys.executable, str(HERE / "bench_guided_speed.py"), "--worker", "--partition", str(partition),
           "--budget", str(args.budget), "--steps", str(args.steps), "--data-dir", args.data_dir]
    out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True, cwd=tree).stdout
    return json.loads(out.strip().splitlines()[-1])


def main(argv=None) -> int:
    from _yardstick import DEFAULT_MNIST

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reference", default=None, help="the commit to compare with (git rev)")
    ap.add_argument("--partitions", type=int, nargs="+", default=[100])
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--budget", type=float, default=3000)
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--data-dir", default=DEFAULT_MNIST)
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--partition", type=int, default=100, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(args)))
        return 0
    root = HERE.parent
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True).stdout
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=root, capture_output=True,
                           text=True).stdout.strip()
    trees = {f"this tree ({head.strip()}{'+' if dirty else ''})": root}
    with tempfile.TemporaryDirectory() as tmp:
        if args.reference:
            ref = Path(tmp) / "reference"
            ref.mkdir()
            archive = subprocess.run(["git", "archive", args.reference], cwd=root, check=True, capture_output=True)
            subprocess.run(["tar", "-x", "-C", str(ref)], input=archive.stdout, check=True)
            (ref / "benchmarks").mkdir(exist_ok=True)
            for f in ("_yardstick.py", "bench_guided_speed.py"):  # this script's worker, run on that tree's code
                (ref / "benchmarks" / f).write_text((HERE / f).read_text())
            trees = {f"reference ({args.reference})": ref, **trees}
        got: dict[str, list[dict]] = {k: [] for k in trees}
        for r in range(args.rounds):
            for p in args.partitions:
                digests = set()
                for name, tree in trees.items():
                    m = run_tree(tree, args, p)
                    m["partition"] = p
                    got[name].append(m)
                    digests.add(m["digest"])
                    print(f"round {r} partition {p} {name}: draw {1e3 * m['draw']:.1f} ms, search {m['search']:.1f} s "
                          f"({m['wall']:.1f} s wall), yardstick {m['yardstick']:.3f} s (CPU)", file=sys.stderr,
                          flush=True)
                if len(digests) != 1:
                    raise SystemExit(f"partition {p}: the trees drew different sets or made different searches")
    print(f"guided, budget {args.budget:g}, {args.steps} steps, 2000 MNIST images, partitions "
          f"{' '.join(map(str, args.partitions))}, {args.rounds} rounds; the trees drew the same sets and made the "
          "same searches; medians; CPU seconds")
    print("| code | draw per point, ms | draw per point, yardsticks | search, s | search, yardsticks "
          "| share of the search drawing |")
    print("|---|---|---|---|---|---|")
    med = {}
    for name, ms in got.items():
        d = np.median([m["draw"] for m in ms])
        dy = np.median([m["draw"] / m["yardstick"] for m in ms])
        s = np.median([m["search"] for m in ms])
        sy = np.median([m["search"] / m["yardstick"] for m in ms])
        share = np.median([m["drawing"] / m["search"] for m in ms])
        med[name] = (dy, sy, np.median([m["drawing"] / m["yardstick"] for m in ms]))
        print(f"| {name} | {1e3 * d:.1f} | {dy:.3f} | {s:.1f} | {sy:.1f} | {100 * share:.0f} % |")
    if args.reference:
        (_rn, rv), (_cn, cv) = med.items()
        print(f"\nreference / this tree, in yardsticks: draw per point {rv[0] / cv[0]:.2f}, drawing within the search "
              f"{rv[2] / cv[2]:.2f}, whole search {rv[1] / cv[1]:.2f}")
        raw = {name: [np.median([m[k] for m in ms]) for k in ("draw", "drawing", "search")] for name, ms in got.items()}
        (_, r), (_, c) = raw.items()
        print(f"reference / this tree, in CPU seconds: draw per point {r[0] / c[0]:.2f}, drawing within the search "
              f"{r[1] / c[1]:.2f}, whole search {r[2] / c[2]:.2f}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    raise SystemExit(main())
