"""Expressions of the ``tabular`` family: JSON trees of operators over table columns.

An expression is a leaf ``{"col": j}`` (``{"col": j, "levels": [...]}`` for a numeric column read as
a category) or a node ``{"op": name, "args": [expr, ...], <operator constants>, "range": [lo, hi],
"center": c, "scale": s}``: the node's output is clipped to ``range``, what the training rows gave,
then standardized by ``center``/``scale`` (all three are absent for 0/1 operators).  See
``metafx_tabular.family`` for what the family draws, and ``metafx_tabular.operators`` for the
operators.  This module reads them: their columns, depth and operators, a key that identifies a
feature up to its learned constants, and the check of an expression read from a result file.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .operators import operator

__all__ = [
    "COMMUTATIVE",
    "MAX_ARITY",
    "MAX_DEPTH",
    "SYMMETRIC",
    "expr_columns",
    "expr_depth",
    "expr_ops",
    "monotone_in_one_column",
]

#: most input columns of a feature (``TabularFamily(max_arity=...)``)
MAX_ARITY = 3
#: deepest operator nesting of a feature (``TabularFamily(max_depth=...)``)
MAX_DEPTH = 3
#: operators whose feature does not change (up to sign) when their arguments are swapped
SYMMETRIC = frozenset({"mul", "diff", "pair_count", "date_diff"})
#: operators whose value does not depend on the order of their arguments: built with the arguments in
#: one order (by their structure key), so the same feature has one name and one JSON whatever the draw
COMMUTATIVE = frozenset({"mul", "pair_count"})


def expr_columns(e: Mapping[str, Any]) -> list[int]:
    """Input columns of an expression, left to right."""
    if "col" in e:
        return [int(e["col"])]
    return [c for a in e["args"] for c in expr_columns(a)]


def expr_depth(e: Mapping[str, Any]) -> int:
    """Operator nesting depth (a leaf has depth 0)."""
    return 0 if "col" in e else 1 + max(expr_depth(a) for a in e["args"])


def expr_ops(e: Mapping[str, Any]) -> list[str]:
    """Operator names of an expression, root first (pre-order)."""
    return [] if "col" in e else [e["op"]] + [o for a in e["args"] for o in expr_ops(a)]


def monotone_in_one_column(e: Mapping[str, Any], one_sign: Sequence[bool] | np.ndarray) -> bool:
    """True when the expression is a monotone (non-decreasing or non-increasing) function of one
    numeric or datetime column, so a tree model reads it as that column (its splits are the column's
    splits): a column itself, and ``threshold``, ``log`` and ``date_part`` ``"year"`` of such an
    expression, and ``square`` of such an expression that has one sign -- a column whose scaled
    training values are all >= 0 or all <= 0 (``one_sign[j]``) or a 0/1 ``threshold``.  A square of
    a centred column (U-shaped), every operator of two columns, and ``isna``, ``count``, the
    group-by operators and the other date parts (not monotone) are not.

    >>> col = {"col": 0}
    >>> monotone_in_one_column({"op": "log", "args": [col]}, [False])
    True
    >>> monotone_in_one_column({"op": "square", "args": [col]}, [False]), monotone_in_one_column(
    ...     {"op": "square", "args": [col]}, [True])
    (False, True)
    >>> monotone_in_one_column({"op": "mul", "args": [col, {"col": 1}]}, [True, True])
    False
    """
    if "col" in e:
        return "levels" not in e  # a numeric column read as a category is not its values
    op, args = e["op"], e["args"]
    if op in ("threshold", "log"):
        return monotone_in_one_column(args[0], one_sign)
    if op == "date_part":
        return e.get("part") == "year" and "col" in args[0]
    if op == "square":
        a = args[0]
        if not monotone_in_one_column(a, one_sign):
            return False
        if "col" in a:
            return bool(one_sign[int(a["col"])])
        return a["op"] == "threshold"  # 0/1; every other node is standardized (centred), so of both signs
    return False


def _structure(e: Mapping[str, Any]) -> str:
    """A key that identifies a feature up to its learned constants (used to skip repeats)."""
    if "col" in e:
        return str(int(e["col"]))
    extra = f"@{e['q']}" if e["op"] == "threshold" else (f"@{e['part']}" if "part" in e else "")
    args = [_structure(a) for a in e["args"]]
    if e["op"] in SYMMETRIC:  # a * b = b * a; a - b = -(b - a), the same feature once standardized
        args = sorted(args)
    return f"{e['op']}{extra}(" + ",".join(args) + ")"


def exact_key(e: Mapping[str, Any]) -> str:
    """A key that identifies a feature's values: :func:`_structure` with the arguments in their order (``a - b``
    and ``b - a`` differ), a column read as a category marked."""
    if "col" in e:
        return f"{int(e['col'])}{'c' if 'levels' in e else ''}"
    extra = f"@{e['q']}" if e["op"] == "threshold" else (f"@{e['part']}" if "part" in e else "")
    return f"{e['op']}{extra}(" + ",".join(exact_key(a) for a in e["args"]) + ")"


def _level_codes(z: np.ndarray, levels: Sequence[float]) -> np.ndarray:
    """Codes ``0..len(levels)-1`` of the values of ``z`` equal to one of the sorted ``levels``; NaN stays NaN,
    and a value matching no level gets the code ``len(levels)`` (read as the category table's last entry)."""
    lv = np.asarray(levels, dtype=np.float64)
    i = np.clip(np.searchsorted(lv, z), 0, lv.size - 1)
    lo = np.clip(i - 1, 0, lv.size - 1)
    i = np.where(np.abs(lv[lo] - z) < np.abs(lv[i] - z), lo, i)
    hit = np.abs(lv[i] - z) <= 1e-9 * (1.0 + np.abs(z))
    out = np.where(hit, i, lv.size).astype(np.float64)
    out[np.isnan(z)] = np.nan
    return out


def _check_expr(e: Any, d: int, ops: list[str], kinds: list[str]) -> None:
    if not isinstance(e, Mapping):
        raise TypeError(f"{e!r} is not an expression")
    if "col" in e:
        j = e["col"]
        if isinstance(j, bool) or not isinstance(j, int) or not 0 <= j < d:
            raise ValueError(f"column {j!r} is not an integer in 0..{d - 1}")
        if "levels" in e:
            lv = [float(v) for v in e["levels"]]
            if kinds[j] != "numeric" or len(lv) < 2 or any(not math.isfinite(v) for v in lv) \
                    or any(b <= a for a, b in itertools.pairwise(lv)):
                raise ValueError(f"levels of column {j} must be >= 2 increasing finite numbers of a numeric column")
        return
    name = e["op"]
    if name not in ops:
        raise ValueError(f"operator {name!r} is not enabled; enabled: {', '.join(ops)}")
    op = operator(name)
    args = e["args"]
    if not isinstance(args, list) or len(args) != op.arity:
        raise ValueError(f"operator {name!r} takes {op.arity} argument(s)")
    op.check(e)
    if not op.binary_output:
        if not (float(e["scale"]) > 0 and math.isfinite(float(e["center"]))):
            raise ValueError(f"operator {name!r} needs a finite center and a positive scale")
        if "range" in e:
            lo, hi = (float(v) for v in e["range"])
            if not lo <= hi:
                raise ValueError(f"range {e['range']!r} must be [low, high]")
    for a, kind in zip(args, op.kinds, strict=True):
        _check_expr(a, d, ops, kinds)
        if kind == "numeric":
            if "col" in a and (kinds[a["col"]] != "numeric" or "levels" in a):
                raise ValueError(f"operator {name!r} needs a numeric argument, column {a['col']} is {kinds[a['col']]}")
            if "op" in a and operator(str(a["op"])).leaf_only():
                raise ValueError(f"operator {a['op']!r} cannot sit under another operator")
        else:
            if "col" not in a:
                raise ValueError(f"operator {name!r} takes table columns as arguments")
            if kind == "categorical" and kinds[a["col"]] == "numeric" and "levels" in a:
                continue  # a numeric column read as a category
            if kind != "missing" and kinds[a["col"]] != kind:
                raise ValueError(f"operator {name!r} needs a {kind} column, column {a['col']} is {kinds[a['col']]}")
