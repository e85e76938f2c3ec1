"""Wrapper selectors of thesis section 1.2.1: ``forward`` selection and ``backward`` elimination.

Greedy search over feature subsets driven by an evaluation function -- the
soft k-NN leave-one-out fit of thesis eq. 4.2 for a real target (``fwdSel``
of section 4.3), cross-validated accuracy for classes (1-NN, the thesis'
study-case predictor, or any scikit-learn classifier).  The SKS scorer lives in
:mod:`metafx.default_plugins.regression_scorers`, R2W2 in :mod:`metafx.default_plugins.scorers`, ``gflip-stable`` in
:mod:`metafx.default_plugins.selectors`; the soft k-NN criterion and the R2W2
solvers in :mod:`metafx.learn.soft_knn` and :mod:`metafx.learn.radius_margin`
(their names stay importable from here).

See ``docs/evaluators.md`` for the choices made where the texts are silent.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from ..core.base import FeatureSelector
from ..core.exceptions import ValidationError
from ..core.params import HasMethods, Interval, Options
from ..core.validation import check_xy
from ..hooks.spec import hookimpl
from ..learn.arrays import dense_float, encode_labels
from ..learn.radius_margin import hard_margin_dual, r2w2_value_and_grad, simplex_qp
from ..learn.soft_knn import column_sqdiff, soft_knn_criterion, soft_knn_loo, sq_distances
from .regression_scorers import SKS
from .scorers import R2W2
from .selectors import GFlipStable

__all__ = [
    "R2W2",
    "SKS",
    "BackwardElimination",
    "ForwardSelection",
    "GFlipStable",
    "hard_margin_dual",
    "r2w2_value_and_grad",
    "simplex_qp",
    "soft_knn_criterion",
    "soft_knn_loo",
]


def _is_real_target(y: np.ndarray) -> bool:
    y = np.asarray(y)
    return y.dtype.kind == "f" and bool(np.any(y != np.round(y)))


# ------------------------------------------------------------------ subset criteria
class _Criterion:
    """Evaluates ``e(F)`` for candidate sets given the squared-distance matrix of the current set."""

    def __init__(self, kind: str, X: np.ndarray, y: np.ndarray, *, k: int, beta: float, cv: Any,
                 estimator: Any, random_state: int) -> None:
        self.kind = kind
        self.X = X
        m = X.shape[0]
        if kind == "soft-knn":
            if m < 2:
                raise ValidationError(f"the soft-knn criterion needs at least 2 samples, got {m}")
            self.g = np.asarray(y, dtype=np.float64)
            self.k, self.beta = k, beta
            return
        self.codes, n_classes = encode_labels(y)
        counts = np.bincount(self.codes, minlength=n_classes)
        if cv == "loo":
            if m < 2:
                raise ValidationError(f"cv='loo' needs at least 2 samples, got {m}")
            self.fold = np.arange(m)
            self.splits = None
        else:
            if counts.min() < cv:
                raise ValidationError(
                    f"cv={cv} needs at least {cv} members in every class; the smallest class has {counts.min()}"
                )
            from sklearn.model_selection import StratifiedKFold

            skf = StratifiedKFold(n_splits=cv, shuffle=True, random_state=random_state)
            self.splits = list(skf.split(np.zeros((m, 1)), self.codes))
            self.fold = np.empty(m, dtype=np.int64)
            for i, (_, test) in enumerate(self.splits):
                self.fold[test] = i
        self.same_fold = self.fold[:, None] == self.fold[None, :]
        self.estimator = estimator

    def of_D(self, D: np.ndarray) -> float:
        """The criterion of the set whose squared-distance matrix is ``D`` (1-NN / soft k-NN paths)."""
        if self.kind == "soft-knn":
            return soft_knn_criterion(D, self.g, self.k, self.beta)
        Dm = np.where(self.same_fold, np.inf, D)
        nn = np.argmin(Dm, axis=1)  # first minimum: the lowest index wins ties
        return float(np.mean(self.codes[nn] == self.codes))

    def of_set(self, cols: list[int]) -> float:
        """The criterion of a set given by its columns (the scikit-learn estimator path)."""
        from sklearn.base import clone

        m = self.X.shape[0]
        Xs = self.X[:, cols] if cols else np.zeros((m, 1))
        correct = 0
        assert self.splits is not None  # an estimator with cv='loo' is refused by check_params
        for train, test in self.splits:
            est = clone(self.estimator)
            est.fit(Xs[train], self.codes[train])
            correct += int(np.sum(est.predict(Xs[test]) == self.codes[test]))
        return correct / m

    @property
    def uses_D(self) -> bool:
        return self.kind == "soft-knn" or self.estimator is None


class _WrapperBase(FeatureSelector):
    """Shared parameters of ``forward`` and ``backward``."""

    _CRITERIA = ("auto", "soft-knn", "cv")

    def __init__(self, n_features_to_select: int | None = None, criterion: str = "auto", k: int = 5,
                 beta: float = 0.05, cv: Any = 5, estimator: Any = None, tol: float = 0.0,
                 random_state: int = 0) -> None:
        self.n_features_to_select = n_features_to_select
        self.criterion = criterion
        self.k = k
        self.beta = beta
        self.cv = cv
        self.estimator = estimator
        self.tol = tol
        self.random_state = random_state

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "n_features_to_select": [Interval("int", 1, None), None],
        "criterion": [Options(_CRITERIA)],
        "k": [Interval("int", 1, None)],
        "beta": [Interval("real", 0, None, closed="neither")],
        "cv": [Interval("int", 2, None), Options("loo")],
        "estimator": [HasMethods("fit", "predict", what="a scikit-learn classifier (fit/predict)"), None],
        "tol": [Interval("real", 0, None)],
        "random_state": [Interval("int", 0, None)],
    }

    def check_params(self) -> None:
        super().check_params()
        if self.estimator is not None and self.cv == "loo":
            raise ValidationError("cv='loo' is only available with estimator=None (the 1-NN criterion)")

    def _setup(self, X, y):
        self.check_params()
        kind = self.criterion
        if kind == "auto":
            kind = "soft-knn" if _is_real_target(np.asarray(y)) else "cv"
        if kind == "soft-knn":
            values, y = check_xy(X, y, task="regression")
        else:
            values, y = check_xy(X, y)
        Xd = dense_float(values)
        self.criterion_ = kind
        crit = _Criterion(kind, Xd, y, k=int(self.k), beta=float(self.beta), cv=self.cv,
                          estimator=self.estimator, random_state=int(self.random_state))
        return Xd, crit


class ForwardSelection(_WrapperBase):
    """Forward selection (thesis section 1.2.1; ``fwdSel`` of section 4.3).

    ::

        F = []
        repeat:
            f* = argmax_{f not in F} e(F + [f])      (ties: lowest column index)
            stop if n_features_to_select is None and e(F + [f*]) <= e(F) + tol
            F = F + [f*]
        until |F| = n_features_to_select (or every feature is in F)

    The evaluation function ``e`` (``criterion``):

    * ``"soft-knn"``: thesis eq. 4.2 on the set, ``-1/2 sum_x (g(x) - ĝ_F(x))^2``
      with the leave-one-out soft k-NN estimate (eq. 4.1; ``k``, ``beta``) --
      the ``fwdSel`` of thesis section 4.3, for a real target.
    * ``"cv"``: stratified ``cv``-fold cross-validated accuracy (``cv="loo"``:
      leave-one-out) of 1-NN (``estimator=None``, the thesis' study-case
      predictor; Euclidean, lowest index wins ties; fast: the squared-distance
      matrix of ``F`` is kept) or of a scikit-learn classifier ``estimator``
      (refitted for every candidate; slow).  The empty set is 1-NN with every
      distance 0, i.e. the label of the first training instance.
    * ``"auto"`` (default): ``"soft-knn"`` for a target holding non-integer
      values, ``"cv"`` otherwise.

    Returns the chosen columns **in the order they were added** (a ranking).

    Parameters
    ----------
    n_features_to_select : int or None, default None
        ``None``: stop when no addition improves ``e`` by more than ``tol``.
    criterion : {"auto", "soft-knn", "cv"}, default "auto"
    k : int, default 5
        Soft k-NN neighbours (thesis Fig 4.1: 5).
    beta : float, default 0.05
        Soft k-NN decay (thesis Fig 4.1: 0.05, for features in [-1, 1]).
    cv : int or "loo", default 5
    estimator : scikit-learn classifier or None, default None
    tol : float, default 0
    random_state : int, default 0
        Seed of the fold assignment.

    Attributes
    ----------
    scores_ : list of float
        ``e`` of the empty set and after every addition.
    criterion_ : str
        The criterion used (``"auto"`` resolved).

    Examples
    --------
    >>> import numpy as np, metafx
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, (60, 5)); g = np.sin(3 * X[:, 2])
    >>> metafx.select_features(X, g, "forward", n_features_to_select=1)
    array([2])
    """

    name = "forward"
    summary = "forward selection on soft-kNN fit (real target) or CV accuracy (thesis 1.2.1, fwdSel of 4.3)"

    def select(self, X, y) -> np.ndarray:
        Xd, crit = self._setup(X, y)
        m, n = Xd.shape
        limit = n if self.n_features_to_select is None else min(int(self.n_features_to_select), n)
        chosen: list[int] = []
        inside = np.zeros(n, dtype=bool)
        D = np.zeros((m, m))
        cur = crit.of_D(D) if crit.uses_D else crit.of_set([])
        self.scores_ = [cur]
        while len(chosen) < limit:
            best_f, best_e = -1, -np.inf
            for f in range(n):
                if inside[f]:
                    continue
                if crit.uses_D:
                    e = crit.of_D(D + column_sqdiff(Xd[:, f]))
                else:
                    e = crit.of_set([*chosen, f])
                if e > best_e:
                    best_f, best_e = f, e
            if self.n_features_to_select is None and not best_e > cur + self.tol:
                break
            chosen.append(best_f)
            inside[best_f] = True
            cur = best_e
            self.scores_.append(cur)
            if crit.uses_D:
                D = sq_distances(Xd[:, chosen])
        return np.asarray(chosen, dtype=np.intp)


class BackwardElimination(_WrapperBase):
    """Backward elimination (thesis section 1.2.1).

    ::

        F = all features
        repeat:
            f* = argmax_{f in F} e(F - {f})          (ties: lowest column index)
            stop if n_features_to_select is None and e(F - {f*}) < e(F) - tol
            F = F - {f*}
        until |F| = n_features_to_select (or F is empty)

    The same evaluation functions as ``forward`` (``criterion``, ``k``, ``beta``,
    ``cv``, ``estimator``).  With ``n_features_to_select=None`` a removal that
    leaves ``e`` unchanged is made (the smaller set is preferred on ties), and the
    search stops at the first step where every removal lowers ``e`` by more than
    ``tol``.  Returns the remaining columns in increasing index order.

    Attributes
    ----------
    eliminated_ : ndarray
        The removed columns in the order of removal.
    scores_ : list of float
        ``e`` of the full set and after every removal.
    criterion_ : str

    Examples
    --------
    >>> import numpy as np, metafx
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, (60, 4)); g = np.sin(3 * X[:, 1])
    >>> metafx.select_features(X, g, "backward", n_features_to_select=1)
    array([1])
    """

    name = "backward"
    summary = "backward elimination on soft-kNN fit (real target) or CV accuracy (thesis 1.2.1)"

    def select(self, X, y) -> np.ndarray:
        Xd, crit = self._setup(X, y)
        _m, n = Xd.shape
        target = 0 if self.n_features_to_select is None else min(int(self.n_features_to_select), n)
        inside = np.ones(n, dtype=bool)
        D = sq_distances(Xd) if crit.uses_D else None
        cur = crit.of_D(D) if crit.uses_D else crit.of_set(list(range(n)))
        self.scores_ = [cur]
        removed: list[int] = []
        while int(inside.sum()) > target:
            best_f, best_e = -1, -np.inf
            cols = np.flatnonzero(inside)
            for f in cols:
                if crit.uses_D:
                    e = crit.of_D(D - column_sqdiff(Xd[:, f]))
                else:
                    e = crit.of_set([c for c in cols.tolist() if c != f])
                if e > best_e:
                    best_f, best_e = int(f), e
            if self.n_features_to_select is None and best_e < cur - self.tol:
                break
            inside[best_f] = False
            removed.append(best_f)
            cur = best_e
            self.scores_.append(cur)
            if crit.uses_D:
                D = sq_distances(Xd[:, inside])
        self.eliminated_ = np.asarray(removed, dtype=np.intp)
        return np.flatnonzero(inside).astype(np.intp)


@hookimpl
def metafx_register_evaluators(register):
    for cls in (ForwardSelection, BackwardElimination):
        register(cls)
