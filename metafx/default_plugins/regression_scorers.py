"""Per-feature scorers of a real-valued target: one quality number per column (higher is better).

``corrcoef``
    Absolute Pearson correlation of each column with a real target.
``rgs``
    RGS (thesis Alg 4): gradient ascent on the leave-one-out soft k-NN
    regression fit, with the corrected gradient of ALGORITHMS.md section 5.2.
``sks``
    SKS (thesis section 4.3): each feature scored alone by the soft k-NN fit of eq. 4.2.

The scorers of class labels are in :mod:`metafx.default_plugins.scorers`.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from .._kernels import margin as K
from ..core.base import FeatureScorer
from ..core.exceptions import ValidationError
from ..core.params import Interval
from ..core.validation import check_xy
from ..learn.arrays import dense_float
from ..learn.soft_knn import column_sqdiff, soft_knn_criterion
from .scorers import _zero_constant, instance_order

__all__ = ["RGS", "SKS", "Corrcoef"]


# ------------------------------------------------------------------ corrcoef
class Corrcoef(FeatureScorer):
    """Absolute Pearson correlation of each column with a real target (thesis section 1.2.1).

    A constant column (or target) scores 0.

    Examples
    --------
    >>> import numpy as np, metafx
    >>> X = np.array([[1., 0.], [2., 1.], [3., 0.], [4., 1.]])
    >>> metafx.score_features(X, [2., 4., 6., 8.], "corrcoef").round(3)
    array([1.   , 0.447])
    """

    name = "corrcoef"
    task = "regression"
    summary = "absolute Pearson correlation of each feature with the target"

    def __init__(self) -> None:
        pass

    def score(self, X, y) -> np.ndarray:
        values, g = check_xy(X, y, task="regression")
        Xd = dense_float(values)
        Xc = Xd - Xd.mean(axis=0) if Xd.shape[0] else Xd
        gc = g - g.mean() if g.size else g
        num = gc @ Xc
        den = np.sqrt((Xc * Xc).sum(axis=0) * float(gc @ gc))
        out = np.zeros(Xd.shape[1])
        ok = den > 0
        out[ok] = np.abs(num[ok]) / den[ok]
        return np.minimum(out, 1.0)


def _knn_input(scorer: FeatureScorer, X: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
    """A soft k-NN scorer's checked input: its parameters, ``X`` as dense floats and the real-valued target
    ``g``; at least 2 samples (a leave-one-out estimate needs a neighbour), else an error naming the scorer."""
    scorer.check_params()
    values, g = check_xy(X, y, task="regression")
    Xd = dense_float(values)
    if Xd.shape[0] < 2:
        raise ValidationError(f"{scorer.name} needs at least 2 samples, got {Xd.shape[0]}")
    return Xd, g


# ------------------------------------------------------------------ RGS
class RGS(FeatureScorer):
    """RGS (thesis Algorithm 4): Regression, Gradient-guided feature Selection.

    Stochastic gradient ascent on ``e(w) = -1/2 sum_x (g(x) - ĝ_w(x))^2``,
    where ``ĝ_w(x)`` is the soft k-NN estimate from the ``k`` nearest other
    instances under ``d_w(x, x') = sum_i w_i^2 (x_i - x'_i)^2`` with weights
    ``exp(-d_w / beta)`` (thesis eq. 4.1, leave-one-out).  The per-instance
    gradient is the corrected form of ALGORITHMS.md section 5.2; the update is
    ``w <- w + eta_t grad`` from ``w = 1``.  Returns ``w^2 / max(w^2)``; a
    constant column scores 0 (its weight never moves from 1, yet it predicts
    nothing).

    Parameters
    ----------
    k : int, default 50
        Neighbours (capped at ``m - 1``); 50 in thesis section 4.4.
    beta : float or None, default None
        ``None``: half the mean squared distance between the instances and
        their ``k`` nearest neighbours under ``w = 1`` (thesis section 4.4).
    n_iter : int or None, default None
        Steps T; ``None``: one epoch (T = m), instances in a random permutation.
    eta : float, default 1.0
        Step size (constant, "convergence was also achieved with eta_t = 1").
    decay : float, default 0.0
        ``eta_t = eta / (1 + decay * t)``.
    random_state : int, default 0

    Examples
    --------
    >>> import numpy as np, metafx
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, (150, 3))
    >>> w = metafx.score_features(X, np.sin(3 * X[:, 1]), "rgs", k=10)
    >>> int(np.argmax(w))
    1
    """

    name = "rgs"
    task = "regression"
    summary = "RGS feature weights for a real target (thesis Alg 4, soft k-NN regression)"

    def __init__(self, k: int = 50, beta: float | None = None, n_iter: int | None = None, eta: float = 1.0,
                 decay: float = 0.0, random_state: int = 0) -> None:
        self.k = k
        self.beta = beta
        self.n_iter = n_iter
        self.eta = eta
        self.decay = decay
        self.random_state = random_state

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "k": [Interval("int", 1, None)],
        "beta": [Interval("real", 0, None, closed="neither"), None],
        "n_iter": [Interval("int", 1, None), None],
        "eta": [Interval("real", 0, None, closed="neither")],
        "decay": [Interval("real", 0, None)],
        "random_state": [Interval("int", 0, None)],
    }

    def resolved_beta(self, X: np.ndarray, k: int) -> float:
        if self.beta is not None:
            return float(self.beta)
        b = 0.5 * K.knn_mean_sqdist(X, k)
        return b if b > 0 else 1.0

    def score(self, X, y) -> np.ndarray:
        Xd, g = _knn_input(self, X, y)
        m, n = Xd.shape
        if n == 0:
            return np.zeros(0)
        k = min(int(self.k), m - 1)
        beta = self.resolved_beta(Xd, k)
        self.beta_ = beta
        rng = np.random.default_rng(self.random_state)
        order = instance_order(m, self.n_iter, rng, permutations=True)
        eta = self.eta / (1.0 + self.decay * np.arange(order.shape[0]))
        w = np.ones(n)
        K.rgs_pass(Xd, g, order, w, k, beta, eta)
        return _zero_constant(w * w, Xd)


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

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "k": [Interval("int", 1, None)],
        "beta": [Interval("real", 0, None, closed="neither")],
    }

    def score(self, X, y) -> np.ndarray:
        Xd, g = _knn_input(self, X, y)
        n = Xd.shape[1]
        return np.array([soft_knn_criterion(column_sqdiff(Xd[:, f]), g, self.k, float(self.beta))
                         for f in range(n)])
