"""The decision of experiments/cnn48/RULE_DEFAULTS_IMAGES.md from its stored records.

    python experiments/cnn48/analyse_defaults_rule.py   # reads rule_defaults_{2000,8000,digits}.jsonl

Per size: every partition's row (the CNN, today's defaults A, the candidate B), the paired differences B - A of
the test error in points (mean, standard error, partitions where B is lower), the median ratios of training CPU
seconds and of predict cost, the CNN's multiply-adds over B's sliced word operations, B's distance to the issue's
bar (error minus the CNN's, time over the CNN's), then the digits and the six conditions.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # experiments/records.py
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import records
from bench_cnn_anchor import sliced_ops

HERE = Path(__file__).resolve().parent
B_METHOD = "metafx:budget=12544,steps=15,shift-copies"


def read(name: str) -> list[dict]:
    return [json.loads(line) for line in records.read_text(HERE / name).splitlines() if line.strip()]


def cost(r: dict) -> float:
    return r["logic_ops_per_image"] + r["macs_per_image"]


def size(n: int) -> dict:
    by = {(r["partition"], r["method"]): r for r in read(f"rule_defaults_{n}.jsonl")}
    parts = sorted({p for p, m in by if (p, "cnn") in by and (p, "metafx") in by and (p, B_METHOD) in by})
    print(f"\n{n} training images, partitions {', '.join(map(str, parts))} (test error %, training CPU s, features)\n")
    print("| partition | CNN | A: every default | B: budget 12544, 15 steps, shifted copies | B - A | B - CNN "
          "| time B / A | time B / CNN | CNN multiply-adds / B's sliced ops |")
    print("|---|---|---|---|---|---|---|---|---|")
    d, dc, t, tc, pc, sl = [], [], [], [], [], []
    for p in parts:
        c, a, b = by[(p, "cnn")], by[(p, "metafx")], by[(p, B_METHOD)]
        d.append(100 * (b["test_error"] - a["test_error"]))
        dc.append(100 * (b["test_error"] - c["test_error"]))
        t.append(b["train_cpu_seconds"] / a["train_cpu_seconds"])
        tc.append(b["train_cpu_seconds"] / c["train_cpu_seconds"])
        pc.append(cost(b) / cost(a))
        sl.append(c["macs_per_image"] / sliced_ops(b["logic_ops_per_image"], b["macs_per_image"]))
        print(f"| {p} | {100 * c['test_error']:.2f} ({c['train_cpu_seconds']:.0f} s) "
              f"| {100 * a['test_error']:.2f} ({a['train_cpu_seconds']:.1f} s, {a['n_features']}) "
              f"| {100 * b['test_error']:.2f} ({b['train_cpu_seconds']:.1f} s, {b['n_features']}) "
              f"| {d[-1]:+.2f} | {dc[-1]:+.2f} | {t[-1]:.2f} | {tc[-1]:.3f} | {sl[-1]:.0f} |")
    d, dc = np.array(d), np.array(dc)
    se = d.std(ddof=1) / np.sqrt(len(d)) if len(d) > 1 else float("nan")
    sec = dc.std(ddof=1) / np.sqrt(len(dc)) if len(dc) > 1 else float("nan")
    print(f"\nB - A: {d.mean():+.2f} points (se {se:.2f}), B lower on {int((d < 0).sum())} of {len(d)}; median time "
          f"B / A {np.median(t):.2f}; median predict cost B / A {np.median(pc):.2f}; CNN multiply-adds over B's "
          f"sliced ops: min {min(sl):.0f}")
    print(f"B - CNN: {dc.mean():+.2f} points (se {sec:.2f}), within 0.3 points or below on {int((dc <= 0.3).sum())} "
          f"of {len(dc)}; median time B / CNN {np.median(tc):.3f}")
    return {"n": len(d), "d": d, "t": np.median(t), "pc": np.median(pc), "sl": min(sl)}


def digits() -> bool:
    rows = read("rule_defaults_digits.jsonl")
    by = {(r["seed"], r["arm"]): r for r in rows}
    seeds = sorted({s for s, arm in by if (s, "A") in by and (s, "B") in by})
    print(f"\ndigits, 900 training images, splits {', '.join(map(str, seeds))}\n")
    print("| split | A: test error % (CPU s, features) | B | B - A |")
    print("|---|---|---|---|")
    d = []
    for s in seeds:
        a, b = by[(s, "A")], by[(s, "B")]
        d.append(100 * (b["test_error"] - a["test_error"]))
        print(f"| {s} | {100 * a['test_error']:.2f} ({a['search_cpu_s'] + a['fit_cpu_s']:.1f} s, {a['n_features']}) "
              f"| {100 * b['test_error']:.2f} ({b['search_cpu_s'] + b['fit_cpu_s']:.1f} s, {b['n_features']}) "
              f"| {d[-1]:+.2f} |")
    d = np.array(d)
    se = d.std(ddof=1) / np.sqrt(len(d))
    print(f"\nB - A: {d.mean():+.2f} points (se {se:.2f}), B lower on {int((d < 0).sum())} of {len(d)}")
    return bool(not d.mean() > 2 * se)


def main() -> None:
    s2, s8 = size(2000), size(8000)
    need = int(np.ceil(5 / 8 * s2["n"]))
    checks = [("1", bool(s2["d"].mean() < 0 and (s2["d"] < 0).sum() >= need)), ("2", bool(s2["t"] <= 1.25)),
              ("3", bool(s2["sl"] >= 100 and s2["pc"] <= 2.5)), ("4", bool(s8["d"].mean() <= 0)),
              ("5", bool(s8["t"] <= 1.5)), ("6", digits())]
    print("\nconditions: " + ", ".join(f"{k}: {v}" for k, v in checks) + f"; adopted: {all(v for _, v in checks)}")


if __name__ == "__main__":
    main()
