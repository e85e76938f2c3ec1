"""Apply experiments/tabular_real/RULE_TREE_MONOTONE.md to the records of its runs.

    python experiments/tabular_real/monotone_decision.py NEW.json... -- CURRENT.json...

For every fold both variants finished: LightGBM's gain over the raw columns (positive = better: R^2
up, log-loss down) of the extractor's output (A) and of the search's own set (B), summed by table.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # experiments/records.py
import records


def folds(paths):
    out = {}
    for p in paths:
        for r in records.read_json(p)["results"]:
            sign = 1.0 if r["task"] == "regression" else -1.0
            for f in r["folds"]:
                s = f["scores"]["tree"]
                out[(r["table"], f["fold"])] = (sign * (s["metafx"] - s["raw"]), sign * (s["metafx-search"] - s["raw"]),
                                                f["names"].get("metafx-search-tree") or f["names"].get("metafx-tree", []),
                                                f["k"]["tree"])
    return out


ONE_COL = re.compile(r"^(\[[^\[\]*/]+ > q\d+\]|log\([^()*/]+\)|[^()*/ ]+\^2|year\([^()]+\))$")


def main(argv):
    cut = argv.index("--")
    new, cur = folds(argv[:cut]), folds(argv[cut + 1:])
    keys = sorted(set(new) & set(cur))
    tables = sorted({t for t, _ in keys})
    print("| table | folds | A new | A current | B new | B current | new sets / kept | current sets / kept | "
          "one-column transforms by name (squares whatever the sign), new / current |")
    print("|---|---|---|---|---|---|---|---|---|")
    tot = [0.0] * 4
    worst_a = worst_b = 0.0
    for t in tables:
        ks = [k for k in keys if k[0] == t]
        a_n, a_c = sum(new[k][0] for k in ks), sum(cur[k][0] for k in ks)
        b_n, b_c = sum(new[k][1] for k in ks), sum(cur[k][1] for k in ks)
        kept_n = sum(new[k][3] > 0 for k in ks)
        kept_c = sum(cur[k][3] > 0 for k in ks)
        mono_n = sum(bool(ONE_COL.match(n)) for k in ks for n in new[k][2])
        mono_c = sum(bool(ONE_COL.match(n)) for k in ks for n in cur[k][2])
        nf_n = sum(len(new[k][2]) for k in ks)
        nf_c = sum(len(cur[k][2]) for k in ks)
        print(f"| {t} | {len(ks)} | {a_n:+.4f} | {a_c:+.4f} | {b_n:+.4f} | {b_c:+.4f} | {len(ks)} / {kept_n} | "
              f"{len(ks)} / {kept_c} | {mono_n} of {nf_n} / {mono_c} of {nf_c} |")
        for i, v in enumerate((a_n, a_c, b_n, b_c)):
            tot[i] += v
        worst_a, worst_b = min(worst_a, a_n - a_c), min(worst_b, b_n - b_c)
    print(f"| all | {len(keys)} | {tot[0]:+.4f} | {tot[1]:+.4f} | {tot[2]:+.4f} | {tot[3]:+.4f} | | | |")
    c1 = tot[0] >= tot[1] and tot[2] > tot[3]
    c2, c3 = worst_a >= -0.02, worst_b >= -0.05
    enough = len(keys) >= 12 and len(tables) >= 3
    print(f"\n1. A(new) >= A(current) and B(new) > B(current): {c1}; 2. worst table A(new) - A(current) "
          f"{worst_a:+.4f} >= -0.02: {c2}; 3. worst table B(new) - B(current) {worst_b:+.4f} >= -0.05: {c3}; "
          f"enough folds: {enough}")
    print("decision:", "ADOPT (drop_monotone='auto')" if (c1 and c2 and c3 and enough) else "NOT ADOPTED")


if __name__ == "__main__":
    main(sys.argv[1:])
