"""Wrapper-style selectors and the comparison baselines of thesis chapters 1, 3 and 4.

``forward`` / ``backward``
    Forward selection and backward elimination (thesis section 1.2.1): greedy
    search over feature subsets driven by an evaluation function -- the
    soft k-NN leave-one-out fit of thesis eq. 4.2 for a real target
    (``fwdSel`` of section 4.3), cross-validated accuracy for classes (1-NN,
    the thesis' study-case predictor, or any scikit-learn classifier).
``sks``
    SKS (thesis section 4.3): each feature scored alone by eq. 4.2.
``r2w2``
    R2W2 (Weston et al. 2000; thesis section 3.5.4): gradient descent on the
    radius-margin bound ``R^2 W^2`` of an RBF SVM over per-feature scaling
    factors, with the "ridge" added to the kernel diagonal.

See ``docs/evaluators.md`` for the choices made where the texts are silent.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.base import FeatureScorer, FeatureSelector
from ..core.exceptions import ValidationError
from ..core.validation import check_choice, check_int, check_number, check_xy
from ..hooks.spec import hookimpl
from ..learn.arrays import dense_float, encode_labels
from .selectors import GFlip

__all__ = [
    "R2W2",
    "SKS",
    "BackwardElimination",
    "ForwardSelection",
    "GFlipStable",
    "soft_knn_criterion",
    "soft_knn_loo",
]


# ------------------------------------------------------------------ soft k-NN (thesis eq. 4.1, 4.2)
def soft_knn_loo(D: np.ndarray, g: np.ndarray, k: int, beta: float) -> np.ndarray:
    """Leave-one-out soft k-NN estimates ``ĝ(x)`` from a squared-distance matrix ``D`` (m x m).

    ``ĝ(x) = sum_{x' in N(x)} g(x') exp(-d(x, x')/beta) / Z`` over the ``k`` nearest
    other instances (ties: lower index first).  The weights are computed relative
    to the nearest neighbour's distance (the common factor cancels in the ratio),
    so a small ``beta`` does not underflow.
    """
    m = D.shape[0]
    k = min(int(k), m - 1)
    Dm = D.copy()
    np.fill_diagonal(Dm, np.inf)
    nb = np.argsort(Dm, axis=1, kind="stable")[:, :k]
    d = np.take_along_axis(Dm, nb, axis=1)
    wts = np.exp(-(d - d[:, :1]) / beta)
    return (wts * g[nb]).sum(axis=1) / wts.sum(axis=1)


def soft_knn_criterion(D: np.ndarray, g: np.ndarray, k: int, beta: float) -> float:
    """Thesis eq. 4.2 on a feature set: ``e = -1/2 sum_x (g(x) - ĝ(x))^2`` (leave-one-out)."""
    r = g - soft_knn_loo(D, g, k, beta)
    return float(-0.5 * np.dot(r, r))


def _column_sqdiff(x: np.ndarray) -> np.ndarray:
    d = x[:, None] - x[None, :]
    return d * d


def _sq_distances(X: np.ndarray) -> np.ndarray:
    """Exact squared Euclidean distances (column by column, no Gram-matrix cancellation)."""
    m = X.shape[0]
    D = np.zeros((m, m))
    for f in range(X.shape[1]):
        D += _column_sqdiff(X[:, f])
    return D


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

    def check_params(self) -> None:
        check_int('n_features_to_select', self.n_features_to_select, 1, allow_none=True)
        check_choice('criterion', self.criterion, self._CRITERIA)
        check_int('k', self.k, 1)
        check_number('beta', self.beta, low=0.0, strict=True)
        if self.cv != 'loo':
            if isinstance(self.cv, str):
                raise ValidationError(f"cv={self.cv!r} must be an integer >= 2 (stratified folds) or 'loo'")
            check_int('cv', self.cv, 2)
        if self.estimator is not None and (not (hasattr(self.estimator, 'fit') and hasattr(self.estimator, 'predict'))):
            raise ValidationError(f'estimator={self.estimator!r} must be a scikit-learn classifier (fit/predict) or None')
        if self.estimator is not None and self.cv == 'loo':
            raise ValidationError("cv='loo' is only available with estimator=None (the 1-NN criterion)")
        check_number('tol', self.tol, low=0.0)
        check_int('random_state', self.random_state, 0)

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
                    e = crit.of_D(D + _column_sqdiff(Xd[:, f]))
                else:
                    e = crit.of_set(chosen + [f])
                if e > best_e:
                    best_f, best_e = f, e
            if self.n_features_to_select is None and not best_e > cur + self.tol:
                break
            chosen.append(best_f)
            inside[best_f] = True
            cur = best_e
            self.scores_.append(cur)
            if crit.uses_D:
                D = _sq_distances(Xd[:, chosen])
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
        m, n = Xd.shape
        target = 0 if self.n_features_to_select is None else min(int(self.n_features_to_select), n)
        inside = np.ones(n, dtype=bool)
        D = _sq_distances(Xd) if crit.uses_D else None
        cur = crit.of_D(D) if crit.uses_D else crit.of_set(list(range(n)))
        self.scores_ = [cur]
        removed: list[int] = []
        while int(inside.sum()) > target:
            best_f, best_e = -1, -np.inf
            cols = np.flatnonzero(inside)
            for f in cols:
                if crit.uses_D:
                    e = crit.of_D(D - _column_sqdiff(Xd[:, f]))
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
                D = _sq_distances(Xd[:, inside])
        self.eliminated_ = np.asarray(removed, dtype=np.intp)
        return np.flatnonzero(inside).astype(np.intp)


# ------------------------------------------------------------------ SKS
class SKS(FeatureScorer):
    """SKS (thesis section 4.3): every feature scored **alone** by the soft k-NN criterion (eq. 4.2).

    ``score_f = -1/2 sum_x (g(x) - ĝ_{f}(x))^2`` with ``ĝ_{f}`` the leave-one-out
    soft k-NN estimate (eq. 4.1) on column ``f`` only (``w`` the indicator of ``f``).
    Higher is better; the ranking is the SKS selection.

    Parameters
    ----------
    k : int, default 5
        Neighbours (capped at ``m - 1``).
    beta : float, default 0.05
        Decay of the soft k-NN weights (thesis Fig 4.1 uses k = 5, beta = 0.05 on [-1, 1]).

    Examples
    --------
    >>> import numpy as np, metafx
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, (80, 4))
    >>> int(np.argmax(metafx.score_features(X, X[:, 3] ** 2, "sks")))
    3
    """

    name = "sks"
    task = "regression"
    summary = "SKS: each feature alone scored by the LOO soft-kNN regression fit (thesis 4.3)"

    def __init__(self, k: int = 5, beta: float = 0.05) -> None:
        self.k = k
        self.beta = beta

    def check_params(self) -> None:
        check_int('k', self.k, 1)
        check_number('beta', self.beta, low=0.0, strict=True)

    def score(self, X, y) -> np.ndarray:
        self.check_params()
        values, g = check_xy(X, y, task="regression")
        Xd = dense_float(values)
        m, n = Xd.shape
        if m < 2:
            raise ValidationError(f"sks needs at least 2 samples, got {m}")
        return np.array([soft_knn_criterion(_column_sqdiff(Xd[:, f]), g, self.k, float(self.beta))
                         for f in range(n)])


# ------------------------------------------------------------------ R2W2
def _weighted_rbf(X: np.ndarray, s2: np.ndarray, gamma: float) -> np.ndarray:
    """``K_ij = exp(-gamma sum_k s2_k (x_ik - x_jk)^2)`` (Gram-matrix form, symmetrized, distances clipped at 0)."""
    Xs = X * np.sqrt(s2)
    sq = (Xs * Xs).sum(axis=1)
    D = sq[:, None] + sq[None, :] - 2.0 * (Xs @ Xs.T)
    D = np.maximum(0.5 * (D + D.T), 0.0)
    np.fill_diagonal(D, 0.0)
    return np.exp(-gamma * D)


def _weighted_pair_sums(M: np.ndarray, X: np.ndarray) -> np.ndarray:
    """``sum_ij M_ij (x_ik - x_jk)^2`` for every column k, M symmetric."""
    r = M.sum(axis=1)
    return 2.0 * ((X * X) * r[:, None]).sum(axis=0) - 2.0 * (X * (M @ X)).sum(axis=0)


def simplex_qp(K: np.ndarray) -> np.ndarray:
    """``argmin_{beta in simplex} beta' K beta`` (K positive definite).

    This is libsvm's one-class problem ``min 1/2 a'Ka, 0 <= a_i <= 1, sum a = nu m``
    with ``nu = 1/m``: the sum is 1, so the upper bounds can never be active.
    """
    from sklearn.svm import OneClassSVM

    m = K.shape[0]
    if m == 1:
        return np.ones(1)
    oc = OneClassSVM(kernel="precomputed", nu=1.0 / m, tol=1e-10, shrinking=False)
    oc.fit(K)
    b = np.zeros(m)
    b[oc.support_] = oc.dual_coef_.ravel()
    return b / b.sum()


def hard_margin_dual(K: np.ndarray, ysign: np.ndarray) -> np.ndarray:
    """Hard-margin SVM dual coefficients ``alpha`` on a (ridged, positive definite) kernel matrix."""
    from sklearn.svm import SVC

    # K + ridge*I is positive definite, so the data are separable in feature space and the
    # alphas are bounded; a C far above them makes libsvm's box constraint inactive.
    C = 1e6 * max(1.0, float(np.abs(K).max()))
    clf = SVC(C=C, kernel="precomputed", tol=1e-8, shrinking=False)
    clf.fit(K, ysign)
    alpha = np.zeros(K.shape[0])
    alpha[clf.support_] = np.abs(clf.dual_coef_.ravel())
    return alpha


def r2w2_value_and_grad(X: np.ndarray, ysign: np.ndarray, s: np.ndarray, gamma: float, ridge: float):
    """``R^2 W^2`` at the scaling factors ``s`` and its gradient in ``s`` (envelope theorem)."""
    s2 = s * s
    K = _weighted_rbf(X, s2, gamma)
    Kr = K + ridge * np.eye(K.shape[0])
    alpha = hard_margin_dual(Kr, ysign)
    ay = alpha * ysign
    # ||w||^2 = 2 x (dual optimum); this form is stationary in alpha, so a solver's small error in
    # alpha changes it only to second order (ay' K ay equals it at the exact optimum)
    W2 = float(2.0 * alpha.sum() - ay @ Kr @ ay)
    b = simplex_qp(Kr)
    R2 = float(np.dot(b, np.diag(Kr)) - b @ Kr @ b)
    # dK_ij/ds_k = -2 gamma s_k (x_ik - x_jk)^2 K_ij; the ridge does not depend on s
    dW2 = 2.0 * gamma * s * _weighted_pair_sums(np.outer(ay, ay) * K, X)
    dR2 = 2.0 * gamma * s * _weighted_pair_sums(np.outer(b, b) * K, X)
    return R2 * W2, R2 * dW2 + W2 * dR2, R2, W2


class R2W2(FeatureScorer):
    """R2W2 (Weston et al. 2000; thesis section 3.5.4): radius-margin feature scaling for an RBF SVM.

    Minimizes ``R^2 W^2`` over scaling factors ``s`` (x -> s * x, elementwise):
    ``W^2 = sum_ij a_i a_j y_i y_j K_ij`` from the hard-margin SVM dual ``a`` and
    ``R^2 = max_b sum_i b_i K_ii - sum_ij b_i b_j K_ij`` over the simplex (radius of
    the smallest ball holding the data in feature space), with the RBF kernel
    ``K_ij = exp(-gamma ||s * (x_i - x_j)||^2) + ridge [i = j]`` ("ridge" trick for
    the non-separable case; the thesis' ``exp(-||x1 - x2|| / (2 sigma^2))`` with the
    square restored, ALGORITHMS.md A5; gamma = 1 / (2 sigma^2)).  After every step
    both quadratic programs are solved again and the gradient follows from the
    envelope theorem, ``dR^2W^2/ds_k = R^2 dW^2/ds_k + W^2 dR^2/ds_k``.

    Steps: from ``s = 1``, ``s <- max(s - eta * grad / max|grad|, 0)``; a step
    that does not lower ``R^2 W^2`` is undone and ``eta`` halved; stop after
    ``n_iter`` accepted steps or when ``eta < 1e-4``.  Returns ``s^2 / max(s^2)``.
    Binary classification only (as in the thesis).

    Parameters
    ----------
    gamma : float or "scale", default "scale"
        ``"scale"``: ``1 / (n_features * X.var())`` (scikit-learn's rule).
    ridge : float, default 0.1
        Added to the kernel diagonal (equivalent to a 2-norm soft margin with C = 1 / ridge).
    n_iter : int, default 20
    eta : float, default 0.2
        Initial step (in max-norm of the scaling factors).

    Attributes
    ----------
    objective_ : list of float
        ``R^2 W^2`` at the start and after every accepted step.
    scaling_ : ndarray
        The final ``s``.

    Examples
    --------
    >>> import numpy as np, metafx
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 5)); y = (X[:, 1] > 0).astype(int)
    >>> int(np.argmax(metafx.score_features(X, y, "r2w2", n_iter=5)))
    1
    """

    name = "r2w2"
    summary = "R2W2: radius-margin (R^2 W^2) gradient descent on RBF-SVM feature scalings (thesis 3.5.4)"

    def __init__(self, gamma: Any = "scale", ridge: float = 0.1, n_iter: int = 20, eta: float = 0.2) -> None:
        self.gamma = gamma
        self.ridge = ridge
        self.n_iter = n_iter
        self.eta = eta

    def check_params(self) -> None:
        if self.gamma != 'scale':
            if isinstance(self.gamma, str):
                raise ValidationError(f"gamma={self.gamma!r} must be a positive number or 'scale'")
            check_number('gamma', self.gamma, low=0.0, strict=True)
        check_number('ridge', self.ridge, low=0.0, strict=True)
        check_int('n_iter', self.n_iter, 0)
        check_number('eta', self.eta, low=0.0, strict=True)

    def score(self, X, y) -> np.ndarray:
        self.check_params()
        values, y = check_xy(X, y)
        codes, n_classes = encode_labels(y)
        if n_classes != 2:
            raise ValidationError(f"r2w2 is defined for two classes only (thesis 3.5.4); y has {n_classes}")
        Xd = dense_float(values)
        m, n = Xd.shape
        if n == 0:
            self.objective_, self.scaling_ = [], np.zeros(0)
            return np.zeros(0)
        if self.gamma == "scale":
            var = float(Xd.var())
            gamma = 1.0 / (n * var) if var > 0 else 1.0
        else:
            gamma = float(self.gamma)
        self.gamma_ = gamma
        ysign = np.where(codes == 1, 1.0, -1.0)
        s = np.ones(n)
        val, grad, _, _ = r2w2_value_and_grad(Xd, ysign, s, gamma, float(self.ridge))
        self.objective_ = [val]
        eta = float(self.eta)
        steps = 0
        while steps < self.n_iter and eta >= 1e-4:
            top = float(np.abs(grad).max())
            if top == 0:
                break
            s_new = np.maximum(s - eta * grad / top, 0.0)
            v_new, g_new, _, _ = r2w2_value_and_grad(Xd, ysign, s_new, gamma, float(self.ridge))
            if v_new < val:
                s, val, grad = s_new, v_new, g_new
                self.objective_.append(val)
                steps += 1
            else:
                eta *= 0.5
        self.scaling_ = s
        s2 = s * s
        top = s2.max()
        return s2 / top if top > 0 else s2


# ------------------------------------------------------------------ G-flip on subsamples
class GFlipStable(FeatureSelector):
    """G-flip run on random subsamples, keeping the features chosen in most runs (a metafx variant).

    Not the thesis' plain G-flip (that is ``gflip``).  ``n_subsamples`` times:
    draw ``subsample * m`` instances without replacement (stratified by
    nothing, a plain random subset), run ``gflip`` on them with its own
    permutation seed; return the features chosen in at least ``threshold`` of
    the runs, most frequent first (ties: lower index).  A noise feature that
    raises the margin sum ``e(F)`` of one sample by chance is rarely raised on
    most of the others, while a relevant one is -- the stability-selection
    idea applied to G-flip's local maxima.  Cost: ``n_subsamples`` G-flip runs
    on ``subsample * m`` instances (about ``n_subsamples * subsample^2`` times
    one run on all of them).

    Parameters
    ----------
    utility, beta, max_passes
        As for ``gflip``.
    n_subsamples : int, default 10
    subsample : float in (0, 1], default 0.5
    threshold : float in (0, 1], default 0.75
    random_state : int, default 0

    Attributes
    ----------
    frequencies_ : ndarray
        Share of the runs that chose each feature.

    Examples
    --------
    >>> import numpy as np, metafx
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(120, 8)); y = (X[:, 5] > 0).astype(int)
    >>> int(metafx.select_features(X, y, "gflip-stable", n_subsamples=4)[0])
    5
    """

    name = "gflip-stable"
    summary = "G-flip on random subsamples; keeps features chosen in >= threshold of the runs (metafx variant)"

    def __init__(self, utility: str = "linear", beta: float = 1.0, max_passes: int = 100, n_subsamples: int = 10,
                 subsample: float = 0.5, threshold: float = 0.75, random_state: int = 0) -> None:
        self.utility = utility
        self.beta = beta
        self.max_passes = max_passes
        self.n_subsamples = n_subsamples
        self.subsample = subsample
        self.threshold = threshold
        self.random_state = random_state

    def check_params(self) -> None:
        GFlip(utility=self.utility, beta=self.beta, max_passes=self.max_passes)
        check_int('n_subsamples', self.n_subsamples, 1)
        check_number('subsample', self.subsample, low=0.0, strict=True)
        if self.subsample > 1:
            raise ValidationError(f'subsample={self.subsample!r} must be in (0, 1]')
        check_number('threshold', self.threshold, low=0.0, strict=True)
        if self.threshold > 1:
            raise ValidationError(f'threshold={self.threshold!r} must be in (0, 1]')
        check_int('random_state', self.random_state, 0)

    def select(self, X, y) -> np.ndarray:
        self.check_params()
        values, y = check_xy(X, y)
        Xd = dense_float(values)
        m, n = Xd.shape
        size = max(2, int(round(self.subsample * m))) if m >= 2 else m
        rng = np.random.default_rng(self.random_state)
        counts = np.zeros(n)
        for r in range(self.n_subsamples):
            idx = np.sort(rng.permutation(m)[:size])
            seed = int(rng.integers(0, 2**31 - 1))
            g = GFlip(utility=self.utility, beta=self.beta, max_passes=self.max_passes, random_state=seed)
            counts[g.select(Xd[idx], y[idx])] += 1
        freq = counts / self.n_subsamples
        self.frequencies_ = freq
        order = np.argsort(-freq, kind="stable")
        keep = freq[order] >= self.threshold - 1e-12
        return order[keep].astype(np.intp)


@hookimpl
def metafx_register_evaluators(register):
    for cls in (ForwardSelection, BackwardElimination, SKS, R2W2, GFlipStable):
        register(cls)
