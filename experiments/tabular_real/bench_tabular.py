"""Tabular feature construction: raw columns vs raw + metafx-tabular features vs raw + polynomial features.

On scikit-learn's bundled ``breast_cancer``, ``wine`` (logistic regression:
accuracy and log-loss) and ``diabetes`` (linear regression: R^2), with 5-fold
cross-validation repeated ``--repeats`` times.  In every outer fold, on the
training part only:

* ``raw``: the model on the table's columns;
* ``+metafx``: ``MetaFeatureExtractor(family="tabular", evaluator="cv-linear")``
  with the plugin's defaults (Mufasa, ``--steps`` steps, cost budget
  ``--budget``; a depth-1 feature costs 1) adds its features to the columns;
* ``+poly/MI``: ``PolynomialFeatures(degree=2)`` terms of degree 2 ranked by
  ``SelectKBest(mutual_info)``, keeping as many as metafx added in that fold.

Every model standardizes its inputs.  The table gives mean +- standard
deviation over the outer folds, the mean paired gain of ``+metafx`` (with its
standard error) and how many folds ``+metafx`` won / tied / lost.  The
plugin's defaults (depth-1 features, positive columns kept on their ratio
scale, log-loss inner scoring with 3 repeats) were chosen while looking at
these three datasets: there is no separate held-out benchmark, so read the
gains as a demonstration, not as an unbiased estimate.  ``autofeat`` is shown
as a fourth column when it is importable (it requires numpy < 2, so it is
absent from metafx's usual environment).

Run (needs ``pip install ./plugins/metafx-tabular``)::

    python experiments/tabular_real/bench_tabular.py                   # about 5 minutes on one core
    python experiments/tabular_real/bench_tabular.py --seed 1          # other outer splits and search seeds
    python experiments/tabular_real/bench_tabular.py --budget 20 --steps 40 --repeats 5
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.datasets import load_breast_cancer, load_diabetes, load_wine
from sklearn.feature_selection import SelectKBest, mutual_info_classif, mutual_info_regression
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.model_selection import RepeatedKFold, RepeatedStratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import PolynomialFeatures, StandardScaler
from threadpoolctl import threadpool_limits

import metafx
import metafx.plugin

DATASETS = {
    "breast_cancer": (load_breast_cancer, "classification"),
    "wine": (load_wine, "classification"),
    "diabetes": (load_diabetes, "regression"),
}


def model(task: str):
    if task == "classification":
        return make_pipeline(StandardScaler(), LogisticRegression(max_iter=5000))
    return make_pipeline(StandardScaler(), LinearRegression())


def fit_score(task: str, A_tr, y_tr, A_te, y_te) -> dict[str, float]:
    """Test-part scores: accuracy and log-loss (classification) or R^2 (regression)."""
    from sklearn.metrics import log_loss

    m = model(task).fit(A_tr, y_tr)
    if task == "classification":
        return {"accuracy": float(m.score(A_te, y_te)),
                "log-loss": float(log_loss(y_te, m.predict_proba(A_te), labels=m.classes_))}
    return {"R^2": float(m.score(A_te, y_te))}


def poly_mi(task: str, X_tr, y_tr, X_te, k: int, seed: int):
    """The ``k`` degree-2 polynomial terms with the highest mutual information with y (fitted on training rows)."""
    d = X_tr.shape[1]
    poly = PolynomialFeatures(degree=2, include_bias=False).fit(X_tr)
    P_tr, P_te = poly.transform(X_tr)[:, d:], poly.transform(X_te)[:, d:]  # degree-2 terms only
    if k == 0:
        return P_tr[:, :0], P_te[:, :0]
    mi = mutual_info_classif if task == "classification" else mutual_info_regression
    sel = SelectKBest(lambda A, b: mi(A, b, random_state=seed), k=min(k, P_tr.shape[1])).fit(P_tr, y_tr)
    return sel.transform(P_tr), sel.transform(P_te)


def autofeat_features(task: str, X_tr, y_tr, X_te, seed: int):  # pragma: no cover - optional
    from autofeat import AutoFeatClassifier, AutoFeatRegressor

    cls = AutoFeatClassifier if task == "classification" else AutoFeatRegressor
    af = cls(feateng_steps=2, verbose=0)
    A_tr = np.asarray(af.fit_transform(X_tr, y_tr))
    A_te = np.asarray(af.transform(X_te))
    return A_tr, A_te


def run(name: str, args, have_autofeat: bool) -> dict:
    loader, task = DATASETS[name]
    data = loader()
    X, y = data.data, data.target
    names = [str(n) for n in data.feature_names]
    splitter = (RepeatedStratifiedKFold if task == "classification" else RepeatedKFold)(
        n_splits=5, n_repeats=args.repeats, random_state=args.seed)
    rows: dict[str, list[dict[str, float]]] = {"raw": [], "+metafx": [], "+poly/MI": [], "+autofeat": []}
    added, seconds = [], 0.0
    examples: list[str] = []
    for fold, (tr, te) in enumerate(splitter.split(X, y)):
        X_tr, X_te, y_tr, y_te = X[tr], X[te], y[tr], y[te]
        rows["raw"].append(fit_score(task, X_tr, y_tr, X_te, y_te))

        t0 = time.perf_counter()
        fx = metafx.MetaFeatureExtractor(
            family="tabular", evaluator="cv-linear", budget=args.budget, steps=args.steps, seed=args.seed + fold,
            family_params={"column_names": names},
        ).fit(X_tr, y_tr)
        seconds += time.perf_counter() - t0
        F_tr, F_te = fx.transform(X_tr), fx.transform(X_te)
        k = F_tr.shape[1]
        added.append(k)
        if fold == 0:
            examples = list(fx.get_feature_names_out()[:4])
        rows["+metafx"].append(fit_score(task, np.hstack([X_tr, F_tr]), y_tr, np.hstack([X_te, F_te]), y_te))

        P_tr, P_te = poly_mi(task, X_tr, y_tr, X_te, k, args.seed)
        rows["+poly/MI"].append(fit_score(task, np.hstack([X_tr, P_tr]), y_tr, np.hstack([X_te, P_te]), y_te))
        if have_autofeat:
            A_tr, A_te = autofeat_features(task, X_tr, y_tr, X_te, args.seed)
            rows["+autofeat"].append(fit_score(task, A_tr, y_tr, A_te, y_te))
    return {"task": task, "rows": {k: v for k, v in rows.items() if v}, "added": np.array(added),
            "seconds": seconds, "examples": examples, "shape": X.shape}


#: metrics where lower is better
LOWER_IS_BETTER = {"log-loss"}


def report(name: str, r: dict) -> None:
    rows = r["rows"]
    n = len(rows["raw"])
    print(f"\n{name} {r['shape'][0]}x{r['shape'][1]} ({r['task']}); metafx added "
          f"{r['added'].mean():.1f} features per fold (min {r['added'].min()}, max {r['added'].max()}), "
          f"search {r['seconds'] / n:.1f} s per fold")
    for metric in rows["raw"][0]:
        sign = -1.0 if metric in LOWER_IS_BETTER else 1.0
        vals = {k: np.array([f[metric] for f in v]) for k, v in rows.items()}
        ref = vals["+metafx"]
        better = "lower" if sign < 0 else "higher"
        print(f"  {metric} ({better} is better)")
        print(f"    {'columns':<10} {'mean':>7} {'sd':>7}   {'+metafx gain over it':>20}   {'metafx W/T/L':>12}")
        for key, v in vals.items():
            gain = sign * (ref - v)
            se = gain.std(ddof=1) / np.sqrt(len(gain)) if len(gain) > 1 else 0.0
            wtl = f"{int((gain > 1e-12).sum())}/{int((np.abs(gain) <= 1e-12).sum())}/{int((gain < -1e-12).sum())}"
            cmp = "" if key == "+metafx" else f"{gain.mean():+.4f} +- {se:.4f}"
            print(f"    {key:<10} {v.mean():7.4f} {v.std(ddof=1):7.4f}   {cmp:>20}   {'' if key == '+metafx' else wtl:>12}")
    print("  e.g. " + "; ".join(r["examples"]))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--budget", type=float, default=12.0, help="cost budget of the added features")
    ap.add_argument("--steps", type=int, default=30, help="Mufasa steps per fit")
    ap.add_argument("--repeats", type=int, default=3, help="repeats of the 5-fold split")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--datasets", nargs="+", default=list(DATASETS), choices=list(DATASETS))
    args = ap.parse_args(argv)
    try:
        import autofeat  # noqa: F401

        have_autofeat = True
    except ImportError:
        have_autofeat = False
    if ("family", "tabular") not in metafx.plugin.get_registry():
        raise SystemExit("the tabular family is not registered: pip install ./plugins/metafx-tabular")

    print(f"metafx-tabular: budget {args.budget:g}, Mufasa {args.steps} steps, evaluator cv-linear (defaults); "
          f"outer CV 5-fold x {args.repeats} repeats (seed {args.seed})")
    print("models: StandardScaler + LogisticRegression (classification) / LinearRegression (regression)")
    if not have_autofeat:
        print("autofeat: not importable (it requires numpy < 2), column omitted")
    t0 = time.perf_counter()
    # small matrices: BLAS threads only add overhead
    with threadpool_limits(1):
        for name in args.datasets:
            report(name, run(name, args, have_autofeat))
    print(f"\ntotal {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
