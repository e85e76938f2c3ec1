"""Does the choice among a ``guided`` search's best sets matter?  Test error of the ``top`` best steps'
sets by CV quality, on dev partitions (not the protocol's 0-9).

    python experiments/guided/bench_guided_topsets.py --partitions 100 101 102 103 104 --budgets 3000 12000 --out topsets.jsonl

For each partition (2000 training and 2000 test MNIST images, seed = partition, as in
``examples/guided_extraction_mnist.py``) and budget, one ``guided`` search with its defaults (the same as
``metafx.search(..., engine="guided", seed=partition)``) records the set of every step; the ``top`` sets of the
best CV quality are each given the protocol's final linear SVM (C by CV on the training images) and tested.
Prints, per budget, the mean test error of the best set by CV, of the search's choice (after its
reselection), the mean over the top sets, the best of them (an oracle that looks at the test images, for
scale only), and the mean Spearman correlation between CV quality and test accuracy among them.
Each search appends one JSON line to ``--out`` (skipped when already there).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import numpy as np
from scipy.stats import spearmanr

import metafx
import metafx.plugin
from metafx.core.validation import split_indices
from metafx.default_plugins.guided import GuidedSearch
from metafx.learn.svm import fit_linear_svm

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # experiments/records.py
import records


class RecordingGuided(GuidedSearch):
    """``guided`` that keeps the set each step drew (by step number; the draw is the engine's)."""

    def setup(self, problem, seed):
        super().setup(problem, seed)
        self.drawn_ = {}

    def draw(self, problem, candidate, rng):
        batch = super().draw(problem, candidate, rng)
        self.drawn_[int(candidate.keys[1])] = batch
        return batch


def run_one(X, y, p: int, budget: float, top: int) -> dict:
    tr, te = split_indices(len(y), 2000, 2000, seed=p)
    eng = RecordingGuided()
    res = metafx.search(X[tr], y[tr], family="pixel-and", budget=budget, steps=50, engine=eng, seed=p,
                        progress=False)
    q = np.array([r.quality for r in res.trajectory])
    best = np.argsort(-q, kind="stable")[:top]
    fam = metafx.plugin.make_component("family", "pixel-and")
    fam.fit(X[tr], y[tr])
    ptr, pte = fam.prepare(X[tr]), fam.prepare(X[te])
    errors = []
    for i in best:
        batch = eng.drawn_[int(res.trajectory[i].step)]
        model = fit_linear_svm(fam.compute(ptr, batch), y[tr], C="cv", random_state=p)
        errors.append(float(np.mean(model.predict(fam.compute(pte, batch)) != y[te])))
    steps = [int(res.trajectory[i].step) for i in best]
    return {"partition": p, "budget": budget, "chosen_step": int(res.best_step), "steps": steps,
            "cv_quality": q[best].tolist(), "test_error": errors, "n_features": [len(eng.drawn_[s]) for s in steps]}


def main() -> None:
    here = Path(__file__).resolve().parents[2]
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default=os.environ.get("METAFX_MNIST_DIR", str(here.parent / "shared/data/mnist")))
    ap.add_argument("--partitions", type=int, nargs="+", default=[100, 101, 102, 103, 104])
    ap.add_argument("--budgets", type=float, nargs="+", default=[3000, 12000])
    ap.add_argument("--top", type=int, default=8)
    ap.add_argument("--out", default="topsets.jsonl")
    args = ap.parse_args()
    if any(0 <= p <= 9 for p in args.partitions):
        raise SystemExit("--partitions: 0-9 are the protocol's partitions, whose test images are not for choosing")
    X, y = metafx.load_dataset("mnist", data_dir=args.data_dir)
    out = Path(args.out)
    recs = [json.loads(line) for line in records.read_text(out).splitlines() if line.strip()] if records.exists(out) else []
    done = {(r["partition"], r["budget"]) for r in recs}
    for p in args.partitions:
        for b in args.budgets:
            if (p, b) in done:
                continue
            rec = run_one(X, y, p, b, args.top)
            with open(out, "a") as fh:
                fh.write(json.dumps(rec) + "\n")
            recs.append(rec)
            print(f"partition {p} budget {b:g}: test error of the top {args.top} sets by CV "
                  f"{' '.join(f'{100 * e:.2f}' for e in rec['test_error'])}", flush=True)
    print(f"| budget | n | best by CV | the search's choice | mean of the top {args.top} | best of the top {args.top} "
          "(looks at the test images) | Spearman(CV, test accuracy) |")
    print("|---|---|---|---|---|---|---|")
    for b in sorted({r["budget"] for r in recs}):
        rs = [r for r in recs if r["budget"] == b and r["partition"] in args.partitions]
        chosen = [r["test_error"][r["steps"].index(r["chosen_step"])] for r in rs if r["chosen_step"] in r["steps"]]
        rho = [spearmanr(r["cv_quality"], -np.array(r["test_error"])).statistic for r in rs]
        print(f"| {b:g} | {len(rs)} | {100 * np.mean([r['test_error'][0] for r in rs]):.2f} | "
              f"{100 * np.mean(chosen):.2f} ({len(chosen)}) | {100 * np.mean([np.mean(r['test_error']) for r in rs]):.2f} | "
              f"{100 * np.mean([min(r['test_error']) for r in rs]):.2f} | {np.nanmean(rho):.2f} |")


if __name__ == "__main__":
    main()
