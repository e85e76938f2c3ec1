"""What the search chose on a table's outer folds, against searches held at one operator.

For the first ``--folds`` outer folds of ``experiments/tabular_real/bench_tabular_real.py``'s
split (5-fold, stratified for classes, ``--seed``), on the training part only:
the plugin's default search (``TableExtractor``, budget 10, 30 steps, seed =
the fold's index, as the bench runs it) and, for every operator in ``--ops``,
a short search with the ``op`` meta-feature fixed at that operator
(``fixed={"op": index}``, ``--fixed-steps`` steps).  Printed: the chosen
features and the evaluator's quality of each (higher is better), and which
``op`` values the default search visited::

    python experiments/tabular_real/inspect_tabular_ops.py --table titanic --folds 2 --ops pair_count count group_mean
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_tabular_real import TABLES, load_table


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--table", required=True, choices=list(TABLES))
    ap.add_argument("--evaluator", default="cv-linear", choices=["cv-linear", "cv-tree"])
    ap.add_argument("--folds", type=int, default=2)
    ap.add_argument("--ops", nargs="+", default=[])
    ap.add_argument("--fixed-steps", type=int, default=4)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--family-params", type=json.loads, default={},
                    help='JSON of tabular family parameters, e.g. \'{"nominal_op": true}\'')
    args = ap.parse_args(argv)
    from sklearn.model_selection import RepeatedKFold, RepeatedStratifiedKFold
    from threadpoolctl import threadpool_limits

    from metafx_tabular import TableExtractor

    X, y, task = load_table(args.table)
    split = (RepeatedStratifiedKFold if task == "classification" else RepeatedKFold)(
        n_splits=5, n_repeats=1, random_state=args.seed)
    with threadpool_limits(1):
        for f, (tr, _) in enumerate(split.split(X, y)):
            if f >= args.folds:
                break
            X_tr, y_tr = X.iloc[tr].reset_index(drop=True), y[tr]
            fx = TableExtractor(budget=10, steps=30, evaluator=args.evaluator, seed=args.seed + f,
                                family_params=args.family_params).fit(X_tr, y_tr)
            ops = fx.result_.get_family().enabled_operators
            visited = Counter(ops[int(r.point["op"])] for r in fx.result_.trajectory)
            print(f"fold {f}: search chose {list(fx.get_feature_names_out())}, quality {fx.best_quality_:.5f}; "
                  f"steps per operator: {dict(visited)}")
            for op in args.ops:
                if op not in ops:
                    print(f"  {op}: not enabled on this table")
                    continue
                g = TableExtractor(budget=10, steps=args.fixed_steps, evaluator=args.evaluator, seed=args.seed + f,
                                   fixed={"op": ops.index(op)}).fit(X_tr, y_tr)
                print(f"  op fixed at {op}: {list(g.get_feature_names_out())}, quality {g.best_quality_:.5f}")


if __name__ == "__main__":
    main()
