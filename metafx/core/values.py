"""Value types shared by every component: meta-feature spaces, feature values,
search steps and search results."""

from __future__ import annotations

import json
import math
import os
from dataclasses import asdict, dataclass, field
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from .exceptions import ValidationError

__all__ = [
    "Dimension",
    "MetaFeatureSpace",
    "FeatureValues",
    "StepRecord",
    "SearchResult",
]


# --------------------------------------------------------------------------- space
@dataclass(frozen=True)
class Dimension:
    """One meta-feature axis of a search space.

    Parameters
    ----------
    name : str
        Meta-feature name, e.g. ``"numInputs"``.
    kind : {"int", "float"}
        Integer dimensions take every integer in ``[low, high]``.
    low, high : float
        Inclusive range.
    step : float
        Size of a local move: integer dimensions move by a uniform integer in
        ``[-step, step]``; float dimensions by a Gaussian of this standard deviation.
    default : float, optional
        The starting value of local searches (``u_0``); the centre of the range
        (rounded for integers) when omitted.
    """

    name: str
    kind: str
    low: float
    high: float
    step: float = 1.0
    default: float | None = None
    description: str = ""

    def __post_init__(self) -> None:
        if self.kind not in ("int", "float"):
            raise ValidationError(f"Dimension {self.name!r}: kind={self.kind!r}; allowed: 'int', 'float'")
        if not self.low <= self.high:
            raise ValidationError(f"Dimension {self.name!r}: low={self.low} is above high={self.high}")

    def clip(self, value: float) -> float | int:
        v = min(max(float(value), self.low), self.high)
        return int(round(v)) if self.kind == "int" else v

    def check(self, value: Any) -> float | int:
        """Validate one value (a clear error when outside the range)."""
        try:
            v = float(value)
        except (TypeError, ValueError):
            raise ValidationError(f"meta-feature {self.name}={value!r} is not a number") from None
        if not math.isfinite(v) or v < self.low - 1e-9 or v > self.high + 1e-9:
            raise ValidationError(
                f"meta-feature {self.name}={value!r} is outside its range [{self.low:g}, {self.high:g}]"
            )
        if self.kind == "int":
            if abs(v - round(v)) > 1e-9:
                raise ValidationError(f"meta-feature {self.name}={value!r} must be an integer")
            return int(round(v))
        return v

    @property
    def start(self) -> float | int:
        if self.default is not None:
            return self.clip(self.default)
        return self.clip((self.low + self.high) / 2)

    def uniform(self, rng: np.random.Generator) -> float | int:
        if self.kind == "int":
            return int(rng.integers(int(self.low), int(self.high) + 1))
        return float(rng.uniform(self.low, self.high))

    def move(self, value: float, rng: np.random.Generator) -> float | int:
        if self.kind == "int":
            s = max(1, int(round(self.step)))
            return self.clip(value + int(rng.integers(-s, s + 1)))
        return self.clip(value + float(rng.normal(0.0, self.step)))

    @property
    def n_values(self) -> float:
        """Number of distinct values (``inf`` for float dimensions)."""
        return self.high - self.low + 1 if self.kind == "int" else math.inf


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
        object.__setattr__(self, "fixed", dict(self.fixed))
        for k, v in self.fixed.items():
            self.fixed[k] = self[k].check(v)

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

    def to_dict(self) -> dict[str, Any]:
        return {"dimensions": [asdict(d) for d in self.dimensions], "fixed": dict(self.fixed)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MetaFeatureSpace:
        return cls(tuple(Dimension(**d) for d in data["dimensions"]), data.get("fixed", {}))


# --------------------------------------------------------------------------- values
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
        X = np.asarray(X)
        if X.ndim != 2:
            raise ValidationError(f"X must be 2-D (n_samples, n_features), got shape {X.shape}")
        return cls(n_samples=X.shape[0], dense=X)

    @property
    def binary(self) -> bool:
        if self.packed is not None:
            return True
        d = self._dense
        return bool(d.dtype == bool or np.isin(d, (0, 1)).all())

    @property
    def n_features(self) -> int:
        return int(self.packed.shape[0] if self.packed is not None else self._dense.shape[1])

    def dense(self, dtype: Any = np.float32) -> np.ndarray:
        """The ``(n_samples, n_features)`` matrix in ``dtype``."""
        if self._dense is None:
            from ._kernels.packing import unpack_columns

            self._dense = unpack_columns(self.packed, self.n_samples)
        return self._dense if self._dense.dtype == dtype else self._dense.astype(dtype)

    def take(self, columns: Sequence[int] | np.ndarray) -> FeatureValues:
        idx = np.asarray(columns, dtype=np.intp)
        if self.packed is not None:
            return FeatureValues(n_samples=self.n_samples, packed=self.packed[idx])
        return FeatureValues(n_samples=self.n_samples, dense=self._dense[:, idx])

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
        rows = self.packed if self.packed is not None else np.ascontiguousarray(self._dense.T)
        _, first, inverse, counts = np.unique(rows, axis=0, return_index=True, return_inverse=True,
                                              return_counts=True)
        inverse = np.asarray(inverse).reshape(-1)
        # renumber the groups by first occurrence, so the result does not depend on np.unique's order
        order = np.argsort(first, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        return rank[inverse].astype(np.intp), first[order].astype(np.intp), counts[order].astype(np.intp)

    def __len__(self) -> int:
        return self.n_features


# --------------------------------------------------------------------------- results
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

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> StepRecord:
        return cls(**d)


FORMAT_VERSION = 1


@dataclass
class SearchResult:
    """What a search returns: the best point, its features, and the trajectory.

    ``features`` is a list of JSON-able feature specifications of ``family``
    (for ``pixel-and``: ``{"family": "pixel-and", "inputs": [[row, col, negated], ...],
    "shift": a}``).  ``transform(X)`` computes them on new data.
    """

    family: str
    family_params: dict[str, Any]
    engine: str
    evaluator: str
    budget: float
    seed: int | None
    best_point: dict[str, Any]
    best_quality: float
    best_step: int
    features: list[dict[str, Any]]
    total_cost: float
    trajectory: list[StepRecord]
    space: dict[str, Any] = field(default_factory=dict)
    engine_params: dict[str, Any] = field(default_factory=dict)
    evaluator_params: dict[str, Any] = field(default_factory=dict)
    n_samples: int = 0
    test_error: float | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    # ---------------------------------------------------------------- features
    @property
    def n_features(self) -> int:
        return len(self.features)

    def get_family(self):
        """A family instance able to compute ``features`` (from the registry)."""
        from .plugins import get_registry

        cls = get_registry().get("family", self.family)
        return cls(**self.family_params)

    def feature_batch(self):
        """``features`` as the family's internal batch object."""
        cached = self.__dict__.get("_batch_cache")
        if cached is None or cached[0] is not self.features:
            fam = self.get_family()
            cached = (self.features, fam, fam.from_json(self.features))
            self.__dict__["_batch_cache"] = cached
        return cached[1], cached[2]

    def transform(self, X: np.ndarray) -> np.ndarray:
        """Compute the chosen features on ``X``: an ``(n_samples, n_features)`` 0/1 array."""
        family, batch = self.feature_batch()
        return family.transform(X, batch)

    def feature_names(self) -> list[str]:
        family, batch = self.feature_batch()
        return family.feature_names(batch)

    @property
    def qualities(self) -> np.ndarray:
        return np.array([r.quality for r in self.trajectory])

    # ---------------------------------------------------------------- JSON
    def to_dict(self) -> dict[str, Any]:
        d = {k: getattr(self, k) for k in self.__dataclass_fields__}
        d["trajectory"] = [r.to_dict() for r in self.trajectory]
        d["format_version"] = FORMAT_VERSION
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> SearchResult:
        d = dict(d)
        version = d.pop("format_version", FORMAT_VERSION)
        if version != FORMAT_VERSION:
            raise ValidationError(f"result format_version={version!r}; this metafx reads {FORMAT_VERSION}")
        d["trajectory"] = [StepRecord.from_dict(r) for r in d["trajectory"]]
        known = set(cls.__dataclass_fields__)
        extra = set(d) - known
        if extra:
            raise ValidationError(f"unknown fields in result JSON: {sorted(extra)}")
        return cls(**d)

    def to_json(self, path: str | os.PathLike[str] | None = None, indent: int | None = 1) -> str:
        """Write the result as JSON to ``path`` (and return the text)."""
        text = json.dumps(self.to_dict(), indent=indent, allow_nan=True)
        if path is not None:
            tmp = f"{os.fspath(path)}.tmp"
            with open(tmp, "w", encoding="utf-8") as fh:
                fh.write(text)
            os.replace(tmp, path)
        return text

    @classmethod
    def from_json(cls, path_or_text: str | os.PathLike[str]) -> SearchResult:
        """Read a result written by :meth:`to_json` (a path, or the JSON text)."""
        s = os.fspath(path_or_text)
        if s.lstrip().startswith("{"):
            data = json.loads(s)
        else:
            try:
                with open(s, encoding="utf-8") as fh:
                    data = json.load(fh)
            except FileNotFoundError:
                raise ValidationError(f"result file {s!r} does not exist") from None
        return cls.from_dict(data)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SearchResult):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    def summary(self) -> str:
        pt = ", ".join(f"{k}={v:.3g}" if isinstance(v, float) else f"{k}={v}" for k, v in self.best_point.items())
        lines = [
            f"engine {self.engine}, family {self.family}, evaluator {self.evaluator}, budget {self.budget:g}",
            f"best point: {pt} (step {self.best_step})",
            f"best quality: {self.best_quality:.4f}",
            f"features: {self.n_features}, total cost {self.total_cost:g}",
        ]
        if self.test_error is not None:
            lines.append(f"test error: {100 * self.test_error:.2f} %")
        return "\n".join(lines)

    def bound(self, delta: float = 0.05, gamma: float = 1.0, *, train_error: float | None = None,
              fat_d: float | None = None, steps: int | None = None, space_size: float | None = None):
        """Thesis Theorem 5.1 for this search (see :func:`metafx.bounds.mufasa_bound`).

        Uses ``m = n_samples``, ``J = len(trajectory)`` and
        ``|MF| = metadata["space_size"]`` (``inf`` for a continuous space);
        each can be overridden.  ``fat_d`` defaults to ``n_features + 1``, the
        pseudo-dimension of affine functions of the selected features, which
        bounds their fat-shattering dimension at every scale (right for a
        linear classifier).  ``train_error`` is the gamma-sensitive training
        error of the final classifier; without it the bound's ``value`` is
        ``nan`` and ``gap`` holds what it adds.  ``terms`` also reports
        ``n ln N`` with ``N = n 2^J``, the price of choosing the same features
        directly from ``n 2^J`` candidates (thesis section 5.4.1).

        Examples
        --------
        >>> import metafx
        >>> X, y = metafx.load_dataset("digits")
        >>> res = metafx.search(X[:300], y[:300], budget=20, steps=3, seed=0, progress=False)
        >>> b = res.bound(delta=0.05, gamma=1.0)
        >>> b.terms["g(J)"] == 3 * math.log(2)
        True
        """
        from . import bounds

        J = len(self.trajectory) if steps is None else steps
        mf = space_size if space_size is not None else self.metadata.get("space_size")
        mf = math.inf if mf is None or (isinstance(mf, float) and math.isnan(mf)) else float(mf)
        d = self.n_features + 1 if fat_d is None else fat_d
        b = bounds.mufasa_bound(self.n_samples, gamma, delta, d, J, mf, train_error=train_error)
        n = max(self.n_features, 1)
        b.terms["direct n ln(n 2^J)"] = n * (math.log(n) + J * math.log(2.0))
        return b


def iter_json_floats(values: Iterable[float]) -> list[float]:
    return [float(v) for v in values]
