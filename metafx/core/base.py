"""Abstract base classes of every pluggable component.

A plugin registers *classes* (see :mod:`metafx.hooks.spec`).  metafx
instantiates them with keyword parameters, the way scikit-learn does:
``__init__`` stores its arguments under the same names and does nothing else;
:meth:`Component.get_params` reads them back and :meth:`Component.check_params`
validates them.
"""

from __future__ import annotations

import inspect
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, Protocol, TypeVar, runtime_checkable

import numpy as np

from .exceptions import ValidationError
from .params import validate_params
from .values import FeatureValues, MetaFeatureSpace, PriorObservation, StepRecord

__all__ = [
    "Candidate",
    "Component",
    "Dataset",
    "FamilyExport",
    "FeatureBatch",
    "FeatureFamily",
    "FeatureScorer",
    "FeatureSelector",
    "MetaFeatureDescriber",
    "Params",
    "SearchEngine",
    "SetEvaluator",
    "declared_pool_rows",
    "fill_budget",
]


class Params:
    """scikit-learn's parameter mechanism, for every configurable object of metafx.

    ``__init__`` stores each keyword argument under its own name and does
    nothing else; :meth:`get_params` and :meth:`set_params` read and write
    them, so ``sklearn.base.clone`` works.
    """

    @classmethod
    def _get_param_names(cls) -> list[str]:
        sig = inspect.signature(cls.__init__)
        return [
            p.name
            for p in sig.parameters.values()
            if p.name != "self" and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
        ]

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """The constructor parameters (``deep`` is accepted for scikit-learn; nothing nests)."""
        return {k: getattr(self, k) for k in self._get_param_names() if hasattr(self, k)}

    def set_params(self, **params: Any) -> Params:
        """Set constructor parameters by name (unknown names raise); returns ``self``."""
        _check_param_names(type(self), params)
        for k, v in params.items():
            setattr(self, k, v)
        return self

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"


class Component(Params):
    """Common behaviour of every pluggable component: a ``name`` and parameters.

    Parameters follow ``Params`` (scikit-learn's convention).  Each
    parameter's constraints are declared in ``_parameter_constraints`` (see
    ``metafx.core.params``); :meth:`check_params`, which
    :func:`metafx.plugin.make_component` and the search call before any work, checks
    them.
    """

    name: ClassVar[str] = ""
    #: one line shown by ``metafx plugins``
    summary: ClassVar[str] = ""
    #: parameter name -> list of constraints (any one satisfied is enough); see ``metafx.core.params``
    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {}

    def check_params(self) -> None:
        """Raise :class:`~metafx.ValidationError` when a parameter is not allowed.

        Checks the declared ``_parameter_constraints``; a component overrides this only to add checks that tie
        parameters together, calling ``super().check_params()`` first.
        """
        validate_params(self)

    @classmethod
    def create(cls: type[ComponentT], params: Mapping[str, Any] | None = None) -> ComponentT:
        """Instantiate with ``params`` and check them; unknown parameter names give a clear error."""
        params = _seed_alias(cls, dict(params or {}))
        _check_param_names(cls, params)
        obj = cls(**params)
        obj.check_params()
        return obj


ComponentT = TypeVar("ComponentT", bound=Component)


def _seed_alias(cls: type[Params], params: dict[str, Any]) -> dict[str, Any]:
    """``seed`` and ``random_state`` name the same thing: a component taking one accepts the other."""
    allowed = cls._get_param_names()
    for given, own in (("seed", "random_state"), ("random_state", "seed")):
        if given in params and given not in allowed and own in allowed:
            if own in params and params[own] != params[given]:
                raise ValidationError(f"{given}={params[given]!r} and {own}={params[own]!r} are two names for the "
                                      f"same seed; give one of them")
            params[own] = params.pop(given)
    return params


def _check_param_names(cls: type[Params], params: Mapping[str, Any]) -> None:
    allowed = cls._get_param_names()
    unknown = [k for k in params if k not in allowed]
    if unknown:
        raise ValidationError(
            f"{getattr(cls, 'name', '') or cls.__name__} does not take parameter(s) "
            f"{', '.join(map(repr, unknown))}; allowed: {', '.join(allowed) or '(none)'}"
        )


@runtime_checkable
class FeatureBatch(Protocol):
    """A family's container of concrete features (family-specific layout)."""

    costs: np.ndarray

    def __len__(self) -> int: ...

    def take(self, idx: Sequence[int] | np.ndarray) -> FeatureBatch: ...


#: the batch type of a family (``FeatureFamily[MyBatch]``; a family that names none takes any batch)
BatchT = TypeVar("BatchT", bound=FeatureBatch)


class FeatureFamily(Component, ABC, Generic[BatchT]):
    """A (huge) family of candidate features, described by meta-features.

    Life cycle: ``family = Family(**params)``; ``family.fit(X)`` learns the data
    layout (e.g. the image shape) and validates ``X``; then ``space()``,
    ``draw(point, budget, rng)`` and ``compute(prepare(X), batch)``.  After
    ``fit``, ``get_params()`` must be enough to rebuild an equivalent family
    (it is stored in result JSON files).
    """

    #: "binary-image" or "table": what ``X`` must look like
    data_kind: ClassVar[str] = "table"
    #: How many training rows the ``guided`` engine ranks a pool of this family's features on when it is asked to
    #: read the family's declaration (``pool_rows="auto"``, its default): ``None`` every row, an int (at least
    #: 16) a class-stratified sample of that many
    #: (the chosen set is computed on every row all the same).  A family that declares nothing gets this
    #: default, 512, which suits a ``compute`` in plain Python or NumPy (the pool, 16 x the budget at each step,
    #: then costs ``n_samples / 512`` times less); a family whose ``compute`` is compiled and cheap declares
    #: ``None`` (the built-in families and ``tabular`` do): ranking on every row is a little more accurate.
    #: ``docs/plugins.md`` ("Performance") says when to set it.
    pool_rows: ClassVar[int | None] = 512

    def fit(self: FamilyT, X: np.ndarray, y: np.ndarray | None = None) -> FamilyT:
        """Learn the data layout from ``X`` (and validate it); returns ``self``."""
        self.check_data(X)
        return self

    def check_data(self, X: np.ndarray) -> np.ndarray:
        """Validate ``X`` for this family; return it as an array."""
        return np.asarray(X)

    def default_budget(self, X: Any) -> float | None:
        """The budget a search of ``X`` gets when the user gives none (``budget="auto"``).

        ``X`` is what :meth:`check_data` returned.  ``None`` (the default) means
        the fixed default of :func:`metafx.search` (500); image families scale it
        with the number of pixels.
        """
        return None

    def default_steps(self, X: Any) -> int | None:
        """The number of search steps a search of ``X`` gets when the user gives none (``steps="auto"``).

        ``X`` is what :meth:`check_data` returned.  ``None`` (the default) means the fixed default of
        :func:`metafx.search` (50); image families take 15 on images of at least 16 x 16 pixels
        (``experiments/cnn48/RULE_DEFAULTS_IMAGES2.md``).
        """
        return None

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
    ) -> BatchT:
        """Features drawn uniformly among those matching ``point`` until ``budget`` is used."""

    def draw_random(self, budget: float, rng: np.random.Generator) -> BatchT:
        """Features drawn from the whole family (each at its own uniform point), filling ``budget``.

        Points where the family cannot draw a feature (its ``draw`` raises
        :class:`~metafx.ValidationError`, or returns nothing because the feature would
        exceed what is left of the budget) are skipped; after 1000 such points
        in a row the budget left is taken as unusable.
        """
        return fill_budget(self, self.space(), budget, rng)

    @abstractmethod
    def concat(self, batches: Sequence[BatchT]) -> BatchT:
        """One batch holding the features of all ``batches`` in order."""

    @abstractmethod
    def prepare(self, X: np.ndarray) -> Any:
        """Turn raw data into what :meth:`compute` reads (e.g. bit-packed pixels)."""

    @abstractmethod
    def compute(self, prepared: Any, batch: BatchT) -> FeatureValues:
        """Values of ``batch`` on the prepared data."""

    def transform(self, X: np.ndarray, batch: BatchT) -> np.ndarray:
        """Dense ``(n_samples, n_features)`` values of ``batch`` on ``X``."""
        return self.compute(self.prepare(X), batch).dense(np.uint8 if self.data_kind == "binary-image" else np.float64)

    @abstractmethod
    def describe(self, batch: BatchT) -> dict[str, np.ndarray]:
        """The family's own meta-features of each feature (name -> array)."""

    @abstractmethod
    def to_json(self, batch: BatchT) -> list[dict[str, Any]]:
        """JSON-able specifications of the features of ``batch``."""

    @abstractmethod
    def from_json(self, specs: Sequence[Mapping[str, Any]]) -> BatchT:
        """Inverse of :meth:`to_json` (validates the specifications)."""

    def feature_names(self, batch: BatchT) -> list[str]:
        return [str(s) for s in self.to_json(batch)]

    def min_cost(self) -> float:
        """Cost of the cheapest feature of the family."""
        return 1.0

    def plot_features(self, batch: BatchT, ax: Any, background: np.ndarray | None = None) -> list[Any] | None:
        """Draw the features of ``batch`` on the matplotlib Axes ``ax`` (optional hook).

        :func:`metafx.plotting.plot_features` and ``metafx plot`` call it with
        one feature per panel; ``background`` is the mean of the training data
        (an ``(H, W)`` image for binary-image families) or None.  Return the
        legend handles (matplotlib artists with labels) that explain the
        drawing, or None.  Families that do not implement it have no feature
        picture.
        """
        raise NotImplementedError(
            f"family {self.name!r} ({type(self).__name__}) does not draw its features: implement "
            "plot_features(batch, ax, background=None) to get its picture from metafx.plotting.plot_features "
            "and `metafx plot` (docs/plugins.md)")

    def export_c(self, batch: BatchT, prefix: str) -> FamilyExport:
        """The features of ``batch`` as C99 code (optional hook; ``metafx export --to c`` calls it).

        Return a :class:`FamilyExport` whose ``code`` defines
        ``static void <prefix>_compute(const IN *x, OUT *out)``: ``x`` holds one sample's ``n_inputs``
        values (``IN`` is ``uint8_t`` 0/1 for ``input_type="binary"``, ``double`` for ``"real"``, in the
        order of the family's prepared data: an image row-major, a table's columns), ``out`` receives the
        ``len(batch)`` feature values (``OUT`` is ``uint8_t`` 0/1 or ``double`` by ``value_type``), exactly
        those of ``compute``.  Every other name it defines starts with ``prefix``; it may use ``<stdint.h>``
        and the headers listed in ``includes``.  Families that do not implement it are refused by the export
        with a clear error.  ``docs/plugins.md`` ("Export") has an example.
        """
        raise NotImplementedError(
            f"family {self.name!r} ({type(self).__name__}) cannot be exported: implement export_c(batch, prefix) "
            "and export_numpy(batch, prefix) to get `metafx export` (docs/plugins.md, \"Export\")")

    def export_numpy(self, batch: BatchT, prefix: str) -> FamilyExport:
        """The features of ``batch`` as Python source that needs NumPy only (optional hook; ``metafx export
        --to numpy``).  ``code`` defines ``<prefix>_compute(X)``: ``X`` is an ``(n, n_inputs)`` array
        (uint8 0/1 for binary input, float64 for real), the return value the ``(n, len(batch))`` feature values
        (uint8 0/1 or float64), exactly those of ``compute``.  ``np`` is imported; every other name it defines
        starts with ``_<prefix>`` or ``<prefix>``."""
        raise NotImplementedError(
            f"family {self.name!r} ({type(self).__name__}) cannot be exported: implement export_c(batch, prefix) "
            "and export_numpy(batch, prefix) to get `metafx export` (docs/plugins.md, \"Export\")")


@dataclass(frozen=True)
class FamilyExport:
    """A family's features as code for ``metafx export`` (what :meth:`FeatureFamily.export_c` and
    :meth:`FeatureFamily.export_numpy` return).

    Attributes
    ----------
    code : str
        The source: C99 for ``export_c``, Python for ``export_numpy`` (see those methods).
    n_inputs : int
        How many values of one sample the code reads.
    input_type : {"binary", "real"}
        ``"binary"``: 0/1 values (images after binarization); ``"real"``: float64 (table columns).
    value_type : {"binary", "real"}
        What the features are: 0/1, or real numbers.
    input_shape : tuple of int
        The shape of one sample as users hold it (``(H, W)`` for images; ``(n_inputs,)`` by default).
    about : str
        One line saying what the input is, quoted in the generated file.
    includes : tuple of str
        Standard C headers the C code needs beyond ``<stdint.h>`` (e.g. ``("math.h",)``).
    code_many : str
        Optional, C only, for ``input_type`` and ``value_type`` both ``"binary"``: C99 code that defines
        ``static void <prefix>_compute64(const uint64_t *in, uint64_t *out)``, the features of 64 samples at
        once (bit ``s`` of ``in[i]`` is input ``i`` of sample ``s``; bit ``s`` of ``out[f]`` is feature ``f`` of
        sample ``s``; bits of absent samples are 0 in ``in`` and ignored in ``out``).  The exported file's
        ``<name>_*_many`` functions use it; without it they call ``<prefix>_compute`` once per sample.  ``""``
        (default): none.
    """

    code: str
    n_inputs: int
    input_type: str = "binary"
    value_type: str = "binary"
    input_shape: tuple[int, ...] = ()
    about: str = ""
    includes: tuple[str, ...] = ()
    code_many: str = ""

    def __post_init__(self) -> None:
        for field_name in ("input_type", "value_type"):
            value = getattr(self, field_name)
            if value not in ("binary", "real"):
                raise ValidationError(f"FamilyExport {field_name}={value!r} must be 'binary' or 'real'")
        if not isinstance(self.code, str):
            raise ValidationError(f"FamilyExport code must be a string, got {type(self.code).__name__}")
        if isinstance(self.n_inputs, bool) or not isinstance(self.n_inputs, (int, np.integer)) or self.n_inputs < 0:
            raise ValidationError(f"FamilyExport n_inputs={self.n_inputs!r} must be an integer >= 0")
        shape = tuple(int(v) for v in (self.input_shape or (int(self.n_inputs),)))
        if int(np.prod(shape)) != int(self.n_inputs):
            raise ValidationError(f"FamilyExport input_shape={shape} holds {int(np.prod(shape))} values, "
                                  f"not n_inputs={self.n_inputs}")
        object.__setattr__(self, "input_shape", shape)
        object.__setattr__(self, "n_inputs", int(self.n_inputs))
        if not isinstance(self.code_many, str):
            raise ValidationError(f"FamilyExport code_many must be a string, got {type(self.code_many).__name__}")
        if self.code_many and (self.input_type, self.value_type) != ("binary", "binary"):
            raise ValidationError(f"FamilyExport code_many is for binary inputs and binary values; got "
                                  f"input_type={self.input_type!r}, value_type={self.value_type!r}")
        bad = [h for h in self.includes if h not in C_HEADERS]
        if bad:
            raise ValidationError(f"FamilyExport includes={list(self.includes)!r}: {bad} not among the standard "
                                  f"headers allowed ({', '.join(C_HEADERS)})")


def declared_pool_rows(family: Any) -> int | None:
    """The rows ``family`` declares its pools are ranked on (:attr:`FeatureFamily.pool_rows`, 512 when it declares
    nothing; ``None``: every row), validated."""
    declared = getattr(family, "pool_rows", FeatureFamily.pool_rows)
    if declared is not None and (isinstance(declared, bool) or not isinstance(declared, (int, np.integer))
                                 or declared < 16):
        raise ValidationError(f"family {family.name!r} declares pool_rows={declared!r} (a class attribute read "
                              "by the guided engine's pool_rows='auto'); allowed: None (every row) or an "
                              "integer >= 16")
    return None if declared is None else int(declared)


#: the standard C headers a family's exported code may include
C_HEADERS = ("math.h", "float.h", "stddef.h", "string.h", "limits.h")


FamilyT = TypeVar("FamilyT", bound=FeatureFamily[Any])


def fill_budget(family: FeatureFamily[BatchT], space: MetaFeatureSpace, budget: float,
                rng: np.random.Generator) -> BatchT:
    """Features of ``family``, each drawn at its own uniform point of ``space``, until ``budget`` is used.

    The one implementation behind :meth:`FeatureFamily.draw_random` (``space``: the family's own) and the
    search's draws from the whole family with fixed meta-features held (``space``: the search's).  Points
    where the family draws nothing (``ValidationError``, or the feature exceeds the budget left) are
    skipped; after 1000 such points in a row the budget left is taken as unusable.
    """
    parts = []
    spent = 0.0
    min_cost = float(family.min_cost())
    misses = 0
    while budget - spent >= min_cost and misses < 1000:
        try:
            b = family.draw(space.uniform(rng), budget - spent, rng, max_features=1)
        except ValidationError:
            b = None
        if b is None or len(b) == 0:
            misses += 1
            continue
        misses = 0
        parts.append(b)
        spent += float(np.sum(b.costs))
    return family.concat(parts)


class MetaFeatureDescriber(Component, ABC, Generic[FamilyT]):
    """Computes extra meta-features of a family's features (no data needed).

    ``families`` lists the family names it applies to (``("*",)`` for any),
    ``columns`` names the meta-features it returns.
    """

    families: ClassVar[tuple[str, ...]] = ("*",)
    columns: ClassVar[tuple[str, ...]] = ()

    @abstractmethod
    def describe(self, family: FamilyT, batch: Any) -> np.ndarray:
        """``(n_features, len(columns))`` meta-feature matrix."""

    def applies_to(self, family: FeatureFamily[Any] | str) -> bool:
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
    """Scores a whole feature set with one number; higher is better.

    :attr:`quality_label` says what that number is, in words a user reads in
    summaries, logs and plots (e.g. ``"CV accuracy, 2-fold linear SVM"``);
    an evaluator should override it when ``"quality (<name>)"`` says too little.
    """

    @property
    def quality_label(self) -> str:
        """What the score is, for people (default ``"quality (<name>)"``)."""
        return f"quality ({self.name})"

    @abstractmethod
    def evaluate(self, X: np.ndarray | FeatureValues, y: np.ndarray, *, random_state: int | None = None) -> float:
        """Quality of the feature set whose values are ``X``."""


class FeatureSelector(Component, ABC):
    """Chooses a subset of columns."""

    @abstractmethod
    def select(self, X: np.ndarray | FeatureValues, y: np.ndarray) -> np.ndarray:
        """Indices of the chosen columns (in order of preference when ranked)."""


@dataclass
class Candidate:
    """One feature set a search step draws and scores.

    ``how`` says where its features come from: ``"point"`` (drawn at
    ``point``, the usual case), ``"family"`` (each feature at its own uniform
    point of the space, fixed meta-features held) or ``"engine"`` (the
    engine's :meth:`SearchEngine.draw`).  For the last two the step records the
    mean meta-features of the drawn set as its point.  ``keys`` seed the draw
    (``numpy.random.default_rng(keys)``); ``None`` lets the loop use
    ``(seed, step, 1)`` for a step's first candidate and ``(seed, step, 1, i)``
    for candidate ``i``.  ``tag`` is the engine's own handle (e.g. an optuna
    trial); the loop never reads it.
    """

    point: dict[str, Any]
    how: str = "point"
    keys: tuple[int, ...] | None = None
    tag: Any = field(default=None, compare=False, repr=False)
    #: ``"portfolio"`` for an engine's step that combines earlier sets (recorded with no point of its own)
    kind: str = "point"


#: what :meth:`SearchEngine.ask` returns: one candidate (a point or a :class:`Candidate`) or a sequence of them
Proposal = Candidate | Mapping[str, Any] | Sequence[Candidate | Mapping[str, Any]]


class SearchEngine(Component, ABC):
    """Proposes meta-feature points; the search loop does everything else.

    The loop (:func:`metafx.plugin.run_search`) calls :meth:`setup` once, then
    for each step ``j = 1, 2, ...`` asks for candidates (:meth:`ask`), draws,
    computes and scores them (in parallel with ``n_jobs``), records the best
    as the step's :class:`~metafx.plugin.StepRecord` (``accepted`` when it is at
    least as good as the best so far, or strictly better when
    ``accept_ties = False``) and passes it to :meth:`tell`.  On resume the
    recorded steps are replayed through the same ``ask``/``tell`` calls without
    evaluating anything, so an engine whose proposals are a function of
    ``(seed, step)`` and of what it was told resumes exactly.

    Class attributes tune the loop: ``independent_steps`` (proposals never
    depend on results: the loop may evaluate several steps at once),
    ``max_steps`` (the engine makes at most this many steps), ``accept_ties``,
    ``reselect`` and ``reselect_splits`` (the defaults of :func:`metafx.search`'s),
    ``steps_are_trials`` (each step is one trial of an optuna study).  The loop
    keeps the steps (a journal file or an optuna study, chosen from
    ``storage=``); an engine never reads or writes them, and has no setting of
    where they are kept.
    """

    #: accept a step whose quality equals the best so far (the thesis's Mufasa does)
    accept_ties: ClassVar[bool] = True
    #: proposals do not depend on the results of earlier steps (the loop may run several steps at once)
    independent_steps: ClassVar[bool] = False
    #: at most this many steps per search (``None``: as many as asked)
    max_steps: ClassVar[int | None] = None
    #: each step is one trial of an optuna study, one point proposed as a sampler proposes; the loop then keeps the
    #: steps in an optuna study (``storage=`` an optuna storage, which workers may share, or in memory) instead of a
    #: JSON-lines journal file
    steps_are_trials: ClassVar[bool] = False
    #: ``reselect`` of a search that does not set it: how many of the best steps are scored again at the end
    reselect: ClassVar[int] = 1
    #: ``reselect_splits`` of a search that does not set it: on how many fresh splits each of those sets is scored
    reselect_splits: ClassVar[int] = 1
    #: parameters that act only on prior observations (a warm start holding results, :meth:`observe_prior`): a
    #: search without them leaves these parameters out of its signature, so changing them does not refuse its journal
    prior_params: ClassVar[tuple[str, ...]] = ()
    #: the engine learns from every step of the warm-start results (:meth:`observe_prior`), not only from their
    #: best points; engines that leave it false get the points alone, as before the hook existed
    uses_prior: ClassVar[bool] = False
    #: with ``uses_prior``: the prior also holds, per related task of the same family and family parameters, its
    #: result's chosen set (a :class:`PriorObservation` with ``features``, after that task's steps)
    uses_prior_sets: ClassVar[bool] = False

    @classmethod
    def bound_obstacle(cls, metadata: Mapping[str, Any]) -> str:
        """Why thesis Theorem 5.1 does not cover a search by this engine ('' when it does).

        The theorem counts the feature sets a search can return through the data's only influence on it:
        accepting or rejecting the point of each step.  An engine whose proposals use the data otherwise
        (a model of quality, a ranked pool) keeps this default; one that only moves by accepted steps
        returns ``''`` (``metadata``: the result's, with the engine's own :meth:`metadata`).  Read by
        :meth:`metafx.SearchResult.bound`.
        """
        return (f"engine {cls.name!r} chooses its points from the data (a model of quality, or a ranked pool), "
                "not only by accepting or rejecting one point per step")

    @classmethod
    def bound_candidates(cls, metadata: Mapping[str, Any]) -> int:
        """Points scored per step, the best one kept (``c`` of Theorem 5.1's ``(c + 1)^J`` outcomes)."""
        return 1

    def setup(self, problem: Any, seed: int) -> None:
        """Prepare a new search of ``problem`` (a :class:`metafx.plugin.SearchProblem`) with ``seed``."""
        self.problem_ = problem
        self.seed_ = int(seed)
        self.warm_start_: list[dict[str, Any]] = []

    def warm_start(self, points: Sequence[Mapping[str, Any]]) -> None:
        """Points that were good on related tasks (valid points of the space, best first), given after
        :meth:`setup`; engines that use them evaluate them first (``mufasa``, ``random``) or start their
        model with them (``optuna``).  Default: kept in ``self.warm_start_``."""
        self.warm_start_ = [dict(p) for p in points]

    def observe_prior(self, observations: Sequence[PriorObservation]) -> None:
        """Every step of the related tasks' searches (point, quality, task), given after :meth:`warm_start`
        when the engine's ``uses_prior`` is true and the warm start holds results; an engine with a model of
        quality learns from them (``guided``).  The loop records them in the search's signature, so a
        resumed search gets the same.  Default: ignored."""

    @abstractmethod
    def ask(self, step: int) -> Proposal:
        """The candidates of step ``step`` (1-based): a point (dict) or :class:`Candidate`, or a sequence of them."""

    def tell(self, record: StepRecord) -> None:
        """Learn the result of a finished (or replayed) step."""

    def draw(self, problem: Any, candidate: Candidate, rng: Any) -> FeatureBatch:
        """The features of a candidate with ``how="engine"``."""
        raise NotImplementedError(f"engine {self.name!r} proposed a candidate with how='engine' but has no draw()")

    def metadata(self) -> dict[str, Any]:
        """Engine facts added to the result's ``metadata``."""
        return {}

    def close(self, error: BaseException | None) -> None:
        """Called once when the search ends (``error``: what ended it, if anything)."""


class Dataset(Component, ABC):
    """A named loader of ``(X, y)``."""

    data_kind: ClassVar[str] = "binary-image"

    @abstractmethod
    def load(self) -> tuple[np.ndarray, np.ndarray]:
        """Return ``(X, y)``."""
