"""Linear SVMs on feature values: the design matrix (duplicate features merged),
cross-validated scoring folds, and the final classifier of a chosen set
(``C`` chosen by cross-validation on the training part only)."""

from __future__ import annotations

import hashlib
import threading
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.pipeline import Pipeline
from sklearn.svm import LinearSVC

from .._kernels.design import rows_to_csr, transpose_bits
from .._kernels.packing import popcount_rows, tail_mask
from ..core.exceptions import ValidationError
from ..core.values import FeatureValues

__all__ = [
    "DEFAULT_CS",
    "SPARSE_BELOW",
    "DuplicateMerger",
    "LiblinearOvR",
    "as_values",
    "complement_dense",
    "complement_share",
    "design_matrix",
    "fit_linear_svm",
    "grouped_bits",
    "grouped_design",
    "linear_svc",
    "majority_accuracy",
    "merge_matrix",
    "rows_design",
    "stratified_folds",
    "stratified_subset",
]

#: designs with fewer nonzero entries than this share go to liblinear's dual solver (see :func:`linear_svc`)
SPARSE_BELOW = 0.3

DEFAULT_CS = (0.01, 0.03, 0.1, 0.3, 1.0)


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
    group, _, counts = values.duplicate_groups()
    n = values.n_features
    w = 1.0 / np.sqrt(counts[group].astype(np.float64)) if n else np.zeros(0)
    return sp.csr_matrix((w, (np.arange(n), group)), shape=(n, len(counts)))


def design_matrix(values: FeatureValues, merge=None, complement: bool | float = False):
    """The matrix a linear model is fitted on: CSR for sparse binary values, dense otherwise.

    ``merge`` (from :func:`merge_matrix`) maps the features to merged columns first.
    ``complement``: binary columns set on more than half the samples (``True``), or on more than
    a given share of them (a number), enter as ``1 - x`` (see :func:`complement_dense`); other
    values are not changed.
    """
    if not values.binary:
        X = values.dense(np.float64)
        return X if merge is None else np.asarray(X @ merge)
    D = values.dense(np.uint8)
    above = complement_share(complement)
    if above is not None:
        flip = np.count_nonzero(D, axis=0) > above * D.shape[0]
        if flip.any():
            D = D.copy()
            D[:, flip] = 1 - D[:, flip]
    X = sp.csr_matrix(D, dtype=np.float64)
    if merge is not None:
        X = sp.csr_matrix(X @ merge)
    density = X.nnz / max(1, X.shape[0] * X.shape[1])
    return X if density < SPARSE_BELOW else X.toarray()


def grouped_design(values: FeatureValues, rows=None):
    """The duplicate-merged design of :func:`design_matrix`, made straight from the packed bits.

    One column per duplicate group (``sqrt(count)`` times the group's first
    feature, the same columns as ``design_matrix(values, merge_matrix(values))``
    up to rounding), written as CSR from the set bits of the groups' first
    features (:func:`metafx._kernels.design.transpose_bits` and ``rows_to_csr``): neither the dense
    ``(n_samples, n_features)`` matrix nor a sparse product is formed, and the
    matrix is CSR whatever its density (liblinear copies every input into its own
    sparse rows, so a dense float64 copy buys it nothing).  The values stay
    float64: liblinear takes no other type.  Values that are not bit-packed fall
    back to :func:`design_matrix`.  ``rows`` (increasing sample indices): only
    those rows, made without the others (a fold's training part).
    """
    if values.packed is None:
        M = design_matrix(values, merge_matrix(values))
        return M if rows is None else M[np.asarray(rows)]
    bits, weights = grouped_bits(values)
    return rows_design(transpose_bits(bits, values.n_samples), weights, rows)


def complement_share(complement) -> float | None:
    """The share of samples above which a binary column enters as its complement: ``False`` none,
    ``True`` half, a number in ``[0.5, 1)`` that share; anything else raises ``ValidationError``."""
    if isinstance(complement, (bool, np.bool_)):
        return 0.5 if complement else None
    if isinstance(complement, (int, float, np.integer, np.floating)) and 0.5 <= float(complement) < 1:
        return float(complement)
    raise ValidationError(f"complement={complement!r} must be True, False or a share in [0.5, 1) (columns set on "
                          "more than that share of the samples enter as their complement)")


def complement_dense(bits: np.ndarray, m: int, above: float = 0.5) -> np.ndarray:
    """``bits`` (packed 0/1 rows over ``m`` samples) with every row set on more than ``above`` of
    the samples (default half) replaced by its complement (``1 - x``; bits past ``m`` stay 0).
    The input is not changed.

    For a linear model with an intercept, ``w * x + b`` equals ``-w * (1 - x) + (b + w)``: the same
    functions.  Only a penalty on the intercept (liblinear's bias is regularized like a weight)
    tells the two apart, and liblinear's dual solver converges faster on the sparser columns."""
    bits = np.asarray(bits, dtype=np.uint64)
    flip = popcount_rows(bits) > float(above) * m
    if not flip.any():
        return bits
    valid = np.full(bits.shape[1], np.uint64(0xFFFFFFFFFFFFFFFF), dtype=np.uint64)
    valid[-1:] = tail_mask(m)
    out = bits.copy()
    out[flip] = ~bits[flip] & valid
    return out


def grouped_bits(values: FeatureValues) -> tuple[np.ndarray, np.ndarray]:
    """``(bits, weights)``: the packed rows of the duplicate groups' first features and the
    groups' weights ``sqrt(count)``: the columns of :func:`grouped_design`, still packed."""
    _, first, counts = values.duplicate_groups()
    assert values.packed is not None, "grouped_bits reads bit-packed values"
    return values.packed[first], np.sqrt(counts.astype(np.float64))


def rows_design(T: np.ndarray, weights: np.ndarray, rows=None):
    """The CSR matrix of the samples ``rows`` (all by default) whose column ``g`` is ``weights[g]``
    times bit ``g`` of the samples' words ``T`` (:func:`metafx._kernels.design.transpose_bits` of
    :func:`grouped_bits`' columns)."""
    indptr, indices, data = rows_to_csr(T, weights, rows)
    return sp.csr_matrix((data, indices, indptr), shape=(len(indptr) - 1, len(weights)))


def linear_svc(C: float, M=None, max_iter: int = 2000, tol: float = 1e-3, dual: bool | None = None):
    """An unfitted ``LinearSVC`` (squared hinge, L2) whose solver suits the design matrix ``M``.

    Both of liblinear's solvers minimize the same objective; which is faster
    depends on the data.  Dense binary features (many of them nearly always on:
    negated pixels OR-ed over shifts) leave the dual coordinate descent crawling
    (much slower than the primal; ``benchmarks/bench_evaluator.py`` measures it), while on
    sparse sets the dual is the faster one.  So: primal
    (``dual=False``) for a dense ``M``, dual for a sparse one, unless ``dual``
    says which.
    """
    if dual is None:
        dual = M is None or sp.issparse(M)
    # liblinear's dual solver shuffles with its own seed: fix it, or equal inputs may score differently
    return LinearSVC(C=C, max_iter=max_iter, tol=tol, dual=dual, random_state=0)


class LiblinearOvR:
    """Fits of ``linear_svc(C, dual=True, tol=..., max_iter=...)`` on one set of labels.

    The evaluator makes one object per fold of an evaluation and calls :meth:`fit` on that fold's
    rows.  Each fit is ``LinearSVC.fit`` (liblinear's one-vs-rest dual solver, seeded as
    :func:`linear_svc` seeds it), so the coefficients are ``LinearSVC``'s
    (``tests/test_svm_fast.py``).  Callers that have checked their inputs can skip scikit-learn's
    per-fit validation with ``sklearn.config_context(assume_finite=True,
    skip_parameter_validation=True)``, as the evaluator does.

    ``y``: the labels of every fit (with one class, ``fit`` raises ``LinearSVC``'s error).
    :meth:`fit` returns ``(coef, intercept)`` with the shapes of ``LinearSVC.coef_`` and
    ``intercept_`` (one row for two classes); ``classes_`` is ``LinearSVC.classes_``.
    """

    def __init__(self, y, C: float, tol: float, max_iter: int):
        self.y = np.asarray(y)
        self.classes_ = np.unique(self.y)
        self.C, self.tol, self.max_iter = float(C), float(tol), int(max_iter)

    def fit(self, X) -> tuple[np.ndarray, np.ndarray]:
        """``(coef, intercept)`` of the SVM fitted on the rows of ``X`` (one row per label of ``y``)."""
        model = linear_svc(self.C, None, max_iter=self.max_iter, tol=self.tol, dual=True).fit(X, self.y)
        return model.coef_, model.intercept_


def stratified_folds(y: np.ndarray, n_splits: int, random_state: int | None, max_train: int | None = None):
    """``[(train, test), ...]``: scikit-learn's shuffled ``StratifiedKFold`` (indices in increasing
    order, read-only).  A search scores every step on the same labels and seed: the folds of the
    last few ``(y, n_splits, random_state, max_train)`` are kept, so the split is made once per search.

    ``max_train``: a training part longer than this is replaced by a stratified random subset of
    ``max_train`` of its indices (:func:`stratified_subset`; every class keeps at least one
    sample); the test parts stay whole."""
    y = np.asarray(y)
    if random_state is None or not isinstance(random_state, (int, np.integer)) or y.dtype.hasobject:
        return _folds(y, n_splits, random_state, max_train)
    key = (y.dtype.str, y.shape, hashlib.blake2b(np.ascontiguousarray(y).tobytes(), digest_size=16).digest(),
           int(n_splits), int(random_state), None if max_train is None else int(max_train))
    with _FOLDS_LOCK:
        folds = _FOLDS.get(key)
    if folds is None:
        folds = _folds(y, n_splits, random_state, max_train)
        for tr, te in folds:
            tr.setflags(write=False)
            te.setflags(write=False)
        with _FOLDS_LOCK:
            if len(_FOLDS) >= 8:
                _FOLDS.pop(next(iter(_FOLDS)))
            _FOLDS[key] = folds
    return list(folds)


_FOLDS: dict[tuple, list] = {}
_FOLDS_LOCK = threading.Lock()


def stratified_subset(y: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
    """Indices (increasing) of ``size`` samples of ``y`` drawn without replacement, each class
    represented in proportion to its count (largest remainders; at least one sample of each class
    when ``size`` allows).  All of ``y`` when ``size >= len(y)``."""
    n = len(y)
    if size >= n:
        return np.arange(n)
    classes, inverse, counts = np.unique(y, return_inverse=True, return_counts=True)
    quota = counts * (size / n)
    take = np.floor(quota).astype(np.int64)
    if size >= len(classes):
        take = np.maximum(take, 1)
    rest = size - int(take.sum())
    if rest > 0:
        room = np.flatnonzero(take < counts)
        frac = (quota - take)[room]
        take[room[np.argsort(-frac, kind="stable")[:rest]]] += 1
    elif rest < 0:  # the minimum of one per class overshot: trim the largest classes
        for c in np.argsort(-take, kind="stable")[:-rest]:
            take[c] -= 1
    out = [rng.choice(np.flatnonzero(inverse == c), size=int(k), replace=False) for c, k in enumerate(take) if k]
    return np.sort(np.concatenate(out)) if out else np.zeros(0, dtype=np.intp)


def _folds(y: np.ndarray, n_splits: int, random_state: Any, max_train: int | None = None):
    _, counts = np.unique(y, return_counts=True)
    if counts.min() < n_splits:
        raise ValidationError(
            f"the smallest class has {counts.min()} sample(s), fewer than n_splits={n_splits}; "
            "lower n_splits or add samples"
        )
    folds = list(StratifiedKFold(n_splits, shuffle=True, random_state=random_state).split(np.zeros(len(y)), y))
    if max_train is None:
        return folds
    seed = int(random_state) % 2**63 if isinstance(random_state, (int, np.integer)) else 0
    return [(tr[stratified_subset(y[tr], int(max_train), np.random.default_rng([seed, k, 0x6D6178]))]
             if len(tr) > max_train else tr, te) for k, (tr, te) in enumerate(folds)]


def majority_accuracy(y_train: np.ndarray, y_test: np.ndarray) -> float:
    vals, counts = np.unique(y_train, return_counts=True)
    return float(np.mean(y_test == vals[np.argmax(counts)]))


def _matrix(X: Any):
    return design_matrix(as_values(X))


class DuplicateMerger(TransformerMixin, BaseEstimator):
    """Merge features equal on every training sample into one column (``sqrt(k)`` times
    their mean): an exact, faster stand-in for the original columns under an
    L2-regularized linear model (see :func:`merge_matrix`).

    Accepts :class:`~metafx.plugin.FeatureValues` or a 2-D array; ``transform`` returns the
    design matrix (CSR when sparse and binary, dense otherwise).
    """

    def fit(self, X: Any, y: Any = None) -> DuplicateMerger:
        values = as_values(X)
        self.merge_ = merge_matrix(values)
        self.n_features_in_ = values.n_features
        self.n_groups_ = int(self.merge_.shape[1])
        return self

    def transform(self, X: Any):
        values = as_values(X)
        if values.n_features != self.n_features_in_:
            raise ValidationError(f"X has {values.n_features} features; the merger was fitted on "
                                  f"{self.n_features_in_}")
        return design_matrix(values, self.merge_)


def fit_linear_svm(X: Any, y: np.ndarray, C: float | str = "cv", Cs: Sequence[float] = DEFAULT_CS,
                   n_splits: int = 3, random_state: int = 0, merge_duplicates: bool = True) -> Pipeline:
    """A fitted pipeline (duplicate merger, ``LinearSVC``); with ``C="cv"`` the SVM's ``C``
    is the best of ``Cs`` by stratified k-fold CV on ``(X, y)``.  ``pipeline[-1].C`` is the ``C`` used."""
    if (isinstance(C, str) and C != "cv") or (not isinstance(C, str) and not C > 0):
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
