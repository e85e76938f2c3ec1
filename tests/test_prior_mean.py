"""``GuidedSearch(prior_mean="map")``: with prior observations, the related tasks' quality map (thesis section 5.5)
is the prior mean of the quality model and the search's own steps model the residual (issue 46)."""

from __future__ import annotations

import json

import naive_guided
import numpy as np
import pytest
from prior_engine import peaked, told_engine

import metafx
from metafx.default_plugins.guided import GuidedSearch
from metafx.learn.gp import TARGET, gp_posterior_map, quality_map

KW = dict(budget=30, steps=6, seed=4, progress=False)
PARAMS = {"n_init": 4, "n_pool": 200, "prior_portfolio": None}


@pytest.mark.parametrize("sizes,d", [((1, 5), 2), ((3, 4, 2), 3), ((7, 1, 6), 1), ((2, 3, 1, 7), 4), ((0, 3), 2)])
def test_gp_posterior_map_matches_the_textbook_formulas(rng, sizes, d):
    # sizes: rows of the target, then of each related task (odd sizes, one row, no target rows at all)
    task = np.concatenate([np.full(n, k - 1) for k, n in enumerate(sizes) if k])
    Xp, X, Xq = rng.random((len(task), d)), rng.random((sizes[0], d)), rng.random((5, d))
    zp = np.sin(3 * Xp[:, 0]) + 0.3 * rng.normal(size=len(task))
    z = np.sin(3 * X[:, 0]) + 0.5 + 0.3 * rng.normal(size=len(X))
    noise = rng.choice([0.1, 0.5, 8.0], size=len(task))  # one extra noise variance per related row
    mean, sd = gp_posterior_map(Xp, zp, task, X, z, Xq, offset=0.7, task_noise=noise)
    m_map = quality_map(Xp, zp, task, Xq, offset=0.7, task_noise=noise)
    m_ref, _ = naive_guided.gp_posterior_tasks(Xp, zp, task, Xq, 0.7, noise)
    np.testing.assert_allclose(m_map, m_ref, rtol=1e-7, atol=1e-9)
    if sizes[0] == 0:  # no own rows: the map, and the residual's prior spread
        np.testing.assert_allclose(mean, m_map, rtol=1e-12)
        np.testing.assert_allclose(sd, np.sqrt(1.7))
        return
    m2, s2 = naive_guided.gp_posterior_map(Xp, zp, task, X, z, Xq, 0.7, noise)
    np.testing.assert_allclose(mean, m2, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(sd, s2, rtol=1e-7, atol=1e-9)


def test_the_map_carries_the_related_tasks_shape_and_the_own_rows_correct_it(rng):
    f = lambda x: np.sin(4 * x[:, 0])  # noqa: E731
    Xp = rng.random((60, 1))
    task = np.repeat([0, 1, 2], 20)
    zp = f(Xp) + 0.05 * rng.normal(size=60)
    X = np.array([[0.1], [0.9]])
    Xq = np.linspace(0, 1, 21)[:, None]
    mean, _ = gp_posterior_map(Xp, zp, task, X, f(X) - 2.0, Xq, offset=1.0, task_noise=0.5)
    assert abs(Xq[np.argmax(mean), 0] - np.pi / 8) < 0.1  # the peak is the map's (the own rows are far from it)
    assert np.all(np.abs(mean - (f(Xq) - 2.0)) < 0.5)  # shifted to this task's level by its own rows


def test_quality_map_refuses_target_rows_and_no_rows():
    with pytest.raises(ValueError, match="related tasks only"):
        quality_map(np.zeros((2, 1)), np.zeros(2), np.array([0, TARGET]), np.zeros((1, 1)), offset=1.0,
                    task_noise=0.5)
    with pytest.raises(ValueError, match="at least one"):
        quality_map(np.zeros((0, 1)), np.zeros(0), np.zeros(0, dtype=int), np.zeros((1, 1)), offset=1.0,
                    task_noise=0.5)


def test_the_map_changes_the_proposal_with_a_prior(digits, rng):
    small = digits[0][:300], digits[1][:300]
    prior = peaked(3, 0, 40, rng) + peaked(4, 1, 40, rng)
    none, p_none = told_engine(small, prior, prior_mean="none")
    mapped, p_map = told_engine(small, prior, prior_mean="map")
    assert p_none != p_map
    assert mapped.metadata()["prior_mean"] == "map" and none.metadata()["prior_mean"] == "none"


def test_prior_mean_changes_nothing_without_a_prior(pairs):
    X, y = pairs(0, 1)
    runs = [metafx.search(X, y, engine_params={**PARAMS, "prior_mean": m}, **KW) for m in ("none", "map")]
    assert [(r.step, r.point, r.quality) for r in runs[0].trajectory] == [(r.step, r.point, r.quality)
                                                                          for r in runs[1].trajectory]


def test_prior_mean_resumes_exactly_and_stays_out_of_a_cold_signature(pairs, sources, tmp_path):
    X, y = pairs(0, 1)
    params = {**PARAMS, "prior_mean": "map"}
    res = metafx.search(X, y, warm_start=sources, engine_params=params, **KW)
    none = metafx.search(X, y, warm_start=sources, engine_params=PARAMS, **KW)
    assert res.metadata["proposed_points"][:2] == none.metadata["proposed_points"][:2]  # the warm points
    assert res.metadata["proposed_points"] != none.metadata["proposed_points"]
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
    assert "prior_mean" not in json.loads(c.read_text().splitlines()[0])["signature"]["engine_params"]


@pytest.mark.parametrize("bad", ["mean", "Map", None, 1])
def test_prior_mean_is_checked(bad):
    with pytest.raises(metafx.ValidationError, match=r"prior_mean.*'map'"):
        GuidedSearch(prior_mean=bad).check_params()
