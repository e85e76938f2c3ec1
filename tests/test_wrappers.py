"""forward, backward, sks, r2w2 and relief-f n_neighbors against the slow references of tests/naive_selectors.py."""

from __future__ import annotations

import itertools

import naive_selectors as N
import numpy as np
import pytest

import metafx
import metafx.plugin
from metafx.learn.radius_margin import r2w2_value_and_grad
from metafx.learn.soft_knn import soft_knn_criterion, sq_distances


def _folds(codes, cv, seed):
    from sklearn.model_selection import StratifiedKFold

    fold = np.empty(len(codes), dtype=int)
    for i, (_, test) in enumerate(StratifiedKFold(cv, shuffle=True, random_state=seed).split(codes[:, None], codes)):
        fold[test] = i
    return fold


# ------------------------------------------------------------------ soft k-NN pieces
@pytest.mark.parametrize("m,n,k,beta", [(17, 3, 5, 0.05), (9, 4, 3, 0.5), (23, 2, 30, 0.2), (2, 1, 1, 1.0)])
def test_soft_knn_criterion_matches_reference(m, n, k, beta):
    rng = np.random.default_rng(m)
    X = rng.uniform(-1, 1, (m, n))
    g = rng.normal(size=m)
    ours = soft_knn_criterion(sq_distances(X), g, k, beta)
    assert ours == pytest.approx(N.soft_knn_e(X, g, list(range(n)), k, beta), rel=1e-9, abs=1e-12)


def test_soft_knn_ties_take_the_lower_index():
    X = np.array([[0.0], [1.0], [1.0], [1.0], [5.0]])
    g = np.array([0.0, 1.0, 2.0, 3.0, 4.0])
    for k in (1, 2, 3):
        assert soft_knn_criterion(sq_distances(X), g, k, 0.3) == pytest.approx(N.soft_knn_e(X, g, [0], k, 0.3))


@pytest.mark.parametrize("m,n", [(19, 5), (31, 3), (8, 6)])
def test_sks_matches_reference(m, n):
    rng = np.random.default_rng(n)
    X = rng.uniform(-1, 1, (m, n))
    g = np.sin(3 * X[:, 0]) + 0.3 * rng.normal(size=m)
    ours = metafx.score_features(X, g, "sks")
    np.testing.assert_allclose(ours, N.sks(X, g, 5, 0.05), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(metafx.score_features(X, g, "sks", k=2, beta=0.7), N.sks(X, g, 2, 0.7), rtol=1e-9)


def test_sks_finds_the_non_monotonic_feature():
    rng = np.random.default_rng(1)
    X = rng.uniform(-1, 1, (80, 10))
    g = np.sin(np.pi * X[:, 4])
    assert int(np.argmax(metafx.score_features(X, g, "sks"))) == 4


# ------------------------------------------------------------------ forward / backward
@pytest.mark.parametrize("m,n,n_sel", [(21, 5, None), (21, 5, 3), (13, 4, None), (30, 6, 2)])
def test_forward_soft_knn_matches_reference(m, n, n_sel):
    rng = np.random.default_rng(m + n)
    X = rng.uniform(-1, 1, (m, n))
    g = X[:, 1] * X[:, 2] + 0.1 * rng.normal(size=m)
    sel = metafx.plugin.make_component("selector", "forward", {"n_features_to_select": n_sel, "beta": 0.5})
    ours = sel.select(X, g)
    ref = N.forward(lambda F: N.soft_knn_e(X, g, F, 5, 0.5), n, n_sel)
    assert ours.tolist() == ref
    assert sel.criterion_ == "soft-knn"
    assert all(b >= a for a, b in itertools.pairwise(sel.scores_)) or n_sel is not None


@pytest.mark.parametrize("m,n,n_sel", [(21, 5, None), (17, 4, 2), (25, 3, 1)])
def test_backward_soft_knn_matches_reference(m, n, n_sel):
    rng = np.random.default_rng(m * n)
    X = rng.uniform(-1, 1, (m, n))
    g = np.sin(3 * X[:, 0]) + 0.2 * rng.normal(size=m)
    sel = metafx.plugin.make_component("selector", "backward", {"n_features_to_select": n_sel, "beta": 0.5})
    ours = sel.select(X, g)
    ref, removed = N.backward(lambda F: N.soft_knn_e(X, g, F, 5, 0.5), n, n_sel)
    assert ours.tolist() == ref
    assert sel.eliminated_.tolist() == removed


@pytest.mark.parametrize("cv", [3, 5, "loo"])
@pytest.mark.parametrize("m,n,n_classes", [(31, 6, 2), (40, 5, 3)])
def test_cv_1nn_wrappers_match_reference(cv, m, n, n_classes):
    rng = np.random.default_rng(m + n_classes)
    X = rng.normal(size=(m, n))
    y = rng.integers(0, n_classes, m)
    X[:, 2] += 1.5 * y
    codes = np.unique(y, return_inverse=True)[1]
    fold = np.arange(m) if cv == "loo" else _folds(codes, cv, 7)
    e = lambda F: N.cv_1nn_accuracy(X, codes, F, fold)  # noqa: E731
    fwd = metafx.select_features(X, y, "forward", cv=cv, random_state=7)
    assert fwd.tolist() == N.forward(e, n)
    fwd3 = metafx.select_features(X, y, "forward", cv=cv, random_state=7, n_features_to_select=3)
    assert fwd3.tolist() == N.forward(e, n, 3)
    bwd = metafx.select_features(X, y, "backward", cv=cv, random_state=7)
    assert bwd.tolist() == N.backward(e, n)[0]


def test_forward_with_a_scikit_learn_estimator():
    from sklearn.model_selection import StratifiedKFold, cross_val_score
    from sklearn.tree import DecisionTreeClassifier

    rng = np.random.default_rng(3)
    X = rng.normal(size=(40, 4))
    y = (X[:, 3] > 0).astype(int)
    est = DecisionTreeClassifier(random_state=0)
    sel = metafx.plugin.make_component("selector", "forward", {"estimator": est, "cv": 4, "n_features_to_select": 2})
    out = sel.select(X, y)
    assert out[0] == 3
    skf = StratifiedKFold(4, shuffle=True, random_state=0)
    assert sel.scores_[1] == pytest.approx(cross_val_score(est, X[:, [3]], y, cv=skf).mean())


def test_one_class_and_odd_sizes():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(11, 3))
    # one class: every 1-NN answer is right, nothing improves the empty set
    assert metafx.select_features(X, np.zeros(11, int), "forward").size == 0
    assert metafx.select_features(X, np.zeros(11, int), "backward").size == 0
    # no features
    assert metafx.select_features(X[:, :0], rng.normal(size=11), "forward").size == 0
    assert metafx.score_features(X[:, :0], rng.normal(size=11), "sks").shape == (0,)


def test_bad_input_is_refused():
    X = np.random.default_rng(0).normal(size=(12, 3))
    y = np.array([0] * 10 + [1] * 2)
    with pytest.raises(metafx.ValidationError, match="cv=5"):
        metafx.select_features(X, y, "forward", cv=5)
    for bad in ({"cv": 1}, {"cv": "kfold"}, {"criterion": "aic"}, {"k": 0}, {"beta": 0.0},
                {"n_features_to_select": 0}, {"estimator": "svm"}, {"tol": -1.0}):
        with pytest.raises(metafx.ValidationError):
            metafx.select_features(X, y, "forward", **bad)
    with pytest.raises(metafx.ValidationError, match="two classes"):
        metafx.score_features(X, np.arange(12) % 3, "r2w2")
    with pytest.raises(metafx.ValidationError, match="two classes"):
        metafx.score_features(X, np.zeros(12, int), "r2w2")
    for bad in ({"ridge": 0.0}, {"gamma": "auto"}, {"eta": -1.0}, {"n_iter": -1}):
        with pytest.raises(metafx.ValidationError):
            metafx.score_features(X, y, "r2w2", **bad)
    with pytest.raises(metafx.ValidationError, match="n_neighbors"):
        metafx.score_features(X, y, "relief-f", n_neighbors=0)
    with pytest.raises(metafx.ValidationError, match="2 samples"):
        metafx.score_features(X[:1], [0.5], "sks")


# ------------------------------------------------------------------ R2W2
def test_r2w2_objective_and_gradient_match_reference():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(13, 3))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=13) > 0, 1.0, -1.0)
    s = np.array([1.0, 0.7, 1.3])
    _val, grad, R2, W2 = r2w2_value_and_grad(X, y, s, 0.4, 0.1)
    _rval, rgrad, rR2, rW2 = N.r2w2_objective(X, y, s, 0.4, 0.1)
    assert R2 == pytest.approx(rR2, rel=1e-6)
    assert W2 == pytest.approx(rW2, rel=1e-5)
    np.testing.assert_allclose(grad, rgrad, rtol=1e-4)
    # the envelope-theorem gradient is the derivative of the optimal values
    h = 1e-5
    for f in range(3):
        sp, sm = s.copy(), s.copy()
        sp[f] += h
        sm[f] -= h
        fd = (r2w2_value_and_grad(X, y, sp, 0.4, 0.1)[0] - r2w2_value_and_grad(X, y, sm, 0.4, 0.1)[0]) / (2 * h)
        assert grad[f] == pytest.approx(fd, rel=1e-3, abs=1e-6)


def test_r2w2_matches_reference_loop():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(14, 4))
    y = (X[:, 2] + 0.3 * rng.normal(size=14) > 0).astype(int)
    sc = metafx.plugin.make_component("scorer", "r2w2", {"n_iter": 4, "gamma": 0.3})
    ours = sc.score(X, y)
    ref = N.r2w2(X, np.where(y == 1, 1.0, -1.0), 0.3, 0.1, 4, 0.2)
    np.testing.assert_allclose(ours, ref, rtol=1e-4, atol=1e-5)
    assert all(b < a for a, b in itertools.pairwise(sc.objective_))


# ------------------------------------------------------------------ Relief-F with k neighbours
@pytest.mark.parametrize("k", [1, 2, 4, 30])
@pytest.mark.parametrize("m,n,n_classes", [(23, 5, 2), (37, 4, 3), (15, 7, 4)])
def test_relieff_k_matches_reference(k, m, n, n_classes):
    rng = np.random.default_rng(m + k)
    X = rng.normal(size=(m, n))
    y = rng.integers(0, n_classes, m)
    codes = np.unique(y, return_inverse=True)[1]
    ours = metafx.score_features(X, y, "relief-f", n_neighbors=k)
    np.testing.assert_allclose(ours, N.relieff_k(X, codes, range(m), k), rtol=1e-10, atol=1e-10)
    draws = metafx.score_features(X, y, "relief-f", n_neighbors=k, n_iter=11, random_state=4)
    queries = np.random.default_rng(4).integers(0, m, size=11)
    np.testing.assert_allclose(draws, N.relieff_k(X, codes, queries, k), rtol=1e-10, atol=1e-10)


def test_relieff_k_on_binary_data_with_ties_and_one_class():
    rng = np.random.default_rng(9)
    X = (rng.random((40, 6)) < 0.5).astype(np.uint8)
    y = rng.integers(0, 3, 40)
    codes = np.unique(y, return_inverse=True)[1]
    for k in (1, 3, 10):
        ours = metafx.score_features(X, y, "relief-f", n_neighbors=k)
        np.testing.assert_allclose(ours, N.relieff_k(X.astype(float), codes, range(40), k), atol=1e-10)
    np.testing.assert_array_equal(metafx.score_features(X, np.zeros(40, int), "relief-f", n_neighbors=3), 0.0)


def test_relieff_k1_keeps_todays_results():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(30, 5))
    y = rng.integers(0, 3, 30)
    from metafx._kernels.relieff_k import relieff_k_weights

    np.testing.assert_allclose(metafx.score_features(X, y, "relief-f"),
                               relieff_k_weights(X, np.unique(y, return_inverse=True)[1], 3, np.arange(30), 1),
                               rtol=1e-12)


def test_relieff_k10_agrees_with_skrebate():
    skrebate = pytest.importorskip("skrebate", reason="skrebate (in the test extra) is not installed")
    from scipy.stats import spearmanr

    X, y = metafx.load_dataset("digits")
    X = X.reshape(len(X), -1)[:300].astype(np.float64)
    y = y[:300]
    for yy in ((y >= 5).astype(int), y):
        ref = skrebate.ReliefF(n_neighbors=10, n_jobs=1).fit(X, yy).feature_importances_
        ours = metafx.score_features(X, yy, "relief-f", n_neighbors=10) / X.shape[0]
        ok = np.abs(ours) + np.abs(ref) > 0
        assert spearmanr(ours[ok], ref[ok]).statistic >= 0.99
        assert np.abs(ours - ref).max() <= 0.02


# ------------------------------------------------------------------ gflip-stable
@pytest.mark.parametrize("m,n,sub,thr", [(41, 5, 0.5, 0.75), (30, 4, 0.7, 0.5), (25, 6, 1.0, 1.0)])
def test_gflip_stable_matches_reference(m, n, sub, thr):
    import naive

    rng = np.random.default_rng(m)
    X = rng.normal(size=(m, n))
    y = (X[:, 1] + 0.5 * rng.normal(size=m) > 0).astype(int)
    sel = metafx.plugin.make_component("selector", "gflip-stable",
                                {"n_subsamples": 4, "subsample": sub, "threshold": thr, "random_state": 3})
    ours = sel.select(X, y)
    draw = np.random.default_rng(3)
    size = max(2, int(round(sub * m)))
    counts = np.zeros(n)
    for _ in range(4):
        idx = np.sort(draw.permutation(m)[:size])
        seed = int(draw.integers(0, 2**31 - 1))
        prng = np.random.default_rng(seed)
        perms = [prng.permutation(n) for _ in range(100)]
        F, _ = naive.gflip(X[idx], y[idx], perms)
        counts[F] += 1
    freq = counts / 4
    np.testing.assert_allclose(sel.frequencies_, freq)
    ref = [f for f in np.argsort(-freq, kind="stable") if freq[f] >= thr]
    assert ours.tolist() == ref


def test_gflip_stable_bad_input():
    X = np.zeros((10, 2))
    y = np.arange(10) % 2
    for bad in ({"subsample": 0.0}, {"subsample": 1.5}, {"threshold": 0.0}, {"threshold": 2.0},
                {"n_subsamples": 0}, {"utility": "cubic"}, {"random_state": -1}):
        with pytest.raises(metafx.ValidationError):
            metafx.select_features(X, y, "gflip-stable", **bad)
