"""What the planted quantity itself is worth to the benchmark's downstream trees.

For each planted generator and style, on the benchmark's 5 outer folds (``bench_tabular_planted.run_one``'s
split), the downstream model of the benchmark (``tree_score``: ``HistGradientBoosting`` with its defaults on the
raw matrix) is scored on the raw columns alone and on the raw columns beside the **exact** planted quantity
(computed from the generator's columns, group statistics from the training fold only), and the same with
``early_stopping=True`` (the one change).  No search, no guard: the best any extractor could hand these trees.

Development seeds only.  Run::

    python experiments/tabular_planted/downstream_gain.py --styles a b --seed 0 \
        --out experiments/tabular_planted/downstream_gain_seed0.json
    python experiments/tabular_planted/downstream_gain.py --summarize experiments/tabular_planted/downstream_gain_seed0.json
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import records
from bench_tabular_planted import _commit, make_table, raw_matrix

#: the planted quantity the trees do not read from the columns, per generator
TARGETS = {"group_dev": "price - mean(price by city)", "ratio": "debt / income", "product": "x1 * x2",
           "weekday": "weekday(date)", "frequency": "count(merchant)", "log_ratio": "b / c"}


def quantity(gen: str, df, tr: np.ndarray) -> np.ndarray:
    """The exact planted quantity on every row; group statistics learned on the rows ``tr``."""
    if gen == "ratio":
        return (df["debt"] / df["income"]).to_numpy(float)
    if gen == "product":
        return (df["x1"] * df["x2"]).to_numpy(float)
    if gen == "log_ratio":
        return (df["b"] / df["c"]).to_numpy(float)
    if gen == "weekday":
        return df["date"].dt.weekday.to_numpy(float)
    if gen == "frequency":
        counts = df["merchant"].iloc[tr].astype(str).value_counts()
        return df["merchant"].astype(str).map(counts).fillna(0).to_numpy(float)
    if gen == "group_dev":
        means = df["price"].iloc[tr].groupby(df["city"].iloc[tr].astype(str), observed=True).mean()
        return (df["price"] - df["city"].astype(str).map(means).to_numpy(float)).to_numpy(float)
    raise SystemExit(f"no target for {gen!r}")


def score(Xtr, ytr, Xte, yte, task: str, early: bool) -> float:
    from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor
    from sklearn.metrics import log_loss, r2_score

    cls = HistGradientBoostingClassifier if task == "classification" else HistGradientBoostingRegressor
    m = cls(random_state=0, early_stopping=True if early else "auto").fit(Xtr, ytr)
    if task == "classification":
        return -float(log_loss(yte, m.predict_proba(Xte), labels=m.classes_))
    return float(r2_score(yte, m.predict(Xte)))


def run(style: str, gen: str, seed: int) -> dict:
    from sklearn.model_selection import KFold, StratifiedKFold

    df, y, _ = make_table(gen, seed, 2000, style)
    task = "regression" if gen == "log_ratio" else "classification"
    cv = (StratifiedKFold if task == "classification" else KFold)(5, shuffle=True, random_state=seed)
    folds = []
    for tr, te in cv.split(df, y):
        R_tr, R_te = raw_matrix(df.iloc[tr]), raw_matrix(df.iloc[te], df.iloc[tr])
        q = quantity(gen, df, tr)
        Q_tr, Q_te = np.column_stack([R_tr, q[tr]]), np.column_stack([R_te, q[te]])
        row = {}
        for name, early in (("defaults", False), ("early_stopping", True)):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                row[name] = [score(R_tr, y[tr], R_te, y[te], task, early), score(Q_tr, y[tr], Q_te, y[te], task, early)]
        folds.append(row)
    out = {"style": style, "generator": gen, "seed": seed, "target": TARGETS[gen], "task": task, "folds": folds}
    print(summary_line(out), flush=True)
    return out


HEADER = ("| style | generator | planted quantity | trees (defaults): raw -> with it | trees (early stopping): raw -> "
          "with it |\n|---|---|---|---|---|")


def summary_line(r: dict) -> str:
    cells = []
    for name in ("defaults", "early_stopping"):
        raw = np.array([f[name][0] for f in r["folds"]])
        wq = np.array([f[name][1] for f in r["folds"]])
        d = wq - raw
        cells.append(f"{raw.mean():+.4f} -> {wq.mean():+.4f} (gain {d.mean():+.4f}, better in {int((d > 0).sum())} of 5)")
    return f"| {r['style']} | {r['generator']} | `{r['target']}` | " + " | ".join(cells) + " |"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--styles", nargs="+", default=["a", "b"], choices=("a", "b"))
    ap.add_argument("--generators", nargs="+", default=list(TARGETS), choices=list(TARGETS))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out")
    ap.add_argument("--summarize", help="print the table of a stored run and exit")
    a = ap.parse_args()
    if a.summarize:
        print(HEADER)
        for r in json.loads(records.read_text(a.summarize))["runs"]:
            print(summary_line(r))
        return
    print(HEADER, flush=True)
    runs = [run(s, g, a.seed) for s in a.styles for g in a.generators]
    if a.out:
        Path(a.out).write_text(json.dumps({"command": "python " + " ".join(shlex.quote(x) for x in sys.argv),
                                           "commit": _commit(), "runs": runs}, indent=1))


if __name__ == "__main__":
    main()
