"""Apply experiments/tabular_real/RULE_TREE_MONOTONE.md to the records of its runs.

    python experiments/tabular_real/monotone_decision.py NEW.json... -- CURRENT.json...
    python experiments/tabular_real/monotone_decision.py --counts RUN.json...
    python experiments/tabular_real/monotone_decision.py --folds TABLE NEW.json... -- CURRENT.json...

For every fold both variants finished: LightGBM's gain over the raw columns (positive = better: R^2
up, log-loss down) of the extractor's output (A) and of the search's own set (B), summed by table.
``--counts``: in the tree search's sets of the given runs (every fold), how many features are
one-column transforms by name, and how many sets hold nothing else.  ``--folds TABLE``: the table's
folds one by one, A and B of both variants and the search's sets.
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


# the plugin's names of threshold, log, square and the year of a date (metafx_tabular/operators.py)
WRAPPERS = (re.compile(r"^\[(.+) > q\d+\]$"), re.compile(r"^log\((.+)\)$"), re.compile(r"^(.+)\^2$"),
            re.compile(r"^year\((.+)\)$"))
# a binary operator's name holds " * ", " / " or " - "; every other operator's holds brackets
NOT_A_COLUMN = (" * ", " / ", " - ", "(", ")", "[", "]")


def one_column(name: str) -> bool:
    """True when ``name`` is a threshold, log, square or year of one column's name, or of such a name
    (squares whatever the column's sign).  A column's name may hold spaces or a ``/`` without spaces
    (``mean concave points^2``, ``[od280/od315_of_diluted_wines > q20]``)."""
    for w in WRAPPERS:
        m = w.match(name)
        if m:
            inner = m.group(1)
            return one_column(inner) or not any(s in inner for s in NOT_A_COLUMN)
    return False


def search_sets(paths):
    """The tree search's set of every fold (after the confirmation, ``metafx-tree``, when it kept it)."""
    return [f["names"].get("metafx-search-tree") or f["names"].get("metafx-tree", [])
            for p in paths for r in records.read_json(p)["results"] for f in r["folds"]]


def counts(paths):
    sets = search_sets(paths)
    one = [sum(map(one_column, s)) for s in sets]
    only = sum(len(s) > 0 and k == len(s) for s, k in zip(sets, one, strict=True))
    print(f"{sum(one)} of the {sum(map(len, sets))} features of the {len(sets)} tree-search sets are one-column "
          f"transforms by name; {only} of the {len(sets)} sets hold nothing else")


def by_fold(table, new, cur):
    print("| fold | A new | A current | B new | B current | the search's set, new | the search's set, current |")
    print("|---|---|---|---|---|---|---|")
    for key in sorted(k for k in set(new) & set(cur) if k[0] == table):
        n, c = new[key], cur[key]
        print(f"| {key[1]} | {n[0]:+.4f} | {c[0]:+.4f} | {n[1]:+.4f} | {c[1]:+.4f} | {'; '.join(n[2])} | "
              f"{'; '.join(c[2])} |")


def main(argv):
    if argv[:1] == ["--counts"]:
        return counts(argv[1:])
    table = None
    if argv[:1] == ["--folds"]:
        table, argv = argv[1], argv[2:]
    cut = argv.index("--")
    new, cur = folds(argv[:cut]), folds(argv[cut + 1:])
    if table is not None:
        return by_fold(table, new, cur)
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
        mono_n = sum(one_column(n) for k in ks for n in new[k][2])
        mono_c = sum(one_column(n) for k in ks for n in cur[k][2])
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
