"""``RBFGridRegressor``: linear regression over a grid of Gaussian bumps.

The regression the thesis uses to map a pixel's location to its quality
(section 5.2, footnote 3): "49 Gaussians (with std = 3 pixels) located on a grid
over the image"; the location is represented by the 49 responses and a linear
model is fitted on them.  Here the grid has ``n_centres`` centres per
meta-feature (so ``n_centres ** k`` bumps for ``k`` meta-features), spread
evenly over ``domain``, and the linear model has an intercept and a ridge
penalty (so that a handful of training features still gives an answer).

This module imports scikit-learn; ``import metafx`` does not load it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils.validation import check_is_fitted

from ..core.exceptions import ValidationError

__all__ = ["RBFGridRegressor", "grid_centres"]


def grid_centres(low: float, high: float, n: int) -> np.ndarray:
    """``n`` centres at the middles of ``n`` equal cells of ``[low, high]``.

    For pixel columns of a 28-pixel-wide image the domain is the pixels' extent
    ``[-0.5, 27.5]`` and 7 centres fall at ``1.5, 5.5, ..., 25.5`` (spacing 4).

    >>> grid_centres(-0.5, 27.5, 7).tolist()
    [1.5, 5.5, 9.5, 13.5, 17.5, 21.5, 25.5]
    """
    return low + (np.arange(n) + 0.5) * (high - low) / n


class RBFGridRegressor(RegressorMixin, BaseEstimator):
    """Ridge regression on Gaussian-bump features over a regular grid.

    ``predict(u) = b + sum_c a_c exp(-sum_d (u_d - c_d)^2 / (2 std_d^2))``.

    Parameters
    ----------
    n_centres : int or sequence of int, default 7
        Centres per input dimension (7 x 7 = 49 bumps on (x, y), as in the thesis).
    std : float, sequence of float or None
        Width of the bumps per dimension, in input units.  ``None``: 3/4 of
        the centre spacing, which is 3 pixels for 7 centres over a 28-pixel
        image (the thesis's value) and scales with the image otherwise.
    domain : sequence of (low, high), optional
        Extent of each input dimension over which the centres are spread
        (e.g. ``[(-0.5, W - 0.5), (-0.5, H - 0.5)]`` for pixel locations).
        ``None``: the range of the training inputs.
    alpha : float, default 0.1
        Ridge penalty on the bump weights (the intercept is not penalized).
        The bump responses lie in [0, 1], so the penalty does not depend on
        the scale of the qualities.  Without it the least-squares fit is
        under-determined below 49 training features and unstable near 49
        (see docs/quality_map.md).
    fit_intercept : bool, default True

    Attributes
    ----------
    centres_ : list of ndarray
        Grid centres per dimension.
    std_ : ndarray
        Bump width per dimension.
    model_ : sklearn.linear_model.Ridge

    Examples
    --------
    >>> import numpy as np
    >>> u = np.stack(np.meshgrid(np.arange(28.0), np.arange(28.0)), -1).reshape(-1, 2)
    >>> q = np.exp(-((u - 14) ** 2).sum(1) / 50)
    >>> reg = RBFGridRegressor(domain=[(-0.5, 27.5)] * 2).fit(u[::7], q[::7])
    >>> bool(np.corrcoef(reg.predict(u), q)[0, 1] > 0.95)
    True
    """

    def __init__(self, n_centres: int | Sequence[int] = 7, std: float | Sequence[float] | None = None,
                 domain: Sequence[Sequence[float]] | None = None, alpha: float = 0.1,
                 fit_intercept: bool = True) -> None:
        self.n_centres = n_centres
        self.std = std
        self.domain = domain
        self.alpha = alpha
        self.fit_intercept = fit_intercept

    # ------------------------------------------------------------------ helpers
    @staticmethod
    def _as_2d(X: Any) -> np.ndarray:
        X = np.asarray(X, dtype=np.float64)
        if X.ndim == 1:
            X = X[:, None]
        if X.ndim != 2:
            raise ValidationError(f"X must be (n_samples, n_meta_features), got shape {X.shape}")
        if not np.isfinite(X).all():
            raise ValidationError("X (meta-features) contains NaN or infinite values")
        return X

    def _per_dim(self, name: str, value: Any, k: int) -> list:
        if value is None or np.ndim(value) == 0:
            return [value] * k
        vals = list(value)
        if len(vals) != k:
            raise ValidationError(f"{name}={value!r} has {len(vals)} entries but the inputs have {k} dimensions")
        return vals

    def transform(self, X: Any) -> np.ndarray:
        """The ``(n_samples, prod(n_centres))`` matrix of bump responses."""
        check_is_fitted(self, "centres_")
        X = self._as_2d(X)
        if X.shape[1] != len(self.centres_):
            raise ValidationError(f"X has {X.shape[1]} meta-features; the regressor was fitted on {len(self.centres_)}")
        out = np.ones((X.shape[0], 1))
        for d, (c, s) in enumerate(zip(self.centres_, self.std_, strict=True)):
            resp = np.exp(-((X[:, d : d + 1] - c[None, :]) ** 2) / (2.0 * s * s))
            out = (out[:, :, None] * resp[:, None, :]).reshape(X.shape[0], -1)
        return out

    # ------------------------------------------------------------------ fit / predict
    def fit(self, X: Any, y: Any) -> RBFGridRegressor:
        from sklearn.linear_model import Ridge

        X = self._as_2d(X)
        y = np.asarray(y, dtype=np.float64).ravel()
        if y.shape[0] != X.shape[0]:
            raise ValidationError(f"X has {X.shape[0]} rows but y has {y.shape[0]} values")
        if X.shape[0] < 1:
            raise ValidationError("need at least one training feature")
        if not np.isfinite(y).all():
            raise ValidationError("y (qualities) contains NaN or infinite values")
        if not self.alpha >= 0:
            raise ValidationError(f"alpha={self.alpha!r} must be >= 0")
        k = X.shape[1]
        ns = self._per_dim("n_centres", self.n_centres, k)
        stds = self._per_dim("std", self.std, k)
        doms = [None] * k if self.domain is None else self._per_dim("domain", [tuple(d) for d in self.domain], k)
        if np.prod([int(n) for n in ns]) > 20000:
            raise ValidationError(f"n_centres={self.n_centres!r} gives more than 20000 bumps for {k} dimensions")
        self.centres_, std_ = [], []
        for d in range(k):
            n = int(ns[d])
            if n < 1:
                raise ValidationError(f"n_centres={self.n_centres!r} must be >= 1")
            dom = doms[d]
            if dom is None:
                lo, hi = float(X[:, d].min()), float(X[:, d].max())
            else:
                lo, hi = (float(v) for v in dom)
            if hi <= lo:
                hi = lo + 1.0
            spacing = (hi - lo) / n
            self.centres_.append(grid_centres(lo, hi, n))
            s = 0.75 * spacing if stds[d] is None else float(stds[d])
            if not s > 0:
                raise ValidationError(f"std={self.std!r} must be positive")
            std_.append(s)
        self.std_ = np.asarray(std_)
        self.n_features_in_ = k
        self.model_ = Ridge(alpha=float(self.alpha), fit_intercept=self.fit_intercept)
        self.model_.fit(self.transform(X), y)
        return self

    def predict(self, X: Any) -> np.ndarray:
        check_is_fitted(self, "model_")
        return self.model_.predict(self.transform(X))
