"""Test error of a search result: a linear SVM on its features, trained on the
training part (``C`` by cross-validation there), tested on held-out data."""

from __future__ import annotations

import numpy as np

from ..core.exceptions import ValidationError
from ..core.validation import check_seed
from ..learn.svm import fit_linear_svm
from ..loop.result import SearchResult

__all__ = ["test_error"]


def test_error(result: SearchResult, X_train: np.ndarray, y_train: np.ndarray, X_test: np.ndarray,
               y_test: np.ndarray, C: float | str = "cv", random_state: int = 0) -> tuple[float, float]:
    """Test error of a linear SVM on ``result``'s features; returns ``(error, C used)``."""
    if result.n_features == 0:
        raise ValidationError("the result has no features to train a classifier on")
    # scikit-learn's folds take seeds below 2**32; every seed metafx accepts (< 2**63) is folded into that range
    random_state = check_seed(random_state, "random_state") % 2**32
    family, batch = result.feature_batch()
    Ftr = family.compute(family.prepare(X_train), batch)
    Fte = family.compute(family.prepare(X_test), batch)
    model = fit_linear_svm(Ftr, y_train, C=C, random_state=random_state)
    err = float(np.mean(model.predict(Fte) != np.asarray(y_test)))
    return err, float(model[-1].C)


# keep pytest from collecting the function as a test when imported into test modules
test_error.__test__ = False  # type: ignore[attr-defined]

