"""Issue 46's diagnosis from the trajectories of diagnose_flat.py (every step's CV quality, size and test error):
why the default warm start is flat from J = 5 to 20 (experiments/transfer/DIAGNOSIS_FLAT.md).

    python experiments/transfer/analyse_flat.py R/diag_s300.jsonl R/diag_s301.jsonl ...
    python experiments/transfer/analyse_flat.py       # the stored records/diagnosis_flat/diag_s30{0,1}.jsonl

A warm search of J >= 8 steps starts with the same 4 warm-start points and prior portfolio, so its first J steps are
those of the 50-step search (checked against the stored records in the note); a cold search's first J steps too.
Per arm and J: the step of best CV quality among the first J (the loop's choice before ``reselect``), its kind,
size, quality and test error; the best test error among the first J steps (what a perfect choice would give); and
the optimism (CV quality minus test accuracy) by step kind.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # experiments/records.py
import records

STORED = [Path(__file__).resolve().parent / "records" / "diagnosis_flat" / f"diag_s{s}.jsonl" for s in (300, 301)]


def load(paths):
    rows = []
    for p in paths or STORED:
        rows += [json.loads(line) for line in records.read_text(p).splitlines() if line.strip()]
    return rows


def best_of(steps):
    """The loop's best by quality (ties: the later step, as guided accepts ties)."""
    return max(steps, key=lambda s: (s["quality"], s["step"]))


def main(paths):
    rows = load(paths)
    print(f"{len(rows)} searches ({len({(r['seed'], tuple(r['target'])) for r in rows})} targets), "
          f"seeds {sorted({r['seed'] for r in rows})}\n")
    print("| arm, J | best-quality step: kinds | its size | its CV quality | its test error % | "
          "best test error among the J steps % | mean test error of the 5 best-quality steps % |")
    print("|---|---|---|---|---|---|---|")
    for arm in ("cold", "warm"):
        for J in (10, 20, 50):
            sel, orc, top5, kinds, sizes, qs = [], [], [], Counter(), [], []
            for r in rows:
                if r["arm"] != arm:
                    continue
                st = [s for s in r["steps"][:J] if s["test_error"] is not None]
                b = best_of(st)
                kinds[b["kind"] if b["kind"] != "prior" else "prior portfolio"] += 1
                sel.append(b["test_error"]), sizes.append(b["n"]), qs.append(b["quality"])
                orc.append(min(s["test_error"] for s in st))
                top = sorted(st, key=lambda s: (-s["quality"], -s["step"]))[:5]
                top5.append(np.mean([s["test_error"] for s in top]))
            print(f"| {arm}, {J} | {dict(kinds)} | {np.mean(sizes):.0f} (median {np.median(sizes):.0f}) | "
                  f"{np.mean(qs):.4f} | {100 * np.mean(sel):.2f} | {100 * np.mean(orc):.2f} | "
                  f"{100 * np.mean(top5):.2f} |")
    print("\noptimism (CV quality - test accuracy, points) and size by step kind, steps of quality >= 0.97:\n")
    print("| arm | kind | steps | mean size | mean CV quality | mean test error % | optimism |")
    print("|---|---|---|---|---|---|---|")
    for arm in ("cold", "warm"):
        for kind in ("point", "portfolio", "prior"):
            st = [s for r in rows if r["arm"] == arm for s in r["steps"]
                  if s["kind"] == kind and s["test_error"] is not None and s["quality"] >= 0.97]
            if not st:
                continue
            q = np.array([s["quality"] for s in st])
            e = np.array([s["test_error"] for s in st])
            print(f"| {arm} | {kind} | {len(st)} | {np.mean([s['n'] for s in st]):.0f} | {q.mean():.4f} | "
                  f"{100 * e.mean():.2f} | {100 * (q - (1 - e)).mean():+.2f} |")
    print("\nwithin a search, steps of quality >= 0.98: does higher CV quality mean lower test error? Spearman "
          "correlation of quality and test error, mean over searches (negative: it does):\n")
    for arm in ("cold", "warm"):
        cs = []
        for r in rows:
            if r["arm"] != arm:
                continue
            st = [s for s in r["steps"] if s["test_error"] is not None and s["quality"] >= 0.98]
            if len(st) >= 5:
                q = np.argsort(np.argsort([s["quality"] for s in st]))
                e = np.argsort(np.argsort([s["test_error"] for s in st]))
                cs.append(np.corrcoef(q, e)[0, 1])
        print(f"{arm}: {np.mean(cs):+.2f} over {len(cs)} searches")
    print("\nsize of the set (features) against test error, steps of quality >= 0.98, both arms:\n")
    st = [s for r in rows for s in r["steps"] if s["test_error"] is not None and s["quality"] >= 0.98]
    for lo, hi in ((0, 60), (60, 100), (100, 160), (160, 201)):
        g = [s for s in st if lo <= s["n"] < hi]
        if g:
            print(f"  {lo}-{hi - 1} features: {len(g)} steps, CV quality {np.mean([s['quality'] for s in g]):.4f}, "
                  f"test error {100 * np.mean([s['test_error'] for s in g]):.2f} %")


def warm_steps(rows):
    """The warm search's steps by group, mean over targets: the warm-start points, the prior portfolio, the model's
    point steps 6-20, and each later portfolio step against the prior portfolio (on CV quality, on test error)."""
    warm = [r for r in rows if r["arm"] == "warm"]

    def at(r, k):
        return next(s for s in r["steps"] if s["step"] == k)

    def line(label, st, extra=""):
        e = [s["test_error"] for s in st if s["test_error"] is not None]
        print(f"| {label} | {np.mean([s['quality'] for s in st]):.4f} | {100 * np.mean(e):.2f} | "
              f"{np.mean([s['n'] for s in st]):.0f} | {extra} |")

    print("\n| warm steps | CV quality | test error % | size | beats the prior portfolio on CV quality / on test "
          "error |\n|---|---|---|---|---|")
    line("1-4, the warm-start points", [s for r in warm for s in r["steps"][:4]])
    prior = [at(r, 5) for r in warm]
    line("5, the prior portfolio", prior)
    model = [s for r in warm for s in r["steps"] if s["kind"] == "point" and 5 < s["step"] <= 20]
    line("6-20, the model's point steps", model, f"{np.mean([s['n'] >= 199 for s in model]):.0%} of 200 features")
    for k in range(9, 50, 5):
        st = [at(r, k) for r in warm]
        q = sum(s["quality"] >= p["quality"] for s, p in zip(st, prior, strict=True))
        e = sum(s["test_error"] < p["test_error"] for s, p in zip(st, prior, strict=True))
        line(f"{k}, portfolio", st, f"{q} / {e} of {len(st)}")


def check_stored(rows):
    """Do the trajectories reproduce the stored runs (records/prior_features_dev/T.json, the default arm of seeds
    300-307)?  The 50-step searches' choices and test errors; for J = 10 and 20, is the stored choice one of the 3
    best-quality steps of the first J (reselect's candidates) with the same test error, and is it the best one?"""
    rec = json.loads(records.read_text(Path(__file__).resolve().parent / "records" / "prior_features_dev" / "T.json"))
    stored = {(int(s), tuple(r["target"]), r["arm"], r["J"]): r for s, rs in rec["runs"].items() for r in rs}
    same50 = top3 = first = n = 0
    for r in rows:
        s50 = stored[(r["seed"], tuple(r["target"]), r["arm"], 50)]
        same50 += s50["best_step"] == r["best_step"] and s50["test_error"] == r["test_error"]
        for J in (10, 20):
            st = sorted((s for s in r["steps"][:J] if s["test_error"] is not None),
                        key=lambda s: (-s["quality"], -s["step"]))[:3]
            want = stored[(r["seed"], tuple(r["target"]), r["arm"], J)]
            hit = [s for s in st if s["step"] == want["best_step"] and s["test_error"] == want["test_error"]]
            n, top3, first = n + 1, top3 + bool(hit), first + (st[0]["step"] == want["best_step"])
    print(f"\nagainst the stored runs: 50 steps, same choice and test error in {same50} of {len(rows)}; J = 10, 20: "
          f"the stored choice among the 3 best-quality steps of the prefix in {top3} of {n}, the best in {first}")


if __name__ == "__main__":
    main(sys.argv[1:])
    warm_steps(load(sys.argv[1:]))
    check_stored(load(sys.argv[1:]))
