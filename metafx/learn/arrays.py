"""Input checks and small helpers shared by the quality evaluators."""

from __future__ import annotations

import numbers
from typing import Any, Sequence

import numpy as np

from ..data import check_labels
from ..exceptions import ValidationError
from ..types import FeatureValues

__all__ = [
    "check_xy",
    "check_regression_target",
    "encode_labels",
    "dense_float",
    "check_choice",
    "check_int",
    "check_number",
    "check_costs",
    "UTILITIES",
    "utility_code",
    "binary_rows",
]

#: utility functions of the margin evaluation function (thesis section 3.4)
UTILITIES = ("linear", "zero-one", "sigmoid")


def check_xy(X: Any, y: Any, *, min_classes: int = 1, task: str = "classification") -> tuple[FeatureValues, np.ndarray]:
    """``X`` as :class:`FeatureValues` (finite values) and ``y`` checked against it."""
    if isinstance(X, FeatureValues):
        values = X
    else:
        arr = np.asarray(X)
        if arr.ndim != 2:
            raise ValidationError(f"X must be 2-D (n_samples, n_features), got shape {arr.shape}")
        if arr.dtype.kind not in "biuf":
            raise ValidationError(f"X must be numeric, got dtype {arr.dtype}")
        if arr.dtype.kind == "f" and arr.size and not np.isfinite(arr).all():
            bad = np.argwhere(~np.isfinite(arr))[0]
            raise ValidationError(f"X holds a non-finite value at row {bad[0]}, column {bad[1]}")
        values = FeatureValues.from_dense(arr)
    if task == "regression":
        return values, check_regression_target(y, values.n_samples)
    return values, check_labels(y, values.n_samples, min_classes=min_classes)


def check_regression_target(y: Any, n_samples: int) -> np.ndarray:
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        y = y.ravel()
    if y.ndim != 1:
        raise ValidationError(f"y must be 1-D (n_samples,), got shape {y.shape}")
    if y.shape[0] != n_samples:
        raise ValidationError(f"X has {n_samples} samples but y has {y.shape[0]} targets; they must match")
    if y.dtype.kind not in "biuf":
        raise ValidationError(f"y must be numeric for a regression scorer, got dtype {y.dtype}")
    y = y.astype(np.float64)
    if not np.isfinite(y).all():
        raise ValidationError(f"y holds a non-finite value at index {int(np.flatnonzero(~np.isfinite(y))[0])}")
    return y


def encode_labels(y: np.ndarray) -> tuple[np.ndarray, int]:
    """Class codes ``0..K-1`` (in sorted label order) and ``K``."""
    classes, codes = np.unique(y, return_inverse=True)
    return np.ascontiguousarray(codes.ravel(), dtype=np.int64), int(classes.shape[0])


def dense_float(values: FeatureValues) -> np.ndarray:
    """C-contiguous float64 ``(n_samples, n_features)`` matrix."""
    return np.ascontiguousarray(values.dense(np.float64), dtype=np.float64)


def check_choice(name: str, value: Any, allowed: Sequence[str]) -> str:
    if not isinstance(value, str) or value not in allowed:
        raise ValidationError(f"{name}={value!r} is not allowed; choose one of {', '.join(map(repr, allowed))}")
    return value


def check_int(name: str, value: Any, low: int, *, allow_none: bool = False) -> int | None:
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
        more = " or None" if allow_none else ""
        raise ValidationError(f"{name}={value!r} must be an integer >= {low}{more}")
    return int(value)


def check_number(name: str, value: Any, *, low: float | None = None, strict: bool = False,
                 allow_none: bool = False) -> float | None:
    if value is None and allow_none:
        return None
    ok = not isinstance(value, bool) and isinstance(value, numbers.Real) and np.isfinite(float(value))
    if ok and low is not None:
        ok = float(value) > low if strict else float(value) >= low
    if not ok:
        bound = "" if low is None else f" {'>' if strict else '>='} {low:g}"
        raise ValidationError(f"{name}={value!r} must be a finite number{bound}")
    return float(value)


def check_costs(costs: Any, n_features: int) -> np.ndarray | None:
    if costs is None:
        return None
    c = np.asarray(costs, dtype=np.float64).ravel() if not isinstance(costs, str) else None
    if c is None or c.shape[0] != n_features:
        raise ValidationError(
            f"costs must hold one positive number per feature ({n_features}), got "
            f"{'a string' if c is None else f'{c.shape[0]} value(s)'}"
        )
    if not (np.isfinite(c).all() and (c > 0).all()):
        raise ValidationError("costs must be positive finite numbers")
    return c


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
    from .._kernels.packing import pack_columns

    return pack_columns(np.ascontiguousarray(np.asarray(X, dtype=np.uint8).T))
