"""``GuidedSearch(prior_weight="learned")``: each related task's extra noise in the quality model is chosen by how
well its rows predict the search's own steps, so a misleading related task weighs little (issue 46)."""

from __future__ import annotations

import json

import naive_guided
import numpy as np
import pytest
from prior_engine import peaked, told_engine

import metafx
from metafx.default_plugins.guided import GuidedSearch
from metafx.learn.gp import TARGET, TASK_NOISE_GRID, _distances, gp_posterior_tasks, learned_task_noises

KW = dict(budget=30, steps=6, seed=4, progress=False)
PARAMS = {"n_init": 4, "n_pool": 200}


@pytest.mark.parametrize("sizes,d", [((5, 1), 2), ((3, 4, 2), 3), ((9, 0, 6), 1), ((1, 2, 7), 4), ((0, 3), 2)])
def test_learned_task_noises_match_the_gaussian_conditional(rng, sizes, d):
    # sizes: rows of the target, then of each related task (odd sizes, a task with one row, no target rows)
    task = np.concatenate([np.full(n, TARGET if k == 0 else k - 1) for k, n in enumerate(sizes)])
    X = rng.random((len(task), d))
    z = np.sin(3 * X[:, 0]) + 0.3 * rng.normal(size=len(task))
    z[task == 1] *= -1  # a task that disagrees with the others where there is one
    got = learned_task_noises(_distances(X, X), z, task, offset=0.7)
    related = {k - 1 for k, n in enumerate(sizes) if k and n}  # a task of no rows is none
    if sizes[0] == 0:
        assert got == dict.fromkeys(related, TASK_NOISE_GRID[0])
    else:
        assert got == naive_guided.learned_task_noises(X, z, task, 0.7, TASK_NOISE_GRID)
    assert set(got) == related and set(got.values()) <= set(TASK_NOISE_GRID)


def test_a_task_that_follows_the_target_weighs_more_than_one_that_does_not(rng):
    f = lambda x: np.sin(4 * x[:, 0]) + np.cos(3 * x[:, 1])  # noqa: E731
    X = rng.random((70, 2))
    task = np.array([TARGET] * 10 + [0] * 30 + [1] * 30)
    z = f(X) + 0.05 * rng.normal(size=len(X))
    z[task == 1] = -z[task == 1]  # the misleading task: best where the target is worst
    got = learned_task_noises(_distances(X, X), z, task, offset=1.0)
    assert got[0] == 0.1 and got[1] == 8.0, got


def test_gp_posterior_tasks_takes_one_noise_per_row(rng):
    X = rng.random((9, 3))
    task = np.array([0, 0, 1, 1, 1, 2, TARGET, TARGET, TARGET])
    z = rng.normal(size=9)
    per_row = np.array([0.1, 0.1, 8.0, 8.0, 8.0, 0.5, 99.0, 99.0, 99.0])  # the target's values are unused
    Xq = rng.random((4, 3))
    mean, sd = gp_posterior_tasks(_distances(X, X), z, task, _distances(Xq, X), offset=0.7, task_noise=per_row)
    m2, s2 = naive_guided.gp_posterior_tasks(X, z, task, Xq, 0.7, np.where(task == TARGET, 0.0, per_row))
    np.testing.assert_allclose(mean, m2, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(sd, s2, rtol=1e-7, atol=1e-9)
    same, _ = gp_posterior_tasks(_distances(X, X), z, task, _distances(Xq, X), offset=0.7, task_noise=0.5)
    assert not np.allclose(mean, same)


def test_learned_weight_lets_a_misleading_related_task_cost_little(digits, rng):
    small = digits[0][:300], digits[1][:300]
    prior = peaked(6, 0, 15, rng) + peaked(1, 1, 60, rng) + peaked(2, 2, 60, rng)  # two misleading tasks
    fixed, p_fixed = told_engine(small, prior, prior_weight="fixed")
    learned, p_learned = told_engine(small, prior, prior_weight="learned")
    noises = learned.metadata()["prior_task_noises"]
    assert len(noises) == 1 and noises[0]["1"] == noises[0]["2"] == 8.0 and noises[0]["0"] < 8.0, noises
    assert "prior_task_noises" not in fixed.metadata() and fixed.metadata()["prior_weight"] == "fixed"
    assert abs(p_learned["numInputs"] - 6) < abs(p_fixed["numInputs"] - 6), (p_learned, p_fixed)


def test_prior_weight_resumes_exactly_and_stays_out_of_a_cold_signature(pairs, sources, tmp_path):
    X, y = pairs(0, 1)
    params = {**PARAMS, "prior_weight": "learned"}
    res = metafx.search(X, y, warm_start=sources, engine_params=params, **KW)
    fixed = metafx.search(X, y, warm_start=sources, engine_params=PARAMS, **KW)
    assert res.metadata["prior_weight"] == "learned" and res.metadata["prior_task_noises"]
    assert res.metadata["proposed_points"][:2] == fixed.metadata["proposed_points"][:2]  # the warm points
    j = tmp_path / "w.jsonl"
    metafx.search(X, y, storage=str(j), callbacks=[lambda s, r: r.step < 4], warm_start=sources,
                  engine_params=params, **KW)
    again = metafx.search(X, y, storage=str(j), warm_start=sources, engine_params=params, **KW)
    assert [(r.step, r.point, r.quality) for r in again.trajectory] == [(r.step, r.point, r.quality)
                                                                         for r in res.trajectory]
    with pytest.raises(metafx.StorageError, match="differs in"):
        metafx.search(X, y, storage=str(j), warm_start=sources, engine_params=PARAMS, **KW)
    c = tmp_path / "cold.jsonl"
    metafx.search(X, y, storage=str(c), engine_params=params, **{**KW, "steps": 2})
    assert "prior_weight" not in json.loads(c.read_text().splitlines()[0])["signature"]["engine_params"]


def test_prior_weight_is_checked():
    with pytest.raises(metafx.ValidationError, match=r"prior_weight.*'learned'"):
        GuidedSearch(prior_weight="auto").check_params()
