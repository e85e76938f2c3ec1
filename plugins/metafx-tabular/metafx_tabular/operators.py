"""The operators a ``tabular`` feature is built from.

Every operator maps the values of its argument(s) -- whole columns, one value
per sample -- to a new column.  Some need constants learned from the training
data (a threshold, the shift that makes a logarithm's argument positive);
:meth:`Operator.fit` learns them from a sample of the training rows and they
are stored in the feature's JSON specification, so computing a feature later
needs no data but its inputs.

To add an operator: subclass :class:`Operator`, give it a unique ``name``,
``arity`` 1 or 2 and ``apply`` / ``fit`` / ``format``, and add an instance to
:data:`OPERATORS`.  Unary operators should come before binary ones in that
order: the ``op`` meta-feature is the index in it, and a search engine moves
along neighbouring indices.
"""

from __future__ import annotations

from typing import Any, ClassVar, Sequence

import numpy as np

__all__ = ["Operator", "OPERATORS", "operator", "positive_shift"]

#: the quantiles a threshold may sit at
QUANTILES = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)


def positive_shift(v: np.ndarray) -> float:
    """The shift that makes ``v`` positive: 0 when it already is, else ``min(v) - 1`` (so ``v - shift >= 1``)."""
    lo = float(np.min(v)) if v.size else 0.0
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

    def fit(self, args: Sequence[np.ndarray], rng: np.random.Generator) -> dict[str, Any]:
        """Constants learned from the arguments' values on the training sample."""
        return {}

    def apply(self, args: Sequence[np.ndarray], consts: dict[str, Any]) -> np.ndarray:
        raise NotImplementedError

    def format(self, args: Sequence[str], consts: dict[str, Any]) -> str:
        raise NotImplementedError

    def check(self, consts: dict[str, Any]) -> None:
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
        q = float(rng.choice(QUANTILES))
        return {"q": q, "t": float(np.quantile(args[0], q))}

    def apply(self, args, consts):
        return (args[0] > consts["t"]).astype(np.float64)

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
    summary = "difference of two scaled arguments"

    def apply(self, args, consts):
        return args[0] - args[1]

    def format(self, args, consts):
        return f"{_wrap(args[0])} - {_wrap(args[1])}"


#: every operator, unary first; the ``op`` meta-feature indexes the family's selection of this list
OPERATORS: dict[str, Operator] = {op.name: op for op in (Threshold(), Log(), Square(), Mul(), Ratio(), Diff())}


def operator(name: str) -> Operator:
    """The operator called ``name``."""
    try:
        return OPERATORS[name]
    except KeyError:
        raise ValueError(f"unknown operator {name!r}; known: {', '.join(OPERATORS)}") from None
