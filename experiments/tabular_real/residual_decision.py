"""Apply experiments/tabular_real/RULE_TREE_RESIDUAL.md (and RULE_TREE_GATE.md, the same criteria) to the records of their runs.

    python experiments/tabular_real/residual_decision.py NEW.json... -- CURRENT.json...
    python experiments/tabular_real/residual_decision.py --info NEW.json... -- CURRENT.json...   # the table alone

For every fold both variants have: LightGBM's gain over the raw columns (positive = better: R^2 up,
log-loss down) of the extractor's output (A, the decision's measure) and of the search's own set (B),
by table: sums, mean +- std over folds, folds better / worse than raw.
"""

from __future__ import annotations

import sys

import numpy as np
from monotone_decision import folds  # (table, fold) -> (A, B, the search's names, k)


def cell(v: np.ndarray) -> str:
    return f"{v.mean():+.4f} +- {v.std(ddof=1) if v.size > 1 else 0.0:.4f} ({int((v > 0).sum())}/{int((v < 0).sum())})"


def main(argv: list[str]) -> None:
    info = "--info" in argv
    argv = [a for a in argv if a != "--info"]
    cut = argv.index("--")
    new, cur = folds(argv[:cut]), folds(argv[cut + 1:])
    keys = sorted(set(new) & set(cur))
    tables = sorted({t for t, _ in keys}, key=lambda t: [k[0] for k in keys].index(t))
    print("| table | folds | A new: sum | A current: sum | A new - raw, mean +- std (won/lost) | "
          "A current - raw | B new: sum | B current: sum | folds with an output, new / current |")
    print("|---|---|---|---|---|---|---|---|---|")
    tot = np.zeros(4)
    worst = 0.0
    for t in tables:
        ks = [k for k in keys if k[0] == t]
        an, ac = np.array([new[k][0] for k in ks]), np.array([cur[k][0] for k in ks])
        bn, bc = np.array([new[k][1] for k in ks]), np.array([cur[k][1] for k in ks])
        print(f"| {t} | {len(ks)} | {an.sum():+.4f} | {ac.sum():+.4f} | {cell(an)} | {cell(ac)} | {bn.sum():+.4f} | "
              f"{bc.sum():+.4f} | {sum(new[k][3] > 0 for k in ks)} / {sum(cur[k][3] > 0 for k in ks)} |")
        tot += [an.sum(), ac.sum(), bn.sum(), bc.sum()]
        worst = min(worst, an.sum() - ac.sum())
    print(f"| all | {len(keys)} | {tot[0]:+.4f} | {tot[1]:+.4f} | | | {tot[2]:+.4f} | {tot[3]:+.4f} | |")
    if info:
        return
    d = np.array([new[k][0] - cur[k][0] for k in keys])
    up, down = int((d > 1e-12).sum()), int((d < -1e-12).sum())
    c1, c2, c3, c4 = tot[0] > tot[1], tot[0] > 0, up > down, worst >= -0.03
    enough = len(keys) >= 45 and len(tables) >= 4
    print(f"\n1. A(new) {tot[0]:+.4f} > A(current) {tot[1]:+.4f}: {c1}; 2. A(new) > 0: {c2}; "
          f"3. folds where they differ, new higher / lower: {up} / {down}: {c3}; "
          f"4. worst table A(new) - A(current) {worst:+.4f} >= -0.03: {c4}; enough folds ({len(keys)}, "
          f"{len(tables)} tables): {enough}")
    print("decision:", "ADOPT (the new variant becomes cv-tree's table_rescore)" if (c1 and c2 and c3 and c4 and enough)
          else "NOT ADOPTED")


if __name__ == "__main__":
    main(sys.argv[1:])
