"""Set evaluator ``cv-linear-svm``: k-fold cross-validated accuracy of a linear SVM."""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ..core.base import SetEvaluator
from ..core.validation import check_int, check_labels, check_number
from ..hooks.spec import hookimpl
from ..learn.svm import as_values, design_matrix, linear_svc, majority_accuracy, merge_matrix, stratified_folds


class CVLinearSVM(SetEvaluator):
    """Mean accuracy of a linear SVM (scikit-learn ``LinearSVC``, one-vs-rest) over
    stratified k folds (default 2, as in thesis section 5.3.2).

    Features with equal values on every sample are merged first
    (``merge_duplicates``, see :func:`merge_matrix`): the same model, fitted faster.

    An empty feature set scores the accuracy of predicting the training majority class.
    """

    name = "cv-linear-svm"
    summary = "k-fold (default 2) stratified CV accuracy of a linear SVM"

    def __init__(self, n_splits: int = 2, C: float = 0.1, max_iter: int = 2000, tol: float = 1e-3,
                 merge_duplicates: bool = True) -> None:
        self.n_splits = n_splits
        self.merge_duplicates = merge_duplicates
        self.C = C
        self.max_iter = max_iter
        self.tol = tol

    def check_params(self) -> None:
        check_int("n_splits", self.n_splits, 2)
        check_number("C", self.C, low=0, strict=True)
        check_int("max_iter", self.max_iter, 1)
        check_number("tol", self.tol, low=0, strict=True)

    def _model(self, M=None):
        return linear_svc(self.C, M, max_iter=self.max_iter, tol=self.tol)

    def evaluate(self, X, y, *, random_state=None) -> float:
        values = as_values(X)
        y = check_labels(y, values.n_samples, continuous_ok=False)
        folds = stratified_folds(y, self.n_splits, random_state)
        if values.n_features == 0:
            return float(np.mean([majority_accuracy(y[tr], y[te]) for tr, te in folds]))
        M = design_matrix(values, merge_matrix(values) if self.merge_duplicates else None)
        accs = []
        for tr, te in folds:
            model = self._model(M)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                model.fit(M[tr], y[tr])
            accs.append(float(np.mean(model.predict(M[te]) == y[te])))
        return float(np.mean(accs))


@hookimpl
def metafx_register_evaluators(register):
    register(CVLinearSVM)
