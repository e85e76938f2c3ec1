"""The fitted model of a search result: its features and a linear SVM as one scikit-learn classifier.

:class:`FeatureClassifier` computes a :class:`~metafx.SearchResult`'s features
on raw data and classifies them with a linear SVM.  It is fitted as
:func:`metafx.holdout_error` fits its model (``LinearSVC`` on the features with
duplicate features merged, ``C`` by 3-fold CV), and keeps the weights per
chosen feature: the merge of duplicates is folded into them, so prediction
computes the features once and applies one weight matrix.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from .._kernels.design import dense_scores, rows_scores, transpose_bits
from ..core.exceptions import ValidationError
from ..core.validation import check_int, check_labels, check_number, check_seed
from ..core.values import FeatureValues
from .svm import DEFAULT_CS, fit_linear_svm

__all__ = ["FeatureClassifier"]


class FeatureClassifier(ClassifierMixin, BaseEstimator):
    """A search result's features followed by a linear SVM: one scikit-learn classifier.

    Parameters
    ----------
    result : SearchResult
        The features to compute (``result.transform``); the result is not changed by
        :meth:`fit`.
    C : float or None, default None
        The SVM's ``C``.  ``None`` chooses it among ``Cs`` by stratified ``n_splits``-fold
        cross-validation on the training data (``random_state`` shuffles the folds): the
        model of :func:`metafx.holdout_error`.
    Cs : sequence of float or None, default None
        The grid for ``C=None`` (``None``: ``(0.01, 0.03, 0.1, 0.3, 1.0)``).
    n_splits : int, default 3
        Folds of the choice of ``C``.
    random_state : int, default 0
        Seed of the folds (an integer in ``[0, 2**63)``; taken modulo ``2**32``).
    shift_copies : bool or "auto", default "auto"
        Images only: fit the SVM on the training images and on their copies shifted by one pixel up,
        down, left and right (zeros shifted in; 5 x the images), ``C`` chosen by the CV on the
        images themselves.  The features and the predict cost are the same; on MNIST it lowered the
        test error (figures: :doc:`/results/cnn_anchor`).
        ``"auto"``: the family's ``default_shift_copies()`` when it has one, else False.  The built-in image
        families (``pixel-and``, ...) say True for images of at least 16 x 16 pixels (MNIST's 28 x 28; not the
        8 x 8 digits, where it did harm; ``experiments/cnn48/RULE_DEFAULTS_IMAGES2.md``).  ``shift_copies_``
        holds the choice made.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels, sorted.
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        The weight of every chosen feature (``result.n_features`` columns, in the order of
        ``result.features``); one row for two classes.  Features equal on every training
        sample are merged for the fit (one column ``sqrt(k)`` times their mean, see
        ``metafx.learn.svm.merge_matrix``) and share their merged weight here, divided by
        ``sqrt(k)``: the decision is ``result.transform(X) @ coef_.T + intercept_``, the
        merged model's on any data.
    intercept_ : ndarray of shape (1,) or (n_classes,)
    C_ : float
        The ``C`` used.
    n_features_in_ : int
        The number of input columns, when ``X`` was 2-D at fit.

    Notes
    -----
    Images are binarized by the result's rule before the features are computed
    (``result.binarize``: 0/1 images as they are, grey images at the
    threshold the search used, other values refused), in ``fit`` as in ``predict``: the same inputs as
    ``result.transform``, ``metafx predict`` and the exports.

    The decision of two classes is one column, positive for ``classes_[1]``; of more, one
    column per class (one-vs-rest), the largest wins.  An empty feature set (a result with
    no features) predicts the most frequent training class (``coef_`` has no columns).

    :meth:`to_dict` / :meth:`from_result` carry the fitted weights in a result's
    ``classifier`` field (saved with :meth:`SearchResult.to_json`, see
    :meth:`SearchResult.fit_classifier`).

    Examples
    --------
    >>> import metafx
    >>> X, y = metafx.load_dataset("digits")
    >>> res = metafx.search(X[:400], y[:400], budget=60, steps=3, seed=0, progress=False)
    >>> clf = metafx.FeatureClassifier(res).fit(X[:400], y[:400])
    >>> clf.coef_.shape == (10, res.n_features)
    True
    >>> bool(clf.score(X[400:800], y[400:800]) > 0.5)
    True
    """

    def __init__(self, result: Any, C: float | None = None, Cs: Sequence[float] | None = None, n_splits: int = 3,
                 random_state: int = 0, shift_copies: bool | str = "auto") -> None:
        self.result = result
        self.C = C
        self.Cs = Cs
        self.n_splits = n_splits
        self.random_state = random_state
        self.shift_copies = shift_copies

    # ------------------------------------------------------------------ fit
    def fit(self, X: Any, y: Any) -> FeatureClassifier:
        """Compute the features on ``X`` and fit the SVM on them (``C`` by CV when ``C`` is None)."""
        C = self._check_params()
        if y is None:
            raise ValidationError("FeatureClassifier requires y to be passed, but the target y is None")
        y = check_labels(y, len(X) if hasattr(X, "__len__") else None, continuous_ok=False)
        values = self._values(X)
        self._set_input_shape(X)
        self.shift_copies_ = self._shifts()
        if values.n_features == 0:
            self.classes_, counts = np.unique(y, return_counts=True)
            majority = int(np.argmax(counts))
            k = len(self.classes_)
            rows = 1 if k == 2 else k
            self.coef_ = np.zeros((rows, 0))
            self.intercept_ = (np.array([1.0 if majority == 1 else -1.0]) if k == 2
                               else np.where(np.arange(k) == majority, 1.0, -1.0))
            self.C_ = float(C if C is not None else math.nan)
            return self
        grid = DEFAULT_CS if self.Cs is None else [check_number("Cs", c, low=0, strict=True) for c in self.Cs]
        if not len(grid):
            raise ValidationError("Cs=[] must hold at least one C > 0")
        seed = check_seed(self.random_state, "random_state") % 2**32
        model = fit_linear_svm(values, y, C="cv" if C is None else C, Cs=grid, n_splits=self.n_splits,
                               random_state=seed)
        if self.shift_copies_:
            # C as the CV on the images chose it (no copy of a training image in another fold), then the final fit
            # on the images and their shifted copies
            images = self._images(X)
            family, batch = self.result.feature_batch()
            values = family.compute(family.prepare(shifted_copies(images)), batch)
            model = fit_linear_svm(values, np.tile(y, 5), C=float(model[-1].C), random_state=seed)
        merger, svm = model[0], model[-1]
        # fold the merge into the weights: merged column g = sum_j merge[j, g] x_j, so x_j's weight is merge[j, g] w_g
        self.coef_ = np.ascontiguousarray(np.asarray(merger.merge_ @ svm.coef_.T).T)
        self.intercept_ = np.array(svm.intercept_, dtype=np.float64)
        self.classes_ = svm.classes_
        self.C_ = float(svm.C)
        return self

    # ------------------------------------------------------------------ predict
    def decision_function(self, X: Any) -> np.ndarray:
        """``features(X) @ coef_.T + intercept_``: shape ``(n,)`` for two classes, ``(n, n_classes)`` else."""
        check_is_fitted(self)
        values = self._values(X)
        if values.n_features != self.coef_.shape[1]:
            raise ValidationError(f"the result has {values.n_features} features; the classifier was fitted on "
                                  f"{self.coef_.shape[1]}")
        scores = _scores(values, self.coef_) + self.intercept_
        return scores[:, 0] if scores.shape[1] == 1 else scores

    def predict(self, X: Any) -> np.ndarray:
        """The class of every sample of ``X``."""
        scores = self.decision_function(X)
        if scores.ndim == 1:
            return self.classes_[(scores > 0).astype(np.intp)]
        return self.classes_[scores.argmax(axis=1)]

    # ------------------------------------------------------------------ the result's field
    def to_dict(self) -> dict[str, Any]:
        """The fitted weights as JSON-able lists: ``{"classes", "coef", "intercept", "C"}``.

        ``coef`` is ``coef_`` (rows of ``result.n_features`` weights; one row for two classes, whose
        positive side is ``classes[1]``), ``intercept`` is ``intercept_``, ``C`` is ``C_`` (``None``
        for an empty feature set).  Decision: ``features @ coef.T + intercept``.
        """
        check_is_fitted(self)
        return {"classes": self.classes_.tolist(), "coef": self.coef_.tolist(),
                "intercept": self.intercept_.tolist(), "C": None if math.isnan(self.C_) else self.C_}

    @classmethod
    def from_result(cls, result: Any) -> FeatureClassifier:
        """The fitted classifier kept in ``result.classifier`` (see :meth:`SearchResult.fit_classifier`)."""
        stored = getattr(result, "classifier", None)
        if stored is None:
            raise ValidationError("result.classifier is None: the result keeps no fitted classifier; "
                                  "call result.fit_classifier(X, y) first")
        clf = cls(result, C=stored.get("C"))
        clf.classes_ = np.asarray(stored["classes"])
        clf.coef_ = np.asarray(stored["coef"], dtype=np.float64).reshape(len(stored["coef"]), result.n_features)
        clf.intercept_ = np.asarray(stored["intercept"], dtype=np.float64)
        clf.C_ = float("nan") if stored.get("C") is None else float(stored["C"])
        return clf

    # ------------------------------------------------------------------ helpers
    def _check_params(self) -> float | None:
        if self.result is None or not hasattr(self.result, "feature_batch"):
            raise ValidationError(f"result={self.result!r} must be a SearchResult")
        check_int("n_splits", self.n_splits, 2)
        check_seed(self.random_state, "random_state")
        if not isinstance(self.shift_copies, (bool, np.bool_)) and not (isinstance(self.shift_copies, str)
                                                                       and self.shift_copies == "auto"):
            raise ValidationError(f"shift_copies={self.shift_copies!r} must be True, False or 'auto'")
        if isinstance(self.C, str) and self.C == "cv":
            return None
        return check_number("C", self.C, low=0, strict=True, allow_none=True)

    def _shifts(self) -> bool:
        """``shift_copies`` resolved: ``"auto"`` is True for an image family."""
        if isinstance(self.shift_copies, str):
            # the family's rule (the built-in image families: images of at least 16 x 16 pixels); none: off
            rule = getattr(self.result.feature_batch()[0], "default_shift_copies", None)
            return bool(rule()) if callable(rule) else False
        return bool(self.shift_copies)

    def _images(self, X: Any) -> np.ndarray:
        binarize = getattr(self.result, "binarize", None)
        images = np.asarray(X if binarize is None else binarize(X))
        family = self.result.feature_batch()[0]
        if images.ndim == 2 and getattr(family, "data_kind", None) == "binary-image":
            images = family.check_data(images)  # flat images of the family's shape
        if images.ndim != 3:
            raise ValidationError(f"shift_copies=True needs images of shape (n, height, width); X has shape "
                                  f"{np.shape(X)}")
        return images

    def _values(self, X: Any) -> FeatureValues:
        family, batch = self.result.feature_batch()
        binarize = getattr(self.result, "binarize", None)  # images by the result's rule (SearchResult.input_rule)
        return family.compute(family.prepare(X if binarize is None else binarize(X)), batch)

    def _set_input_shape(self, X: Any) -> None:
        shape = np.shape(X)
        if len(shape) == 2:
            self.n_features_in_ = int(shape[1])
        elif hasattr(self, "n_features_in_"):
            del self.n_features_in_


def shifted_copies(images: np.ndarray) -> np.ndarray:
    """``images`` ``(n, H, W)`` and their copies shifted by one pixel down, up, right and left (zeros shifted in),
    in that order: ``(5 n, H, W)``."""
    images = np.asarray(images)
    out = np.zeros((5, *images.shape), dtype=images.dtype)
    out[0] = images
    out[1, :, 1:] = images[:, :-1]
    out[2, :, :-1] = images[:, 1:]
    out[3, :, :, 1:] = images[:, :, :-1]
    out[4, :, :, :-1] = images[:, :, 1:]
    return out.reshape(-1, *images.shape[1:])


def _scores(values: FeatureValues, coef: np.ndarray) -> np.ndarray:
    """``values @ coef.T`` (``(n_samples, rows)`` float64), from the packed bits when there are any; the terms
    added in increasing feature order from 0.0 either way (the order of an exported model's decision)."""
    if values.packed is not None:
        return rows_scores(transpose_bits(values.packed, values.n_samples), np.ones(coef.shape[1]), coef)
    return dense_scores(values.dense(np.float64), coef)
