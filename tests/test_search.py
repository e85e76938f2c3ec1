"""metafx.search with the Mufasa engine: reproducibility, results, JSON, resume, errors."""

from __future__ import annotations

import json
import math

import naive
import numpy as np
import pytest

import metafx
import metafx.plugin


@pytest.fixture(scope="module")
def small(digits):
    X, y = digits
    return X[:400], y[:400]


def test_search_result_is_consistent(small):
    X, y = small
    seen = []
    res = metafx.search(X, y, budget=80, steps=6, seed=3, progress=False, callbacks=[lambda s, r: seen.append(r.step)])
    assert seen == [1, 2, 3, 4, 5, 6]
    assert len(res.trajectory) == 6 and res.total_cost <= 80
    q = [r.quality for r in res.trajectory]
    assert res.best_quality == max(q)
    # ties accepted: the best step is the last step reaching the maximum
    assert res.best_step == max(i + 1 for i, v in enumerate(q) if v == max(q))
    assert res.trajectory[res.best_step - 1].point == res.best_point
    best_so_far = np.maximum.accumulate(q)
    assert [r.best_quality for r in res.trajectory] == list(best_so_far)
    # every step but the first starts from the best point so far, changed
    Xt = res.transform(X[:7])
    assert Xt.shape == (7, res.n_features) and set(np.unique(Xt)) <= {0, 1}


def test_search_is_reproducible_and_seed_matters(small):
    X, y = small
    a = metafx.search(X, y, budget=50, steps=4, seed=7, progress=False)
    b = metafx.search(X, y, budget=50, steps=4, seed=7, progress=False)
    c = metafx.search(X, y, budget=50, steps=4, seed=8, progress=False)
    strip = lambda r: [(t.point, t.quality) for t in r.trajectory]  # noqa: E731
    assert strip(a) == strip(b) and a.features == b.features
    assert strip(a) != strip(c)


def test_json_round_trip_exact_and_transform_matches_independent_reference(small, tmp_path):
    X, y = small
    res = metafx.search(X, y, budget=60, steps=3, seed=0, progress=False)
    path = tmp_path / "r.json"
    res.to_json(path)
    back = metafx.SearchResult.from_json(path)
    assert back == res
    assert back.to_json() == res.to_json()
    data = json.loads(path.read_text())
    assert data["features"][0].keys() == {"family", "inputs", "shift"}
    # recompute from the JSON alone with the reference implementation of the semantics
    ref = naive.pixel_and_features(X[:50], data["features"])
    np.testing.assert_array_equal(back.transform(X[:50]), ref)


def test_fixed_dimensions_are_respected(small):
    X, y = small
    res = metafx.search(X, y, budget=40, steps=5, seed=0, progress=False, fixed={"shiftInvLen": 1, "numInputs": 2})
    assert all(r.point["shiftInvLen"] == 1 and r.point["numInputs"] == 2 for r in res.trajectory)


def test_callback_can_stop(small):
    X, y = small
    res = metafx.search(X, y, budget=30, steps=10, seed=0, progress=False, callbacks=[lambda s, r: r.step < 3])
    assert len(res.trajectory) == 3


def test_resume_from_journal_equals_uninterrupted(small, tmp_path):
    X, y = small
    full = metafx.search(X, y, budget=50, steps=6, seed=5, progress=False)
    journal = tmp_path / "j.jsonl"
    part = metafx.search(X, y, budget=50, steps=6, seed=5, progress=False, storage=str(journal),
                         callbacks=[lambda s, r: r.step < 4])
    assert len(part.trajectory) == 4
    resumed = metafx.search(X, y, budget=50, steps=6, seed=5, progress=False, storage=str(journal))
    assert resumed.metadata["resumed_steps"] == 4
    assert [(t.point, t.quality) for t in resumed.trajectory] == [(t.point, t.quality) for t in full.trajectory]
    assert resumed.features == full.features and resumed.best_point == full.best_point
    # a torn last line (killed while writing) is ignored
    with open(journal, "a") as fh:
        fh.write('{"step": 7, "poi')
    again = metafx.search(X, y, budget=50, steps=6, seed=5, progress=False, storage=str(journal))
    assert again.features == full.features
    # another search refuses the journal
    with pytest.raises(metafx.StorageError, match="different search"):
        metafx.search(X, y, budget=51, steps=6, seed=5, progress=False, storage=str(journal))


@pytest.mark.parametrize("kw,match", [
    (dict(budget=0.5), "below the cheapest feature's cost"),
    (dict(budget=-1), "budget=-1"),
    (dict(budget=math.nan), "budget=nan"),
    (dict(steps=0), "steps=0"),
    (dict(engine="mufsa"), "did you mean 'mufasa'"),
    (dict(evaluator="nope"), "unknown set evaluator"),
    (dict(fixed={"shiftInvLen": 12}), r"shiftInvLen=12 is outside"),
    (dict(seed=-3), "seed=-3"),
])
def test_bad_input_is_a_clear_error(small, kw, match):
    X, y = small
    args = dict(budget=30, steps=2, seed=0, progress=False)
    args.update(kw)
    with pytest.raises(metafx.MetafxError, match=match):
        metafx.search(X, y, **args)


def test_bad_data_is_a_clear_error(small):
    X, y = small
    with pytest.raises(metafx.ValidationError, match="400 samples but y has 399"):
        metafx.search(X, y[:-1], budget=30, steps=1, progress=False)
    with pytest.raises(metafx.ValidationError, match="1 class"):
        metafx.search(X, np.zeros(400), budget=30, steps=1, progress=False)
    with pytest.raises(metafx.ValidationError, match="not binary"):
        metafx.search(X * 3, y, budget=30, steps=1, progress=False)


def test_empty_feature_set_scores_majority():
    ev = metafx.plugin.make_component("set-evaluator", "cv-linear-svm")
    y = np.array([0] * 6 + [1] * 4)
    q = ev.evaluate(metafx.plugin.FeatureValues.from_dense(np.zeros((10, 0))), y, random_state=0)
    assert 0.0 <= q <= 1.0


def _oversampling_problem(small, budget):
    from metafx.loop.problem import SearchProblem

    X, y = small
    fam = metafx.plugin.make_component("family", "pixel-and")
    ev = metafx.plugin.make_component("set-evaluator", "cv-linear-svm")
    return fam, SearchProblem(fam, X, y, ev, budget, oversample=4)


def test_oversample_keeps_the_best_of_a_larger_draw(small):
    from metafx.loop.problem import step_rng

    _X, y = small
    fam, prob = _oversampling_problem(small, 30.0)
    point = {"numInputs": 2, "percentPos": 50, "shiftInvLen": 2, "scatter": 1.5}
    chosen = prob.draw(point, step_rng(1, 2, 3))
    pool = fam.draw(point, 120.0, step_rng(1, 2, 3))  # the same generator draws the same pool
    assert len(pool) == 48 and len(chosen) == 12 and chosen.costs.sum() <= 30
    score = metafx.score_features(fam.compute(prob.prepared, pool), y, "infogain")
    best = np.argsort(-score, kind="stable")[:12]
    assert fam.to_json(chosen) == fam.to_json(pool.take(best))
    d = fam.describe(chosen)
    assert (d["numInputs"] == 2).all() and (d["shiftInvLen"] == 2).all()


def test_search_with_oversample_records_it_and_resumes(small, tmp_path):
    X, y = small
    full = metafx.search(X, y, budget=40, steps=4, seed=2, progress=False, oversample=3)
    assert full.metadata["oversample"] == 3 and full.metadata["prune_by"] == "infogain"
    assert full.total_cost <= 40
    j = tmp_path / "j.jsonl"
    metafx.search(X, y, budget=40, steps=4, seed=2, progress=False, oversample=3, storage=str(j),
                  callbacks=[lambda s, r: r.step < 2])
    again = metafx.search(X, y, budget=40, steps=4, seed=2, progress=False, oversample=3, storage=str(j))
    assert again.features == full.features
    with pytest.raises(metafx.StorageError, match="oversample"):
        metafx.search(X, y, budget=40, steps=4, seed=2, progress=False, oversample=2, storage=str(j))


@pytest.mark.parametrize("kw,match", [
    (dict(oversample=0.5), "oversample=0.5"),
    (dict(oversample=2, prune_by="cv-linear-svm"), "not a per-feature scorer"),
    (dict(oversample=2, prune_by="infogian"), "did you mean 'infogain'"),
    # a misspelt scorer is refused without oversampling too (it would be silently unused)
    (dict(prune_by="infogian"), "did you mean 'infogain'"),
    (dict(prune_by="cv-linear-svm"), "not a per-feature scorer"),
])
def test_bad_oversample(small, kw, match):
    X, y = small
    with pytest.raises(metafx.MetafxError, match=match):
        metafx.search(X, y, budget=30, steps=1, progress=False, **kw)


# ----------------------------------------------------------------- repeated features
def _naive_groups(A):
    keys, group, first, counts = {}, [], [], []
    for j in range(A.shape[1]):
        k = A[:, j].tobytes()
        if k not in keys:
            keys[k] = len(first)
            first.append(j)
            counts.append(0)
        group.append(keys[k])
        counts[keys[k]] += 1
    return np.array(group), np.array(first), np.array(counts)


@pytest.mark.parametrize("m", [1, 63, 64, 130])
def test_duplicate_groups_match_a_naive_grouping(m):
    rng = np.random.default_rng(m)
    A = (rng.random((m, 30)) < 0.5).astype(np.uint8)
    A[:, rng.integers(0, 30, 12)] = A[:, rng.integers(0, 30, 12)]  # many repeats
    ref = _naive_groups(A)
    for v in (metafx.plugin.FeatureValues.from_dense(A), metafx.plugin.FeatureValues(n_samples=m, packed=naive.pack_columns(A))):
        for got, want in zip(v.duplicate_groups(), ref, strict=True):
            assert np.array_equal(got, want)
    g, f, c = metafx.plugin.FeatureValues.from_dense(np.zeros((5, 0))).duplicate_groups()
    assert len(g) == len(f) == len(c) == 0


def test_merging_repeats_gives_the_same_linear_svm():
    from sklearn.svm import LinearSVC

    from metafx.learn.svm import DuplicateMerger, fit_linear_svm

    rng = np.random.default_rng(0)
    A = (rng.random((120, 12)) < 0.4).astype(np.uint8)
    y = (A[:, 0] + A[:, 1] + rng.random(120) > 1.2).astype(int) + 2 * (A[:, 2] > 0)
    A = A[:, [0, 1, 2, 0, 3, 4, 0, 5, 2, 6, 7, 8, 9, 10, 11, 11]]  # repeats of columns 0, 2, 11
    T = (rng.random((50, 16)) < 0.4).astype(np.uint8)  # on new data the repeats differ
    merger = DuplicateMerger().fit(A)
    assert merger.n_groups_ == 12
    M = merger.transform(A)
    M = M.toarray() if hasattr(M, "toarray") else M
    assert np.allclose(M[:, 0], np.sqrt(3) * A[:, 0])
    kw = dict(C=0.5, dual=True, tol=1e-10, max_iter=200000, random_state=0)
    full = LinearSVC(**kw).fit(A.astype(float), y)
    merged = LinearSVC(**kw).fit(M, y)
    Mt = merger.transform(T)
    Mt = Mt.toarray() if hasattr(Mt, "toarray") else Mt
    assert np.allclose(full.decision_function(T.astype(float)), merged.decision_function(Mt), atol=1e-4)
    pipe = fit_linear_svm(A, y, C=0.5)
    assert pipe[-1].C == 0.5 and pipe.predict(T).shape == (50,)
    with pytest.raises(metafx.ValidationError, match="fitted on 16"):
        merger.transform(T[:, :5])


def test_evaluator_merges_repeats_without_changing_the_quality(small):
    X, y = small
    fam = metafx.plugin.make_component("family", "pixel-and").fit(X)
    batch = fam.draw({"numInputs": 1, "percentPos": 50, "shiftInvLen": 1, "scatter": 1.0}, 200.0,
                     np.random.default_rng(0))
    values = fam.compute(fam.prepare(X), batch)
    assert len(values.duplicate_groups()[1]) < len(batch)  # 200 draws of 64 pixels repeat
    kw = dict(tol=1e-8, max_iter=100000)
    a = metafx.plugin.make_component("set-evaluator", "cv-linear-svm", dict(merge_duplicates=True, **kw))
    b = metafx.plugin.make_component("set-evaluator", "cv-linear-svm", dict(merge_duplicates=False, **kw))
    assert a.evaluate(values, y, random_state=3) == pytest.approx(b.evaluate(values, y, random_state=3), abs=0.011)


def test_oversample_drops_repeated_draws(small):
    from metafx.loop.problem import step_rng

    fam, prob = _oversampling_problem(small, 100.0)
    point = {"numInputs": 1, "percentPos": 50, "shiftInvLen": 1, "scatter": 1.0}
    chosen = prob.draw(point, step_rng(0, 1, 1))
    V = fam.compute(prob.prepared, chosen).dense(np.uint8)
    keys = {V[:, j].tobytes() for j in range(V.shape[1])}
    assert len(keys) == V.shape[1] and chosen.costs.sum() <= 100
    # the pool of 400 single pixels holds every distinct column of the 64 pixels (and negations) it drew
    pool = fam.draw(point, 400.0, step_rng(0, 1, 1))
    P = fam.compute(prob.prepared, pool).dense(np.uint8)
    assert len(keys) == min(100, len({P[:, j].tobytes() for j in range(P.shape[1])}))


@pytest.mark.parametrize("dtype", [np.uint8, np.uint64, np.int32, np.float32])
@pytest.mark.parametrize("collide", [False, True])
def test_row_groups_are_numpy_unique_rows(monkeypatch, dtype, collide):
    """Rows are grouped by a 64-bit hash; if different rows share one (forced here), rows are compared instead."""
    from metafx.core import values as values_module

    rng = np.random.default_rng(7)
    rows = (rng.random((25, 7)) < 0.5).astype(dtype)
    rows[10:20] = rows[:10]
    if collide:
        monkeypatch.setattr(values_module, "row_hashes", lambda r: np.zeros(len(r), np.uint64))
    _, first, inverse, counts = np.unique(rows, axis=0, return_index=True, return_inverse=True, return_counts=True)
    f, inv, c = values_module._row_groups(rows)
    # the same groups (the order of groups may differ): map each group to its first row
    assert np.array_equal(np.sort(f), np.sort(first))
    assert np.array_equal(f[inv], first[np.asarray(inverse).reshape(-1)])
    assert sorted(c) == sorted(counts) and len(f) <= 15


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("nan", [False, True])
def test_row_groups_of_real_values_are_numpy_unique_rows(dtype, nan):
    """Real rows are grouped as np.unique groups them: -0.0 with 0.0, never a row holding a NaN with another."""
    from metafx.core import values as values_module

    rng = np.random.default_rng(11)
    rows = np.round(rng.normal(size=(40, 9)), 1).astype(dtype)
    rows[20:35] = rows[:15]
    rows[3, 2], rows[23, 2] = 0.0, -0.0  # equal values of different bytes
    if nan:
        rows[[5, 25], 4] = np.nan  # an equal pair of rows by bytes, never grouped by np.unique
    _, first, inverse, counts = np.unique(rows, axis=0, return_index=True, return_inverse=True, return_counts=True)
    f, inv, c = values_module._row_groups(rows)
    assert np.array_equal(np.sort(f), np.sort(first))
    assert np.array_equal(f[inv], first[np.asarray(inverse).reshape(-1)])
    assert sorted(c) == sorted(counts)
    assert (inv[3] == inv[23]) and (inv[5] != inv[25]) == nan


def test_timeout_stops_between_steps_with_a_valid_result(digits):
    X, y = digits
    res = metafx.search(X[:200], y[:200], budget=30, steps=100000, seed=0, progress=False, timeout=0.5)
    assert res.metadata["stopped"] == "timeout"
    n = len(res.trajectory)
    assert 1 <= n < 100000 and [t.step for t in res.trajectory] == list(range(1, n + 1))
    assert res.total_cost <= 30
    with pytest.raises(metafx.ValidationError, match="timeout"):
        metafx.search(X[:200], y[:200], budget=30, steps=2, progress=False, timeout=0)
