"""Engine ``guided``: the engine contract, its model and portfolio against slow references,
determinism, resume, n_jobs, bad parameters and the refused bound."""

from __future__ import annotations

import naive_guided
import numpy as np
import pytest

import metafx
from metafx.core.base import Candidate
from metafx.default_plugins.guided import GuidedSearch, expected_improvement, gp_posterior
from metafx.loop.components import make_component
from metafx.loop.problem import SearchProblem, step_rng
from metafx.plugin import run_search
from metafx.testing import EngineConformance

PARAMS = {"n_init": 2, "portfolio_every": 2, "n_pool": 200}


class TestGuided(EngineConformance):
    engine = "guided"
    engine_params = PARAMS  # step 3 from the model, step 4 a portfolio


class TestGuidedOversampled(EngineConformance):
    engine = "guided"
    engine_params = {"n_init": 2, "portfolio_every": 1, "portfolio_sizes": [3, 2], "n_pool": 200}
    steps = 5

    def make_problem(self):
        X, y = metafx.load_dataset("digits")
        return SearchProblem(make_component("family", "pixel-and"), X[:300], y[:300],
                             make_component("evaluator", "cv-linear-svm"), 30.0, eval_seed=0, oversample=4)


@pytest.fixture(scope="module")
def small(digits):
    X, y = digits
    return X[:300], y[:300]


def _problem(small, budget=30.0, oversample=4.0):
    X, y = small
    return SearchProblem(make_component("family", "pixel-and"), X, y, make_component("evaluator", "cv-linear-svm"),
                         budget, eval_seed=0, oversample=oversample)


def _steps(res):
    return [(r.step, r.point, r.quality, r.n_features, r.cost, r.accepted) for r in res.trajectory]


@pytest.mark.parametrize("n,d", [(1, 1), (2, 3), (7, 4), (13, 2)])
def test_gp_posterior_matches_the_textbook_formulas(rng, n, d):
    X = rng.random((n, d))
    y = rng.normal(size=n) if n > 1 else np.array([0.3])
    Xq = np.vstack([rng.random((5, d)), X[:1]])
    mean, sd = gp_posterior(X, y, Xq)
    m2, s2 = naive_guided.gp_posterior(X, y, Xq)
    np.testing.assert_allclose(mean, m2, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(sd, s2, rtol=1e-6, atol=1e-8)


def test_expected_improvement_matches_numerical_integration(rng):
    mean = rng.normal(size=7)
    sd = rng.uniform(0.05, 2.0, size=7)
    got = expected_improvement(mean, sd, 0.4, 0.01)
    np.testing.assert_allclose(got, naive_guided.expected_improvement(mean, sd, 0.4, 0.01), rtol=1e-5, atol=1e-9)


@pytest.mark.parametrize("budget,oversample", [(30.0, 4.0), (47.5, 1.0)])
def test_portfolio_draw_matches_the_reference(small, budget, oversample):
    prob = _problem(small, budget, oversample)
    eng = GuidedSearch.create(PARAMS)
    eng.setup(prob, 3)
    space = prob.space
    points = [space.uniform(np.random.default_rng(i)) for i in range(3)]
    points[2] = dict(points[0])  # two sources at the same point: their repeats must go
    sources = [{"point": p, "keys": [3, i + 1, 1]} for i, p in enumerate(points)]
    batch = eng.draw(prob, Candidate({"portfolio": sources}, how="engine"), None)
    fam = prob.family
    parts = [prob.draw(s["point"], step_rng(*s["keys"])) for s in sources]
    union = fam.concat(parts)
    _, first, _ = fam.compute(prob.prepared, union).duplicate_groups()
    keep = np.zeros(len(union), bool)
    keep[first] = True
    offs = np.cumsum([0] + [len(p) for p in parts])
    ref = naive_guided.portfolio([np.asarray(p.costs, float) for p in parts],
                                 [keep[offs[s]:offs[s + 1]] for s in range(len(parts))], budget)
    want = union.take(np.array([offs[s] + i for s, i in ref], dtype=np.intp))
    assert fam.to_json(batch) == fam.to_json(want)
    assert float(np.sum(batch.costs)) <= budget + 1e-9
    vals = fam.compute(prob.prepared, batch)
    assert len(vals.duplicate_groups()[1]) == len(batch)  # no repeats


def test_schedule_uniform_then_model_then_portfolio(small):
    prob = _problem(small)
    res = run_search(prob, GuidedSearch.create({"n_init": 3, "portfolio_every": 2, "n_pool": 200}), steps=7, seed=4,
                     progress=False)
    rnd = run_search(prob, make_component("engine", "random", None), steps=3, seed=4, progress=False)
    assert _steps(res)[:3] == _steps(rnd)  # the first n_init steps are engine random's
    assert res.metadata["portfolio_steps"] == [5, 7]


def test_resume_after_interruption_equals_uninterrupted(small, tmp_path):
    prob = _problem(small)
    kw = dict(steps=9, seed=11, progress=False)
    full = run_search(prob, GuidedSearch.create(PARAMS), **kw)
    j = tmp_path / "g.jsonl"
    run_search(prob, GuidedSearch.create(PARAMS), storage=str(j), callbacks=[lambda s, r: r.step < 5], **kw)
    again = run_search(prob, GuidedSearch.create(PARAMS), storage=str(j), **kw)
    assert again.metadata.get("resumed_steps") == 5
    assert _steps(again) == _steps(full) and again.features == full.features


def test_same_result_whatever_n_jobs_and_seed_matters(small):
    prob = _problem(small)
    one = run_search(prob, GuidedSearch.create(PARAMS), steps=6, seed=2, progress=False)
    two = run_search(prob, GuidedSearch.create(PARAMS), steps=6, seed=2, progress=False, n_jobs=2)
    assert _steps(one) == _steps(two) and one.features == two.features
    other = run_search(prob, GuidedSearch.create(PARAMS), steps=6, seed=3, progress=False)
    assert _steps(other) != _steps(one)


def test_bound_refuses(small):
    X, y = small
    res = metafx.search(X, y, budget=20, steps=3, engine="guided", engine_params={"n_init": 2}, seed=0,
                        progress=False)
    with pytest.raises(metafx.MetafxError, match="guided"):
        res.bound()


@pytest.mark.parametrize("params", [{"n_init": 0}, {"portfolio_every": -1}, {"portfolio_sizes": [1]},
                                    {"portfolio_sizes": []}, {"portfolio_sizes": "23"}, {"n_pool": 0},
                                    {"xi": -0.1}])
def test_bad_parameters_are_refused(params):
    key = next(iter(params))
    with pytest.raises(metafx.ValidationError, match=key):
        GuidedSearch.create(params)
