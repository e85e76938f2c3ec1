"""Checks of values read from outside (arguments, study specs, result metadata, environment, storage errors).

Each raises :class:`~metafx.ValidationError` (or :class:`~metafx.StorageError`
for what a storage holds) naming the field, the value and what is allowed;
nothing is coerced (``True`` is no count, ``"3"`` no number).
"""

from __future__ import annotations

import inspect
import math
import numbers
import os
from collections.abc import Callable, Mapping
from typing import Any

from ..core.exceptions import StorageError, ValidationError
from ..core.validation import MAX_SEED

__all__ = [
    "MAX_FEATURES_PER_SAMPLE",
    "check_call_types",
    "check_fixed",
    "check_numba_threads",
    "check_spec_fields",
    "data_record",
]

#: most features per training sample a budget may allow (``budget / min_cost / n_samples``): beyond it the
#: final linear fit on a dense ``n_samples x n_features`` design runs for many minutes to hours
MAX_FEATURES_PER_SAMPLE = 20


def _is_int(v: Any) -> bool:
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


def _is_real(v: Any) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, bool) and math.isfinite(float(v))


def check_fixed(space: Any, fixed: Any) -> dict[str, Any] | None:
    """``fixed`` (meta-features held fixed) checked to be a mapping of ``space``'s meta-feature names.

    The values are checked by the space's dimensions (:meth:`metafx.plugin.Dimension.check`): a numeric
    dimension takes a number, not a boolean (``True`` is not 1) nor a string (``"3"`` is not 3).
    """
    if fixed is None:
        return None
    if not isinstance(fixed, Mapping):
        raise ValidationError(f"fixed={fixed!r} must be a mapping of meta-feature names to values, "
                              f"e.g. {{{space.names[0]!r}: ...}}")
    for name in fixed:
        if name not in space.names:
            raise ValidationError(f"fixed holds unknown meta-feature {name!r}; this space has: {', '.join(space.names)}")
    return dict(fixed)


#: the fields of a study's problem spec and their checks: (test, what is allowed)
_SPEC_FIELDS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "data": (lambda v: isinstance(v, str) and v != "", "a dataset name"),
    "data_params": (lambda v: isinstance(v, dict), "an object"),
    "n_train": (lambda v: _is_int(v) and v >= 1, "an integer >= 1"),
    "n_test": (lambda v: _is_int(v) and v >= 0, "an integer >= 0"),
    "split_seed": (lambda v: _is_int(v) and 0 <= v <= MAX_SEED, f"an integer in [0, {MAX_SEED}]"),
    "family": (lambda v: isinstance(v, str) and v != "", "a family name"),
    "family_params": (lambda v: isinstance(v, dict), "an object"),
    "fixed": (lambda v: isinstance(v, dict), "an object"),
    "budget": (lambda v: _is_real(v) and v > 0, "a finite number > 0"),
    "steps": (lambda v: _is_int(v) and v >= 1, "an integer >= 1"),
    "seed": (lambda v: _is_int(v) and 0 <= v <= MAX_SEED, f"an integer in [0, {MAX_SEED}]"),
    "evaluator": (lambda v: isinstance(v, str) and v != "", "an evaluator name"),
    "evaluator_params": (lambda v: isinstance(v, dict), "an object"),
    "engine_params": (lambda v: isinstance(v, dict), "an object"),
    "oversample": (lambda v: _is_real(v) and 1 <= v <= 1000, "a number in [1, 1000]"),
    "prune_by": (lambda v: isinstance(v, str) and v != "", "a scorer name"),
}


def check_spec_fields(spec: Any, where: str, steps: Any = None) -> None:
    """Check the problem spec a study holds (JSON from its storage) before anything uses it.

    Every field must have its type (see :class:`metafx.distributed.ProblemSpec`);
    ``steps`` is the study's separate step count, when it has one.  A damaged
    or edited spec raises :class:`~metafx.StorageError` naming the field.
    """
    if not isinstance(spec, Mapping):
        raise StorageError(f"{where} holds a damaged problem spec ({type(spec).__name__}, not an object)")
    for name, value in spec.items():
        check = _SPEC_FIELDS.get(name)
        if check is not None and not check[0](value):
            raise StorageError(f"{where} holds a damaged problem spec: {name}={value!r} must be {check[1]}")
    if steps is not None and not (_is_int(steps) and steps >= 0):
        raise StorageError(f"{where} holds a damaged step count {steps!r} (must be an integer >= 0)")


def data_record(metadata: Any) -> dict[str, Any] | None:
    """The data a command-line search recorded in ``metadata["data"]``, checked; None when none is recorded.

    ``{"name": str, "n_train": int >= 1, "n_test": int >= 0, "split_seed": seed, "data_dir": str (optional)}``;
    anything else raises :class:`~metafx.ValidationError` naming the field.
    """
    d = metadata.get("data") if isinstance(metadata, Mapping) else None
    if d is None:
        return None
    if not isinstance(d, Mapping) or ("name" not in d and "path" not in d):
        raise ValidationError(f"metadata.data={d!r} must be an object naming the dataset or the data file "
                              "(name or path, n_train, ...)")
    checks = {"name": _SPEC_FIELDS["data"], "n_train": _SPEC_FIELDS["n_train"], "n_test": _SPEC_FIELDS["n_test"],
              "split_seed": _SPEC_FIELDS["split_seed"],
              "data_dir": (lambda v: isinstance(v, str) and v != "", "a directory path")}
    out: dict[str, Any] = {"n_test": 0, "split_seed": 0}
    for name, value in d.items():
        if name in checks and not checks[name][0](value):
            raise ValidationError(f"metadata.data.{name}={value!r} must be {checks[name][1]}")
        out[name] = value
    if "n_train" not in out:
        raise ValidationError("metadata.data has no n_train")
    return out


def check_call_types(fn: Callable[..., Any], params: Mapping[str, Any], name: str) -> None:
    """Refuse values of ``params`` whose type cannot be that of ``fn``'s parameter of the same name.

    Judged from the parameter's default: a default ``bool`` takes a boolean,
    an ``int`` an integer, a ``float`` a number (never a boolean or a string);
    other defaults (``None``, callables, strings) are left to ``fn``.  So a
    keyword that a constructor only stores (optuna's ``n_startup_trials="x"``)
    is refused at once instead of failing at the first trial.
    """
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return
    for key, value in params.items():
        p = sig.parameters.get(key)
        if p is None or p.default is inspect.Parameter.empty:
            continue
        d = p.default
        if isinstance(d, bool):
            ok, what = isinstance(value, bool), "true or false"
        elif isinstance(d, int):
            ok, what = _is_int(value), "an integer"
        elif isinstance(d, float):
            ok, what = _is_real(value) or (isinstance(value, float) and math.isinf(value)), "a number"
        else:
            continue
        if not ok:
            raise ValidationError(f"{name}: {key}={value!r} must be {what} (default {d!r})")


def check_numba_threads(environ: Mapping[str, str] = os.environ) -> None:
    """Refuse a ``NUMBA_NUM_THREADS`` that numba cannot start with (an integer < 1), before numba is imported.

    numba reads the variable on import and raises a bare ``ValueError`` for
    0 or a negative number (a value that is no integer it ignores with a
    warning).
    """
    raw = environ.get("NUMBA_NUM_THREADS")
    if raw is None:
        return
    try:
        n = int(raw)
    except ValueError:
        return
    if n < 1:
        raise ValidationError(f"NUMBA_NUM_THREADS={raw!r} in the environment must be a positive integer (numba's "
                              "thread count): unset it or set it to 1 or more")
