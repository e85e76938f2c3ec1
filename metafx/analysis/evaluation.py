"""Test error of a search result: a linear SVM on its features, trained on the
training part (``C`` by cross-validation there), tested on held-out data
(:class:`metafx.FeatureClassifier`)."""

from __future__ import annotations

import numpy as np

from ..core.exceptions import ValidationError
from ..learn.classifier import FeatureClassifier
from ..loop.result import SearchResult

__all__ = ["FeatureClassifier", "holdout_error"]


def holdout_error(result: SearchResult, X_train: np.ndarray, y_train: np.ndarray, X_test: np.ndarray,
               y_test: np.ndarray, C: float | str = "cv", random_state: int = 0) -> tuple[float, float]:
    """Held-out error of a linear SVM on ``result``'s features: fitted on ``(X_train, y_train)`` (``C`` by
    3-fold CV there, or the number given), the share of ``X_test`` it misclassifies; returns ``(error, C used)``.

    This is the number ``metafx search`` records as :attr:`SearchResult.holdout_error`; to keep the fitted
    model, use :meth:`SearchResult.fit_classifier` (or :class:`metafx.FeatureClassifier`).
    """
    if result.n_features == 0:
        raise ValidationError("the result has no features to train a classifier on")
    if isinstance(C, str) and C != "cv":
        raise ValidationError(f"C={C!r} must be a positive number or 'cv'")
    # the model of metafx.learn.svm.fit_linear_svm (duplicates merged, C by 3-fold CV), its merge folded into
    # the weights: the same predictions, computed from the features at once
    clf = FeatureClassifier(result, C=None if isinstance(C, str) else C, random_state=random_state).fit(X_train, y_train)
    err = float(np.mean(clf.predict(X_test) != np.asarray(y_test)))
    return err, clf.C_
