"""Diagnosis probe (issue 35, LightGBM downstream): on a few outer folds of a table, the tree search's set against
the screened candidates ranked by their residual gain over the raw-column model (OpenFE's first-order score).

For each fold: LightGBM's test-score gain over the raw columns (positive = better) of the search's own set
(``B``), of its confirmed output (``A``), and of the top 1 / top 3 screened candidates by residual gain, and by
residual gain in excess of the best of the candidate's own input columns (a monotone transform of one column
then has no excess).  Development tables only.

    python experiments/tabular_real/probe_residual.py --tables breast_cancer wine --folds 0 1 2
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_tabular_real as b


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tables", nargs="+", default=list(b.DEV + b.DEV_CATEGORICAL))
    ap.add_argument("--folds", nargs="+", type=int, default=[0, 1])
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--residual-params", default="{}", help="JSON of residual_gains keyword arguments")
    args = ap.parse_args()
    from sklearn.model_selection import RepeatedKFold, RepeatedStratifiedKFold

    from metafx_tabular import CVTree, TableExtractor, TabularFamily
    from metafx_tabular.evaluator import _splits
    from metafx_tabular.expressions import expr_columns
    from metafx_tabular.rescore import residual_gains, shortlist

    for name in args.tables:
        if name in b.HELD_OUT:
            raise SystemExit("development tables only")
        X, y, task = b.load_table(name)
        for f, X_tr, X_te, y_tr, y_te, R_tr, R_te in b.outer_folds(X, y, task, 1, 0):
            if f not in args.folds:
                continue
            fx = TableExtractor(budget=10.0, steps=30, evaluator="cv-tree", seed=f).fit(X_tr, y_tr)
            _, batch = fx.result_.feature_batch()
            fam = TabularFamily().fit(X_tr, y_tr)

            def lgb(F_tr, F_te, task=task, R_tr=R_tr, y_tr=y_tr, R_te=R_te, y_te=y_te):
                return b.score(task, b.tree_model(task), np.hstack([R_tr, F_tr]), y_tr, np.hstack([R_te, F_te]), y_te)

            raw = lgb(np.zeros((len(y_tr), 0)), np.zeros((len(y_te), 0)))
            sign = -1.0 if task == "classification" else 1.0
            gB = sign * (lgb(fam.transform(X_tr, batch), fam.transform(X_te, batch)) - raw)
            k = len(batch)
            prepared = fam.prepare(X_tr)
            ev = CVTree()
            cv = (RepeatedStratifiedKFold if task == "classification" else RepeatedKFold)(
                n_splits=3, n_repeats=1, random_state=f)
            folds = _splits(cv, np.asarray(y_tr))
            exprs = [e for e, _ in fam._screened]
            idx = shortlist(fam._screen_rel, [str(e["op"]) for e in exprs], -np.inf, args.top)
            bt = type(batch)
            V = fam._values(prepared, bt([exprs[int(i)] for i in idx]))
            base = (ev._model(task, False), prepared["design"])
            rp = json.loads(args.residual_params)
            g = residual_gains(base, [V[:, j] for j in range(V.shape[1])], y_tr, task, folds, **rp)
            Z = prepared["z"]
            gc = residual_gains(base, [Z[:, j] for j in range(Z.shape[1])], y_tr, task, folds, **rp)
            excess = np.array([g[j] - max([0.0] + [gc[c] for c in expr_columns(exprs[int(i)])]) for j, i in enumerate(idx)])
            out = [f"{name} f{f}: raw {raw:.4f} B(k={k}) {gB:+.4f}"]
            for lab, sc in (("gain", g), ("excess", excess)):
                order = np.argsort(-sc)
                for t in (1, 3):
                    sel = [int(idx[j]) for j in order[:t] if sc[j] > 0]
                    if not sel:
                        out.append(f"{lab}@{t} none")
                        continue
                    bb = bt([exprs[i] for i in sel])
                    gg = sign * (lgb(fam.transform(X_tr, bb), fam.transform(X_te, bb)) - raw)
                    out.append(f"{lab}@{t}(n={len(sel)}) {gg:+.4f}")
                best = [f"{fam.feature_names(bt([exprs[int(idx[j])]]))[0]}={sc[j]:+.4f}" for j in order[:3]]
                out.append(f"[{lab} top: {'; '.join(best)}]")
            print(f"  gains: n={len(g)} positive={int((g > 0).sum())} max={g.max():+.4f} median={np.median(g):+.4f}; "
                  f"columns positive={int((gc > 0).sum())}/{len(gc)} max={gc.max():+.4f}")
            print(" | ".join(out), "| search set:", "; ".join(fam.feature_names(batch)[:6]), flush=True)


if __name__ == "__main__":
    main()
