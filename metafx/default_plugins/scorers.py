"""Per-feature scorers: one quality number per column (higher is better).

``infogain``
    Mutual information (nats) between each discrete column and the label
    (thesis section 1.2.1); median binarization of continuous columns;
    optional pseudo-count; optional division by per-feature costs.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..base import FeatureScorer
from ..exceptions import ValidationError
from ..types import FeatureValues
from .evaluator_utils import check_choice, check_costs, check_number, check_xy, encode_labels

__all__ = ["Infogain", "infogain_table", "median_binarize"]


def raw_matrix(values: FeatureValues) -> np.ndarray:
    """The dense matrix in its own dtype (unpacked as uint8 for packed values)."""
    dense = getattr(values, "_dense", None)
    return dense if dense is not None else values.dense(np.uint8)


def median_binarize(X: np.ndarray) -> np.ndarray:
    """``X > median`` column by column (uint8), thesis section 4.3 footnote 2."""
    X = np.asarray(X, dtype=np.float64)
    if X.shape[0] == 0:
        return np.zeros(X.shape, dtype=np.uint8)
    return (X > np.median(X, axis=0)).astype(np.uint8)


def infogain_table(joint: np.ndarray, pseudo_count: float = 0.0) -> float:
    """Mutual information (nats) of a ``(n_values, n_classes)`` contingency table.

    ``pseudo_count`` is added to every cell before normalizing.
    """
    t = np.asarray(joint, dtype=np.float64) + pseudo_count
    total = t.sum()
    if total <= 0:
        return 0.0
    rows = t.sum(axis=1, keepdims=True)
    cols = t.sum(axis=0, keepdims=True)
    nz = t > 0
    outer = (rows * cols)[nz]
    val = t[nz]
    mi = float(np.sum(val / total * (np.log(val) - np.log(outer) + np.log(total))))
    return max(mi, 0.0)


def _is_binary(X: np.ndarray) -> bool:
    if X.dtype == bool:
        return True
    if X.dtype.kind == "u":
        return bool((X <= 1).all())
    return bool(((X == 0) | (X == 1)).all())


class Infogain(FeatureScorer):
    """Infogain: mutual information between each feature and the label, in nats.

    ``IG(f) = sum_ij P_ij ln(P_ij / (P_i. P_.j))`` over the empirical joint
    distribution of the feature's values ``i`` and the classes ``j``.  With
    ``pseudo_count=0`` (default) it equals
    ``sklearn.metrics.mutual_info_score(y, X[:, j])`` for every column.

    Parameters
    ----------
    pseudo_count : float, default 0
        Zero correction: added to the count of every cell (feature value x
        class) before normalizing.  The value alphabet is ``{0, 1}`` for
        binary columns and the observed values otherwise; the class alphabet
        is the labels present in ``y``.
    binarize : {"auto", "median", "none"}, default "auto"
        ``"auto"``: a column holding a non-integer value is replaced by
        ``x > median(x)``; integer columns are used as they are.  ``"median"``:
        every column is median-binarized.  ``"none"``: every distinct value is
        a category.
    binarize_target : {"auto", "median", "none"}, default "auto"
        The same for ``y`` (``"auto"`` binarizes a target holding non-integer
        values, the regression use of thesis section 4.3).
    costs : array of shape (n_features,), optional
        Positive per-feature costs; the score becomes ``IG / cost``
        (thesis section 5.3.2, "normalized" Infogain).

    Examples
    --------
    >>> import numpy as np, metafx
    >>> X = np.array([[0, 1], [0, 0], [1, 1], [1, 0]])
    >>> metafx.score_features(X, [0, 0, 1, 1], "infogain").round(4)
    array([0.6931, 0.    ])
    """

    name = "infogain"
    summary = "mutual information of each feature with the label (nats); optional pseudo-count, costs"

    def __init__(self, pseudo_count: float = 0.0, binarize: str = "auto", binarize_target: str = "auto",
                 costs: Any = None) -> None:
        self.pseudo_count = pseudo_count
        self.binarize = binarize
        self.binarize_target = binarize_target
        self.costs = costs
        check_number("pseudo_count", pseudo_count, low=0.0)
        check_choice("binarize", binarize, ("auto", "median", "none"))
        check_choice("binarize_target", binarize_target, ("auto", "median", "none"))

    def _target(self, y: np.ndarray) -> np.ndarray:
        mode = self.binarize_target
        if mode == "median" or (mode == "auto" and y.dtype.kind == "f" and np.any(y != np.round(y))):
            return median_binarize(y.reshape(-1, 1)).ravel()
        return y

    def score(self, X, y) -> np.ndarray:
        values, y = check_xy(X, y)
        costs = check_costs(self.costs, values.n_features)
        codes, n_classes = encode_labels(self._target(y))
        pseudo = float(self.pseudo_count)
        if values.n_features == 0:
            return np.zeros(0)
        if values.packed is not None:
            scores = self._binary_packed(values.packed, codes, n_classes, pseudo)
        else:
            scores = self._dense(raw_matrix(values), codes, n_classes, pseudo)
        return scores / costs if costs is not None else scores

    @staticmethod
    def _binary_packed(packed, codes, n_classes, pseudo):
        from .._kernels.scoring import class_masks, mutual_info_from_counts, packed_class_counts

        ones = packed_class_counts(packed, class_masks(codes, n_classes))
        return mutual_info_from_counts(ones, np.bincount(codes, minlength=n_classes), pseudo)

    @staticmethod
    def _binary_dense(X, codes, n_classes, pseudo):
        from .._kernels.scoring import dense_binary_class_counts, mutual_info_from_counts

        ones = dense_binary_class_counts(X, codes, n_classes)
        return mutual_info_from_counts(ones, np.bincount(codes, minlength=n_classes), pseudo)

    def _dense(self, X, codes, n_classes, pseudo):
        if self.binarize == "median":
            return self._binary_dense(median_binarize(X), codes, n_classes, pseudo)
        if self.binarize == "auto" and X.dtype.kind == "f":
            cont = np.any(X != np.round(X), axis=0)
            if cont.any():
                X = X.copy()
                X[:, cont] = median_binarize(X[:, cont])
        if _is_binary(X):
            return self._binary_dense(X, codes, n_classes, pseudo)
        out = np.empty(X.shape[1])
        for j in range(X.shape[1]):
            col = X[:, j]
            if _is_binary(col):
                inv = col.astype(np.int64)
                n_values = 2
            else:
                _, inv = np.unique(col, return_inverse=True)
                inv = inv.ravel()
                n_values = int(inv.max()) + 1
            joint = np.bincount(inv * n_classes + codes, minlength=n_values * n_classes)
            out[j] = infogain_table(joint.reshape(n_values, n_classes), pseudo)
        return out
