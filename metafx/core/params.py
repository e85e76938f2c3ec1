"""Declared parameter constraints and the one validator that checks them.

A component declares what each constructor parameter accepts in the class
attribute ``_parameter_constraints`` (name -> list of constraints; a value is
valid when it satisfies any of them), the way scikit-learn estimators do::

    class MyScorer(FeatureScorer):
        _parameter_constraints = {
            "k": [Interval("int", 1, None)],
            "beta": [Interval("real", 0, None, closed="neither"), None],
            "mode": [Options("fast", "exact")],
        }

A constraint is a :class:`Constraint`, ``None`` (the value ``None``), a type
(an instance of it), or one of the strings ``"boolean"``, ``"array-like"``,
``"callable"``, ``"dict"`` and ``"no_validation"``.  Declarations of a base
class are inherited and can be overridden per parameter.
:meth:`metafx.plugin.Component.check_params` runs :func:`validate_params`
first; a component overrides ``check_params`` only for checks that tie
parameters together (calling ``super().check_params()`` first).  A component
that declares nothing is not checked here (its own ``check_params`` does it).

Errors are :class:`~metafx.ValidationError` naming the parameter, the value and
what is allowed, e.g. ``k=0 must be an integer >= 1``.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from .exceptions import ValidationError

__all__ = [
    "Constraint",
    "HasMethods",
    "InstanceOf",
    "Interval",
    "Options",
    "Satisfies",
    "check_value",
    "declared_constraints",
    "invalid_values",
    "make_constraint",
    "validate_params",
]


class Constraint:
    """What a parameter accepts: :meth:`accepts` a value, and says what it accepts in words (``str``)."""

    def accepts(self, value: Any) -> bool:  # pragma: no cover - abstract
        raise NotImplementedError

    def invalid_candidates(self) -> list[Any]:
        """Values near the edge of what this constraint accepts that it refuses (for generated tests)."""
        return []


class _NoneConstraint(Constraint):
    def accepts(self, value: Any) -> bool:
        return value is None

    def __str__(self) -> str:
        return "None"


class _Boolean(Constraint):
    def accepts(self, value: Any) -> bool:
        return isinstance(value, (bool, np.bool_))

    def __str__(self) -> str:
        return "True or False"

    def invalid_candidates(self) -> list[Any]:
        return ["yes", 1]


class _ArrayLike(Constraint):
    def accepts(self, value: Any) -> bool:
        return not isinstance(value, (str, bytes, Mapping)) and (
            hasattr(value, "__len__") or hasattr(value, "shape") or hasattr(value, "__array__"))

    def __str__(self) -> str:
        return "an array-like"


class _Callable(Constraint):
    def accepts(self, value: Any) -> bool:
        return callable(value)

    def __str__(self) -> str:
        return "a callable"


class _NoValidation(Constraint):
    def accepts(self, value: Any) -> bool:
        return True

    def __str__(self) -> str:
        return "anything"


class Interval(Constraint):
    """Numbers between ``left`` and ``right`` (``None``: unbounded).

    ``kind``: ``"int"`` (integers; ``True``/``False`` are refused) or ``"real"``
    (finite real numbers, integers included).  ``closed``: ``"both"``,
    ``"left"``, ``"right"`` or ``"neither"``.
    """

    def __init__(self, kind: str, left: float | None, right: float | None, *, closed: str = "both") -> None:
        if kind not in ("int", "real"):
            raise ValueError(f"kind={kind!r}; allowed: 'int', 'real'")
        if closed not in ("both", "left", "right", "neither"):
            raise ValueError(f"closed={closed!r}; allowed: 'both', 'left', 'right', 'neither'")
        if left is not None and right is not None and left > right:
            raise ValueError(f"left={left} is above right={right}")
        self.kind, self.left, self.right, self.closed = kind, left, right, closed

    def accepts(self, value: Any) -> bool:
        if isinstance(value, (bool, np.bool_)):
            return False
        if self.kind == "int":
            if not isinstance(value, numbers.Integral):
                return False
        elif not (isinstance(value, numbers.Real) and math.isfinite(float(value))):
            return False
        left_in = self.closed in ("both", "left")
        right_in = self.closed in ("both", "right")
        if self.left is not None and (value < self.left if left_in else value <= self.left):
            return False
        if self.right is not None and (value > self.right if right_in else value >= self.right):
            return False
        return True

    def __str__(self) -> str:
        what = "an integer" if self.kind == "int" else "a finite number"
        left_in = self.closed in ("both", "left")
        right_in = self.closed in ("both", "right")
        if self.left is not None and self.right is not None:
            return f"{what} in {'[' if left_in else '('}{self.left:g}, {self.right:g}{']' if right_in else ')'}"
        if self.left is not None:
            return f"{what} {'>=' if left_in else '>'} {self.left:g}"
        if self.right is not None:
            return f"{what} {'<=' if right_in else '<'} {self.right:g}"
        return what

    def invalid_candidates(self) -> list[Any]:
        out: list[Any] = []
        if self.left is not None:
            out.append(self.left - 1 if self.kind == "int" or self.closed in ("both", "left") else self.left)
        if self.right is not None:
            out.append(self.right + 1 if self.kind == "int" or self.closed in ("both", "right") else self.right)
        if self.kind == "int":
            mid = self.left if self.left is not None else (self.right if self.right is not None else 0)
            out.append(float(mid) + 0.5)
        else:
            out.append(math.nan)
        return out


class Options(Constraint):
    """One of the given values (strings, numbers; ``True``/``False`` only when listed)."""

    def __init__(self, *values: Any) -> None:
        if len(values) == 1 and isinstance(values[0], (set, frozenset, list, tuple)):
            values = tuple(values[0])
        self.values = tuple(values)

    def accepts(self, value: Any) -> bool:
        if isinstance(value, (bool, np.bool_)) and not any(isinstance(v, bool) for v in self.values):
            return False
        try:
            return value is not None and any(value == v for v in self.values)
        except Exception:  # an array compared with a string, say
            return False

    def __str__(self) -> str:
        return "one of " + ", ".join(map(repr, self.values))

    def invalid_candidates(self) -> list[Any]:
        return ["no-such-option-xyz"]


class InstanceOf(Constraint):
    """An instance of ``types`` (described as ``what``, default: the type names)."""

    def __init__(self, types: type | tuple[type, ...], what: str | None = None) -> None:
        self.types = types
        names = types if isinstance(types, tuple) else (types,)
        self.what = what or " or ".join(f"an instance of {t.__name__}" for t in names)

    def accepts(self, value: Any) -> bool:
        return isinstance(value, self.types) and not (isinstance(value, bool) and self.types in (int, float))

    def __str__(self) -> str:
        return self.what


class HasMethods(Constraint):
    """An object with the given methods (e.g. a scikit-learn estimator: ``fit`` and ``predict``)."""

    def __init__(self, *methods: str, what: str | None = None) -> None:
        self.methods = methods
        self.what = what or f"an object with {', '.join(methods)}"

    def accepts(self, value: Any) -> bool:
        return all(callable(getattr(value, m, None)) for m in self.methods)

    def __str__(self) -> str:
        return self.what


class Satisfies(Constraint):
    """A value for which ``test(value)`` is true (described as ``what``).

    For constraints the other kinds cannot say; ``invalid`` lists refused values for the generated tests.
    """

    def __init__(self, test: Any, what: str, invalid: Iterable[Any] = ()) -> None:
        self.test, self.what, self.invalid = test, what, list(invalid)

    def accepts(self, value: Any) -> bool:
        try:
            return bool(self.test(value))
        except Exception:
            return False

    def __str__(self) -> str:
        return self.what

    def invalid_candidates(self) -> list[Any]:
        return list(self.invalid)


_NAMED = {
    "boolean": _Boolean(),
    "array-like": _ArrayLike(),
    "callable": _Callable(),
    "dict": InstanceOf(Mapping, "a dict"),
    "no_validation": _NoValidation(),
}


def make_constraint(spec: Any) -> Constraint:
    """The :class:`Constraint` a declaration names (see the module docstring)."""
    if isinstance(spec, Constraint):
        return spec
    if spec is None:
        return _NoneConstraint()
    if isinstance(spec, str) and spec in _NAMED:
        return _NAMED[spec]
    if isinstance(spec, type):
        return InstanceOf(spec, "a string" if spec is str else None)
    raise TypeError(f"unknown parameter constraint {spec!r}; use a Constraint, None, a type or one of "
                    f"{', '.join(map(repr, _NAMED))}")


def declared_constraints(cls: type) -> dict[str, list[Constraint]]:
    """Every parameter constraint ``cls`` declares, its bases' included (the subclass's win)."""
    merged: dict[str, Any] = {}
    for klass in reversed(cls.__mro__):
        merged.update(vars(klass).get("_parameter_constraints", {}) or {})
    return {name: [make_constraint(s) for s in specs] for name, specs in merged.items()}


def _allowed(constraints: list[Constraint]) -> str:
    shown = [str(c) for c in constraints]
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " or " + shown[-1]


def check_value(name: str, value: Any, constraints: list[Any]) -> None:
    """Raise :class:`ValidationError` unless ``value`` satisfies one of ``constraints`` (declarations)."""
    constraints = [make_constraint(c) for c in constraints]
    if any(c.accepts(value) for c in constraints):
        return
    if len(constraints) == 1 and isinstance(constraints[0], Options):
        raise ValidationError(f"{name}={value!r} is not allowed; choose one of "
                              f"{', '.join(map(repr, constraints[0].values))}")
    raise ValidationError(f"{name}={value!r} must be {_allowed(constraints)}")


def validate_params(obj: Any) -> None:
    """Check every declared parameter of ``obj`` (its current attribute values)."""
    for name, constraints in declared_constraints(type(obj)).items():
        if hasattr(obj, name):
            check_value(name, getattr(obj, name), constraints)


def invalid_values(constraints: list[Any]) -> list[Any]:
    """Values that none of ``constraints`` accepts: the candidates each one proposes, plus generic ones."""
    constraints = [make_constraint(c) for c in constraints]
    if not constraints or any(isinstance(c, _NoValidation) for c in constraints):
        return []
    pool: list[Any] = []
    for c in constraints:
        pool.extend(c.invalid_candidates())
    pool.extend(["not-a-valid-value", object()])
    out = []
    for v in pool:
        if not any(c.accepts(v) for c in constraints):
            out.append(v)
    return out
