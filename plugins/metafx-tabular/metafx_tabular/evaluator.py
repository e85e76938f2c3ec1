"""Set evaluator ``cv-linear``: k-fold cross-validated score of a linear model.

Class labels get a logistic regression scored by (negated) log-loss; a real
target gets a ridge regression scored by R^2 (the task is read from ``y``, see
``metafx_tabular.tasks.infer_task``, or set with ``task=``).  Columns are
standardized inside each fold; the 5-fold split is repeated 3 times by
default.  Higher is better, as metafx expects.

Why log-loss rather than accuracy: on the small, easy tables linear models are
usually applied to, accuracy sits near its ceiling and moves in steps of one
sample, so it cannot tell a good feature set from a lucky one; log-loss is a
proper scoring rule that also rewards better-calibrated confidence.  Repeating
the split reduces the noise of the estimate, which a search would otherwise
exploit (the best of many noisy scores is optimistic).  ``scoring="accuracy"``
and ``n_repeats=1`` give the plain 5-fold accuracy.

Constructed features are used *next to* a table's own columns, so by default
(``with_columns=True``) a feature set computed by the ``tabular`` family is
scored together with the table's columns: the search then looks for features
that add to the raw columns rather than features that merely repeat them.
Values without columns (from any other family, or plain arrays) are scored alone.
The quality a search records is then that of the columns *with* the features
(``result.transform`` computes the features alone): the search also records the
columns' own score (``metadata["columns_quality"]``), and ``result.summary()`` and
``metafx show`` say what the features add.

Missing values (NaN) in the table's columns are filled with the training
fold's column mean (``missing="mean"``, as scikit-learn's ``SimpleImputer``
does by default); ``missing="indicator"`` also adds an indicator column for
each column with missing values, for a model that adds them itself.
Infinite values raise.

Set evaluator ``cv-tree``: the same protocol with gradient-boosted trees
(scikit-learn's ``HistGradientBoostingClassifier`` / ``Regressor``, small and
fast by default), which read missing values natively; use it when the
features are for a boosted-tree model (LightGBM, XGBoost, scikit-learn's).
Monotone transformations (``log``, a threshold) of one column add nothing to
a tree, so ``cv-tree`` steers the search towards interactions and group-by
aggregates instead.
"""

from __future__ import annotations

import hashlib
import warnings
from collections import OrderedDict
from typing import Any, ClassVar

import numpy as np

from metafx.plugin import FeatureValues, Interval, Options, Satisfies, SetEvaluator, ValidationError

from .tasks import infer_task

__all__ = ["CVLinear", "CVTree"]

#: the folds of recent (splitter, y) pairs: a search scores every set on the same folds
_SPLITS: dict[tuple, list[tuple[np.ndarray, np.ndarray]]] = {}
_SPLITS_KEEP = 8

#: scores of recently evaluated (evaluator parameters, matrix, y, seed): on a small table a search
#: draws the very same set again and again (titanic: 8 distinct sets in 30 steps of a cv-tree search)
_SCORES: OrderedDict[bytes, float] = OrderedDict()
_SCORES_KEEP = 1024


def _score_key(ev: Any, M: np.ndarray, y: np.ndarray, random_state: Any) -> bytes:
    """A digest of everything the score depends on: the evaluator's class and parameters, the matrix
    scored (the table's columns and the features, NaN included), ``y`` and the seed of the split."""
    h = hashlib.blake2b(digest_size=20)
    h.update(repr((type(ev).__module__, type(ev).__qualname__, sorted(vars(ev).items()),
                   M.shape, M.dtype.str, y.shape, y.dtype.str, random_state)).encode())
    h.update(np.ascontiguousarray(M).tobytes())
    h.update(np.ascontiguousarray(y).tobytes() if y.dtype != object else repr(y.tolist()).encode())
    return h.digest()


def _splits(cv: Any, y: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """``list(cv.split(y, y))``, remembered for the last few (splitter, ``y``) pairs.

    The splitters are seeded (``random_state`` an int), so the same splitter and
    ``y`` give the same folds; a splitter without an int seed is not remembered."""
    seed = getattr(cv, "random_state", None)
    if not isinstance(seed, (int, np.integer)):
        return list(cv.split(np.zeros((y.shape[0], 1)), y))
    yc = np.ascontiguousarray(y)
    key = (type(cv).__name__, repr(cv), yc.dtype.str, yc.shape, yc.tobytes())
    hit = _SPLITS.get(key)
    if hit is None:
        hit = [(np.asarray(tr), np.asarray(te)) for tr, te in cv.split(np.zeros((y.shape[0], 1)), y)]
        while len(_SPLITS) >= _SPLITS_KEEP:
            _SPLITS.pop(next(iter(_SPLITS)))
        _SPLITS[key] = hit
    return hit


def _log_loss_score(est: Any, B: np.ndarray, y: np.ndarray) -> float | None:
    """``get_scorer("neg_log_loss")(est, B, y)``, computed as scikit-learn's scorer and ``log_loss`` do
    (for two classes: the positive class's column p and ``[1 - p, p]``; probabilities clipped to
    ``[eps, 1 - eps]``; the mean over rows of ``-sum(xlogy(onehot, p))``), without their input checks.
    None when the test rows do not hold exactly the fitted classes (the scorer's own checks decide)."""
    from scipy.special import xlogy

    classes = getattr(est, "classes_", None)
    if classes is None:
        return None
    labels = np.unique(y)
    if classes.shape[0] < 2 or labels.shape[0] != classes.shape[0] or not np.array_equal(labels, classes):
        return None
    P = np.asarray(est.predict_proba(B))
    if P.dtype != np.float64 or P.ndim != 2 or P.shape[1] != classes.shape[0]:
        return None
    if classes.shape[0] == 2:
        p = P[:, 1][:, np.newaxis]
        P = np.concatenate([1 - p, p], axis=1)
    T = (y[:, None] == labels[None, :]).astype(np.float64)
    eps = np.finfo(P.dtype).eps
    loss = -np.sum(xlogy(T, np.clip(P, eps, 1 - eps)), axis=1)
    return -1 * float(np.average(loss))


def _cross_val_scores(model: Any, M: np.ndarray, y: np.ndarray, folds: list, scoring: str) -> np.ndarray:
    """What ``cross_val_score(model, M, y, cv=folds, scoring=scoring)`` returns (a fit that fails
    scores NaN, with a warning), without its per-call machinery: the same estimators (a pipeline's
    steps fitted one after the other, as ``Pipeline.fit`` does), rows and score, with
    scikit-learn's parameter validation and finiteness checks off (the parameters were checked in
    ``check_params`` and ``evaluate`` rejects infinite values) and the log-loss computed directly."""
    import sklearn
    from sklearn.base import clone
    from sklearn.metrics import get_scorer
    from sklearn.pipeline import Pipeline

    scorer = get_scorer(scoring)
    def flat(m: Any) -> list:
        return [s for _, step in m.steps for s in flat(step)] if isinstance(m, Pipeline) else [m]

    steps = flat(model)
    out = np.empty(len(folds), dtype=np.float64)
    with sklearn.config_context(skip_parameter_validation=True, assume_finite=True):
        for i, (tr, te) in enumerate(folds):
            A, B, y_tr, y_te = M[tr], M[te], y[tr], y[te]
            try:
                for step in steps[:-1]:
                    t = clone(step)
                    A = t.fit_transform(A, y_tr)
                    B = t.transform(B)
                est = clone(steps[-1]).fit(A, y_tr)
            except Exception as exc:  # as cross_val_score's error_score=np.nan
                warnings.warn(f"a fit failed and scores NaN: {exc!r}", stacklevel=3)
                out[i] = np.nan
                continue
            try:
                v = _log_loss_score(est, B, y_te) if scoring == "neg_log_loss" else None
                out[i] = scorer(est, B, y_te) if v is None else v
            except Exception as exc:  # as cross_val_score's error_score=np.nan
                warnings.warn(f"scoring a fold failed and scores NaN: {exc!r}", stacklevel=3)
                out[i] = np.nan
    return out


def _scorer_name(value: Any) -> bool:
    """``"auto"`` or the name of a scikit-learn scorer (the ``scoring`` parameter)."""
    if not isinstance(value, str):
        return False
    if value == "auto":
        return True
    from sklearn.metrics import get_scorer_names

    return value in get_scorer_names()


class CVLinear(SetEvaluator):
    """Mean k-fold CV score of a standardized linear model on the feature set.

    Parameters
    ----------
    n_splits : int, default 5
        Folds (stratified for class labels), shuffled with the search's seed.
    task : {"auto", "classification", "regression"}, default "auto"
    C : float, default 1.0
        Inverse regularization of the logistic regression (classification).
    alpha : float, default 1.0
        Ridge penalty (regression).
    max_iter : int, default 1000
        Iterations of the logistic regression solver.
    with_columns : bool, default True
        Score the features together with the table's own columns when the
        values carry them (``metafx_tabular.batch.TableValues``).
    scoring : str, default "auto"
        A scikit-learn scorer name; ``"auto"`` is ``"neg_log_loss"`` for class
        labels and ``"r2"`` for a real target.
    n_repeats : int, default 3
        Repeats of the k-fold split (each with its own shuffle); the score is
        the mean over all folds.
    missing : {"mean", "indicator"}, default "mean"
        How the model reads missing values (NaN) in the table's columns, as
        the model you will train on the features should: ``"mean"`` fills
        them with the training fold's column mean (scikit-learn's
        ``SimpleImputer()``), so a missing-value indicator (``isna``) among
        the features is valued when missingness says something;
        ``"indicator"`` also adds an indicator column per column with missing
        values (``SimpleImputer(add_indicator=True)``), for a model that adds
        them itself.

    Notes
    -----
    An empty feature set scores the table's columns alone (``with_columns``)
    or what a constant prediction scores (the class frequencies' log-loss or
    the majority class's accuracy; R^2 of the training mean, about 0).

    Examples
    --------
    >>> import numpy as np
    >>> from metafx_tabular import CVLinear
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 3)); y = X[:, 0] + 0.1 * rng.normal(size=200)
    >>> CVLinear().evaluate(X, y, random_state=0) > 0.9
    True
    """

    name = "cv-linear"
    summary = "repeated 5-fold CV of logistic (log-loss) or ridge (R^2) regression, by target type"
    #: the values ``missing`` may take (the first is the default)
    missing_modes: tuple[str, ...] = ("mean", "indicator")
    #: how ``TableExtractor(confirm="auto")`` confirms this evaluator's set (see its ``confirm``)
    table_confirm: bool | str = True
    #: whether the model gains from a monotone function of one column (``log(x)``, ``[x > q50]``) over the
    #: column itself: a linear model does; the tabular family's ``drop_monotone="auto"`` reads this
    reads_monotone_transforms: bool = True
    #: how the tabular family's ``rescore_by="auto"`` rescores its shortlisted candidates for this evaluator:
    #: ``"evaluator"`` (a cross-validated score of the columns with each) or ``"residual"`` (what each adds
    #: to this evaluator's model of the columns; ``metafx_tabular.rescore.residual_gains``) or ``"gate"``
    #: (the evaluator's, but no set when no candidate has a positive residual gain)
    table_rescore: str = "evaluator"

    def __init__(self, n_splits: int = 5, task: str = "auto", C: float = 1.0, alpha: float = 1.0,
                 max_iter: int = 1000, with_columns: bool = True, scoring: str = "auto",
                 n_repeats: int = 3, missing: str = "mean") -> None:
        self.n_splits = n_splits
        self.task = task
        self.C = C
        self.alpha = alpha
        self.max_iter = max_iter
        self.with_columns = with_columns
        self.scoring = scoring
        self.n_repeats = n_repeats
        self.missing = missing

    #: what each parameter accepts, checked by ``check_params`` (see ``metafx.core.params``); a subclass
    #: that changes ``missing_modes`` declares ``missing`` again
    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "n_splits": [Interval("int", 2, None)],
        "task": [Options("auto", "classification", "regression")],
        "C": [Interval("real", 0, None, closed="neither")],
        "alpha": [Interval("real", 0, None, closed="neither")],
        "max_iter": [Interval("int", 1, None)],
        "with_columns": ["boolean"],
        "scoring": [Satisfies(_scorer_name, "'auto' or a scikit-learn scorer name, e.g. 'accuracy', 'neg_log_loss', "
                              "'r2', 'neg_mean_squared_error'", invalid=["no-such-scorer", 3])],
        "n_repeats": [Interval("int", 1, None)],
        "missing": [Options(*missing_modes)],
    }

    #: the model in ``quality_label``: for class labels, for a real target, for either
    model_words: tuple[str, str, str] = ("logistic regression", "ridge regression", "linear model")

    @property
    def quality_label(self) -> str:
        """What the score is -- the metric (by the task, or both while ``task="auto"``), the CV and the model."""
        words = dict(zip(("classification", "regression", "auto"), self.model_words, strict=True))
        metric = {"classification": "-log-loss", "regression": "R^2",
                  "auto": "-log-loss (classes) or R^2 (real target)"}.get(self.task, "score")
        if self.scoring != "auto":
            metric = str(self.scoring)
        repeats = f" x{self.n_repeats}" if self.n_repeats != 1 else ""
        return f"{metric}, {self.n_splits}-fold CV{repeats}, {words.get(self.task, self.model_words[2])}"

    def _model(self, task: str, empty: bool) -> Any:
        from sklearn.dummy import DummyClassifier, DummyRegressor
        from sklearn.linear_model import LogisticRegression, Ridge
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler

        if task == "classification":
            if empty:
                return DummyClassifier(strategy="prior")
            return make_pipeline(StandardScaler(), LogisticRegression(C=self.C, max_iter=self.max_iter))
        if empty:
            return DummyRegressor(strategy="mean")
        return make_pipeline(StandardScaler(), Ridge(alpha=self.alpha))

    def _model_for(self, task: str, M: np.ndarray, empty: bool) -> Any:
        """The model fitted on ``M``'s folds: ``_model``, after an imputer where ``M`` has missing values."""
        model = self._model(task, empty)
        if np.isnan(M).any() and self.missing != "native":
            # missing values (a table's columns): the training fold's mean, with missing-indicators if asked
            from sklearn.impute import SimpleImputer
            from sklearn.pipeline import make_pipeline

            imputer = SimpleImputer(strategy="mean", add_indicator=self.missing == "indicator", keep_empty_features=True)
            model = make_pipeline(imputer, model)
        return model

    def _problem(self, X: Any, y: Any, random_state: Any, n_repeats: int, own_folds: bool = True) -> tuple:
        """``(M, y, task, empty, folds, scoring)``: the matrix scored (the table's columns beside the
        features; one column of zeros for an empty set), the task, whether the set is empty, the seeded
        folds and the scorer name.  ``own_folds=False`` (splits given by the caller): the folds are None
        and the class sizes need not reach ``n_splits``."""
        self.check_params()
        from sklearn.model_selection import RepeatedKFold, RepeatedStratifiedKFold

        values = X if isinstance(X, FeatureValues) else FeatureValues.from_dense(np.asarray(X))
        M = values.dense(np.float64)
        y = np.asarray(y)
        if y.ndim != 1 or y.shape[0] != values.n_samples:
            raise ValidationError(f"X has {values.n_samples} samples but y has shape {y.shape}; y must be 1-D and match")
        if np.isinf(M).any():
            raise ValidationError("X contains infinite values")
        task = infer_task(y) if self.task == "auto" else self.task

        if task == "classification":
            _, counts = np.unique(y, return_counts=True)
            if own_folds and (counts.size < 2 or counts.min() < self.n_splits):
                raise ValidationError(
                    f"{self.name} needs >= 2 classes with >= n_splits={self.n_splits} samples each; "
                    f"class sizes are {sorted(counts.tolist())}: lower n_splits"
                )
            cv = RepeatedStratifiedKFold(n_splits=self.n_splits, n_repeats=n_repeats, random_state=random_state)
            scoring = "neg_log_loss"
        else:
            if own_folds and y.shape[0] < self.n_splits:
                raise ValidationError(f"{y.shape[0]} samples are fewer than n_splits={self.n_splits}")
            cv = RepeatedKFold(n_splits=self.n_splits, n_repeats=n_repeats, random_state=random_state)
            scoring = "r2"
        if self.scoring != "auto":
            scoring = self.scoring
        base = getattr(values, "columns", None) if self.with_columns else None
        if base is not None:
            M = np.hstack([np.asarray(base, dtype=np.float64), M])
        empty = M.shape[1] == 0
        if empty:
            M = np.zeros((values.n_samples, 1))
        return M, y, task, empty, cv if own_folds else None, scoring

    def _scores(self, M: np.ndarray, y: np.ndarray, task: str, empty: bool, folds: list, scoring: str) -> np.ndarray:
        """The score of every ``(train, test)`` fold of ``folds``: the model for ``M`` (:meth:`_model_for`)
        fitted on the train rows and scored on the test rows."""
        from sklearn.exceptions import ConvergenceWarning
        from threadpoolctl import threadpool_limits

        model = self._model_for(task, M, empty)
        # small problems: BLAS threads only add overhead (and oversubscribe shared machines)
        with warnings.catch_warnings(), threadpool_limits(1):
            warnings.simplefilter("ignore", ConvergenceWarning)
            return _cross_val_scores(model, M, y, folds, scoring)

    def evaluate(self, X: Any, y: Any, *, random_state: int | None = None) -> float:
        M, y, task, empty, cv, scoring = self._problem(X, y, random_state, self.n_repeats)
        # the same matrix, y and split give the same score (seeded folds and models): computed once
        key = _score_key(self, M, y, random_state) if isinstance(random_state, (int, np.integer)) else None
        if key is not None and key in _SCORES:
            _SCORES.move_to_end(key)
            return _SCORES[key]
        score = float(np.mean(self._scores(M, y, task, empty, _splits(cv, y), scoring)))
        if key is not None:
            _SCORES[key] = score
            while len(_SCORES) > _SCORES_KEEP:
                _SCORES.popitem(last=False)
        return score

    def fold_scores(self, X: Any, y: Any, *, random_state: int | None = None,
                    n_repeats: int | None = None) -> np.ndarray:
        """The score of every fold (``n_splits * n_repeats`` of them, repeat by repeat), whose mean
        :meth:`evaluate` returns.  ``n_repeats`` overrides the evaluator's; with the same
        ``random_state`` the first repeats are the folds of fewer repeats, so two sets scored
        with one seed are scored on the same folds (a paired comparison)."""
        r = self.n_repeats if n_repeats is None else n_repeats
        if isinstance(r, bool) or not isinstance(r, (int, np.integer)) or r < 1:
            raise ValidationError(f"n_repeats={r!r} must be an integer >= 1")
        M, y, task, empty, cv, scoring = self._problem(X, y, random_state, int(r))
        return self._scores(M, y, task, empty, _splits(cv, y), scoring)

    def split_scores(self, X: Any, y: Any, splits: Any) -> np.ndarray:
        """The score of the evaluator's model (its imputer too, where values are missing) fitted on the
        rows ``train`` and scored on the rows ``test`` of each ``(train, test)`` pair of ``splits``: the
        same matrix, model and scorer as :meth:`evaluate`, on splits of your choice (a holdout, or the
        folds of another splitter).  With the evaluator's own folds it gives :meth:`fold_scores`.

        >>> import numpy as np
        >>> from metafx_tabular import CVLinear
        >>> X = np.arange(40.0).reshape(20, 2); y = X[:, 0] / 3 - X[:, 1] / 7   # a real target: R^2
        >>> CVLinear().split_scores(X, y, [(np.arange(15), np.arange(15, 20))]).round(3)
        array([0.947])
        """
        M, y, task, empty, _, scoring = self._problem(X, y, None, 1, own_folds=False)
        n = M.shape[0]
        folds = []
        try:
            pairs = list(splits)
        except TypeError:
            pairs = None
        if not pairs:
            raise ValidationError(f"splits={splits!r} must be a non-empty list of (train rows, test rows) pairs")
        for k, pair in enumerate(pairs):
            try:
                tr, te = (np.asarray(part) for part in pair)
            except (TypeError, ValueError):
                raise ValidationError(f"splits[{k}] must be a (train rows, test rows) pair, got {pair!r}") from None
            for name, rows in (("train", tr), ("test", te)):
                if rows.ndim != 1 or rows.size == 0 or rows.dtype.kind not in "iu" or rows.min() < 0 or rows.max() >= n:
                    raise ValidationError(f"splits[{k}]: the {name} rows must be a non-empty 1-D array of row "
                                          f"indices in [0, {n})")
            if task == "classification":
                seen = np.unique(y[tr])
                if seen.size < 2:
                    raise ValidationError(f"splits[{k}]: the train rows hold one class ({seen[0].item()!r}); a classifier "
                                          "needs at least 2")
                unseen = np.setdiff1d(np.unique(y[te]), seen)
                if unseen.size:
                    raise ValidationError(f"splits[{k}]: the test rows hold classes {unseen.tolist()} that the "
                                          "train rows do not")
            folds.append((tr, te))
        return self._scores(M, y, task, empty, folds, scoring)


class CVTree(CVLinear):
    """Mean k-fold CV score of small gradient-boosted trees on the feature set.

    Parameters
    ----------
    n_splits : int, default 3
        Folds (stratified for class labels), shuffled with the search's seed.
    task : {"auto", "classification", "regression"}, default "auto"
    max_iter : int, default 30
        Boosting rounds of ``HistGradientBoostingClassifier`` / ``Regressor``.
    learning_rate : float, default 0.2
    max_leaf_nodes : int, default 15
    min_samples_leaf : int, default 10
    with_columns : bool, default True
        Score the features together with the table's own columns (see :class:`CVLinear`).
    scoring : str, default "auto"
        ``"neg_log_loss"`` for class labels and ``"r2"`` for a real target.
    n_repeats : int, default 1
        Repeats of the k-fold split.
    missing : {"native", "mean", "indicator"}, default "native"
        Missing values are left to the trees (each split sends them to the better
        side), as LightGBM and XGBoost do; ``"mean"`` / ``"indicator"`` impute
        first, as :class:`CVLinear` does, for a tree model that cannot read NaN.

    Notes
    -----
    The defaults (30 rounds at learning rate 0.2) are chosen to keep one evaluation cheap on a
    table of a few hundred rows and tens of columns (measurements: :doc:`/results/tabular`,
    "Figures behind the plugin's defaults").

    Examples
    --------
    >>> import numpy as np
    >>> from metafx_tabular import CVTree
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(300, 3)); y = (X[:, 0] * X[:, 1] > 0).astype(int)
    >>> CVTree().evaluate(X[:, :2], y, random_state=0) > CVTree().evaluate(X[:, 2:], y, random_state=0)
    True
    """

    name = "cv-tree"
    summary = "k-fold CV of small gradient-boosted trees (HistGradientBoosting; log-loss or R^2), by target type"
    missing_modes = ("native", "mean", "indicator")
    model_words = ("boosted trees", "boosted trees", "boosted trees")
    #: ``TableExtractor(confirm="auto")`` confirms this evaluator's set on a fresh split, as ``cv-linear``'s
    #: (the plugin's guide, docs/plugins.md, says how the confirmations compare)
    table_confirm: bool | str = True
    #: a tree splits ``log(x)``, ``[x > q50]`` or ``x^2`` (``x`` of one sign) where it splits ``x``: the tabular
    #: family can leave such features out of its candidates (``TabularFamily(drop_monotone="auto")``)
    reads_monotone_transforms: bool = False

    def __init__(self, n_splits: int = 3, task: str = "auto", max_iter: int = 30, learning_rate: float = 0.2,
                 max_leaf_nodes: int = 15, min_samples_leaf: int = 10, with_columns: bool = True,
                 scoring: str = "auto", n_repeats: int = 1, missing: str = "native") -> None:
        self.n_splits = n_splits
        self.task = task
        self.max_iter = max_iter
        self.learning_rate = learning_rate
        self.max_leaf_nodes = max_leaf_nodes
        self.min_samples_leaf = min_samples_leaf
        self.with_columns = with_columns
        self.scoring = scoring
        self.n_repeats = n_repeats
        self.missing = missing

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "learning_rate": [Interval("real", 0, None, closed="neither")],
        "max_leaf_nodes": [Interval("int", 2, None)],
        "min_samples_leaf": [Interval("int", 1, None)],
        "missing": [Options(*missing_modes)],
    }

    def _model(self, task: str, empty: bool) -> Any:
        from sklearn.dummy import DummyClassifier, DummyRegressor
        from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor

        if empty:
            return DummyClassifier(strategy="prior") if task == "classification" else DummyRegressor(strategy="mean")
        cls = HistGradientBoostingClassifier if task == "classification" else HistGradientBoostingRegressor
        return cls(max_iter=self.max_iter, learning_rate=self.learning_rate, max_leaf_nodes=self.max_leaf_nodes,
                   min_samples_leaf=self.min_samples_leaf, early_stopping=False, random_state=0)
