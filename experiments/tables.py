"""The tables of the README and of the results pages, computed from the stored records they cite.

``tests/test_docs_results.py`` runs it (``--json``) and checks that every number it gives is the one the pages
print, so a page cannot drift from its records.  The records are read from the experiments' archives
(``experiments/records.py``).  Run as a script, it prints the tables.

    python experiments/tables.py [--json]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import records

HERE = Path(__file__).resolve().parent
BASELINES = HERE / "headline" / "mnist_baselines.jsonl"
TRANSFER = HERE / "transfer"
WIDE = HERE / "guided" / "wide_sample_10_29.jsonl"
PROTOCOL = HERE / "guided" / "protocol_s19_portfolio8.jsonl"


def _jsonl(path: Path) -> list[dict]:
    return records.read_jsonl(path)


def _stats(errors, ddof: int = 1) -> tuple[float, float, int]:
    """Mean and std in %, and n: the sample std (``ddof=1``) here; the protocol script's tables print ``ddof=0``."""
    a = 100 * np.asarray(errors, dtype=float)
    return float(a.mean()), float(a.std(ddof=ddof)) if len(a) > 1 else 0.0, len(a)


def headline() -> dict[str, tuple[float, float, int]]:
    """MNIST partitions 10-29 (2000 training / 2000 test images each): test error % (mean, std, n) per row."""
    rows: dict[str, list[float]] = {}
    for r in _jsonl(BASELINES):
        if 10 <= r["partition"] <= 29:
            rows.setdefault(r["method"], []).append(r["test_error"])
    for r in _jsonl(WIDE):
        rows.setdefault(f"{r['method']} {int(r['budget'])}", []).append(r["test_error"])
    return {k: _stats(v) for k, v in rows.items()}


#: the README's headline table: its row labels and the records' methods they show
HEADLINE_ROWS = [
    ("linear SVM on the raw pixels (C by 3-fold CV)", "svm-linear"),
    ("polynomial SVM, degree 3, on the raw pixels (C by 3-fold CV)", "svm-poly3"),
    ("RBF SVM on the raw pixels (C by 3-fold CV)", "svm-rbf"),
    ("metafx `guided`, budget 3000, then a linear SVM", "guided 3000"),
    ("metafx `guided`, budget 12000, then a linear SVM", "guided 12000"),
]


def paired(a: str, b: str) -> tuple[float, int, int]:
    """Headline rows ``a`` minus ``b`` on the partitions both have: mean difference in points, partitions where
    ``a`` is lower, n."""
    per: dict[str, dict[int, float]] = {}
    for r in _jsonl(BASELINES):
        per.setdefault(r["method"], {})[r["partition"]] = r["test_error"]
    for r in _jsonl(WIDE):
        per.setdefault(f"{r['method']} {int(r['budget'])}", {})[r["partition"]] = r["test_error"]
    common = sorted(set(per[a]) & set(per[b]))
    d = np.array([per[a][p] - per[b][p] for p in common]) * 100
    return float(d.mean()), int((d < 0).sum()), len(d)


def transfer() -> dict[tuple[str, int], dict]:
    """Transfer protocol (``examples/transfer_search.py``, plain mufasa, budget 200), seeds 0-3: per (arm, J) the
    mean and std over seeds of the seed's mean test error % over its 5 targets, and the per-seed means."""
    seeds = sorted(records.glob(TRANSFER, "transfer_mufasa_s*.json"))
    out: dict[tuple[str, int], dict] = {}
    for path in seeds:
        for row in json.loads(records.read_text(path))["rows"].values():
            out.setdefault((row["arm"], row["J"]), {"per_seed": []})["per_seed"].append(100 * row["test_error"])
    for v in out.values():
        a = np.asarray(v["per_seed"])
        v.update(mean=float(a.mean()), std=float(a.std(ddof=1)), n=len(a))
    return out


def protocol(method: str = "guided") -> dict[int, tuple[float, float, int]]:
    """MNIST protocol (partitions 0-9): test error % per budget of ``method`` (mean, std with ``ddof=0`` as the
    protocol script prints it, n)."""
    recs = [r for r in _jsonl(PROTOCOL) if r["method"] == method]
    return {int(b): _stats([r["test_error"] for r in recs if r["budget"] == b], ddof=0)
            for b in sorted({r["budget"] for r in recs})}


#: the headline page's paired comparisons (row ``a`` minus row ``b``)
PAIRS = [("guided 3000", "svm-rbf"), ("guided 12000", "svm-rbf"), ("guided 3000", "svm-poly3")]


def as_json() -> dict:
    """Every table, for the page tests: ``{"headline": {method: [mean, std, n]}, "headline_rows": [[label,
    method]], "paired": {"a minus b": [mean difference, lower on, n]}, "transfer": {"arm J": {...}},
    "protocol_guided": {budget: [mean, std, n]}}``."""
    return {"headline": headline(), "headline_rows": HEADLINE_ROWS,
            "paired": {f"{a} minus {b}": paired(a, b) for a, b in PAIRS},
            "transfer": {f"{arm} {J}": v for (arm, J), v in transfer().items()},
            "protocol_guided": protocol("guided")}


def _fmt(m: float, s: float, n: int) -> str:
    return f"{m:.2f} ± {s:.2f} ({n})"


if __name__ == "__main__" and "--json" in sys.argv[1:]:
    print(json.dumps(as_json()))
elif __name__ == "__main__":
    print("headline (partitions 10-29):")
    for k, v in sorted(headline().items(), key=lambda kv: -kv[1][0]):
        print(f"  {k}: {_fmt(*v)}")
    for a, b in PAIRS:
        m, won, n = paired(a, b)
        print(f"  {a} minus {b}: {m:+.2f} points, lower on {won}/{n}")
    print("transfer (seeds 0-3):")
    t = transfer()
    for J in sorted({j for _, j in t}):
        c, w = t[("cold", J)], t[("warm", J)]
        print(f"  J={J}: cold {_fmt(c['mean'], c['std'], c['n'])} {[round(x, 2) for x in c['per_seed']]}, "
              f"warm {_fmt(w['mean'], w['std'], w['n'])} {[round(x, 2) for x in w['per_seed']]}")
