"""``TableExtractor``: :class:`metafx.MetaFeatureExtractor` for tables as users have them.

The ``tabular`` family reads pandas DataFrames with string / ``category``
columns, datetime columns and missing values (it sets ``accepts_frames =
True``, so ``MetaFeatureExtractor`` leaves their validation to the family,
which raises :class:`metafx.ValidationError` on what it cannot read).
``TableExtractor`` is ``MetaFeatureExtractor`` with defaults for tables
(``family="tabular"``, ``evaluator="cv-linear"``, a small budget)::

    from sklearn.pipeline import make_pipeline, make_union
    from metafx_tabular import TableExtractor

    fx = TableExtractor(budget=10, steps=30).set_output(transform="pandas")
    F = fx.fit(df, y).transform(df)          # a DataFrame: one column per feature, df's index

Output columns are named by the features (``"mean(age by sex)"``); missing
inputs give missing outputs (``family_params={"missing": "zero"}`` fills them).

By default (``confirm="holdout"``) the extractor does no harm to the model the user has
(``model="linear"``, the default, or ``"trees"``): half of the training rows are set aside before the
search, which never sees them; on them, the user's model is scored by 5-fold CV repeated 3 times with
the table's columns alone and with the columns beside the search's features, on the same folds, and
the set is kept only when the mean paired difference is above twice its corrected standard
error (otherwise no feature is returned); a kept set then loses, one at a time, every feature whose
removal does not cost that much (``metafx_tabular.guard``; the plugin's README, "Do no harm").

With ``confirm="auto"`` (``True`` for ``cv-linear`` and ``cv-tree``), the former default, the
search runs on all the rows and its best set is scored once more, with the table's columns alone beside
it, on a fresh split of the training rows (the evaluator's own protocol,
another seed).  The best of many noisy scores is
optimistic, so a set that only won the search's split by luck can be worse
than the columns alone; such a set is dropped and the extractor outputs no
features (``confirmation_`` says what was measured; ``result_`` keeps the
search as it ran).

``confirm="test"`` asks for more: the set and the columns are scored on the same
folds (the evaluator's, repeated at least 3 times) and the set is kept only if
the corrected resampled t-test of their paired differences (Nadeau and Bengio,
2003) finds it better at the 5 % level (:func:`corrected_t_test`).
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping
from typing import Any

import numpy as np

# the transformer and the result type are user-facing names of `metafx`, not in `metafx.plugin`
from metafx import MetaFeatureExtractor, SearchResult
from metafx.plugin import FeatureBatch, FeatureFamily, ValidationError, check_label_types, make_component

from .frame import check_frame_names
from .guard import (
    GUARD_REPEATS,
    GUARD_SPLITS,
    MODELS,
    confirm_each,
    crossfit_decision,
    holdout_split,
    nested_decision,
    paired_differences,
    prune,
    user_matrix,
)
from .tasks import infer_task

__all__ = ["TableExtractor", "corrected_t_test"]

#: the level of ``confirm="test"``
CONFIRM_ALPHA = 0.05
#: least repeats of the evaluator's folds for ``confirm="test"``
CONFIRM_REPEATS = 3
#: the outer folds of ``confirm="nested"`` (``confirm_folds``): K + 1 searches when the set is kept, K when not
NESTED_FOLDS = 3


def corrected_t_test(d: Any, n_splits: int) -> tuple[float, float]:
    """One-sided corrected resampled t-test that the mean of ``d`` is above 0.

    ``d`` are the paired differences of two models' scores on the folds of a repeated
    ``n_splits``-fold cross-validation.  Fold scores share training rows, so the plain paired
    t-test understates their variance; Nadeau and Bengio (2003, "Inference for the generalization
    error") correct it by the ratio of test to training rows:
    ``t = mean(d) / sqrt((1/n + 1/(n_splits - 1)) * var(d))`` with ``n - 1`` degrees of freedom
    (as Bouckaert and Frank, 2004, apply it to repeated k-fold CV).  Returns ``(t, p)``; a
    constant ``d`` gives ``t = +-inf`` (``p`` 0 or 1) when its mean is not 0, and ``(0, 0.5)`` when it is.

    >>> t, p = corrected_t_test([0.02, 0.01, 0.03, 0.02, 0.015, 0.025], n_splits=3)
    >>> round(t, 2), p < 0.05
    (3.46, True)
    """
    from scipy.stats import t as student_t

    d = np.asarray(d, dtype=np.float64).ravel()
    if d.size < 2 or not np.isfinite(d).all():
        raise ValidationError(f"corrected_t_test needs >= 2 finite differences; got {d.tolist()!r}")
    if isinstance(n_splits, bool) or not isinstance(n_splits, (int, np.integer)) or n_splits < 2:
        raise ValidationError(f"n_splits={n_splits!r} must be an integer >= 2")
    n, mean, var = d.size, float(d.mean()), float(d.var(ddof=1))
    if var <= 0.0:
        return (0.0, 0.5) if mean == 0.0 else (math.copysign(math.inf, mean), 0.0 if mean > 0 else 1.0)
    t = mean / math.sqrt((1.0 / n + 1.0 / (n_splits - 1)) * var)
    return t, float(student_t.sf(t, n - 1))


class TableExtractor(MetaFeatureExtractor):
    """Learn table features by a budgeted meta-feature search; DataFrames (categorical, datetime,
    missing values) in, features out.  Parameters as :class:`metafx.MetaFeatureExtractor`, and:

    Parameters
    ----------
    model : {"linear", "trees"}, default "linear"
        The model the features are for, which decides what counts: ``"linear"`` (one-hot categories,
        mean imputation, standardized columns; logistic or ridge regression) or ``"trees"``
        (gradient-boosted trees reading categories and missing values natively, as scikit-learn's
        ``HistGradientBoosting`` models, LightGBM and XGBoost do).  It names the search's evaluator
        when ``evaluator`` is None (``cv-linear`` / ``cv-tree``) and the model of the
        ``confirm="holdout"`` guard (``metafx_tabular.guard``): a feature the model reads from
        the columns already (a product of one-hot levels for trees, a group deviation a linear
        model of one-hot groups spans) does not pass it.  The guard's trees stop early
        (``early_stopping=True``; ``experiments/tabular_guard/RULE_early_stop.md``): without it, 100
        rounds overfit a few hundred rows and scored a strong feature (``x1 * x2``) a loss.
    evaluator : str, ~metafx.plugin.SetEvaluator or None, default None
        The search's set evaluator; None: the one of ``model``.
    confirm : bool, "holdout", "holdout-each", "crossfit", "nested", "test" or "auto", default "holdout"
        ``"holdout"``: the guard above: the search runs on half of the rows, and its set is kept
        only if, on the other half, the user's model (``model``) gains from it beyond twice the
        corrected standard error of the gain (5 folds x 3 repeats); otherwise no feature.  A kept
        set is then pruned there: its features are removed one at a time while one's removal
        costs less than that (``confirmation_["kept_features"]``).  Needs
        at least 20 confirmation rows and 5 of every class among them, else no feature.
        ``"holdout-each"`` (an option, ``experiments/tabular_guard/RULE_each.md``): the same halves
        and folds, but on the confirmation half each proposed feature is judged alone beside the
        columns, its ``t`` above Bonferroni's correction of 2 for the number of features
        (``metafx_tabular.guard.each_threshold``: 2 for one feature, 2.37 for two, 3.28 for twelve);
        those that pass are added from the largest ``t`` down while each addition beats the set
        before it by as much (``metafx_tabular.guard.confirm_each``), so one feature that helps
        is kept from a set that fails as a whole.
        ``"crossfit"`` (an option, not the default by ``experiments/tabular_guard/RULE_crossfit.md``):
        the search runs on each half (two searches), each set is scored as above on the other half,
        and the set of the half with the larger own t is kept only if the two halves' mean gain is
        above twice its standard error (the halves' corrected errors pooled,
        ``metafx_tabular.guard.crossfit_decision``); it is then pruned on its other half.
        ``"nested"`` (an option, ``experiments/tabular_guard/RULE_nested.md``): the gain of the whole
        procedure is estimated by ``confirm_folds`` outer folds of the training rows: for each, the family
        is fitted and the search runs on the other folds, and its set is scored as above (5 folds x 3
        repeats of the user's model) on the fold it never saw; the folds' mean gains are pooled
        (``metafx_tabular.guard.nested_decision``: their mean against twice
        ``sqrt(sum of squared corrected s.e.) / K``), and only when the pooled gain clears that does the
        search run once more on all the rows; its set is returned as it is (not pruned).  Every row
        serves once as confirmation, and each search sees ``(K - 1) / K`` of the rows; it costs ``K``
        searches, ``K + 1`` when a set is kept.
        ``"auto"``: the evaluator's ``table_confirm`` (``True`` for ``cv-linear`` and ``cv-tree``;
        ``True`` when it has none).  ``True``: keep the search's
        best set only if, on a fresh split of the training rows (the evaluator's protocol with a
        seed derived from the search's), it scores higher than the table's columns alone;
        otherwise output no features.  Costs two more evaluations.  ``"test"``: both are
        scored on the evaluator's folds repeated ``max(n_repeats, 3)`` times, and the set is kept
        only if the one-sided corrected resampled t-test of the paired fold differences
        (:func:`corrected_t_test`) gives p < 0.05; needs an evaluator with ``fold_scores`` and
        ``n_splits`` (``cv-linear``, ``cv-tree``).
    confirm_folds : int, default 3
        The outer folds ``K`` of ``confirm="nested"`` (an integer >= 2; each fold must hold 20 rows and
        5 of every class, else no feature is returned); unused by the other values of ``confirm``.
    starts : {"default", "groups"}, default "groups"
        ``"groups"``: the search's first steps evaluate one point per operator group the table
        enables (arithmetic, missing values, categories, dates: ``TabularFamily.group_starts``), and
        Mufasa goes on from the best of them, before any ``warm_start`` points; on a numeric table
        without missing values there is one group and the search is the same.  ``"default"``: the
        family's default point only.

    Attributes
    ----------
    confirmation_ : dict or None
        With ``confirm``: ``{"quality": ..., "columns_quality": ..., "kept": bool, "seed": ...}``, the
        set's and the columns' scores on the fresh split (with ``"test"``, their means over the
        folds, and ``"t"``, ``"p"``, ``"n_folds"``; with ``"holdout"``, the user model's mean scores on
        the confirmation rows' folds and ``"mean_diff"``, ``"se"``, ``"t"``, ``"n_folds"``, ``"model"``,
        ``"n_search_rows"``, ``"n_confirm_rows"``; with ``"holdout-each"``, those of the feature of largest
        ``t`` alone and ``"t_each"``, ``"each_t"``, ``"added_t"``; with ``"crossfit"``, the pooled ``"mean_diff"``,
        ``"se"``, ``"t"`` over 30 folds, each half's (``"t_a"``, ``"se_a"``, ``"searched_a"``, ...) and,
        when kept, ``"chosen"``: ``"a"`` or ``"b"``); with ``"nested"``, the pooled ``"mean_diff"``, ``"se"``,
        ``"t"`` over ``15 K`` folds, each outer fold's (``"fold_mean_diff"``, ``"fold_se"``, ``"fold_t"``,
        ``"searched_folds"``: its search's set, ``"n_search_rows"``, ``"n_confirm_rows"``: lists), ``"k_folds"``
        and ``"kept_features"``: the final search's set, when kept); None without ``confirm`` or when the search
        (with ``"crossfit"``, both searches) chose no feature.  When ``kept`` is False, ``features_``
        is empty and ``transform`` returns ``(n_samples, 0)``; ``result_`` and ``best_point_`` still
        describe the search (with ``"crossfit"``, the chosen half's; half A's when nothing is kept; with
        ``"nested"``, the final search's on all the rows when kept, the first outer fold's when not).
    """

    frames = True  # X (a DataFrame or an array with NaN) is validated by the family
    #: set by ``fit``: the chosen features as the family's batch, and as JSON specifications
    _batch: FeatureBatch
    features_: list[dict[str, Any]]
    confirmation_: dict[str, Any] | None

    def __init__(
        self,
        family: Any = "tabular",
        budget: float = 12.0,
        steps: int = 30,
        engine: Any = "mufasa",
        evaluator: Any = None,
        seed: int | None = 0,
        fixed: Mapping[str, Any] | None = None,
        family_params: Mapping[str, Any] | None = None,
        engine_params: Mapping[str, Any] | None = None,
        evaluator_params: Mapping[str, Any] | None = None,
        threshold: float | None = None,
        progress: bool = False,
        n_jobs: int = 1,
        warm_start: Any = None,
        oversample: float = 1.0,
        timeout: float | None = None,
        reselect: int | None = None,
        confirm: bool | str = "holdout",
        starts: str = "groups",
        model: str = "linear",
        confirm_folds: int = NESTED_FOLDS,
    ) -> None:
        self.confirm = confirm
        self.confirm_folds = confirm_folds
        self.model = model
        self.starts = starts
        super().__init__(family=family, budget=budget, steps=steps, engine=engine, evaluator=evaluator, seed=seed,
                         fixed=fixed, family_params=family_params, engine_params=engine_params,
                         evaluator_params=evaluator_params, threshold=threshold, progress=progress, n_jobs=n_jobs,
                         warm_start=warm_start, oversample=oversample, timeout=timeout, reselect=reselect)

    def fit(self, X: Any, y: Any) -> TableExtractor:
        """Search, then (``confirm``) check the best set against the table's columns alone."""
        if not _is_confirm(self.confirm, ("holdout", "crossfit", "test", "auto", "holdout-each", "nested")):
            raise ValidationError(f"confirm={self.confirm!r}; allowed: True, False, 'holdout', 'crossfit', 'test', "
                                  "'auto', 'holdout-each', 'nested'")
        k = self.confirm_folds
        if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)) or k < 2:
            raise ValidationError(f"confirm_folds={k!r}; allowed: an integer >= 2 (the outer folds of "
                                  "confirm='nested')")
        if self.starts not in ("default", "groups"):
            raise ValidationError(f"starts={self.starts!r}; allowed: 'default', 'groups'")
        if not isinstance(self.model, str) or self.model not in MODELS:
            raise ValidationError(f"model={self.model!r}; allowed: " + ", ".join(repr(m) for m in MODELS))
        # before the search: a bad value must not cost one
        evaluator = make_component("set-evaluator", self._search_evaluator(),
                                   None if self.evaluator_params is None else dict(self.evaluator_params))
        if self.confirm in ("holdout", "holdout-each"):
            return self._fit_holdout(X, y)
        if self.confirm == "crossfit":
            return self._fit_crossfit(X, y)
        if self.confirm == "nested":
            return self._fit_nested(X, y)
        confirm = getattr(evaluator, "table_confirm", True) if self.confirm == "auto" else self.confirm
        if not _is_confirm(confirm, ("test",)):
            raise ValidationError(f"evaluator {self._search_evaluator()!r} has table_confirm={confirm!r} (read by "
                                  "confirm='auto'); allowed: True, False, 'test'")
        check_label_types(y)  # metafx.search's rule, before np.asarray turns [1, 'a'] into ['1', 'a']
        yv = np.asarray(y)
        if yv.ndim == 2 and yv.shape[1] == 1:  # a column vector, as the search reads it
            yv = yv.ravel()
        self._group_starts = self._starts_of(X, yv) if self.starts == "groups" else []
        try:
            super().fit(X, y)
        finally:
            del self._group_starts
        self.confirmation_ = None
        if not confirm or not len(self._batch):
            return self
        Xv, _ = self._validate(X, reset=False)
        prepared = self.family_.prepare(Xv)
        # a seed of its own, derived from the search's: the same fit confirms on the same split
        seed = int(np.random.SeedSequence([int(self.result_.seed), 1]).generate_state(1)[0])
        empty = self._batch.take([])
        values = self.family_.compute(prepared, self._batch)
        columns = self.family_.compute(prepared, empty)
        if isinstance(confirm, str) and confirm == "test":
            if not (hasattr(evaluator, "fold_scores") and hasattr(evaluator, "n_splits")):
                raise ValidationError(f"confirm='test' needs an evaluator with fold_scores and n_splits "
                                      f"(cv-linear, cv-tree); {evaluator.name!r} has not")
            r = max(int(getattr(evaluator, "n_repeats", 1)), CONFIRM_REPEATS)
            s_set = evaluator.fold_scores(values, yv, random_state=seed, n_repeats=r)
            s_cols = evaluator.fold_scores(columns, yv, random_state=seed, n_repeats=r)
            d = s_set - s_cols
            t, p = corrected_t_test(d, int(evaluator.n_splits)) if np.isfinite(d).all() else (math.nan, math.nan)
            kept = bool(p < CONFIRM_ALPHA)  # NaN (a failed fit) drops the set
            self.confirmation_ = {"quality": float(np.mean(s_set)), "columns_quality": float(np.mean(s_cols)),
                                  "kept": kept, "seed": seed, "t": float(t), "p": float(p), "n_folds": int(d.size)}
        else:
            q_set = float(evaluator.evaluate(values, yv, random_state=seed))
            q_cols = float(evaluator.evaluate(columns, yv, random_state=seed))
            kept = q_set > q_cols
            self.confirmation_ = {"quality": q_set, "columns_quality": q_cols, "kept": bool(kept), "seed": seed}
        if not kept:
            self._batch = empty
            self.features_ = []
            self.n_features_out_ = 0
        return self

    def _search_evaluator(self) -> Any:
        """``evaluator``, or the one of ``model`` when it is None."""
        return MODELS.get(self.model, "cv-linear") if self.evaluator is None else self.evaluator

    def _fit_holdout(self, X: Any, y: Any) -> TableExtractor:
        """``confirm="holdout"``: search on half of the rows, keep the set only if the user's model gains
        from it on the other half beyond twice the gain's corrected standard error (:mod:`.guard`), then prune
        it; ``"holdout-each"``: judge there each feature alone, then add those that pass one at a time
        (:func:`.guard.confirm_each`)."""
        _Xv, yv = self._validate(X, y, reset=True)  # the whole table's names and shape
        yv = np.asarray(yv)
        seed = self._guard_seed()
        search_rows, confirm_rows = holdout_split(yv, seed)
        X_c, y_c = _rows(X, confirm_rows), yv[confirm_rows]
        self._search_on(X, yv, search_rows)
        self.confirmation_ = None
        if not len(self._batch):
            return self
        info: dict[str, Any] = {"model": self.model, "seed": seed, "n_search_rows": int(search_rows.size),
                                "n_confirm_rows": int(confirm_rows.size)}
        keep: list[int] = []
        if _too_small(y_c):
            info.update(_TOO_SMALL)
        else:
            Xcv, _ = self._validate(X_c, reset=False)
            F = self.family_.transform(Xcv, self._batch)
            M_cols, cat_cols = user_matrix(self.family_, Xcv, F[:, :0], self.model)
            if self.confirm == "holdout-each":
                decision = confirm_each(self.model, M_cols, F, cat_cols, y_c, seed)
            else:
                decision = prune(self.model, M_cols, F, cat_cols, y_c, seed)
            keep = decision.pop("keep")
            info.update(decision)
            info["kept_features"] = [str(n) for n in np.asarray(self.family_.feature_names(self._batch))[keep]] \
                if keep else []
        self.confirmation_ = info
        self._keep_only(keep)
        return self

    def _fit_crossfit(self, X: Any, y: Any) -> TableExtractor:
        """``confirm="crossfit"`` (``experiments/tabular_guard/RULE_crossfit.md``): the search runs on each
        half of the rows, each set is scored by the user's model on the other half, and the set of the half
        with the larger own ``t`` is kept only if the two halves' gains pooled clear twice their standard
        error (:func:`.guard.crossfit_decision`); it is then pruned on its confirmation half."""
        _Xv, yv = self._validate(X, y, reset=True)
        yv = np.asarray(yv)
        seed = self._guard_seed()
        rows_a, rows_b = holdout_split(yv, seed)
        info: dict[str, Any] = {"model": self.model, "seed": seed, "crossfit": True,
                                "n_search_rows": int(rows_a.size), "n_confirm_rows": int(rows_b.size)}
        halves: list[dict[str, Any]] = []
        for search, conf in ((rows_a, rows_b), (rows_b, rows_a)):
            self._search_on(X, yv, search)
            halves.append({"state": self._fitted_state(), "conf": conf,
                           "searched": [str(n) for n in self.family_.feature_names(self._batch)]})
            if _too_small(yv[rows_a]) or _too_small(yv[rows_b]):
                self.__dict__.update(halves[0]["state"])
                self.confirmation_ = {**info, **_TOO_SMALL} if len(self._batch) else None
                self._keep_only([])
                return self
        if not any(h["searched"] for h in halves):
            self.__dict__.update(halves[0]["state"])
            self.confirmation_ = None
            return self
        ds = [self._half_differences(X, yv, h, seed) for h in halves]
        decision = crossfit_decision(ds[0], ds[1], GUARD_SPLITS)
        info.update(decision)
        info.update({"searched_a": halves[0]["searched"], "searched_b": halves[1]["searched"]})
        chosen = 0 if not decision["kept"] or not decision["t_b"] > decision["t_a"] else 1
        self.__dict__.update(halves[chosen]["state"])
        keep: list[int] = []
        if decision["kept"]:
            conf = halves[chosen]["conf"]
            Xcv, _ = self._validate(_rows(X, conf), reset=False)
            F = self.family_.transform(Xcv, self._batch)
            M_cols, cat_cols = user_matrix(self.family_, Xcv, F[:, :0], self.model)
            own = prune(self.model, M_cols, F, cat_cols, yv[conf], seed, decided=True)
            keep = own.pop("keep")
            info.update({"chosen": "ab"[chosen], "own_t": own["t"], "quality": own["quality"],
                         "columns_quality": own["columns_quality"], "drop_t": own["drop_t"],
                         "kept_features": [str(n) for n in np.asarray(self.family_.feature_names(self._batch))[keep]]})
        self.confirmation_ = info
        self._keep_only(keep)
        return self

    def _fit_nested(self, X: Any, y: Any) -> TableExtractor:
        """``confirm="nested"`` (``experiments/tabular_guard/RULE_nested.md``): the gain of the whole procedure
        estimated by ``confirm_folds`` outer folds (for each, the family fitted and the search run on the other
        folds, the set scored by the user's model on the fold, :meth:`_fold_differences`), pooled
        (:func:`.guard.nested_decision`); only when the pooled gain clears twice its standard error does the
        search run once more, on all the rows, and its set is returned as it is."""
        _Xv, yv = self._validate(X, y, reset=True)
        yv = np.asarray(yv)
        seed = self._guard_seed()
        k = int(self.confirm_folds)
        folds = _outer_folds(yv, k, seed) if yv.size >= 4 * GUARD_SPLITS * k else []
        info: dict[str, Any] = {"model": self.model, "seed": seed, "nested": True, "k_folds": k,
                                "n_search_rows": [int(yv.size - f.size) for f in folds],
                                "n_confirm_rows": [int(f.size) for f in folds]}
        if not folds or any(_too_small(yv[f]) for f in folds):
            self._search_on(X, yv, np.arange(yv.size))   # a fitted state for transform; nothing kept
            self.confirmation_ = {**info, **_TOO_SMALL} if len(self._batch) else None
            self._keep_only([])
            return self
        ds, searched, first = [], [], None
        for fold in folds:
            d, names = self._fold_differences(X, yv, np.setdiff1d(np.arange(yv.size), fold), fold, seed)
            ds.append(d)
            searched.append(names)
            first = first or self._fitted_state()
        decision = nested_decision(ds, GUARD_SPLITS)
        info.update(decision)
        info["searched_folds"] = searched
        if not decision["kept"]:
            self.__dict__.update(first or {})   # the first fold's search describes the fit; nothing kept
            self.confirmation_ = info if any(searched) else None
            self._keep_only([])
            return self
        self._search_on(X, yv, np.arange(yv.size))
        info["kept_features"] = [str(n) for n in self.family_.feature_names(self._batch)]
        info["kept"] = bool(info["kept_features"])
        self.confirmation_ = info
        return self

    def _fold_differences(self, X: Any, yv: np.ndarray, search: np.ndarray, conf: np.ndarray,
                          seed: int) -> tuple[np.ndarray, list[str]]:
        """One outer fold of ``confirm="nested"``: the search on the rows ``search``, then the paired differences
        (set minus columns) of its set on the rows ``conf`` by the user's model on the guard's folds (15 exact
        zeros when it proposed no feature), and the names of the set."""
        self._search_on(X, yv, search)
        names = [str(n) for n in self.family_.feature_names(self._batch)]
        if not names:
            return np.zeros(GUARD_SPLITS * GUARD_REPEATS), names
        Xcv, _ = self._validate(_rows(X, conf), reset=False)
        F = self.family_.transform(Xcv, self._batch)
        M_cols, cat_cols = user_matrix(self.family_, Xcv, F[:, :0], self.model)
        M_set, cat_set = user_matrix(self.family_, Xcv, F, self.model)
        d, _, _ = paired_differences(self.model, M_cols, M_set, cat_cols, cat_set, yv[conf], seed)
        return d, names

    def _half_differences(self, X: Any, yv: np.ndarray, half: dict[str, Any], seed: int) -> np.ndarray:
        """The paired differences (set minus columns) of one half's set on the other half's rows, by the user's
        model on the guard's folds; 15 exact zeros when that half's search proposed no feature."""
        self.__dict__.update(half["state"])
        if not half["searched"]:
            return np.zeros(GUARD_SPLITS * GUARD_REPEATS)
        conf = half["conf"]
        Xcv, _ = self._validate(_rows(X, conf), reset=False)
        F = self.family_.transform(Xcv, self._batch)
        M_cols, cat_cols = user_matrix(self.family_, Xcv, F[:, :0], self.model)
        M_set, cat_set = user_matrix(self.family_, Xcv, F, self.model)
        d, _, _ = paired_differences(self.model, M_cols, M_set, cat_cols, cat_set, yv[conf], seed)
        return d

    def _guard_seed(self) -> int:
        """The seed of the guard's split and folds, derived from the extractor's."""
        return int(np.random.SeedSequence([0 if self.seed is None else int(self.seed), 43]).generate_state(1)[0])

    def _search_on(self, X: Any, yv: np.ndarray, rows: np.ndarray) -> None:
        """Fit the family and run the search on the rows ``rows`` only."""
        X_s, y_s = _rows(X, rows), yv[rows]
        self._group_starts = self._starts_of(X_s, y_s) if self.starts == "groups" else []
        try:
            super().fit(X_s, y_s)
        finally:
            del self._group_starts

    def _fitted_state(self) -> dict[str, Any]:
        """What a fit learned (the attributes ending in ``_``, and the chosen batch), to set back later."""
        return {k: v for k, v in vars(self).items() if (k.endswith("_") and not k.startswith("__")) or k == "_batch"}

    def _keep_only(self, keep: list[int]) -> None:
        """Keep the features ``keep`` (indices into the fitted set) and drop the others."""
        if len(keep) < len(self._batch):
            self._batch = self._batch.take(keep)
            self.features_ = [self.features_[i] for i in keep]
            self.n_features_out_ = len(keep)

    def _validate(self, X: Any, y: Any = None, *, reset: bool) -> tuple[Any, Any]:
        """As :class:`metafx.MetaFeatureExtractor`, after refusing repeated column names (one clear line, not
        the dataframe library's error)."""
        check_frame_names(X)
        return super()._validate(X, y, reset=reset)

    def _starts_of(self, X: Any, y: np.ndarray) -> list[dict[str, Any]]:
        """The family's ``group_starts`` on ``X`` (none when it has one group or is not a table family)."""
        built = isinstance(self.family, FeatureFamily)  # an instance: its own parameters
        family = make_component("family", copy.deepcopy(self.family) if built else self.family,
                                None if built or self.family_params is None else dict(self.family_params))
        if not hasattr(family, "group_starts"):
            return []
        family.fit(X, y)
        points = family.group_starts()
        return points if len(points) > 1 else []

    def _warm_start(self) -> Any:
        """The group starts (``starts="groups"``), then ``warm_start``'s points."""
        given = super()._warm_start()
        starts = list(getattr(self, "_group_starts", []))
        if not starts:
            return given
        if given is None:
            return starts
        return starts + ([given] if isinstance(given, (Mapping, SearchResult)) else list(given))


def _outer_folds(y: np.ndarray, k: int, seed: int) -> list[np.ndarray]:
    """The ``k`` outer folds of ``confirm="nested"``: the test rows of a shuffled ``k``-fold split of ``range(len(y))``
    (stratified by class for class labels when every class has ``k`` rows), each sorted."""
    from sklearn.model_selection import KFold, StratifiedKFold

    seed32 = int(seed) % (2**32)
    _, counts = np.unique(y, return_counts=True)
    strat = infer_task(y) == "classification" and counts.min() >= k
    cv = (StratifiedKFold if strat else KFold)(n_splits=k, shuffle=True, random_state=seed32)
    return [np.sort(te).astype(np.int64) for _, te in cv.split(np.zeros((y.shape[0], 1)), y if strat else None)]


def _rows(X: Any, rows: np.ndarray) -> Any:
    """The rows ``rows`` of a DataFrame (``iloc``) or an array."""
    return X.iloc[rows] if hasattr(X, "iloc") else np.asarray(X)[rows]


#: the guard's record when the confirmation rows cannot hold its folds
_TOO_SMALL = {"quality": math.nan, "columns_quality": math.nan, "mean_diff": math.nan, "se": math.nan, "t": math.nan,
              "n_folds": 0, "kept": False, "why": "too few confirmation rows"}


def _too_small(y: np.ndarray) -> bool:
    """Whether confirmation rows with labels ``y`` cannot hold the guard's folds (fewer than 20 rows, or a class
    with fewer rows than folds)."""
    _, counts = np.unique(y, return_counts=True)
    return bool(y.shape[0] < 4 * GUARD_SPLITS or (infer_task(y) == "classification"
                                                  and (counts.size < 2 or counts.min() < GUARD_SPLITS)))


def _is_confirm(value: Any, words: tuple[str, ...]) -> bool:
    """Whether ``value`` is a boolean or one of the strings ``words`` (the values of ``confirm``)."""
    return isinstance(value, (bool, np.bool_)) or (isinstance(value, str) and value in words)
