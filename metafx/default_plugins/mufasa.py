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
record.  Candidate ``i`` of step ``j`` moves with generators seeded by
``(seed, j, 0, i)`` and draws with ``(seed, j, 1, i)`` (candidate 0 without
the ``i``, exactly as with ``c = 1``), so the result does not depend on
``n_jobs``, the number of processes evaluating them.

The engine only proposes points; the search loop (``metafx.plugin``) draws,
scores, records, journals and resumes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from ..core.base import SearchEngine
from ..core.params import Interval
from ..core.values import StepRecord
from ..hooks.spec import hookimpl
from ..loop.problem import step_rng

__all__ = ["Mufasa"]

_MOVE = 0


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
        self.start = start
        self.n_candidates = n_candidates

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "start": ["dict", None],
        "n_candidates": [Interval("int", 1, None)],
    }

    @classmethod
    def bound_obstacle(cls, metadata: Mapping[str, Any]) -> str:
        """Theorem 5.1 covers mufasa: the data only accept or reject each step's best candidate."""
        return ""

    @classmethod
    def bound_candidates(cls, metadata: Mapping[str, Any]) -> int:
        return int(metadata.get("n_candidates", 1))

    def setup(self, problem, seed: int) -> None:
        super().setup(problem, seed)
        self.u_best_ = problem.space.start(self.start)

    def ask(self, step: int) -> list[dict[str, Any]]:
        """``u_0`` and neighbours at step 1; neighbours of ``u_best`` later (distinct points).

        With a warm start of ``K`` points, steps ``1..K`` evaluate them (each
        with ``n_candidates - 1`` neighbours) and the search goes on from the
        best of them: ``u_0`` is chosen by the related tasks.
        """
        space, seed = self.problem_.space, self.seed_
        centre = self.u_best_
        if step <= len(self.warm_start_):
            centre = self.warm_start_[step - 1]
        first = step == 1 or step <= len(self.warm_start_)
        out: list[dict[str, Any]] = [dict(centre)] if first else []
        key = 1 if first else 0  # candidate 0 of a later step moves exactly as with n_candidates=1
        while len(out) < self.n_candidates and key < 20 * self.n_candidates:
            rng = step_rng(seed, step, _MOVE) if key == 0 else step_rng(seed, step, _MOVE, key)
            cand = space.neighbour(centre, rng)
            key += 1
            if cand not in out:
                out.append(cand)
        return out

    def tell(self, record: StepRecord) -> None:
        if record.accepted:
            self.u_best_ = dict(record.point)

    def metadata(self) -> dict[str, Any]:
        meta: dict[str, Any] = {"n_candidates": self.n_candidates}
        if self.warm_start_:
            meta["warm_start"] = self.warm_start_
        return meta


@hookimpl
def metafx_register_search_engines(register):
    register(Mufasa)
