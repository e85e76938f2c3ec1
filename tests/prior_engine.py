"""A guided engine told a warm start and prior observations by hand, for the tests of the options that change how
the related tasks' steps enter its quality model (``prior_weight``, ``prior_mean``)."""

from __future__ import annotations

from metafx.core.values import StepRecord
from metafx.default_plugins.guided import GuidedSearch
from metafx.loop.components import make_component
from metafx.loop.problem import SearchProblem
from metafx.plugin import PriorObservation


def told_engine(small, prior, **params):
    """A guided engine (``params`` its options) after six warm points whose qualities on this task peak at
    numInputs == 6, with ``prior`` observed; the engine and its next point."""
    X, y = small
    prob = SearchProblem(make_component("family", "pixel-and"), X, y, make_component("set-evaluator", "cv-linear-svm"),
                         30.0, eval_seed=0)
    eng = GuidedSearch(n_pool=300, prior_portfolio=None, honest_portfolios=False, **params)
    eng.setup(prob, 0)
    warm = [prob.space.check_point({"numInputs": k, "percentPos": 50, "shiftInvLen": 1, "scatter": 2.0})
            for k in (1, 2, 4, 6, 7, 8)]
    eng.warm_start(warm)
    eng.observe_prior(prior)
    for step, point in enumerate(warm, 1):
        assert eng.ask(step).point == point
        q = 0.95 - 0.01 * (point["numInputs"] - 6) ** 2
        eng.tell(StepRecord(step, point, q, 20.0, 10, 0.1, q, True))
    return eng, eng.ask(len(warm) + 1).point


def peaked(peak, task, n, rng):
    """``n`` observations of related task ``task`` at random points, their quality peaking at numInputs == peak."""
    out = []
    for _ in range(n):
        k = int(rng.integers(1, 9))
        point = {"numInputs": k, "percentPos": int(rng.integers(0, 101)), "shiftInvLen": int(rng.integers(1, 9)),
                 "scatter": float(rng.uniform(1, 3.5))}
        out.append(PriorObservation(point, 0.9 - 0.01 * (k - peak) ** 2 + 0.001 * rng.normal(), task))
    return out
