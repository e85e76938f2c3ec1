"""Input validation: one checker for each kind of argument.

Every checker raises :class:`~metafx.ValidationError` with a message that names
the parameter, the value received and what is allowed, and returns the value
in the form the caller needs.  Components validate in ``check_params`` (called
by :func:`metafx.plugin.make_component` and before a search), never in ``__init__``.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import Any, Literal, cast, overload

import numpy as np

from .exceptions import ValidationError
from .values import FeatureValues

__all__ = [
    "check_binary_images",
    "check_choice",
    "check_costs",
    "check_int",
    "check_label_types",
    "check_labels",
    "check_n_jobs",
    "check_number",
    "check_regression_target",
    "check_seed",
    "check_table",
    "check_xy",
    "not_binary_message",
    "split_indices",
]

#: the largest seed accepted (numpy's generators take any non-negative integer; JSON and optuna keep 63 bits)
MAX_SEED = 2**63 - 1


# --------------------------------------------------------------------------- scalars
@overload
def check_int(name: str, value: Any, low: int | None = None, *, high: int | None = None,
              allow_none: Literal[False] = False) -> int: ...
@overload
def check_int(name: str, value: Any, low: int | None = None, *, high: int | None = None,
              allow_none: bool) -> int | None: ...
def check_int(name: str, value: Any, low: int | None = None, *, high: int | None = None,
              allow_none: bool = False) -> int | None:
    """``value`` as an ``int`` in ``[low, high]`` (``None`` passes when ``allow_none``)."""
    if value is None and allow_none:
        return None
    ok = not isinstance(value, bool) and isinstance(value, numbers.Integral)
    if ok and ((low is not None and value < low) or (high is not None and value > high)):
        ok = False
    if not ok:
        if low is not None and high is not None:
            rng = f" in [{low}, {high}]"
        elif low is not None:
            rng = f" >= {low}"
        elif high is not None:
            rng = f" <= {high}"
        else:
            rng = ""
        more = " or None" if allow_none else ""
        raise ValidationError(f"{name}={value!r} must be an integer{rng}{more}")
    return int(value)


@overload
def check_number(name: str, value: Any, *, low: float | None = None, high: float | None = None,
                 strict: bool = False, allow_none: Literal[False] = False) -> float: ...
@overload
def check_number(name: str, value: Any, *, low: float | None = None, high: float | None = None,
                 strict: bool = False, allow_none: bool) -> float | None: ...
def check_number(name: str, value: Any, *, low: float | None = None, high: float | None = None,
                 strict: bool = False, allow_none: bool = False) -> float | None:
    """``value`` as a finite ``float`` above ``low`` (``strict``: ``> low``) and at most ``high``."""
    if value is None and allow_none:
        return None
    ok = not isinstance(value, bool) and isinstance(value, numbers.Real) and math.isfinite(float(value))
    if ok and low is not None:
        ok = float(value) > low if strict else float(value) >= low
    if ok and high is not None:
        ok = float(value) <= high
    if not ok:
        bound = "" if low is None else f" {'>' if strict else '>='} {low:g}"
        if high is not None:
            bound += f"{' and' if bound else ''} <= {high:g}"
        more = " or None" if allow_none else ""
        raise ValidationError(f"{name}={value!r} must be a finite number{bound}{more}")
    return float(value)


def check_choice(name: str, value: Any, allowed: Sequence[Any]) -> Any:
    """``value`` when it is one of ``allowed``."""
    if isinstance(value, bool) or value not in allowed:
        raise ValidationError(f"{name}={value!r} is not allowed; choose one of {', '.join(map(repr, allowed))}")
    return value


def check_seed(seed: Any, name: str = "seed") -> int:
    """A seed: an integer in ``[0, 2**63 - 1]``."""
    return check_int(name, seed, 0, high=MAX_SEED)


def check_n_jobs(n_jobs: Any) -> int:
    """``n_jobs`` as a positive count of processes (``-1``: every CPU, ``None``: 1)."""
    if n_jobs is None:
        return 1
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral) or (n_jobs < 1 and n_jobs != -1):
        raise ValidationError(f"n_jobs={n_jobs!r} must be a positive integer or -1 (all CPUs)")
    if n_jobs == -1:
        import os

        return max(1, os.cpu_count() or 1)
    return int(n_jobs)


# --------------------------------------------------------------------------- data
def check_labels(y: Any, n_samples: int | None = None, *, min_classes: int = 2, name: str = "y",
                 continuous_ok: bool = True) -> np.ndarray:
    """Validate a label vector: 1-D, no NaN, at least ``min_classes`` classes.

    Class labels are integers, strings or integral floats; a float vector with
    a fractional value (a continuous target) is refused with
    ``continuous_ok=False`` (classifiers, whose library would fail with a
    less clear message or treat every distinct value as a class).
    """
    check_label_types(y, name)  # before numpy turns [1, "a"] into ["1", "a"]
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        y = y.ravel()
    if y.ndim != 1:
        raise ValidationError(f"{name} must be 1-D (n_samples,), got shape {y.shape}")
    if n_samples is not None and y.shape[0] != n_samples:
        raise ValidationError(f"X has {n_samples} samples but {name} has {y.shape[0]} labels; they must match")
    if y.dtype.kind == "f" and np.isnan(y).any():
        raise ValidationError(f"{name} contains NaN at index {int(np.flatnonzero(np.isnan(y))[0])}")
    if y.dtype.kind == "O" and any(v is None for v in y):
        raise ValidationError(f"{name} contains None")
    if y.dtype.kind == "f" and not continuous_ok and y.size:
        frac = np.flatnonzero((y != np.round(y)) | ~np.isfinite(y))
        if frac.size:
            raise ValidationError(
                f"{name} holds a non-integer value ({y[frac[0]].item()!r} at index {int(frac[0])}): a classifying "
                "evaluator needs class labels (integers or strings); for a continuous target use a regression "
                "evaluator or scorer")
    n_classes = len(np.unique(y)) if y.size else 0
    if n_classes < min_classes:
        raise ValidationError(f"{name} has {n_classes} class(es); at least {min_classes} are needed")
    return cast("np.ndarray", y)


def check_label_types(y: Any, name: str = "y") -> None:
    """The one label-type rule of every entry point (:func:`metafx.search`, the command line,
    :class:`metafx.MetaFeatureExtractor`, the tabular plugin's ``TableExtractor``): labels do not mix strings
    and numbers.  Checked on the labels as given (a list, a tuple, an object array or Series), before NumPy
    turns ``[1, "a"]`` into ``["1", "a"]``."""
    if isinstance(y, (list, tuple)) or getattr(getattr(y, "dtype", None), "kind", None) == "O":
        _check_one_label_type(list(y) if not isinstance(y, (list, tuple)) else y, name)


def _check_one_label_type(y: Any, name: str) -> None:
    """Refuse labels mixing strings and numbers (as scikit-learn's "Mix of label input types")."""
    first_str = first_other = None
    for i, v in enumerate(y):
        if isinstance(v, (str, np.str_)):
            first_str = i if first_str is None else first_str
        elif v is not None:
            first_other = i if first_other is None else first_other
        if first_str is not None and first_other is not None:
            raise ValidationError(
                f"{name} mixes label types: {y[first_str]!r} (a string) at index {first_str} and "
                f"{y[first_other]!r} ({type(y[first_other]).__name__}) at index {first_other}; give labels of one type")


def check_binary_images(
    X: Any, image_shape: Sequence[int] | None = None, *, name: str = "X"
) -> np.ndarray:
    """Validate binary images: ``(n, H, W)``, or ``(n, H*W)`` with ``image_shape``.

    Returns a C-contiguous ``(n, H, W)`` uint8 array of 0/1.
    """
    X = np.asarray(X)
    flat = X.ndim == 2
    if X.dtype.kind not in "biuf":
        raise ValidationError(f"{name} must be numeric 0/1 images, got dtype {X.dtype}"
                              + (TABLE_HINT if flat else ""))
    if X.ndim == 2:
        if image_shape is None:
            side = int(round(np.sqrt(X.shape[1])))
            if side * side != X.shape[1]:
                raise ValidationError(
                    f"{name} has shape {X.shape}: flat images of {X.shape[1]} pixels are not square; "
                    f"pass image_shape=(H, W) or give X as (n_samples, H, W){TABLE_HINT}"
                )
            image_shape = (side, side)
        h, w = image_shape
        if h * w != X.shape[1]:
            raise ValidationError(f"{name} has {X.shape[1]} pixels per sample but image_shape={image_shape} needs {h * w}")
        X = X.reshape(X.shape[0], h, w)
    elif X.ndim == 3:
        if image_shape is not None and tuple(image_shape) != X.shape[1:]:
            raise ValidationError(f"{name} has images of shape {X.shape[1:]} but image_shape={tuple(image_shape)}")
    else:
        raise ValidationError(f"{name} must be (n_samples, H, W) or (n_samples, H*W), got shape {X.shape}")
    if X.shape[0] == 0:
        raise ValidationError(f"{name} has no samples")
    if X.dtype.kind == "f" and np.isnan(X).any():
        raise ValidationError(f"{name} contains NaN; binary images must be 0/1")
    if X.dtype != bool:
        bad = (X != 0) & (X != 1)
        if bad.any():
            raise ValidationError(not_binary_message(X, name, flat=flat))
    return np.ascontiguousarray(X, dtype=np.uint8)


#: appended to image-format errors on 2-D input: a table given to an image family
TABLE_HINT = ('; if X is a table (samples x measured columns, not pixels), use family="tabular" '
              "(the metafx-tabular plugin)")


def not_binary_message(X: np.ndarray, name: str = "X", *, flat: bool = False, how: str = "") -> str:
    """Why ``X`` is no 0/1 image array, with the fix: the threshold that suits its values (half the largest:
    8 for 0-16 digits, 128 for 8-bit grey levels), and for a 2-D ``X`` of fractional values, the tabular family.

    ``how`` is the way to binarize in the caller's words (default: ``(X >= T)`` done first).
    """
    X = np.asarray(X)
    bad = (X != 0) & (X != 1)
    v = X[bad].flat[0].item()  # a Python number: its repr is 5.0, not np.float64(5.0)
    lo, hi = float(X.min()), float(X.max())
    fractional = X.dtype.kind == "f" and bool(np.any(X != np.round(X)))
    if fractional and hi <= 1 and lo >= 0:
        t, why = "0.5", "the middle of [0, 1]"
    elif not fractional and 128 <= hi <= 255 and lo >= 0:
        t, why = "128", "the middle of 8-bit grey levels"
    else:
        t = f"{hi / 2:.3g}" if fractional else str(int(np.ceil(hi / 2)))
        why = "half the largest value"
    fix = how.format(t=t) if how else f"binarize first, e.g. (X >= {t}).astype(np.uint8)"
    head = f"{name} is not binary (found value {v!r}; values in [{lo:g}, {hi:g}]); this family needs 0/1 images"
    if flat and (fractional or lo < 0):  # measured values rather than grey levels: a table, most likely
        return (f"{head}. If X is a table (samples x measured columns, not pixels), use family=\"tabular\" "
                f"(the metafx-tabular plugin); if it holds grey images, {fix} (a pixel is 1 where X >= T)")
    return f"{head}: {fix} (a pixel is 1 where X >= T; {t} is {why})"


def check_table(X: Any, *, name: str = "X") -> np.ndarray:
    """Validate a numeric table ``(n_samples, n_features)`` without NaN or inf."""
    X = np.asarray(X)
    if X.ndim != 2:
        raise ValidationError(f"{name} must be 2-D (n_samples, n_features), got shape {X.shape}")
    if X.dtype.kind not in "biuf":
        raise ValidationError(f"{name} must be numeric, got dtype {X.dtype}")
    X = X.astype(np.float64, copy=False)
    if not np.isfinite(X).all():
        raise ValidationError(f"{name} contains NaN or infinite values")
    return cast("np.ndarray", X)


def split_indices(n: int, n_train: int, n_test: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Disjoint random train and test indices (without replacement)."""
    check_int("n_train", n_train)
    check_int("n_test", n_test)
    check_seed(seed, "split_seed")
    if n_train < 1:
        raise ValidationError(f"n_train={n_train} must be at least 1")
    if n_test < 0:
        raise ValidationError(f"n_test={n_test} must be 0 or more")
    if n_train + n_test > n:
        raise ValidationError(f"n_train + n_test = {n_train + n_test} exceeds the {n} samples available")
    perm = np.random.default_rng(seed).permutation(n)
    return np.sort(perm[:n_train]), np.sort(perm[n_train : n_train + n_test])


# --------------------------------------------------------------------------- arrays
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
    return cast("np.ndarray", y)


def check_xy(X: Any, y: Any, *, min_classes: int = 1, task: str = "classification",
             continuous_ok: bool = True) -> tuple[FeatureValues, np.ndarray]:
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
    return values, check_labels(y, values.n_samples, min_classes=min_classes, continuous_ok=continuous_ok)


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
