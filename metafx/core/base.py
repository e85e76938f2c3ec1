"""Abstract base classes of every pluggable component.

A plugin registers *classes* (see :mod:`metafx.hookspecs`).  metafx
instantiates them with keyword parameters, the way scikit-learn does:
``__init__`` stores its arguments under the same names and does nothing else;
:meth:`Component.get_params` reads them back.
"""

from __future__ import annotations

import inspect
from abc import ABC, abstractmethod
from typing import Any, Callable, ClassVar, Mapping, Protocol, Sequence, runtime_checkable

import numpy as np

from .exceptions import ValidationError
from .types import FeatureValues, MetaFeatureSpace, SearchResult

__all__ = [
    "Component",
    "FeatureBatch",
    "FeatureFamily",
    "MetaFeatureDescriber",
    "FeatureScorer",
    "SetEvaluator",
    "FeatureSelector",
    "SearchEngine",
    "Dataset",
]


class Component:
    """Common behaviour: a ``name``, keyword parameters, ``get_params``."""

    name: ClassVar[str] = ""
    #: one line shown by ``metafx plugins``
    summary: ClassVar[str] = ""

    @classmethod
    def _param_names(cls) -> list[str]:
        sig = inspect.signature(cls.__init__)
        return [
            p.name
            for p in sig.parameters.values()
            if p.name != "self" and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
        ]

    def get_params(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self._param_names() if hasattr(self, k)}

    @classmethod
    def create(cls, params: Mapping[str, Any] | None = None):
        """Instantiate with ``params``; unknown parameter names give a clear error."""
        params = dict(params or {})
        allowed = cls._param_names()
        unknown = [k for k in params if k not in allowed]
        if unknown:
            raise ValidationError(
                f"{cls.name or cls.__name__} does not take parameter(s) {', '.join(map(repr, unknown))}; "
                f"allowed: {', '.join(allowed) or '(none)'}"
            )
        return cls(**params)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"


@runtime_checkable
class FeatureBatch(Protocol):
    """A family's container of concrete features (family-specific layout)."""

    costs: np.ndarray

    def __len__(self) -> int: ...

    def take(self, idx: Sequence[int] | np.ndarray) -> FeatureBatch: ...


class FeatureFamily(Component, ABC):
    """A (huge) family of candidate features, described by meta-features.

    Life cycle: ``family = Family(**params)``; ``family.fit(X)`` learns the data
    layout (e.g. the image shape) and validates ``X``; then ``space()``,
    ``draw(point, budget, rng)`` and ``compute(prepare(X), batch)``.  After
    ``fit``, ``get_params()`` must be enough to rebuild an equivalent family
    (it is stored in result JSON files).
    """

    #: "binary-image" or "table": what ``X`` must look like
    data_kind: ClassVar[str] = "table"

    def fit(self, X: np.ndarray, y: np.ndarray | None = None) -> FeatureFamily:
        """Learn the data layout from ``X`` (and validate it); returns ``self``."""
        self.check_data(X)
        return self

    def check_data(self, X: np.ndarray) -> np.ndarray:
        """Validate ``X`` for this family; return it as an array."""
        return np.asarray(X)

    @abstractmethod
    def space(self) -> MetaFeatureSpace:
        """The meta-feature space searched by engines."""

    @abstractmethod
    def draw(
        self,
        point: Mapping[str, Any],
        budget: float,
        rng: np.random.Generator,
        max_features: int | None = None,
    ) -> FeatureBatch:
        """Features drawn uniformly among those matching ``point`` until ``budget`` is used."""

    def draw_random(self, budget: float, rng: np.random.Generator) -> FeatureBatch:
        """Features drawn from the whole family (each at its own uniform point), filling ``budget``.

        Points where the family cannot draw a feature (its ``draw`` raises
        :class:`ValidationError`, or returns nothing because the feature would
        exceed what is left of the budget) are skipped; after 1000 such points
        in a row the budget left is taken as unusable.
        """
        space = self.space()
        parts = []
        spent = 0.0
        min_cost = self.min_cost()
        misses = 0
        while budget - spent >= min_cost and misses < 1000:
            try:
                b = self.draw(space.uniform(rng), budget - spent, rng, max_features=1)
            except ValidationError:
                b = None
            if b is None or len(b) == 0:
                misses += 1
                continue
            misses = 0
            parts.append(b)
            spent += float(b.costs.sum())
        return self.concat(parts)

    @abstractmethod
    def concat(self, batches: Sequence[FeatureBatch]) -> FeatureBatch:
        """One batch holding the features of all ``batches`` in order."""

    @abstractmethod
    def prepare(self, X: np.ndarray) -> Any:
        """Turn raw data into what :meth:`compute` reads (e.g. bit-packed pixels)."""

    @abstractmethod
    def compute(self, prepared: Any, batch: FeatureBatch) -> FeatureValues:
        """Values of ``batch`` on the prepared data."""

    def transform(self, X: np.ndarray, batch: FeatureBatch) -> np.ndarray:
        """Dense ``(n_samples, n_features)`` values of ``batch`` on ``X``."""
        return self.compute(self.prepare(X), batch).dense(np.uint8 if self.data_kind == "binary-image" else np.float64)

    @abstractmethod
    def describe(self, batch: FeatureBatch) -> dict[str, np.ndarray]:
        """The family's own meta-features of each feature (name -> array)."""

    @abstractmethod
    def to_json(self, batch: FeatureBatch) -> list[dict[str, Any]]:
        """JSON-able specifications of the features of ``batch``."""

    @abstractmethod
    def from_json(self, specs: Sequence[Mapping[str, Any]]) -> FeatureBatch:
        """Inverse of :meth:`to_json` (validates the specifications)."""

    def feature_names(self, batch: FeatureBatch) -> list[str]:
        return [str(s) for s in self.to_json(batch)]

    def min_cost(self) -> float:
        """Cost of the cheapest feature of the family."""
        return 1.0


class MetaFeatureDescriber(Component, ABC):
    """Computes extra meta-features of a family's features (no data needed).

    ``families`` lists the family names it applies to (``("*",)`` for any),
    ``columns`` names the meta-features it returns.
    """

    families: ClassVar[tuple[str, ...]] = ("*",)
    columns: ClassVar[tuple[str, ...]] = ()

    @abstractmethod
    def describe(self, family: FeatureFamily, batch: FeatureBatch) -> np.ndarray:
        """``(n_features, len(columns))`` meta-feature matrix."""

    def applies_to(self, family: FeatureFamily | str) -> bool:
        name = family if isinstance(family, str) else family.name
        return "*" in self.families or name in self.families


class FeatureScorer(Component, ABC):
    """Scores every feature (column) on its own; higher is better."""

    #: "classification" or "regression": which targets it accepts
    task: ClassVar[str] = "classification"

    @abstractmethod
    def score(self, X: np.ndarray | FeatureValues, y: np.ndarray) -> np.ndarray:
        """One score per column of ``X``."""


class SetEvaluator(Component, ABC):
    """Scores a whole feature set with one number; higher is better."""

    @abstractmethod
    def evaluate(self, X: np.ndarray | FeatureValues, y: np.ndarray, *, random_state: int | None = None) -> float:
        """Quality of the feature set whose values are ``X``."""


class FeatureSelector(Component, ABC):
    """Chooses a subset of columns."""

    @abstractmethod
    def select(self, X: np.ndarray | FeatureValues, y: np.ndarray) -> np.ndarray:
        """Indices of the chosen columns (in order of preference when ranked)."""


StepCallback = Callable[..., Any]


class SearchEngine(Component, ABC):
    """Explores a family's meta-feature space under a budget."""

    @abstractmethod
    def run(self, problem: Any, *, steps: int, seed: int | None, callbacks: Sequence[StepCallback] = (),
            progress: bool = False, storage: str | None = None, study_name: str | None = None,
            n_jobs: int = 1) -> SearchResult:
        """Run the search on a :class:`metafx.search.SearchProblem` and return its result."""


class Dataset(Component, ABC):
    """A named loader of ``(X, y)``."""

    data_kind: ClassVar[str] = "binary-image"

    @abstractmethod
    def load(self) -> tuple[np.ndarray, np.ndarray]:
        """Return ``(X, y)``."""
