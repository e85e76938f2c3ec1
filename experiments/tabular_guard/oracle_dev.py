"""How much could one feature of the tabular family help each dev (table x model) pair at all? (issue 43, task tab43f)

On RULE.md's exact dev folds and judge (``bench_guard.load_dev``, 3-fold outer CV seed 0, ``judge_model``, ``score``),
per outer fold:

1. the family's first-order candidates: ``TabularFamily()`` with its defaults (the extractor's family) fitted on the
   outer training rows; its screen lists every depth-1 candidate the table allows (every enabled operator on every
   allowed column or pair, thresholds at their quantiles, at most ``screen`` = 2000 drawn at random beyond; the
   dev tables have fewer).  Capped (CPU) to ``--cap`` candidates: the ``--per-op`` best of each operator by the
   screen's relevance, then the best of the rest by relevance (the relevance is computed on the training rows);
2. each candidate is added **alone** to the raw columns; the judge is fitted on the outer training rows and scored on
   the outer test rows (the *outer* difference against the raw columns, as RULE.md scores a fold), and scored by a
   3-fold inner CV on the outer training rows (stratified for classes, shuffled, seed = the fold) (the *inner* gain).

The feature constants (quantiles, group means, counts) are learned from the outer training rows without the label,
so the inner CV sees no label of its test rows through them.

Per pair (``--summary``): the *oracle*, per fold the candidate with the best outer difference (chosen on the test
rows: an upper bound for one feature, optimistic by construction); the *oracle, one candidate*, the candidate (by
name) whose mean outer difference over the 3 folds is best (still chosen on the test rows); the *honest* choice,
per fold the candidate of best mean inner gain, added only when that gain is positive (else nothing: 0); each judged
by RULE.md's verdict (better: mean > 2 s.e. and > 0; worse: mean < -2 s.e. and < 0; s.e. = sd(ddof=1)/sqrt(3)).

    python experiments/tabular_guard/oracle_dev.py --models linear --out experiments/tabular_guard/oracle_dev_linear.json
    python experiments/tabular_guard/oracle_dev.py --models trees --out experiments/tabular_guard/oracle_dev_trees.json
    python experiments/tabular_guard/oracle_dev.py --summary experiments/tabular_guard/oracle_dev_linear.json experiments/tabular_guard/oracle_dev_trees.json
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import records
from bench_guard import DEV_TABLES, _json_safe, _load, dev_splits, judge_model, load_dev, score, task_of, with_features

#: the records of the default extractor on the same folds (linear: RULE.md's judgement after the batched draw;
#: trees: RULE_early_stop.md's, the trees' default since)
HERE = Path(__file__).resolve().parent
DEFAULT_RECORDS = {"linear": str(HERE / "dev_after_batch.json"), "trees": str(HERE / "dev_es_trees.json")}


def candidates(Xtr, ytr, cap: int, per_op: int):
    """The family fitted on the training rows, and its capped candidates: ``(expr, name, op, relevance rank)``."""
    from metafx_tabular import TabularFamily

    fam = TabularFamily().fit(Xtr, ytr)
    exprs = [e for e, _ in fam._screened]
    rel = np.asarray(fam._screen_rel, dtype=float)
    order = [int(i) for i in np.argsort(-rel, kind="stable")]
    rank = {i: r + 1 for r, i in enumerate(order)}
    ops = [str(e.get("op")) for e in exprs]
    chosen: list[int] = []
    for o in dict.fromkeys(ops):
        chosen += [i for i in order if ops[i] == o][:per_op]
    chosen += [i for i in order if i not in chosen][: max(cap - len(chosen), 0)]
    chosen = sorted(set(chosen[:cap]), key=lambda i: rank[i])
    names = fam.feature_names(fam.from_json([{"expr": exprs[i]} for i in chosen]))
    return fam, [(exprs[i], str(n), ops[i], rank[i]) for i, n in zip(chosen, names, strict=True)], len(exprs)


def _fit_score(model: str, task: str, A, y_a, B, y_b) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return score(judge_model(model, task, A).fit(A, y_a), B, y_b, task)
        except (ValueError, ArithmeticError, np.linalg.LinAlgError):
            return math.nan


def scores_with(model: str, task: str, Xtr, ytr, Xte, yte, Ftr, Fte, inner) -> tuple[float, list[float]]:
    """The judge's outer score and its inner-CV scores on the raw columns beside ``Ftr`` / ``Fte`` (k columns)."""
    A, B = (with_features(Xtr, Ftr), with_features(Xte, Fte)) if Ftr.shape[1] else (Xtr, Xte)
    outer = _fit_score(model, task, A, ytr, B, yte)
    ins = [_fit_score(model, task, A.iloc[a].reset_index(drop=True), ytr[a], A.iloc[b].reset_index(drop=True), ytr[b])
           for a, b in inner]
    return outer, ins


def run(models: list[str], tables: list[str] | None, max_rows: int, cap: int, per_op: int, out: str) -> None:
    recs = _load(out)
    done = {(r["table"], r["model"], r["fold"]) for r in recs}
    for package, item, target, how in DEV_TABLES:
        if tables and item not in tables:
            continue
        X, y = load_dev(package, item, target, how, max_rows)
        task = task_of(y)
        for fold, (tr, te) in enumerate(dev_splits(y, task)):
            if all((item, m, fold) in done for m in models):
                continue
            Xtr, Xte = X.iloc[tr].reset_index(drop=True), X.iloc[te].reset_index(drop=True)
            t0 = time.perf_counter()
            fam, cands, n_screened = candidates(Xtr, y[tr], cap, per_op)
            batch = fam.from_json([{"expr": c[0]} for c in cands])
            Ftr, Fte = fam.transform(Xtr, batch), fam.transform(Xte, batch)
            inner = dev_splits(y[tr], task, seed=fold)
            for m in models:
                if (item, m, fold) in done:
                    continue
                raw, raw_in = scores_with(m, task, Xtr, y[tr], Xte, y[te], Ftr[:, :0], Fte[:, :0], inner)
                rows = []
                for k, (_e, name, op, rank) in enumerate(cands):
                    s, s_in = scores_with(m, task, Xtr, y[tr], Xte, y[te], Ftr[:, [k]], Fte[:, [k]], inner)
                    rows.append({"name": name, "op": op, "rank": rank, "outer": s, "inner": s_in})
                recs.append(_json_safe({"table": item, "model": m, "fold": fold, "task": task, "rows": len(y),
                                        "n_screened": n_screened, "raw": raw, "raw_inner": raw_in,
                                        "candidates": rows, "seconds": time.perf_counter() - t0}))
                _save(out, recs, cap, per_op)
                best = max(rows, key=lambda r: -math.inf if r["outer"] is None or not math.isfinite(r["outer"])
                           else r["outer"])
                print(f"{item:16s} {m:6s} fold {fold}: {len(rows)} of {n_screened} candidates; raw {raw:.4f}; best "
                      f"outer {best['name']} {best['outer'] - raw:+.4f}; {time.perf_counter() - t0:.0f} s", flush=True)


def _save(path: str, recs: list, cap: int, per_op: int) -> None:
    import json

    import sklearn

    meta = {"argv": sys.argv[1:], "cap": cap, "per_op": per_op, "sklearn": sklearn.__version__}
    with open(path + ".tmp", "w") as f:
        json.dump({"meta": meta, "records": recs}, f, indent=0)
    os.replace(path + ".tmp", path)


def _verdict(D: np.ndarray) -> tuple[float, float, str]:
    mean = float(D.mean())
    se = float(D.std(ddof=1) / math.sqrt(D.size)) if D.size > 1 else math.nan
    v = "better" if mean > 0 and mean > 2 * se else "worse" if mean < 0 and mean < -2 * se else "even"
    return mean, 2 * se, v


def _diffs(r: dict) -> tuple[np.ndarray, np.ndarray]:
    """Per candidate of a fold record: the outer difference and the mean inner gain (NaN: a failed fit)."""
    outer = np.array([np.nan if c["outer"] is None else c["outer"] - r["raw"] for c in r["candidates"]])
    raw_in = np.array(r["raw_inner"], dtype=float)
    inner = np.array([np.nanmean(np.array(c["inner"], dtype=float) - raw_in) for c in r["candidates"]])
    return outer, inner


def pair_choices(rs: list[dict]) -> dict:
    """The oracle, the one-candidate oracle and the honest choice of one pair's three fold records."""
    per = [_diffs(r) for r in rs]
    oracle = [(r["candidates"][int(np.nanargmax(o))]["name"], float(np.nanmax(o))) for r, (o, _) in zip(rs, per, strict=True)]
    honest = []
    for r, (o, i) in zip(rs, per, strict=True):
        k = int(np.nanargmax(i))
        honest.append((r["candidates"][k]["name"], float(o[k]) if i[k] > 0 else 0.0, float(i[k]), k))
    by_name: dict[str, list[float]] = {}
    for r, (o, _) in zip(rs, per, strict=True):
        for c, d in zip(r["candidates"], o, strict=True):
            by_name.setdefault(c["name"], []).append(d)
    common = {n: v for n, v in by_name.items() if len(v) == len(rs) and np.isfinite(v).all()}
    one = max(common, key=lambda n: np.mean(common[n])) if common else None
    return {"oracle": oracle, "honest": honest, "one": (one, common.get(one, [math.nan] * len(rs)))}


def _kept(model: str, item: str) -> str:
    try:
        rs = sorted((r for r in _load(DEFAULT_RECORDS[model]) if r["table"] == item and r["model"] == model),
                    key=lambda r: r["fold"])
    except (OSError, KeyError):
        return "?"
    D = np.array([r["diff"] for r in rs])
    return f"{_verdict(D)[2]} ({'; '.join(', '.join(r['names']) or '-' for r in rs)})"


def _pairs(recs: list[dict]):
    """``(table, model, its 3 fold records by fold)`` for every (table, model) pair with all 3 folds, in record order."""
    for item in dict.fromkeys(r["table"] for r in recs):
        for m in dict.fromkeys(r["model"] for r in recs):
            rs = sorted((r for r in recs if r["table"] == item and r["model"] == m), key=lambda r: r["fold"])
            if len(rs) == 3:
                yield item, m, rs


def summary(paths: list[str]) -> None:
    recs = [r for p in paths for r in _load(p)]
    print("| table | model | candidates judged (of screened) | oracle per fold: diffs | mean | 2 se | verdict | "
          "oracle, one candidate: name, mean, 2 se, verdict | honest (inner CV): diffs | mean | 2 se | verdict | "
          "default extractor: verdict (kept) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    counts: dict[str, dict[str, int]] = {}
    for item, m, rs in _pairs(recs):
        ch = pair_choices(rs)
        Do, Dh = np.array([d for _, d in ch["oracle"]]), np.array([h[1] for h in ch["honest"]])
        (mo, so, vo), (mh, sh, vh) = _verdict(Do), _verdict(Dh)
        one, d1 = ch["one"]
        m1, s1, v1 = _verdict(np.array(d1))
        c = counts.setdefault(m, {"oracle": 0, "one": 0, "honest": 0, "honest_worse": 0})
        c["oracle"] += vo == "better"
        c["one"] += v1 == "better"
        c["honest"] += vh == "better"
        c["honest_worse"] += vh == "worse"
        n = f"{int(np.median([len(r['candidates']) for r in rs]))} ({int(np.median([r['n_screened'] for r in rs]))})"
        hon = " ".join(f"{d:+.4f}" for d in Dh)
        print(f"| {item} | {m} | {n} | {' '.join(f'{d:+.4f}' for d in Do)} | {mo:+.4f} | {so:.4f} | {vo} | "
              f"{one}, {m1:+.4f}, {s1:.4f}, {v1} | {hon} | {mh:+.4f} | {sh:.4f} | {vh} | {_kept(m, item)} |")
    for m, c in counts.items():
        print(f"{m}: better under the oracle {c['oracle']}, under the one-candidate oracle {c['one']}, "
              f"honest better {c['honest']} (worse {c['honest_worse']}) of 8")
    print("honest choices per fold (name: outer diff, inner gain):")
    for item, m, rs in _pairs(recs):
        h = pair_choices(rs)["honest"]
        print(f"  {item} {m}: " + "; ".join(f"{n}: {d:+.4f}, {g:+.4f}" for n, d, g, _ in h))


def stage(item: str, model: str, fold: int, name: str, max_rows: int) -> dict:
    """Where the default extractor's path drops the candidate ``name`` in one dev fold: its rank in the screen of
    the family fitted on the guard's search rows (and the search evaluator's rescoring gain when shortlisted),
    whether the search proposed it (the default record's ``searched``), its gain and corrected t **alone** beside
    the columns on the guard's confirmation rows (the guard's model, seed and folds), and the whole set's t there."""
    from metafx_tabular import CVLinear, CVTree, TableExtractor, TabularFamily
    from metafx_tabular.guard import guard_decision, holdout_split, paired_differences, user_matrix

    package, _, target, how = next(t for t in DEV_TABLES if t[1] == item)
    X, y = load_dev(package, item, target, how, max_rows)
    task = task_of(y)
    tr, _te = dev_splits(y, task)[fold]
    Xtr, ytr = X.iloc[tr].reset_index(drop=True), y[tr]
    fx = TableExtractor(model=model, seed=fold)
    fx._validate(Xtr, ytr, reset=True)
    seed = fx._guard_seed()
    s_rows, c_rows = holdout_split(ytr, seed)
    fam = TabularFamily().fit(Xtr.iloc[s_rows], ytr[s_rows])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fam.bind_evaluator(CVLinear() if model == "linear" else CVTree(), fam.prepare(Xtr.iloc[s_rows]), ytr[s_rows],
                           seed)
    exprs = [e for e, _ in fam._screened]
    names = [str(n) for n in fam.feature_names(fam.from_json([{"expr": e} for e in exprs]))]
    rank = {int(i): r + 1 for r, i in enumerate(np.argsort(-np.asarray(fam._screen_rel), kind="stable"))}
    rec = next(r for r in _load(DEFAULT_RECORDS[model]) if (r["table"], r["model"], r["fold"]) == (item, model, fold))
    out = {"table": item, "model": model, "fold": fold, "candidate": name, "n_screened": len(exprs),
           "proposed": name in rec["searched"], "searched": rec["searched"],
           "set_t": (rec["confirmation"] or {}).get("t"), "returned": rec["names"]}
    if name not in names:
        return {**out, "rank": None}
    i = names.index(name)
    from metafx_tabular.screen import column_ranks, orthogonal

    V = np.nan_to_num(np.asarray(fam._screened[i][1], dtype=float).reshape(-1, 1), nan=0.0)
    left = [float(orthogonal(fam, W)[1][0]) for W in (V, column_ranks(V))]  # 1 - R^2 with the columns
    out.update(rank=rank[i], rel_over_floor=float(fam._screen_rel[i] / fam._floor) if fam._floor else None,
               rescore_gain=fam._rescored.get(fam._screen_keys[i]),
               multiple_r=[math.sqrt(max(1.0 - v, 0.0)) for v in left])
    Xcv, _ = fx._validate(Xtr.iloc[c_rows].reset_index(drop=True), reset=False)
    F = fam.transform(Xcv, fam.from_json([{"expr": exprs[i]}]))
    M_cols, cat_cols = user_matrix(fam, Xcv, F[:, :0], model)
    M_c, cat_c = user_matrix(fam, Xcv, F, model)
    d, _, _ = paired_differences(model, M_cols, M_c, cat_cols, cat_c, ytr[c_rows], seed)
    g = guard_decision(d)
    return {**out, "alone_gain": g["mean_diff"], "alone_se": g["se"], "alone_t": g["t"]}


def stages(oracle_paths: list[str], out: str, max_rows: int) -> None:
    """:func:`stage` for each fold where the default returns nothing, of each pair whose honest choice is better
    (its candidate of the fold is followed) or whose one-candidate oracle is better (that candidate is followed)."""
    import json

    recs = [r for p in oracle_paths for r in _load(p)]
    rows = []
    for item, m, rs in _pairs(recs):
        ch = pair_choices(rs)
        follow = [("honest", h[0]) for h in ch["honest"]] \
            if _verdict(np.array([h[1] for h in ch["honest"]]))[2] == "better" else []
        if not follow and ch["one"][0] and _verdict(np.array(ch["one"][1]))[2] == "better":
            follow = [("oracle", ch["one"][0])] * 3
        default = {r["fold"]: r for r in _load(DEFAULT_RECORDS[m]) if (r["table"], r["model"]) == (item, m)}
        for fold, (why, name) in enumerate(follow):
            if default[fold]["names"]:
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                rows.append(_json_safe({**stage(item, m, fold, name, max_rows), "followed": why}))
            print(rows[-1], flush=True)
            with open(out, "w") as f:
                json.dump({"argv": sys.argv[1:], "stages": rows}, f, indent=0)


def stages_table(paths: list[str]) -> None:
    import json

    print("| table | model | fold | candidate followed | screen rank of N (relevance / floor) | multiple R with the "
          "columns (values, ranks) | rescore gain | proposed by the search | alone on the confirmation rows: gain (t) "
          "| whole set t | returned |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for s in (s for p in paths for s in json.loads(records.read_text(p))["stages"]):
        rank = "not screened" if s["rank"] is None else f"{s['rank']}/{s['n_screened']} ({s['rel_over_floor']:.1f})"
        resc = "-" if s.get("rescore_gain") is None else f"{s['rescore_gain']:+.4f}"
        alone = "-" if s.get("alone_t") is None else f"{s['alone_gain']:+.4f} ({s['alone_t']:+.2f})"
        st = "-" if s["set_t"] is None else f"{s['set_t']:+.2f}"
        mr = "-" if s.get("multiple_r") is None else " ".join(f"{r:.3f}" for r in s["multiple_r"])
        print(f"| {s['table']} | {s['model']} | {s['fold']} | {s['candidate']} ({s['followed']}) | {rank} | {mr} | {resc} | "
              f"{'yes' if s['proposed'] else 'no'} | {alone} | {st} | {', '.join(s['returned']) or '-'} |")


def probe(cut: float, models: list[str], tables: list[str] | None, max_rows: int, out: str) -> None:
    """Development probe, not a judgement: ``bench_guard.py --part dev`` with the screen's copy test (a candidate's
    relevance is 0 when its multiple correlation with the columns exceeds ``SCREEN_REDUNDANT``, 0.95) at ``cut``
    instead; everything else the default extractor's."""
    import bench_guard

    from metafx_tabular import screen

    def partial_relevance(fam, V):
        R = fam._residual()
        U, n2 = screen.orthogonal(fam, V)
        num = (U.T @ R) ** 2
        den = n2[:, None] * (R**2).sum(axis=0)[None, :]
        with np.errstate(divide="ignore", invalid="ignore"):
            rel = np.where(den > 0, num / den, 0.0).sum(axis=1)
        return np.where(n2 > 1.0 - cut**2, rel, 0.0)

    screen.partial_relevance = partial_relevance
    bench_guard.run_dev(models, tables, max_rows, out, {})


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default="linear,trees")
    ap.add_argument("--tables", default="", help="comma-separated dev items (default: all eight)")
    ap.add_argument("--max-rows", type=int, default=2500)
    ap.add_argument("--cap", type=int, default=40, help="candidates judged per fold")
    ap.add_argument("--per-op", type=int, default=3, help="the best of each operator among them (by relevance)")
    ap.add_argument("--out")
    ap.add_argument("--summary", nargs="+")
    ap.add_argument("--stages", nargs="+", help="oracle records: follow the honest choice where the default drops it")
    ap.add_argument("--stages-table", nargs="+", help="--stages records as the results page's table")
    ap.add_argument("--probe-copy-cut", type=float, help="development probe: the default extractor on the dev folds "
                    "(bench_guard's records) with the screen's copy test at this multiple correlation")
    ap.add_argument("--stage", nargs=4, metavar=("TABLE", "MODEL", "FOLD", "NAME"),
                    help="one candidate's stages in one dev fold (appended to --out)")
    a = ap.parse_args()
    if a.stage:
        import json

        rows = json.loads(records.read_text(a.out))["stages"] if a.out and records.exists(a.out) else []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rows.append(_json_safe({**stage(a.stage[0], a.stage[1], int(a.stage[2]), a.stage[3], a.max_rows),
                                    "followed": "asked"}))
        print(rows[-1])
        if a.out:
            Path(a.out).write_text(json.dumps({"argv": sys.argv[1:], "stages": rows}, indent=0))
        return
    if a.probe_copy_cut:
        if not a.out:
            ap.error("--probe-copy-cut needs --out")
        probe(a.probe_copy_cut, [m for m in a.models.split(",") if m], [t for t in a.tables.split(",") if t] or None,
              a.max_rows, a.out)
        return
    if a.stages_table:
        stages_table(a.stages_table)
        return
    if a.stages:
        if not a.out:
            ap.error("--stages needs --out")
        stages(a.stages, a.out, a.max_rows)
        return
    if a.summary:
        summary(a.summary)
        return
    if not a.out:
        ap.error("--out is needed (or --summary)")
    os.environ.setdefault("NUMBA_NUM_THREADS", "1")
    run([m for m in a.models.split(",") if m], [t for t in a.tables.split(",") if t] or None, a.max_rows, a.cap,
        a.per_op, a.out)


if __name__ == "__main__":
    main()
