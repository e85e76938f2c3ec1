"""Final evaluation of a chosen feature set: a linear SVM trained on the
training part (``C`` chosen by cross-validation on the training part only),
tested on held-out data."""

from __future__ import annotations

import warnings
from typing import Any, Sequence

import numpy as np

from .exceptions import ValidationError
from .types import FeatureValues, SearchResult

__all__ = ["fit_linear_svm", "test_error", "DEFAULT_CS"]

DEFAULT_CS = (0.01, 0.03, 0.1, 0.3, 1.0)


def _matrix(X: Any):
    from .default_plugins.svm_evaluator import as_values, design_matrix

    return design_matrix(as_values(X))


def fit_linear_svm(X: Any, y: np.ndarray, C: float | str = "cv", Cs: Sequence[float] = DEFAULT_CS,
                   n_splits: int = 3, random_state: int = 0):
    """A fitted ``LinearSVC``; with ``C="cv"`` the best of ``Cs`` by stratified k-fold CV on ``(X, y)``."""
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.model_selection import GridSearchCV, StratifiedKFold
    from sklearn.svm import LinearSVC

    M = _matrix(X)
    y = np.asarray(y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        if C == "cv":
            cv = StratifiedKFold(n_splits, shuffle=True, random_state=random_state)
            gs = GridSearchCV(LinearSVC(dual=True, max_iter=5000), {"C": list(Cs)}, cv=cv, n_jobs=1)
            gs.fit(M, y)
            return gs.best_estimator_
        if isinstance(C, str) or not C > 0:
            raise ValidationError(f"C={C!r} must be a positive number or 'cv'")
        return LinearSVC(C=float(C), dual=True, max_iter=5000).fit(M, y)


def test_error(result: SearchResult, X_train: np.ndarray, y_train: np.ndarray, X_test: np.ndarray,
               y_test: np.ndarray, C: float | str = "cv", random_state: int = 0) -> tuple[float, float]:
    """Test error of a linear SVM on ``result``'s features; returns ``(error, C used)``."""
    if result.n_features == 0:
        raise ValidationError("the result has no features to train a classifier on")
    family, batch = result.feature_batch()
    Ftr = family.compute(family.prepare(X_train), batch)
    Fte = family.compute(family.prepare(X_test), batch)
    model = fit_linear_svm(Ftr, y_train, C=C, random_state=random_state)
    err = float(np.mean(model.predict(_matrix(Fte)) != np.asarray(y_test)))
    return err, float(model.C)


# keep pytest from collecting the function as a test when imported into test modules
test_error.__test__ = False  # type: ignore[attr-defined]

