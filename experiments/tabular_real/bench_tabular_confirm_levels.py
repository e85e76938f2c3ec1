"""The tree set's significance test at other levels, read from stored ``bench_tabular_real.py`` records.

A record made with ``--confirm`` holds, for every outer fold, the downstream tree model's test score
with the search's own set (``metafx-search``) and with the raw columns, and the p-value of
``TableExtractor``'s ``confirm="test"`` for that set.  For each level ``alpha`` this prints, per
table, how many sets the test keeps (p < alpha), the gain it keeps (the sum of the kept sets' gains
over raw, signed so that higher is better: R^2 up, log-loss down) and, of that, the harm it lets
through (the sum of the negative gains kept); and the same for the sets only the higher level keeps.

Run::

    python experiments/tabular_real/bench_tabular_confirm_levels.py experiments/tabular_real/dev_3x5_confirm_test.json \\
        experiments/tabular_real/devcat_3x5_confirm_test.json --alphas 0.05 0.25
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # experiments/records.py
import records


def gains(record: dict) -> list[tuple[str, float, float]]:
    """``(table, gain of the search's tree set over raw, p)`` for every fold of the record."""
    out = []
    for r in record["results"]:
        sign = 1.0 if r["task"] == "regression" else -1.0  # R^2 up; log-loss down
        for fo in r["folds"]:
            s, c = fo["scores"].get("tree", {}), fo.get("confirm", {}).get("tree")
            if not c or "p" not in c or "metafx-search" not in s:
                continue
            out.append((r["table"], sign * (s["metafx-search"] - s["raw"]), float(c["p"])))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("records", nargs="+", type=Path)
    ap.add_argument("--alphas", nargs="+", type=float, default=[0.05, 0.25])
    a = ap.parse_args()
    rows = [g for f in a.records for g in gains(json.loads(records.read_text(f)))]
    tables = sorted({t for t, _, _ in rows})
    lo = min(a.alphas)
    print("| table | folds | gain of all sets | " + " | ".join(
        f"alpha {al}: kept, gain kept, harm kept" for al in a.alphas) + f" | only above {lo}: kept, net |")
    print("|---|---|---|" + "---|" * (len(a.alphas) + 1))
    for t in [*tables, "all"]:
        g = [(x, p) for tt, x, p in rows if t in ("all", tt)]
        cells = []
        for al in a.alphas:
            kept = [x for x, p in g if p < al]
            cells.append(f"{len(kept)}, {sum(kept):+.4f}, {sum(x for x in kept if x < 0):+.4f}")
        hi = max(a.alphas)
        extra = [x for x, p in g if lo <= p < hi]
        print(f"| {t} | {len(g)} | {sum(x for x, _ in g):+.4f} | " + " | ".join(cells)
              + f" | {len(extra)}, {sum(extra):+.4f} |")


if __name__ == "__main__":
    main()
