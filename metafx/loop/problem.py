"""What every search engine shares: the search problem, step records,
callbacks and the progress bar."""

from __future__ import annotations

import math
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from .base import FeatureFamily, SetEvaluator
from .exceptions import ValidationError
from .types import MetaFeatureSpace, SearchResult, StepRecord

__all__ = ["SearchProblem", "Evaluation", "SearchState", "Progress", "step_rng"]


def step_rng(seed: int, *keys: int) -> np.random.Generator:
    """The generator of one step: a pure function of ``(seed, *keys)``.

    Engines draw every random number of step ``j`` from ``step_rng(seed, j, ...)``,
    so a step can be replayed alone (resume) and candidates evaluated in any
    order or process (``n_jobs``) give the same result.
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
        family: FeatureFamily,
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
        self.prepared = self.family.prepare(X)
        self.y = np.asarray(y)
        self.n_samples = int(self.y.shape[0])
        self.evaluator = evaluator
        self.budget = float(budget)
        self.space: MetaFeatureSpace = self.family.space().with_fixed(fixed)
        self.eval_seed = int(eval_seed)
        if isinstance(oversample, bool) or not isinstance(oversample, (int, float, np.integer, np.floating)) \
                or not math.isfinite(float(oversample)) or not 1.0 <= float(oversample) <= 1000.0:
            raise ValidationError(f"oversample={oversample!r} must be a number in [1, 1000] (1 = no pruning)")
        self.oversample = float(oversample)
        self.prune_by = prune_by
        if self.oversample > 1.0:
            from ._api import make_component
            from .base import FeatureScorer

            self._pruner = make_component("evaluator", prune_by, None, base=FeatureScorer)
        min_cost = float(self.family.min_cost())
        if self.budget < min_cost:
            raise ValidationError(
                f"budget={budget:g} is below the cheapest feature's cost {min_cost:g}; raise --budget"
            )

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

    def evaluate(self, point: Mapping[str, Any], rng: np.random.Generator | None,
                 draw: Callable[[], Any] | None = None) -> Evaluation:
        """Draw (``self.draw(point, rng)``, or ``draw()`` when given), compute and score a set."""
        t0 = time.perf_counter()
        batch = draw() if draw is not None else self.draw(point, rng)
        t1 = time.perf_counter()
        values = self.family.compute(self.prepared, batch)
        t2 = time.perf_counter()
        quality = float(self.evaluator.evaluate(values, self.y, random_state=self.eval_seed))
        t3 = time.perf_counter()
        if not math.isfinite(quality):
            raise ValidationError(f"evaluator {self.evaluator.name!r} returned quality {quality!r} at {dict(point)}")
        return Evaluation(dict(point), batch, quality, float(np.sum(batch.costs)), len(batch),
                          {"draw": t1 - t0, "compute": t2 - t1, "evaluate": t3 - t2})

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
        from . import __version__

        meta = {
            "metafx_version": __version__,
            "timings": timings,
            "seconds": float(sum(r.seconds for r in trajectory)),
            "space_size": self.space.size,
            "oversample": self.oversample,
            "prune_by": self.prune_by if self.oversample > 1 else None,
        }
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


@dataclass
class SearchState:
    """What callbacks see: the steps so far and the best one. ``stop()`` ends the search."""

    total_steps: int
    trajectory: list[StepRecord] = field(default_factory=list)
    best_quality: float = -math.inf
    best_point: dict[str, Any] = field(default_factory=dict)
    best_step: int = 0
    spent: float = 0.0
    stop_requested: bool = False

    def stop(self) -> None:
        self.stop_requested = True

    def record(self, rec: StepRecord, callbacks: Sequence[Callable[..., Any]]) -> None:
        self.trajectory.append(rec)
        self.spent += rec.cost
        if rec.accepted:
            self.best_quality, self.best_point, self.best_step = rec.quality, dict(rec.point), rec.step
        for cb in callbacks:
            if cb(self, rec) is False:
                self.stop_requested = True


class Progress:
    """A tqdm bar (step, best quality, spent budget, ETA), or nothing.

    ``enabled=None`` shows it only when stderr is a terminal.
    """

    def __init__(self, total: int, enabled: bool | None, desc: str = "search", initial: int = 0) -> None:
        if enabled is None:
            enabled = sys.stderr.isatty()
        self.bar = None
        if enabled:
            from tqdm.auto import tqdm

            self.bar = tqdm(total=total, initial=initial, desc=desc, unit="step", dynamic_ncols=True)

    def update(self, state: SearchState, n: int = 1) -> None:
        if self.bar is not None:
            self.bar.set_postfix(best=f"{state.best_quality:.4f}", spent=f"{state.spent:.4g}", refresh=False)
            self.bar.update(n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
