"""Final evaluation of a chosen feature set: a linear SVM trained on the
training part (``C`` chosen by cross-validation on the training part only),
tested on held-out data."""

from __future__ import annotations

import warnings
from typing import Any, Sequence

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.pipeline import Pipeline

from .exceptions import ValidationError
from .types import FeatureValues, SearchResult

__all__ = ["fit_linear_svm", "test_error", "DuplicateMerger", "DEFAULT_CS"]

DEFAULT_CS = (0.01, 0.03, 0.1, 0.3, 1.0)


def _matrix(X: Any):
    from .default_plugins.svm_evaluator import as_values, design_matrix

    return design_matrix(as_values(X))


class DuplicateMerger(TransformerMixin, BaseEstimator):
    """Merge features equal on every training sample into one column (``sqrt(k)`` times
    their mean): an exact, faster stand-in for the original columns under an
    L2-regularized linear model (see :func:`metafx.default_plugins.svm_evaluator.merge_matrix`).

    Accepts :class:`~metafx.FeatureValues` or a 2-D array; ``transform`` returns the
    design matrix (CSR when sparse and binary, dense otherwise).
    """

    def fit(self, X: Any, y: Any = None) -> DuplicateMerger:
        from .default_plugins.svm_evaluator import as_values, merge_matrix

        values = as_values(X)
        self.merge_ = merge_matrix(values)
        self.n_features_in_ = values.n_features
        self.n_groups_ = int(self.merge_.shape[1])
        return self

    def transform(self, X: Any):
        from .default_plugins.svm_evaluator import as_values, design_matrix

        values = as_values(X)
        if values.n_features != self.n_features_in_:
            raise ValidationError(f"X has {values.n_features} features; the merger was fitted on "
                                  f"{self.n_features_in_}")
        return design_matrix(values, self.merge_)


def fit_linear_svm(X: Any, y: np.ndarray, C: float | str = "cv", Cs: Sequence[float] = DEFAULT_CS,
                   n_splits: int = 3, random_state: int = 0, merge_duplicates: bool = True) -> Pipeline:
    """A fitted pipeline (duplicate merger, ``LinearSVC``); with ``C="cv"`` the SVM's ``C``
    is the best of ``Cs`` by stratified k-fold CV on ``(X, y)``.  ``pipeline[-1].C`` is the ``C`` used."""
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.model_selection import GridSearchCV, StratifiedKFold

    from .default_plugins.svm_evaluator import linear_svc

    if isinstance(C, str) and C != "cv" or not isinstance(C, str) and not C > 0:
        raise ValidationError(f"C={C!r} must be a positive number or 'cv'")
    merger = DuplicateMerger().fit(X) if merge_duplicates else None
    M = merger.transform(X) if merger is not None else _matrix(X)
    y = np.asarray(y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        if C == "cv":
            cv = StratifiedKFold(n_splits, shuffle=True, random_state=random_state)
            gs = GridSearchCV(linear_svc(1.0, M, max_iter=5000), {"C": list(Cs)}, cv=cv, n_jobs=1)
            gs.fit(M, y)
            svm = gs.best_estimator_
        else:
            svm = linear_svc(float(C), M, max_iter=5000).fit(M, y)
    return Pipeline([("merge", merger if merger is not None else _Design()), ("svm", svm)])


class _Design(TransformerMixin, BaseEstimator):
    """The design matrix without merging (``fit_linear_svm(..., merge_duplicates=False)``)."""

    def fit(self, X: Any, y: Any = None) -> _Design:
        return self

    def transform(self, X: Any):
        return _matrix(X)


def test_error(result: SearchResult, X_train: np.ndarray, y_train: np.ndarray, X_test: np.ndarray,
               y_test: np.ndarray, C: float | str = "cv", random_state: int = 0) -> tuple[float, float]:
    """Test error of a linear SVM on ``result``'s features; returns ``(error, C used)``."""
    if result.n_features == 0:
        raise ValidationError("the result has no features to train a classifier on")
    family, batch = result.feature_batch()
    Ftr = family.compute(family.prepare(X_train), batch)
    Fte = family.compute(family.prepare(X_test), batch)
    model = fit_linear_svm(Ftr, y_train, C=C, random_state=random_state)
    err = float(np.mean(model.predict(Fte) != np.asarray(y_test)))
    return err, float(model[-1].C)


# keep pytest from collecting the function as a test when imported into test modules
test_error.__test__ = False  # type: ignore[attr-defined]

