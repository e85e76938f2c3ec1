"""Set evaluators: one quality number for a whole feature set (higher is better).

``cv-1nn``
    Stratified k-fold accuracy of a nearest-neighbour classifier (``classifier=``:
    ``1nn``, ``condensed-1nn``, ``adaptive-nn``, ``potential``); the aliases
    ``cv-condensed-1nn``, ``cv-adaptive-nn`` and ``cv-potential`` fix the classifier.
``loo-1nn``
    Leave-one-out 1-NN accuracy.
``margin``
    The leave-one-out margin evaluation function ``e(F)`` (thesis eq. 3.2).
``potential-margin``
    ``-h`` of the normalized-margin-distribution criterion of the potential
    function rule (Teng, Chen & Dang 2011, eq. 17).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from .._kernels import margin as K
from .._kernels.neighbors import loo_potential_scores
from ..core.base import SetEvaluator
from ..core.exceptions import ValidationError
from ..core.params import Interval, Options
from ..core.validation import check_xy
from ..learn.arrays import UTILITIES, binary_rows, dense_float, encode_labels, utility_code
from ..learn.neighbors import CLASSIFIERS, make_classifier, resolve_sigma
from ..learn.svm import majority_accuracy, stratified_folds

__all__ = [
    "LOO1NN",
    "CVAdaptiveNN",
    "CVCondensed1NN",
    "CVNearestNeighbor",
    "CVPotential",
    "MarginEvaluator",
    "PotentialMargin",
    "loo_nn_correct",
    "normalized_potential_margins",
]


class CVNearestNeighbor(SetEvaluator):
    """Mean accuracy of a nearest-neighbour classifier over stratified k folds.

    Parameters
    ----------
    n_splits : int, default 2
        Folds (2 as in the thesis' section 5.3.2 protocol; every class needs
        at least ``n_splits`` members).
    classifier : {"1nn", "condensed-1nn", "adaptive-nn", "potential"}, default "1nn"
        See :mod:`metafx.neighbors`: plain 1-NN; 1-NN on a consistent
        net-condensed subset; SVM-guided locally weighted K-NN; the Gaussian
        potential function rule.
    classifier_params : dict, optional
        Parameters of the classifier (e.g. ``{"k": 3}`` for ``adaptive-nn``,
        ``{"sigma": 0.5}`` for ``potential``, ``{"prune": False}`` for
        ``condensed-1nn``).

    An empty feature set scores the accuracy of predicting the training
    majority class.  The folds depend on ``random_state``.

    Examples
    --------
    >>> import numpy as np, metafx
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 3)); y = (X[:, 0] > 0).astype(int)
    >>> ev = metafx.plugin.make_component("set-evaluator", "cv-1nn", {"n_splits": 3})
    >>> ev.evaluate(X[:, :1], y, random_state=0) > ev.evaluate(X[:, 1:], y, random_state=0)
    True
    """

    name = "cv-1nn"
    summary = "k-fold (default 2) CV accuracy of 1-NN (classifier= condensed-1nn, adaptive-nn, potential)"

    def __init__(self, n_splits: int = 2, classifier: str = "1nn",
                 classifier_params: Mapping[str, Any] | None = None) -> None:
        self.n_splits = n_splits
        self.classifier = classifier
        self.classifier_params = classifier_params

    @property
    def quality_label(self) -> str:
        rule = {"1nn": "1-NN"}.get(self.classifier, self.classifier)
        return f"CV accuracy, {self.n_splits}-fold {rule}"

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "n_splits": [Interval("int", 2, None)],
        "classifier": [Options(tuple(CLASSIFIERS))],
        "classifier_params": ["dict", None],
    }

    def check_params(self) -> None:
        super().check_params()
        make_classifier(self.classifier, dict(self.classifier_params or {}))  # the classifier's own parameters

    def evaluate(self, X, y, *, random_state=None) -> float:
        self.check_params()
        values, y = check_xy(X, y, min_classes=2, continuous_ok=False)
        folds = stratified_folds(y, self.n_splits, random_state)
        if values.n_features == 0:
            return float(np.mean([majority_accuracy(y[tr], y[te]) for tr, te in folds]))
        Xd = values.dense(np.uint8) if values.binary else dense_float(values)
        accs = []
        for tr, te in folds:
            clf = make_classifier(self.classifier, dict(self.classifier_params or {}))
            clf.fit(Xd[tr], y[tr])
            accs.append(float(np.mean(clf.predict(Xd[te]) == y[te])))
        return float(np.mean(accs))


class CVCondensed1NN(CVNearestNeighbor):
    """``cv-1nn`` with ``classifier="condensed-1nn"`` (net-based condensing + pruning)."""

    name = "cv-condensed-1nn"
    summary = "k-fold CV accuracy of 1-NN on a consistent net-condensed training subset"

    #: fixed for this evaluator (a class attribute, not a parameter)
    classifier = "condensed-1nn"

    def __init__(self, n_splits: int = 2, classifier_params: Mapping[str, Any] | None = None) -> None:
        self.n_splits = n_splits
        self.classifier_params = classifier_params


class CVAdaptiveNN(CVCondensed1NN):
    """``cv-1nn`` with ``classifier="adaptive-nn"`` (SVM-guided locally weighted K-NN)."""

    name = "cv-adaptive-nn"
    summary = "k-fold CV accuracy of SVM-guided adaptive K-NN"

    #: fixed for this evaluator (a class attribute, not a parameter)
    classifier = "adaptive-nn"

    def __init__(self, n_splits: int = 2, classifier_params: Mapping[str, Any] | None = None) -> None:
        self.n_splits = n_splits
        self.classifier_params = classifier_params


class CVPotential(CVCondensed1NN):
    """``cv-1nn`` with ``classifier="potential"`` (Gaussian potential function rule)."""

    name = "cv-potential"
    summary = "k-fold CV accuracy of the Gaussian potential function rule"

    #: fixed for this evaluator (a class attribute, not a parameter)
    classifier = "potential"

    def __init__(self, n_splits: int = 2, classifier_params: Mapping[str, Any] | None = None) -> None:
        self.n_splits = n_splits
        self.classifier_params = classifier_params


def loo_nn_correct(values, codes) -> np.ndarray:
    """Whether each instance's nearest other instance (lowest index on ties) has its label."""
    R = binary_rows(values)
    if R is not None:
        hit, miss, dh, dm = K.hit_miss_packed(R, codes)
    else:
        X = dense_float(values)
        hit, miss, dh, dm = K.hit_miss(X, codes, np.ones(X.shape[1]))
    has_hit = hit >= 0
    has_miss = miss >= 0
    return has_hit & (~has_miss | (dh < dm) | ((dh == dm) & (hit < miss)))


class LOO1NN(SetEvaluator):
    """Leave-one-out 1-NN accuracy (Euclidean; Hamming on binary data).

    An instance is correct when its nearest other instance (lowest index on
    ties) has its label; an instance alone in its class is wrong.
    Deterministic (``random_state`` is ignored).

    Examples
    --------
    >>> import numpy as np, metafx
    >>> ev = metafx.plugin.make_component("set-evaluator", "loo-1nn")
    >>> ev.evaluate(np.array([[0.], [0.1], [1.], [1.2]]), [0, 0, 1, 1])
    1.0
    """

    name = "loo-1nn"
    summary = "leave-one-out 1-NN accuracy"
    quality_label = "leave-one-out 1-NN accuracy"

    def __init__(self) -> None:
        pass

    def evaluate(self, X, y, *, random_state=None) -> float:
        values, y = check_xy(X, y, continuous_ok=False)
        codes, _ = encode_labels(y)
        if values.n_samples == 0:
            raise ValidationError("loo-1nn needs at least one sample")
        return float(np.mean(loo_nn_correct(values, codes)))


class MarginEvaluator(SetEvaluator):
    """The margin evaluation function ``e(F) = sum_x u(theta_F(x))`` (thesis eq. 3.2).

    ``theta_F(x) = 1/2 (||x - nearmiss(x)|| - ||x - nearhit(x)||)`` on the
    columns of ``X`` (Euclidean; Hamming on binary data), nearest hit and
    nearest miss among the *other* instances (leave-one-out).  Instances
    without a hit (single-member class) or a miss are left out of the sum.

    Parameters
    ----------
    utility : {"linear", "zero-one", "sigmoid"}, default "linear"
        ``u(t) = t``; ``[t > 0]`` (e counts leave-one-out-correct points with a
        strict margin); ``1 / (1 + exp(-beta t))``.
    beta : float, default 1.0
        Sigmoid slope.
    average : bool, default False
        Divide by the number of instances (a mean instead of the thesis' sum).

    Examples
    --------
    >>> import numpy as np, metafx
    >>> ev = metafx.plugin.make_component("set-evaluator", "margin", {"utility": "zero-one"})
    >>> ev.evaluate(np.array([[0.], [0.1], [1.], [1.2]]), [0, 0, 1, 1])
    4.0
    """

    name = "margin"
    summary = "leave-one-out margin evaluation e(F) (utility linear / zero-one / sigmoid)"

    @property
    def quality_label(self) -> str:
        return f"margin evaluation e(F), {self.utility} utility"

    def __init__(self, utility: str = "linear", beta: float = 1.0, average: bool = False) -> None:
        self.utility = utility
        self.beta = beta
        self.average = average

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "utility": [Options(UTILITIES)],
        "beta": [Interval("real", 0, None, closed="neither")],
        "average": ["boolean"],
    }

    def margins(self, X, y) -> tuple[np.ndarray, np.ndarray]:
        """Leave-one-out margins and the mask of instances that have both a hit and a miss."""
        values, y = check_xy(X, y, continuous_ok=False)
        codes, _ = encode_labels(y)
        R = binary_rows(values)
        if R is not None:
            return K.loo_margins_packed(R, codes)
        Xd = dense_float(values)
        return K.loo_margins(Xd, codes, np.ones(Xd.shape[1]))

    def evaluate(self, X, y, *, random_state=None) -> float:
        self.check_params()
        theta, valid = self.margins(X, y)
        e = float(K.utility(theta[valid], utility_code(self.utility), self.beta).sum())
        return e / max(theta.shape[0], 1) if self.average else e


def normalized_potential_margins(X: np.ndarray, codes: np.ndarray, n_classes: int, sigma: float) -> np.ndarray:
    """Leave-one-out normalized margins ``phi^_z(x_i) - phi^_(K-1)(x_i)`` (Teng et al. section 5).

    ``phi^_k = phi_k / sum_i |phi_i|``; ``phi^_(K-1)`` is the second largest
    normalized potential (0 with one class); an instance without potential
    mass (no other instance) has margin 0.
    """
    P = loo_potential_scores(X, codes, n_classes, sigma)
    m = P.shape[0]
    if m == 0:
        return np.zeros(0)
    own = P[np.arange(m), codes]
    if n_classes >= 2:
        second = np.sort(P, axis=1)[:, -2]
    else:
        second = np.zeros(m)
    gam = own - second
    gam[P.sum(axis=1) == 0] = 0.0
    return gam


class PotentialMargin(SetEvaluator):
    """Normalized-margin-distribution criterion of the potential function rule, negated.

    Returns ``-h = mean - var`` of the leave-one-out normalized margins
    ``gamma^(x_i) = phi^_{z_i}(x_i) - phi^_(K-1)(x_i)`` of the Gaussian
    potential function rule (Teng, Chen & Dang 2011, eq. 17; ``h`` is to be
    minimized, so ``-h`` is higher-is-better like every set evaluator).
    ``var`` uses ``1/(l-1)``.

    Parameters
    ----------
    sigma : float or None, default None
        Gaussian width ``psi(x, y) = exp(-||x - y||^2 / sigma^2)``; ``None``
        sets ``sigma^2`` to the mean squared distance between two instances
        of the evaluated feature set.

    Examples
    --------
    >>> import numpy as np, metafx
    >>> ev = metafx.plugin.make_component("set-evaluator", "potential-margin", {"sigma": 0.5})
    >>> X = np.array([[0.], [0.1], [1.], [1.2]])
    >>> ev.evaluate(X, [0, 0, 1, 1]) > ev.evaluate(X, [0, 1, 0, 1])
    True
    """

    name = "potential-margin"
    summary = "-(var - mean) of the LOO normalized margins of the Gaussian potential function rule"

    def __init__(self, sigma: float | None = None) -> None:
        self.sigma = sigma

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {"sigma": [Interval("real", 0, None, closed="neither"), None]}

    def evaluate(self, X, y, *, random_state=None) -> float:
        self.check_params()
        values, y = check_xy(X, y, continuous_ok=False)
        codes, k = encode_labels(y)
        Xd = dense_float(values)
        if Xd.shape[0] < 2:
            raise ValidationError(f"potential-margin needs at least 2 samples, got {Xd.shape[0]}")
        gam = normalized_potential_margins(Xd, codes, k, resolve_sigma(self.sigma, Xd))
        return float(gam.mean() - gam.var(ddof=1))
