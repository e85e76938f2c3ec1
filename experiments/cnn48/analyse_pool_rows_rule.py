"""The decision of experiments/cnn48/RULE_POOL_ROWS_PIXEL.md from its stored records.

    python experiments/cnn48/analyse_pool_rows_rule.py     # reads rule_pool_rows_{8000,4000}.jsonl

Per size: every partition's row (both arms), the paired differences (candidate minus default) of the test error in
points, their mean and standard error, the median ratios of search CPU seconds and of features, and the conditions.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # experiments/records.py
import records

HERE = Path(__file__).resolve().parent


def main() -> None:
    checks = []
    for n in (8000, 4000):
        rows = [json.loads(line) for line in records.read_text(HERE / f"rule_pool_rows_{n}.jsonl").splitlines()
                if line.strip()]
        by = {(r["partition"], r["setting"]): r for r in rows}
        parts = sorted({r["partition"] for r in rows})
        print(f"\n{n} training images, partitions {', '.join(map(str, parts))}\n")
        print("| partition | search CPU s, default / pool_rows=2000 | features | test error % | with shifted copies % |")
        print("|---|---|---|---|---|")
        d, ds, t, f = [], [], [], []
        for p in parts:
            a, b = by[(p, "default")], by[(p, "pool_rows=2000")]
            print(f"| {p} | {a['search_cpu_s']:.1f} / {b['search_cpu_s']:.1f} | {a['n_features']} / {b['n_features']} "
                  f"| {100 * a['plain_test_error']:.2f} / {100 * b['plain_test_error']:.2f} "
                  f"| {100 * a['shift_copies_test_error']:.2f} / {100 * b['shift_copies_test_error']:.2f} |")
            d.append(100 * (b["plain_test_error"] - a["plain_test_error"]))
            ds.append(100 * (b["shift_copies_test_error"] - a["shift_copies_test_error"]))
            t.append(b["search_cpu_s"] / a["search_cpu_s"])
            f.append(b["n_features"] / a["n_features"])
        d, ds = np.array(d), np.array(ds)
        se = d.std(ddof=1) / np.sqrt(len(d))
        print(f"\ncandidate minus default: {d.mean():+.2f} points (se {se:.2f}); with shifted copies {ds.mean():+.2f} "
              f"(se {ds.std(ddof=1) / np.sqrt(len(ds)):.2f}); median ratio of search CPU s {np.median(t):.2f}, "
              f"of features {np.median(f):.2f}")
        c1 = bool(d.mean() <= 0.10 and not d.mean() > 2 * se)
        c3 = bool(np.median(f) <= 1.25)
        checks += [(f"1 at {n}", c1), (f"3 at {n}", c3)]
        if n == 8000:
            checks.append(("2 at 8000", bool(np.median(t) <= 0.6)))
    print("\nconditions: " + ", ".join(f"{k}: {v}" for k, v in checks) + f"; adopted: {all(v for _, v in checks)}")


if __name__ == "__main__":
    main()
