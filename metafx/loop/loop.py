"""The one search loop: engines propose, the loop does everything else.

:func:`run_search` asks the engine for the candidates of each step, draws,
computes and scores them (in ``n_jobs`` worker processes when asked), records
the best candidate as the step's :class:`~metafx.StepRecord`, writes it to the
journal, tells the engine, calls the callbacks, shows progress and logs; on
resume it replays the journal through the engine's ``ask``/``tell``; at the
end it re-draws the best set when it was found before a restart and builds the
:class:`~metafx.SearchResult`.
"""

from __future__ import annotations

import logging
import math
import os
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from ..core.base import Candidate, SearchEngine
from ..core.exceptions import StorageError, ValidationError
from ..core.validation import check_int, check_n_jobs, check_number
from ..core.values import StepRecord
from .journal import Journal
from .parallel import Evaluator
from .problem import Evaluation, SearchProblem, draw_or_empty, problem_signature, step_rng
from .result import SearchResult

__all__ = ["run_search", "reselect_seed", "warm_start_points", "SearchState", "Progress", "SearchInterrupted", "DRAW_KEY", "logger"]

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
def candidates_of(proposal: Sequence[Candidate | Mapping[str, Any]], problem: SearchProblem, seed: int,
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
        out.append(Candidate(point, c.how, tuple(int(k) for k in keys), c.tag))
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
    if warm_start is None:
        return []
    items = [warm_start] if isinstance(warm_start, (Mapping, SearchResult)) else list(warm_start)
    scored: list[tuple[float, int, dict[str, Any]]] = []
    for i, item in enumerate(items):
        if isinstance(item, SearchResult):
            if not item.best_point:
                continue
            point, q = item.best_point, item.best_quality
        elif isinstance(item, Mapping):
            point, q = item, math.inf
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


def journal_path_for(engine: str, storage: Any) -> str:
    """``storage`` as the path of a JSON-lines step journal."""
    if not isinstance(storage, (str, os.PathLike)):
        raise ValidationError(f"storage={storage!r} must be the path of a journal file for engine {engine!r}")
    s = os.fspath(storage)
    if "://" in s or s.startswith("journal:") or s.endswith((".db", ".sqlite", ".sqlite3", ".log")):
        raise ValidationError(
            f"storage={s!r} looks like an optuna storage; engine {engine!r} records its steps in a JSON-lines "
            "journal file: pass a path such as search.jsonl (optuna storages are used by engine 'optuna')")
    return s


@dataclass
class _Best:
    step: int
    candidate: Candidate
    evaluation: Evaluation | None  # None: found before a restart (re-drawn at the end)


def _is_better(quality: float, best: float, ties: bool) -> bool:
    return quality >= best if ties else quality > best


# ---------------------------------------------------------------------------- the loop
def run_search(problem: SearchProblem, engine: SearchEngine, *, steps: int, seed: int,
               callbacks: Sequence[Callable[..., Any]] = (), progress: bool | None = None,
               storage: Any = None, study_name: str | None = None, n_jobs: int | None = 1,
               timeout: float | None = None, log_every: int = 10,
               warm_start: Sequence[Mapping[str, Any]] = (), reselect: int | None = None) -> SearchResult:
    """Run ``engine`` on ``problem`` for ``steps`` steps and return the result (see the module docstring).

    ``warm_start``: valid points of ``problem.space`` that were good on related tasks (see
    :func:`warm_start_points`), handed to the engine before step 1.

    ``reselect = r > 1``: the ``r`` best steps' sets are scored once more on a fresh split (the
    evaluator with another seed, :func:`reselect_seed`) and the result keeps the one with the best
    mean of its two scores (see :func:`metafx.search`); None: the engine's ``reselect``.
    """
    steps = check_int("steps", steps, 1)
    reselect = check_int("reselect", engine.reselect if reselect is None else reselect, 1)
    if reselect > 1 and engine.own_storage:
        raise ValidationError(f"reselect={reselect} is not available with engine {engine.name!r}, whose steps live "
                              f"in its own storage; use reselect=1")
    n_jobs = check_n_jobs(n_jobs)
    timeout = check_number("timeout", timeout, low=0, strict=True, allow_none=True)
    for cb in callbacks:
        if not callable(cb):
            raise ValidationError(f"callbacks holds {cb!r}, which is not callable; pass functions fn(state, record)")
    if study_name is not None and storage is None:
        raise ValidationError("study_name was given without storage; a study lives in a storage")
    cap = steps if engine.max_steps is None else min(steps, engine.max_steps)
    warm = [problem.space.check_point(p) for p in warm_start]
    engine.setup(problem, seed)
    engine.warm_start(warm)
    journal: Journal | None = None
    restored: list[StepRecord] = []
    finished_before: list[tuple[StepRecord, Candidate]] = []
    if engine.own_storage:
        finished_before = list(engine.open(storage, study_name, cap) or [])
    elif storage is not None:
        if study_name is not None:
            raise ValidationError(f"engine {engine.name!r} keeps a journal file, which holds one search: "
                                  "omit study_name")
        signature = problem_signature(engine, problem, seed)
        if warm:
            signature["warm_start"] = warm
        journal = Journal(journal_path_for(engine.name, storage), signature)
        restored = journal.records[:cap]
    state = SearchState(total_steps=cap)
    best: _Best | None = None
    top = _Top(reselect, engine.accept_ties)
    error: BaseException | None = None
    stopped = None
    deadline = None if timeout is None else time.monotonic() + timeout
    j = 0
    try:
        with Progress(cap, progress, engine.name, problem.budget, log_every) as bar, \
                Evaluator(problem, engine, n_jobs) as pool:
            for rec in restored:  # replay: the engine sees the same asks and tells as in the first run
                j = rec.step
                cands = candidates_of(engine.ask(j), problem, seed, j)
                idx = _recorded_candidate(cands, rec, journal)
                engine.tell(rec)
                state.record(rec, callbacks)
                top.offer(rec.quality, _Best(j, cands[idx], None))
                if rec.accepted:
                    best = _Best(j, cands[idx], None)
                bar.update(state)
                if state.stop_requested:
                    break
            for rec, cand in finished_before:  # steps the engine's storage holds: no callbacks, no replay
                state.record(rec, ())
                if rec.accepted:
                    best = _Best(rec.step, cand, None)
                j = rec.step
                bar.update(state)
            if restored or finished_before:
                logger.info("%s: resumed %d finished step(s) from %s", engine.name,
                            len(restored) or len(finished_before), journal.path if journal else "the storage")
            while not state.stop_requested:
                if not engine.own_storage and j >= cap:
                    break
                if deadline is not None and time.monotonic() >= deadline:
                    stopped = "timeout"
                    logger.info("%s: stopped after %d step(s): timeout of %g s reached", engine.name, j, timeout)
                    break
                width = n_jobs if engine.independent_steps else 1
                if not engine.own_storage:
                    width = min(width, cap - j)
                round_: list[tuple[int, list[Candidate]]] = []
                for k in range(1, width + 1):
                    proposal = engine.ask(j + k)
                    if proposal is None:  # the engine has nothing more to start
                        break
                    cands = candidates_of(proposal, problem, seed, j + k)
                    round_.append((engine.step_number(j + k, cands[0]), cands))
                if not round_:
                    if engine.own_storage and not engine.finished():
                        time.sleep(POLL_SECONDS)  # the last steps run elsewhere
                        continue
                    break
                t0 = time.perf_counter()
                results = pool.map([c for _, cands in round_ for c in cands])
                wall = time.perf_counter() - t0
                pos = 0
                for step, cands in round_:
                    evs = results[pos:pos + len(cands)]
                    pos += len(cands)
                    k = max(range(len(evs)), key=lambda i: (evs[i][0].quality, -i))
                    ev = evs[k][0]
                    accepted = _is_better(ev.quality, state.best_quality, engine.accept_ties)
                    timings = dict(ev.timings) if len(evs) == 1 else {
                        key: float(sum(e.timings.get(key, 0.0) for e, _ in evs)) for key in ev.timings}
                    rec = StepRecord(step=step, point=dict(ev.point), quality=ev.quality, cost=ev.cost,
                                     n_features=ev.n_features,
                                     seconds=wall if len(round_) == 1 else evs[k][1],
                                     best_quality=max(ev.quality, state.best_quality), accepted=accepted,
                                     timings=timings)
                    if journal is not None:
                        journal.append(rec)
                    engine.tell(rec)
                    top.offer(ev.quality, _Best(step, cands[k], ev))
                    if accepted:
                        best = _Best(step, cands[k], ev)
                    state.record(rec, callbacks)
                    bar.update(state)
                    j = max(j, step)
                    if state.stop_requested:
                        break
    except KeyboardInterrupt as e:
        error = e
    except BaseException as e:
        error = e
        raise
    finally:
        engine.close(error)
        if journal is not None:
            journal.close()
    trajectory = state.trajectory
    best_step = state.best_step
    if engine.own_storage:
        trajectory, best = _collected(engine, best)
        best_step = best.step if best is not None else 0
    choice = None
    if reselect > 1 and not isinstance(error, KeyboardInterrupt) and len(top.entries) > 1:
        best, choice = _reselect(problem, engine, trajectory, top.entries)
        best_step = best.step
    result = _result(problem, engine, seed, trajectory, best, best_step, restored, stopped, error, choice)
    result.metadata["planned_steps"] = cap  # SearchResult.bound counts the steps planned, not those finished
    if isinstance(error, KeyboardInterrupt):
        raise SearchInterrupted(result) from None
    return result


def _recorded_candidate(cands: list[Candidate], rec: StepRecord, journal: Journal | None) -> int:
    """Which candidate of a replayed step produced ``rec`` (a journal from another run is refused)."""
    if len(cands) == 1:
        if cands[0].how == "point" and cands[0].point != rec.point:
            raise StorageError(f"journal step {rec.step} was at {rec.point}, replay reached {cands[0].point}; "
                               f"the journal {str(journal.path) if journal else ''!r} was not written by this search")
        return 0
    for i, c in enumerate(cands):
        if c.point == rec.point:
            return i
    raise StorageError(f"journal step {rec.step} was at {rec.point}, replay reached {[c.point for c in cands]}")


def _collected(engine: SearchEngine, best: _Best | None) -> tuple[list[StepRecord], _Best | None]:
    """The steps an engine with its own storage holds (all workers'), and the best one."""
    trajectory: list[StepRecord] = []
    found: _Best | None = None
    for rec, cand in engine.collect():
        trajectory.append(rec)
        if rec.accepted:
            mine = best is not None and best.candidate.keys == cand.keys
            found = _Best(rec.step, cand, best.evaluation if mine else None)
    return trajectory, found


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


def reselect_seed(eval_seed: int) -> int:
    """The evaluator's seed for ``reselect``'s second scores: derived from the search's, and another."""
    return int(np.random.SeedSequence([int(eval_seed), 2]).generate_state(1)[0])


def _evaluation_of(problem: SearchProblem, engine: SearchEngine, trajectory: list[StepRecord],
                   entry: _Best) -> Evaluation:
    """The step's evaluation, its features drawn again (same generator) when it was found before a restart."""
    if entry.evaluation is not None:
        return entry.evaluation
    rec = trajectory[[r.step for r in trajectory].index(entry.step)]
    rng = step_rng(*entry.candidate.keys)
    batch = draw_or_empty(problem, lambda: problem.draw_candidate(entry.candidate, rng, engine))
    return Evaluation(dict(rec.point), batch, rec.quality, rec.cost, rec.n_features, rec.timings)


def _reselect(problem: SearchProblem, engine: SearchEngine, trajectory: list[StepRecord],
              entries: list[tuple[float, _Best]]) -> tuple[_Best, dict[str, Any]]:
    """Score the best steps' sets on a fresh split; keep the best mean of the two scores (ties: the
    better first score, then the order of ``entries``, whose first is the loop's own best)."""
    t0 = time.perf_counter()
    second_seed = reselect_seed(problem.eval_seed)
    rows = []
    for quality, entry in entries:
        ev = _evaluation_of(problem, engine, trajectory, entry)
        values = problem.family.compute(problem.prepared, ev.batch)
        second = float(problem.evaluator.evaluate(values, problem.y, random_state=second_seed))
        if not math.isfinite(second):
            raise ValidationError(f"evaluator {problem.evaluator.name!r} returned quality {second!r} when "
                                  f"reselecting step {entry.step}")
        rows.append((quality, second, _Best(entry.step, entry.candidate, ev)))
    k = max(range(len(rows)), key=lambda i: ((rows[i][0] + rows[i][1]) / 2, rows[i][0], -i))
    choice = {"r": len(rows), "seed": second_seed, "steps": [b.step for _, _, b in rows],
              "qualities": [q for q, _, _ in rows], "second_qualities": [q2 for _, q2, _ in rows],
              "chosen_step": rows[k][2].step, "seconds": time.perf_counter() - t0}
    logger.info("%s: reselect among steps %s (second scores %s): step %d", engine.name, choice["steps"],
                ", ".join(f"{q:.4f}" for q in choice["second_qualities"]), choice["chosen_step"])
    return rows[k][2], choice


def _result(problem: SearchProblem, engine: SearchEngine, seed: int, trajectory: list[StepRecord],
            best: _Best | None, best_step: int, restored: list[StepRecord], stopped: str | None,
            error: BaseException | None, choice: Mapping[str, Any] | None = None) -> SearchResult:
    ev = None
    if best is not None:
        ev = _evaluation_of(problem, engine, trajectory, best)
    meta: dict[str, Any] = dict(engine.metadata())
    if choice is not None:
        meta["reselect"] = dict(choice)
    if restored:
        meta["resumed_steps"] = len(restored)
    if stopped:
        meta["stopped"] = stopped
    if isinstance(error, KeyboardInterrupt):
        meta["interrupted"] = True
    empty = sum(r.n_features == 0 for r in trajectory)
    if empty:
        meta["empty_steps"] = empty
    if trajectory and empty == len(trajectory):  # never passed off as a normal result
        meta["empty_result"] = True
        logger.warning("%s: no step of the search drew a feature (%d of %d steps gave an empty set) under "
                       "budget=%g; the result holds no features", engine.name, empty, len(trajectory), problem.budget)
    return problem.make_result(engine, seed, trajectory, ev, best_step, metadata=meta)
