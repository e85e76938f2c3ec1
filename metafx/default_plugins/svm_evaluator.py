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


def merge_matrix(values: FeatureValues):
    """The ``(n_features, n_groups)`` sparse map that merges duplicate features.

    Feature ``j`` of group ``g`` (see :meth:`FeatureValues.duplicate_groups`)
    maps to column ``g`` with weight ``1 / sqrt(counts[g])``.  For an
    L2-regularized linear model this is exact: ``k`` equal columns get equal
    weights ``u`` at the optimum (the regularizer is strictly convex), which is
    the same model as one column ``sqrt(k) x`` with weight ``sqrt(k) u``.  On
    other data (a test set on which the group's columns differ) the merged
    column is ``sqrt(k)`` times the group's mean, again the original model's
    output.  Fewer columns make the SVM faster: many cheap features of a point
    (one input, short shifts) repeat, and a set of 6000 may hold 200 distinct.
    """
    import scipy.sparse as sp

    group, _, counts = values.duplicate_groups()
    n = values.n_features
    w = 1.0 / np.sqrt(counts[group].astype(np.float64)) if n else np.zeros(0)
    return sp.csr_matrix((w, (np.arange(n), group)), shape=(n, len(counts)))


def design_matrix(values: FeatureValues, merge=None):
    """The matrix a linear model is fitted on: CSR for sparse binary values, dense otherwise.

    ``merge`` (from :func:`merge_matrix`) maps the features to merged columns first.
    """
    import scipy.sparse as sp

    if not values.binary:
        X = values.dense(np.float64)
        return X if merge is None else np.asarray(X @ merge)
    X = sp.csr_matrix(values.dense(np.uint8), dtype=np.float64)
    if merge is not None:
        X = sp.csr_matrix(X @ merge)
    density = X.nnz / max(1, X.shape[0] * X.shape[1])
    return X if density < 0.3 else X.toarray()


def linear_svc(C: float, M=None, max_iter: int = 2000, tol: float = 1e-3):
    """An unfitted ``LinearSVC`` (squared hinge, L2) whose solver suits the design matrix ``M``.

    Both of liblinear's solvers minimize the same objective; which is faster
    depends on the data.  Dense binary features (many of them nearly always on:
    negated pixels OR-ed over shifts) leave the dual coordinate descent crawling
    (measured on 2000 MNIST images: 17 s vs 5.5 s for 2400 such features, 9 s vs
    0.8 s for 400), while on sparse sets the dual is the faster one.  So: primal
    (``dual=False``) for a dense ``M``, dual for a sparse one.
    """
    import scipy.sparse as sp
    from sklearn.svm import LinearSVC

    dual = M is None or sp.issparse(M)
    # liblinear's dual solver shuffles with its own seed: fix it, or equal inputs may score differently
    return LinearSVC(C=C, max_iter=max_iter, tol=tol, dual=dual, random_state=0)


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
        if not isinstance(n_splits, (int, np.integer)) or n_splits < 2:
            raise ValidationError(f"n_splits={n_splits!r} must be an integer >= 2")
        if not C > 0:
            raise ValidationError(f"C={C!r} must be positive")

    def _model(self, M=None):
        return linear_svc(self.C, M, max_iter=self.max_iter, tol=self.tol)

    def evaluate(self, X, y, *, random_state=None) -> float:
        from sklearn.exceptions import ConvergenceWarning

        from ..data import check_labels

        values = as_values(X)
        y = check_labels(y, values.n_samples)
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
