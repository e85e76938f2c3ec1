"""What ``prior_weight="learned"`` chose (experiments/transfer/RULE_LEARNED_PRIOR_WEIGHT.md): for every target of
a seed of the transfer protocol, the warm search of ``--steps`` steps with the learned weights is run again on the
stored sources (the runs' folder of ``examples/transfer_search.py``), and the extra noise variance it chose for each
related task at each proposal (``metadata["prior_task_noises"]``) is counted: over all proposals, and over the first
five (those of a search of about 10 steps).

    NUMBA_NUM_THREADS=1 python experiments/transfer/prior_weight_choices.py --runs R/W_s326 --seed 326 \\
        --out experiments/transfer/records/learned_prior_weight_screen/choices_s326.json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from pathlib import Path

import metafx

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))
from transfer_search import pair_task


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", required=True, help="a folder of examples/transfer_search.py (runs.jsonl, source_*.json)")
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--data-dir", default=os.environ.get("METAFX_MNIST_DIR", "/work/shared/data/mnist"))
    ap.add_argument("--out", required=True)
    a = ap.parse_args(argv)
    X, y = metafx.load_dataset("mnist", data_dir=a.data_dir)
    runs = [json.loads(line) for line in (Path(a.runs) / "runs.jsonl").read_text().splitlines()]
    targets = {tuple(r["target"]): r["sources"] for r in runs if r.get("arm") == "warm"}
    out = {"seed": a.seed, "steps": a.steps, "targets": {}}
    total: Counter = Counter()
    early: Counter = Counter()
    for t, srcs in targets.items():
        sources = [metafx.SearchResult.from_json(Path(a.runs) / f"source_{s[0]}{s[1]}.json") for s in srcs]
        Xtr, ytr, _, _ = pair_task(X, y, *t, a.seed)
        res = metafx.search(Xtr, ytr, steps=a.steps, budget=200, warm_start=sources, seed=a.seed, progress=False,
                            engine_params={"prior_weight": "learned"})
        choices = res.metadata["prior_task_noises"]
        counts = Counter(v for c in choices for v in c.values())
        total.update(counts)
        early.update(v for c in choices[:5] for v in c.values())
        out["targets"][f"{t[0]}{t[1]}"] = {"choices": choices, "counts": {str(k): n for k, n in sorted(counts.items())},
                                           "best_step": res.best_step}
        print(f"target {t[0]}-{t[1]}: {len(choices)} proposals; " + ", ".join(f"{k:g}: {n}" for k, n in
                                                                             sorted(counts.items())))
    out["counts"] = {str(k): n for k, n in sorted(total.items())}
    out["counts_first_5"] = {str(k): n for k, n in sorted(early.items())}
    print("all: " + ", ".join(f"{k:g}: {n}" for k, n in sorted(total.items())))
    print("first 5 proposals: " + ", ".join(f"{k:g}: {n}" for k, n in sorted(early.items())))
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
