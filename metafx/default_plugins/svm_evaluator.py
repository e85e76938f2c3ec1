"""Set evaluator ``cv-linear-svm``: k-fold cross-validated accuracy of a linear SVM."""

from __future__ import annotations

import warnings

import numpy as np

from ..base import SetEvaluator
from ..exceptions import ValidationError
from ..hookspecs import hookimpl
from ..types import FeatureValues


def as_values(X) -> FeatureValues:
    return X if isinstance(X, FeatureValues) else FeatureValues.from_dense(np.asarray(X))


def design_matrix(values: FeatureValues):
    """The matrix a linear model is fitted on: CSR for sparse binary values, dense otherwise."""
    import scipy.sparse as sp

    X = values.dense(np.float64) if not values.binary else values.dense(np.uint8)
    if values.binary:
        density = float(X.mean()) if X.size else 0.0
        if density < 0.3:
            return sp.csr_matrix(X, dtype=np.float64)
        return X.astype(np.float64)
    return X


def stratified_folds(y: np.ndarray, n_splits: int, random_state: int | None):
    from sklearn.model_selection import StratifiedKFold

    _, counts = np.unique(y, return_counts=True)
    if counts.min() < n_splits:
        raise ValidationError(
            f"the smallest class has {counts.min()} sample(s), fewer than n_splits={n_splits}; "
            "lower n_splits or add samples"
        )
    return list(StratifiedKFold(n_splits, shuffle=True, random_state=random_state).split(np.zeros(len(y)), y))


def majority_accuracy(y_train: np.ndarray, y_test: np.ndarray) -> float:
    vals, counts = np.unique(y_train, return_counts=True)
    return float(np.mean(y_test == vals[np.argmax(counts)]))


class CVLinearSVM(SetEvaluator):
    """Mean accuracy of a linear SVM (scikit-learn ``LinearSVC``, one-vs-rest) over
    stratified k folds (default 2, as in thesis section 5.3.2).

    An empty feature set scores the accuracy of predicting the training majority class.
    """

    name = "cv-linear-svm"
    summary = "k-fold (default 2) stratified CV accuracy of a linear SVM"

    def __init__(self, n_splits: int = 2, C: float = 0.1, max_iter: int = 2000, tol: float = 1e-3) -> None:
        self.n_splits = n_splits
        self.C = C
        self.max_iter = max_iter
        self.tol = tol
        if not isinstance(n_splits, (int, np.integer)) or n_splits < 2:
            raise ValidationError(f"n_splits={n_splits!r} must be an integer >= 2")
        if not C > 0:
            raise ValidationError(f"C={C!r} must be positive")

    def _model(self):
        from sklearn.svm import LinearSVC

        # liblinear's dual solver shuffles with its own seed: fix it, or equal inputs may score differently
        return LinearSVC(C=self.C, max_iter=self.max_iter, tol=self.tol, dual=True, random_state=0)

    def evaluate(self, X, y, *, random_state=None) -> float:
        from sklearn.exceptions import ConvergenceWarning

        from ..data import check_labels

        values = as_values(X)
        y = check_labels(y, values.n_samples)
        folds = stratified_folds(y, self.n_splits, random_state)
        if values.n_features == 0:
            return float(np.mean([majority_accuracy(y[tr], y[te]) for tr, te in folds]))
        M = design_matrix(values)
        accs = []
        for tr, te in folds:
            model = self._model()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                model.fit(M[tr], y[tr])
            accs.append(float(np.mean(model.predict(M[te]) == y[te])))
        return float(np.mean(accs))


@hookimpl
def metafx_register_evaluators(register):
    register(CVLinearSVM)
