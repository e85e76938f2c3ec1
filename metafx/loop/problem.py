"""The search problem: a fitted family, its prepared data, the labels, the
evaluator and the budget; drawing and scoring one feature set."""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core import __version__
from ..core.base import Candidate, FeatureFamily, SetEvaluator, fill_budget
from ..core.exceptions import ValidationError
from ..core.files import physical_memory
from ..core.values import MetaFeatureSpace, StepRecord
from ..hooks.manager import get_registry
from .checks import MAX_FEATURES_PER_SAMPLE, check_fixed
from .components import make_component
from .result import SearchResult, plugin_provenance

__all__ = [
    "Evaluation",
    "SearchProblem",
    "data_fingerprint",
    "draw_or_empty",
    "draw_random_fixed",
    "problem_signature",
    "step_rng",
    "summary_point",
]


def step_rng(seed: int, *keys: int) -> np.random.Generator:
    """The generator of one draw: a pure function of ``(seed, *keys)``.

    Step ``j``'s candidate ``i`` draws its features from
    ``step_rng(seed, j, 1)`` (``i = 0``) or ``step_rng(seed, j, 1, i)``, and
    engines draw their proposals from generators of their own keys, so a step
    can be replayed alone (resume) and candidates evaluated in any order or
    process (``n_jobs``) give the same result.
    """
    return np.random.default_rng([int(seed) & 0xFFFFFFFFFFFFFFFF, *(int(k) for k in keys)])


@dataclass
class Evaluation:
    """One drawn and scored feature set."""

    point: dict[str, Any]
    batch: Any
    quality: float
    cost: float
    n_features: int
    timings: dict[str, float]


class SearchProblem:
    """A fitted family, its prepared data, the labels, the evaluator and the budget.

    Engines only choose points: :meth:`evaluate` draws the features for a point
    (filling the budget), computes them and scores the set.
    """

    def __init__(
        self,
        family: FeatureFamily[Any],
        X: np.ndarray,
        y: np.ndarray,
        evaluator: SetEvaluator,
        budget: float,
        *,
        fixed: Mapping[str, Any] | None = None,
        eval_seed: int = 0,
        oversample: float = 1.0,
        prune_by: str = "infogain",
    ) -> None:
        self.family = family.fit(X, y)
        self.X = X  #: the data as the user gave it (engines that prepare a sample of its rows read it)
        self.prepared = self.family.prepare(X)
        self.y = np.asarray(y)
        self.n_samples = int(self.y.shape[0])
        self.evaluator = evaluator
        self.budget = float(budget)
        space = self.family.space()
        self.space: MetaFeatureSpace = space.with_fixed(check_fixed(space, fixed))
        self.eval_seed = int(eval_seed)
        if isinstance(oversample, bool) or not isinstance(oversample, (int, float, np.integer, np.floating)) \
                or not math.isfinite(float(oversample)) or not 1.0 <= float(oversample) <= 1000.0:
            raise ValidationError(f"oversample={oversample!r} must be a number in [1, 1000] (1 = no pruning)")
        self.oversample = float(oversample)
        self.prune_by = prune_by
        pruner = make_component("scorer", prune_by, None)  # a misspelt name is refused even where it goes unused
        if self.oversample > 1.0:
            self._pruner = pruner
        min_cost = float(self.family.min_cost())
        if self.budget < min_cost:
            raise ValidationError(
                f"budget={budget:g} is below the cheapest feature's cost {min_cost:g}; raise the budget"
            )
        self.check_size(min_cost)
        self.check_feasible()
        # a family that ranks its own candidates by the search's evaluator (the tabular family's screen), once the
        # problem is known to be valid
        bind = getattr(self.family, "bind_evaluator", None)
        if callable(bind):
            bind(evaluator, self.prepared, self.y, self.eval_seed)

    #: estimated bytes held per drawn feature and training sample (see check_size)
    BYTES_PER_FEATURE = 512
    BYTES_PER_FEATURE_SAMPLE = 8

    def check_size(self, min_cost: float, memory: float | None = None) -> None:
        """Refuse a budget whose feature set cannot fit in memory, before allocating anything.

        A step may hold ``oversample * budget / min_cost`` features; each is
        counted as ``512 + 8 * n_samples`` bytes (a float64 column and the
        feature's description).  More than the machine's physical memory is refused
        with the figures.  So is one allowing more than
        ``MAX_FEATURES_PER_SAMPLE`` features per
        training sample (and more than 10,000 in all): the final linear fit on
        such a set runs for minutes and takes gigabytes (docs/reliability.md).
        """
        n_max = self.oversample * self.budget / min_cost
        need = n_max * (self.BYTES_PER_FEATURE + self.BYTES_PER_FEATURE_SAMPLE * self.n_samples)
        if memory is None:
            memory = _physical_memory()
        if memory and need > memory:
            raise ValidationError(
                f"budget={self.budget:g} allows up to {n_max:.3g} features of family {self.family.name!r} "
                f"(cheapest cost {min_cost:g}), about {need / 2**30:.3g} GiB at {self.n_samples} samples; "
                f"this machine has {memory / 2**30:.3g} GiB: lower the budget")
        per_sample = self.budget / min_cost / max(self.n_samples, 1)
        if per_sample > MAX_FEATURES_PER_SAMPLE and self.budget / min_cost > 10_000:  # small problems fit fast
            raise ValidationError(
                f"budget={self.budget:g} allows up to {self.budget / min_cost:.3g} features of family "
                f"{self.family.name!r} (cheapest cost {min_cost:g}), {per_sample:.3g} per training sample at "
                f"{self.n_samples} samples; at most {MAX_FEATURES_PER_SAMPLE} per sample are accepted (on more, "
                f"the final linear fit runs for minutes and takes gigabytes): lower the budget to "
                f"{MAX_FEATURES_PER_SAMPLE * min_cost * self.n_samples:g} or less, or give more samples")

    def check_feasible(self, n_points: int = 64) -> None:
        """Refuse a search in which no point can draw a feature under the budget.

        Draws one feature at the start point and at ``n_points`` uniform
        points (its own generator: the search's draws are not touched); when
        none gives a feature (e.g. ``shiftInvLen`` fixed to 8, whose features
        cost 32.5, under a budget of 20), raises :class:`~metafx.ValidationError`
        before any work.
        """
        rng = np.random.default_rng(0x6D6678)
        points = [self.space.start()] + [self.space.uniform(rng) for _ in range(n_points)]
        for point in points:
            try:
                if len(self.family.draw(point, self.budget, rng, max_features=1)):
                    return
            except ValidationError:
                continue
        fixed = f" with {dict(self.space.fixed)} fixed" if self.space.fixed else ""
        raise ValidationError(
            f"no feature of family {self.family.name!r} fits budget={self.budget:g}{fixed} at any of "
            f"{len(points)} points tried; raise the budget or change the fixed meta-features")

    def draw(self, point: Mapping[str, Any], rng: np.random.Generator) -> Any:
        """The feature set of a point: drawn at ``point`` until the budget is used.

        With ``oversample = f > 1`` the family draws ``f`` times the budget at
        ``point``; the pool is ranked by ``prune_by`` score divided by cost
        (measured on the training data) and the longest prefix of the ranking
        that fits the budget is kept.  Draws whose values on the training images
        repeat an earlier draw's are dropped first (they would spend budget on
        nothing new), so the kept set may cost less than the budget.  Every feature still comes from the
        point's distribution, so the search space and the meta-features keep
        their meaning; pruning only discards the draws that are weakest alone.
        """
        if self.oversample == 1.0:
            return self.family.draw(point, self.budget, rng)
        pool = self.family.draw(point, self.budget * self.oversample, rng)
        if len(pool) == 0:
            return pool
        values = self.family.compute(self.prepared, pool)
        costs = np.asarray(pool.costs, dtype=np.float64)
        score = np.asarray(self._pruner.score(values, self.y), dtype=np.float64) / costs
        # a repeat of an earlier draw (equal values on every training image) adds nothing: rank the first
        # draw of each group only (``first`` is ascending, so ties stay in draw order)
        _, first, _ = values.duplicate_groups()
        order = first[np.argsort(-score[first], kind="stable")]
        fits = np.cumsum(costs[order]) <= self.budget * (1 + 1e-12)
        n = int(np.argmin(fits)) if not fits.all() else len(order)
        return pool.take(order[:n])

    def draw_candidate(self, candidate: Candidate, rng: np.random.Generator, engine: Any = None) -> Any:
        """The features of ``candidate`` (see :class:`~metafx.plugin.Candidate`)."""
        if candidate.how == "point":
            return self.draw(candidate.point, rng)
        if candidate.how == "family":
            return draw_random_fixed(self, rng)
        if candidate.how == "engine":
            return engine.draw(self, candidate, rng)
        raise ValidationError(f"candidate how={candidate.how!r}; allowed: 'point', 'family', 'engine'")

    def evaluate(self, point: Mapping[str, Any], rng: np.random.Generator | None,
                 draw: Callable[[], Any] | None = None) -> Evaluation:
        """Draw (``self.draw(point, rng)``, or ``draw()`` when given), compute and score a set.

        A point where the family cannot draw (its ``draw`` raises
        :class:`~metafx.ValidationError`, e.g. eight inputs with scatter 3.5 on
        an 8x8 image) gives the empty set, scored at chance level, so a search
        moves away from it instead of stopping.
        """
        t0 = time.perf_counter()
        if draw is None:
            if rng is None:
                raise ValidationError("rng=None: SearchProblem.evaluate needs a numpy Generator rng, or draw")
            gen = rng
            draw = lambda: self.draw(point, gen)  # noqa: E731
        batch = draw_or_empty(self, draw)
        t1 = time.perf_counter()
        values = self.family.compute(self.prepared, batch)
        t2 = time.perf_counter()
        quality = float(self.evaluator.evaluate(values, self.y, random_state=self.eval_seed))
        t3 = time.perf_counter()
        if not math.isfinite(quality):
            raise ValidationError(f"evaluator {self.evaluator.name!r} returned quality {quality!r} at {dict(point)}")
        return Evaluation(dict(point), batch, quality, float(np.sum(batch.costs)), len(batch),
                          {"draw": t1 - t0, "compute": t2 - t1, "evaluate": t3 - t2})

    def columns_quality(self, batch: Any) -> float | None:
        """The evaluator's score of the table's columns alone (the empty set), at the search's seed, when it
        scores a set beside them: an evaluator with ``with_columns`` true (the tabular plugin's ``cv-linear``,
        ``cv-tree``) given values that carry ``columns``; else None.

        The search's quality of such a set is that of the columns *and* the features, which is not what the
        features alone (``result.transform``) score: the result records both, so that what the features add
        is seen (``metadata["columns_quality"]``)."""
        if not getattr(self.evaluator, "with_columns", False):
            return None
        values = self.family.compute(self.prepared, batch.take([]))
        if getattr(values, "columns", None) is None:
            return None
        return float(self.evaluator.evaluate(values, self.y, random_state=self.eval_seed))

    def make_result(
        self,
        engine: Any,
        seed: int | None,
        trajectory: list[StepRecord],
        best: Evaluation | None,
        best_step: int,
        metadata: Mapping[str, Any] | None = None,
    ) -> SearchResult:
        family = self.family
        if best is None:
            features: list[dict[str, Any]] = []
            best_point: dict[str, Any] = {}
            best_quality, cost = -math.inf, 0.0
        else:
            features = family.to_json(best.batch)
            best_point, best_quality, cost = dict(best.point), best.quality, best.cost
        timings = {k: float(sum(r.timings.get(k, 0.0) for r in trajectory)) for k in ("draw", "compute", "evaluate")}
        meta = {
            "metafx_version": __version__,
            "timings": timings,
            "seconds": float(sum(r.seconds for r in trajectory)),
            "space_size": self.space.size,
            "n_classes": int(np.unique(self.y).size),
            "oversample": self.oversample,
            "prune_by": self.prune_by if self.oversample > 1 else None,
            "quality_label": self.evaluator.quality_label,
            "plugins": plugin_provenance(get_registry(), {"family": family.name, "engine": engine.name,
                                                          "evaluator": self.evaluator.name}),
        }
        if best is not None:
            base = self.columns_quality(best.batch)
            if base is not None:
                meta["columns_quality"] = base
        meta.update(metadata or {})
        return SearchResult(
            family=family.name,
            family_params=_jsonable(family.get_params()),
            engine=engine.name,
            evaluator=self.evaluator.name,
            budget=self.budget,
            seed=seed,
            best_point=_jsonable(best_point),
            best_quality=best_quality,
            best_step=best_step,
            features=features,
            total_cost=cost,
            trajectory=trajectory,
            space=self.space.to_dict(),
            engine_params=_jsonable(engine.get_params()),
            evaluator_params=_jsonable(self.evaluator.get_params()),
            n_samples=self.n_samples,
            metadata=_jsonable(meta),
        )


def draw_or_empty(problem: SearchProblem, draw: Callable[[], Any]) -> Any:
    """``draw()``, or an empty batch when the family cannot draw at that point.

    A family raises :class:`~metafx.ValidationError` from ``draw`` when no
    feature matches a (valid) point, e.g. eight inputs with scatter 3.5 on an
    8x8 image.  Engines then score the empty set (chance level) so the search
    moves away from such points instead of stopping.
    """
    try:
        return draw()
    except ValidationError:
        return problem.family.concat([])


def draw_random_fixed(problem: Any, rng: np.random.Generator) -> Any:
    """Features from the whole family (each at its own uniform point, fixed
    dimensions held) filling ``problem.budget``; points where the family cannot
    draw are skipped."""
    space = problem.space
    fam = problem.family
    if not space.fixed:
        try:
            return fam.draw_random(problem.budget, rng)
        except ValidationError:
            pass  # a point where the family cannot draw: the loop below skips such points
    return fill_budget(fam, space, problem.budget, rng)


def summary_point(problem: SearchProblem, batch: Any) -> dict[str, Any]:
    """A valid point that summarizes a set drawn from the whole family: the mean
    of each meta-feature over the set (rounded for integer dimensions, clipped
    to the range; fixed dimensions keep their value; the default when the
    family does not describe a dimension or the set is empty)."""
    space = problem.space
    described: Mapping[str, Any] = {}
    if len(batch):
        try:
            described = problem.family.describe(batch)
        except Exception:  # a family without a describe for this batch: defaults
            described = {}
    out: dict[str, Any] = {}
    for d in space.dimensions:
        if d.name in space.fixed:
            out[d.name] = space.fixed[d.name]
        elif d.name in described and len(batch):
            if d.kind == "categorical":  # the most frequent choice
                values, counts = np.unique(np.asarray(described[d.name]), return_counts=True)
                out[d.name] = d.clip(values[int(np.argmax(counts))].item())
            else:
                out[d.name] = d.clip(float(np.mean(np.asarray(described[d.name], dtype=np.float64))))
        else:
            out[d.name] = d.start
    return out


def data_fingerprint(problem: SearchProblem) -> str:
    """A digest of the prepared data and labels (the same data gives the same digest)."""
    h = hashlib.sha256()
    prepared = problem.prepared
    values: Iterable[Any] = prepared.values() if isinstance(prepared, Mapping) else [prepared]
    for v in values:
        if isinstance(v, np.ndarray):
            h.update(str(v.shape).encode())
            h.update(np.ascontiguousarray(v).tobytes())
    h.update(np.ascontiguousarray(problem.y).tobytes())
    return h.hexdigest()[:16]


def problem_signature(engine: Any, problem: SearchProblem, seed: int, *,
                      exclude_params: Sequence[str] = ()) -> dict[str, Any]:
    """Everything that determines a search's steps (not its length ``steps``,
    so a finished search can be extended)."""
    params = {k: v for k, v in engine.get_params().items() if k not in exclude_params}
    out: dict[str, Any] = _jsonable({
        "engine": engine.name,
        "engine_params": params,
        "family": problem.family.name,
        "family_params": problem.family.get_params(),
        "evaluator": problem.evaluator.name,
        "evaluator_params": problem.evaluator.get_params(),
        "budget": problem.budget,
        "fixed": problem.space.fixed,
        "oversample": problem.oversample,
        "prune_by": problem.prune_by if problem.oversample > 1 else None,
        "seed": seed,
        "data": data_fingerprint(problem),
    })
    return out


def _jsonable(obj: Any) -> Any:
    if isinstance(obj, Mapping):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.floating):
        return float(obj)
    if isinstance(obj, np.ndarray):
        return _jsonable(obj.tolist())
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    return repr(obj)


_physical_memory = physical_memory  # the machine's memory (metafx.core.files)
