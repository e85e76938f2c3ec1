"""Tables as users have them: the kinds of columns, and their numeric encoding.

The ``tabular`` family reads a table of three kinds of columns:

``numeric``
    numbers (booleans too); missing values are NaN (``None``, ``pd.NA``).
``categorical``
    strings, pandas ``category`` / ``string`` / ``object`` columns, or any
    column declared categorical with ``column_kinds``.  Encoded as integer
    codes ``0..L-1`` in order of decreasing training frequency; at most
    ``max_levels`` codes: the rarest categories share the last code
    ``"(other)"``.  A missing value, or a category not seen in training when
    there is no ``"(other)"`` code, is NaN.
``datetime``
    ``datetime64`` columns (pandas timestamps, time zones converted to UTC)
    and ``date`` / ``datetime`` objects.  Encoded as days since 1970-01-01
    (fractional: hours count); a missing value (NaT) is NaN.

:func:`infer_kinds` reads the kinds from the dtypes, :func:`learn_categories`
the categories, and :func:`encode` turns a table into the float matrix the
family computes on.  pandas is needed for tables that are not plain numeric
arrays.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from metafx.plugin import ValidationError

__all__ = [
    "KINDS",
    "OTHER",
    "EncodedTable",
    "check_frame_names",
    "encode",
    "frame_names",
    "infer_kinds",
    "is_frame",
    "learn_categories",
    "needs_encoding",
]

#: the kinds of columns
KINDS = ("numeric", "categorical", "datetime")
#: the shared code of the rarest categories
OTHER = "(other)"


class EncodedTable(np.ndarray):
    """A table already encoded by :func:`encode` (float, NaN where missing), carrying its schema.

    :meth:`TabularFamily.check_data` returns one, so that ``fit`` and
    ``prepare`` of the same call chain do not encode twice.
    """

    #: the schema; None on an array derived from one by a NumPy operation (a slice, arithmetic), which the
    #: family encodes again
    kinds: list[str] | None
    categories: list[Sequence[str] | None] | None
    names: list[str] | None

    @classmethod
    def make(cls, values: np.ndarray, kinds: Sequence[str], categories: Sequence[Sequence[str] | None],
             names: Sequence[str] | None) -> EncodedTable:
        out = np.ascontiguousarray(values, dtype=np.float64).view(cls)
        out.kinds, out.categories = list(kinds), list(categories)
        out.names = None if names is None else list(names)
        return out

    def __array_finalize__(self, obj: Any) -> None:
        self.kinds = getattr(obj, "kinds", None)
        self.categories = getattr(obj, "categories", None)
        self.names = getattr(obj, "names", None)


def is_frame(X: Any) -> bool:
    """True for a pandas DataFrame (duck-typed: ``columns``, ``dtypes``, ``iloc``)."""
    return hasattr(X, "columns") and hasattr(X, "dtypes") and hasattr(X, "iloc")


def frame_names(X: Any) -> list[str] | None:
    """Column names of a DataFrame as strings, else None."""
    return [str(c) for c in X.columns] if is_frame(X) else None


def check_frame_names(X: Any, fitted: Sequence[str] | None = None, what: str = "seen in fit") -> None:
    """Refuse a DataFrame with repeated column names, or (``fitted`` given) whose column names differ from those
    seen in fit, as scikit-learn's ``feature_names_in_`` does: columns are matched by name, never silently by
    position.  Arrays (no names) pass."""
    names = frame_names(X)
    if names is None:
        return
    repeated = sorted(n for n, count in Counter(names).items() if count > 1)
    if repeated:
        raise ValidationError(f"X has repeated column names {repeated}; give every column its own name")
    if fitted is None or list(names) == [str(n) for n in fitted]:
        return
    fitted = [str(n) for n in fitted]
    missing = [n for n in fitted if n not in names]
    extra = [n for n in names if n not in fitted]
    if missing or extra:
        why = (f"missing {missing}" if missing else "") + ("; " if missing and extra else "") + \
            (f"not among them {extra}" if extra else "")
    else:
        why = f"in another order {names} (fit: {fitted}); reorder them, e.g. X[{fitted}]"
    raise ValidationError(f"X's columns differ from those {what} (columns are matched by name): {why}")


def needs_encoding(X: Any) -> bool:
    """True unless ``X`` is a plain numeric (or boolean) array or nested list of numbers."""
    if is_frame(X):
        return True
    try:
        a = np.asarray(X)
    except (ValueError, TypeError):
        return True
    return a.dtype.kind not in "biuf"


def _as_frame(X: Any):
    import pandas as pd

    if is_frame(X):
        return X
    a = np.asarray(X, dtype=object) if not isinstance(X, np.ndarray) else X
    if a.ndim != 2:
        raise ValidationError(f"X must be 2-D (n_samples, n_features), got shape {a.shape}")
    return pd.DataFrame({j: a[:, j] for j in range(a.shape[1])})


def _kind_of(col) -> str:
    import pandas as pd
    from pandas.api import types as pt

    if pt.is_bool_dtype(col.dtype) or pt.is_numeric_dtype(col.dtype):
        return "numeric"
    if pt.is_datetime64_any_dtype(col.dtype):
        return "datetime"
    if isinstance(col.dtype, pd.CategoricalDtype):
        return "categorical"
    inferred = pd.api.types.infer_dtype(col, skipna=True)
    if inferred in ("integer", "floating", "mixed-integer-float", "decimal", "boolean", "empty"):
        return "numeric"
    if inferred in ("datetime", "datetime64", "date"):
        return "datetime"
    return "categorical"


def infer_kinds(X: Any, given: Sequence[str] | Mapping[Any, str] | None = None) -> list[str]:
    """The kind of every column: from ``given`` (a list, or ``{column index or name: kind}``), else from the dtype."""
    names = frame_names(X)
    if not needs_encoding(X):
        a = np.asarray(X)
        d = a.shape[1] if a.ndim == 2 else 0
        kinds = ["numeric"] * d
    else:
        df = _as_frame(X)
        d = df.shape[1]
        kinds = [_kind_of(df.iloc[:, j]) for j in range(d)]
    if given is None:
        return kinds
    if isinstance(given, Mapping):
        for key, kind in given.items():
            if isinstance(key, str) and names is not None and key in names:
                j = names.index(key)
            elif isinstance(key, (int, np.integer)) and not isinstance(key, bool) and 0 <= int(key) < d:
                j = int(key)
            else:
                raise ValidationError(f"column_kinds key {key!r} is neither a column index (0..{d - 1}) nor a column name")
            kinds[j] = kind
    else:
        if len(given) != d:
            raise ValidationError(f"column_kinds lists {len(given)} kinds but the table has {d} columns")
        kinds = [str(k) for k in given]
    bad = [k for k in kinds if k not in KINDS]
    if bad:
        raise ValidationError(f"column_kinds has unknown kind(s) {sorted(set(bad))!r}; allowed: {', '.join(KINDS)}")
    return kinds


def _labels(col) -> np.ndarray:
    """String labels of a column's values (None where missing); integral floats lose their '.0'."""
    import pandas as pd

    vals = col.to_numpy(dtype=object)
    miss = pd.isna(col).to_numpy()
    out = np.empty(vals.shape, dtype=object)
    for i, v in enumerate(vals):
        if miss[i]:
            out[i] = None
        elif isinstance(v, (float, np.floating)) and float(v).is_integer():
            out[i] = str(int(v))
        else:
            out[i] = str(v)
    return out


def learn_categories(X: Any, kinds: Sequence[str], max_levels: int) -> list[list[str] | None]:
    """The categories of every categorical column (None for the others), most frequent first;
    beyond ``max_levels`` the rarest share the code :data:`OTHER`."""
    df = _as_frame(X) if needs_encoding(X) else None
    out: list[list[str] | None] = []
    for j, kind in enumerate(kinds):
        if kind != "categorical":
            out.append(None)
            continue
        col = df.iloc[:, j] if df is not None else _as_frame(np.asarray(X, dtype=object)).iloc[:, j]
        lab = _labels(col)
        lab = lab[lab != None]  # noqa: E711 - elementwise
        values, counts = np.unique(lab.astype(str), return_counts=True) if lab.size else (np.array([]), np.array([]))
        order = sorted(range(len(values)), key=lambda i: (-counts[i], values[i]))
        cats = [str(values[i]) for i in order]
        if len(cats) > max_levels:
            cats = [*cats[:max_levels - 1], OTHER]
        out.append(cats)
    return out


def encode(X: Any, kinds: Sequence[str], categories: Sequence[Sequence[str] | None]) -> np.ndarray:
    """The float matrix of a table: numbers, category codes, days since 1970 (NaN where missing)."""
    if not needs_encoding(X) and all(k == "numeric" for k in kinds):
        a = np.asarray(X)
        if a.ndim != 2:
            raise ValidationError(f"X must be 2-D (n_samples, n_features), got shape {a.shape}")
        return a.astype(np.float64)
    import pandas as pd

    df = _as_frame(X)
    if df.shape[1] != len(kinds):
        raise ValidationError(f"X has {df.shape[1]} columns but the family was fitted on {len(kinds)}")
    out = np.empty(df.shape, dtype=np.float64)
    for j, kind in enumerate(kinds):
        col = df.iloc[:, j]
        name = df.columns[j]
        if kind == "numeric":
            try:
                v = pd.to_numeric(col, errors="raise")
            except (ValueError, TypeError):
                raise ValidationError(f"column {name!r} must be numeric (it was numeric in fit), "
                                      f"got values such as {col.dropna().iloc[:3].tolist()!r}") from None
            out[:, j] = np.asarray(v.astype("float64").to_numpy(na_value=np.nan), dtype=np.float64)
        elif kind == "categorical":
            cats = list(categories[j] or [])
            index = {c: i for i, c in enumerate(cats)}
            other = index.get(OTHER, np.nan)
            lab = _labels(col)
            out[:, j] = [np.nan if v is None else index.get(v, other) for v in lab]
        else:
            try:
                t = pd.to_datetime(col, errors="raise", **({"format": "mixed"} if col.dtype == object else {}))
            except (ValueError, TypeError):
                raise ValidationError(f"column {name!r} must hold dates (it did in fit), "
                                      f"got values such as {col.dropna().iloc[:3].tolist()!r}") from None
            if getattr(t.dt, "tz", None) is not None:
                t = t.dt.tz_convert("UTC").dt.tz_localize(None)
            ns = t.to_numpy(dtype="datetime64[ns]")
            days = ns.astype(np.int64).astype(np.float64) / 86400e9
            days[np.isnat(ns)] = np.nan
            out[:, j] = days
    return out
