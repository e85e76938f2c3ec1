"""The ``tabular`` family's parameters: what each accepts (checked by ``check_params``, see
``metafx.plugin``), and what ties the parameters :meth:`metafx_tabular.TabularFamily.fit` learns together."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from metafx.plugin import Interval, Options, Satisfies, ValidationError

from .expressions import MAX_ARITY, MAX_DEPTH
from .frame import KINDS
from .operators import OPERATORS

if TYPE_CHECKING:
    from .family import TabularFamily


def _known_operators(value: Any) -> bool:
    """A non-empty list of operator names of :data:`OPERATORS` (the ``operators`` parameter)."""
    if isinstance(value, (str, bytes, Mapping)):
        return False
    names = list(value)
    return bool(names) and all(isinstance(o, str) and o in OPERATORS for o in names)


def _known_kinds(value: Any) -> bool:
    """A list of column kinds, or ``{column index or name: kind}`` (the ``column_kinds`` parameter)."""
    if isinstance(value, (str, bytes)):
        return False
    kinds = list(value.values()) if isinstance(value, Mapping) else list(value)
    return all(isinstance(k, str) and k in KINDS for k in kinds)


#: what each parameter of :class:`metafx_tabular.TabularFamily` accepts
PARAMETER_CONSTRAINTS: dict[str, list[Any]] = {
    "operators": [None, Satisfies(_known_operators, "a non-empty list of operator names among "
                                  + ", ".join(OPERATORS), invalid=[[], ["no-such-operator"], "mul"])],
    "max_arity": [Interval("int", 1, MAX_ARITY)],
    "max_depth": [Interval("int", 1, MAX_DEPTH)],
    "rank_width": [Interval("real", 0, None, closed="neither")],
    "column_names": [None, "array-like"],
    "column_tags": [None, "dict", "array-like"],
    "task": [Options("auto", "classification", "regression")],
    "sample_size": [Interval("int", 10, None)],
    "clip_quantile": [Interval("real", 0.0, 0.5, closed="left")],
    "column_kinds": [None, Satisfies(_known_kinds, "a list or {column index or name: kind} of kinds "
                                     "among " + ", ".join(KINDS), invalid=[["no-such-kind"], {0: "text"}, "numeric"])],
    "max_levels": [Interval("int", 2, None)],
    "missing": [Options("propagate", "zero")],
    "mix": ["boolean"],
    "oversample": [Interval("real", 1.0, 100.0)],
    "nominal_op": ["boolean"],
    "screen": [Interval("int", 0, None)],
    "rescore": [Interval("int", 0, None)],
    "drop_monotone": [Options("auto"), "boolean"],
    "rescore_by": [Options("auto", "evaluator", "residual", "gate")],
    "level_columns": [Interval("int", 0, None)],
    "n_columns": [None, Interval("int", 1, None)],
    "column_center": [None, "array-like"],
    "column_scale": [None, "array-like"],
    "column_rank": [None, "array-like"],
    "categories": [None, "array-like"],
    "column_missing": [None, "array-like"],
    "column_levels": [None, "array-like"],
}


def check_learned(fam: TabularFamily) -> None:
    """Put the enabled operators in their canonical order; with ``n_columns``, check that every per-column
    list has ``n_columns`` entries of the right kind (and keep them as plain lists)."""
    if fam.operators is not None:
        ops = [str(o) for o in fam.operators]
        fam.operators = [o for o in OPERATORS if o in ops]  # canonical order
    if fam.n_columns is not None:
        d = int(fam.n_columns)
        per_column: dict[str, list[float]] = {}
        for pname in ("column_center", "column_scale", "column_rank"):
            v = getattr(fam, pname)
            if v is None or len(v) != d:
                raise ValidationError(f"{pname} must list {d} values when n_columns={d} is given (call fit(X) instead)")
            per_column[pname] = [float(x) for x in v]
        fam.column_center = per_column["column_center"]
        fam.column_scale = per_column["column_scale"]
        fam.column_rank = per_column["column_rank"]
        if min(fam.column_scale) <= 0:
            raise ValidationError("column_scale values must be positive")
        kinds: Sequence[str] | Mapping[Any, str] = fam.column_kinds if fam.column_kinds is not None \
            else ["numeric"] * d
        if isinstance(kinds, Mapping) or len(kinds) != d or any(k not in KINDS for k in kinds):
            raise ValidationError(f"column_kinds must list {d} kinds ({', '.join(KINDS)}) when n_columns={d} is given")
        fam.column_kinds = [str(k) for k in kinds]
        cats = fam.categories if fam.categories is not None else [None] * d
        if len(cats) != d or any((c is None) != (k != "categorical") for c, k in zip(cats, fam.column_kinds, strict=True)):
            raise ValidationError("categories must list the categories of every categorical column (None for the others)")
        fam.categories = [None if c is None else [str(v) for v in c] for c in cats]
        miss = fam.column_missing if fam.column_missing is not None else [False] * d
        if len(miss) != d:
            raise ValidationError(f"column_missing must list {d} booleans when n_columns={d} is given")
        fam.column_missing = [bool(v) for v in miss]
        levels = fam.column_levels if fam.column_levels is not None else [None] * d
        if len(levels) != d or any(lv is not None and (k != "numeric" or len(lv) < 2)
                                   for lv, k in zip(levels, fam.column_kinds, strict=True)):
            raise ValidationError(f"column_levels must list {d} entries: None, or the >= 2 sorted levels of a "
                                  "numeric column read as a category")
        fam.column_levels = [None if lv is None else [float(v) for v in lv] for lv in levels]
