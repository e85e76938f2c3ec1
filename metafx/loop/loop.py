"""The one search loop: engines propose, the loop does everything else.

:func:`run_search` asks the engine for the candidates of each step, draws,
computes and scores them (in ``n_jobs`` worker processes when asked), records
the best candidate as the step's :class:`~metafx.plugin.StepRecord`, writes it to the
journal, tells the engine, calls the callbacks, shows progress and logs; on
resume it replays the journal through the engine's ``ask``/``tell``; at the
end it re-draws the best set when it was found before a restart and builds the
:class:`~metafx.SearchResult`.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import os
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..core.base import Candidate, Proposal, SearchEngine
from ..core.exceptions import StorageError, ValidationError
from ..core.validation import check_int, check_n_jobs, check_number
from ..core.values import PriorObservation, StepRecord
from ..storage import open_store
from ..storage.store import StepStore
from .parallel import EvaluationPool
from .problem import Evaluation, SearchProblem, draw_or_empty, problem_signature, step_rng
from .result import SearchResult

__all__ = [
    "DRAW_KEY",
    "Progress",
    "SearchInterrupted",
    "SearchState",
    "logger",
    "prior_observations",
    "reselect_seed",
    "run_search",
    "search_signature",
    "warm_start_points",
]

logger = logging.getLogger("metafx")

#: the third key of every feature draw: candidate i of step j draws from step_rng(seed, j, DRAW_KEY[, i])
DRAW_KEY = 1
#: seconds between polls while other workers finish a shared study's last steps
POLL_SECONDS = 1.0


class SearchInterrupted(KeyboardInterrupt):
    """Ctrl-C during a search; ``result`` holds the steps finished so far (``metadata["interrupted"]``)."""

    def __init__(self, result: SearchResult | None) -> None:
        super().__init__("search interrupted")
        self.result = result


@dataclass
class SearchState:
    """What callbacks see: the steps so far and the best one. ``stop()`` ends the search."""

    total_steps: int
    trajectory: list[StepRecord] = field(default_factory=list)
    best_quality: float = -math.inf
    best_point: dict[str, Any] = field(default_factory=dict)
    best_step: int = 0
    best_cost: float = 0.0
    best_n_features: int = 0
    stop_requested: bool = False
    started: float = field(default_factory=time.perf_counter)

    def stop(self) -> None:
        self.stop_requested = True

    def record(self, rec: StepRecord, callbacks: Sequence[Callable[..., Any]]) -> None:
        self.trajectory.append(rec)
        if rec.accepted:
            self.best_quality, self.best_point, self.best_step = rec.quality, dict(rec.point), rec.step
            self.best_cost, self.best_n_features = rec.cost, rec.n_features
        for cb in callbacks:
            if cb(self, rec) is False:
                self.stop_requested = True


class Progress:
    """Progress of a search: a tqdm bar, or log lines of the ``metafx`` logger.

    ``enabled=True`` shows a bar (``tqdm.auto``: a widget in notebooks);
    ``None`` shows one only when stderr is a terminal.  Without a bar, a line
    goes to the ``metafx`` logger (level INFO) every ``log_every`` steps and at
    the end: step, best quality, features and cost of the best set, seconds.
    """

    def __init__(self, total: int, enabled: bool | None, desc: str, budget: float, log_every: int = 10) -> None:
        if enabled is None:
            enabled = sys.stderr.isatty()
        self.total, self.desc, self.budget, self.log_every = total, desc, budget, max(1, int(log_every))
        self.bar = None
        self.done = 0
        if enabled:
            from tqdm.auto import tqdm

            self.bar = tqdm(total=total, desc=desc, unit="step", dynamic_ncols=True)

    def update(self, state: SearchState, n: int = 1) -> None:
        self.done += n
        if self.bar is not None:
            self.bar.set_postfix(best=f"{state.best_quality:.4f}", features=state.best_n_features,
                                 cost=f"{state.best_cost:.4g}/{self.budget:.4g}", refresh=False)
            self.bar.update(n)
        elif self.done % self.log_every == 0 or self.done == self.total:
            self.log(state)

    def log(self, state: SearchState) -> None:
        logger.info("%s: step %d/%d, best quality %.4f (step %d, %d features, cost %.4g of %.4g), %.1f s",
                    self.desc, self.done, self.total, state.best_quality, state.best_step, state.best_n_features,
                    state.best_cost, self.budget, time.perf_counter() - state.started)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


# ---------------------------------------------------------------------------- helpers
def candidates_of(proposal: Proposal, problem: SearchProblem, seed: int,
                  step: int) -> list[Candidate]:
    """The engine's proposal for ``step`` as validated :class:`Candidate` objects with their draw keys."""
    if isinstance(proposal, (Mapping, Candidate)):
        proposal = [proposal]
    out: list[Candidate] = []
    for i, c in enumerate(proposal):
        if not isinstance(c, Candidate):
            if not isinstance(c, Mapping):
                raise ValidationError(f"an engine proposed {c!r} for step {step}; a proposal is a point (dict) "
                                      "or a metafx.plugin.Candidate")
            c = Candidate(dict(c))
        point = problem.space.check_point(c.point) if c.how == "point" else dict(c.point)
        keys = c.keys if c.keys is not None else ((seed, step, DRAW_KEY) if i == 0 else (seed, step, DRAW_KEY, i))
        out.append(Candidate(point, c.how, tuple(int(k) for k in keys), c.tag, c.kind))
    if not out:
        raise ValidationError(f"the engine proposed no candidate for step {step}")
    return out


def warm_start_points(warm_start: Any, space: Any, limit: int | None = None) -> list[dict[str, Any]]:
    """The points a warm start hands to the engine: the best point of each earlier result (best first).

    ``warm_start`` is a :class:`~metafx.SearchResult`, a point (dict) or a list
    of them, from searches on related tasks with the same family; points come
    first (as given), then the results' best points by quality.  Each point
    is fitted to ``space``: meta-features the space lacks are dropped, missing
    ones take their defaults, fixed ones their fixed value, values are clipped
    to the ranges.  Repeated points are kept once; at most ``limit``.
    """
    items = _warm_items(warm_start)
    scored: list[tuple[float, int, dict[str, Any]]] = []
    point: Mapping[str, Any]
    for i, item in enumerate(items):
        if isinstance(item, SearchResult):
            # a result whose best step was a portfolio (no point) hands over its best point step
            steps = [(r.quality, -r.step, r.point) for r in item.trajectory if r.point]
            if item.best_point:
                point, q = item.best_point, item.best_quality
            elif steps:
                q, _, point = max(steps, key=lambda t: t[:2])
            else:
                continue
        elif isinstance(item, Mapping):
            point, q = item, math.inf
        elif isinstance(item, (str, os.PathLike)):
            raise ValidationError(f"warm_start holds the file name {str(item)!r}; give the results it holds: "
                                  f"metafx.SearchResult.from_json({str(item)!r})")
        else:
            raise ValidationError(f"warm_start holds {item!r}; give SearchResults of related tasks or points (dicts)")
        fitted = {d.name: d.clip(point[d.name]) for d in space.dimensions if d.name in point}
        scored.append((q, i, space.check_point(fitted)))
    out: list[dict[str, Any]] = []
    # points given as such first, then results best first (qualities of related tasks only order the points)
    for _, _, p in sorted(scored, key=lambda t: (-t[0], t[1])):
        if p not in out:
            out.append(p)
    return out[:limit] if limit is not None else out


def _warm_items(warm_start: Any) -> list[Any]:
    """``warm_start`` as a list: one result, point or file name alone, or the items of a list of them."""
    if warm_start is None:
        return []
    single = (Mapping, SearchResult, str, os.PathLike)
    return [warm_start] if isinstance(warm_start, single) else list(warm_start)


def prior_observations(warm_start: Any, space: Any, family: Any = None) -> list[PriorObservation]:
    """Every point step of the warm-start results, as :class:`~metafx.plugin.PriorObservation` (engines with
    ``uses_prior``): the point the step drew at, its quality and the index of its result among the results given.

    The point is the one the engine proposed (``metadata["proposed_points"]``, which ``guided`` keeps: its
    records hold the mean meta-features of the drawn set) or else the record's, fitted to ``space`` as
    ``warm_start_points`` fits points; portfolio steps (no point) and steps of non-finite quality are left
    out, and points given as such (dicts) carry no quality and give none.  In result order, then step order.

    With ``family`` (a family instance; engines with ``uses_prior_sets``), each result of that family with the
    same parameters and at least one feature adds, after its steps, an observation of its chosen set
    (``features``: the result's features; empty point; the result's best quality).
    """
    items = _warm_items(warm_start)
    results = [r for r in items if isinstance(r, SearchResult)]
    out: list[PriorObservation] = []
    for task, res in enumerate(results):
        proposed = res.metadata.get("proposed_points") if isinstance(res.metadata, Mapping) else None
        steps = [r.step for r in res.trajectory]
        aligned = isinstance(proposed, list) and len(proposed) >= len(steps) and \
            all(isinstance(s, int) and 1 <= s <= len(proposed) for s in steps)
        lookup: list[Any] = proposed if aligned and isinstance(proposed, list) else []
        for rec in res.trajectory:
            point = (lookup[rec.step - 1] if lookup else None) or rec.point
            if rec.kind != "point" or not point or not math.isfinite(rec.quality):
                continue
            fitted = {d.name: d.clip(point[d.name]) for d in space.dimensions if d.name in point}
            out.append(PriorObservation(space.check_point(fitted), float(rec.quality), task))
        if family is not None and res.features and _same_family(res, family) and math.isfinite(res.best_quality):
            out.append(PriorObservation({}, float(res.best_quality), task, [dict(f) for f in res.features]))
    return out


def _same_family(result: SearchResult, family: Any) -> bool:
    """Whether ``result`` was searched with ``family``'s name and parameters (its features mean the same here)."""
    if result.family != family.name:
        return False
    ours = json.loads(json.dumps(family.get_params(), default=str))
    theirs = json.loads(json.dumps(dict(result.family_params), default=str))
    return bool(ours == theirs)


def prior_digest(prior: Sequence[PriorObservation]) -> dict[str, Any]:
    """What a search's signature records of its prior observations: how many, and a SHA-256 of them all."""
    text = json.dumps([o.to_dict() for o in prior], sort_keys=True, default=str)
    return {"n": len(prior), "sha256": hashlib.sha256(text.encode("utf-8")).hexdigest()}


@dataclass
class _Best:
    step: int
    candidate: Candidate
    evaluation: Evaluation | None  # None: found before a restart (re-drawn at the end)


def _is_better(quality: float, best: float, ties: bool) -> bool:
    return quality >= best if ties else quality > best


@dataclass
class _Run:
    """One search while it runs: what the phases share."""

    problem: SearchProblem
    engine: SearchEngine
    seed: int
    store: StepStore
    callbacks: Sequence[Callable[..., Any]]
    state: SearchState
    top: _Top
    bar: Any = None
    best: _Best | None = None
    candidates: dict[int, Candidate] = field(default_factory=dict)
    replayed: int = 0
    stopped: str | None = None

    def record(self, rec: StepRecord, cand: Candidate, ev: Evaluation | None, callbacks: Sequence[Any]) -> None:
        self.candidates[rec.step] = cand
        self.state.record(rec, callbacks)
        self.top.offer(rec.quality, _Best(rec.step, cand, ev))
        if rec.accepted:
            self.best = _Best(rec.step, cand, ev)
        self.bar.update(self.state)


# ---------------------------------------------------------------------------- the loop
def run_search(problem: SearchProblem, engine: SearchEngine, *, steps: int, seed: int,
               callbacks: Sequence[Callable[..., Any]] = (), progress: bool | None = None,
               storage: Any = None, study_name: str | None = None, n_jobs: int | None = 1,
               timeout: float | None = None, log_every: int = 10,
               warm_start: Sequence[Mapping[str, Any]] = (), reselect: int | None = None,
               store: StepStore | None = None, prior: Sequence[PriorObservation] = (),
               storage_options: Mapping[str, Any] | None = None, reselect_splits: int | None = None) -> SearchResult:
    """Run ``engine`` on ``problem`` for ``steps`` steps and return the result (see the module docstring).

    ``storage`` (with ``study_name`` and ``storage_options``) names the step store
    (``metafx.storage.open_store``); ``store``: a store made by the caller instead (e.g. a shared study
    that must exist).

    ``warm_start``: valid points of ``problem.space`` that were good on related tasks (see
    ``warm_start_points``), handed to the engine before step 1.  ``prior``: every step of those
    searches (``prior_observations``), handed to an engine whose ``uses_prior`` is true after the points
    and recorded in the search's signature (a count and a digest); other engines never see them.

    ``reselect = r > 1``: the ``r`` best steps' sets are scored once more on a fresh split (the
    evaluator with another seed, ``reselect_seed``) and the result keeps the one with the best
    mean of its two scores (see :func:`metafx.search`); None: the engine's ``reselect``.
    ``reselect_splits = k``: each of those sets is scored on ``k`` fresh splits, and the result keeps the best
    mean of its ``1 + k`` scores; None: the engine's ``reselect_splits`` (1 unless it says otherwise).
    """
    cap, reselect, n_jobs, timeout = _checked(engine, steps, reselect, n_jobs, timeout, callbacks)
    splits = check_int("reselect_splits", engine.reselect_splits if reselect_splits is None else reselect_splits, 1)
    if study_name is not None and storage is None and store is None:
        raise ValidationError("study_name was given without storage; a study lives in a storage")
    warm = [problem.space.check_point(p) for p in warm_start]
    engine.setup(problem, seed)
    engine.warm_start(warm)
    prior = list(prior) if engine.uses_prior else []
    if prior:
        engine.observe_prior(prior)
    if store is None:
        store = open_store(storage, study_name, cap, problem.space, trials=engine.steps_are_trials,
                           engine=engine.name, options=storage_options)
    if reselect > 1 and store.shared:
        raise ValidationError(f"reselect={reselect} is not available with engine {engine.name!r}, whose steps live "
                              f"in a study; use reselect=1")
    run = _Run(problem, engine, seed, store, callbacks, SearchState(total_steps=cap), _Top(reselect, engine.accept_ties))
    deadline = None if timeout is None else time.monotonic() + timeout
    error: BaseException | None = None
    try:
        finished = store.open(search_signature(engine, problem, seed, warm, prior))
        with Progress(cap, progress, engine.name, problem.budget, log_every) as run.bar, \
                EvaluationPool(problem, engine, n_jobs) as pool:
            _replay(run, finished)
            _rounds(run, pool, n_jobs if engine.independent_steps else 1, deadline)
    except KeyboardInterrupt as e:
        error = e
    except BaseException as e:
        error = e
        raise
    finally:
        engine.close(error)
        store.close(error)
    return _outcome(run, reselect, error, splits)


def _checked(engine: SearchEngine, steps: Any, reselect: Any, n_jobs: Any, timeout: Any,
             callbacks: Sequence[Any]) -> tuple[int, int, int, float | None]:
    """The loop's arguments, checked: ``(steps capped by the engine, reselect, n_jobs, timeout)``."""
    steps = check_int("steps", steps, 1)
    reselect = check_int("reselect", engine.reselect if reselect is None else reselect, 1)
    n_jobs = check_n_jobs(n_jobs)
    timeout = check_number("timeout", timeout, low=0, strict=True, allow_none=True)
    for cb in callbacks:
        if not callable(cb):
            raise ValidationError(f"callbacks holds {cb!r}, which is not callable; pass functions fn(state, record)")
    return (steps if engine.max_steps is None else min(steps, engine.max_steps)), reselect, n_jobs, timeout


def search_signature(engine: SearchEngine, problem: SearchProblem, seed: int, warm: list[dict[str, Any]],
                     prior: Sequence[PriorObservation] = ()) -> dict[str, Any]:
    """What determines the search (its store refuses another)."""
    exclude = () if prior else tuple(getattr(engine, "prior_params", ()))
    signature = problem_signature(engine, problem, seed, exclude_params=exclude)
    if warm:
        signature["warm_start"] = warm
    if prior:
        signature["warm_start_prior"] = prior_digest(prior)
    return signature


# ---------------------------------------------------------------------------- phases
def _replay(run: _Run, finished: list[StepRecord]) -> None:
    """The steps finished before go through the engine's ``ask``/``tell`` as in the first run (no callbacks).

    A step of a shared store that the engine would not propose now (another process ran it, or the
    engine's history was another then) is told as it is."""
    for rec in finished:
        cands = candidates_of(run.engine.ask(rec.step), run.problem, run.seed, rec.step)
        i = _recorded_candidate(cands, rec, run.store)
        cand = cands[i] if i is not None else Candidate(dict(rec.point), keys=(run.seed, rec.step, DRAW_KEY))
        run.engine.tell(rec)
        run.record(rec, cand, None, ())
    run.store.replayed(finished)
    run.replayed = len(finished)
    if finished:
        logger.info("%s: resumed %d finished step(s) from %s", run.engine.name, len(finished), run.store.where)


def _rounds(run: _Run, pool: EvaluationPool, width: int, deadline: float | None) -> None:
    """Rounds of up to ``width`` steps claimed from the store, evaluated at once, until none is left."""
    while not run.state.stop_requested:
        if deadline is not None and time.monotonic() >= deadline:
            run.stopped = "timeout"
            logger.info("%s: stopped after %d step(s): timeout reached", run.engine.name, len(run.state.trajectory))
            return
        round_ = _claim_round(run, width)
        if round_:
            _evaluate_round(run, pool, round_)
        elif run.store.done():
            return
        else:
            time.sleep(POLL_SECONDS)  # the last steps run elsewhere


def _claim_round(run: _Run, width: int) -> list[tuple[int, list[Candidate]]]:
    """Up to ``width`` steps to evaluate now, each with the engine's candidates (a step another process
    started and left keeps its point); the engine first learns the steps other processes finished."""
    round_: list[tuple[int, list[Candidate]]] = []
    for _ in range(width):
        claim = run.store.claim()
        for rec in run.store.news():
            run.engine.tell(rec)
        if claim is None:
            break
        proposal = run.engine.ask(claim.step)
        if proposal is None:  # the engine has nothing more to start
            break
        cands = candidates_of(proposal, run.problem, run.seed, claim.step)
        if claim.point is not None and len(cands) == 1 and cands[0].how == "point":
            cands = [Candidate(run.problem.space.check_point(claim.point), "point", cands[0].keys, cands[0].tag)]
        run.store.start(claim, cands[0].point)
        round_.append((claim.step, cands))
    return round_


def _evaluate_round(run: _Run, pool: EvaluationPool, round_: list[tuple[int, list[Candidate]]]) -> None:
    """Evaluate the round's candidates; record, store and tell each step (the best of its candidates)."""
    t0 = time.perf_counter()
    results = pool.map([c for _, cands in round_ for c in cands])
    wall = time.perf_counter() - t0
    pos = 0
    for step, cands in round_:
        evs = results[pos:pos + len(cands)]
        pos += len(cands)
        i = max(range(len(evs)), key=lambda n: (evs[n][0].quality, -n))
        rec = _step_record(run, step, cands, evs, i, wall if len(round_) == 1 else evs[i][1])
        run.store.append(rec)
        run.engine.tell(rec)
        run.record(rec, cands[i], evs[i][0], run.callbacks)
        if run.state.stop_requested:
            return


def _step_record(run: _Run, step: int, cands: list[Candidate], evs: list[tuple[Evaluation, float]], i: int,
                 seconds: float) -> StepRecord:
    """The record of a step whose best candidate is ``i``: its timings are the sum over the candidates."""
    ev = evs[i][0]
    state = run.state
    timings = dict(ev.timings) if len(evs) == 1 else {
        key: float(sum(e.timings.get(key, 0.0) for e, _ in evs)) for key in ev.timings}
    kind = cands[i].kind  # a portfolio step is recorded with no point: the mean of its sets' points is no point
    return StepRecord(step=step, point={} if kind == "portfolio" else dict(ev.point), quality=ev.quality,
                      cost=ev.cost, n_features=ev.n_features, seconds=seconds,
                      best_quality=max(ev.quality, state.best_quality),
                      accepted=_is_better(ev.quality, state.best_quality, run.engine.accept_ties), timings=timings,
                      kind=kind)


def _outcome(run: _Run, reselect: int, error: BaseException | None, splits: int = 1) -> SearchResult:
    """The result: the store's finished steps (a shared store: every process's), the best re-drawn
    when it was found before a restart or elsewhere, ``reselect`` among the best."""
    pairs = run.store.finished(run.state.trajectory)
    trajectory = [rec for rec, _ in pairs]
    best: _Best | None = None
    for rec, key in pairs:
        if rec.accepted:
            ev = run.best.evaluation if run.best is not None and run.best.step == key else None
            cand = run.candidates.get(key) or Candidate(dict(rec.point), keys=(run.seed, key, DRAW_KEY))
            best = _Best(rec.step, cand, ev)
    choice = None
    if reselect > 1 and not isinstance(error, KeyboardInterrupt) and len(run.top.entries) > 1:
        best, choice = _reselect(run.problem, run.engine, trajectory, run.top.entries, splits)
    result = _result(run, trajectory, best, error, choice)
    result.metadata["planned_steps"] = run.state.total_steps  # SearchResult.bound counts the steps planned
    if best is not None and any(r.step == best.step and r.kind == "portfolio" for r in trajectory):
        result.best_point = {}  # a portfolio's set has no meta-feature point (the mean of its features' is none)
    if isinstance(error, KeyboardInterrupt):
        raise SearchInterrupted(result) from None
    return result


def _recorded_candidate(cands: list[Candidate], rec: StepRecord, store: StepStore) -> int | None:
    """Which candidate of a replayed step produced ``rec``; None when none did and the store is shared
    (a journal from another run is refused)."""
    if len(cands) == 1 and (cands[0].how != "point" or cands[0].point == rec.point):
        return 0
    for i, c in enumerate(cands):
        if c.point == rec.point:
            return i
    if store.shared:
        return None
    where = store.where
    if len(cands) == 1:
        raise StorageError(f"journal step {rec.step} was at {rec.point}, replay reached {cands[0].point}; "
                           f"the journal {where!r} was not written by this search")
    raise StorageError(f"journal step {rec.step} was at {rec.point}, replay reached {[c.point for c in cands]}")


class _Top:
    """The ``r`` best steps so far, for ``reselect``: by quality, ties ordered as the loop's own choice
    (the later step first when the engine accepts ties), so the first entry is the loop's best."""

    def __init__(self, r: int, later_first: bool) -> None:
        self.r = r
        self.later_first = later_first
        self.entries: list[tuple[float, _Best]] = []

    def offer(self, quality: float, entry: _Best) -> None:
        if self.r < 2:
            return
        self.entries = [e for e in self.entries if e[1].step != entry.step]
        self.entries.append((quality, entry))
        self.entries.sort(key=lambda e: (-e[0], -e[1].step if self.later_first else e[1].step))
        del self.entries[self.r:]


def reselect_seed(eval_seed: int, split: int = 0) -> int:
    """The evaluator's seed for ``reselect``'s second scores (``split``: the how-manieth fresh split of
    ``reselect_splits``, 0 the first): derived from the search's, and another."""
    return int(np.random.SeedSequence([int(eval_seed), 2 + int(split)]).generate_state(1)[0])


def _evaluation_of(problem: SearchProblem, engine: SearchEngine, trajectory: list[StepRecord],
                   entry: _Best) -> Evaluation:
    """The step's evaluation, its features drawn again (same generator) when it was found before a restart."""
    if entry.evaluation is not None:
        return entry.evaluation
    rec = trajectory[[r.step for r in trajectory].index(entry.step)]
    assert entry.candidate.keys is not None  # candidates_of gives every candidate its draw keys
    rng = step_rng(*entry.candidate.keys)
    batch = draw_or_empty(problem, lambda: problem.draw_candidate(entry.candidate, rng, engine))
    return Evaluation(dict(rec.point), batch, rec.quality, rec.cost, rec.n_features, rec.timings)


def _reselect(problem: SearchProblem, engine: SearchEngine, trajectory: list[StepRecord],
              entries: list[tuple[float, _Best]], splits: int = 1) -> tuple[_Best, dict[str, Any]]:
    """Score the best steps' sets on ``splits`` fresh splits; keep the best mean of the ``1 + splits``
    scores (ties: the better first score, then the order of ``entries``, whose first is the loop's own
    best).  ``second_qualities``: each set's mean fresh score (its one fresh score when ``splits`` is 1)."""
    t0 = time.perf_counter()
    seeds = [reselect_seed(problem.eval_seed, i) for i in range(splits)]
    rows = []
    for quality, entry in entries:
        ev = _evaluation_of(problem, engine, trajectory, entry)
        values = problem.family.compute(problem.prepared, ev.batch)
        fresh = [float(problem.evaluator.evaluate(values, problem.y, random_state=s)) for s in seeds]
        if not all(math.isfinite(q) for q in fresh):
            raise ValidationError(f"evaluator {problem.evaluator.name!r} returned quality {fresh!r} when "
                                  f"reselecting step {entry.step}")
        rows.append((quality, fresh, _Best(entry.step, entry.candidate, ev)))
    k = max(range(len(rows)), key=lambda i: ((rows[i][0] + sum(rows[i][1])) / (1 + splits), rows[i][0], -i))
    choice: dict[str, Any] = {"r": len(rows), "seed": seeds[0], "steps": [b.step for _, _, b in rows],
              "qualities": [q for q, _, _ in rows],
              "second_qualities": [sum(q2) / splits for _, q2, _ in rows],
              "chosen_step": rows[k][2].step, "seconds": time.perf_counter() - t0}
    if splits > 1:  # the default's record (one fresh split) is unchanged
        choice.update(splits=splits, split_seeds=seeds, fresh_qualities=[q2 for _, q2, _ in rows])
    logger.info("%s: reselect among steps %s (second scores %s): step %d", engine.name, choice["steps"],
                ", ".join(f"{q:.4f}" for q in choice["second_qualities"]), choice["chosen_step"])
    return rows[k][2], choice


def _result(run: _Run, trajectory: list[StepRecord], best: _Best | None, error: BaseException | None,
            choice: Mapping[str, Any] | None = None) -> SearchResult:
    problem, engine = run.problem, run.engine
    ev = None
    if best is not None:
        ev = _evaluation_of(problem, engine, trajectory, best)
    meta: dict[str, Any] = {**engine.metadata(), **run.store.metadata()}
    if choice is not None:
        meta["reselect"] = dict(choice)
    if run.replayed and not run.store.shared:
        meta["resumed_steps"] = run.replayed
    if run.stopped:
        meta["stopped"] = run.stopped
    if isinstance(error, KeyboardInterrupt):
        meta["interrupted"] = True
    empty = sum(r.n_features == 0 for r in trajectory)
    if empty:
        meta["empty_steps"] = empty
    if trajectory and empty == len(trajectory):  # never passed off as a normal result
        meta["empty_result"] = True
        logger.warning("%s: no step of the search drew a feature (%d of %d steps gave an empty set) under "
                       "budget=%g; the result holds no features", engine.name, empty, len(trajectory), problem.budget)
    return problem.make_result(engine, run.seed, trajectory, ev, best.step if best is not None else 0, metadata=meta)
