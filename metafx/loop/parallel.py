"""Evaluating candidates, here or in worker processes (joblib).

Processes, not threads: liblinear (behind ``cv-linear-svm``) keeps its random
generator in a global variable, so two fits on two threads disturb each other
and the same set could score differently; separate processes keep every
evaluation a pure function of its candidate.  joblib's default backend (loky)
starts its workers without re-running the user's script, so ``n_jobs > 1``
works in a plain script without ``if __name__ == "__main__":``, sends
classes defined in that script with cloudpickle, and its workers end with
their parent.  ``joblib.parallel_config(backend=...)`` chooses another backend
(for example a Dask cluster).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import joblib

from ..core.base import Candidate
from .lifeline import pool_config
from .problem import Evaluation, SearchProblem, step_rng, summary_point

__all__ = ["EvaluationPool", "evaluate_candidate"]


def evaluate_candidate(problem: SearchProblem, candidate: Candidate, engine: Any = None) -> tuple[Evaluation, float]:
    """Draw (from ``step_rng(*candidate.keys)``), compute and score one candidate; returns it and its seconds."""
    t0 = time.perf_counter()
    assert candidate.keys is not None  # loop.candidates_of gives every candidate its draw keys
    rng = step_rng(*candidate.keys)
    ev = problem.evaluate(candidate.point, None, draw=lambda: problem.draw_candidate(candidate, rng, engine))
    if candidate.how != "point":  # features from many points: record their mean meta-features
        ev.point = summary_point(problem, ev.batch)
    return ev, time.perf_counter() - t0


class EvaluationPool:
    """A pool that evaluates lists of candidates in this process (``n_jobs = 1``) or in joblib worker processes
    (the active joblib backend: loky unless ``joblib.parallel_config`` says otherwise)."""

    def __init__(self, problem: SearchProblem, engine: Any, n_jobs: int) -> None:
        self.problem = problem
        self.engine = engine
        self.n_jobs = n_jobs
        self._parallel: joblib.Parallel | None = None

    def map(self, candidates: Sequence[Candidate]) -> list[tuple[Evaluation, float]]:
        if self.n_jobs == 1 or len(candidates) == 1:
            return [evaluate_candidate(self.problem, c, self.engine if c.how == "engine" else None)
                    for c in candidates]
        if self._parallel is None:
            with pool_config():  # workers end with this process even when it is killed (metafx.loop.lifeline)
                self._parallel = joblib.Parallel(n_jobs=self.n_jobs)
            self._parallel.__enter__()
        task = joblib.delayed(evaluate_candidate)
        return list(self._parallel(task(self.problem, c, self.engine if c.how == "engine" else None)
                                   for c in candidates))

    def close(self) -> None:
        if self._parallel is not None:
            self._parallel.__exit__(None, None, None)
            self._parallel = None

    def __enter__(self) -> EvaluationPool:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

