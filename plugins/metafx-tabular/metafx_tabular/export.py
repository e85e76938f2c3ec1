"""The ``tabular`` family's part of ``metafx export``: its features as C99 and as NumPy code.

The input of the exported code is one row of the table as the family reads it: ``n_columns`` doubles, NaN
where a value is missing.  Features of numeric columns built with ``threshold``, ``square``, ``mul``,
``ratio`` and ``diff`` are exported; a feature that reads a categorical or datetime column, or uses another
operator (``log``, whose value depends on the platform's logarithm in its last bit, and the category and date
operators), is refused with an error naming it.  The values are those of the family's ``compute`` (what the
search scored and the classifier reads): clipped at +-1e6, a missing value at 0.  Every operation is the one
NumPy does, in the same order, so the values are Python's bit for bit (``tests/test_tabular_export.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from metafx.plugin import FamilyExport, ValidationError

#: the operators whose features can be exported
EXPORTED_OPERATORS = ("threshold", "square", "mul", "ratio", "diff")


def _check(family: Any, e: Mapping[str, Any], name: str) -> None:
    kinds = family._kinds()
    if "col" in e:
        j = int(e["col"])
        if "levels" in e or kinds[j] != "numeric":
            raise ValidationError(f"feature {name!r} reads column {j} as a {kinds[j] if 'levels' not in e else 'category'}"
                                  f": export supports features of numeric columns built with "
                                  f"{', '.join(EXPORTED_OPERATORS)}")
        return
    if e["op"] not in EXPORTED_OPERATORS:
        raise ValidationError(f"feature {name!r} uses the operator {e['op']!r}: export supports "
                              f"{', '.join(EXPORTED_OPERATORS)}")
    for a in e["args"]:
        _check(family, a, name)


def _checked(family: Any, batch: Any) -> list[Mapping[str, Any]]:
    names = family.feature_names(batch) if len(batch) else []
    for e, name in zip(batch.exprs, names, strict=True):
        _check(family, e, name)
    return list(batch.exprs)


def _r(v: float) -> str:
    """A double as an exact C literal."""
    return float(v).hex()


def _c_expr(e: Mapping[str, Any], lines: list[str], tmp: list[int]) -> str:
    """Statements computing ``e`` into a new temporary (NumPy's operations, in NumPy's order); its name."""
    tmp[0] += 1
    t = f"t{tmp[0]}"
    if "col" in e:
        lines.append(f"        const double {t} = z[{int(e['col'])}];")
        return t
    args = [_c_expr(a, lines, tmp) for a in e["args"]]
    op = e["op"]
    if op == "threshold":
        body = f"{args[0]} != {args[0]} ? NAN : ({args[0]} > {_r(e['t'])} ? 1.0 : 0.0)"
    elif op == "square":
        body = f"{args[0]} * {args[0]}"
    elif op == "mul":
        body = f"{args[0]} * {args[1]}"
    elif op == "diff":
        body = f"{args[0]} - {args[1]}"
    else:  # ratio: max(a - lo_a, 1e-3) / max(b - lo_b, 1e-3), NaN kept
        lo_a, lo_b = e["lo"]
        lines.append(f"        const double {t}a = {args[0]} - {_r(lo_a)};")
        lines.append(f"        const double {t}b = {args[1]} - {_r(lo_b)};")
        body = (f"({t}a != {t}a || {t}a > {_r(1e-3)} ? {t}a : {_r(1e-3)}) / "
                f"({t}b != {t}b || {t}b > {_r(1e-3)} ? {t}b : {_r(1e-3)})")
    lines.append(f"        double {t} = {body};")
    if "range" in e:
        lo, hi = e["range"]
        lines.append(f"        {t} = {t} != {t} ? {t} : ({t} < {_r(lo)} ? {_r(lo)} : ({t} > {_r(hi)} ? {_r(hi)} : {t}));")
    if "center" in e:
        lines.append(f"        {t} = ({t} - {_r(e['center'])}) / {_r(e['scale'])};")
    return t


def tabular_c(family: Any, batch: Any, prefix: str) -> FamilyExport:
    """``TabularFamily.export_c``."""
    exprs = _checked(family, batch)
    d = int(family._need_fit())
    center = np.asarray(family.column_center, dtype=np.float64)
    scale = np.asarray(family.column_scale, dtype=np.float64)
    names = family.column_names or [f"x{j}" for j in range(d)]
    o = [f"static const double {prefix}_center[{d}] = {{{', '.join(_r(v) for v in center)}}};",
         f"static const double {prefix}_scale[{d}] = {{{', '.join(_r(v) for v in scale)}}};",
         "",
         f"static void {prefix}_compute(const double *x, double *out)",
         "{",
         f"    double z[{d}];",
         "    int j;",
         f"    for (j = 0; j < {d}; ++j)",
         f"        z[j] = (x[j] - {prefix}_center[j]) / {prefix}_scale[j];"]
    for f, e in enumerate(exprs):
        lines: list[str] = []
        t = _c_expr(e, lines, [0])
        o += [f"    {{   /* {f} */", *lines, f"        double v = {t} != {t} ? {t} : ({t} < -1e6 ? -1e6 : ({t} > 1e6 ? 1e6 : {t}));", f"        out[{f}] = v != v ? 0.0 : v;", "    }"]
    if not exprs:
        o += ["    (void)out;"]
    o += ["}"]
    cols = ", ".join(str(n) for n in names)
    return FamilyExport(code="\n".join(o), n_inputs=d, input_type="real", value_type="real", includes=("math.h",),
                        about=f"one row of {d} numbers (columns {cols}; NaN where missing)")


def _np_expr(e: Mapping[str, Any]) -> str:
    if "col" in e:
        return f"z[:, {int(e['col'])}]"
    args = [_np_expr(a) for a in e["args"]]
    op = e["op"]
    if op == "threshold":
        v = f"_thr({args[0]}, {float(e['t'])!r})"
    elif op == "square":
        v = f"({args[0]}) ** 2"
    elif op == "mul":
        v = f"({args[0]}) * ({args[1]})"
    elif op == "diff":
        v = f"({args[0]}) - ({args[1]})"
    else:
        lo_a, lo_b = e["lo"]
        v = f"np.maximum(({args[0]}) - {float(lo_a)!r}, 1e-3) / np.maximum(({args[1]}) - {float(lo_b)!r}, 1e-3)"
    if "range" in e:
        v = f"np.clip({v}, {float(e['range'][0])!r}, {float(e['range'][1])!r})"
    if "center" in e:
        v = f"(({v}) - {float(e['center'])!r}) / {float(e['scale'])!r}"
    return v


def tabular_numpy(family: Any, batch: Any, prefix: str) -> FamilyExport:
    """``TabularFamily.export_numpy``."""
    exprs = _checked(family, batch)
    d = int(family._need_fit())
    P = f"_{prefix}"
    o = [f"{P}_CENTER = np.array({[float(v) for v in family.column_center]!r})",
         f"{P}_SCALE = np.array({[float(v) for v in family.column_scale]!r})",
         "",
         "",
         "def _thr(a, t):",
         "    out = (a > t).astype(np.float64)",
         "    out[np.isnan(a)] = np.nan",
         "    return out",
         "",
         "",
         f"def {prefix}_compute(x):",
         f"    z = (x - {P}_CENTER) / {P}_SCALE",
         f"    out = np.empty((x.shape[0], {len(exprs)}))",
         "    with np.errstate(over='ignore', invalid='ignore', divide='ignore'):"]
    o += [f"        out[:, {f}] = {_np_expr(e)}" for f, e in enumerate(exprs)] or ["        pass"]
    o += ["    np.clip(out, -1e6, 1e6, out=out)",
          "    return np.nan_to_num(out, nan=0.0)"]
    return FamilyExport(code="\n".join(o), n_inputs=d, input_type="real", value_type="real",
                        about=f"one row of {d} numbers (NaN where missing)")
