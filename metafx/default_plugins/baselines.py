"""The thesis's budget-matched baselines of guided feature extraction (section
5.3.2), as search engines: ``random`` (MF+Rand) and ``ranked`` (MF+Norm Infogain).

Both return the same :class:`~metafx.SearchResult` as ``mufasa``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from ..analysis.scoring import score_features, scorer_names
from ..core.base import Candidate, SearchEngine
from ..core.exceptions import ValidationError
from ..core.params import Interval, Options
from ..hooks.spec import hookimpl
from ..loop.problem import SearchProblem, draw_or_empty, draw_random_fixed, step_rng

__all__ = ["RandomSearch", "RankedBaseline", "budget_prefix"]

_MOVE = 0
_MODES = ("point", "feature")


class RandomSearch(SearchEngine):
    """MF+Rand: ``steps`` independent feature sets of the budget; keep the best.

    The thesis: "doing 50 steps of choosing features of the allowed budget
    randomly, i.e. over all possible values of the meta-features.  Then we use
    the set with the lowest 2-fold cross-validation error."  Two readings:

    * ``mode="point"`` (default): each step draws one meta-feature point
      uniformly over the space (fixed dimensions held) and fills the budget
      with features drawn at that point -- Mufasa without the local search,
      the natural ablation;
    * ``mode="feature"``: each step fills the budget with features whose
      meta-feature values are drawn independently per feature
      (``family.draw_random``); the record's point then summarizes the set
      (mean meta-feature values, see :func:`summary_point`).

    Step ``j`` uses generators seeded by ``(seed, j)`` only, so steps are
    independent: ``n_jobs`` processes evaluate several at once with the same
    result, and ``storage=`` (a JSON-lines journal, as for ``mufasa``) resumes
    a killed search exactly.

    Examples
    --------
    >>> import metafx
    >>> X, y = metafx.load_dataset("digits")
    >>> r = metafx.search(X[:300], y[:300], budget=40, steps=3, engine="random", seed=0, progress=False)
    >>> len(r.trajectory), r.best_quality == max(t.quality for t in r.trajectory)
    (3, True)
    """

    name = "random"
    summary = "MF+Rand baseline: independent uniform meta-feature points, keep the best"
    independent_steps = True

    def __init__(self, mode: str = "point") -> None:
        self.mode = mode

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {"mode": [Options(_MODES)]}

    @classmethod
    def bound_obstacle(cls, metadata: Mapping[str, Any]) -> str:
        """Theorem 5.1 covers one uniform point per step (``mode="point"``), not per-feature draws."""
        if metadata.get("mode") == "feature":
            return "engine 'random' in mode 'feature' has no meta-feature point per step"
        return ""

    def ask(self, step: int) -> Candidate:
        if step <= len(self.warm_start_):  # points good on related tasks first
            return Candidate(dict(self.warm_start_[step - 1]))
        if self.mode == "feature":
            return Candidate({}, how="family")
        return Candidate(self.problem_.space.uniform(step_rng(self.seed_, step, _MOVE)))

    def metadata(self) -> dict[str, Any]:
        meta: dict[str, Any] = {"mode": self.mode}
        if self.warm_start_:
            meta["warm_start"] = self.warm_start_
        return meta


def budget_prefix(costs: np.ndarray, order: np.ndarray, budget: float) -> np.ndarray:
    """The longest prefix of ``order`` whose total cost is at most ``budget``.

    >>> budget_prefix(np.array([1.0, 5.0, 2.5, 1.0]), np.array([2, 0, 1, 3]), 4.0)
    array([2, 0])
    """
    c = np.cumsum(np.asarray(costs, dtype=np.float64)[order])
    n = int(np.searchsorted(c, float(budget) + 1e-9, side="right"))
    return np.asarray(order[:n], dtype=np.intp)


class RankedBaseline(SearchEngine):
    """MF+Norm Infogain: rank a large random pool by infogain per cost, keep a prefix.

    The thesis: "draw features randomly using a budget which is 50 times
    larger, then sort them by Infogain normalized by the cost and take a
    prefix that uses the allowed budget" (plain Infogain is worse, footnote 5).
    Reading implemented here: the pool is ``family.draw_random(pool_factor *
    budget)`` -- every feature drawn at its own uniformly drawn meta-feature
    point (fixed dimensions held) -- ranked by ``score / cost`` (``score`` from
    :func:`metafx.score_features`, ``infogain`` by default; ``normalize=False``
    ranks by the score alone), ties kept in draw order; the result is the
    longest prefix of the ranking whose cost fits the budget (a strict prefix:
    ranking stops at the first feature that does not fit).  The chosen set is
    scored once by the evaluator: the trajectory has one record, whatever
    ``steps`` is; its point summarizes the set (mean meta-feature values,
    the mean meta-feature values of the chosen features), no point drew it.

    The pool's values are computed in chunks of at most ``max_memory_mb``
    megabytes of packed values; only the scores are kept, and the winners are
    computed again at the end, so memory does not grow with the pool.

    Parameters
    ----------
    pool_factor : float, default 50
        The pool's budget is ``pool_factor * budget``.
    scorer : str, default "infogain"
        A registered per-feature scorer (``metafx plugins``).
    normalize : bool, default True
        Rank by ``score / cost`` (the thesis's MF+Norm Infogain) or ``score``.
    max_memory_mb : float, default 32
        Largest chunk of candidate values held at once.
    unique : bool, default True
        Drop the pool's repeats (a feature whose values on the training data
        equal an earlier one's, found by a 64-bit hash of the values; 8 bytes
        kept per pool feature) before ranking: a repeat ranks just below its
        original and would spend budget on nothing new.

    Examples
    --------
    >>> import metafx
    >>> X, y = metafx.load_dataset("digits")
    >>> r = metafx.search(X[:300], y[:300], budget=40, steps=1, engine="ranked", seed=0, progress=False)
    >>> len(r.trajectory), r.total_cost <= 40
    (1, True)
    """

    name = "ranked"
    summary = "MF+Norm Infogain baseline: best infogain/cost features of a 50x-budget random pool"
    max_steps = 1

    def __init__(self, pool_factor: float = 50.0, scorer: str = "infogain", normalize: bool = True,
                 max_memory_mb: float = 32.0, unique: bool = True) -> None:
        self.pool_factor = pool_factor
        self.scorer = scorer
        self.normalize = normalize
        self.max_memory_mb = max_memory_mb
        self.unique = unique

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "pool_factor": [Interval("real", 1, None)],
        "scorer": [str],
        "normalize": ["boolean"],
        "max_memory_mb": [Interval("real", 0, None, closed="neither")],
        "unique": ["boolean"],
    }

    def check_params(self) -> None:
        super().check_params()
        if self.scorer not in scorer_names():
            raise ValidationError(f"scorer={self.scorer!r} is not a registered per-feature scorer; "
                                  f"registered: {', '.join(scorer_names())}")

    def chunk_size(self, n_samples: int) -> int:
        """Features per chunk: packed words plus one byte per sample (dense fallback) per feature."""
        per_feature = 8 * ((n_samples + 63) // 64) + n_samples
        return max(1, int(self.max_memory_mb * 2**20 // per_feature))

    def rank_pool(self, problem: SearchProblem, pool: Any) -> np.ndarray:
        """``score`` (or ``score / cost``) of every feature of ``pool``, chunk by chunk."""
        n = len(pool)
        scores = np.empty(n, dtype=np.float64)
        hashes = np.empty(n, dtype=np.uint64)
        step = self.chunk_size(problem.n_samples)
        for a in range(0, n, step):
            idx = np.arange(a, min(n, a + step))
            values = problem.family.compute(problem.prepared, pool.take(idx))
            scores[idx] = score_features(values, problem.y, self.scorer)
            if self.unique:
                hashes[idx] = values.row_hashes()
            del values
        if self.normalize:
            scores = scores / np.asarray(pool.costs, dtype=np.float64)
        if self.unique and n:
            _, first = np.unique(hashes, return_index=True)
            repeat = np.ones(n, dtype=bool)
            repeat[first] = False
            scores[repeat] = -np.inf
        return scores

    def ask(self, step: int) -> Candidate:
        return Candidate({}, how="engine")

    def draw(self, problem: SearchProblem, candidate: Candidate, rng: np.random.Generator) -> Any:
        """The longest prefix of the pool's ranking that fits the budget."""
        pool = draw_or_empty(problem, lambda: draw_random_fixed(
            _PoolProblem(problem, self.pool_factor * problem.budget), rng))
        scores = self.rank_pool(problem, pool)
        order = np.argsort(-scores, kind="stable")
        order = order[np.isfinite(scores[order])]  # repeats are out of the ranking
        self.pool_size_ = len(pool)
        return pool.take(budget_prefix(pool.costs, order, problem.budget))

    def metadata(self) -> dict[str, Any]:
        return {"pool_size": getattr(self, "pool_size_", None), "pool_budget": self.pool_factor * self.problem_.budget,
                "chunk_features": self.chunk_size(self.problem_.n_samples)}


class _PoolProblem:
    """``problem`` with another budget (for drawing the pool)."""

    def __init__(self, problem: SearchProblem, budget: float) -> None:
        self.family = problem.family
        self.space = problem.space
        self.budget = float(budget)


@hookimpl
def metafx_register_search_engines(register):
    register(RandomSearch)
    register(RankedBaseline)
