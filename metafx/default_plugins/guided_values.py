"""Helpers of the ``guided`` engine on feature values: joining two sets' values, the bit-packed rows the ``cmim``
selector needs, and the mask of features that repeat an earlier one's values."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._kernels.packing import pack_columns
from .._kernels.repeats import first_of_repeats
from ..core.exceptions import ValidationError
from ..core.values import FeatureValues

__all__: list[str] = []


def _joined(a: FeatureValues, b: FeatureValues) -> FeatureValues:
    """The features of ``a`` then those of ``b`` (same samples)."""
    if a.packed is not None and b.packed is not None:
        return FeatureValues(n_samples=a.n_samples, packed=np.concatenate([a.packed, b.packed]))
    return FeatureValues(n_samples=a.n_samples, dense=np.hstack([a.dense(np.float64), b.dense(np.float64)]))


def _packed_binary(values: Any) -> np.ndarray:
    """Bit-packed rows of binary feature values (``selector="cmim"``)."""
    if values.packed is not None:
        return values.packed
    X = values.dense(np.float64)
    if not np.all((X == 0) | (X == 1)):
        raise ValidationError("selector='cmim' needs binary (0/1) features; this family's values are not; "
                              "use selector='filter'")
    return pack_columns(X.astype(np.uint8))


def _first_of_repeats(values: Any) -> np.ndarray:
    """Mask of the features that do not repeat an earlier one's values."""
    if values.packed is not None:
        return first_of_repeats(values.packed)
    keep = np.zeros(values.n_features, dtype=bool)
    keep[values.duplicate_groups()[1]] = True
    return keep
