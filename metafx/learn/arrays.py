"""Small array helpers shared by the evaluators and the nearest-neighbour tools."""

from __future__ import annotations

import numpy as np

from .._kernels.packing import pack_columns
from ..core.validation import check_choice
from ..core.values import FeatureValues

__all__ = ["UTILITIES", "binary_rows", "dense_float", "encode_labels", "utility_code"]

#: utility functions of the margin evaluation function (thesis section 3.4)
UTILITIES = ("linear", "zero-one", "sigmoid")


def encode_labels(y: np.ndarray) -> tuple[np.ndarray, int]:
    """Class codes ``0..K-1`` (in sorted label order) and ``K``."""
    classes, codes = np.unique(y, return_inverse=True)
    return np.ascontiguousarray(codes.ravel(), dtype=np.int64), int(classes.shape[0])


def dense_float(values: FeatureValues) -> np.ndarray:
    """C-contiguous float64 ``(n_samples, n_features)`` matrix."""
    return np.ascontiguousarray(values.dense(np.float64), dtype=np.float64)


def utility_code(utility: str) -> int:
    """0 linear, 1 zero-one, 2 sigmoid (the kernels' encoding)."""
    return UTILITIES.index(check_choice("utility", utility, UTILITIES))


def binary_rows(values: FeatureValues) -> np.ndarray | None:
    """Binary values as bit-packed *rows* ``(m, ceil(N/64))`` (for Hamming distances), else ``None``."""
    if values.packed is None:
        dense = getattr(values, "_dense", None)
        if dense is None or not values.binary:
            return None
        X = dense
    else:
        X = values.dense(np.uint8)
    return pack_columns(np.ascontiguousarray(np.asarray(X, dtype=np.uint8).T))
