"""The ``guided`` engine's honest check of a portfolio step (``GuidedSearch(honest_portfolios=True)``).

Every set of a search is built with the labels of all its training rows (a point's pool ranked by infogain and
filtered on them) and scored by cross-validation on those same rows; a portfolio, a union of sets that were
already selected, is selected once more, so that score flatters it most (``experiments/transfer/DIAGNOSIS_FLAT.md``:
about 0.3 points of CV quality above test accuracy, against 0.04-0.10 for a point's set).  The check estimates a
set's quality on rows its construction never saw: the training rows are split once per search into two
class-stratified halves; on each half the whole construction is rebuilt from that half's rows alone (each source's
pool drawn with the generator of the search, ranked and filtered on the half; a portfolio's union filtered on the
half) and scored by the search's evaluator, at its seed, on the other half.  The estimate is the mean of the two.
A portfolio step is drawn only if its estimate is above the incumbent's (the step of best quality so far, rebuilt
the same way: a paired comparison on the same halves); otherwise the step draws the incumbent's set again.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

import numpy as np

from ..core.base import Candidate
from ..loop.problem import SearchProblem, draw_or_empty, step_rng

__all__ = ["HonestCheck", "halves"]

#: the keys of a portfolio candidate's point: its sources, and whether the related tasks' sets join it
PORTFOLIO = "__portfolio__"
PRIOR_SETS = "__prior_sets__"


def halves(y: np.ndarray, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Two disjoint sets of row indices (sorted) that split every class in halves (the odd row to the first; a continuous target
    in plain halves),
    drawn by a generator of the search's seed alone."""
    rng = np.random.default_rng([int(seed), 0x686F6E65])  # "hone": a stream of its own
    labels = np.unique(y)
    if 2 * len(labels) > len(y):  # a continuous target: plain halves
        rows = rng.permutation(len(y))
        return np.sort(rows[:(len(y) + 1) // 2]), np.sort(rows[(len(y) + 1) // 2:])
    first, second = [], []
    for c in labels:
        rows = rng.permutation(np.flatnonzero(y == c))
        cut = (len(rows) + 1) // 2
        first.append(rows[:cut])
        second.append(rows[cut:])
    return np.sort(np.concatenate(first)), np.sort(np.concatenate(second))


def _stratified_rows(y: np.ndarray, n: int, seed: int) -> np.ndarray:
    """``n`` row indices (sorted), each class in its share of the rows (at least one row of each), drawn by a
    generator of the search's seed alone."""
    rng = np.random.default_rng([int(seed), 0x706F6F6C])  # "pool": a stream of its own
    _classes, codes = np.unique(y, return_inverse=True)
    take = np.maximum(1, np.round(n * np.bincount(codes) / len(y)).astype(np.intp))
    rows = [rng.choice(np.flatnonzero(codes == c), size=min(int(k), int((codes == c).sum())), replace=False)
            for c, k in enumerate(take)]
    return np.sort(np.concatenate(rows))


def _take_rows(X: Any, rows: np.ndarray) -> Any:
    """Rows ``rows`` of the user's data ``X`` (an array, or a table with ``iloc``)."""
    return X.iloc[rows] if hasattr(X, "iloc") else np.asarray(X)[rows]


class HonestCheck:
    """The halves of one search and the sets rebuilt on them (cached: a source is rebuilt once per half)."""

    def __init__(self, problem: SearchProblem, seed: int) -> None:
        self.rows = [(problem.family.prepare(_take_rows(problem.X, r)), problem.y[r]) for r in halves(problem.y, seed)]
        self.sets: dict[Any, Any] = {}
        self.estimates: dict[int, float] = {}  # by step: the estimate of the set the step drew

    def choose(self, engine: Any, step: int, candidate: Candidate, incumbent: int,
               incumbent_candidate: Candidate) -> tuple[Candidate, dict[str, Any]]:
        """``candidate`` (a portfolio of step ``step``) if its estimate is above that of step ``incumbent``'s
        set, else a candidate that draws that set again; and what was compared."""
        problem = engine.problem_
        if incumbent not in self.estimates:
            self.estimates[incumbent] = self.estimate(engine, problem, incumbent_candidate)
        mine = self.estimate(engine, problem, candidate)
        theirs = self.estimates[incumbent]
        record = {"incumbent": incumbent, "estimate": mine, "incumbent_estimate": theirs}
        if mine > theirs:
            self.estimates[step] = mine
            return candidate, {**record, "drawn": "portfolio"}
        self.estimates[step] = theirs
        again = Candidate(dict(incumbent_candidate.point), how="engine", keys=incumbent_candidate.keys,
                          kind="portfolio")
        return again, {**record, "drawn": "incumbent"}

    def estimate(self, engine: Any, problem: SearchProblem, candidate: Candidate) -> float:
        """The mean over the two halves of the evaluator's score, on one half, of the set rebuilt on the other."""
        scores = []
        for h in (0, 1):
            batch = self.build(engine, problem, candidate, h)
            prepared, y = self.rows[1 - h]
            values = problem.family.compute(prepared, batch)
            scores.append(float(problem.evaluator.evaluate(values, y, random_state=problem.eval_seed)))
        return float(np.mean(scores))

    def build(self, engine: Any, problem: SearchProblem, candidate: Candidate, h: int) -> Any:
        """The set of ``candidate`` (a point's draw, or a portfolio) built from half ``h``'s rows alone."""
        point = candidate.point
        assert candidate.keys is not None  # the engine's candidates carry their draw keys
        if PORTFOLIO not in point:
            return draw_or_empty(problem, functools.partial(self.source, engine, problem, point, candidate.keys, h))
        sets = [draw_or_empty(problem, functools.partial(self.source, engine, problem, s["point"], s["keys"], h))
                for s in point[PORTFOLIO]]
        if point.get(PRIOR_SETS):
            sets += [engine.ranked_prior_set(problem, specs, rows=self.rows[h]) for specs in engine.prior_sets_]
        return engine.union(problem, sets, self.rows[h][0])

    def source(self, engine: Any, problem: SearchProblem, point: Mapping[str, Any], keys: Any, h: int) -> Any:
        """A point's set drawn with generator keys ``keys``, its pool ranked and filtered on half ``h``."""
        key = (h, tuple(int(k) for k in keys), repr(sorted(point.items())))
        if key not in self.sets:
            saved = engine.rows_
            engine.rows_ = self.rows[h]  # the engine ranks and filters a pool on these rows
            try:
                self.sets[key] = engine.point_set(problem, point, step_rng(*keys))
            finally:
                engine.rows_ = saved
        return self.sets[key]
