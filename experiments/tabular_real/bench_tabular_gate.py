"""Which confirmation of the ``cv-tree`` search's set predicts whether it helps LightGBM? (dev tables only)

``TableExtractor(confirm=True)`` keeps the search's best set only if, on a
fresh split of the training rows, it scores higher than the table's columns
alone.  This bench asks whether that decision, or another one, tells sets
that help the downstream tree model from sets that hurt it.  Protocol
(``bench_tabular_real.py``'s outer folds, tables, raw columns and LightGBM):
in each outer fold, the extractor (``evaluator="cv-tree"``, its defaults,
budget 10, 30 steps) is fitted on the training part; the downstream effect is
LightGBM's score with the search's set beside the raw columns minus without
it, on the outer test part (signed so that positive is better).  Each gate
gives a number, the set's confirmation score minus the columns' (the set is
kept when it is positive):

* ``split``: the extractor's own confirmation (``cv-tree``, one 3-fold split
  with a seed derived from the search's);
* ``split-x3``: the same on 3 shuffles of the 3 folds (``n_repeats=3``);
* ``split-hgb100``: ``cv-tree`` with scikit-learn's and LightGBM's default
  boosting (100 rounds at rate 0.1) instead of 30 at 0.2; ``split-hgb100-x3``;
* ``holdout``, ``holdout-hgb100``: a second search on a share
  (``--holdout-share``, 0.25) of the training rows set aside, then the model
  fitted on the search's rows and scored on the rows it never saw (the
  downstream effect of that search's set is measured the same way).

For each table and gate: the mean over folds of the downstream effect of the
set where the gate keeps it and 0 where it drops it, the folds kept, and the
Spearman correlation of the gate's number with the downstream effect.
``keep all`` is the search's set always; ``drop all`` is 0.

Run (needs the packages of ``bench_tabular_real.py``; dev tables by default,
no OpenFE; 3 minutes a table, 9 for three, on a 2-core machine)::

    python experiments/tabular_real/bench_tabular_gate.py --tables breast_cancer wine diabetes --out runs/gate_dev.json
    python experiments/tabular_real/bench_tabular_gate.py --tables cps1985 hmda salaries --out runs/gate_devcat.json
    python experiments/tabular_real/bench_tabular_gate.py --summarize runs/gate_dev.json runs/gate_devcat.json
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_tabular_real as B

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # experiments/records.py
import records

SPLIT_GATES = {
    "split-x3": {"n_repeats": 3},
    "split-hgb100": {"max_iter": 100, "learning_rate": 0.1},
    "split-hgb100-x3": {"max_iter": 100, "learning_rate": 0.1, "n_repeats": 3},
}
HOLDOUT_GATES = {"holdout": {}, "holdout-hgb100": {"max_iter": 100, "learning_rate": 0.1}}
GATES = ("split", *SPLIT_GATES, *HOLDOUT_GATES)


def _search(X_tr, y_tr, seed: int, args):
    from metafx_tabular import TableExtractor

    return TableExtractor(budget=args.budget, steps=args.steps, evaluator="cv-tree", seed=seed).fit(X_tr, y_tr)


def _downstream(task: str, fam, batch, X_tr, y_tr, X_te, y_te, R_tr, R_te, raw: float) -> float:
    F_tr, F_te = fam.transform(X_tr, batch), fam.transform(X_te, batch)
    s = B.score(task, B.tree_model(task), np.hstack([R_tr, F_tr]), y_tr, np.hstack([R_te, F_te]), y_te)
    return (raw - s) if task == "classification" else (s - raw)  # positive: the set helped


def _holdout_gain(task: str, ev, values: tuple, y: np.ndarray, S: np.ndarray, H: np.ndarray) -> float:
    """The evaluator's model (its imputation too) fitted on rows S and scored on rows H: the set's values
    minus the columns' (``values``: the two, as the family computes them)."""
    q = []
    for vals in values:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            q.append(float(ev.split_scores(vals, y, [(S, H)])[0]))
    return q[0] - q[1]


def run_table(name: str, args) -> list[dict]:
    from sklearn.model_selection import train_test_split

    from metafx_tabular import CVTree

    X, y, task = B.load_table(name)
    out = []
    for f, X_tr, X_te, y_tr, y_te, R_tr, R_te in B.outer_folds(X, y, task, args.repeats, args.seed):
        raw = B.score(task, B.tree_model(task), R_tr, y_tr, R_te, y_te)
        yv = np.asarray(y_tr).ravel()
        rec: dict = {"fold": f, "gain": {}, "effect": {}}
        fx = _search(X_tr, y_tr, args.seed + f, args)
        fam, batch = fx.result_.feature_batch()
        if len(batch):
            c = fx.confirmation_
            rec["gain"]["split"] = c["quality"] - c["columns_quality"]
            prep = fam.prepare(X_tr)
            v_set, v_cols = fam.compute(prep, batch), fam.compute(prep, batch.take([]))
            for gate, params in SPLIT_GATES.items():
                ev = CVTree(**params)
                rec["gain"][gate] = (ev.evaluate(v_set, yv, random_state=c["seed"])
                                     - ev.evaluate(v_cols, yv, random_state=c["seed"]))
            effect = _downstream(task, fam, batch, X_tr, y_tr, X_te, y_te, R_tr, R_te, raw)
            for gate in ("split", *SPLIT_GATES):
                rec["effect"][gate] = effect
        idx = np.arange(len(yv))
        S, H = train_test_split(idx, test_size=args.holdout_share, random_state=args.seed + f,
                                stratify=yv if task == "classification" else None)
        S, H = np.sort(S), np.sort(H)
        fx_s = _search(X_tr.iloc[S].reset_index(drop=True), y_tr[S], args.seed + f, args)
        fam_s, batch_s = fx_s.result_.feature_batch()
        if len(batch_s):
            effect = _downstream(task, fam_s, batch_s, X_tr, y_tr, X_te, y_te, R_tr, R_te, raw)
            prep_s = fam_s.prepare(X_tr)
            values = (fam_s.compute(prep_s, batch_s), fam_s.compute(prep_s, batch_s.take([])))
            for gate, params in HOLDOUT_GATES.items():
                rec["gain"][gate] = _holdout_gain(task, CVTree(**params), values, yv, S, H)
                rec["effect"][gate] = effect
        print(f"  {name} fold {f}: " + ", ".join(f"{g} {rec['gain'][g]:+.4f}/{rec['effect'][g]:+.4f}"
                                                for g in GATES if g in rec["gain"]), flush=True)
        out.append(rec)
    return out


def summarize(results: list[dict]) -> str:
    from scipy.stats import spearmanr

    lines = ["| table | keep all (split's search / holdout's) | " + " | ".join(GATES) + " |",
             "|---|---|" + "---|" * len(GATES)]
    means = {g: [] for g in GATES}
    for t in results:
        cells = []
        for gate in GATES:
            e = np.array([r["effect"].get(gate, 0.0) for r in t["folds"]])
            g = np.array([r["gain"].get(gate, 0.0) for r in t["folds"]])
            kept = g > 0
            gated = float(np.where(kept, e, 0.0).mean())
            means[gate].append(gated)
            rho = spearmanr(g, e)[0] if np.ptp(g) > 0 and np.ptp(e) > 0 else float("nan")
            cells.append(f"{gated:+.4f} ({kept.sum()}/{len(e)}, rho {rho:+.2f})")
        keep = [np.mean([r["effect"].get(g, 0.0) for r in t["folds"]]) for g in ("split", "holdout")]
        lines.append(f"| {t['table']} | {keep[0]:+.4f} / {keep[1]:+.4f} | " + " | ".join(cells) + " |")
    lines.append("| mean | | " + " | ".join(f"{np.mean(means[g]):+.4f}" for g in GATES) + " |")
    lines.append("\ncells: mean downstream effect with the gate (0 where it drops the set; positive: better than "
                 "the raw columns), (folds kept / folds, Spearman rho of the gate's number with the effect); "
                 "drop all is +0.0000")
    return "\n".join(lines)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tables", nargs="+", default=[*B.DEV, *B.DEV_CATEGORICAL], choices=B.TABLES)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--budget", type=float, default=10.0)
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--holdout-share", type=float, default=0.25)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--summarize", type=Path, nargs="+", metavar="FILE", help="only summarize earlier runs")
    args = ap.parse_args(argv)
    if args.summarize:
        print(summarize([t for p in args.summarize for t in json.loads(records.read_text(p))["results"]]))
        return
    held = sorted(set(args.tables) & set(B.HELD_OUT))
    if held:
        print(f"note: {held} are held-out tables; this bench is for choosing on dev tables", file=sys.stderr)
    results = []
    for name in args.tables:
        results.append({"table": name, "folds": run_table(name, args)})
        if args.out:
            args.out.parent.mkdir(parents=True, exist_ok=True)
            args.out.write_text(json.dumps({"args": {k: str(v) for k, v in vars(args).items()},
                                            "results": results}, indent=1))
    print(summarize(results))


if __name__ == "__main__":
    main()
