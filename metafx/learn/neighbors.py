"""Nearest-neighbour classifiers of the source texts (scikit-learn compatible).

``NearestNeighbor1``
    Plain 1-NN, Euclidean; binary data use Hamming distances on packed bits.
``CondensedNearestNeighbor``
    1-NN on a consistent condensed subset: the greedy gamma-net (Algorithm 1 of
    Gottlieb, Kontorovich & Nisnevitch, "Near-optimal sample compression for
    nearest neighbors") followed by their consistent pruning heuristic
    (Algorithm 2).
``AdaptiveNearestNeighbor``
    K-NN with a per-query feature weighting read from an SVM decision
    boundary (Domeniconi & Gunopulos, "Adaptive nearest neighbor
    classification using support vector machines").
``PotentialFunctionClassifier``
    The multiclass potential function rule with a Gaussian potential
    (Teng, Chen & Dang 2011): ``argmax_k sum_{i: z_i = k} exp(-||x - x_i||^2 / sigma^2)``.

Ties between equally near training points go to the lowest training index.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin

from .._kernels.margin import hit_miss
from .._kernels.neighbors import (
    diameter,
    net_indices,
    nn_index,
    nn_index_packed,
    pairwise_dist,
    potential_scores,
    prune_net,
    weighted_knn_vote,
)
from .._kernels.packing import pack_columns, unpack_columns
from ..core.exceptions import ValidationError
from ..core.validation import check_choice, check_int, check_number, check_xy
from .arrays import dense_float, encode_labels

__all__ = [
    "CLASSIFIERS",
    "AdaptiveNearestNeighbor",
    "CondensedNearestNeighbor",
    "NearestNeighbor1",
    "PotentialFunctionClassifier",
    "make_classifier",
    "mean_pairwise_sqdist",
]


def _check_fit(X: Any, y: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    values, y = check_xy(X, y)
    classes = np.unique(y)
    codes, _ = encode_labels(y)
    return dense_float(values), classes, codes


def _check_predict(est: BaseEstimator, X: Any) -> np.ndarray:
    if not hasattr(est, "classes_"):
        raise ValidationError(f"{type(est).__name__} is not fitted; call fit(X, y) first")
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] != est.n_features_in_:
        raise ValidationError(f"X must have shape (n, {est.n_features_in_}), got {X.shape}")
    if X.size and not np.isfinite(X).all():
        raise ValidationError("X holds a non-finite value")
    return X


def _is_binary(X: np.ndarray) -> bool:
    return bool(X.size == 0 or ((X == 0) | (X == 1)).all())


def _pack_rows(X: np.ndarray) -> np.ndarray:
    return pack_columns(np.ascontiguousarray(X.astype(np.uint8).T))


def mean_pairwise_sqdist(X: np.ndarray) -> float:
    """Mean of ``||x_i - x_j||^2`` over ordered pairs ``i != j`` (``2 m / (m - 1) * sum of variances``)."""
    X = np.asarray(X, dtype=np.float64)
    m = X.shape[0]
    if m < 2 or X.shape[1] == 0:
        return 0.0
    return float(2.0 * m / (m - 1) * X.var(axis=0).sum())


class NearestNeighbor1(ClassifierMixin, BaseEstimator):
    """1-nearest-neighbour classifier (Euclidean; Hamming on packed bits for 0/1 data).

    Examples
    --------
    >>> from metafx.neighbors import NearestNeighbor1
    >>> NearestNeighbor1().fit([[0, 0], [1, 1]], [0, 1]).predict([[0.9, 0.8]])
    array([1])
    """

    def fit(self, X, y):
        X, self.classes_, self.codes_ = _check_fit(X, y)
        self.n_features_in_ = X.shape[1]
        self.binary_ = _is_binary(X)
        self.prototypes_ = _pack_rows(X) if self.binary_ else X
        return self

    def predict(self, X):
        X = _check_predict(self, X)
        if self.binary_ and _is_binary(X):
            idx, _ = nn_index_packed(self.prototypes_, _pack_rows(X))
        else:
            P = _unpack_rows(self.prototypes_, self.n_features_in_).astype(np.float64) if self.binary_ \
                else self.prototypes_
            idx, _ = nn_index(P, X)
        return self.classes_[self.codes_[idx]]


def _unpack_rows(R: np.ndarray, n_features: int) -> np.ndarray:
    # rows packed along the feature axis: unpack_columns gives (n_features, m)
    return np.ascontiguousarray(unpack_columns(R, n_features).T)


class CondensedNearestNeighbor(ClassifierMixin, BaseEstimator):
    """1-NN on a condensed subset that is consistent with the training set.

    Training (Euclidean metric):

    1. Identical training points with different labels would make the margin
       0; of such a group only the copies with the most frequent label (ties:
       the smallest label) are kept.
    2. ``gamma`` = the smallest distance between two points of different
       labels (the margin); with one class, ``gamma = inf``.
    3. Algorithm 1: scan the points in index order and add a point to the
       net when it is at distance ``>= gamma`` from every net point.
    4. Algorithm 2 (``prune=True``): for radii ``r = diam * 2^i``,
       ``i = 0, -1, ...`` while ``r >= gamma``, for each net point ``p`` (in net
       order) whose other-label net points are all ``>= 2 r`` away, remove the
       net points within ``r - gamma`` of ``p``.

    Every kept training point is classified correctly by 1-NN on the result.

    Parameters
    ----------
    prune : bool, default True
        Apply Algorithm 2 after the net.

    Attributes
    ----------
    support_ : ndarray
        Training indices of the prototypes.
    gamma_, diameter_ : float
    n_net_ : int
        Size of the net before pruning.

    Examples
    --------
    >>> import numpy as np
    >>> from metafx.neighbors import CondensedNearestNeighbor
    >>> X = np.r_[np.zeros((20, 1)) + np.arange(20)[:, None] * 0.01, 1 + np.arange(20)[:, None] * 0.01]
    >>> clf = CondensedNearestNeighbor().fit(X, [0] * 20 + [1] * 20)
    >>> len(clf.support_), clf.predict([[0.1], [0.9]]).tolist()
    (2, [0, 1])
    """

    def __init__(self, prune: bool = True) -> None:
        self.prune = prune

    def fit(self, X, y):
        X, self.classes_, codes = _check_fit(X, y)
        self.n_features_in_ = X.shape[1]
        keep = _drop_conflicts(X, codes)
        Xk, ck = X[keep], codes[keep]
        if Xk.shape[0] == 0:
            raise ValidationError("CondensedNearestNeighbor needs at least one training point")
        _, _, _, dmiss = hit_miss(Xk, ck, np.ones(Xk.shape[1]))
        gamma2 = float(dmiss.min()) if dmiss.size else np.inf
        gamma = float(np.sqrt(gamma2))
        net = net_indices(Xk, gamma2) if np.isfinite(gamma) else np.array([0], dtype=np.int64)
        self.n_net_ = int(net.shape[0])
        self.gamma_ = gamma
        self.diameter_ = diameter(Xk)
        alive = np.ones(net.shape[0], dtype=bool)
        if self.prune and net.shape[0] > 1:
            radii = []
            r = self.diameter_
            while r >= gamma and r > 0:
                radii.append(r)
                r /= 2.0
            if radii:
                alive = prune_net(pairwise_dist(Xk[net]), ck[net], np.array(radii), gamma)
        sel = net[alive]
        self.support_ = np.flatnonzero(keep)[sel]
        self.prototypes_ = Xk[sel]
        self.proto_codes_ = ck[sel]
        return self

    def predict(self, X):
        X = _check_predict(self, X)
        idx, _ = nn_index(self.prototypes_, X)
        return self.classes_[self.proto_codes_[idx]]


def _drop_conflicts(X: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """Mask keeping, in every group of identical rows, only the copies of its most frequent label."""
    if X.shape[0] == 0:
        return np.zeros(0, dtype=bool)
    _, group = np.unique(X, axis=0, return_inverse=True)
    group = group.ravel()
    keep = np.ones(X.shape[0], dtype=bool)
    n_classes = int(codes.max()) + 1
    counts = np.zeros((int(group.max()) + 1, n_classes), dtype=np.int64)
    np.add.at(counts, (group, codes), 1)
    mixed = (counts > 0).sum(axis=1) > 1
    if mixed.any():
        best = counts.argmax(axis=1)
        bad = mixed[group] & (codes != best[group])
        keep[bad] = False
    return keep


class PotentialFunctionClassifier(ClassifierMixin, BaseEstimator):
    """Multiclass potential function rule with the Gaussian potential.

    ``f_S(x) = argmax_k phi_k(x)``, ``phi_k(x) = (1/|S|) sum_{i: z_i = k} exp(-||x - x_i||^2 / sigma^2)``
    (Teng, Chen & Dang 2011, eqs. 8-9).  Ties go to the smallest label.

    Parameters
    ----------
    sigma : float or None, default None
        Width; ``None`` sets ``sigma^2`` to the mean squared distance between
        two training points (a metafx default; the paper picks sigma from a
        grid by a model-selection criterion).

    Examples
    --------
    >>> from metafx.neighbors import PotentialFunctionClassifier
    >>> PotentialFunctionClassifier(sigma=1.0).fit([[0], [0.2], [3]], [0, 0, 1]).predict([[0.1], [2.5]])
    array([0, 1])
    """

    def __init__(self, sigma: float | None = None) -> None:
        self.sigma = sigma

    def fit(self, X, y):
        check_number("sigma", self.sigma, low=0.0, strict=True, allow_none=True)
        X, self.classes_, self.codes_ = _check_fit(X, y)
        self.n_features_in_ = X.shape[1]
        self.X_ = X
        self.sigma_ = resolve_sigma(self.sigma, X)
        return self

    def predict_proba(self, X):
        """Normalized class potentials (order-preserving posterior estimate)."""
        X = _check_predict(self, X)
        return potential_scores(self.X_, self.codes_, len(self.classes_), X, self.sigma_)

    def predict(self, X):
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]


def resolve_sigma(sigma: float | None, X: np.ndarray) -> float:
    if sigma is not None:
        return float(sigma)
    s2 = mean_pairwise_sqdist(X)
    return float(np.sqrt(s2)) if s2 > 0 else 1.0


class AdaptiveNearestNeighbor(ClassifierMixin, BaseEstimator):
    """K-NN with feature weights read off an SVM decision boundary at each query.

    For a query ``q`` (Domeniconi & Gunopulos; steps as in the source fragment):

    1. ``d_q``: the point where the segment from ``q`` to its nearest training
       point on the other side of the boundary crosses ``f = 0`` (bisection);
       ``q`` itself if no training point lies on the other side.
    2. ``n = grad f(d_q) / ||grad f(d_q)||`` (unit normal of the boundary).
    3. Relevances ``R_j = |n_j|``.
    4. ``B_q = min_i ||q - s_i||`` over the support vectors.
    5. ``A = D - B_q`` with ``D`` the mean over training points of their
       distance to the nearest support vector; ``A`` is clipped at 0 when
       ``clip=True`` (the fragment is silent on negative ``A``).
    6. ``w_j = exp(A R_j) / sum_i exp(A R_i)``.
    7. Majority vote among the ``k`` nearest training points under
       ``sum_j w_j (x_j - q_j)^2`` (vote ties: the class with the nearest member).

    With more than two classes one SVM per class (one-vs-rest) is trained and
    the query uses the boundary of the class whose decision value is largest.

    Parameters
    ----------
    k : int, default 5
    kernel : {"rbf", "linear"}, default "rbf"
    C : float, default 1.0
    gamma : float or "scale", default "scale"
        RBF width, as in ``sklearn.svm.SVC``.
    clip : bool, default True
    n_bisect : int, default 30

    Examples
    --------
    >>> import numpy as np
    >>> from metafx.neighbors import AdaptiveNearestNeighbor
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 3)); y = (X[:, 0] > 0).astype(int)
    >>> clf = AdaptiveNearestNeighbor(k=3).fit(X, y)
    >>> float(np.mean(clf.predict(X) == y)) > 0.9
    True
    """

    def __init__(self, k: int = 5, kernel: str = "rbf", C: float = 1.0, gamma: Any = "scale",
                 clip: bool = True, n_bisect: int = 30) -> None:
        self.k = k
        self.kernel = kernel
        self.C = C
        self.gamma = gamma
        self.clip = clip
        self.n_bisect = n_bisect

    def _check_params(self) -> None:
        check_int("k", self.k, 1)
        check_choice("kernel", self.kernel, ("rbf", "linear"))
        check_number("C", self.C, low=0.0, strict=True)
        if self.gamma != "scale":
            check_number("gamma", self.gamma, low=0.0, strict=True)
        check_int("n_bisect", self.n_bisect, 1)

    def fit(self, X, y):
        from sklearn.svm import SVC

        self._check_params()
        X, self.classes_, self.codes_ = _check_fit(X, y)
        self.n_features_in_ = X.shape[1]
        self.X_ = X
        K = len(self.classes_)
        self.svms_ = []
        if K >= 2:
            targets = [self.codes_ == 1] if K == 2 else [self.codes_ == c for c in range(K)]
            for t in targets:
                svm = SVC(kernel=self.kernel, C=self.C, gamma=self.gamma).fit(X, t.astype(int))
                sv = svm.support_vectors_
                diff = X[:, None, :] - sv[None, :, :] if X.shape[0] * sv.shape[0] * X.shape[1] < 2e7 else None
                if diff is not None:
                    dsv = np.sqrt((diff ** 2).sum(axis=2)).min(axis=1)
                else:
                    dsv = np.sqrt(nn_index(sv, X)[1])
                self.svms_.append((svm, float(dsv.mean()), svm.decision_function(X)))
        return self

    def _grad(self, svm, P: np.ndarray) -> np.ndarray:
        if self.kernel == "linear":
            return np.broadcast_to(svm.coef_.ravel(), P.shape).copy()
        g = svm._gamma
        sv = svm.support_vectors_
        c = svm.dual_coef_.ravel()
        d2 = (P ** 2).sum(1)[:, None] + (sv ** 2).sum(1)[None, :] - 2 * P @ sv.T
        M = np.exp(-g * np.maximum(d2, 0.0)) * c[None, :]
        return -2.0 * g * (M.sum(axis=1)[:, None] * P - M @ sv)

    def feature_weights(self, X) -> np.ndarray:
        """``(n_queries, n_features)`` weights ``w(q)`` of step 6."""
        X = _check_predict(self, X)
        n = X.shape[1]
        W = np.full(X.shape, 1.0 / max(n, 1))
        if not self.svms_ or n == 0:
            return W
        if len(self.svms_) == 1:
            which = np.zeros(X.shape[0], dtype=int)
        else:
            which = np.argmax(np.stack([s.decision_function(X) for s, _, _ in self.svms_], axis=1), axis=1)
        for s_idx, (svm, D, f_train) in enumerate(self.svms_):
            rows = np.flatnonzero(which == s_idx)
            if rows.size == 0:
                continue
            Q = X[rows]
            fq = svm.decision_function(Q)
            dq = Q.copy()
            for side in (True, False):
                sel = np.flatnonzero((fq > 0) == side)
                other = np.flatnonzero((f_train > 0) != side)
                if sel.size == 0 or other.size == 0:
                    continue
                j, _ = nn_index(self.X_[other], Q[sel])
                lo, hi = Q[sel], self.X_[other][j]
                for _ in range(self.n_bisect):
                    mid = 0.5 * (lo + hi)
                    fm = svm.decision_function(mid)
                    same = (fm > 0) == side
                    lo = np.where(same[:, None], mid, lo)
                    hi = np.where(same[:, None], hi, mid)
                dq[sel] = 0.5 * (lo + hi)
            G = self._grad(svm, dq)
            norm = np.linalg.norm(G, axis=1, keepdims=True)
            R = np.abs(np.divide(G, norm, out=np.zeros_like(G), where=norm > 0))
            B = np.sqrt(nn_index(svm.support_vectors_, Q)[1])
            A = D - B
            if self.clip:
                A = np.maximum(A, 0.0)
            Z = A[:, None] * R
            Z -= Z.max(axis=1, keepdims=True)
            E = np.exp(Z)
            W[rows] = E / E.sum(axis=1, keepdims=True)
        return W

    def predict(self, X):
        W = self.feature_weights(X)
        X = np.asarray(X, dtype=np.float64)
        out = weighted_knn_vote(self.X_, self.codes_, len(self.classes_), X, W, self.k)
        return self.classes_[out]


#: classifier names accepted by the ``cv-*`` set evaluators
CLASSIFIERS: dict[str, type[Any]] = {
    "1nn": NearestNeighbor1,
    "condensed-1nn": CondensedNearestNeighbor,
    "adaptive-nn": AdaptiveNearestNeighbor,
    "potential": PotentialFunctionClassifier,
}


def make_classifier(name: str, params: dict | None = None) -> BaseEstimator:
    """A classifier of :data:`CLASSIFIERS` by name, with its parameters checked."""
    import inspect

    if not isinstance(name, str) or name not in CLASSIFIERS:
        raise ValidationError(f"classifier={name!r} is not known; choose one of {', '.join(map(repr, CLASSIFIERS))}")
    cls = CLASSIFIERS[name]
    params = dict(params or {})
    allowed = [p for p in inspect.signature(cls.__init__).parameters if p != "self"]
    unknown = [p for p in params if p not in allowed]
    if unknown:
        raise ValidationError(f"classifier {name!r} does not take parameter(s) {', '.join(map(repr, unknown))}; "
                              f"allowed: {', '.join(allowed) or '(none)'}")
    est = cls(**params)
    if hasattr(est, "_check_params"):
        est._check_params()
    if "sigma" in params:
        check_number("sigma", params["sigma"], low=0.0, strict=True, allow_none=True)
    return est
