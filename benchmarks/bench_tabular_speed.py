"""Speed of a metafx-tabular fit against an earlier revision of the plugin, with a check that the picks are identical.

The plugin package of git revision ``--before`` (``git show REV:plugins/metafx-tabular/...``)
is copied to a temporary directory as ``metafx_tabular_before`` and its family
and evaluator classes are passed to ``TableExtractor`` next to the current
ones.  For every dev table (breast_cancer, wine, diabetes: the tables the
defaults were chosen on), evaluator (``cv-linear``, ``cv-tree``) and seed, the
two fit the whole table with the plugin's defaults as used by
``experiments/tabular_real/bench_tabular_real.py`` (budget 10, 30 Mufasa steps), in the same
process, alternately (``--rounds`` times; the order alternates, so a change
of the machine's load hits both alike).  Reported: whether the chosen
features, the best quality and every step's quality are identical bit for
bit, and the ratio of fit seconds (sum over the runs, and the median of the
per-run ratios)::

    python benchmarks/bench_tabular_speed.py --before 9b40083 --out experiments/tabular_real/speed.json
"""

from __future__ import annotations

import argparse
import importlib
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "experiments" / "tabular_real"))

from bench_tabular_real import DEV, load_table  # noqa: E402

PKG = "plugins/metafx-tabular/metafx_tabular"


def load_before(rev: str, tmp: Path):
    """The plugin package as it was at ``rev``, importable as ``metafx_tabular_before``."""
    dest = tmp / "metafx_tabular_before"
    dest.mkdir()
    files = subprocess.run(["git", "-C", str(ROOT), "ls-tree", "--name-only", f"{rev}:{PKG}"],
                           check=True, capture_output=True, text=True).stdout.split()
    for f in files:
        if f.endswith(".py"):
            text = subprocess.run(["git", "-C", str(ROOT), "show", f"{rev}:{PKG}/{f}"],
                                  check=True, capture_output=True, text=True).stdout
            (dest / f).write_text(text)
    sys.path.insert(0, str(tmp))
    return importlib.import_module("metafx_tabular_before")


def fit(mod, X, y, evaluator: str, seed: int, steps: int, budget: float):
    from metafx_tabular import TableExtractor

    ev = {"cv-linear": mod.CVLinear, "cv-tree": mod.CVTree}[evaluator]
    fx = TableExtractor(family=mod.TabularFamily, evaluator=ev, budget=budget, steps=steps, seed=seed)
    # every timed fit starts cold: no score remembered from an earlier round (evaluator._SCORES, since 2026-11-23)
    getattr(getattr(mod, "evaluator", None), "_SCORES", {}).clear()
    t0 = time.perf_counter()
    fx.fit(X, y)
    secs = time.perf_counter() - t0
    return secs, {"names": [str(n) for n in fx.get_feature_names_out()],
                  "qualities": [float(q).hex() for q in np.asarray(fx.result_.qualities)]}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", required=True, help="git revision of the plugin to compare with")
    ap.add_argument("--tables", nargs="+", default=list(DEV))
    ap.add_argument("--evaluators", nargs="+", default=["cv-linear", "cv-tree"], choices=["cv-linear", "cv-tree"])
    ap.add_argument("--seeds", nargs="+", type=int, default=[0, 1])
    ap.add_argument("--rounds", type=int, default=1, help="timed fits of each version per (table, evaluator, seed)")
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--budget", type=float, default=10.0)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    from threadpoolctl import threadpool_limits

    import metafx_tabular

    tmp = Path(tempfile.mkdtemp())
    runs = []
    try:
        before = load_before(args.before, tmp)
        with threadpool_limits(1):
            X, y, _ = load_table(args.tables[0])  # warm-up: imports, the plugin registry
            for mod in (before, metafx_tabular):
                fit(mod, X, y, args.evaluators[0], 0, 2, args.budget)
            for name in args.tables:
                X, y, _ = load_table(name)
                for ev in args.evaluators:
                    for seed in args.seeds:
                        t = {"before": [], "now": []}
                        out = {}
                        for r in range(args.rounds):
                            order = [("before", before), ("now", metafx_tabular)]
                            for key, mod in (order if r % 2 == 0 else order[::-1]):
                                secs, out[key] = fit(mod, X, y, ev, seed, args.steps, args.budget)
                                t[key].append(secs)
                        same = out["before"] == out["now"]
                        runs.append({"table": name, "evaluator": ev, "seed": seed, "identical": same,
                                     "seconds_before": t["before"], "seconds_now": t["now"],
                                     "names": out["now"]["names"]})
                        print(f"{name:14s} {ev:9s} seed {seed}: {'identical' if same else 'DIFFERENT'}  "
                              f"{np.median(t['before']):6.2f} s -> {np.median(t['now']):6.2f} s  "
                              f"(x{np.median(t['now']) / np.median(t['before']):.2f})", flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    tb = sum(sum(r["seconds_before"]) for r in runs)
    tn = sum(sum(r["seconds_now"]) for r in runs)
    ratios = [np.median(r["seconds_now"]) / np.median(r["seconds_before"]) for r in runs]
    n_same = sum(r["identical"] for r in runs)
    print(f"identical picks and step qualities: {n_same} of {len(runs)}; fit seconds, all runs: {tb:.1f} before, "
          f"{tn:.1f} now (now / before {tn / tb:.2f}; median per run {np.median(ratios):.2f})")
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps({"args": {k: str(v) for k, v in vars(args).items()}, "runs": runs,
                                        "total_before": tb, "total_now": tn, "median_ratio": float(np.median(ratios)),
                                        "identical": n_same}, indent=1))


if __name__ == "__main__":
    main()
