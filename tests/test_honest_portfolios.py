"""``GuidedSearch(honest_portfolios=True)``: after a warm start, a portfolio step displaces the best set only if its
construction, rebuilt on one half of the training rows and scored on the other, beats the best set's (issue 46)."""

from __future__ import annotations

import numpy as np
import pytest

import metafx
from metafx.default_plugins.guided import GuidedSearch
from metafx.default_plugins.guided_honest import halves
from metafx.loop.components import make_component
from metafx.loop.loop import prior_observations
from metafx.loop.problem import SearchProblem, step_rng

PARAMS = {"n_init": 4, "n_pool": 200, "portfolio_every": 2, "prior_portfolio": 2, "portfolio_sizes": [2, 3]}
KW = dict(budget=30, steps=12, seed=4, progress=False)


@pytest.fixture(scope="module")
def runs(pairs, sources):
    X, y = pairs(0, 1)
    base = metafx.search(X, y, warm_start=sources, engine_params={**PARAMS, "honest_portfolios": False}, **KW)
    honest = metafx.search(X, y, warm_start=sources, engine_params=PARAMS, **KW)  # the default
    return base, honest


def _steps(res):
    return [(r.step, r.point, r.quality, r.n_features, r.cost, r.kind) for r in res.trajectory]


def test_halves_split_every_class_in_two():
    y = np.array([0] * 7 + [1] * 4 + [2])
    a, b = halves(y, 3)
    assert np.array_equal(np.sort(np.concatenate([a, b])), np.arange(len(y))) and not set(a) & set(b)
    assert [int((y[a] == c).sum()) for c in (0, 1, 2)] == [4, 2, 1]
    assert [int((y[b] == c).sum()) for c in (0, 1, 2)] == [3, 2, 0]
    assert all(np.array_equal(u, v) for u, v in zip(halves(y, 3), (a, b), strict=True))
    assert not np.array_equal(halves(y, 4)[0], a)
    a, b = halves(np.linspace(0, 1, 9), 0)  # a continuous target: plain halves
    assert (len(a), len(b)) == (5, 4) and not set(a) & set(b)


def _reference_estimate(X, y, candidate, seed):
    """The check's estimate by another road: an engine set up on each half alone draws the candidate's set there,
    the evaluator scores it on the other half; the mean of the two."""
    evaluator = make_component("set-evaluator", "cv-linear-svm", None)
    parts = halves(y, seed)
    scores = []
    for h in (0, 1):
        mine, other = parts[h], parts[1 - h]
        prob = SearchProblem(make_component("family", "pixel-and", None), X[mine], y[mine], evaluator, 30,
                             eval_seed=seed)
        eng = GuidedSearch(**PARAMS, honest_portfolios=False)
        eng.setup(prob, seed)
        batch = eng.draw(prob, candidate, step_rng(*candidate.keys))
        values = prob.family.compute(prob.family.prepare(X[other]), batch)
        scores.append(float(evaluator.evaluate(values, y[other], random_state=seed)))
    return float(np.mean(scores))


def test_a_portfolio_displaces_the_best_set_only_on_the_honest_estimate(pairs, sources, runs):
    X, y = pairs(0, 1)
    base, honest = runs
    meta = honest.metadata
    assert meta["honest_portfolios"] is True and "portfolio_checks" not in base.metadata  # True: the default
    # step 3 is the prior portfolio (not checked); every later portfolio step is
    assert meta["portfolio_steps"] == base.metadata["portfolio_steps"] == [3, 4, 6, 8, 10, 12]
    checks = meta["portfolio_checks"]
    assert sorted(int(s) for s in checks) == [4, 6, 8, 10, 12]
    kept = [int(s) for s, c in checks.items() if c["drawn"] == "incumbent"]
    assert kept  # this search keeps the best set at least once
    # the engine told the same records proposes the same portfolios: the default search's, at every step
    prob = SearchProblem(make_component("family", "pixel-and", None), X, y,
                         make_component("set-evaluator", "cv-linear-svm", None), 30, eval_seed=4)
    eng = GuidedSearch(**PARAMS, honest_portfolios=False)
    eng.setup(prob, 4)
    eng.observe_prior(prior_observations(sources, prob.space))
    eng.warm_start_ = meta["warm_start"]
    asked = {}
    for rec in honest.trajectory:
        asked[rec.step] = eng.ask(rec.step)
        eng.tell(rec)
    by_step = {r.step: r for r in honest.trajectory}
    for s, check in checks.items():
        step = int(s)
        inc = check["incumbent"]
        best = max((r for r in honest.trajectory if r.step < step), key=lambda r: (r.quality, r.step))
        assert inc == best.step
        assert check["estimate"] == pytest.approx(_reference_estimate(X, y, asked[step], 4), abs=1e-12)
        if asked[inc].kind == "point" or inc == 3 or checks.get(str(inc), {}).get("drawn") == "portfolio":
            # the incumbent drew what it proposed
            assert check["incumbent_estimate"] == pytest.approx(_reference_estimate(X, y, asked[inc], 4), abs=1e-12)
        assert (check["estimate"] > check["incumbent_estimate"]) == (check["drawn"] == "portfolio")
        if check["drawn"] == "incumbent":  # the step draws the best set again: its quality and size
            assert (by_step[step].quality, by_step[step].n_features) == (best.quality, best.n_features)
    # point steps do not depend on it (only point steps train the model); nor a portfolio drawn as proposed
    for a, b in zip(_steps(base), _steps(honest), strict=True):
        if a[0] not in kept:
            assert a == b
    assert any(_steps(base)[s - 1] != _steps(honest)[s - 1] for s in kept)


def test_honest_portfolios_resume_exactly_and_change_nothing_without_a_prior(pairs, sources, runs, tmp_path):
    X, y = pairs(0, 1)
    _, honest = runs
    j = tmp_path / "w.jsonl"
    kw = {**KW, "warm_start": sources, "engine_params": PARAMS}
    metafx.search(X, y, storage=str(j), callbacks=[lambda s, r: r.step < 7], **kw)
    again = metafx.search(X, y, storage=str(j), **kw)
    assert _steps(again) == _steps(honest) and again.metadata["portfolio_checks"] == honest.metadata["portfolio_checks"]
    assert again.best_step == honest.best_step
    cold = {**KW, "steps": 8}
    plain = metafx.search(X, y, engine_params={**PARAMS, "honest_portfolios": False}, **cold)
    other = metafx.search(X, y, engine_params=PARAMS, **cold)
    assert _steps(other) == _steps(plain) and "portfolio_checks" not in other.metadata


def test_honest_portfolios_is_checked_and_needs_the_engines_own_pools(pairs, sources):
    with pytest.raises(metafx.ValidationError, match="honest_portfolios"):
        GuidedSearch(honest_portfolios="yes").check_params()
    # the loop's draw (pool_factor=None): nothing to rebuild on the halves, so the check does not apply
    X, y = pairs(0, 1)
    kw = {**KW, "steps": 8, "warm_start": sources}
    loop_draw = {**PARAMS, "pool_factor": None}
    on = metafx.search(X, y, engine_params=loop_draw, **kw)
    off = metafx.search(X, y, engine_params={**loop_draw, "honest_portfolios": False}, **kw)
    assert _steps(on) == _steps(off) and "portfolio_checks" not in on.metadata
