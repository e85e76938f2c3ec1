"""Set evaluator ``cv-linear-svm``: k-fold cross-validated accuracy of a linear SVM."""

from __future__ import annotations

import warnings
from typing import Any, ClassVar

import numpy as np
import sklearn
from sklearn.exceptions import ConvergenceWarning

from .._kernels.design import rows_scores, transpose_bits
from ..core.base import SetEvaluator
from ..core.params import Interval, Options
from ..core.validation import check_labels
from ..hooks.spec import hookimpl
from ..learn.svm import (
    LiblinearOvR,
    as_values,
    complement_dense,
    complement_share,
    design_matrix,
    grouped_bits,
    linear_svc,
    majority_accuracy,
    merge_matrix,
    rows_design,
    stratified_folds,
)

DESIGNS = ("packed", "merge")

class CVLinearSVM(SetEvaluator):
    """Mean accuracy of a linear SVM (scikit-learn ``LinearSVC``, one-vs-rest) over
    stratified k folds (default 2, as in thesis section 5.3.2).

    Features with equal values on every sample are merged first
    (``merge_duplicates``, see :func:`merge_matrix`): the same model, fitted faster.

    ``design="packed"`` (default) builds each fold's training rows of the merged
    design straight from the packed bits (:func:`~metafx.learn.svm.rows_design`:
    CSR, one column per duplicate group, from the samples' words of
    :func:`~metafx._kernels.design.transpose_bits`) and predicts the test rows from
    them (:func:`~metafx._kernels.design.rows_scores`: the values of the CSR product);
    no design of all samples is held.  ``design="merge"`` builds the whole design as
    before (dense values times the sparse merge matrix).  ``"packed"`` designs go
    to liblinear's dual solver (the same objective as the primal's; at ``tol=0.1``
    the primal stops early on dense designs, see docs/design.md); ``"merge"``
    designs to the dual below density ``SPARSE_BELOW`` (0.3), else the primal.  A
    ``"packed"`` fold is fitted by :class:`~metafx.learn.svm.LiblinearOvR` (``LinearSVC.fit``
    with scikit-learn's per-fit validation switched off through its public ``config_context``).
    ``tol`` is liblinear's stopping tolerance: the default ``0.1`` stops earlier than
    scikit-learn's ``1e-3`` and ranks candidate sets as ``1e-3`` does (measured by
    ``benchmarks/bench_evaluator.py``).  ``design="merge", tol=1e-3, max_train=None,
    complement=False`` is the evaluator of metafx 0.x, value for value.

    ``max_train`` (default 2000) caps the samples each fold's SVM is fitted on: a longer
    training part is replaced by a stratified random subset of that size, the same at every
    step of a search (drawn from its seed); the test parts stay whole.  Below
    ``max_train * n_splits / (n_splits - 1)`` samples (4000 with two folds) nothing changes;
    above, a step costs about what it costs at that size, plus predicting the rest (a
    sparse product), so a search's time grows little beyond it (measured by ``benchmarks/bench_evaluator.py``).
    ``None`` fits on every training sample.

    ``complement`` (default 0.7): a binary column set on more than this share of the samples
    enters as its complement ``1 - x`` (:func:`~metafx.learn.svm.complement_dense`); ``True``
    is the share 0.5, ``False`` none.  With an intercept the model can express the same
    functions; only liblinear's penalty on its bias (regularized like a weight) tells them
    apart.  liblinear's dual costs about the ones of a design times its passes, and converges
    slowly on columns that are on for most samples (OR-s of many inputs, negated features OR-ed
    over large shifts) and at once on their sparse complements.  0.7 replaced 0.9 by the rule
    ``experiments/complement/RULE.md``; its runs are on :doc:`/results/speed`.

    An empty feature set scores the accuracy of predicting the training majority class.
    """

    name = "cv-linear-svm"
    summary = "k-fold (default 2) stratified CV accuracy of a linear SVM"

    def __init__(self, n_splits: int = 2, C: float = 0.1, max_iter: int = 2000, tol: float = 0.1,
                 merge_duplicates: bool = True, design: str = "packed", max_train: int | None = 2000,
                 complement: bool | float = 0.7) -> None:
        self.n_splits = n_splits
        self.max_train = max_train
        self.complement = complement
        self.design = design
        self.merge_duplicates = merge_duplicates
        self.C = C
        self.max_iter = max_iter
        self.tol = tol

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "n_splits": [Interval("int", 2, None)],
        "C": [Interval("real", 0, None, closed="neither")],
        "max_iter": [Interval("int", 1, None)],
        "tol": [Interval("real", 0, None, closed="neither")],
        "merge_duplicates": ["boolean"],
        "design": [Options(DESIGNS)],
        "max_train": [Interval("int", 2, None), None],
        "complement": ["boolean", Interval("real", 0.5, 1, closed="left")],
    }

    @property
    def quality_label(self) -> str:
        return f"CV accuracy, {self.n_splits}-fold linear SVM"

    def _model(self, M):
        return linear_svc(self.C, M, max_iter=self.max_iter, tol=self.tol)

    def evaluate(self, X, y, *, random_state=None) -> float:
        return float(np.mean(self.fold_accuracies(X, y, random_state=random_state)))

    def fold_accuracies(self, X, y, *, random_state=None) -> list[float]:
        """The accuracy on each fold's test part, in the folds' order (:meth:`evaluate` is their mean)."""
        values = as_values(X)
        y = check_labels(y, values.n_samples, continuous_ok=False)
        folds = stratified_folds(y, self.n_splits, random_state, self.max_train)
        if values.n_features == 0:
            return [majority_accuracy(y[tr], y[te]) for tr, te in folds]
        # "packed": each fold's rows straight from the bits, fitted by liblinear's dual (no design of all samples)
        packed = self.design == "packed" and self.merge_duplicates and values.packed is not None
        if packed:
            (bits, weights), m = grouped_bits(values), values.n_samples
            above = complement_share(self.complement)
            if above is not None:
                bits = complement_dense(bits, m, above)
            T = transpose_bits(bits, m)  # the samples' words: every fold's rows are read in order
        else:
            merge = merge_matrix(values) if self.merge_duplicates else None
            M = design_matrix(values, merge, complement=self.complement)
        accs = []
        # the design and labels are checked already: skip scikit-learn's per-fit checks (public config switches)
        with sklearn.config_context(assume_finite=True, skip_parameter_validation=True), warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            for tr, te in folds:
                if packed:
                    svm = LiblinearOvR(y[tr], self.C, self.tol, self.max_iter)
                    coef, intercept = svm.fit(rows_design(T, weights, tr))
                    pred = _classes(svm.classes_, rows_scores(T, weights, coef, te) + intercept)
                else:
                    model = self._model(M).fit(M[tr], y[tr])
                    pred = _predict(model, M[te])
                accs.append(float(np.mean(pred == y[te])))
        return accs


def _predict(model, M) -> np.ndarray:
    """``model.predict(M)`` of a fitted linear classifier, without re-validating ``M``."""
    return _classes(model.classes_, np.asarray(M @ model.coef_.T) + model.intercept_)


def _classes(classes: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """The ``classes`` a fitted linear classifier predicts from its decision ``scores`` (``(n, k)``)."""
    if scores.shape[1] == 1:
        return classes[(scores[:, 0] > 0).astype(np.intp)]
    return classes[scores.argmax(axis=1)]


@hookimpl
def metafx_register_evaluators(register):
    register(CVLinearSVM)
