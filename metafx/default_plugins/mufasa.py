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

``n_candidates = c > 1`` evaluates ``c`` distinct points per step (step 1:
``u_0`` and ``c - 1`` neighbours of it; later steps: ``c`` neighbours of
``u_best``) and keeps the best of them (the first one on ties) as the step's
record.  Candidate ``i`` of step ``j`` uses generators seeded by
``(seed, j, ..., i)`` (candidate 0 exactly as with ``c = 1``), so the result
does not depend on ``n_jobs``, the number of processes evaluating them.
"""

from __future__ import annotations

import time
from typing import Any, Mapping, Sequence

from .._engine_tools import AT_POINT, EvalPool, draw_or_empty, journal_path_for, problem_signature, resolve_n_jobs
from .._journal import Journal
from .._search import Evaluation, Progress, SearchProblem, SearchState, step_rng
from ..base import SearchEngine
from ..exceptions import ValidationError
from ..hookspecs import hookimpl
from ..types import SearchResult, StepRecord

_MOVE, _DRAW = 0, 1

__all__ = ["Mufasa", "candidate_rng", "candidate_keys"]


def candidate_keys(seed: int, step: int, kind: int, candidate: int) -> tuple[int, ...]:
    """The generator keys of one candidate of one step (candidate 0: ``(seed, step, kind)``)."""
    return (seed, step, kind) if candidate == 0 else (seed, step, kind, candidate)


def candidate_rng(seed: int, step: int, kind: int, candidate: int):
    """The generator of one candidate of one step (candidate 0: ``step_rng(seed, step, kind)``)."""
    return step_rng(*candidate_keys(seed, step, kind, candidate))


class Mufasa(SearchEngine):
    """Meta-Features Aided Search (thesis Algorithm 6), budgeted.

    Parameters
    ----------
    start : dict, optional
        The initial point ``u_0`` (missing dimensions take their defaults).
    n_candidates : int, default 1
        Points evaluated per step, all near ``u_best``; 1 is the thesis's
        algorithm.  Evaluated by ``n_jobs`` processes with the same result
        whatever ``n_jobs`` is.

    Examples
    --------
    >>> import metafx
    >>> X, y = metafx.load_dataset("digits")
    >>> r = metafx.search(X[:300], y[:300], budget=40, steps=3, engine="mufasa",
    ...                   engine_params={"n_candidates": 2}, seed=0, progress=False)
    >>> len(r.trajectory), r.total_cost <= 40
    (3, True)
    """

    name = "mufasa"
    summary = "stochastic local search in meta-feature space (thesis Algorithm 6)"

    def __init__(self, start: Mapping[str, Any] | None = None, n_candidates: int = 1) -> None:
        self.start = None if start is None else dict(start)
        self.n_candidates = n_candidates
        if isinstance(n_candidates, bool) or not isinstance(n_candidates, int) or n_candidates < 1:
            raise ValidationError(f"n_candidates={n_candidates!r} must be an integer >= 1")

    def _candidates(self, space, j: int, centre: Mapping[str, Any], seed: int) -> list[dict[str, Any]]:
        """The distinct points of step ``j`` (deterministic in ``(seed, j)``)."""
        out: list[dict[str, Any]] = [dict(centre)] if j == 1 else []
        key = 1 if j == 1 else 0  # candidate 0 of step j > 1 moves exactly as with n_candidates=1
        while len(out) < self.n_candidates and key < 20 * self.n_candidates:
            cand = space.neighbour(centre, candidate_rng(seed, j, _MOVE, key))
            key += 1
            if cand not in out:
                out.append(cand)
        return out

    def run(self, problem: SearchProblem, *, steps: int, seed: int | None, callbacks: Sequence = (),
            progress: bool | None = False, storage: str | None = None, study_name: str | None = None,
            n_jobs: int = 1) -> SearchResult:
        if seed is None:
            raise ValidationError("mufasa needs an integer seed (metafx.search draws one when seed=None)")
        if study_name is not None and storage is None:
            raise ValidationError("study_name was given without storage; mufasa records steps in a journal file")
        n_jobs = resolve_n_jobs(n_jobs)
        space = problem.space
        u_best = space.start(self.start)
        state = SearchState(total_steps=steps)
        best: Evaluation | None = None
        best_key: tuple[int, int] | None = None
        journal = None
        done: list[StepRecord] = []
        if storage is not None:
            journal = Journal(journal_path_for(self.name, storage), problem_signature(self, problem, seed))
            done = [r for r in journal.records if r.step <= steps]
        with Progress(steps, progress, desc="mufasa", initial=0) as bar, \
                EvalPool(problem, n_jobs if self.n_candidates > 1 else 1) as pool:
            for j in range(1, steps + 1):
                cands = self._candidates(space, j, u_best, seed)
                if j <= len(done):  # replay a journaled step
                    rec = done[j - 1]
                    if rec.point not in cands:
                        raise ValidationError(f"journal step {j} was at {rec.point}, replay reached {cands}")
                    if rec.accepted:
                        best, best_key = None, (j, cands.index(rec.point))
                else:
                    t0 = time.perf_counter()
                    evs = [ev for ev, _ in pool.map([(cands[i], candidate_keys(seed, j, _DRAW, i), AT_POINT)
                                                     for i in range(len(cands))])]
                    k = max(range(len(evs)), key=lambda i: (evs[i].quality, -i))
                    ev = evs[k]
                    accepted = ev.quality >= state.best_quality
                    timings = dict(ev.timings) if len(evs) == 1 else {
                        key: float(sum(e.timings.get(key, 0.0) for e in evs)) for key in ev.timings}
                    rec = StepRecord(
                        step=j, point=dict(ev.point), quality=ev.quality, cost=ev.cost, n_features=ev.n_features,
                        seconds=time.perf_counter() - t0,
                        best_quality=max(ev.quality, state.best_quality), accepted=accepted, timings=timings,
                    )
                    if journal is not None:
                        journal.append(rec)
                    if accepted:
                        best, best_key = ev, (j, k)
                if rec.accepted:
                    u_best = dict(rec.point)
                state.record(rec, callbacks)
                bar.update(state)
                if state.stop_requested:
                    break
        if best is None and best_key is not None:
            # the best step was replayed from the journal: draw its features again (same generator)
            j, i = best_key
            rec = state.trajectory[j - 1]
            rng = candidate_rng(seed, j, _DRAW, i)
            batch = draw_or_empty(problem, lambda: problem.draw(rec.point, rng))
            best = Evaluation(dict(rec.point), batch, rec.quality, rec.cost, rec.n_features, rec.timings)
        meta: dict[str, Any] = {"n_candidates": self.n_candidates}
        if done:
            meta["resumed_steps"] = len(done)
        return problem.make_result(self, seed, state.trajectory, best, state.best_step, metadata=meta)


@hookimpl
def metafx_register_search_engines(register):
    register(Mufasa)
