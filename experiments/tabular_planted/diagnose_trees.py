"""Why ``TableExtractor(model="trees")`` misses planted quantities: each stage of its default path, per fold.

For one planted generator (``bench_tabular_planted.make_table``), style and seed, and each of the benchmark's 5
outer folds, the extractor's default guard (``confirm="holdout"``) is replayed step by step on the fold's training
rows, and for the planted quantity the trees do not read from the columns (``REPRESENTABLE``) it records:

(a) ``screen``: whether the family's first-order candidates hold it (the planted operator over the planted
    columns, the matcher of the benchmark), its rank by the screen's relevance and that relevance over the floor;
(b) ``proposed``: whether the search (on the search half) put it in its set, and the set;
(c) ``rescore_gain``: the search evaluator's (``cv-tree``) gain of the candidate beside the columns, when it was
    shortlisted (``bind_evaluator``; None: not shortlisted);
    ``alone``: on the confirmation half, the guard's paired differences (5 folds x 3 repeats, the guard's seed and
    folds) of the columns beside the planted candidate (the family's own feature) against the columns alone, by
    the guard's model (HistGradientBoosting with its defaults) -- mean gain and corrected t -- and the same with
    ``early_stopping=True`` (the one change to the model; for the explanation, not the guard's model);
(d)/(e) ``set_t``, ``kept``: the guard's decision on the search's whole set as the extractor makes it, and the
    features kept after its pruning (``produced``: the planted quantity among them).  (d)/(e) run the guard as the
    plugin has it: its trees stop early since ``experiments/tabular_guard/RULE_early_stop.md``; the stored records
    (code a98386e) were made before, with the trees' defaults, as column (c) still measures them.

Development seeds only (the README).  Run::

    python experiments/tabular_planted/diagnose_trees.py --style a --generators ratio product --seed 0 \
        --out experiments/tabular_planted/diagnose_trees_a.json
    python experiments/tabular_planted/diagnose_trees.py --summarize experiments/tabular_planted/diagnose_trees_a.json
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import records
from bench_tabular_planted import GENERATORS, REPRESENTABLE, _commit, _found, make_table


def _scores(M, cat, y, seed, early: bool) -> np.ndarray:
    """The guard's fold scores (``guard.fold_scores``'s folds and model) with ``early_stopping`` set."""
    from sklearn.base import clone
    from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor
    from sklearn.model_selection import RepeatedKFold, RepeatedStratifiedKFold

    from metafx_tabular.guard import GUARD_REPEATS, GUARD_SPLITS, _score
    from metafx_tabular.tasks import infer_task

    task = infer_task(y)
    cv = (RepeatedStratifiedKFold if task == "classification" else RepeatedKFold)(
        n_splits=GUARD_SPLITS, n_repeats=GUARD_REPEATS, random_state=seed)
    cls = HistGradientBoostingClassifier if task == "classification" else HistGradientBoostingRegressor
    est = cls(categorical_features=cat if np.any(cat) else None, random_state=0,
              early_stopping=True if early else "auto")
    return np.array([_score(clone(est).fit(M[tr], y[tr]), M[te], y[te], task)
                     for tr, te in cv.split(np.zeros((y.shape[0], 1)), y)])


def _gain(M_cols, cat_cols, M_set, cat_set, y, seed, early: bool) -> dict:
    from metafx_tabular.guard import GUARD_SPLITS, guard_decision

    d = _scores(M_set, cat_set, y, seed, early) - _scores(M_cols, cat_cols, y, seed, early)
    g = guard_decision(d, GUARD_SPLITS)
    return {"gain": float(d.mean()), "se": float(g["se"]), "t": float(g["t"])}


def diagnose_fold(df, y, tr, fold_seed: int, target: tuple) -> dict:
    from metafx_tabular import CVTree, TableExtractor, TabularFamily
    from metafx_tabular.expressions import _structure
    from metafx_tabular.guard import holdout_split, prune, user_matrix

    X, yv = df.iloc[tr], y[tr]
    names = list(df.columns)
    fx = TableExtractor(model="trees", seed=fold_seed)
    fx._validate(X, yv, reset=True)
    seed = fx._guard_seed()
    s_rows, c_rows = holdout_split(yv, seed)
    t0 = time.perf_counter()
    fx._search_on(X, yv, s_rows)
    fam = fx.family_
    out: dict = {"search_s": time.perf_counter() - t0}
    # (a) the screen: the search's family keeps no screen once the search is done, so a family fitted as the
    # extractor fits it (defaults, the search rows) shows it, and (c) its shortlist rescored by cv-tree
    scr = TabularFamily().fit(X.iloc[s_rows], yv[s_rows])
    scr.bind_evaluator(CVTree(), scr.prepare(X.iloc[s_rows]), yv[s_rows], fold_seed)
    hits = [i for i, (e, _) in enumerate(scr._screened) if _found(e, names, target)]
    order = np.argsort(-scr._screen_rel)
    rank = {int(i): r + 1 for r, i in enumerate(order)}
    out["n_screened"] = len(scr._screened)
    out["screen"] = [{"rank": rank[i], "rel_over_floor": float(scr._screen_rel[i] / scr._floor) if scr._floor else None,
                      "rescore_gain": scr._rescored.get(_structure(scr._screened[i][0]))} for i in hits]
    # (b) the search's set
    specs = fam.to_json(fx._batch)
    out["searched"] = [str(n) for n in fam.feature_names(fx._batch)]
    out["proposed"] = any(_found(s["expr"], names, target) for s in specs)
    # (c) the planted candidate alone beside the columns, on the confirmation half, by the guard's model
    Xc, yc = X.iloc[c_rows], yv[c_rows]
    Xcv, _ = fx._validate(Xc, reset=False)
    M_cols, cat_cols = user_matrix(fam, Xcv, np.zeros((len(c_rows), 0)), "trees")
    if hits:
        best = min(hits, key=lambda i: rank[i])
        Fp = scr.transform(Xcv, scr.from_json([{"expr": scr._screened[best][0]}]))
        M_p, cat_p = user_matrix(fam, Xcv, Fp, "trees")
        out["alone"] = {"defaults": _gain(M_cols, cat_cols, M_p, cat_p, yc, seed, False),
                        "early_stopping": _gain(M_cols, cat_cols, M_p, cat_p, yc, seed, True)}
    # (d, e) the guard on the whole set, as the extractor makes it
    if specs:
        F = fam.transform(Xcv, fx._batch)
        dec = prune("trees", M_cols, F, cat_cols, yc, seed)
        keep = dec.pop("keep")
        out["set_t"], out["set_gain"], out["kept"] = float(dec["t"]), float(dec["mean_diff"]), [
            out["searched"][i] for i in keep]
        out["produced"] = any(_found(specs[i]["expr"], names, target) for i in keep)
    else:
        out.update(set_t=None, set_gain=None, kept=[], produced=False)
    return out


def run(style: str, gen: str, seed: int) -> dict:
    from sklearn.model_selection import KFold, StratifiedKFold

    df, y, planted = make_table(gen, seed, 2000, style)
    targets = [p for p in planted if (p[0], tuple(p[1])) not in REPRESENTABLE["trees"]]
    task = "regression" if gen == "log_ratio" else "classification"
    cv = (StratifiedKFold if task == "classification" else KFold)(5, shuffle=True, random_state=seed)
    folds = []
    for f, (tr, _te) in enumerate(cv.split(df, y)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = diagnose_fold(df, y, tr, seed * 100 + f, targets[0])
        r["fold"] = f
        folds.append(r)
        a = r.get("alone", {})
        print(f"{style}/{gen} fold {f}: screen {r['screen']} proposed {r['proposed']} "
              f"alone {a} set_t {r['set_t']} kept {r['kept']}", flush=True)
    return {"style": style, "generator": gen, "seed": seed, "target": [str(x) for x in targets[0][:2]], "folds": folds}


def summarize(runs: list[dict]) -> str:
    lines = ["| style | generator | target | (a) in screen (rank of N; rel / floor) | (b) proposed by the search (of 5) "
             "| (c) cv-tree rescore gain | (c) guard model, alone: gain (t) | (c') early stopping: gain (t) "
             "| (e) whole set t | produced (of 5) |", "|---|---|---|---|---|---|---|---|---|---|"]
    for r in runs:
        fo = r["folds"]

        def cell(f, key):
            a = f.get("alone", {}).get(key)
            return "-" if a is None else f"{a['gain']:+.3f} ({a['t']:+.1f})"
        scr = "; ".join(
            (f"{f['screen'][0]['rank']}/{f['n_screened']} ({f['screen'][0]['rel_over_floor']:.1f})" if f["screen"]
             else "no") for f in fo)
        resc = ", ".join("-" if not f["screen"] or f["screen"][0]["rescore_gain"] is None
                         else f"{f['screen'][0]['rescore_gain']:+.3f}" for f in fo)
        lines.append(
            f"| {r['style']} | {r['generator']} | {r['target'][0].split('|')[0]}{r['target'][1]} | {scr} | "
            f"{sum(f['proposed'] for f in fo)} | {resc} | {', '.join(cell(f, 'defaults') for f in fo)} | "
            f"{', '.join(cell(f, 'early_stopping') for f in fo)} | "
            f"{', '.join('-' if f['set_t'] is None else format(f['set_t'], '+.1f') for f in fo)} | "
            f"{sum(f['produced'] for f in fo)} |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--style", choices=("a", "b"), default="a")
    ap.add_argument("--generators", nargs="+", default=[g for g in GENERATORS if g != "isna"], choices=GENERATORS)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out")
    ap.add_argument("--summarize", nargs="+")
    a = ap.parse_args()
    if a.summarize:
        print(summarize([r for p in a.summarize for r in json.loads(records.read_text(p))["runs"]]))
        return
    command = "python " + " ".join(shlex.quote(x) for x in sys.argv)
    runs = []
    for g in a.generators:
        runs.append(run(a.style, g, a.seed))
        if a.out:
            Path(a.out).write_text(json.dumps({"command": command, "commit": _commit(), "runs": runs}, indent=1,
                                              default=str))
    print(summarize(runs))


if __name__ == "__main__":
    main()
