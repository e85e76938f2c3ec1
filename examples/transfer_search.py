"""Transfer inside the search (thesis section 5.5): do searches on related tasks make a new search faster?

Tasks: the one-vs-one digit pairs of MNIST (45 tasks on the same pixels).  For each of ``--targets`` target pairs
(drawn at random), ``--sources`` source pairs that share no digit with the target are drawn; a ``--max-steps``
search runs on each source (its training half).  The target search then runs with and without
``warm_start=<source results>`` for every J of ``--steps``; the chosen set's CV quality (training half) and test
error (a linear SVM, C by CV on the training half, tested on the other half) are recorded.  Every search uses
the same seed in both arms, and the test half is never seen by a search.

Every finished run is appended to ``<out>/runs.jsonl`` (a killed run started again skips what is done); the
script writes ``summary.json`` and ``summary.md`` (mean over targets per J and arm, and the target: warm J=10 at
most the cold J=max error).

    python examples/transfer_search.py                                  # MNIST, 5 targets, 4 sources each
    python examples/transfer_search.py --data digits --targets 2 --sources 2 --steps 2 4 --max-steps 4
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import numpy as np

import metafx


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    here = Path(__file__).resolve().parents[1]
    ap.add_argument("--data", default="mnist", choices=["mnist", "digits"])
    ap.add_argument("--data-dir", default=os.environ.get("METAFX_MNIST_DIR", str(here.parent / "shared/data/mnist")))
    ap.add_argument("--targets", type=int, default=5, help="number of target pairs")
    ap.add_argument("--sources", type=int, default=4, help="source pairs per target (no shared digit)")
    ap.add_argument("--steps", type=int, nargs="+", default=[5, 10, 20, 50], help="target search lengths J")
    ap.add_argument("--max-steps", type=int, default=50, help="length of the source searches")
    ap.add_argument("--budget", type=float, default=200)
    ap.add_argument("--engine", default="guided", help="search engine (default: guided, metafx's default)")
    ap.add_argument("--engine-params", type=json.loads, default=None, metavar="JSON",
                    help='parameters of the engine, e.g. \'{"prior_portfolio_every": 2}\'')
    ap.add_argument("--reselect", type=int, default=None,
                    help="metafx.search's reselect for every search, sources too (default: the engine's)")
    ap.add_argument("--reselect-splits", type=int, default=None,
                    help="metafx.search's reselect_splits for every search, sources too (default: the engine's)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=str(Path(os.environ.get("TMPDIR", "/tmp")) / "metafx-transfer"))
    return ap.parse_args(argv)


def pair_task(X, y, a, b, seed):
    """The images of digits a and b, split in two halves (train, test) at random."""
    idx = np.flatnonzero((y == a) | (y == b))
    idx = np.random.default_rng([seed, a, b]).permutation(idx)
    half = len(idx) // 2
    tr, te = np.sort(idx[:half]), np.sort(idx[half:])
    return X[tr], y[tr], X[te], y[te]


def main(argv=None) -> dict:
    a = parse_args(argv)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    if a.data == "mnist":
        X, y = metafx.load_dataset("mnist", data_dir=a.data_dir)
    else:
        X, y = metafx.load_dataset("digits")
    pairs = [(i, j) for i in range(10) for j in range(i + 1, 10)]
    rng = np.random.default_rng(a.seed)
    targets = [pairs[k] for k in rng.choice(len(pairs), size=a.targets, replace=False)]
    plan = {}
    for t in targets:
        disjoint = [p for p in pairs if not set(p) & set(t)]
        plan[t] = [disjoint[k] for k in rng.choice(len(disjoint), size=a.sources, replace=False)]

    runs_path = out / "runs.jsonl"
    done = {}
    if runs_path.exists():
        for line in runs_path.read_text().splitlines():
            r = json.loads(line)
            done[r["key"]] = r
    kw = dict(budget=a.budget, engine=a.engine, engine_params=a.engine_params, seed=a.seed, progress=False,
              reselect=a.reselect, reselect_splits=a.reselect_splits)

    def record(r):
        done[r["key"]] = r
        with open(runs_path, "a") as fh:
            fh.write(json.dumps(r) + "\n")

    sources = {}
    for srcs in plan.values():
        for s in srcs:
            key = f"source {s[0]}{s[1]} J={a.max_steps}"
            path = out / f"source_{s[0]}{s[1]}.json"
            if key not in done or not path.exists():
                Xtr, ytr, _, _ = pair_task(X, y, *s, a.seed)
                res = metafx.search(Xtr, ytr, steps=a.max_steps, **kw)
                res.to_json(path)
                record({"key": key, "pair": list(s), "quality": res.best_quality})
            sources[s] = metafx.SearchResult.from_json(path)
    for t, srcs in plan.items():
        Xtr, ytr, Xte, yte = pair_task(X, y, *t, a.seed)
        for J in a.steps:
            for arm in ("cold", "warm"):
                key = f"target {t[0]}{t[1]} {arm} J={J}"
                if key in done:
                    continue
                warm = [sources[s] for s in srcs] if arm == "warm" else None
                res = metafx.search(Xtr, ytr, steps=J, warm_start=warm, **kw)
                err, C = metafx.holdout_error(res, Xtr, ytr, Xte, yte)
                record({"key": key, "target": list(t), "arm": arm, "J": J, "quality": res.best_quality,
                        "test_error": err, "C": C, "best_point": res.best_point, "best_step": res.best_step,
                        "sources": [list(s) for s in srcs], "seconds": res.metadata.get("seconds"),
                        "reselect_seconds": (res.metadata.get("reselect") or {}).get("seconds")})
    summary = report(done, plan, a)
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    (out / "summary.md").write_text(summary["markdown"])
    print(summary["markdown"])
    return summary


def report(done, plan, a) -> dict:
    rows = {}
    for J in a.steps:
        for arm in ("cold", "warm"):
            rs = [done[f"target {t[0]}{t[1]} {arm} J={J}"] for t in plan]
            rows[f"{arm} J={J}"] = {"J": J, "arm": arm, "n": len(rs),
                                    "quality": float(np.mean([r["quality"] for r in rs])),
                                    "test_error": float(np.mean([r["test_error"] for r in rs])),
                                    "per_target": [r["test_error"] for r in rs]}
    j10 = 10 if 10 in a.steps else min(a.steps)
    jmax = max(a.steps)
    warm10, coldmax = rows[f"warm J={j10}"]["test_error"], rows[f"cold J={jmax}"]["test_error"]
    lines = [f"Transfer inside the search on {a.data} digit pairs ({len(plan)} targets, {a.sources} sources each, "
             f"engine {a.engine}, budget {a.budget:g}, seed {a.seed}); mean over targets:", "",
             "| J | CV quality, no warm start | CV quality, warm start | test error %, no warm start | "
             "test error %, warm start |", "|---|---|---|---|---|"]
    for J in a.steps:
        c, w = rows[f"cold J={J}"], rows[f"warm J={J}"]
        lines.append(f"| {J} | {c['quality']:.4f} | {w['quality']:.4f} | {100 * c['test_error']:.2f} | "
                     f"{100 * w['test_error']:.2f} |")
    lines += ["", f"Target: warm start at J={j10} ({100 * warm10:.2f} %) at most no warm start at J={jmax} "
              f"({100 * coldmax:.2f} %): {'met' if warm10 <= coldmax else 'not met'}.",
              "Targets and their sources: " + "; ".join(f"{t[0]}-{t[1]} <- " + ", ".join(f"{s[0]}-{s[1]}" for s in ss)
                                                      for t, ss in plan.items())]
    return {"rows": rows, "target_met": bool(warm10 <= coldmax), "warm_J10": warm10, "cold_Jmax": coldmax,
            "markdown": "\n".join(lines) + "\n"}


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
