"""A scikit-learn transformer around :func:`metafx.search`.

:class:`MetaFeatureExtractor` runs a budgeted meta-feature search in ``fit``
and computes the chosen features in ``transform``, so metafx can be one step
of a :class:`sklearn.pipeline.Pipeline` and its ``budget`` (or any other
parameter) can be tuned with :class:`sklearn.model_selection.GridSearchCV`.

>>> import metafx
>>> from sklearn.datasets import load_digits
>>> X, y = load_digits(return_X_y=True)
>>> fx = metafx.MetaFeatureExtractor(budget=40, steps=3, threshold=8).fit(X[:300], y[:300])
>>> fx.transform(X[:5]).shape[0], fx.result_.total_cost <= 40
(5, True)
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import check_is_fitted, validate_data

from .core.base import Component, FeatureFamily
from .core.binarization import InputRule
from .core.exceptions import ValidationError
from .core.validation import check_label_types, not_binary_message
from .hooks.manager import get_registry
from .loop.api import DEFAULT_ENGINE, resolve_seed, search

__all__ = ["MetaFeatureExtractor"]


def _check_input_features(est: Any, input_features: Any) -> None:
    """scikit-learn's rule for ``get_feature_names_out(input_features)``: as many names as features
    seen in ``fit``, and the same names when ``fit`` saw a DataFrame."""
    if input_features is None:
        return
    names = np.asarray(input_features, dtype=object)
    if names.ndim != 1 or len(names) != est.n_features_in_:
        raise ValueError(f"input_features should have length equal to number of features ({est.n_features_in_}), "
                         f"got {len(names)}")
    seen = getattr(est, "feature_names_in_", None)
    if seen is not None and not np.array_equal(seen, names):
        raise ValueError("input_features is not equal to feature_names_in_")


def _family_class(family: Any) -> type[FeatureFamily] | None:
    """The class of ``family`` (a registered name, a class or an instance), or None."""
    if isinstance(family, FeatureFamily):
        return type(family)
    if isinstance(family, type) and issubclass(family, FeatureFamily):
        return family
    if isinstance(family, str):
        try:
            return get_registry().get("family", family)
        except Exception:
            return None
    return None


def _fresh(component: Any) -> Any:
    """A private copy of an already constructed component (``fit`` must not mutate parameters)."""
    return copy.deepcopy(component) if isinstance(component, Component) else component


class MetaFeatureExtractor(TransformerMixin, BaseEstimator):
    """Learn a feature set by a budgeted meta-feature search; compute it on new data.

    ``fit(X, y)`` calls :func:`metafx.search` with the parameters below and
    keeps the best feature set found; ``transform(X)`` computes those features.
    The output has one column per chosen feature, named by a readable
    description (:meth:`get_feature_names_out`; for ``pixel-and``:
    ``"(p[3,4] & ~p[5,4]) shift 2"``).

    Parameters
    ----------
    family : str or ~metafx.plugin.FeatureFamily, default="pixel-and"
        The feature family (a registered name, see ``metafx plugins``).
    budget : float or "auto", default="auto"
        Total cost of the chosen feature set (for ``pixel-and`` a feature of
        shift length ``a`` costs ``0.5 * (1 + a**2)``).  ``"auto"``, as in
        :func:`metafx.search`: for image families 16 per pixel on images of at
        least 16 x 16 pixels and 8 on smaller ones, 500 otherwise.
    steps : int or "auto", default="auto"
        Number of search steps (points of meta-feature space evaluated).
        ``"auto"``, as in :func:`metafx.search`: 15 on images of at least
        16 x 16 pixels, 50 otherwise.
    engine : str or ~metafx.plugin.SearchEngine, default="guided"
        The search engine (``"mufasa"``: the thesis's Algorithm 6).
    evaluator : str or ~metafx.plugin.SetEvaluator, default="cv-linear-svm"
        Scores a candidate feature set on the training data.
    random_state : int or None, default=0
        Seed of the search (``None`` draws one; it is stored in
        ``result_.seed``).  scikit-learn's name; ``seed=`` is accepted too.
    fixed : dict, optional
        Meta-features held fixed during the search, e.g. ``{"shiftInvLen": 1}``.
    family_params, engine_params, evaluator_params : dict, optional
        Constructor parameters of the named components.
    threshold : float, optional
        Binary-image families only: a pixel is 1 where ``X >= threshold``
        (e.g. ``8`` for scikit-learn's 0-16 digits).  ``None`` (default)
        requires ``X`` to hold 0/1 values already.
    progress : bool or None, default=None
        Progress bar during ``fit``; ``None`` shows it on a terminal and in a
        notebook (as :func:`metafx.search`).
    n_jobs : int, default=1
        Parallel evaluations per step, where the engine supports it.
    verbose : bool or int, default=False
        Show the ``metafx`` logger's progress lines on stderr during ``fit``
        (see :func:`metafx.search`).
    seed : int, optional
        Another name for ``random_state`` (the name :func:`metafx.search` uses).
    warm_start : ~metafx.SearchResult, list or bool, default=None
        Transfer from related tasks (``warm_start=`` of :func:`metafx.search`:
        their best points are evaluated first, and the default engine's model
        learns from all their steps); ``True`` starts from this extractor's
        previous fit, as scikit-learn's ``warm_start``.
    oversample : float, default=1
        As in :func:`metafx.search`.
    timeout : float, optional
        Seconds after which the search starts no new step.
    reselect : int, optional
        As in :func:`metafx.search`: the ``r`` best steps' sets scored again on a fresh split and the
        best mean of the two scores kept (None: the engine's default).

    Attributes
    ----------
    result_ : ~metafx.SearchResult
        The whole search: trajectory, best point, features, timings.
    best_point_ : dict
        The meta-feature point whose features were kept.
    best_quality_ : float
        Their quality on the training data, as measured by ``evaluator``.
    features_ : list of dict
        JSON specifications of the chosen features (``result_.features``).
    family_ : ~metafx.plugin.FeatureFamily
        The fitted family that computes ``features_``.
    n_features_in_ : int
        Number of input columns (pixels) seen in ``fit``.
    feature_names_in_ : ndarray of str
        Input column names, when ``X`` had string column names.
    image_shape_ : tuple of int or None
        ``(H, W)`` of the images for binary-image families, else None.
    n_features_out_ : int
        Number of chosen features (output columns).

    Notes
    -----
    Images may be given as ``(n, H, W)`` or flat ``(n, H*W)``.  A flat row is
    read with ``family_params["image_shape"]`` when given, as a square image
    when its length is a perfect square, and otherwise as a one-row image
    ``(1, n_features)`` (a binary vector).

    Examples
    --------
    >>> import metafx
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.svm import LinearSVC
    >>> X, y = metafx.load_dataset("digits")
    >>> pipe = make_pipeline(metafx.MetaFeatureExtractor(budget=40, steps=2), LinearSVC())
    >>> pipe.fit(X[:300], y[:300]).score(X[300:400], y[300:400]) > 0.5
    True
    """

    #: set by ``fit`` (declared here for the type checker only: no value, so no attribute before ``fit``)
    image_shape_: tuple[int, ...] | None

    def __init__(
        self,
        family: Any = "pixel-and",
        budget: float | str = "auto",
        steps: int | str = "auto",
        engine: Any = DEFAULT_ENGINE,
        evaluator: Any = "cv-linear-svm",
        random_state: int | None = 0,
        fixed: Mapping[str, Any] | None = None,
        family_params: Mapping[str, Any] | None = None,
        engine_params: Mapping[str, Any] | None = None,
        evaluator_params: Mapping[str, Any] | None = None,
        threshold: float | None = None,
        progress: bool | None = None,
        n_jobs: int = 1,
        verbose: bool | int = False,
        seed: int | None = None,
        warm_start: Any = None,
        oversample: float = 1.0,
        timeout: float | None = None,
        reselect: int | None = None,
    ) -> None:
        self.family = family
        self.budget = budget
        self.steps = steps
        self.engine = engine
        self.evaluator = evaluator
        self.random_state = random_state
        self.fixed = fixed
        self.family_params = family_params
        self.engine_params = engine_params
        self.evaluator_params = evaluator_params
        self.threshold = threshold
        self.progress = progress
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.seed = seed
        self.warm_start = warm_start
        self.oversample = oversample
        self.timeout = timeout
        self.reselect = reselect

    # ------------------------------------------------------------------ helpers
    def _is_image_family(self) -> bool:
        cls = _family_class(self.family)
        return cls is not None and getattr(cls, "data_kind", "table") == "binary-image"

    #: validate nothing but the columns for families that read frames, whatever X is (TableExtractor);
    #: otherwise only pandas DataFrames skip scikit-learn's numeric validation
    frames: bool = False

    def _accepts_frames(self) -> bool:
        """Whether the family reads tables as users have them (DataFrames with categorical, datetime and
        missing values: family class attribute ``accepts_frames = True``) and validates them itself."""
        return bool(getattr(_family_class(self.family), "accepts_frames", False))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        if self._accepts_frames() and self.frames:
            tags.input_tags.allow_nan = True
            tags.input_tags.categorical = True
            tags.input_tags.string = True
        tags.target_tags.required = True
        # binary-image families output 0/1 columns (uint8) whatever the input
        # dtype; table families compute in float64
        tags.transformer_tags.preserves_dtype = [] if self._is_image_family() else ["float64"]
        return tags

    def _validate(self, X: Any, y: Any = None, *, reset: bool) -> tuple[np.ndarray, Any]:
        """sklearn validation (2-D, finite, numeric, n_features_in_) plus the image layout; for a family that
        reads frames, only the columns are recorded (the family validates the values)."""
        if self._accepts_frames() and (hasattr(X, "iloc") or self.frames):
            return self._validate_frame(X, y, reset=reset)
        shape = None
        arr = np.asarray(X) if isinstance(X, (list, tuple)) else X
        if isinstance(arr, np.ndarray) and arr.ndim == 3:
            shape = arr.shape[1:]
            arr = arr.reshape(arr.shape[0], -1)
        if reset:
            check_label_types(y)  # the rule of metafx.search, before the labels are converted
            arr, y = validate_data(self, arr, y, dtype="numeric", y_numeric=False)
            type_of_target(y, input_name="y", raise_unknown=True)
        else:
            arr = validate_data(self, arr, reset=False, dtype="numeric")
        if not self._is_image_family():
            if self.threshold is not None:
                raise ValidationError(
                    f"threshold={self.threshold!r} only applies to binary-image families; "
                    f"family {self.family!r} works on tables: leave threshold=None"
                )
            return arr, y
        if self.threshold is not None:
            t = self.threshold
            if isinstance(t, bool) or not isinstance(t, (int, float, np.number)) or not math.isfinite(float(t)):
                raise ValidationError(f"threshold={t!r} must be a finite number or None")
            arr = (arr >= t).astype(np.uint8)
        elif ((arr != 0) & (arr != 1)).any():
            # the extractor binarizes itself: say so (threshold=), not "binarize first"
            raise ValidationError(not_binary_message(
                arr, flat=shape is None, how="pass threshold={t} to MetaFeatureExtractor (it binarizes X itself)"))
        if reset:
            if shape is None:
                given = (self.family_params or {}).get("image_shape")
                d = arr.shape[1]
                side = int(round(math.sqrt(d)))
                shape = tuple(int(v) for v in given) if given is not None else ((side, side) if side * side == d else (1, d))
            self.image_shape_ = tuple(int(v) for v in shape)
        fitted = self.image_shape_
        assert fitted is not None  # set above, or by fit (images reach this point only for an image family)
        if not reset and shape is not None and tuple(shape) != tuple(fitted):
            raise ValidationError(f"X has images of shape {tuple(shape)} but the extractor was fitted on {self.image_shape_}")
        h, w = fitted
        if h * w != arr.shape[1]:
            raise ValidationError(
                f"X has {arr.shape[1]} pixels per sample but image_shape={self.image_shape_} needs {h * w}"
            )
        return arr.reshape(arr.shape[0], h, w), y

    def _warm_start(self) -> Any:
        """``warm_start``: results of related tasks (or points), or scikit-learn's boolean: ``True`` starts
        from this extractor's previous fit (its ``result_``), ``False``/``None`` from nothing."""
        if self.warm_start is True:
            return getattr(self, "result_", None)
        if self.warm_start is False:
            return None
        return self.warm_start

    def _validate_frame(self, X: Any, y: Any = None, *, reset: bool) -> tuple[Any, Any]:
        if self.threshold is not None:
            raise ValidationError(f"threshold={self.threshold!r} only applies to binary-image families; leave it None")
        if not hasattr(X, "iloc"):
            X = np.asarray(X)
            if X.ndim != 2:
                raise ValidationError(f"X must be 2-D (n_samples, n_features), got shape {X.shape}")
        validate_data(self, X, reset=reset, skip_check_array=True)
        if reset:
            check_label_types(y)  # the rule of metafx.search, before the labels are converted
            y = np.asarray(y)
            if y.ndim == 2 and y.shape[1] == 1:
                y = y.ravel()
            type_of_target(y, input_name="y", raise_unknown=True)
        return X, y

    def _search_evaluator(self) -> Any:
        """The evaluator the search uses: ``evaluator`` (a subclass may derive it from its own parameters)."""
        return self.evaluator

    # ------------------------------------------------------------------ API
    def fit(self, X: Any, y: Any) -> MetaFeatureExtractor:
        """Search the family's meta-feature space on ``(X, y)`` and keep the best feature set.

        Parameters
        ----------
        X : array-like
            Training data in the family's layout: ``(n_samples, n_features)``
            or ``(n_samples, H, W)`` images.
        y : array-like of shape (n_samples,)
            Targets (class labels for ``cv-linear-svm``).

        Returns
        -------
        self : MetaFeatureExtractor
            The fitted transformer.
        """
        self.image_shape_ = None
        Xv, y = self._validate(X, y, reset=True)
        family = _fresh(self.family)
        family_params = dict(self.family_params or {})
        if self.image_shape_ is not None and "image_shape" not in family_params and isinstance(family, str):
            family_params["image_shape"] = list(self.image_shape_)
        names = getattr(self, "feature_names_in_", None)
        cls = _family_class(family)
        if names is not None and isinstance(family, str) and cls is not None \
                and "column_names" in cls._get_param_names() and "column_names" not in family_params:
            family_params["column_names"] = [str(n) for n in names]
        result = search(
            Xv, y, family=family, budget=self.budget, steps=self.steps, engine=_fresh(self.engine),
            evaluator=_fresh(self._search_evaluator()), progress=self.progress, verbose=self.verbose,
            seed=resolve_seed(self.random_state, self.seed, default=0, names=("random_state", "seed")),
            fixed=None if self.fixed is None else dict(self.fixed),
            family_params=family_params or None,
            engine_params=None if self.engine_params is None else dict(self.engine_params),
            evaluator_params=None if self.evaluator_params is None else dict(self.evaluator_params),
            n_jobs=self.n_jobs, warm_start=self._warm_start(), oversample=self.oversample, timeout=self.timeout,
            reselect=self.reselect,
        )
        if self.threshold is not None and self._is_image_family():
            # the result keeps the extractor's binarization: its JSON, metafx transform / predict and the
            # exports binarize new images as this fit did (SearchResult.input_rule)
            result.binarization = InputRule.of_training(np.asarray(X), self.threshold).to_dict()
        self.result_ = result
        self.best_point_ = dict(result.best_point)
        self.best_quality_ = float(result.best_quality)
        self.features_ = list(result.features)
        # rebuild the family from the result (exercises the same path as a JSON reload)
        self.family_, self._batch = result.feature_batch()
        self.n_features_out_ = len(self.features_)
        return self

    def transform(self, X: Any) -> np.ndarray:
        """Compute the chosen features on ``X``.

        Returns
        -------
        ndarray of shape (n_samples, n_features_out_)
            0/1 ``uint8`` columns for binary-image families, ``float64`` for tables.
        """
        check_is_fitted(self, "result_")
        Xv, _ = self._validate(X, reset=False)
        return self.family_.transform(Xv, self._batch)

    def get_feature_names_out(self, input_features: Any = None) -> np.ndarray:
        """Readable descriptions of the chosen features (made unique with a ``#k`` suffix)."""
        check_is_fitted(self, "result_")
        _check_input_features(self, input_features)
        names = self.family_.feature_names(self._batch)
        seen: dict[str, int] = {}
        out = []
        for n in names:
            k = seen.get(n, 0) + 1
            seen[n] = k
            out.append(n if k == 1 else f"{n} #{k}")
        return np.asarray(out, dtype=object)
