"""Planted-signal tables: does ``TableExtractor`` produce the quantity the label was made from?

Seven generators, each a table of ``--rows`` rows (2000) whose label depends on one engineered
quantity plus noise, with 3-6 distractor columns (normal, uniform, a categorical, drawn by the
seed):

==============  ==========================================================  =====================
generator       label from                                                   planted feature
==============  ==========================================================  =====================
group_dev       price minus the mean price of its city (60 cities)           ``group_dev`` or ``group_rank(price, city)``
isna            whether income is missing (30 % missing, not at random)      ``isna(income)``
ratio           debt / income (both positive, log-normal)                    ``ratio(debt, income)``
product         x1 * x2 (centred normals)                                    ``mul(x1, x2)``
weekday         weekend or not, of a date column (two years of days)         ``weekday(date)``
frequency       how common the merchant is (200 merchants, Zipf 0.7 counts)  ``count(merchant)``
log_ratio       log(a) + b / c (regression; a, b, c positive)                ``log(a)`` and ``ratio(b, c)``
==============  ==========================================================  =====================

Protocol: 5 folds (stratified for class labels); in each, ``TableExtractor`` with its defaults
(or ``--extractor-params``) is fitted on the training part, and its features (``features_``, after
the confirmation) are searched for the planted expression: the operator with the planted columns,
in either order for ``ratio`` (``income / debt`` says the same). A generator is *produced* in a fold
when every planted expression is among the features. Also reported: the number of features, the
linear model's test score with the columns alone and with the features added (mean imputation
without indicators, standardization, logistic log-loss or ridge R^2) and the fit time.

Seeds 0-2 are the development seeds (the rules in ``docs/results/tabular.md`` and
``experiments/tabular_planted/RULE.md`` are judged on them); seeds 10-14 were held out for the
first rule and seeds 20-24 for the second.  A record holds the command and the commit that made it.

Issue 43 (item 3): ``--styles a b`` draws the tables from two generators (``STYLES``: sizes, noise,
distractor kinds, categorical levels as strings and as numbers) and ``--models linear trees`` fits
``TableExtractor(model=m)`` and scores it with that downstream model; the summary then reports each
planted quantity per style, model and kind, marking those the model reads from the columns already.

Run::

    python experiments/tabular_planted/bench_tabular_planted.py --seeds 0 1 2 --out experiments/tabular_planted/dev.json
    python experiments/tabular_planted/bench_tabular_planted.py --generators weekday frequency --seeds 0
    python experiments/tabular_planted/bench_tabular_planted.py --seeds 0 --extractor-params '{"family_params": {"screen": 0}}'
    python experiments/tabular_planted/bench_tabular_planted.py --summarize experiments/tabular_planted/dev.json
    python experiments/tabular_planted/bench_tabular_planted.py --styles a b --models linear trees --seeds 0 \
        --out experiments/tabular_guard/planted_seed0.json
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # experiments/records.py
import records

GENERATORS = ("group_dev", "isna", "ratio", "product", "weekday", "frequency", "log_ratio")


# --------------------------------------------------------------------------- tables
def _distractors(rng: np.random.Generator, n: int, k: int, style: str = "a") -> dict:
    out: dict = {}
    for i in range(k):
        kind = i % 3 if style == "a" else i % 5
        if kind == 0:
            out[f"noise{i}"] = rng.normal(size=n)
        elif kind == 1:
            out[f"noise{i}"] = rng.uniform(1.0, 5.0, size=n) if style == "a" else rng.lognormal(0.0, 1.0, size=n)
        elif kind == 2:
            out[f"noise{i}"] = rng.choice(["u", "v", "w", "z"], size=n)
        elif kind == 3:  # style b: a categorical column whose levels are numbers (12 of them)
            out[f"noise{i}"] = rng.integers(100, 112, size=n)
        else:  # style b: a normal column with 20 % missing values
            out[f"noise{i}"] = np.where(rng.uniform(size=n) < 0.2, np.nan, rng.normal(size=n))
    return out


def _label(rng: np.random.Generator, signal: np.ndarray, noise: float = 0.5) -> np.ndarray:
    """A class label: the standardized signal plus noise, above its median."""
    s = (signal - signal.mean()) / signal.std()
    v = s + noise * rng.normal(size=s.size)
    return (v > np.median(v)).astype(int)


#: the table generators (issue 43, item 3): ``a`` the original one (``--rows`` rows, 3-6 distractors:
#: normal, uniform, a 4-level string category; categories as strings); ``b``: 3000 rows, label noise 1.6 times
#: ``a``'s, 6-9 distractors (normal, lognormal, a string category, a category of 12 numeric levels, a normal
#: column 20 % missing), the planted categorical columns' levels as numbers (city 0-59, merchant 1000-1199)
STYLES = ("a", "b")
STYLE_B_ROWS = 3000
STYLE_B_NOISE = 1.6


def make_table(name: str, seed: int, n: int = 2000, style: str = "a"):
    """``(DataFrame, y, planted)``: ``planted`` lists ``(operator, columns, ordered)`` expressions."""
    import pandas as pd

    if style == "a":
        rng = np.random.default_rng([seed, GENERATORS.index(name)])
        k = int(rng.integers(3, 7))
        boost = 1.0
    else:
        rng = np.random.default_rng([seed, GENERATORS.index(name), 1])
        n, k, boost = STYLE_B_ROWS, int(rng.integers(6, 10)), STYLE_B_NOISE
    numbers = style == "b"  # categorical levels as numbers
    d = _distractors(rng, n, k, style)
    if name == "group_dev":
        city = rng.integers(0, 60, size=n)
        level = rng.normal(0, 3, size=60)
        price = level[city] + rng.normal(size=n)
        d.update(price=price, city=city if numbers else np.array([f"c{c}" for c in city]))
        # the deviation's sign is the label: the rank within the city says the same (as the issue counted
        # OpenFE's group rank), so either operator produces it; the records name which
        y, planted = _label(rng, price - level[city], 0.5 * boost), [("group_dev|group_rank", ("price", "city"), True)]
    elif name == "isna":
        income = rng.lognormal(10, 0.5, size=n)
        missing = rng.uniform(size=n) < 0.3
        hi, lo = (0.75, 0.35) if style == "a" else (0.65, 0.4)
        y = (rng.uniform(size=n) < np.where(missing, hi, lo)).astype(int)
        d.update(income=np.where(missing, np.nan, income), age=rng.normal(40, 10, size=n))
        planted = [("isna", ("income",), True)]
    elif name == "ratio":
        debt, income = rng.lognormal(8, 0.6, size=n), rng.lognormal(10, 0.6, size=n)
        d.update(debt=debt, income=income)
        y, planted = _label(rng, debt / income, 0.3 * boost), [("ratio", ("debt", "income"), False)]
    elif name == "product":
        x1, x2 = rng.normal(size=n), rng.normal(size=n)
        d.update(x1=x1, x2=x2)
        y, planted = _label(rng, x1 * x2, 0.3 * boost), [("mul", ("x1", "x2"), False)]
    elif name == "weekday":
        days = rng.integers(0, 730, size=n)
        date = pd.Timestamp("2021-01-04") + pd.to_timedelta(days, unit="D")
        weekend = (days % 7) >= 5  # 2021-01-04 was a Monday
        hi, lo = (0.8, 0.3) if style == "a" else (0.7, 0.4)
        y = (rng.uniform(size=n) < np.where(weekend, hi, lo)).astype(int)
        d.update(date=date, amount=rng.lognormal(3, 1, size=n))
        planted = [("date_part:weekday", ("date",), True)]
    elif name == "frequency":
        # popularity from a flat Zipf law: the 20 most frequent merchants (what a one-hot encoding
        # keeps) hold a third of the rows, and the rarer ones' counts still vary
        p = 1.0 / np.arange(1, 201) ** 0.7
        merchant = rng.choice(200, size=n, p=p / p.sum())
        perm = rng.permutation(200)  # names carry no order
        count = np.bincount(merchant, minlength=200)[merchant]
        d.update(merchant=1000 + perm[merchant] if numbers else np.array([f"m{perm[m]}" for m in merchant]),
                 amount=rng.lognormal(3, 1, size=n))
        y, planted = _label(rng, -np.log(count), 0.5 * boost), [("count", ("merchant",), True)]
    elif name == "log_ratio":
        a, b, c = rng.lognormal(0, 1, size=n), rng.lognormal(0, 0.5, size=n), rng.lognormal(0, 0.5, size=n)
        d.update(a=a, b=b, c=c)
        s1, s2 = np.log(a), b / c
        y = s1 / s1.std() + s2 / s2.std() + 0.5 * boost * rng.normal(size=n)
        planted = [("log", ("a",), True), ("ratio", ("b", "c"), False)]
    else:
        raise SystemExit(f"unknown generator {name!r}; known: {', '.join(GENERATORS)}")
    names = list(d)
    order = [names[i] for i in rng.permutation(len(names))]
    df = pd.DataFrame({c: d[c] for c in order})
    for c in df.columns:
        if not (pd.api.types.is_numeric_dtype(df[c]) or pd.api.types.is_datetime64_any_dtype(df[c])) \
                or (numbers and (c in ("city", "merchant") or (c.startswith("noise") and df[c].dtype.kind == "i"))):
            df[c] = df[c].astype("category")  # style b: numeric levels, declared categorical by the dtype
    return df, y, planted


# --------------------------------------------------------------------------- matching
def _found(expr: dict, names: list[str], planted: tuple) -> bool:
    op, cols, ordered = planted
    part = None
    if ":" in op:
        op, part = op.split(":")
    if expr.get("op") not in op.split("|") or (part is not None and expr.get("part") != part):
        return False
    args = [names[a["col"]] for a in expr["args"] if "col" in a]
    if len(args) != len(expr["args"]):
        return False
    return tuple(args) == tuple(cols) if ordered else sorted(args) == sorted(cols)


def produced(features: list[dict], names: list[str], planted: list[tuple]) -> list[bool]:
    return [any(_found(f["expr"], names, p) for f in features) for p in planted]


# --------------------------------------------------------------------------- run
def linear_score(Xtr, ytr, Xte, yte, task: str) -> float:
    from sklearn.impute import SimpleImputer
    from sklearn.linear_model import LogisticRegression, Ridge
    from sklearn.metrics import log_loss, r2_score
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    last = LogisticRegression(max_iter=5000) if task == "classification" else Ridge(alpha=1.0)
    m = make_pipeline(SimpleImputer(strategy="mean", keep_empty_features=True), StandardScaler(), last)
    m.fit(Xtr, ytr)
    if task == "classification":
        return -float(log_loss(yte, m.predict_proba(Xte), labels=m.classes_))
    return float(r2_score(yte, m.predict(Xte)))


def raw_matrix(df, fitted_on=None):
    """Numbers as they are, dates as days, categories one-hot (20 most frequent levels)."""
    import pandas as pd

    parts = []
    for c in df.columns:
        s = df[c]
        if not (pd.api.types.is_numeric_dtype(s) or pd.api.types.is_datetime64_any_dtype(s)):
            levels = (fitted_on if fitted_on is not None else df)[c].value_counts().index[:20]
            parts.append(np.column_stack([(s == v).to_numpy(float) for v in levels]))
        elif pd.api.types.is_datetime64_any_dtype(s):
            parts.append(((s - pd.Timestamp("1970-01-01")).dt.total_seconds().to_numpy() / 86400.0)[:, None])
        else:
            parts.append(s.to_numpy(float)[:, None])
    return np.hstack(parts)


def tree_score(Xtr, ytr, Xte, yte, task: str) -> float:
    """scikit-learn's HistGradientBoosting with its defaults on the same matrix (NaN read natively)."""
    from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor
    from sklearn.metrics import log_loss, r2_score

    cls = HistGradientBoostingClassifier if task == "classification" else HistGradientBoostingRegressor
    m = cls(random_state=0).fit(Xtr, ytr)
    if task == "classification":
        return -float(log_loss(yte, m.predict_proba(Xte), labels=m.classes_))
    return float(r2_score(yte, m.predict(Xte)))


#: the planted quantities a downstream model reads from the raw columns already (issue 43, item 3: the
#: target counts the others): trees split a monotone log(a) as a, and read a missing value natively
REPRESENTABLE = {"trees": {("log", ("a",)), ("isna", ("income",))}, "linear": set()}


def run_one(name: str, seed: int, rows: int, params: dict, style: str = "a", model: str | None = None) -> dict:
    from sklearn.model_selection import KFold, StratifiedKFold

    from metafx_tabular import TableExtractor

    if model is not None:
        params = {**params, "model": model}
    score = tree_score if model == "trees" else linear_score
    df, y, planted = make_table(name, seed, rows, style)
    task = "regression" if name == "log_ratio" else "classification"
    cv = (StratifiedKFold if task == "classification" else KFold)(5, shuffle=True, random_state=seed)
    folds = []
    for f, (tr, te) in enumerate(cv.split(df, y)):
        t0 = time.perf_counter()
        fx = TableExtractor(seed=seed * 100 + f, **params)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fx.fit(df.iloc[tr], y[tr])
        fit_s = time.perf_counter() - t0
        names = list(df.columns)
        hit = produced(fx.features_, names, planted)
        R_tr, R_te = raw_matrix(df.iloc[tr]), raw_matrix(df.iloc[te], df.iloc[tr])
        raw = score(R_tr, y[tr], R_te, y[te], task)
        if fx.features_:
            F_tr, F_te = fx.transform(df.iloc[tr]), fx.transform(df.iloc[te])
            withf = score(np.hstack([R_tr, F_tr]), y[tr], np.hstack([R_te, F_te]), y[te], task)
        else:
            withf = raw
        folds.append({"fold": f, "produced": hit, "n_features": len(fx.features_),
                      "features": list(fx.get_feature_names_out()) if fx.features_ else [],
                      "linear_raw": raw, "linear_features": withf, "fit_s": fit_s,
                      "searched": [str(n) for n in fx.family_.feature_names(fx.result_.feature_batch()[1])],
                      "confirmation": fx.confirmation_})
        print(f"  {style}/{name} seed {seed} model {model or 'default'} fold {f}: produced {hit} k={len(fx.features_)} "
              f"{'trees' if model == 'trees' else 'linear'} {raw:.4f} -> {withf:.4f} ({fit_s:.1f} s)", flush=True)
    represent = REPRESENTABLE.get(model or "linear", set())
    return {"generator": name, "seed": seed, "style": style, "model": model or "default", "rows": len(y),
            "planted": [list(map(str, p[:2])) for p in planted],
            "representable": [(p[0], tuple(p[1])) in represent for p in planted], "folds": folds}


def summarize(runs: list[dict]) -> str:
    if any("style" in r for r in runs):
        return summarize_styles(runs)
    lines = ["| generator | seed | produced (of 5) | features (mean) | linear: raw -> with features | fit s |",
             "|---|---|---|---|---|---|"]
    for r in runs:
        fo = r["folds"]
        hits = sum(all(f["produced"]) for f in fo)
        each = " / ".join(str(sum(f["produced"][i] for f in fo)) for i in range(len(fo[0]["produced"])))
        raw = np.mean([f["linear_raw"] for f in fo])
        wf = np.mean([f["linear_features"] for f in fo])
        lines.append(f"| {r['generator']} | {r['seed']} | {hits}" + (f" ({each})" if "/" in each else "")
                     + f" | {np.mean([f['n_features'] for f in fo]):.1f} | {raw:.4f} -> {wf:.4f} "
                     f"| {np.mean([f['fit_s'] for f in fo]):.1f} |")
    return "\n".join(lines)


def summarize_styles(runs: list[dict]) -> str:
    """Per generator style, downstream model and kind: folds (of 5) in which each planted quantity was
    produced; quantities the model reads from the raw columns already are marked "(reads it)"."""
    lines = ["| style | model | generator | seed | rows | produced, each planted quantity (of 5) | features (mean) "
             "| downstream: raw -> with features | fit s |", "|---|---|---|---|---|---|---|---|---|"]
    for r in runs:
        fo = r["folds"]
        each = []
        for i, (op, cols) in enumerate(r["planted"]):
            mark = " (reads it)" if r.get("representable", [False] * 9)[i] else ""
            each.append(f"{op.split('|')[0]}({cols}): {sum(f['produced'][i] for f in fo)}{mark}")
        raw = np.mean([f["linear_raw"] for f in fo])
        wf = np.mean([f["linear_features"] for f in fo])
        lines.append(f"| {r['style']} | {r['model']} | {r['generator']} | {r['seed']} | {r.get('rows', '')} | "
                     f"{'; '.join(each)} | {np.mean([f['n_features'] for f in fo]):.1f} | {raw:.4f} -> {wf:.4f} | "
                     f"{np.mean([f['fit_s'] for f in fo]):.1f} |")
    return "\n".join(lines)


def _commit() -> str:
    """The repository's commit (``+dirty`` with uncommitted changes), or ``unknown``."""
    try:
        here = Path(__file__).resolve().parent
        rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=here, capture_output=True, text=True,
                             check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=here,
                               capture_output=True, text=True, check=True).stdout.strip()
        return rev + ("+dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--generators", nargs="+", default=list(GENERATORS), choices=GENERATORS)
    ap.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    ap.add_argument("--rows", type=int, default=2000, help="rows of style a's tables (style b: 3000)")
    ap.add_argument("--styles", nargs="+", default=None, choices=STYLES,
                    help="table generators (default: a alone, as before issue 43)")
    ap.add_argument("--models", nargs="+", default=None, choices=("linear", "trees"),
                    help="TableExtractor(model=...) runs, each scored by its downstream model (default: the "
                         "extractor's default model, scored by the linear model)")
    ap.add_argument("--extractor-params", default="{}", help="JSON: keyword arguments of TableExtractor")
    ap.add_argument("--out", help="JSON file for the per-fold records")
    ap.add_argument("--summarize", help="print the table of a stored run and exit")
    a = ap.parse_args()
    if a.summarize:
        print(summarize(json.loads(records.read_text(a.summarize))["runs"]))
        return
    params = json.loads(a.extractor_params)
    command = "python " + " ".join(shlex.quote(x) for x in sys.argv)
    commit = _commit()
    runs = []
    styled = a.styles is not None or a.models is not None
    for seed in a.seeds:
        for style in a.styles or ["a"]:
            for model in a.models or [None]:
                for g in a.generators:
                    runs.append(run_one(g, seed, a.rows, params, style, model) if styled
                                else run_one(g, seed, a.rows, params))
                    if a.out:  # after every generator: an interrupted run keeps what it measured
                        Path(a.out).parent.mkdir(parents=True, exist_ok=True)
                        Path(a.out).write_text(json.dumps({"args": vars(a), "command": command, "commit": commit,
                                                           "runs": runs}, indent=1, default=str))
    print(summarize(runs))


if __name__ == "__main__":
    main()
