"""The operators a ``tabular`` feature is built from.

Every operator maps the values of its argument(s) -- whole columns, one value
per sample -- to a new column.  Some need constants learned from the training
data (a threshold, the shift that makes a logarithm's argument positive);
:meth:`Operator.fit` learns them from a sample of the training rows and they
are stored in the feature's JSON specification, so computing a feature later
needs no data but its inputs.

Besides the arithmetic operators over numeric columns there are operators
over columns of other kinds (``kinds``): the missing-value indicator
``isna``, frequency encoding ``count`` (of one column's categories) and
``pair_count`` (of two columns' pairs of categories), the group-by aggregates
``group_mean``, ``group_dev``, ``group_rank`` of a numeric column within a
categorical column's categories, and ``date_part`` / ``date_diff`` of
datetime columns.  These take table columns as arguments (not
sub-expressions).  Every operator lets a missing value (NaN) through as
missing, except those made to read it (``isna``, and ``count`` and the
group-by operators, where a missing category is a category of its own).

To add an operator: subclass :class:`Operator`, give it a unique ``name``,
``arity`` 1 or 2, the ``kinds`` of its arguments and ``apply`` / ``fit`` /
``format``, and add an instance to :data:`OPERATORS`.  Similar operators
should sit next to each other in that order: the ``op`` meta-feature is the
index in it, and a search engine moves along neighbouring indices.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

__all__ = ["ARITH", "DATE_PARTS", "OPERATORS", "Operator", "date_part", "operator", "positive_shift"]

#: the quantiles a threshold may sit at
QUANTILES = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
#: the quantiles of the thresholds the family's candidate screen enumerates
SCREEN_QUANTILES = (0.2, 0.5, 0.8)
#: most cells of a ``pair_count`` table before its arguments' codes are capped at ``PAIR_LEVELS``
PAIR_CELLS = 10000
#: most codes of each argument kept in a large ``pair_count`` table (the rarer share the last row/column)
PAIR_LEVELS = 50


def positive_shift(v: np.ndarray) -> float:
    """The shift that makes ``v`` positive: 0 when it already is, else ``min(v) - 1`` (so ``v - shift >= 1``).

    Missing values (NaN) are ignored."""
    fin = v[~np.isnan(v)] if v.size else v
    lo = float(np.min(fin)) if fin.size else 0.0
    return 0.0 if lo > 0 else lo - 1.0


def _pos(v: np.ndarray, shift: float) -> np.ndarray:
    """``v - shift`` (positive on the training data); new data below that is clipped at a small positive value."""
    return np.maximum(v - shift, 1e-3)


def _wrap(s: str) -> str:
    """Parenthesize an argument that is itself a binary expression."""
    return f"({s})" if any(f" {sym} " in s for sym in ("*", "/", "-")) else s


class Operator:
    """One operator: ``apply`` computes, ``fit`` learns constants, ``format`` writes it.

    ``binary_output`` operators return 0/1 columns; every other operator's
    output is standardized by the family (mean 0, unit variance on the
    training sample) before it is used or returned.
    """

    name: ClassVar[str] = ""
    arity: ClassVar[int] = 1
    binary_output: ClassVar[bool] = False
    summary: ClassVar[str] = ""
    #: what each argument must be -- "numeric" (a numeric column or a numeric sub-expression),
    #: "categorical" / "datetime" (a column of that kind), "missing" (a column with missing values)
    kinds: ClassVar[tuple[str, ...]] = ("numeric",)
    #: the operator's family -- "arith", "missing", "category" or "date"
    group: ClassVar[str] = "arith"

    @classmethod
    def leaf_only(cls) -> bool:
        """True when the arguments must be table columns (not sub-expressions)."""
        return any(k != "numeric" for k in cls.kinds)

    def fit(self, args: Sequence[np.ndarray], rng: np.random.Generator) -> dict[str, Any]:
        """Constants learned from the arguments' values on the training sample."""
        return {}

    def variants(self, args: Sequence[np.ndarray]) -> list[dict[str, Any]] | None:
        """The constants of every variant the family's candidate screen enumerates (e.g. a
        threshold at three quantiles); None: one variant, :meth:`fit`'s."""
        return None

    def apply(self, args: Sequence[np.ndarray], consts: Mapping[str, Any]) -> np.ndarray:
        raise NotImplementedError

    def format(self, args: Sequence[str], consts: Mapping[str, Any]) -> str:
        raise NotImplementedError

    def check(self, consts: Mapping[str, Any]) -> None:
        """Validate constants read from JSON (raise ``ValueError``)."""

    def __repr__(self) -> str:
        return f"<operator {self.name}>"

    def __reduce__(self):  # pickled by name: operators are singletons
        return (operator, (self.name,))


class Threshold(Operator):
    """``1`` where the argument exceeds one of its training quantiles (10 % ... 90 %)."""

    name = "threshold"
    binary_output = True
    summary = "indicator of the argument above a training quantile"

    def fit(self, args, rng):
        return self._at(args[0], float(rng.choice(QUANTILES)))

    @staticmethod
    def _at(x, q):
        v = x[~np.isnan(x)]
        return {"q": q, "t": float(np.quantile(v, q)) if v.size else 0.0}

    def variants(self, args):
        return [self._at(args[0], q) for q in SCREEN_QUANTILES]

    def apply(self, args, consts):
        out = (args[0] > consts["t"]).astype(np.float64)
        out[np.isnan(args[0])] = np.nan  # a missing value stays missing
        return out

    def format(self, args, consts):
        return f"[{args[0]} > q{round(100 * consts['q'])}]"

    def check(self, consts):
        float(consts["t"])
        if not 0.0 < float(consts["q"]) < 1.0:
            raise ValueError(f"threshold quantile q={consts['q']!r} must be in (0, 1)")


class Log(Operator):
    """``log(v - lo)``: logarithm of the argument, shifted first when it is not positive
    on the training data (``lo = min - 1``; ``lo = 0`` for a positive column)."""

    name = "log"
    summary = "logarithm of the argument (shifted to be positive if it is not)"

    def fit(self, args, rng):
        return {"lo": positive_shift(args[0])}

    def apply(self, args, consts):
        return np.log(_pos(args[0], consts["lo"]))

    def format(self, args, consts):
        return f"log({args[0]})"

    def check(self, consts):
        float(consts["lo"])


class Square(Operator):
    """``v ** 2``: a U-shaped response of a centred argument, a convex one of a positive column."""

    name = "square"
    summary = "square of the argument"

    def apply(self, args, consts):
        return args[0] ** 2

    def format(self, args, consts):
        return f"{_wrap(args[0])}^2"


class Mul(Operator):
    """``a * b``: the product (interaction) of two arguments."""

    name = "mul"
    arity = 2
    kinds = ("numeric", "numeric")
    summary = "product (interaction) of two arguments"

    def apply(self, args, consts):
        return args[0] * args[1]

    def format(self, args, consts):
        return f"{_wrap(args[0])} * {_wrap(args[1])}"


class Ratio(Operator):
    """``(a - lo_a) / (b - lo_b)``: ratio of the arguments, each shifted first when it is
    not positive on the training data (as for ``log``)."""

    name = "ratio"
    arity = 2
    kinds = ("numeric", "numeric")
    summary = "ratio of two arguments (shifted to be positive if they are not)"

    def fit(self, args, rng):
        return {"lo": [positive_shift(args[0]), positive_shift(args[1])]}

    def apply(self, args, consts):
        lo_a, lo_b = consts["lo"]
        return _pos(args[0], lo_a) / _pos(args[1], lo_b)

    def format(self, args, consts):
        return f"{_wrap(args[0])} / {_wrap(args[1])}"

    def check(self, consts):
        lo = consts["lo"]
        if len(lo) != 2:
            raise ValueError(f"ratio needs two shifts, got lo={lo!r}")
        [float(v) for v in lo]


class Diff(Operator):
    """``a - b`` of the (scaled) arguments; useful under a threshold (``a > b``) or a square."""

    name = "diff"
    arity = 2
    kinds = ("numeric", "numeric")
    summary = "difference of two scaled arguments"

    def apply(self, args, consts):
        return args[0] - args[1]

    def format(self, args, consts):
        return f"{_wrap(args[0])} - {_wrap(args[1])}"


# --------------------------------------------------------------------------- columns of other kinds
# Categorical columns reach the operators as integer codes (float, NaN where
# missing; a category not seen in training is read as missing), datetime
# columns as days since 1970-01-01 (float, NaN where missing).  Tables learned
# per category have one entry per code plus a last entry for "missing".

#: pseudo-count pulling a small category's mean towards the overall mean
SHRINK = 2.0
#: points of the within-category distribution kept by ``group_rank``
RANK_GRID = np.linspace(0.0, 1.0, 11)


def _codes(c: np.ndarray, n: int) -> np.ndarray:
    """Integer codes ``0..n-1``; ``-1`` (the last table entry) for missing or out-of-range codes."""
    out = np.full(c.shape, -1, dtype=np.intp)
    ok = ~np.isnan(c)
    ci = c[ok].astype(np.intp)
    ci[(ci < 0) | (ci >= n)] = -1
    out[ok] = ci
    return out


def _n_codes(c: np.ndarray) -> int:
    fin = c[~np.isnan(c)]
    return int(fin.max()) + 1 if fin.size else 0


def _group_means(x: np.ndarray, c: np.ndarray) -> list[float]:
    """Per-code mean of ``x`` shrunk towards the overall mean (``SHRINK`` pseudo-rows); last: missing code."""
    n = _n_codes(c)
    codes = _codes(c, n)
    ok = ~np.isnan(x)
    g = float(np.mean(x[ok])) if ok.any() else 0.0
    out = []
    for k in [*list(range(n)), -1]:
        m = ok & (codes == k)
        out.append(float((x[m].sum() + SHRINK * g) / (m.sum() + SHRINK)))
    return out


class IsNA(Operator):
    """``1`` where a column's value is missing: the missing-value indicator (columns with missing values only)."""

    name = "isna"
    binary_output = True
    kinds = ("missing",)
    group = "missing"
    summary = "indicator of a missing value in a column"

    def apply(self, args, consts):
        return np.isnan(args[0]).astype(np.float64)

    def format(self, args, consts):
        return f"isna({args[0]})"


class Count(Operator):
    """Frequency encoding: the share of training rows that have the row's category."""

    name = "count"
    kinds = ("categorical",)
    group = "category"
    summary = "frequency of the row's category in the training rows"

    def fit(self, args, rng):
        c = args[0]
        n = _n_codes(c)
        codes = _codes(c, n)
        return {"freq": [float(np.mean(codes == k)) for k in [*list(range(n)), -1]]}

    def apply(self, args, consts):
        f = np.asarray(consts["freq"], dtype=np.float64)
        return f[_codes(args[0], f.size - 1)]

    def format(self, args, consts):
        return f"count({args[0]})"

    def check(self, consts):
        if len(consts["freq"]) < 1:
            raise ValueError("count needs a frequency table")
        [float(v) for v in consts["freq"]]


class PairCount(Operator):
    """Frequency of the row's pair of categories of two categorical columns (a crossed count)."""

    name = "pair_count"
    arity = 2
    kinds = ("categorical", "categorical")
    group = "category"
    summary = "frequency of the row's pair of categories of two categorical columns"

    def fit(self, args, rng):
        # a table of more than PAIR_CELLS cells keeps PAIR_LEVELS codes per argument (a code beyond
        # reads the last entry, with the missing values): small with two high-cardinality columns
        na, nb = _n_codes(args[0]), _n_codes(args[1])
        if (na + 1) * (nb + 1) > PAIR_CELLS:
            na, nb = min(na, PAIR_LEVELS), min(nb, PAIR_LEVELS)
        a, b = _codes(args[0], na), _codes(args[1], nb)
        t = np.zeros((na + 1, nb + 1))
        np.add.at(t, (a, b), 1.0)
        return {"freq": (t / max(a.size, 1)).tolist()}

    def apply(self, args, consts):
        t = np.asarray(consts["freq"], dtype=np.float64)
        return t[_codes(args[0], t.shape[0] - 1), _codes(args[1], t.shape[1] - 1)]

    def format(self, args, consts):
        return f"count({args[0]}, {args[1]})"

    def check(self, consts):
        t = np.asarray(consts["freq"], dtype=np.float64)
        if t.ndim != 2 or t.size == 0:
            raise ValueError("pair_count needs a 2-D frequency table")


class GroupMean(Operator):
    """Mean of a numeric column within the row's category (a group-by aggregate)."""

    name = "group_mean"
    arity = 2
    kinds = ("numeric", "categorical")
    group = "category"
    summary = "mean of a numeric column within the row's category"

    def fit(self, args, rng):
        return {"means": _group_means(args[0], args[1])}

    def apply(self, args, consts):
        m = np.asarray(consts["means"], dtype=np.float64)
        return m[_codes(args[1], m.size - 1)]

    def format(self, args, consts):
        return f"mean({args[0]} by {args[1]})"

    def check(self, consts):
        if len(consts["means"]) < 1:
            raise ValueError("group_mean needs a table of means")
        [float(v) for v in consts["means"]]


class GroupDev(GroupMean):
    """A numeric column minus its mean within the row's category."""

    name = "group_dev"
    summary = "numeric column minus its mean within the row's category"

    def apply(self, args, consts):
        return args[0] - super().apply(args, consts)

    def format(self, args, consts):
        return f"{args[0]} - mean({args[0]} by {args[1]})"


class GroupRank(Operator):
    """Rank (0..1) of a numeric value among the training values of the same category.

    Each category keeps 11 quantiles (0 %, 10 %, ..., 100 %) of its training
    values and a value is placed by linear interpolation between them; a
    category with fewer than 5 values uses the quantiles of all rows."""

    name = "group_rank"
    arity = 2
    kinds = ("numeric", "categorical")
    group = "category"
    summary = "rank of a numeric value within the row's category"

    def fit(self, args, rng):
        x, c = args
        n = _n_codes(c)
        codes = _codes(c, n)
        ok = ~np.isnan(x)
        overall = np.quantile(x[ok], RANK_GRID) if ok.any() else np.zeros(RANK_GRID.size)
        qs = []
        for k in [*list(range(n)), -1]:
            m = ok & (codes == k)
            qs.append((np.quantile(x[m], RANK_GRID) if m.sum() >= 5 else overall).tolist())
        return {"q": qs}

    def apply(self, args, consts):
        x, c = args
        q = consts["q"]
        codes = _codes(c, len(q) - 1)
        out = np.full(x.shape, np.nan)
        for k in np.unique(codes):
            m = codes == k
            out[m] = np.interp(x[m], np.asarray(q[k]), RANK_GRID)
        out[np.isnan(x)] = np.nan
        return out

    def format(self, args, consts):
        return f"rank({args[0]} by {args[1]})"

    def check(self, consts):
        q = consts["q"]
        if len(q) < 1 or any(len(r) != RANK_GRID.size for r in q):
            raise ValueError(f"group_rank needs rows of {RANK_GRID.size} quantiles")
        [float(v) for r in q for v in r]


#: the calendar parts ``date_part`` can take
DATE_PARTS = ("year", "month", "day", "weekday", "dayofyear", "hour")


def date_part(days: np.ndarray, part: str) -> np.ndarray:
    """A calendar part of dates given as days since 1970-01-01 (NaN stays NaN); weekday 0 is Monday."""
    miss = np.isnan(days)
    d = np.where(miss, 0.0, days)
    day = np.floor(d).astype(np.int64)
    D = day.astype("datetime64[D]")
    if part == "year":
        out = D.astype("datetime64[Y]").astype(np.int64) + 1970
    elif part == "month":
        out = D.astype("datetime64[M]").astype(np.int64) % 12 + 1
    elif part == "day":
        out = (D - D.astype("datetime64[M]").astype("datetime64[D]")).astype(np.int64) + 1
    elif part == "weekday":
        out = (day + 3) % 7  # 1970-01-01 was a Thursday
    elif part == "dayofyear":
        out = (D - D.astype("datetime64[Y]").astype("datetime64[D]")).astype(np.int64) + 1
    elif part == "hour":
        out = np.floor((d - day) * 24.0 + 1e-9)
    else:
        raise ValueError(f"unknown date part {part!r}; known: {', '.join(DATE_PARTS)}")
    out = out.astype(np.float64)
    out[miss] = np.nan
    return out


class DatePart(Operator):
    """A calendar part of a datetime column: year, month, day, weekday, day of year or hour
    (one that varies on the training rows, drawn at random)."""

    name = "date_part"
    kinds = ("datetime",)
    group = "date"
    summary = "calendar part (year, month, day, weekday, day of year, hour) of a datetime column"

    @staticmethod
    def _parts(x):
        return [p for p in DATE_PARTS if np.unique(date_part(x, p)[~np.isnan(x)]).size > 1]

    def fit(self, args, rng):
        parts = self._parts(args[0])
        return {"part": str(rng.choice(parts)) if parts else "year"}

    def variants(self, args):
        return [{"part": p} for p in self._parts(args[0])] or [{"part": "year"}]

    def apply(self, args, consts):
        return date_part(args[0], consts["part"])

    def format(self, args, consts):
        return f"{consts['part']}({args[0]})"

    def check(self, consts):
        if consts["part"] not in DATE_PARTS:
            raise ValueError(f"date part {consts['part']!r} is not one of {', '.join(DATE_PARTS)}")


class DateDiff(Operator):
    """Days between two datetime columns."""

    name = "date_diff"
    arity = 2
    kinds = ("datetime", "datetime")
    group = "date"
    summary = "days between two datetime columns"

    def apply(self, args, consts):
        return args[0] - args[1]

    def format(self, args, consts):
        return f"days({args[0]} - {args[1]})"


#: every operator, arithmetic first (unary, then binary), then the operators on other kinds of columns;
#: the ``op`` meta-feature indexes the family's selection of this list
OPERATORS: dict[str, Operator] = {op.name: op for op in (
    Threshold(), Log(), Square(), Mul(), Ratio(), Diff(),  # arithmetic
    IsNA(), Count(), PairCount(), GroupMean(), GroupDev(), GroupRank(),  # missing values, categories
    DatePart(), DateDiff(),  # dates
)}

#: the arithmetic operators (on numeric columns), the family's original six
ARITH: tuple[str, ...] = ("threshold", "log", "square", "mul", "ratio", "diff")


def operator(name: str) -> Operator:
    """The operator called ``name``."""
    try:
        return OPERATORS[name]
    except KeyError:
        raise ValueError(f"unknown operator {name!r}; known: {', '.join(OPERATORS)}") from None
