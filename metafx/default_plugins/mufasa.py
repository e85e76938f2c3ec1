"""Search engine ``mufasa``: Algorithm 6 of the thesis (budgeted).

::

    q_best = -inf; u = u_0
    for j = 1..J:
        F_j = features drawn at u until the budget is used
        q_j = quality(F_j)
        if q_j >= q_best: F_best, u_best, q_best = F_j, u, q_j     (ties accepted)
        u = random neighbour of u_best

Defaults: ``u_0`` is each dimension's default of the family's space (for
``pixel-and``: numInputs 3, percentPos 50, shiftInvLen 2, scatter 2.0), or
``start``; a neighbour moves every free dimension by its own noise (integers by
a uniform step in ``[-step, step]``, floats by a Gaussian), redrawn if it lands
on ``u_best`` itself.  Step ``j`` draws every random number from a generator
seeded by ``(seed, j)``, so a resumed search (``storage=``) replays the journal
and continues exactly as an uninterrupted one.
"""

from __future__ import annotations

import hashlib
import math
import time
from typing import Any, Mapping, Sequence

import numpy as np

from .._journal import Journal
from .._search import Evaluation, Progress, SearchProblem, SearchState, step_rng
from ..base import SearchEngine
from ..exceptions import ValidationError
from ..hookspecs import hookimpl
from ..types import SearchResult, StepRecord

_MOVE, _DRAW = 0, 1


def data_fingerprint(problem: SearchProblem) -> str:
    h = hashlib.sha256()
    for v in problem.prepared.values() if isinstance(problem.prepared, Mapping) else [problem.prepared]:
        if isinstance(v, np.ndarray):
            h.update(v.tobytes())
    h.update(np.ascontiguousarray(problem.y).tobytes())
    return h.hexdigest()[:16]


def problem_signature(engine: SearchEngine, problem: SearchProblem, seed: int, steps: int | None = None) -> dict:
    from .._search import _jsonable

    return _jsonable({
        "engine": engine.name,
        "engine_params": engine.get_params(),
        "family": problem.family.name,
        "family_params": problem.family.get_params(),
        "evaluator": problem.evaluator.name,
        "evaluator_params": problem.evaluator.get_params(),
        "budget": problem.budget,
        "fixed": problem.space.fixed,
        "seed": seed,
        "data": data_fingerprint(problem),
    })


class Mufasa(SearchEngine):
    """Meta-Features Aided Search (thesis Algorithm 6), budgeted.

    Parameters
    ----------
    start : dict, optional
        The initial point ``u_0`` (missing dimensions take their defaults).
    """

    name = "mufasa"
    summary = "stochastic local search in meta-feature space (thesis Algorithm 6)"

    def __init__(self, start: Mapping[str, Any] | None = None) -> None:
        self.start = None if start is None else dict(start)

    def run(self, problem: SearchProblem, *, steps: int, seed: int | None, callbacks: Sequence = (),
            progress: bool | None = False, storage: str | None = None, study_name: str | None = None,
            n_jobs: int = 1) -> SearchResult:
        if seed is None:
            raise ValidationError("mufasa needs an integer seed (metafx.search draws one when seed=None)")
        space = problem.space
        u = space.start(self.start)
        state = SearchState(total_steps=steps)
        best: Evaluation | None = None
        u_best = dict(u)
        journal = None
        done: list[StepRecord] = []
        if storage is not None:
            journal = Journal(storage, problem_signature(self, problem, seed))
            done = [r for r in journal.records if r.step <= steps]
        with Progress(steps, progress, desc="mufasa", initial=0) as bar:
            for j in range(1, steps + 1):
                if j > 1:
                    u = space.neighbour(u_best, step_rng(seed, j, _MOVE))
                if j <= len(done):  # replay a journaled step
                    rec = done[j - 1]
                    if rec.point != u:
                        raise ValidationError(f"journal step {j} was at {rec.point}, replay reached {u}")
                else:
                    t0 = time.perf_counter()
                    ev = problem.evaluate(u, step_rng(seed, j, _DRAW))
                    accepted = ev.quality >= state.best_quality
                    rec = StepRecord(
                        step=j, point=dict(u), quality=ev.quality, cost=ev.cost, n_features=ev.n_features,
                        seconds=time.perf_counter() - t0,
                        best_quality=max(ev.quality, state.best_quality), accepted=accepted, timings=ev.timings,
                    )
                    if journal is not None:
                        journal.append(rec)
                    if accepted:
                        best = ev
                if rec.accepted:
                    u_best = dict(rec.point)
                    if j <= len(done):
                        best = None  # re-drawn below if it stays the best
                state.record(rec, callbacks)
                bar.update(state)
                if state.stop_requested:
                    break
        if best is None and state.best_step:
            # the best step was replayed from the journal: draw its features again (same generator)
            rec = state.trajectory[state.best_step - 1]
            batch = problem.family.draw(rec.point, problem.budget, step_rng(seed, rec.step, _DRAW))
            best = Evaluation(dict(rec.point), batch, rec.quality, rec.cost, rec.n_features, rec.timings)
        return problem.make_result(self, seed, state.trajectory, best, state.best_step,
                                   metadata={"resumed_steps": len(done)} if done else None)


@hookimpl
def metafx_register_search_engines(register):
    register(Mufasa)
