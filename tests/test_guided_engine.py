"""Engine ``guided``: the engine contract, its model and portfolio against slow references,
determinism, resume, n_jobs, bad parameters and the refused bound."""

from __future__ import annotations

from typing import Any, ClassVar

import naive_guided
import numpy as np
import pytest

import metafx
from metafx._kernels.diverse import dense_diverse_prefix
from metafx.core.base import Candidate
from metafx.default_plugins.guided import PORTFOLIO, GuidedSearch
from metafx.learn.gp import _distances, _gp_posterior, expected_improvement, gp_posterior
from metafx.loop.components import make_component
from metafx.loop.problem import SearchProblem, step_rng
from metafx.plugin import run_search
from metafx.testing import EngineConformance

PARAMS = {"n_init": 2, "portfolio_every": 2, "n_pool": 200, "pool_factor": 4}


class TestGuided(EngineConformance):
    engine = "guided"
    engine_params = PARAMS  # step 3 from the model, step 4 a portfolio


class TestGuidedOversampled(EngineConformance):
    engine = "guided"
    engine_params: ClassVar[dict[str, Any]] = {"n_init": 2, "portfolio_every": 1, "portfolio_sizes": [3, 2], "n_pool": 200}
    steps = 5

    def make_problem(self):
        X, y = metafx.load_dataset("digits")
        return SearchProblem(make_component("family", "pixel-and"), X[:300], y[:300],
                             make_component("set-evaluator", "cv-linear-svm"), 30.0, eval_seed=0, oversample=4)


@pytest.fixture(scope="module")
def small(digits):
    X, y = digits
    return X[:300], y[:300]


def _problem(small, budget=30.0, oversample=4.0):
    X, y = small
    return SearchProblem(make_component("family", "pixel-and"), X, y, make_component("set-evaluator", "cv-linear-svm"),
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


@pytest.mark.parametrize("d", [0, 1, 4, 6])
def test_distances_are_the_broadcast_sums_bit_for_bit(rng, d):
    """The model's distances are summed a column at a time: the same bits as the 3-d broadcast they
    replaced (so the proposals, and every search, did not change)."""

    A, B = rng.random((37, d)), rng.random((2503, d))
    ref = np.sqrt(np.maximum(((A[:, None, :] - B[None, :, :]) ** 2).sum(-1), 0.0))
    assert np.array_equal(_distances(A, B), ref)
    _, sd = _gp_posterior(_distances(A, A), rng.normal(size=37), _distances(B[:5], A), sd=False)
    assert sd is None


def test_expected_improvement_matches_numerical_integration(rng):
    mean = rng.normal(size=7)
    sd = rng.uniform(0.05, 2.0, size=7)
    got = expected_improvement(mean, sd, 0.4, 0.01)
    np.testing.assert_allclose(got, naive_guided.expected_improvement(mean, sd, 0.4, 0.01), rtol=1e-5, atol=1e-9)


@pytest.mark.parametrize("budget,selector,max_corr", [(30.0, "filter", 0.5), (47.5, "filter", 0.3),
                                                     (30.0, "cmim", 0.5), (47.5, "cmim", 0.5)])
def test_point_set_matches_the_reference(small, budget, selector, max_corr):
    prob = _problem(small, budget, 1.0)
    eng = GuidedSearch.create({**PARAMS, "pool_factor": 6, "max_corr": max_corr, "selector": selector})
    eng.setup(prob, 3)
    point = {"numInputs": 2, "percentPos": 50, "shiftInvLen": 1, "scatter": 1.5}
    got = eng.point_set(prob, point, np.random.default_rng(7))
    fam = prob.family
    pool = fam.draw(point, 6 * budget, np.random.default_rng(7))
    D = fam.compute(prob.prepared, pool).dense(np.uint8)
    costs = np.asarray(pool.costs, float)
    order = naive_guided.point_set_order(D, prob.y, costs)
    kept = (naive_guided.diverse(D, order, costs, budget, max_corr) if selector == "filter"
            else naive_guided.cmim(D, prob.y, order, costs, budget))
    want = pool.take(np.array(kept, dtype=np.intp))
    assert fam.to_json(got) == fam.to_json(want)
    assert 0 < float(np.sum(got.costs)) <= budget + 1e-9


@pytest.mark.parametrize("pool_factor", [8.0, None])
def test_portfolio_draw_matches_the_reference(small, pool_factor):
    prob = _problem(small, 30.0, 4.0)
    eng = GuidedSearch.create({**PARAMS, "pool_factor": pool_factor})
    eng.setup(prob, 3)
    space = prob.space
    points = [space.uniform(np.random.default_rng(i)) for i in range(3)]
    points[2] = dict(points[0])  # two sources at the same point: their repeats must go
    sources = [{"point": p, "keys": [3, i + 1, 1]} for i, p in enumerate(points)]
    batch = eng.draw(prob, Candidate({PORTFOLIO: sources}, how="engine"), None)
    fam = prob.family
    parts = [eng.source_set(prob, s["point"], s["keys"]) for s in sources]
    if pool_factor is None:  # the loop's own draw at the point
        for part, s in zip(parts, sources, strict=True):
            assert fam.to_json(part) == fam.to_json(prob.draw(s["point"], step_rng(*s["keys"])))
    parts = [p for p in parts if len(p)]
    union = fam.concat(parts)
    offs = np.cumsum([0] + [len(p) for p in parts])
    D = fam.compute(prob.prepared, union).dense(np.uint8)
    keep = naive_guided.first_of_repeats(D)
    order = [offs[s] + r for s, r in naive_guided.round_robin([len(p) for p in parts]) if keep[offs[s] + r]]
    ref = naive_guided.diverse(D, order, np.asarray(union.costs, float), 30.0, eng.max_corr)
    assert fam.to_json(batch) == fam.to_json(union.take(np.array(ref, dtype=np.intp)))
    assert float(np.sum(batch.costs)) <= 30.0 + 1e-9


@pytest.mark.parametrize("m,n,k", [(97, 30, 3), (64, 25, 10), (130, 20, 1), (11, 9, 2), (50, 0, 2)])
def test_cmim_matches_the_reference(m, n, k, rng):
    """The lazy CMIM kernel keeps the same columns, in the same order, as the rule spelt out (odd m, one
    class, no columns, repeats, constant columns, unequal costs, a budget that binds)."""
    from metafx._kernels.cmim import cmim_select
    from metafx._kernels.packing import pack_columns

    y = rng.integers(0, k, m)
    hidden = rng.random((m, 4)) < 0.5
    D = np.zeros((m, n), dtype=np.uint8)
    for j in range(n):
        D[:, j] = (rng.random(m) < 0.2) ^ (hidden[:, rng.integers(4)] & (y % 2 == 1))
    if n > 5:
        D[:, 4] = D[:, 3]  # a repeat: kept at most once (the second has nothing left)
        D[:, 5] = 0  # constant: never kept
    costs = rng.integers(1, 4, n).astype(float)
    order = rng.permutation(n)[: max(n - 2, 0)]
    budget = 0.5 * float(costs.sum())
    got = cmim_select(pack_columns(D), m, y, order, costs, budget)
    want = naive_guided.cmim(D, y, order, costs, budget)
    assert got.tolist() == want
    assert float(costs[got].sum()) <= budget + 1e-9
    if k == 1:
        assert len(got) == 0  # one class: no information


def test_cmim_on_dense_values(rng):
    """Dense 0/1 values are packed and selected as packed ones; real values are refused with the way out."""
    from metafx._kernels.cmim import cmim_select
    from metafx._kernels.packing import pack_columns
    from metafx.core.values import FeatureValues

    eng = GuidedSearch.create({"selector": "cmim"})
    y = np.arange(40) % 3
    eng.codes_ = y
    D = (rng.random((40, 12)) < 0.4).astype(np.uint8)
    costs, order = np.ones(12), rng.permutation(12)
    got = eng._filter(FeatureValues(n_samples=40, dense=D.astype(float)), costs, order, 5.0)
    assert got.tolist() == cmim_select(pack_columns(D), 40, y, order, costs, 5.0).tolist()
    with pytest.raises(metafx.ValidationError, match="selector='cmim' needs binary"):
        eng._filter(FeatureValues(n_samples=40, dense=D + 0.5), costs, order, 5.0)


def test_dense_filter_matches_the_reference(rng):
    D = (rng.random((40, 12)) < 0.4).astype(np.uint8)
    D[:, 5] = D[:, 2]  # perfectly correlated
    D[:, 7] = 0  # constant
    costs = rng.uniform(1, 3, 12)
    order = rng.permutation(12)
    got = dense_diverse_prefix(D.astype(float), order, costs, 15.0, 0.3)
    assert got.tolist() == naive_guided.diverse(D, order, costs, 15.0, 0.3)


def test_schedule_uniform_then_model_then_portfolio(small):
    prob = _problem(small)
    res = run_search(prob, GuidedSearch.create({"n_init": 3, "portfolio_every": 2, "n_pool": 200}), steps=7, seed=4,
                     progress=False)
    rnd = run_search(prob, make_component("engine", "random", None), steps=3, seed=4, progress=False)
    assert res.metadata["proposed_points"][:3] == [r.point for r in rnd.trajectory]
    assert [p is None for p in res.metadata["proposed_points"]] == [False] * 4 + [True, False, True]
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


def test_cost_power_discounts_only_sets_wider_than_the_data(small):
    """``cost_power`` divides the expected improvement by ``max(1, n / m) ** cost_power`` for the
    predicted set size ``n``: a search whose sets are never wider than the ``m`` samples proposes the
    same points; otherwise the acquisition is the expected improvement divided by the width, computed
    here by hand."""
    narrow = _problem(small, budget=30.0)
    kw = dict(steps=6, seed=5, progress=False)
    plain = run_search(narrow, GuidedSearch.create({**PARAMS, "cost_power": 0}), **kw)
    costed = run_search(narrow, GuidedSearch.create({**PARAMS, "cost_power": 2}), **kw)
    assert _steps(costed) == _steps(plain) and costed.metadata["cost_power"] == 2

    eng = GuidedSearch.create({"n_init": 4, "portfolio_every": 0, "n_pool": 300, "cost_power": 1.5})
    prob = _problem(small, budget=3000.0, oversample=1.0)
    eng.setup(prob, seed=0)
    sizes = [10, 5000, 20, 3000, 700]
    for i, row in enumerate(eng._uniform_rows(np.random.default_rng(0), len(sizes))):
        eng.points_.append((i + 1, eng._decode(row), 0.5 + 0.1 * (i % 2)))
        eng.sizes_.append(sizes[i])
    seen = eng._encode([p for _, p, _ in eng.points_])
    q = np.array([v for _, _, v in eng.points_])
    P = eng._uniform_rows(step_rng(0, 6, 0), 80)
    # by hand: the size model is the same Gaussian process on log(1 + n), back in features
    logs = np.log1p(np.array(sizes, dtype=float))
    mean, _ = gp_posterior(eng._scaled(seen), logs, eng._scaled(P))
    n = np.maximum(np.expm1(logs.mean() + mean * logs.std()), 1.0)
    Xs, Ps = eng._scaled(seen), eng._scaled(P)
    D = np.sqrt(((Xs[:, None, :] - Xs[None, :, :]) ** 2).sum(-1))
    Dq = np.sqrt(((Ps[:, None, :] - Xs[None, :, :]) ** 2).sum(-1))
    np.testing.assert_allclose(eng._predicted_sizes(D, Dq), n, rtol=1e-12)
    costed = eng._acquisition(seen, q, P)
    eng.cost_power = 0.0
    ei = eng._acquisition(seen, q, P)
    wide = np.maximum(n / prob.n_samples, 1.0)
    assert (wide > 1).any() and (wide == 1).any()  # the case of interest: some candidates wider than the data
    np.testing.assert_allclose(costed, ei / wide ** 1.5, rtol=1e-12)
    assert np.argmax(costed) != np.argmax(ei) or wide[np.argmax(ei)] == 1


def test_bound_refuses(small):
    X, y = small
    res = metafx.search(X, y, budget=20, steps=3, engine="guided", engine_params={"n_init": 2}, seed=0,
                        progress=False)
    with pytest.raises(metafx.MetafxError, match="guided"):
        res.bound()


@pytest.mark.parametrize("params", [{"n_init": 0}, {"portfolio_every": -1}, {"portfolio_sizes": [1]},
                                    {"portfolio_sizes": []}, {"portfolio_sizes": "23"}, {"n_pool": 0},
                                    {"xi": -0.1}, {"pool_factor": 0.5}, {"max_corr": 0}, {"max_corr": 1.5},
                                    {"cost_power": -1}, {"cost_power": "1"}, {"selector": "corr"}])
def test_bad_parameters_are_refused(params):
    key = next(iter(params))
    with pytest.raises(metafx.ValidationError, match=key):
        GuidedSearch.create(params)


def test_points_without_features_give_an_empty_marked_result(small, caplog):
    """8 inputs with scatter 3.5 rarely fit an 8x8 image: every step (model and portfolio ones too) scores the
    empty set, and the result says it holds no features."""
    X, y = small
    fixed = {"numInputs": 8, "scatter": 3.5, "percentPos": 50, "shiftInvLen": 1}
    res = metafx.search(X, y, budget=30, steps=5, engine="guided", engine_params={"n_init": 2, "portfolio_every": 2},
                        seed=0, fixed=fixed, progress=False)
    assert all(t.n_features == 0 for t in res.trajectory) and res.metadata["portfolio_steps"] == [4]
    assert res.n_features == 0 and res.metadata["empty_result"] is True
    with pytest.raises(metafx.ValidationError, match="no feature of family 'pixel-and' fits budget=20 with"):
        metafx.search(X, y, budget=20, steps=2, engine="guided", seed=0, fixed={"shiftInvLen": 8}, progress=False)


def test_candidate_pool_rows_are_points_of_the_space():
    """The model's candidate points, drawn a dimension at a time: uniform rows cover every value of
    every free dimension, neighbours move each dimension as ``Dimension.move`` does, and every row
    decodes to a point the space accepts (fixed dimensions at their values)."""
    from types import SimpleNamespace

    from metafx.core.values import Dimension, MetaFeatureSpace

    space = MetaFeatureSpace((Dimension("k", "int", 1, 6, step=2), Dimension("s", "float", 0.5, 3.0, step=0.4),
                              Dimension("op", "categorical", choices=("a", "b", "c")),
                              Dimension("one", "categorical", choices=("x",)), Dimension("f", "int", 0, 9)),
                             fixed={"f": 4})
    eng = GuidedSearch()
    eng.problem_ = SimpleNamespace(space=space)
    rng = np.random.default_rng(0)
    U = eng._uniform_rows(rng, 3000)
    assert U.shape == (3000, 4)
    assert set(U[:, 0]) == set(range(1, 7)) and set(U[:, 2]) == {0, 1, 2} and set(U[:, 3]) == {0}
    assert 0.5 <= U[:, 1].min() and U[:, 1].max() <= 3.0
    point = {"k": 6, "s": 2.9, "op": "b", "one": "x", "f": 4}
    row = eng._encode([point])[0]
    np.testing.assert_array_equal(row, [6, 2.9, 1, 0])
    assert eng._decode(row) == point
    N = eng._neighbour_rows(row, rng, 3000)
    assert set(N[:, 0]) == {4, 5, 6}  # up to step 2 either way, clipped at high = 6
    assert set(N[:, 2]) == {0, 2}  # another choice, each of them
    assert np.all(N[:, 3] == 0) and 0.5 <= N[:, 1].min() and N[:, 1].max() == 3.0  # clipped
    below = N[N[:, 1] < 2.9, 1] - 2.9  # the unclipped half of a Gaussian move of sd 0.4
    assert abs(np.sqrt(np.mean(below**2)) - 0.4) < 0.03
    for r in np.concatenate([U[:50], N[:50]]):
        p = eng._decode(r)
        assert space.check_point(p) == p and p["f"] == 4
        assert isinstance(p["k"], int) and isinstance(p["s"], float) and p["op"] in ("a", "b", "c")
    scaled = eng._scaled(U)
    assert scaled.min() >= 0 and scaled.max() <= 1 and scaled[:, 3].max() == 0  # a one-choice dimension: span 1


@pytest.mark.parametrize("max_corr", [0.3, 1.0])
def test_filter_keeps_more_than_its_first_buffer(max_corr, rng):
    """More than 1024 kept features (the kernel's first buffer of kept rows grows), m not a multiple of 64:
    the same indices as the greedy rule on a phi matrix computed with NumPy."""
    from metafx._kernels.diverse import diverse_prefix
    from metafx._kernels.packing import pack_columns

    m, n = 97, 1300
    D = (rng.random((m, n)) < rng.uniform(0.02, 0.98, n)).astype(np.uint8)
    D[:, :3] = 0  # constant columns are never kept
    order = rng.permutation(n)
    costs = np.ones(n)
    got = diverse_prefix(pack_columns(D), m, order, costs, 1200.0, max_corr)
    Z = (D - D.mean(0)) / np.where(D.std(0) > 0, D.std(0), 1.0)
    P = Z.T @ Z / m  # phi of every pair
    kept = []
    for i in order:
        if len(kept) < 1200 and 0 < D[:, i].sum() < m and np.all(np.abs(P[i, kept]) <= max_corr + 1e-9):
            kept.append(i)
    np.testing.assert_array_equal(got, kept)
    assert max_corr < 1 or len(got) == 1200


@pytest.mark.parametrize("R,budget", [(2, 30.0), (4, 47.5)])
def test_feature_map_pool_matches_the_reference(small, R, budget):
    """``feature_map=R``: half the pool drawn and scored, Algorithm 5 fitted on the scores (the
    reference solves the ridge regression over 7 x 7 bumps in closed form), then the best-predicted
    ``1/R`` of ``R`` times as many specs; the values returned are those of the pool."""
    prob = _problem(small, budget, 1.0)
    eng = GuidedSearch.create({**PARAMS, "pool_factor": 6, "feature_map": R})
    eng.setup(prob, 3)
    point = {"numInputs": 3, "percentPos": 67, "shiftInvLen": 2, "scatter": 1.7}
    pool, values = eng.mapped_pool(prob, point, np.random.default_rng(5))
    fam = prob.family
    rng = np.random.default_rng(5)
    first = fam.draw(point, 6 * budget / 2, rng)
    specs = fam.draw(point, 6 * budget / 2 * R, rng)
    D = fam.compute(prob.prepared, first).dense(np.uint8)
    q = [naive_guided.infogain(list(D[:, i]), list(prob.y)) / first.costs[i] for i in range(len(first))]
    pred = naive_guided.quality_map(fam.centres(first), q, fam.centres(specs), fam.image_shape)
    top = sorted(sorted(range(len(specs)), key=lambda i: (-pred[i], i))[:len(first)])
    want = fam.concat([first, specs.take(np.array(top, dtype=np.intp))])
    assert len(specs) == R * len(first) and len(pool) == 2 * len(first)
    assert fam.to_json(pool) == fam.to_json(want)
    assert np.array_equal(values.dense(np.uint8), fam.compute(prob.prepared, pool).dense(np.uint8))
    kept = eng.point_set(prob, point, np.random.default_rng(5))  # the usual ranking and filter on that pool
    order = naive_guided.point_set_order(values.dense(np.uint8), prob.y, np.asarray(pool.costs, float))
    ref = naive_guided.diverse(values.dense(np.uint8), order, np.asarray(pool.costs, float), budget, eng.max_corr)
    assert fam.to_json(kept) == fam.to_json(pool.take(np.array(ref, dtype=np.intp)))


def test_feature_map_draws_where_the_map_says(rng):
    """Class information only in the left half of the images: the map-chosen half of the pool lies
    mostly there, the uniform half does not."""
    m = 400
    y = rng.integers(0, 2, m)
    X = (rng.random((m, 12, 12)) < 0.5).astype(np.uint8)
    X[:, :, :6] = (rng.random((m, 12, 6)) < np.where(y[:, None, None] == 1, 0.8, 0.2)).astype(np.uint8)
    prob = SearchProblem(make_component("family", "pixel-and"), X, y, make_component("set-evaluator", "cv-linear-svm"),
                         100.0, eval_seed=0)
    eng = GuidedSearch.create({"pool_factor": 8, "feature_map": 4})
    eng.setup(prob, 0)
    point = {"numInputs": 1, "percentPos": 100, "shiftInvLen": 1, "scatter": 1.0}
    pool, _ = eng.mapped_pool(prob, point, np.random.default_rng(1))
    cols = prob.family.centres(pool)[:, 1]
    half = len(pool) // 2
    assert np.mean(cols[:half] < 5.5) < 0.7 and np.mean(cols[half:] < 5.5) > 0.95


def test_feature_map_resumes_and_ignores_n_jobs(small, tmp_path):
    prob = _problem(small)
    params = {**PARAMS, "feature_map": 2}
    kw = dict(steps=7, seed=4, progress=False)
    full = run_search(prob, GuidedSearch.create(params), **kw)
    assert full.metadata["feature_map"] == 2
    j = tmp_path / "g.jsonl"
    run_search(prob, GuidedSearch.create(params), storage=str(j), callbacks=[lambda s, r: r.step < 4], **kw)
    again = run_search(prob, GuidedSearch.create(params), storage=str(j), **kw)
    assert again.metadata.get("resumed_steps") == 4
    assert _steps(again) == _steps(full) and again.features == full.features
    two = run_search(prob, GuidedSearch.create(params), n_jobs=2, **kw)
    assert _steps(two) == _steps(full)
    plain = run_search(prob, GuidedSearch.create(PARAMS), **kw)
    assert _steps(plain) != _steps(full)


@pytest.mark.parametrize("params,match", [({"feature_map": 1}, "feature_map=1"),
                                          ({"feature_map": 2.5}, "feature_map"),
                                          ({"feature_map": 2, "pool_factor": None}, "pool_factor")])
def test_feature_map_bad_values_are_refused(params, match):
    with pytest.raises(metafx.ValidationError, match=match):
        GuidedSearch.create(params)


def test_feature_map_needs_centres(rng):
    X = rng.normal(size=(60, 4))
    y = rng.integers(0, 2, 60)
    prob = SearchProblem(make_component("family", "tabular"), X, y, make_component("set-evaluator", "cv-linear-svm"),
                         10.0, eval_seed=0)
    with pytest.raises(metafx.ValidationError, match="feature_map=2 needs a family whose features have centres"):
        GuidedSearch.create({"feature_map": 2}).setup(prob, 0)


def test_feature_map_is_part_of_the_signature(small, tmp_path):
    """``feature_map`` is in a search's signature, off or on: a journal of one is refused by the other."""
    from metafx.loop.problem import problem_signature

    prob = _problem(small)
    off = problem_signature(GuidedSearch.create(PARAMS), prob, 1)["engine_params"]
    on = problem_signature(GuidedSearch.create({**PARAMS, "feature_map": 2}), prob, 1)["engine_params"]
    assert off["feature_map"] is None and on["feature_map"] == 2
    assert {k: v for k, v in on.items() if k != "feature_map"} == {k: v for k, v in off.items() if k != "feature_map"}
    j = tmp_path / "old.jsonl"
    run_search(prob, GuidedSearch.create(PARAMS), storage=str(j), steps=3, seed=1, progress=False)
    with pytest.raises(metafx.MetafxError, match="engine_params"):
        run_search(prob, GuidedSearch.create({**PARAMS, "feature_map": 2}), storage=str(j), steps=3, seed=1,
                   progress=False)


def test_pool_rows_ranks_the_pool_on_a_sample_of_rows():
    """pool_rows: the pool is ranked and filtered on a class-stratified sample of rows (reproducible), the set
    computed on every row; with at least as many rows as samples it is the search of before."""
    X, y = metafx.load_dataset("digits")
    X, y = X[:400], y[:400]
    kw = dict(budget=60, steps=4, seed=3, progress=False, engine="guided")
    base = metafx.search(X, y, engine_params={"n_init": 2}, **kw)
    same = metafx.search(X, y, engine_params={"n_init": 2, "pool_rows": 400}, **kw)
    assert same.features == base.features and same.best_quality == base.best_quality
    a = metafx.search(X, y, engine_params={"n_init": 2, "pool_rows": 100}, **kw)
    b = metafx.search(X, y, engine_params={"n_init": 2, "pool_rows": 100}, **kw)
    assert a.features == b.features and a.total_cost <= 60
    from metafx.default_plugins.guided import _stratified_rows
    rows = _stratified_rows(y, 100, 3)
    assert len(np.unique(rows)) == len(rows) and set(y[rows]) == set(y) and abs(len(rows) - 100) <= 10
    with pytest.raises(metafx.ValidationError, match="pool_rows=100 ranks the engine's own pool"):
        metafx.search(X, y, engine_params={"pool_rows": 100, "pool_factor": None}, **kw)


def _search_table(X, y, pool_rows):
    return metafx.search(X, y, family="tabular", engine="guided", budget=40, steps=4, seed=5, progress=False,
                         engine_params={"n_init": 2, "pool_rows": pool_rows})


def test_pool_rows_auto_keeps_the_families_that_declare_every_row():
    """pool_rows="auto" reads the family's declaration: pixel-and and tabular declare None (every row), so their
    searches are those of pool_rows=None bit for bit, on data where pool_rows=512 changes them."""
    from sklearn.datasets import make_classification

    from metafx.default_plugins.local_families import PixelAndLocalFamily
    from metafx.default_plugins.pixel_families import PixelAndFamily, PixelsFamily
    from metafx_tabular import TabularFamily

    assert all(cls.pool_rows is None for cls in (PixelAndFamily, PixelsFamily, PixelAndLocalFamily, TabularFamily))
    X, y = metafx.load_dataset("digits")  # 1797 images: more rows than 512
    kw = dict(budget=60, steps=4, seed=3, progress=False, engine="guided")
    auto, every, sample = (metafx.search(X, y, engine_params={"n_init": 2, "pool_rows": v}, **kw)
                           for v in ("auto", None, 512))
    assert auto.features == every.features and auto.best_quality == every.best_quality
    assert _steps(auto) == _steps(every) and auto.metadata["pool_rows_used"] is None
    assert sample.features != every.features  # the data is large enough for a sample to matter
    Xt, yt = make_classification(n_samples=1500, n_features=8, n_informative=4, random_state=0)
    auto, every, sample = (_search_table(Xt, yt, v) for v in ("auto", None, 64))
    assert auto.features == every.features and _steps(auto) == _steps(every)
    assert sample.features != every.features


def test_pool_rows_auto_takes_a_sample_for_a_family_that_declares_nothing():
    """A family that declares no pool_rows gets FeatureFamily.pool_rows (512) from "auto": the search is that of
    pool_rows=512; a declared int is read as given; "auto" gives every row where an int would be refused."""
    from metafx.default_plugins.pixel_families import PixelAndFamily
    from metafx.plugin import FeatureFamily

    class Undeclared(PixelAndFamily):
        name = "pixel-and-undeclared"
        pool_rows = FeatureFamily.pool_rows  # what a family derived from FeatureFamily alone inherits

    class Declares(PixelAndFamily):
        name = "pixel-and-300"
        pool_rows = 300

    assert FeatureFamily.pool_rows == 512
    X, y = metafx.load_dataset("digits")
    kw = dict(budget=60, steps=4, seed=3, progress=False, engine="guided")
    auto = metafx.search(X, y, family=Undeclared(), engine_params={"n_init": 2, "pool_rows": "auto"}, **kw)
    fixed = metafx.search(X, y, family=Undeclared(), engine_params={"n_init": 2, "pool_rows": 512}, **kw)
    assert auto.features == fixed.features and _steps(auto) == _steps(fixed)
    assert auto.metadata["pool_rows_used"] == 512 and auto.metadata["pool_rows"] == "auto"
    # "auto" is the default (experiments/guided/RULE_POOL_ROWS_AUTO2.md): a search that asks for nothing is auto's
    default = metafx.search(X, y, family=Undeclared(), engine_params={"n_init": 2}, **kw)
    assert GuidedSearch().pool_rows == "auto" and default.metadata["pool_rows_used"] == 512
    assert default.features == auto.features and _steps(default) == _steps(auto)
    assert GuidedSearch(pool_rows="auto")._pool_rows(Declares()) == 300
    assert GuidedSearch(pool_rows="auto", pool_factor=None)._pool_rows(Undeclared()) is None
    assert GuidedSearch(pool_rows="auto", feature_map=4)._pool_rows(Undeclared()) is None
    metafx.search(X[:300], y[:300], family=Undeclared(), engine_params={"pool_rows": "auto", "pool_factor": None},
                  budget=30, steps=2, seed=0, progress=False, engine="guided")


@pytest.mark.parametrize("value", [0, 8, 2.5, "many", True])
def test_a_bad_pool_rows_declaration_is_named(value):
    from metafx.default_plugins.pixel_families import PixelAndFamily

    class Bad(PixelAndFamily):
        name = "pixel-and-bad"
        pool_rows = value

    with pytest.raises(metafx.ValidationError, match=r"family 'pixel-and-bad' declares pool_rows=.*allowed: None"):
        GuidedSearch(pool_rows="auto")._pool_rows(Bad())


@pytest.mark.parametrize("value", ["every", 8, -1, 2.5])
def test_a_bad_pool_rows_parameter_names_what_is_allowed(value):
    X, y = metafx.load_dataset("digits")
    with pytest.raises(metafx.ValidationError, match=r"pool_rows=.*integer >= 16.*'auto'.*None"):
        metafx.search(X[:100], y[:100], engine="guided", engine_params={"pool_rows": value}, budget=20, steps=1,
                      progress=False)
