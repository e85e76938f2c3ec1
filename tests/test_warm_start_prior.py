"""Transfer with a model: every step of the warm-start results as prior observations of an engine's model
(``SearchEngine.observe_prior``, ``uses_prior``; the ``guided`` engine's quality model)."""

from __future__ import annotations

import dataclasses
import json

import naive_guided
import numpy as np
import pytest

import metafx
from metafx.analysis.report import format_report, result_report
from metafx.core.values import StepRecord
from metafx.default_plugins.guided import _MOVE, GuidedSearch
from metafx.learn.gp import TARGET, _distances, gp_posterior_tasks
from metafx.loop.components import make_component
from metafx.loop.loop import prior_observations, warm_start_points
from metafx.loop.problem import SearchProblem, step_rng
from metafx.plugin import PriorObservation, SearchEngine


def _steps(res):
    return [(r.step, r.point, r.quality, r.n_features, r.cost, r.accepted, r.kind) for r in res.trajectory]


@pytest.mark.parametrize("n_prior,n_target,d", [(0, 1, 1), (3, 0, 2), (5, 2, 3), (11, 4, 4), (1, 7, 2)])
def test_multi_task_posterior_matches_the_textbook_formulas(rng, n_prior, n_target, d):
    X = rng.random((n_prior + n_target, d))
    task = np.concatenate([rng.integers(0, 3, n_prior), np.full(n_target, TARGET)])
    z = rng.normal(size=len(X))
    Xq = np.vstack([rng.random((4, d)), X[-1:]])
    mean, sd = gp_posterior_tasks(_distances(X, X), z, task, _distances(Xq, X), offset=0.7, task_noise=0.4)
    m2, s2 = naive_guided.gp_posterior_tasks(X, z, task, Xq, 0.7, 0.4)
    np.testing.assert_allclose(mean, m2, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(sd, s2, rtol=1e-7, atol=1e-9)
    only_mean, none = gp_posterior_tasks(_distances(X, X), z, task, _distances(Xq, X), offset=0.7, task_noise=0.4,
                                         sd=False)
    assert none is None and np.array_equal(only_mean, mean)


def _engine_after_one_step(small, prior, seed=0):
    """A guided engine told step 1 (the warm point, numInputs=1) with ``prior`` observations; its step-2 point."""
    X, y = small
    prob = SearchProblem(make_component("family", "pixel-and"), X, y, make_component("set-evaluator", "cv-linear-svm"),
                         30.0, eval_seed=0)
    eng = GuidedSearch(n_pool=300, prior_portfolio=None)  # step 2: the model's proposal
    eng.setup(prob, seed)
    warm = prob.space.check_point({"numInputs": 1, "percentPos": 50, "shiftInvLen": 1, "scatter": 2.0})
    eng.warm_start([warm])
    if prior:
        eng.observe_prior(prior)
    cand = eng.ask(1)
    assert cand.point == warm
    eng.tell(StepRecord(1, warm, 0.9, 20.0, 10, 0.1, 0.9, True))
    return eng, prob, eng.ask(2).point


def _prior(peak, rng, n=40):
    """Two related tasks on different quality levels, both best at numInputs == peak (other meta-features
    do not matter)."""
    out = []
    for task, level in enumerate([0.95, 0.8]):
        for _ in range(n):
            k = int(rng.integers(1, 9))
            point = {"numInputs": k, "percentPos": int(rng.integers(0, 101)), "shiftInvLen": int(rng.integers(1, 9)),
                     "scatter": float(rng.uniform(1, 3.5))}
            out.append(PriorObservation(point, level - 0.01 * (k - peak) ** 2 + 0.001 * rng.normal(), task))
    return out


def test_prior_observations_steer_the_model_to_where_related_tasks_were_good(digits, rng):
    small = digits[0][:300], digits[1][:300]
    for peak in (6, 3):
        eng, _, point = _engine_after_one_step(small, _prior(peak, rng))
        assert abs(point["numInputs"] - peak) <= 1, (peak, point)
        assert eng.metadata()["prior_observations"] == 80
    # without a prior, step 2 is the uniform point the engine's n_init steps draw
    eng, prob, point = _engine_after_one_step(small, [])
    assert point == prob.space.uniform(step_rng(0, 2, _MOVE))
    assert "prior_observations" not in eng.metadata()


def test_guided_learns_from_the_trajectories_and_resumes_exactly(pairs, sources, tmp_path):
    X, y = pairs(0, 1)
    kw = dict(budget=30, steps=6, seed=4, progress=False, warm_start=sources,
              engine_params={"n_init": 4, "n_pool": 200})
    res = metafx.search(X, y, **kw)
    family = metafx.plugin.make_component("family", "pixel-and").fit(X)
    space = family.space()
    prior = prior_observations(sources, space)
    assert res.metadata["prior_observations"] == len(prior) > 0
    # the signature also covers the related tasks' chosen sets (one per source, after its steps)
    with_sets = prior_observations(sources, space, family)
    assert [o.features is not None for o in with_sets].count(True) == len(sources)
    assert [o for o in with_sets if o.features is None] == prior
    assert f"{len(prior)} step(s) of their searches in the engine's model" in format_report(result_report(res))
    warm = warm_start_points(sources, space, limit=3)
    assert res.metadata["warm_start"] == warm and len(warm) == 2
    # with the same warm points but no trajectories, step 3 is a uniform point (n_init=4); with them, the model's
    points_only = metafx.search(X, y, **{**kw, "warm_start": warm})
    assert "prior_observations" not in points_only.metadata
    assert points_only.metadata["proposed_points"][:2] == res.metadata["proposed_points"][:2] == warm
    assert points_only.metadata["proposed_points"][2] != res.metadata["proposed_points"][2]
    # an interrupted search resumes to the very same steps
    j = tmp_path / "w.jsonl"
    metafx.search(X, y, storage=str(j), callbacks=[lambda s, r: r.step < 3], **kw)
    assert len(j.read_text().splitlines()) == 1 + 3
    header = json.loads(j.read_text().splitlines()[0])["signature"]
    assert header["warm_start_prior"]["n"] == len(with_sets)
    again = metafx.search(X, y, storage=str(j), **kw)
    assert _steps(again) == _steps(res)
    assert again.metadata["proposed_points"] == res.metadata["proposed_points"]
    # the same best points from other trajectories are another search: its journal refuses them
    src = sources[0]
    worst = min((r for r in src.trajectory if r.step != src.best_step), key=lambda r: r.quality)
    changed = dataclasses.replace(src, trajectory=[dataclasses.replace(r, quality=r.quality - 0.01) if r is worst
                                                   else r for r in src.trajectory])
    assert warm_start_points([changed, sources[1]], space, limit=3) == warm
    with pytest.raises(metafx.StorageError, match="differs in: warm_start_prior"):
        metafx.search(X, y, storage=str(j), **{**kw, "warm_start": [changed, sources[1]]})


@pytest.mark.parametrize("every,expected", [(None, [7]), (2, [4, 6, 8]), (3, [5, 8]), (0, [])])
def test_prior_portfolio_every_sets_the_portfolio_steps_under_a_prior(pairs, sources, every, expected):
    # two warm points (steps 1-2); with a prior the model proposes from step 3 and portfolios count from step 2
    X, y = pairs(0, 1)
    params = {"n_init": 4, "n_pool": 200, "portfolio_every": 5, "prior_portfolio_every": every,
              "prior_portfolio": None}
    res = metafx.search(X, y, budget=30, steps=8, seed=4, progress=False, warm_start=sources, engine_params=params)
    assert res.metadata["portfolio_steps"] == expected
    assert [r.step for r in res.trajectory if r.kind == "portfolio"] == expected
    # without a prior (points only) the parameter changes nothing
    warm = res.metadata["warm_start"]
    plain = metafx.search(X, y, budget=30, steps=8, seed=4, progress=False, warm_start=warm,
                          engine_params={**params, "prior_portfolio_every": None})
    other = metafx.search(X, y, budget=30, steps=8, seed=4, progress=False, warm_start=warm, engine_params=params)
    assert _steps(other) == _steps(plain)


@pytest.mark.parametrize("k", [2, 5])
def test_prior_portfolio_is_the_first_step_after_the_warm_points(pairs, sources, tmp_path, k):
    X, y = pairs(0, 1)
    params = {"n_init": 4, "n_pool": 200, "portfolio_every": 5, "prior_portfolio": k}
    kw = dict(budget=30, steps=6, seed=4, progress=False, warm_start=sources, engine_params=params)
    res = metafx.search(X, y, **kw)
    n_warm = len(res.metadata["warm_start"])
    assert n_warm == 2 and res.metadata["prior_portfolio"] == k
    # steps 1-2 the warm points, step 3 the prior's portfolio, then the model (portfolios every 5 after step 2)
    assert res.metadata["portfolio_steps"] == [3]
    assert [r.kind for r in res.trajectory] == ["point", "point", "portfolio", "point", "point", "point"]
    assert res.trajectory[2].point == {} and res.metadata["proposed_points"][2] is None
    # its sources: the k best distinct prior points by quality standardized within their task
    prob = SearchProblem(make_component("family", "pixel-and", None), X, y,
                         make_component("set-evaluator", "cv-linear-svm", None), 30, eval_seed=4)
    eng = GuidedSearch(**params)
    eng.setup(prob, 4)
    prior = prior_observations(sources, prob.space)
    eng.observe_prior(prior)
    eng.warm_start_ = res.metadata["warm_start"]
    cand = eng.ask(3)
    pts = [src["point"] for src in cand.point["__portfolio__"]]
    z = np.concatenate([(q - q.mean()) / q.std() for q in
                        [np.array([o.quality for o in prior if o.task == t]) for t in (0, 1)]])
    want = []
    for i in np.argsort(-z, kind="stable"):
        if prior[i].point not in want:
            want.append(prior[i].point)
    assert pts == want[:k] and cand.kind == "portfolio"
    assert [src["keys"][1:] for src in cand.point["__portfolio__"]] == [[3, 2, i] for i in range(k)]
    # a resumed search re-draws it exactly
    j = tmp_path / "w.jsonl"
    metafx.search(X, y, storage=str(j), callbacks=[lambda s, r: r.step < 3], **kw)
    assert _steps(metafx.search(X, y, storage=str(j), **kw)) == _steps(res)
    # without a prior (points only) it changes nothing
    plain = metafx.search(X, y, **{**kw, "warm_start": res.metadata["warm_start"],
                                   "engine_params": {**params, "prior_portfolio": None}})
    other = metafx.search(X, y, **{**kw, "warm_start": res.metadata["warm_start"]})
    assert _steps(other) == _steps(plain)


def test_prior_in_portfolios_adds_the_prior_portfolio_sources_to_later_portfolios(pairs, sources, tmp_path):
    X, y = pairs(0, 1)
    # honest_portfolios off: what a later portfolio holds is under test, not whether the honest check lets it be drawn
    params = {"n_init": 4, "n_pool": 200, "portfolio_every": 5, "prior_portfolio": 2, "portfolio_sizes": [2, 3],
              "honest_portfolios": False}
    kw = dict(budget=30, steps=8, seed=4, progress=False, warm_start=sources)
    base = metafx.search(X, y, engine_params=params, **kw)
    res = metafx.search(X, y, engine_params={**params, "prior_in_portfolios": True}, **kw)
    # steps 1-2 the warm points, step 3 the prior portfolio, step 7 a portfolio (5 after the warm points)
    assert res.metadata["portfolio_steps"] == [3, 7] and res.metadata["prior_in_portfolios"] is True
    assert _steps(res)[:6] == _steps(base)[:6]
    # step 7 combines the 2 best point steps, then the prior portfolio's sources (its points and draw keys)
    prob = SearchProblem(make_component("family", "pixel-and", None), X, y,
                         make_component("set-evaluator", "cv-linear-svm", None), 30, eval_seed=4)
    eng = GuidedSearch(**{**params, "prior_in_portfolios": True})
    eng.setup(prob, 4)
    eng.observe_prior(prior_observations(sources, prob.space))
    eng.warm_start_ = res.metadata["warm_start"]
    for rec in res.trajectory[:6]:
        eng.ask(rec.step)
        eng.tell(rec)
    prior_step = eng.ask(3).point["__portfolio__"]
    cand = eng.ask(7).point["__portfolio__"]
    points = sorted((r for r in res.trajectory[:6] if r.kind == "point"), key=lambda r: (-r.quality, r.step))[:2]
    assert [c["keys"][1] for c in cand[:2]] == [r.step for r in points]
    assert cand[2:] == prior_step and [c["keys"][1:3] for c in cand[2:]] == [[3, 2], [3, 2]]
    assert res.metadata["portfolio_sources"]["7"] == sorted(r.step for r in points)
    # a resumed search re-draws it exactly
    j = tmp_path / "w.jsonl"
    kwp = {**kw, "engine_params": {**params, "prior_in_portfolios": True}}
    metafx.search(X, y, storage=str(j), callbacks=[lambda s, r: r.step < 5], **kwp)
    assert _steps(metafx.search(X, y, storage=str(j), **kwp)) == _steps(res)
    # without a prior (points only) it changes nothing
    warm = res.metadata["warm_start"]
    plain = metafx.search(X, y, **{**kw, "warm_start": warm, "engine_params": params})
    other = metafx.search(X, y, **{**kwp, "warm_start": warm})
    assert _steps(other) == _steps(plain)


def test_prior_parameters_stay_out_of_a_search_signature_without_a_prior(pairs, sources, tmp_path):
    X, y = pairs(0, 1)
    kw = dict(budget=30, steps=4, seed=4, progress=False)
    j = tmp_path / "cold.jsonl"
    cold = metafx.search(X, y, storage=str(j), callbacks=[lambda s, r: r.step < 2],
                         engine_params={"n_init": 2, "prior_portfolio": 3, "prior_portfolio_every": 2}, **kw)
    assert "prior_portfolio" not in json.loads(j.read_text().splitlines()[0])["signature"]["engine_params"]
    # no prior: the parameters change nothing, so the journal resumes under the defaults
    again = metafx.search(X, y, storage=str(j), engine_params={"n_init": 2}, **kw)
    assert _steps(again)[:2] == _steps(cold) and len(again.trajectory) == 4
    # with a prior they are part of the search: a journal refuses another value
    w = tmp_path / "warm.jsonl"
    metafx.search(X, y, storage=str(w), callbacks=[lambda s, r: r.step < 2], warm_start=sources, **kw)
    assert json.loads(w.read_text().splitlines()[0])["signature"]["engine_params"]["prior_portfolio"] == 8
    with pytest.raises(metafx.StorageError, match="differs in"):
        metafx.search(X, y, storage=str(w), warm_start=sources, engine_params={"prior_portfolio": 4}, **kw)


def test_prior_portfolio_is_checked():
    with pytest.raises(metafx.ValidationError, match="prior_portfolio"):
        GuidedSearch(prior_portfolio=1).check_params()
    with pytest.raises(metafx.ValidationError, match="prior_in_portfolios"):
        GuidedSearch(prior_in_portfolios="yes").check_params()


def test_prior_observations_are_the_proposed_points_of_point_steps(pairs, sources):
    X, _ = pairs(0, 1)
    space = metafx.plugin.make_component("family", "pixel-and").fit(X).space().with_fixed({"shiftInvLen": 2})
    obs = prior_observations([{"numInputs": 2}, sources[0], sources[1]], space)
    want = []
    for task, src in enumerate(sources):
        proposed = src.metadata["proposed_points"]
        assert any(p is None for p in proposed)  # a portfolio step, left out
        for rec in src.trajectory:
            if rec.kind == "point":
                want.append(({**proposed[rec.step - 1], "shiftInvLen": 2}, rec.quality, task))
    assert [(o.point, o.quality, o.task) for o in obs] == want
    # a result without proposed points (mufasa) gives its records' points
    plain = metafx.search(*pairs(2, 3), budget=30, steps=3, engine="mufasa", seed=0, progress=False)
    assert [o.point for o in prior_observations(plain, space)] == \
        [space.check_point(r.point) for r in plain.trajectory]
    assert prior_observations(None, space) == [] and prior_observations({"numInputs": 2}, space) == []


class PointsOnly(SearchEngine):
    """An engine written before the hook: it takes the warm-start points and nothing else."""

    name = "points-only"
    summary = "the warm points, then uniform points"

    def warm_start(self, points):
        self.points = [dict(p) for p in points]

    def observe_prior(self, observations):
        raise AssertionError("an engine without uses_prior is never handed prior observations")

    def ask(self, step):
        if step <= len(self.points):
            return self.points[step - 1]
        return self.problem_.space.uniform(step_rng(self.seed_, step, 0))


@pytest.mark.parametrize("engine", [PointsOnly(), "mufasa"])
def test_engines_without_the_hook_get_the_points_alone(pairs, sources, engine, tmp_path):
    X, y = pairs(0, 1)
    j = tmp_path / "p.jsonl"
    res = metafx.search(X, y, budget=30, steps=4, seed=1, engine=engine, progress=False, warm_start=sources,
                        storage=str(j))
    space = metafx.plugin.make_component("family", "pixel-and").fit(X).space()
    assert [r.point for r in res.trajectory[:2]] == warm_start_points(sources, space)
    header = json.loads(j.read_text().splitlines()[0])["signature"]
    assert "warm_start_prior" not in header and header["warm_start"] == warm_start_points(sources, space, limit=2)
