"""Issue 46's diagnosis: why the default warm start is flat in J (experiments/transfer/DIAGNOSIS_FLAT.md).

For every target of a seed of the transfer protocol (examples/transfer_search.py: the same targets, sources and
splits), runs the warm and the cold search of 50 steps with the default engine and records, for every step, its
kind (warm-start point, prior portfolio, portfolio, point), CV quality, number of features, and the test error of
its set (a linear SVM as metafx.holdout_error fits it; the test half is never seen by the search).  The searches
of J = 5, 10, 20 steps of the protocol are read from these trajectories where they are prefixes (see the
analysis).  Writes one JSON line per target and arm to ``--out``.

    NUMBA_NUM_THREADS=1 python experiments/transfer/diagnose_flat.py --seed 300 --out R/diag_s300.jsonl
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path

import numpy as np

import metafx
from metafx.default_plugins.guided import GuidedSearch

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))
from transfer_search import pair_task


class RecordingGuided(GuidedSearch):
    """The default engine, keeping every step's set (the one it scored) by step."""

    extra_splits = 0

    def setup(self, problem, seed):
        super().setup(problem, seed)
        self.step_sets_ = {}
        self.splits_ = {}

    def draw(self, problem, candidate, rng):
        batch = super().draw(problem, candidate, rng)
        step = int(candidate.keys[1])
        self.step_sets_[step] = problem.family.to_json(batch)
        if self.extra_splits and len(batch):  # the set's scores on fresh splits, as reselect's second score
            values = problem.family.compute(problem.prepared, batch)
            self.splits_[step] = [float(problem.evaluator.evaluate(values, problem.y, random_state=s))
                                  for s in split_seeds(problem.eval_seed, self.extra_splits)]
        return batch


def split_seeds(eval_seed, k):
    """The evaluator's seeds of ``k`` fresh splits: the first is reselect's (metafx.loop.loop.reselect_seed)."""
    return [int(np.random.SeedSequence([int(eval_seed), 2 + i]).generate_state(1)[0]) for i in range(k)]


def plan_of(seed, targets=5, sources=4):
    pairs = [(i, j) for i in range(10) for j in range(i + 1, 10)]
    rng = np.random.default_rng(seed)
    tgts = [pairs[k] for k in rng.choice(len(pairs), size=targets, replace=False)]
    plan = {}
    for t in tgts:
        disjoint = [p for p in pairs if not set(p) & set(t)]
        plan[t] = [disjoint[k] for k in rng.choice(len(disjoint), size=sources, replace=False)]
    return plan


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--sources-dir", help="folder of source_<ab>.json of the same seed (else searched here)")
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--targets", type=int, nargs="*", help="only these target indices (0-4)")
    ap.add_argument("--engine-params", type=json.loads, default=None)
    ap.add_argument("--extra-splits", type=int, default=0,
                    help="score every step's set on this many fresh splits too (the first: reselect's)")
    ap.add_argument("--arms", nargs="+", default=["cold", "warm"], choices=["cold", "warm"])
    a = ap.parse_args(argv)
    X, y = metafx.load_dataset("mnist")
    kw = dict(budget=200, seed=a.seed, progress=False)
    plan = plan_of(a.seed)
    out = Path(a.out)
    done = {json.loads(line)["key"] for line in out.read_text().splitlines()} if out.exists() else set()
    src_dir = Path(a.sources_dir) if a.sources_dir else out.parent / f"sources_s{a.seed}"
    src_dir.mkdir(parents=True, exist_ok=True)
    for i, (t, srcs) in enumerate(plan.items()):
        if a.targets and i not in a.targets:
            continue
        warm = []
        for s in srcs:
            path = src_dir / f"source_{s[0]}{s[1]}.json"
            if not path.exists():
                Xs, ys, _, _ = pair_task(X, y, *s, a.seed)
                metafx.search(Xs, ys, steps=50, **kw).to_json(path)
            warm.append(metafx.SearchResult.from_json(path))
        Xtr, ytr, Xte, yte = pair_task(X, y, *t, a.seed)
        for arm in a.arms:
            key = f"{t[0]}{t[1]} {arm}"
            if key in done:
                continue
            eng = RecordingGuided(**(a.engine_params or {}))
            eng.extra_splits = a.extra_splits
            res = metafx.search(Xtr, ytr, steps=a.steps, engine=eng, warm_start=warm if arm == "warm" else None, **kw)
            steps = []
            for rec in res.trajectory:
                specs = eng.step_sets_.get(rec.step, [])
                err = metafx.holdout_error(dataclasses.replace(res, features=specs), Xtr, ytr, Xte, yte)[0] \
                    if specs else None
                src = eng.portfolio_sources_.get(rec.step)
                kind = "prior" if src == "prior" else rec.kind
                steps.append({"step": rec.step, "kind": kind, "quality": rec.quality, "n": rec.n_features,
                              "test_error": err, "point": rec.point})
                if a.extra_splits:
                    steps[-1]["splits"] = eng.splits_.get(rec.step)
            line = {"key": key, "seed": a.seed, "target": list(t), "arm": arm, "best_step": res.best_step,
                    "reselect": res.metadata.get("reselect"), "warm_points": len(warm) if arm == "warm" else 0,
                    "test_error": metafx.holdout_error(res, Xtr, ytr, Xte, yte)[0], "steps": steps}
            with open(out, "a") as fh:
                fh.write(json.dumps(line) + "\n")
            print(key, res.best_step, round(line["test_error"] * 100, 2), flush=True)


if __name__ == "__main__":
    main()
