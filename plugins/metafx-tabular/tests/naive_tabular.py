"""Slow, obviously correct references of the operators on categorical, datetime and incomplete columns.

Written from the operators' definitions (``metafx_tabular/operators.py``
docstrings), one row at a time, with Python's ``datetime`` for the calendar.
Categories are given as codes (float, NaN missing); the last entry of every
learned table is the "missing" entry.
"""

from __future__ import annotations

import datetime as dt
import math

SHRINK = 2.0


def _is_missing(v) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def _key(c, n):
    """Code as an int in 0..n-1, or "missing" (the last entry) for NaN / out of range."""
    if _is_missing(c):
        return n
    k = int(c)
    return k if 0 <= k < n else n


def count(c_train, c_new):
    n = 1 + max([int(v) for v in c_train if not _is_missing(v)], default=-1)
    keys = [_key(v, n) for v in c_train]
    return [keys.count(_key(v, n)) / len(keys) for v in c_new]


def pair_count(a_train, b_train, a_new, b_new):
    na = 1 + max([int(v) for v in a_train if not _is_missing(v)], default=-1)
    nb = 1 + max([int(v) for v in b_train if not _is_missing(v)], default=-1)
    pairs = [(_key(a, na), _key(b, nb)) for a, b in zip(a_train, b_train, strict=True)]
    return [pairs.count((_key(a, na), _key(b, nb))) / len(pairs) for a, b in zip(a_new, b_new, strict=True)]


def group_mean(x_train, c_train, c_new):
    n = 1 + max([int(v) for v in c_train if not _is_missing(v)], default=-1)
    present = [x for x in x_train if not _is_missing(x)]
    g = sum(present) / len(present)
    out = []
    for c in c_new:
        k = _key(c, n)
        vals = [x for x, cc in zip(x_train, c_train, strict=True) if _key(cc, n) == k and not _is_missing(x)]
        out.append((sum(vals) + SHRINK * g) / (len(vals) + SHRINK))
    return out


def group_dev(x_train, c_train, x_new, c_new):
    m = group_mean(x_train, c_train, c_new)
    return [float("nan") if _is_missing(x) else x - mm for x, mm in zip(x_new, m, strict=True)]


def _quantile(sorted_vals, q):
    """numpy's default (linear) quantile."""
    pos = q * (len(sorted_vals) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_vals) - 1)
    return sorted_vals[lo] + (pos - lo) * (sorted_vals[hi] - sorted_vals[lo])


def group_rank(x_train, c_train, x_new, c_new):
    n = 1 + max([int(v) for v in c_train if not _is_missing(v)], default=-1)
    grid = [i / 10 for i in range(11)]
    allv = sorted(x for x in x_train if not _is_missing(x))
    out = []
    for x, c in zip(x_new, c_new, strict=True):
        if _is_missing(x):
            out.append(float("nan"))
            continue
        k = _key(c, n)
        vals = sorted(v for v, cc in zip(x_train, c_train, strict=True) if _key(cc, n) == k and not _is_missing(v))
        if len(vals) < 5:
            vals = allv
        qs = [_quantile(vals, g) for g in grid]
        # piecewise-linear interpolation, clamped at the ends (as numpy.interp)
        if x <= qs[0]:
            out.append(0.0)
        elif x >= qs[-1]:
            out.append(1.0)
        else:
            for i in range(10):
                if qs[i] <= x <= qs[i + 1]:
                    if qs[i + 1] == qs[i]:
                        continue
                    out.append(grid[i] + (x - qs[i]) / (qs[i + 1] - qs[i]) * 0.1)
                    break
    return out


def date_part(days, part):
    out = []
    for d in days:
        if _is_missing(d):
            out.append(float("nan"))
            continue
        t = dt.datetime(1970, 1, 1) + dt.timedelta(days=d)
        out.append(float({"year": t.year, "month": t.month, "day": t.day, "weekday": t.weekday(),
                          "dayofyear": t.timetuple().tm_yday, "hour": t.hour}[part]))
    return out
