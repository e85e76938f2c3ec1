"""The extractor's guard: is a feature set worth adding for the user's model, on rows the search never saw?

``TableExtractor(confirm="holdout")`` (the default) splits its training rows once into *search rows*
and *confirmation rows* (:func:`holdout_split`).  The search sees the search rows only; then the
user's model (:func:`user_model`, chosen by ``TableExtractor(model=...)``) is scored by repeated
K-fold CV on the confirmation rows, once on the table's columns alone and once on the columns beside
the search's features, on the same folds (:func:`paired_differences`).  The set is kept only when the
mean paired difference is above twice its corrected standard error (:func:`guard_decision`), and a
kept set is then pruned there of every feature whose removal costs less (:func:`prune`).

The models, as a user would fit them on the table:

``"linear"``
    categorical columns one-hot (the family's design matrix: the 20 most frequent levels), missing
    values filled with the training fold's mean, columns standardized, then logistic regression
    (``C=1``, scored by log-loss) for class labels or ridge regression (``alpha=1``, R^2) for a real
    target;
``"trees"``
    scikit-learn's ``HistGradientBoostingClassifier`` / ``Regressor`` with its defaults but early stopping
    (``early_stopping=True``: 10 % of the fit's rows validate), categorical columns as native categorical
    features (their codes; levels beyond the 250 most frequent share one), missing values left to the trees.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from metafx.plugin import ValidationError

from .tasks import infer_task

__all__ = [
    "GUARD_REPEATS",
    "GUARD_SPLITS",
    "GUARD_T",
    "HOLDOUT_FRACTION",
    "MODELS",
    "confirm_each",
    "crossfit_decision",
    "each_threshold",
    "fold_scores",
    "guard_decision",
    "holdout_split",
    "nested_decision",
    "paired_differences",
    "prune",
    "user_matrix",
    "user_model",
]

#: the downstream models ``TableExtractor(model=...)`` knows, and the search's evaluator for each
MODELS = {"linear": "cv-linear", "trees": "cv-tree"}
#: folds and repeats of the confirmation's CV, and the t it must exceed
GUARD_SPLITS = 5
GUARD_REPEATS = 3
GUARD_T = 2.0
#: share of the training rows kept for the confirmation
HOLDOUT_FRACTION = 0.5
#: most codes of a categorical column the trees read natively (the rarest levels beyond share the last)
MAX_NATIVE_LEVELS = 250
#: the trees' ``early_stopping`` (``HistGradientBoosting``'s; True: 10 % of the fit's rows validate, 10 rounds
#: without gain stop it); "auto" was the guard before issue 43's diagnosis (on below 10000 rows: never here)
TREES_EARLY_STOPPING: bool | str = True


def holdout_split(y: np.ndarray, seed: int, fraction: float = HOLDOUT_FRACTION) -> tuple[np.ndarray, np.ndarray]:
    """``(search rows, confirmation rows)``: a shuffled split of ``range(len(y))``, ``fraction`` of the
    rows for the confirmation, stratified by class for class labels; each part sorted."""
    y = np.asarray(y)
    n = y.shape[0]
    rng = np.random.default_rng(seed)
    if infer_task(y) == "classification":
        conf = []
        for c in np.unique(y):
            rows = rng.permutation(np.flatnonzero(y == c))
            conf.append(rows[: int(round(fraction * rows.size))])
        confirm = np.sort(np.concatenate(conf)).astype(np.int64)
    else:
        confirm = np.sort(rng.permutation(n)[: int(round(fraction * n))]).astype(np.int64)
    mask = np.ones(n, dtype=bool)
    mask[confirm] = False
    return np.flatnonzero(mask).astype(np.int64), confirm


def user_matrix(family: Any, X: Any, features: np.ndarray, model: str) -> tuple[np.ndarray, np.ndarray]:
    """The matrix the user's ``model`` reads: the table's columns (``"linear"``: the family's design,
    categories one-hot; ``"trees"``: the encoded table, categories as codes) beside ``features``
    (``(n, k)``, NaN where missing), and the mask of its categorical columns."""
    prepared = family.prepare(X)
    if model == "linear":
        cols = np.asarray(prepared["design"], dtype=np.float64)
        cat = np.zeros(cols.shape[1], dtype=bool)
    else:
        Z = np.array(prepared["z"], dtype=np.float64)
        cat = np.array([k == "categorical" for k in family.column_kinds], dtype=bool)
        for j in np.flatnonzero(cat):
            Z[:, j] = np.minimum(Z[:, j], MAX_NATIVE_LEVELS - 1)
        cols = Z
    F = np.asarray(features, dtype=np.float64).reshape(cols.shape[0], -1)
    return np.hstack([cols, F]), np.concatenate([cat, np.zeros(F.shape[1], dtype=bool)])


def user_model(model: str, task: str, categorical: np.ndarray | None = None, seed: int = 0) -> Any:
    """The scikit-learn model standing for the user's (see the module docstring)."""
    if model == "linear":
        from sklearn.impute import SimpleImputer
        from sklearn.linear_model import LogisticRegression, Ridge
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler

        last = LogisticRegression(C=1.0, max_iter=1000) if task == "classification" else Ridge(alpha=1.0)
        return make_pipeline(SimpleImputer(strategy="mean", keep_empty_features=True), StandardScaler(), last)
    if model == "trees":
        from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor

        cls = HistGradientBoostingClassifier if task == "classification" else HistGradientBoostingRegressor
        cat = None if categorical is None or not np.any(categorical) else np.asarray(categorical, dtype=bool)
        # early stopping on every table (scikit-learn's "auto" turns it on above 10000 rows only): without it the
        # 100 rounds overfit a few hundred rows, and a strong feature, which speeds the overfit, scores a loss
        # (experiments/tabular_planted/DIAGNOSIS_TREES.md; experiments/tabular_guard/RULE_early_stop.md)
        return cls(categorical_features=cat, random_state=seed, early_stopping=TREES_EARLY_STOPPING)
    raise ValidationError(f"model={model!r}; allowed: " + ", ".join(repr(m) for m in MODELS))


def _score(est: Any, B: np.ndarray, y: np.ndarray, task: str) -> float:
    """-log-loss (classes; the estimator's classes as labels) or R^2 (a real target) on ``(B, y)``."""
    if task == "classification":
        from sklearn.metrics import log_loss

        return -float(log_loss(y, est.predict_proba(B), labels=est.classes_))
    from sklearn.metrics import r2_score

    return float(r2_score(y, est.predict(B)))


def fold_scores(model: str, M: np.ndarray, categorical: np.ndarray, y: np.ndarray, seed: int,
                n_splits: int = GUARD_SPLITS, n_repeats: int = GUARD_REPEATS) -> np.ndarray:
    """The user's model's scores on ``M`` on ``n_splits`` x ``n_repeats`` folds of the rows (stratified for
    class labels, shuffled with ``seed``; the same folds for every ``M`` of the same rows).  A fit that fails
    scores NaN."""
    from sklearn.base import clone
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.model_selection import RepeatedKFold, RepeatedStratifiedKFold
    from threadpoolctl import threadpool_limits

    y = np.asarray(y)
    task = infer_task(y)
    cv = (RepeatedStratifiedKFold if task == "classification" else RepeatedKFold)(
        n_splits=n_splits, n_repeats=n_repeats, random_state=seed)
    est = user_model(model, task, categorical)
    out: list[float] = []
    with warnings.catch_warnings(), threadpool_limits(1):
        warnings.simplefilter("ignore", ConvergenceWarning)
        for tr, te in cv.split(np.zeros((y.shape[0], 1)), y):
            try:
                fitted = clone(est).fit(M[tr], y[tr])
                out.append(_score(fitted, M[te], y[te], task))
            except (ValueError, ArithmeticError, np.linalg.LinAlgError) as exc:
                warnings.warn(f"a guard fit failed and scores NaN: {exc!r}", stacklevel=2)
                out.append(math.nan)
    return np.asarray(out)


def paired_differences(model: str, M_cols: np.ndarray, M_set: np.ndarray, categorical_cols: np.ndarray,
                       categorical_set: np.ndarray, y: np.ndarray, seed: int, n_splits: int = GUARD_SPLITS,
                       n_repeats: int = GUARD_REPEATS) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(d, s_set, s_cols)``: the user's model's scores on ``M_set`` and on ``M_cols`` on the same
    ``n_splits`` x ``n_repeats`` folds of the rows (:func:`fold_scores`), and their differences
    ``d = s_set - s_cols`` (higher is better).  A fit that fails scores NaN."""
    a = fold_scores(model, M_set, categorical_set, y, seed, n_splits, n_repeats)
    b = fold_scores(model, M_cols, categorical_cols, y, seed, n_splits, n_repeats)
    return a - b, a, b


def prune(model: str, M_cols: np.ndarray, F: np.ndarray, cat_cols: np.ndarray, y: np.ndarray, seed: int,
          n_splits: int = GUARD_SPLITS, n_repeats: int = GUARD_REPEATS, t_min: float = GUARD_T, *,
          decided: bool = False) -> dict[str, Any]:
    """The guard on the confirmation rows: the set ``F`` (columns beside ``M_cols``) must beat the columns
    alone (:func:`guard_decision`); then, while it holds more than one feature, the feature whose removal
    costs least (the smallest ``t`` of the set against the set without it, on the same folds) is removed
    unless that ``t`` is above ``t_min``.  Returns the decision of the whole set (``mean_diff``, ``se``,
    ``t``, ``kept``, ...) with ``"keep"``: the indices of the features kept (none when the set fails),
    ``"quality"`` and ``"columns_quality"`` (the mean scores of the whole set and of the columns) and
    ``"drop_t"``: the ``t`` of each removal made.  ``decided=True``: the set was kept by a decision made
    elsewhere (:func:`crossfit_decision`); its own decision here is reported but only prunes it."""
    k = F.shape[1]
    cat_f = np.zeros(k, dtype=bool)

    def matrix(idx: list[int]) -> tuple[np.ndarray, np.ndarray]:
        return np.hstack([M_cols, F[:, idx]]), np.concatenate([cat_cols, cat_f[idx]])

    M_all, c_all = matrix(list(range(k)))
    d, s_set, s_cols = paired_differences(model, M_cols, M_all, cat_cols, c_all, y, seed, n_splits, n_repeats)
    out = guard_decision(d, n_splits, t_min)
    out.update({"quality": float(np.mean(s_set)), "columns_quality": float(np.mean(s_cols)), "drop_t": []})
    if decided:
        out["kept"] = True
    if not out["kept"]:
        out["keep"] = []
        return out
    keep = list(range(k))
    while len(keep) > 1:
        M_keep, c_keep = matrix(keep)
        ts = []
        for f in keep:
            rest = [g for g in keep if g != f]
            M_rest, c_rest = matrix(rest)
            d_f, _, _ = paired_differences(model, M_rest, M_keep, c_rest, c_keep, y, seed, n_splits, n_repeats)
            ts.append(guard_decision(d_f, n_splits, t_min)["t"])
        ts_arr = np.nan_to_num(np.asarray(ts, dtype=np.float64), nan=-np.inf)
        worst = int(np.argmin(ts_arr))
        if ts_arr[worst] > t_min:
            break
        out["drop_t"].append(float(ts_arr[worst]) if np.isfinite(ts_arr[worst]) else None)
        keep.pop(worst)
    out["keep"] = keep
    return out


def guard_decision(d: np.ndarray, n_splits: int = GUARD_SPLITS, t_min: float = GUARD_T) -> dict[str, Any]:
    """Keep the set when ``mean(d) > t_min * se``, ``se`` the corrected standard error of the mean of
    repeated K-fold differences (Nadeau and Bengio, 2003): ``sqrt((1/n + 1/(n_splits - 1)) * var(d))``.
    NaN anywhere (a failed fit) drops the set.

    >>> guard_decision(np.array([0.02, 0.01, 0.03, 0.02, 0.015, 0.025]), n_splits=3)["kept"]
    True
    >>> guard_decision(np.array([0.02, -0.01, 0.03, -0.02, 0.015, 0.0]), n_splits=3)["kept"]
    False
    """
    d = np.asarray(d, dtype=np.float64).ravel()
    if d.size < 2 or not np.isfinite(d).all():
        return {"mean_diff": float(np.mean(d)) if d.size else math.nan, "se": math.nan, "t": math.nan,
                "kept": False, "n_folds": int(d.size)}
    mean, var = float(d.mean()), float(d.var(ddof=1))
    se = math.sqrt((1.0 / d.size + 1.0 / (n_splits - 1)) * var)
    t = mean / se if se > 0 else (math.inf if mean > 0 else (0.0 if mean == 0 else -math.inf))
    return {"mean_diff": mean, "se": se, "t": float(t), "kept": bool(mean > 0 and t > t_min), "n_folds": int(d.size)}


def crossfit_decision(d_a: np.ndarray, d_b: np.ndarray, n_splits: int = GUARD_SPLITS,
                      t_min: float = GUARD_T) -> dict[str, Any]:
    """The cross-fitted guard (``experiments/tabular_guard/RULE_crossfit.md``): ``d_a`` are the repeated
    K-fold differences of half A's set on half B's rows, ``d_b`` those of B's set on A's rows.  Each half's
    mean has the corrected standard error of :func:`guard_decision`; the halves (disjoint rows, separate
    searches) are taken as independent, so the mean of the two means has
    ``se = sqrt(se_a**2 + se_b**2) / 2``.  Keep when that mean is above ``t_min * se``; NaN in either
    drops.  Also returns each half's own ``t`` (``t_a``, ``t_b``), which picks the set returned.

    >>> d = np.array([0.02, 0.01, 0.03, 0.02, 0.015, 0.025])
    >>> round(crossfit_decision(d, d, n_splits=3)["t"] / guard_decision(d, n_splits=3)["t"], 4)  # sqrt(2)
    1.4142
    """
    a, b = guard_decision(d_a, n_splits, t_min), guard_decision(d_b, n_splits, t_min)
    out: dict[str, Any] = {"t_a": a["t"], "t_b": b["t"], "mean_diff_a": a["mean_diff"], "mean_diff_b": b["mean_diff"],
                           "se_a": a["se"], "se_b": b["se"], "n_folds": a["n_folds"] + b["n_folds"]}
    if not (math.isfinite(a["se"]) and math.isfinite(b["se"])):
        out.update({"mean_diff": math.nan, "se": math.nan, "t": math.nan, "kept": False})
        return out
    mean = (a["mean_diff"] + b["mean_diff"]) / 2.0
    se = math.sqrt(a["se"] ** 2 + b["se"] ** 2) / 2.0
    t = mean / se if se > 0 else (math.inf if mean > 0 else (0.0 if mean == 0 else -math.inf))
    out.update({"mean_diff": mean, "se": se, "t": float(t), "kept": bool(mean > 0 and t > t_min)})
    return out


def nested_decision(ds: list[np.ndarray], n_splits: int = GUARD_SPLITS, t_min: float = GUARD_T) -> dict[str, Any]:
    """The nested guard (``confirm="nested"``, ``experiments/tabular_guard/RULE_nested.md``): ``ds[k]`` are the
    repeated K-fold differences (set minus columns) of outer fold ``k``'s search's set on the rows of fold ``k``,
    which that search never saw.  Each fold's mean has the corrected standard error of :func:`guard_decision`;
    the folds (disjoint rows) are taken as independent, so the mean of the ``K`` means has
    ``se = sqrt(sum(se_k**2)) / K``.  Keep when that mean is above ``t_min * se``; NaN in any fold drops.
    With two folds it is :func:`crossfit_decision`'s pooling.  Also returns each fold's ``mean_diff``, ``se``
    and ``t`` (``fold_mean_diff``, ``fold_se``, ``fold_t``).

    >>> d = np.array([0.02, 0.01, 0.03, 0.02, 0.015, 0.025])
    >>> round(nested_decision([d, d, d], n_splits=3)["t"] / guard_decision(d, n_splits=3)["t"], 4)  # sqrt(3)
    1.7321
    """
    parts = [guard_decision(d, n_splits, t_min) for d in ds]
    out: dict[str, Any] = {"fold_mean_diff": [p["mean_diff"] for p in parts], "fold_se": [p["se"] for p in parts],
                           "fold_t": [p["t"] for p in parts], "n_folds": int(sum(p["n_folds"] for p in parts))}
    if not parts or not all(math.isfinite(p["se"]) for p in parts):
        out.update({"mean_diff": math.nan, "se": math.nan, "t": math.nan, "kept": False})
        return out
    k = len(parts)
    mean = sum(p["mean_diff"] for p in parts) / k
    se = math.sqrt(sum(p["se"] ** 2 for p in parts)) / k
    t = mean / se if se > 0 else (math.inf if mean > 0 else (0.0 if mean == 0 else -math.inf))
    out.update({"mean_diff": mean, "se": se, "t": float(t), "kept": bool(mean > 0 and t > t_min)})
    return out


def each_threshold(k: int, n_folds: int = GUARD_SPLITS * GUARD_REPEATS, t_min: float = GUARD_T) -> float:
    """The t each of ``k`` features must clear (``confirm="holdout-each"``): Bonferroni's correction of ``t_min``,
    the t whose one-sided Student tail with ``n_folds - 1`` degrees of freedom is ``t_min``'s divided by ``k``
    (``t_min`` itself for one feature).

    >>> each_threshold(1), round(each_threshold(2), 2), round(each_threshold(12), 2)
    (2.0, 2.37, 3.28)
    """
    from scipy.stats import t as student_t

    if k <= 1:
        return float(t_min)
    return float(student_t.isf(student_t.sf(t_min, n_folds - 1) / k, n_folds - 1))


def confirm_each(model: str, M_cols: np.ndarray, F: np.ndarray, cat_cols: np.ndarray, y: np.ndarray, seed: int,
                 n_splits: int = GUARD_SPLITS, n_repeats: int = GUARD_REPEATS,
                 t_min: float = GUARD_T) -> dict[str, Any]:
    """The guard feature by feature (``confirm="holdout-each"``, ``experiments/tabular_guard/RULE_each.md``), on
    the confirmation rows: each of the ``k`` features of ``F`` alone beside the columns ``M_cols`` against the
    columns alone (:func:`guard_decision` with ``t`` above :func:`each_threshold` ``(k)``, Bonferroni's
    correction for ``k`` tests); then, from the feature of largest ``t`` down, those that passed are added
    one at a time while each addition beats the set before it by the same ``t`` (a greedy forward step).

    Returns ``"keep"``: the indices kept, in ``F``'s order (none when no feature passes alone), ``"kept"``,
    ``"t_each"`` (the threshold), ``"each_t"`` (each feature's ``t`` alone), ``"added_t"`` (the ``t`` of each
    addition made), ``"mean_diff"``, ``"se"``, ``"t"`` and ``"n_folds"`` of the feature of largest ``t`` (so
    something is returned exactly when that ``t`` is above ``t_each``), ``"quality"`` and
    ``"columns_quality"`` (the mean scores of the set kept, the columns when none, and of the columns)."""
    k = F.shape[1]
    n = n_splits * n_repeats
    t_k = each_threshold(k, n, t_min)

    def scores(idx: list[int]) -> np.ndarray:
        M = np.hstack([M_cols, F[:, idx]])
        return fold_scores(model, M, np.concatenate([cat_cols, np.zeros(len(idx), dtype=bool)]), y, seed,
                           n_splits, n_repeats)

    s_cols = fold_scores(model, M_cols, cat_cols, y, seed, n_splits, n_repeats)
    alone = [scores([j]) for j in range(k)]
    each = [guard_decision(s - s_cols, n_splits, t_k) for s in alone]
    ts = np.nan_to_num(np.array([e["t"] for e in each], dtype=np.float64), nan=-np.inf)
    order = [int(j) for j in np.argsort(-ts, kind="stable")]
    keep: list[int] = []
    added: list[float] = []
    s_cur = s_cols
    for j in (j for j in order if each[j]["kept"]):
        s_new = alone[j] if not keep else scores(sorted([*keep, j]))
        step = guard_decision(s_new - s_cur, n_splits, t_k)
        if step["kept"]:
            keep.append(j)
            added.append(step["t"])
            s_cur = s_new
    best = each[order[0]] if k else guard_decision(np.zeros(0), n_splits, t_k)
    out = {key: best[key] for key in ("mean_diff", "se", "t", "n_folds")}
    out.update({"kept": bool(keep), "keep": sorted(keep), "t_each": t_k, "each_t": [e["t"] for e in each],
                "added_t": added, "quality": float(np.mean(s_cur)), "columns_quality": float(np.mean(s_cols))})
    return out
