"""Side by side: two records of ``experiments/tabular_planted/bench_tabular_planted.py`` on the same seeds (before, after);
either may be several records, comma-separated.

    python experiments/tabular_planted/compare.py experiments/tabular_planted/dev_rescore0.json \
        experiments/tabular_planted/dev_rescore.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # experiments/records.py
import records


def _count(run: dict) -> str:
    fo = run["folds"]
    hits = sum(all(f["produced"]) for f in fo)
    if len(fo[0]["produced"]) > 1:
        return f"{hits} (" + " / ".join(str(sum(f["produced"][i] for f in fo)) for i in range(len(fo[0]["produced"]))) + ")"
    return str(hits)


def main(before: str, after: str) -> None:
    a = {(r["generator"], r["seed"]): r for f in before.split(",") for r in json.loads(records.read_text(f))["runs"]}
    b = {(r["generator"], r["seed"]): r for f in after.split(",") for r in json.loads(records.read_text(f))["runs"]}
    print("| generator | seed | produced, before | produced, after | linear with features, before -> after "
          "| largest per-fold drop | fit s, before -> after |")
    print("|---|---|---|---|---|---|---|")
    for key in [k for k in b if k in a]:
        ra, rb = a[key], b[key]
        la = np.array([f["linear_features"] for f in ra["folds"]])
        lb = np.array([f["linear_features"] for f in rb["folds"]])
        ta = np.mean([f["fit_s"] for f in ra["folds"]])
        tb = np.mean([f["fit_s"] for f in rb["folds"]])
        print(f"| {key[0]} | {key[1]} | {_count(ra)} | {_count(rb)} | {la.mean():.4f} -> {lb.mean():.4f} "
              f"| {min(0.0, float((lb - la).min())):+.4f} | {ta:.1f} -> {tb:.1f} |")


if __name__ == "__main__":
    main(*sys.argv[1:3])
