"""Learning the quality of features from their meta-features (thesis Algorithm 5).

::

    Q = quality_map(S, featquality, regalg):
        1. Y_MF = featquality(S)        measured quality of each observed feature
        2. X_MF = meta-feature matrix    one row per feature, one column per meta-feature
        3. Q = regalg(X_MF, Y_MF)        regression: features are the instances,
                                         meta-features the inputs, quality the target

:class:`QualityMap` does the three steps for a feature family and predicts the
quality of features that were never measured (thesis section 5.2); fitted on
the same features it predicts, it *smooths* noisy qualities measured on few
instances (section 5.7, :func:`smooth_qualities`).

The default regression is ``RBFGridRegressor`` (``metafx.rbf``): a ridge
regression over a 7 x 7 grid of Gaussian bumps (std 3 pixels on a 28 x 28
image) on the meta-features, with the grid spread over the image for the
location meta-features ``x``, ``y`` and over ``[0, max r]`` for ``r``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..core.base import FeatureFamily, FeatureScorer, MetaFeatureDescriber, Params
from ..core.exceptions import ValidationError
from ..core.validation import check_labels
from ..core.values import FeatureValues
from ..hooks.manager import get_registry
from ..learn.rbf import RBFGridRegressor
from ..loop.components import make_component
from .scoring import score_features

__all__ = [
    "QualityMap",
    "default_domain",
    "measure_qualities",
    "meta_feature_matrix",
    "smooth_qualities",
]

#: a meta-feature selection: ``None``, a name, a describer, or a sequence of them
MetaSpec = Any


# --------------------------------------------------------------------------- helpers
def _family(family: Any) -> FeatureFamily:
    if isinstance(family, FeatureFamily):
        return family

    return make_component("family", family, None, base=FeatureFamily)


def _features(family: FeatureFamily, features: Any) -> Any:
    if features is not None:
        if isinstance(features, (list, tuple)) and (not features or isinstance(features[0], Mapping)):
            return family.from_json(list(features))
        return features
    if hasattr(family, "all_features"):
        return family.all_features()
    raise ValidationError(
        f"family {family.name!r} cannot list all its features: pass features= (a batch drawn from it, "
        "or a list of feature specifications)"
    )


def meta_feature_matrix(family: Any, features: Any = None, meta_features: MetaSpec = None
                        ) -> tuple[np.ndarray, list[str]]:
    """The ``N x k`` meta-feature matrix ``X_MF`` of ``features`` and its column names.

    Parameters
    ----------
    family : ~metafx.plugin.FeatureFamily or str
        A fitted family (it knows the image shape).
    features : batch, list of specifications, or None
        The features; ``None`` lists all of them (families with ``all_features()``,
        such as ``pixels``).
    meta_features : sequence, optional
        Which meta-features, in order.  Each item is a column of
        ``family.describe(batch)`` (e.g. ``"x"``, ``"numInputs"``), the name of a
        registered describer (``"location"`` gives ``x, y``; ``"r"``), or a
        :class:`metafx.plugin.MetaFeatureDescriber` instance.  ``None``: every column
        of ``family.describe``.

    Examples
    --------
    >>> import metafx
    >>> fam = metafx.plugin.get_registry().get("family", "pixels")(image_shape=(8, 8))
    >>> M, cols = meta_feature_matrix(fam, meta_features=["r"])
    >>> M.shape, cols
    ((64, 1), ['r'])
    """
    fam = _family(family)
    batch = _features(fam, features)
    if isinstance(meta_features, (str, MetaFeatureDescriber)):
        meta_features = [meta_features]
    own: dict[str, np.ndarray] | None = None
    blocks: list[np.ndarray] = []
    names: list[str] = []
    items = list(meta_features) if meta_features is not None else [None]
    if not items:
        raise ValidationError("meta_features=[] selects no meta-feature; pass None for the family's own")
    for item in items:
        if item is None or (isinstance(item, str) and item not in _describer_names()):
            if own is None:
                own = {k: np.asarray(v, dtype=np.float64) for k, v in fam.describe(batch).items()}
            cols = list(own) if item is None else [item]
            for c in cols:
                if c not in own:
                    raise ValidationError(
                        f"meta-feature {c!r} is neither a column of family {fam.name!r} "
                        f"({', '.join(own)}) nor a registered describer ({', '.join(_describer_names())})"
                    )
                blocks.append(own[c][:, None])
                names.append(c)
            continue
        desc = item
        if isinstance(item, str):
            desc = get_registry().get("describer", item)()
        if not isinstance(desc, MetaFeatureDescriber):
            raise ValidationError(f"meta-feature {item!r} must be a column name, a describer name or a describer")
        if not desc.applies_to(fam) and not _inherits_family(fam, desc):
            raise ValidationError(
                f"describer {desc.name!r} applies to families {', '.join(desc.families)}, not {fam.name!r}"
            )
        block = np.asarray(desc.describe(fam, batch), dtype=np.float64)
        if block.ndim == 1:
            block = block[:, None]
        blocks.append(block)
        names.extend(desc.columns or [f"{desc.name}{i}" for i in range(block.shape[1])])
    M = np.concatenate(blocks, axis=1) if blocks else np.zeros((len(batch), 0))
    return M, names


def _describer_names() -> list[str]:
    return get_registry().names("describer")


def _inherits_family(fam: FeatureFamily, desc: MetaFeatureDescriber) -> bool:
    """A family subclassing a supported one (e.g. ``pixel-and-local`` of ``pixel-and``) is supported too."""
    return any(getattr(c, "name", None) in desc.families for c in type(fam).__mro__[1:])


def _score(values: FeatureValues, y: np.ndarray, scorer: Any, scorer_params: Mapping[str, Any] | None) -> np.ndarray:
    params = dict(scorer_params or {})
    if isinstance(scorer, str) or isinstance(scorer, type):
        q = score_features(values, y, method=scorer, **params)
    elif isinstance(scorer, FeatureScorer):
        if params:
            raise ValidationError("scorer_params were given with an already constructed scorer")
        q = scorer.score(values, y)
    elif callable(scorer):
        q = scorer(values.dense(np.float64), y, **params)
    else:
        raise ValidationError(f"scorer={scorer!r} must be a registered scorer name, a FeatureScorer or a callable")
    q = np.asarray(q, dtype=np.float64).ravel()
    if q.shape[0] != values.n_features:
        raise ValidationError(f"scorer returned {q.shape[0]} scores for {values.n_features} features")
    if not np.isfinite(q).all():
        raise ValidationError("scorer returned NaN or infinite qualities")
    return q


def measure_qualities(family: Any, X: Any, y: Any, features: Any = None, scorer: Any = "infogain",
                      scorer_params: Mapping[str, Any] | None = None) -> np.ndarray:
    """``Y_MF``: the quality of each feature measured on labelled data (step 1 of Algorithm 5).

    ``scorer`` is a registered per-feature scorer (``"infogain"``, ``"corrcoef"``,
    ...), a :class:`metafx.plugin.FeatureScorer`, or a callable ``(X_dense, y) -> scores``.
    The family is fitted on ``X`` when it has not been yet.

    Examples
    --------
    >>> import metafx
    >>> X, y = metafx.load_dataset("digits")
    >>> q = measure_qualities("pixels", X[:500], y[:500])
    >>> q.shape
    (64,)
    """
    fam = _family(family)
    if getattr(fam, "image_shape", "n/a") is None:
        fam.fit(X)
    batch = _features(fam, features)
    prepared = fam.prepare(X)
    values = fam.compute(prepared, batch)
    y = check_labels(y, values.n_samples, min_classes=1)
    return _score(values, y, scorer, scorer_params)


def default_domain(family: FeatureFamily | None, columns: Sequence[str], M: np.ndarray
                   ) -> list[tuple[float, float]]:
    """Extent of each meta-feature over which the default regressor spreads its grid.

    ``x``/``y`` of an image family: the image's pixel extent ``[-0.5, W - 0.5]``;
    ``r``: ``[0, distance from the image centre to a corner]``; a dimension of
    the family's meta-feature space: its range (integers widened by 0.5);
    anything else: the range of the given values.
    """
    shape = getattr(family, "image_shape", None) if family is not None else None
    space = None
    if family is not None:
        try:
            space = family.space()
        except Exception:  # a family may need fit() before space(); fall back to the data
            space = None
    out = []
    for j, c in enumerate(columns):
        dom = None
        if shape is not None:
            h, w = (int(v) for v in shape)
            if c == "x":
                dom = (-0.5, w - 0.5)
            elif c == "y":
                dom = (-0.5, h - 0.5)
            elif c == "r":
                dom = (0.0, math.hypot((h - 1) / 2, (w - 1) / 2))
        if dom is None and space is not None and c in space.names:
            d = space[c]
            pad = 0.5 if d.kind == "int" else 0.0
            assert d.low is not None and d.high is not None  # set for every kind once the dimension is built
            dom = (float(d.low) - pad, float(d.high) + pad)
        if dom is None:
            col = M[:, j] if M.size else np.zeros(1)
            dom = (float(col.min()), float(col.max()))
        out.append(dom)
    return out


# --------------------------------------------------------------------------- QualityMap
class QualityMap(Params):
    """Thesis Algorithm 5: a regression from meta-features to feature quality.

    Parameters
    ----------
    regressor : scikit-learn regressor, optional
        Any estimator with ``fit(X, y)`` / ``predict(X)`` (it is cloned).
        Default: ``RBFGridRegressor`` (``metafx.rbf``) (ridge regression over a
        7 x 7 grid of Gaussian bumps of std 3 pixels on (x, y); a 1-D grid of
        7 bumps on ``r``), its grid spread over :func:`~metafx.analysis.quality_map.default_domain`.
    meta_features : sequence, optional
        Which meta-features describe a feature (see :func:`~metafx.analysis.quality_map.meta_feature_matrix`):
        ``None`` for the family's own (``x, y`` for ``pixels``), ``["r"]``,
        ``["location"]``, ``["numInputs", "shiftInvLen"]``, ...
    scorer : str, ~metafx.plugin.FeatureScorer or callable, default "infogain"
        ``featquality``: the per-feature quality measured on labelled data.
    scorer_params : dict, optional
        Constructor parameters of a named scorer.
    domain : sequence of (low, high), optional
        Overrides the default regressor's grid extent.

    Attributes
    ----------
    regressor_ : fitted regressor
    columns_ : list of str
        Names of the meta-features.
    family_ : ~metafx.plugin.FeatureFamily or None
        The family of the training features (``None`` after :meth:`fit_meta`).
    meta_ : ndarray (n_train, k)
        ``X_MF`` of the training features.
    qualities_ : ndarray (n_train,)
        ``Y_MF``, the measured qualities.

    Examples
    --------
    Learn where the good pixels of 8x8 digits are from a quarter of them:

    >>> import numpy as np, metafx
    >>> X, y = metafx.load_dataset("digits")
    >>> fam = metafx.plugin.get_registry().get("family", "pixels")().fit(X)
    >>> pixels = fam.all_features()
    >>> train = pixels.take(np.arange(0, 64, 4))
    >>> qm = metafx.QualityMap().fit(fam, X[:1000], y[:1000], features=train)
    >>> qm.predict(pixels).shape, qm.rank(pixels)[:3].shape
    ((64,), (3,))
    """

    def __init__(self, regressor: Any = None, meta_features: MetaSpec = None, scorer: Any = "infogain",
                 scorer_params: Mapping[str, Any] | None = None,
                 domain: Sequence[Sequence[float]] | None = None) -> None:
        self.regressor = regressor
        self.meta_features = meta_features
        self.scorer = scorer
        self.scorer_params = scorer_params
        self.domain = domain

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items() if v is not None)
        return f"QualityMap({args})"

    # ------------------------------------------------------------------ fit
    def fit(self, family: Any, X: Any, y: Any, features: Any = None) -> QualityMap:
        """Measure the quality of ``features`` on ``(X, y)`` and regress it on their meta-features.

        Parameters
        ----------
        family : ~metafx.plugin.FeatureFamily or str
            The family the features belong to (fitted on ``X`` if needed).
        X, y : arrays
            Labelled instances in the family's layout.
        features : batch or list of specifications, optional
            The *training features*; all of the family's features when omitted.
        """
        fam = _family(family)
        if getattr(fam, "image_shape", "n/a") is None:
            fam.fit(X)
        batch = _features(fam, features)
        q = measure_qualities(fam, X, y, batch, self.scorer, self.scorer_params)
        M, cols = meta_feature_matrix(fam, batch, self.meta_features)
        self._fit(M, q, cols, fam)
        self._described = True
        return self

    def fit_meta(self, meta: Any, qualities: Any, columns: Sequence[str] | None = None,
                 family: Any = None) -> QualityMap:
        """Fit directly on a meta-feature matrix ``X_MF`` and measured qualities ``Y_MF``.

        ``family`` (optional) lets :meth:`predict` describe new features and
        gives the default grid's extent.

        >>> import numpy as np
        >>> u = np.linspace(0, 10, 30)[:, None]
        >>> qm = QualityMap(domain=[(0, 10)]).fit_meta(u, np.sin(u[:, 0] / 3))
        >>> bool(abs(qm.predict_meta([[4.5]])[0] - np.sin(1.5)) < 0.02)
        True
        """
        M = np.asarray(meta, dtype=np.float64)
        if M.ndim == 1:
            M = M[:, None]
        if M.ndim != 2:
            raise ValidationError(f"meta must be (n_features, n_meta_features), got shape {M.shape}")
        q = np.asarray(qualities, dtype=np.float64).ravel()
        if q.shape[0] != M.shape[0]:
            raise ValidationError(f"meta has {M.shape[0]} rows but qualities has {q.shape[0]} values")
        cols = list(columns) if columns is not None else [f"u{j}" for j in range(M.shape[1])]
        if len(cols) != M.shape[1]:
            raise ValidationError(f"columns={columns!r} names {len(cols)} meta-features but meta has {M.shape[1]}")
        fam = None if family is None else _family(family)
        self._fit(M, q, cols, fam)
        self._described = columns is not None
        return self

    def _make_regressor(self, fam: FeatureFamily | None, cols: list[str], M: np.ndarray) -> Any:
        if self.regressor is None:
            dom = self.domain if self.domain is not None else default_domain(fam, cols, M)
            return RBFGridRegressor(domain=dom)
        from sklearn.base import clone

        reg = clone(self.regressor)
        if self.domain is not None and "domain" in reg.get_params():
            reg.set_params(domain=self.domain)
        elif "domain" in reg.get_params() and reg.get_params()["domain"] is None:
            reg.set_params(domain=default_domain(fam, cols, M))
        return reg

    def _fit(self, M: np.ndarray, q: np.ndarray, cols: list[str], fam: FeatureFamily | None) -> QualityMap:
        if M.shape[0] < 1:
            raise ValidationError("no training features: a quality map needs at least one measured feature")
        if not np.isfinite(M).all():
            raise ValidationError("the meta-feature matrix contains NaN or infinite values")
        if not np.isfinite(q).all():
            raise ValidationError("qualities contain NaN or infinite values")
        reg = self._make_regressor(fam, cols, M)
        reg.fit(M, q)
        self.regressor_ = reg
        self.columns_ = cols
        self.family_ = fam
        self.meta_ = M
        self.qualities_ = q
        return self

    # ------------------------------------------------------------------ predict
    def _check_fitted(self) -> None:
        if not hasattr(self, "regressor_"):
            raise ValidationError("this QualityMap is not fitted yet: call fit(...) or fit_meta(...) first")

    def meta_matrix(self, features: Any = None, family: Any = None) -> np.ndarray:
        """Meta-features of ``features`` in the columns the map was fitted on."""
        self._check_fitted()
        fam = self.family_ if family is None else _family(family)
        if fam is None:
            raise ValidationError("this map was fitted with fit_meta() and no family: use predict_meta(meta)")
        M, cols = meta_feature_matrix(fam, features, self.meta_features)
        if M.shape[1] != len(self.columns_) or (self._described and cols != self.columns_):
            raise ValidationError(f"features have meta-features {cols}, the map was fitted on {self.columns_}")
        return M

    def predict_meta(self, meta: Any) -> np.ndarray:
        """Predicted quality ``Q(u)`` of meta-feature rows ``u``."""
        self._check_fitted()
        M = np.asarray(meta, dtype=np.float64)
        if M.ndim == 1:
            M = M[:, None] if len(self.columns_) == 1 else M[None, :]
        if M.shape[1] != len(self.columns_):
            raise ValidationError(f"meta has {M.shape[1]} columns; the map uses {len(self.columns_)}: {self.columns_}")
        return np.asarray(self.regressor_.predict(M), dtype=np.float64)

    def predict(self, features: Any = None, family: Any = None) -> np.ndarray:
        """Predicted quality of ``features`` (default: all of the family's features)."""
        return self.predict_meta(self.meta_matrix(features, family))

    def rank(self, features: Any = None, family: Any = None) -> np.ndarray:
        """Indices of ``features`` from the best predicted quality to the worst (stable for ties)."""
        q = self.predict(features, family)
        return np.argsort(-q, kind="stable")

    def smooth(self) -> np.ndarray:
        """The map's prediction on its own training features (section 5.7): smoothed ``Y_MF``."""
        self._check_fitted()
        return self.predict_meta(self.meta_)


def smooth_qualities(meta: Any, qualities: Any, regressor: Any = None,
                     domain: Sequence[Sequence[float]] | None = None, family: Any = None,
                     columns: Sequence[str] | None = None) -> np.ndarray:
    """Smooth measured qualities over meta-feature space (thesis section 5.7).

    Fits a :class:`QualityMap` on all observed features ``(meta, qualities)``
    and returns its prediction for the same features: with few training
    instances the direct estimates are noisy, and features with similar
    meta-features share the noise-free part of their quality.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> u = np.stack(np.meshgrid(np.arange(28.0), np.arange(28.0)), -1).reshape(-1, 2)
    >>> truth = np.exp(-((u - 13.5) ** 2).sum(1) / 60)
    >>> noisy = truth + rng.normal(0, 0.3, truth.shape)
    >>> sm = smooth_qualities(u, noisy, domain=[(-0.5, 27.5)] * 2)
    >>> bool(np.corrcoef(sm, truth)[0, 1] > np.corrcoef(noisy, truth)[0, 1])
    True
    """
    qm = QualityMap(regressor=regressor, domain=domain)
    qm.fit_meta(meta, qualities, columns=columns, family=family)
    return qm.smooth()
