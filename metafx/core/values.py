"""Value types shared by every component: meta-feature spaces, feature values
and search steps."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from typing import Any, cast

import numpy as np

from .exceptions import ValidationError

__all__ = [
    "Dimension",
    "FeatureValues",
    "MetaFeatureSpace",
    "PriorObservation",
    "StepRecord",
]


# --------------------------------------------------------------------------- space
@dataclass(frozen=True)
class Dimension:
    """One meta-feature axis of a search space.

    Parameters
    ----------
    name : str
        Meta-feature name, e.g. ``"numInputs"``.
    kind : {"int", "float", "categorical"}
        Integer dimensions take every integer in ``[low, high]``; categorical
        ones take one of ``choices`` (strings or numbers, no order assumed).
    low, high : float
        Inclusive range (numeric kinds; categorical: ``0`` and ``len(choices) - 1``).
    step : float
        Size of a local move: integer dimensions move by a uniform integer in
        ``[-step, step]``; float dimensions by a Gaussian of this standard
        deviation; categorical ones to another choice drawn uniformly.
    default : optional
        The starting value of local searches (``u_0``); the centre of the range
        (rounded for integers), or the first choice, when omitted.
    choices : tuple, optional
        The values of a categorical dimension.
    labels : tuple of str, optional
        Names of the values, for display only (reports, ``metafx show``): ``labels[i]`` names the
        ``i``-th value (``low + i`` of an int dimension, ``choices[i]`` of a categorical one), e.g. the
        operators behind the indices of a tabular family's ``op``.  Not for float dimensions.

    Examples
    --------
    >>> Dimension("op", "categorical", choices=("add", "mul")).check("mul")
    'mul'
    >>> Dimension("k", "int", 1, 8).start
    4
    """

    name: str
    kind: str
    low: float | None = None
    high: float | None = None
    step: float = 1.0
    default: Any = None
    description: str = ""
    choices: tuple[Any, ...] = ()
    labels: tuple[Any, ...] = ()

    def __post_init__(self) -> None:
        self._check_kind()
        labels = tuple(self.labels)
        object.__setattr__(self, "labels", labels)
        if labels and (self.kind == "float" or len(labels) != self.n_values
                       or not all(isinstance(x, str) for x in labels)):
            raise ValidationError(f"Dimension {self.name!r}: labels={self.labels!r} must be one string per value "
                                  f"of an int or categorical dimension ({self.n_values} here)")

    def label(self, value: Any) -> str | None:
        """The name of ``value`` from ``labels`` (None without labels or for a value outside the dimension)."""
        if not self.labels:
            return None
        try:
            v = self.check(value)
        except ValidationError:
            return None
        if self.kind == "categorical":  # check returns the very choice
            return cast("str | None", self.labels[next(j for j, c in enumerate(self.choices) if c is v)])
        return cast("str | None", self.labels[v - int(self._bounds[0])])

    def _check_kind(self) -> None:
        if self.kind not in KINDS:
            raise ValidationError(f"Dimension {self.name!r}: kind={self.kind!r}; allowed: {', '.join(map(repr, KINDS))}")
        if self.kind == "categorical":
            choices = tuple(self.choices)
            if not choices or len(set(map(repr, choices))) != len(choices):
                raise ValidationError(f"Dimension {self.name!r}: choices={self.choices!r} must be distinct values, "
                                      "at least one")
            object.__setattr__(self, "choices", choices)
            object.__setattr__(self, "low", 0)
            object.__setattr__(self, "high", len(choices) - 1)
            if self.default is not None and self.default not in choices:
                raise ValidationError(f"Dimension {self.name!r}: default={self.default!r} is not one of {choices}")
            return
        if self.choices:
            raise ValidationError(f"Dimension {self.name!r}: choices are for kind='categorical'")
        if self.low is None or self.high is None:
            raise ValidationError(f"Dimension {self.name!r}: a {self.kind} dimension needs low and high")
        if not self.low <= self.high:
            raise ValidationError(f"Dimension {self.name!r}: low={self.low} is above high={self.high}")

    @property
    def _bounds(self) -> tuple[float, float]:
        """``(low, high)``: both are set once the dimension is built (categorical: the codes' range)."""
        assert self.low is not None and self.high is not None, "__post_init__ sets low and high"
        return self.low, self.high

    def clip(self, value: Any) -> Any:
        """The nearest value of the dimension (categorical: ``value`` if allowed, else the start)."""
        if self.kind == "categorical":
            return value if value in self.choices else self.start
        low, high = self._bounds
        v = min(max(float(value), low), high)
        return int(round(v)) if self.kind == "int" else v

    def check(self, value: Any) -> Any:
        """Validate one value (a clear error when outside the range or not a choice)."""
        is_bool = isinstance(value, (bool, np.bool_))
        if self.kind == "categorical":
            for c in self.choices:
                if isinstance(c, str) == isinstance(value, str) and isinstance(c, (bool, np.bool_)) == is_bool \
                        and c == value:
                    return c
            raise ValidationError(f"meta-feature {self.name}={value!r} is not one of {list(self.choices)}")
        if is_bool or not isinstance(value, (int, float, np.integer, np.floating)):
            # True is no 1 and "3" no 3: a value of another type is refused, not coerced
            raise ValidationError(f"meta-feature {self.name}={value!r} is not a number; allowed: "
                                  f"{'an integer' if self.kind == 'int' else 'a number'} in "
                                  f"[{self.low:g}, {self.high:g}]")
        try:
            v = float(value)
        except (TypeError, ValueError):
            raise ValidationError(f"meta-feature {self.name}={value!r} is not a number") from None
        low, high = self._bounds
        if not math.isfinite(v) or v < low - 1e-9 or v > high + 1e-9:
            raise ValidationError(
                f"meta-feature {self.name}={value!r} is outside its range [{self.low:g}, {self.high:g}]"
            )
        if self.kind == "int":
            if abs(v - round(v)) > 1e-9:
                raise ValidationError(f"meta-feature {self.name}={value!r} must be an integer")
            return int(round(v))
        return v

    @property
    def start(self) -> Any:
        if self.kind == "categorical":
            return self.default if self.default is not None else self.choices[0]
        if self.default is not None:
            return self.clip(self.default)
        low, high = self._bounds
        return self.clip((low + high) / 2)

    def uniform(self, rng: np.random.Generator) -> Any:
        if self.kind == "categorical":
            return self.choices[int(rng.integers(len(self.choices)))]
        low, high = self._bounds
        if self.kind == "int":
            return int(rng.integers(int(low), int(high) + 1))
        return float(rng.uniform(low, high))

    def move(self, value: Any, rng: np.random.Generator) -> Any:
        if self.kind == "categorical":
            others = [c for c in self.choices if c != value]
            return others[int(rng.integers(len(others)))] if others else value
        if self.kind == "int":
            s = max(1, int(round(self.step)))
            return self.clip(value + int(rng.integers(-s, s + 1)))
        return self.clip(value + float(rng.normal(0.0, self.step)))

    # Array twins of ``uniform`` and ``move`` on numeric codes (a categorical value's code is its
    # choice's index): ``n`` draws at once, for a model that scores many candidate points.  They draw
    # from the same distributions as the scalar methods, not the same random stream.
    def code(self, value: Any) -> float:
        """The numeric code of ``value`` (categorical: the index of its choice)."""
        return float(self.choices.index(value)) if self.kind == "categorical" else float(value)

    def from_code(self, code: float) -> Any:
        """The value whose :meth:`code` is ``code``."""
        if self.kind == "categorical":
            return self.choices[int(code)]
        return int(code) if self.kind == "int" else float(code)

    def uniform_codes(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """Codes of ``n`` values drawn as :meth:`uniform` draws one."""
        if self.kind == "categorical":
            return rng.integers(len(self.choices), size=n).astype(np.float64)
        low, high = self._bounds
        if self.kind == "int":
            return rng.integers(int(low), int(high) + 1, size=n).astype(np.float64)
        return rng.uniform(low, high, size=n)

    def move_codes(self, code: float, rng: np.random.Generator, n: int) -> np.ndarray:
        """Codes of ``n`` moves from the value of code ``code``, each as :meth:`move` makes one
        (categorical: another choice; int: up to ``step`` either way; float: Gaussian of sd ``step``;
        clipped to the range)."""
        if self.kind == "categorical":
            k = len(self.choices)
            return (code + rng.integers(1, k, size=n)) % k if k > 1 else np.full(n, float(code))
        if self.kind == "int":
            s = max(1, int(round(self.step)))
            return cast("np.ndarray", np.rint(np.clip(code + rng.integers(-s, s + 1, size=n), *self._bounds)))
        return np.clip(code + rng.normal(0.0, self.step, size=n), *self._bounds)

    @property
    def n_values(self) -> float:
        """Number of distinct values (``inf`` for float dimensions)."""
        if self.kind == "categorical":
            return float(len(self.choices))
        low, high = self._bounds
        return high - low + 1 if self.kind == "int" else math.inf


KINDS = ("int", "float", "categorical")


@dataclass(frozen=True)
class MetaFeatureSpace:
    """The space a search engine explores: meta-feature dimensions, some fixed.

    Points are plain ``dict``\\ s mapping every dimension name to a value.
    """

    dimensions: tuple[Dimension, ...]
    fixed: Mapping[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        names = [d.name for d in self.dimensions]
        if len(set(names)) != len(names):
            raise ValidationError(f"duplicate dimension names in {names}")
        fixed = dict(self.fixed)
        for k, v in fixed.items():
            fixed[k] = self[k].check(v)
        object.__setattr__(self, "fixed", fixed)

    # -- access
    @property
    def names(self) -> list[str]:
        return [d.name for d in self.dimensions]

    @property
    def free(self) -> list[Dimension]:
        return [d for d in self.dimensions if d.name not in self.fixed]

    def __getitem__(self, name: str) -> Dimension:
        for d in self.dimensions:
            if d.name == name:
                return d
        raise ValidationError(f"unknown meta-feature {name!r}; this space has: {', '.join(self.names)}")

    def with_fixed(self, fixed: Mapping[str, float] | None) -> MetaFeatureSpace:
        """A copy with the given dimensions fixed to values (validated)."""
        merged = dict(self.fixed)
        for k, v in (fixed or {}).items():
            merged[k] = self[k].check(v)
        return MetaFeatureSpace(self.dimensions, merged)

    # -- points
    def check_point(self, point: Mapping[str, Any]) -> dict[str, float | int]:
        """Validate a (possibly partial) point; missing free values start at their default."""
        unknown = set(point) - set(self.names)
        if unknown:
            raise ValidationError(
                f"unknown meta-feature(s) {sorted(unknown)}; this space has: {', '.join(self.names)}"
            )
        out: dict[str, float | int] = {}
        for d in self.dimensions:
            if d.name in self.fixed:
                out[d.name] = self.fixed[d.name]
            elif d.name in point:
                out[d.name] = d.check(point[d.name])
            else:
                out[d.name] = d.start
        return out

    def start(self, start: Mapping[str, Any] | None = None) -> dict[str, float | int]:
        if start is not None and not isinstance(start, Mapping):
            raise ValidationError(f"start={start!r} must be a mapping of meta-feature names to values, "
                                  f"e.g. {{{', '.join(repr(d.name) + ': ...' for d in self.dimensions[:2])}}}")
        return self.check_point(dict(start or {}))

    def uniform(self, rng: np.random.Generator) -> dict[str, float | int]:
        return {d.name: (self.fixed[d.name] if d.name in self.fixed else d.uniform(rng)) for d in self.dimensions}

    def neighbour(self, point: Mapping[str, Any], rng: np.random.Generator, tries: int = 25) -> dict[str, float | int]:
        """A random point near ``point``: every free dimension moves by its own noise.

        Draws again (up to ``tries`` times) when the move lands on ``point``
        itself, so a step explores a new point whenever the space allows it.
        """
        cand = dict(point)
        for _ in range(tries):
            cand = {
                d.name: (point[d.name] if d.name in self.fixed else d.move(point[d.name], rng))
                for d in self.dimensions
            }
            if cand != dict(point):
                return cand
        return cand

    @property
    def size(self) -> float:
        """Number of distinct points (``inf`` if a free dimension is continuous)."""
        n = 1.0
        for d in self.free:
            n *= d.n_values
        return n

    def describe(self, point: Mapping[str, Any]) -> str:
        """``point`` as text, each value followed by its label where its dimension has labels:
        ``"arity=2, op=3 (mul), rank=0"``."""
        dims = {d.name: d for d in self.dimensions}
        out = []
        for k, v in point.items():
            text = f"{k}={v:.3g}" if isinstance(v, float) else f"{k}={v}"
            name = dims[k].label(v) if k in dims else None
            out.append(f"{text} ({name})" if name is not None else text)
        return ", ".join(out)

    def to_dict(self) -> dict[str, Any]:
        dims = [{k: v for k, v in asdict(d).items() if k not in ("choices", "labels") or v} for d in self.dimensions]
        return {"dimensions": dims, "fixed": dict(self.fixed)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MetaFeatureSpace:
        return cls(tuple(Dimension(**{**d, "choices": tuple(d.get("choices", ())), "labels": tuple(d.get("labels", ()))})
                         for d in data["dimensions"]),
                   data.get("fixed", {}))


# --------------------------------------------------------------------------- values
def unpack_packed(packed: np.ndarray, n_samples: int) -> np.ndarray:
    """The ``(n_samples, n_features)`` 0/1 uint8 matrix of bit-packed columns.

    Sample ``i`` is bit ``i % 64`` of word ``i // 64`` (the layout of
    :mod:`metafx._kernels.packing`).

    >>> unpack_packed(np.array([[5], [2]], dtype=np.uint64), 3).tolist()
    [[1, 0], [0, 1], [1, 0]]
    """
    words = np.ascontiguousarray(packed, dtype="<u8")
    bits = np.unpackbits(words.view(np.uint8), axis=1, count=int(n_samples), bitorder="little")
    return np.ascontiguousarray(bits.T)


def is_binary(X: np.ndarray) -> bool:
    """Whether every value of ``X`` is 0 or 1 (a bool array always is).

    >>> is_binary(np.array([[0, 1], [1, 1]])), is_binary(np.array([0.0, 0.5])), is_binary(np.array([2, 0]))
    (True, False, False)
    """
    X = np.asarray(X)
    if X.dtype == bool:
        return True
    if X.size == 0:
        return True
    if X.dtype.kind in "ui":
        return bool(X.min() >= 0 and X.max() <= 1)
    if X.dtype.kind == "f":
        return bool(np.all((X == 0) | (X == 1)))
    return False


def pack_binary(X: np.ndarray) -> np.ndarray:
    """The columns of a 0/1 ``(n_samples, n_features)`` array as bit-packed rows, ``(n_features,
    ceil(n_samples / 64))`` uint64 (the layout :func:`unpack_packed` reads; any nonzero value is a 1).

    >>> pack_binary(np.array([[1, 0], [0, 1], [1, 1]])).tolist()
    [[5], [6]]
    """
    X = np.asarray(X)
    m, p = X.shape
    words = -(-m // 64)
    X = X.view(np.uint8) if X.dtype == bool else (X != 0).view(np.uint8)
    n8 = -(-m // 8)
    if m % 8:
        X = np.concatenate([X, np.zeros((8 * n8 - m, p), np.uint8)])
    X = X.reshape(n8, 8, p)
    bits = X[:, 0].copy()  # (ceil(m / 8), p): byte r holds samples 8r .. 8r + 7 (whole rows: faster than packbits)
    for k in range(1, 8):
        bits |= X[:, k] << np.uint8(k)
    out = np.zeros((p, 8 * words), dtype=np.uint8)
    out[:, :n8] = bits.T
    return out.view("<u8").astype(np.uint64, copy=False).reshape(p, words)


class FeatureValues:
    """Values of ``n_features`` features on ``n_samples`` samples.

    Binary features may be held bit-packed (``packed``: ``(n_features, ceil(m/64))``
    uint64 words, sample ``i`` at bit ``i % 64`` of word ``i // 64``); the dense
    ``(n_samples, n_features)`` matrix is made only when asked for.
    """

    def __init__(
        self,
        *,
        n_samples: int,
        packed: np.ndarray | None = None,
        dense: np.ndarray | None = None,
    ) -> None:
        if packed is None and dense is None:
            raise ValidationError("FeatureValues needs packed or dense values")
        self.n_samples = int(n_samples)
        self.packed = packed
        self._dense = None if dense is None else np.asarray(dense)
        if self._dense is not None and self._dense.ndim != 2:
            raise ValidationError(f"dense feature values must be 2-D, got shape {self._dense.shape}")

    @classmethod
    def from_dense(cls, X: np.ndarray) -> FeatureValues:
        """Values from a dense ``(n_samples, n_features)`` array.

        Binary values (a bool array, or every value 0 or 1) are also packed into bits, once, here: the
        engines, scorers and evaluators then take their compiled paths for them, as for a built-in
        family's packed values (``docs/plugins.md``, "Performance").

        >>> FeatureValues.from_dense(np.array([[1, 0], [0, 1], [1, 1]], dtype=np.uint8)).packed.tolist()
        [[5], [6]]
        >>> FeatureValues.from_dense(np.array([[0.5], [1.0]])).packed is None
        True
        """
        X = np.asarray(X)
        if X.ndim != 2:
            raise ValidationError(f"X must be 2-D (n_samples, n_features), got shape {X.shape}")
        packed = pack_binary(X) if X.size and is_binary(X) else None
        return cls(n_samples=X.shape[0], dense=X, packed=packed)

    def _unpacked(self) -> np.ndarray:
        """The dense matrix as held, unpacked from the packed words the first time it is asked for."""
        if self._dense is None:
            assert self.packed is not None, "__init__ refuses values that are neither packed nor dense"
            self._dense = unpack_packed(self.packed, self.n_samples)
        return self._dense

    @property
    def binary(self) -> bool:
        if self.packed is not None:
            return True
        d = self._unpacked()
        return bool(d.dtype == bool or np.isin(d, (0, 1)).all())

    @property
    def n_features(self) -> int:
        return int(self.packed.shape[0] if self.packed is not None else self._unpacked().shape[1])

    def dense(self, dtype: Any = np.float32) -> np.ndarray:
        """The ``(n_samples, n_features)`` matrix in ``dtype``."""
        d = self._unpacked()
        return d if d.dtype == dtype else d.astype(dtype)

    def take(self, columns: Sequence[int] | np.ndarray) -> FeatureValues:
        idx = np.asarray(columns, dtype=np.intp)
        if self.packed is not None:
            return FeatureValues(n_samples=self.n_samples, packed=self.packed[idx])
        return FeatureValues(n_samples=self.n_samples, dense=self._unpacked()[:, idx])

    def duplicate_groups(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Features with equal values on every sample, grouped.

        Returns ``(group, first, counts)``: ``group[j]`` is the group of feature
        ``j``, groups numbered in the order of their first feature; ``first[g]``
        is that first feature and ``counts[g]`` the size of group ``g``.

        >>> v = FeatureValues.from_dense(np.array([[1, 0, 1, 0], [0, 1, 0, 1]]))
        >>> v.duplicate_groups()
        (array([0, 1, 0, 1]), array([0, 1]), array([2, 2]))
        """
        n = self.n_features
        if n == 0:
            e = np.zeros(0, dtype=np.intp)
            return e, e.copy(), e.copy()
        rows = self.packed if self.packed is not None else np.ascontiguousarray(self._unpacked().T)
        first, inverse, counts = _row_groups(rows)
        # renumber the groups by first occurrence, so the result does not depend on np.unique's order
        order = np.argsort(first, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        return rank[inverse].astype(np.intp), first[order].astype(np.intp), counts[order].astype(np.intp)

    def row_hashes(self) -> np.ndarray:
        """A 64-bit hash of every feature's values (equal values, equal hash; see :func:`row_hashes`).

        >>> h = FeatureValues.from_dense(np.array([[1, 0, 1], [0, 1, 0]])).row_hashes()
        >>> bool(h[0] == h[2]), bool(h[0] == h[1])
        (True, False)
        """
        if self.packed is not None:
            return row_hashes(self.packed)
        return row_hashes(np.ascontiguousarray(self.dense(np.float64).T))

    def __len__(self) -> int:
        return self.n_features


def _row_groups(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``np.unique(rows, axis=0, return_index=True, return_inverse=True, return_counts=True)``
    without the unique rows, in some order of the groups: rows are hashed to one 64-bit
    number each (sorting those is much faster than sorting rows), and if two different
    rows share a hash the rows themselves are sorted instead.  Real values are hashed too, ``-0.0`` as ``0.0``
    (``np.unique`` groups them); rows holding a NaN (which ``np.unique`` never groups) go to ``np.unique``."""
    if rows.ndim != 2 or rows.shape[1] == 0 or rows.dtype.kind not in "biuf":
        return _unique_rows(rows)
    key = rows
    if rows.dtype.kind == "f":
        if np.isnan(rows).any():
            return _unique_rows(rows)
        key = rows + rows.dtype.type(0.0)  # -0.0 + 0.0 is 0.0: equal values, equal bytes
    _, first, inverse, counts = np.unique(row_hashes(key), return_index=True, return_inverse=True,
                                          return_counts=True)
    inverse = np.asarray(inverse).reshape(-1)
    if not np.array_equal(rows, rows[first[inverse]]):  # a hash shared by different rows
        return _unique_rows(rows)
    return first, inverse, counts


def row_hashes(rows: np.ndarray) -> np.ndarray:
    """One 64-bit hash per row of a 2-D array (of its bytes): splitmix64 of each 8-byte word and its position,
    summed modulo 2**64.  Equal rows get equal hashes; different rows share one with probability about 2**-64."""
    b = np.ascontiguousarray(rows).view(np.uint8).reshape(len(rows), -1)
    if b.shape[1] % 8:
        b = np.concatenate([b, np.zeros((len(rows), -b.shape[1] % 8), np.uint8)], axis=1)
    z = b.view(np.uint64)
    with np.errstate(over="ignore"):
        z = z + np.arange(1, z.shape[1] + 1, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return cast("np.ndarray", (z ^ (z >> np.uint64(31))).sum(axis=1, dtype=np.uint64))


def _unique_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    _, first, inverse, counts = np.unique(rows, axis=0, return_index=True, return_inverse=True, return_counts=True)
    return first, np.asarray(inverse).reshape(-1), counts


# --------------------------------------------------------------------------- results
#: what a step did (:attr:`StepRecord.kind`)
STEP_KINDS = ("point", "portfolio")


@dataclass(frozen=True)
class StepRecord:
    """One finished step of a search."""

    step: int
    point: dict[str, Any]
    quality: float
    cost: float
    n_features: int
    seconds: float
    best_quality: float
    accepted: bool
    timings: dict[str, float] = field(default_factory=dict)
    #: ``"point"``: the features were drawn at ``point``; ``"portfolio"``: the step combined the best sets found
    #: before it (an engine's portfolio step), so it has no meta-feature point of its own (``point`` is empty)
    kind: str = "point"

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        if d["kind"] == "point":  # records of point steps are written as before the field existed
            del d["kind"]
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> StepRecord:
        """A record from its :meth:`to_dict` form, with every field's type and value checked."""
        if not isinstance(d, Mapping):
            raise ValidationError(f"a step record must be a JSON object, got {type(d).__name__}")
        names = [f.name for f in fields(cls)]
        missing = [k for k in names[:8] if k not in d]
        extra = [k for k in d if k not in names]
        if missing or extra:
            raise ValidationError(f"step record fields: missing {missing}, unknown {extra}")
        rec = cls(**d)
        bad = rec.problems()
        if bad:
            raise ValidationError(f"step record {rec.step!r}: {bad}")
        return rec

    def problems(self) -> str:
        """What is wrong with this record's values ('' when nothing is)."""
        def is_int(v: Any) -> bool:
            return isinstance(v, int) and not isinstance(v, bool)

        def is_num(v: Any) -> bool:
            return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)

        if not is_int(self.step) or self.step < 1:
            return f"step={self.step!r} must be an integer >= 1"
        if not isinstance(self.point, dict) or not all(isinstance(k, str) and (is_num(v) or isinstance(v, str))
                                                       for k, v in self.point.items()):
            return f"point={self.point!r} must map meta-feature names to finite numbers or choices"
        for name in ("quality", "best_quality"):
            if not is_num(getattr(self, name)):
                return f"{name}={getattr(self, name)!r} must be a finite number"
        for name in ("cost", "seconds"):
            v = getattr(self, name)
            if not is_num(v) or v < 0:
                return f"{name}={v!r} must be a finite number >= 0"
        if not is_int(self.n_features) or self.n_features < 0:
            return f"n_features={self.n_features!r} must be an integer >= 0"
        if not isinstance(self.accepted, bool):
            return f"accepted={self.accepted!r} must be true or false"
        if self.best_quality < self.quality:
            return f"best_quality={self.best_quality!r} is below quality={self.quality!r}"
        if not isinstance(self.timings, dict) or not all(isinstance(k, str) and is_num(v)
                                                         for k, v in self.timings.items()):
            return f"timings={self.timings!r} must map names to finite numbers"
        if self.kind not in STEP_KINDS:
            return f"kind={self.kind!r} must be one of {', '.join(repr(k) for k in STEP_KINDS)}"
        if self.kind == "portfolio" and self.point:
            return f"a portfolio step has no meta-feature point of its own; point={self.point!r} must be empty"
        return ""


@dataclass(frozen=True)
class PriorObservation:
    """One step of a search on a related task, as a warm start hands it to an engine that learns from it.

    ``point``: the meta-feature point the step drew its set at, fitted to this search's space; ``quality``: the
    set's quality on that task (comparable only within the task); ``task``: which of the warm-start results the
    step belongs to (its index among the given results, 0-based).

    ``features``: ``None`` for a step.  An engine whose ``uses_prior_sets`` is true also gets, per related
    task whose result comes from the same family with the same parameters, one observation that stands for
    the result's chosen set rather than a step: its ``features`` are the result's features (the family's JSON
    form, :meth:`~metafx.plugin.FeatureFamily.from_json`), its point is empty and its quality is the
    result's best quality.
    """

    point: dict[str, Any]
    quality: float
    task: int
    features: list[dict[str, Any]] | None = None

    def to_dict(self) -> dict[str, Any]:
        out = {"point": dict(self.point), "quality": float(self.quality), "task": int(self.task)}
        if self.features is not None:
            out["features"] = [dict(f) for f in self.features]
        return out
