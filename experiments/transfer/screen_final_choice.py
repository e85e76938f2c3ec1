"""Issue 46's screen of final-choice rules (experiments/transfer/RULE_FINAL_CHOICE.md), offline.

Reads diagnose_flat.py records written with ``--extra-splits K`` (every step's CV quality, its scores on K fresh
splits, the first being reselect's, its kind, size and test error) and, for every target, arm and J read as a
prefix of the 50-step search (cold: every J; warm: J >= 10, the J = 5 warm search is not a prefix), applies each
rule to the first J steps and reports the mean test error (%) of the step it keeps.

    python experiments/transfer/screen_final_choice.py R/scr_s300.jsonl R/scr_s301.jsonl ...
    python experiments/transfer/screen_final_choice.py          # the stored ones (records/final_choice_screen/)
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # experiments/records.py
import records

STORED = [str(Path(__file__).resolve().parent / "records" / "final_choice_screen" / f"scr_s{s}.jsonl")
          for s in (300, 301, 302, 303)]
JS = (5, 10, 20, 50)


def choose(steps, r=3, splits=1, penalty=0.0, smallest=None):
    """The kept step of ``steps``: the ``r`` best by CV quality (portfolio steps' quality minus ``penalty``),
    then the best mean of the CV quality and the first ``splits`` fresh scores (ties: the better CV quality,
    then the earlier place); ``smallest``: the smallest set whose mean is within this of the best mean."""
    scored = [s for s in steps if s["test_error"] is not None]

    def q(s):
        return s["quality"] - (penalty if s["kind"] in ("portfolio", "prior") else 0.0)

    # the loop's order: by quality, the later step first (the guided engine accepts ties)
    top = sorted(scored, key=lambda s: (-q(s), -s["step"]))[:r]
    if r == 1:
        return top[0]
    means = [(q(s) + sum(s["splits"][:splits])) / (1 + splits) for s in top]
    k = max(range(len(top)), key=lambda i: (means[i], q(top[i]), -i))
    if smallest is None:
        return top[k]
    near = [i for i in range(len(top)) if means[i] >= means[k] - smallest]
    return top[min(near, key=lambda i: (top[i]["n"], -means[i]))]


RULES = {
    "T: reselect 3 (today)": {},
    "best CV quality (reselect 1)": {"r": 1},
    "reselect 5": {"r": 5},
    "reselect 10": {"r": 10},
    "reselect all": {"r": 10**6},
    "reselect 3, 2 splits": {"splits": 2},
    "reselect 3, 3 splits": {"splits": 3},
    "reselect 5, 3 splits": {"r": 5, "splits": 3},
    "reselect 10, 3 splits": {"r": 10, "splits": 3},
    "reselect all, 3 splits": {"r": 10**6, "splits": 3},
    "portfolios -0.002": {"penalty": 0.002},
    "portfolios -0.003": {"penalty": 0.003},
    "reselect 10, portfolios -0.003": {"r": 10, "penalty": 0.003},
    "smallest within 0.001 of 3": {"smallest": 0.001},
    "smallest within 0.002 of 10": {"r": 10, "smallest": 0.002},
}


def fill_copies(steps):
    """A portfolio step that the honest check replaced by the best set so far drew no set of its own (the
    record has no test error for it): it is that set, so it takes the latest earlier step of the same quality's."""
    for i, s in enumerate(steps):
        if s["test_error"] is None and s["n"]:
            same = [t for t in steps[:i] if t["quality"] == s["quality"] and t["test_error"] is not None]
            if same:
                s.update(test_error=same[-1]["test_error"], splits=same[-1]["splits"], copy_of=same[-1]["step"])
    return steps


def rows_of(paths):
    out = []
    for p in paths:
        text = Path(p).read_text() if Path(p).exists() else records.read_text(p)
        out += [json.loads(line) for line in text.splitlines() if line.strip()]
    for r in out:
        fill_copies(r["steps"])
    return out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*", default=STORED)
    a = ap.parse_args(argv)
    rows = rows_of(a.paths)
    same = sum(choose(r["steps"])["step"] == r["best_step"] for r in rows)
    print(f"{len(rows)} searches; today's rule keeps the stored 50-step choice in {same} of {len(rows)}")
    cells = [(arm, J) for arm in ("cold", "warm") for J in JS if not (arm == "warm" and J == 5)]
    print("| rule | " + " | ".join(f"{arm} {J}" for arm, J in cells)
          + " | warm 10 - cold 50 | rule - T, mean over the cells (se over searches) |")
    print("|---|" + "---|" * (len(cells) + 2))
    ref = None
    for name, kw in RULES.items():
        err = {}
        for arm, J in cells:
            err[arm, J] = np.array([100 * choose(r["steps"][:J], **kw)["test_error"] for r in rows if r["arm"] == arm])
        gap = err["warm", 10].mean() - err["cold", 50].mean()
        ref = err if ref is None else ref
        d = np.concatenate([err[c] - ref[c] for c in cells])
        print(f"| {name} | " + " | ".join(f"{err[c].mean():.2f}" for c in cells)
              + f" | {gap:+.2f} | {d.mean():+.3f} ({d.std(ddof=1) / np.sqrt(len(d)):.3f}) |")


if __name__ == "__main__":
    main()
