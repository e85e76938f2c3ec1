"""Set evaluators and nearest-neighbour classifiers against slow references (tests/naive.py)."""

from __future__ import annotations

import naive
import numpy as np
import pytest

import metafx
import metafx.plugin
from metafx.core.exceptions import UnknownComponentError, ValidationError
from metafx.learn.neighbors import (
    AdaptiveNearestNeighbor,
    CondensedNearestNeighbor,
    NearestNeighbor1,
    PotentialFunctionClassifier,
)


def packed(X):
    from metafx._kernels.packing import pack_columns

    return metafx.plugin.FeatureValues(n_samples=X.shape[0], packed=pack_columns(np.asarray(X, dtype=np.uint8)))


def ev(name, **params):
    return metafx.plugin.make_component("set-evaluator", name, params)


def codes_of(y):
    return np.unique(y, return_inverse=True)[1].ravel()


def awkward(rng):
    X = rng.integers(0, 3, (41, 5)).astype(float)  # ties
    y = rng.integers(0, 3, 41)
    X[7] = X[8]
    y[8] = y[7]
    X[10] = X[11]
    y[11] = (y[10] + 1) % 3
    y[20] = 9  # single-member class
    return X, y


# ------------------------------------------------------------------ kernels
@pytest.mark.parametrize("m,n,q", [(1, 3, 4), (37, 5, 11), (65, 67, 9), (10, 0, 3)])
def test_nn_index_matches_naive(rng, m, n, q):
    from metafx._kernels.neighbors import nn_index, nn_index_packed
    from metafx._kernels.packing import pack_columns

    A = rng.integers(0, 2, (m, n)).astype(float)
    B = rng.integers(0, 2, (q, n)).astype(float)
    ref = naive.nn_predict_index(A, B)
    assert np.array_equal(nn_index(A, B)[0], ref)
    rows = lambda Z: pack_columns(np.ascontiguousarray(Z.astype(np.uint8).T))  # noqa: E731
    if n:
        assert np.array_equal(nn_index_packed(rows(A), rows(B))[0], ref)
    Ac, Bc = rng.normal(size=(m, n)), rng.normal(size=(q, n))
    assert np.array_equal(nn_index(Ac, Bc)[0], naive.nn_predict_index(Ac, Bc))


def test_weighted_knn_vote_matches_naive(rng):
    from metafx._kernels.neighbors import weighted_knn_vote

    A = rng.integers(0, 3, (30, 4)).astype(float)
    codes = rng.integers(0, 3, 30)
    B = rng.normal(size=(12, 4))
    W = rng.uniform(0, 1, (12, 4))
    for k in (1, 4, 30, 50):
        assert np.array_equal(weighted_knn_vote(A, codes, 3, B, W, k),
                              naive.weighted_knn_vote(A, codes, 3, B, W, min(k, 30)))


# ------------------------------------------------------------------ loo-1nn, cv-1nn
def test_loo_1nn_matches_naive(rng):
    X, y = awkward(rng)
    ref = naive.loo_1nn_correct(X, codes_of(y)).mean()
    assert ev("loo-1nn").evaluate(X, y) == pytest.approx(ref)
    Xb = rng.integers(0, 2, (70, 66))
    yb = rng.integers(0, 2, 70)
    ref = naive.loo_1nn_correct(Xb.astype(float), yb).mean()
    assert ev("loo-1nn").evaluate(Xb, yb) == pytest.approx(ref)
    assert ev("loo-1nn").evaluate(packed(Xb), yb) == pytest.approx(ref)
    # empty feature set: every instance's nearest is the lowest other index
    assert ev("loo-1nn").evaluate(Xb[:, :0], yb) == pytest.approx(naive.loo_1nn_correct(Xb[:, :0] * 1.0, yb).mean())


def test_cv_1nn_matches_sklearn(rng):
    from sklearn.model_selection import StratifiedKFold
    from sklearn.neighbors import KNeighborsClassifier

    X = rng.normal(size=(90, 4))
    y = (X[:, 0] + 0.5 * rng.normal(size=90) > 0).astype(int) + (X[:, 1] > 1)
    got = ev("cv-1nn", n_splits=3).evaluate(X, y, random_state=4)
    accs = []
    for tr, te in StratifiedKFold(3, shuffle=True, random_state=4).split(X, y):
        accs.append(np.mean(KNeighborsClassifier(1).fit(X[tr], y[tr]).predict(X[te]) == y[te]))
    assert got == pytest.approx(np.mean(accs))
    Xb = (X > 0).astype(np.uint8)
    assert ev("cv-1nn").evaluate(packed(Xb), y, random_state=1) == ev("cv-1nn").evaluate(Xb, y, random_state=1)
    assert ev("cv-1nn").evaluate(X[:, :0], y, random_state=0) == pytest.approx(np.mean(y == np.bincount(y).argmax()),
                                                                               abs=0.05)


@pytest.mark.parametrize("name", ["cv-condensed-1nn", "cv-adaptive-nn", "cv-potential"])
def test_cv_classifier_aliases(rng, name):
    X = rng.normal(size=(80, 3))
    y = (X[:, 0] > 0).astype(int)
    good = ev(name).evaluate(X[:, :1], y, random_state=0)
    bad = ev(name).evaluate(X[:, 1:], y, random_state=0)
    assert 0.85 <= good <= 1.0 and bad < good
    base = ev("cv-1nn", classifier=name[3:].replace("potential", "potential")).evaluate(X[:, :1], y, random_state=0)
    assert base == good


# ------------------------------------------------------------------ margin e(F)
@pytest.mark.parametrize("utility", ["linear", "zero-one", "sigmoid"])
def test_margin_evaluator_matches_naive(rng, utility):
    X, y = awkward(rng)
    codes = codes_of(y)
    ref = naive.margin_evaluation(X, codes, np.ones(5), utility, 0.8)
    assert ev("margin", utility=utility, beta=0.8).evaluate(X, y) == pytest.approx(ref, rel=1e-12)
    assert ev("margin", utility=utility, beta=0.8, average=True).evaluate(X, y) == pytest.approx(ref / 41)
    Xb = rng.integers(0, 2, (66, 70))
    yb = rng.integers(0, 3, 66)
    ref = naive.margin_evaluation(Xb.astype(float), yb, np.ones(70), utility, 0.8)
    assert ev("margin", utility=utility, beta=0.8).evaluate(packed(Xb), yb) == pytest.approx(ref, rel=1e-12)
    assert ev("margin", utility=utility, beta=0.8).evaluate(Xb, yb) == pytest.approx(ref, rel=1e-12)


def test_margin_zero_one_counts_strictly_correct():
    X = np.array([[0.0], [0.0], [1.0], [3.0]])
    y = np.array([0, 1, 1, 1])
    # 0: no hit -> left out; 1: hit 2 (dist 1), miss 0 (dist 0) -> theta = -0.5;
    # 2: hit 1 (dist 1), miss 0 (dist 1) -> theta = 0 (not counted by zero-one); 3: hit 2 (2), miss 0 (3) -> 0.5
    assert ev("margin", utility="zero-one").evaluate(X, y) == 1.0
    assert ev("margin", utility="linear").evaluate(X, y) == pytest.approx(-0.5 + 0.0 + 0.5)
    assert ev("margin", utility="sigmoid", beta=2.0).evaluate(X, y) == pytest.approx(
        sum(1 / (1 + np.exp(-2.0 * t)) for t in (-0.5, 0.0, 0.5)))


# ------------------------------------------------------------------ potential-margin
def test_potential_margin_matches_naive(rng):
    X, y = awkward(rng)
    codes = codes_of(y)
    h, gams = naive.potential_h(X, codes, codes.max() + 1, 1.3)
    assert ev("potential-margin", sigma=1.3).evaluate(X, y) == pytest.approx(-h, rel=1e-10)
    from metafx.default_plugins.set_evaluators import normalized_potential_margins

    np.testing.assert_allclose(normalized_potential_margins(X, codes, codes.max() + 1, 1.3), gams, atol=1e-12)
    # default sigma: sigma^2 = mean squared distance between two instances
    s2 = np.mean([np.sum((X[i] - X[j]) ** 2) for i in range(41) for j in range(41) if i != j])
    h, _ = naive.potential_h(X, codes, codes.max() + 1, np.sqrt(s2))
    assert ev("potential-margin").evaluate(X, y) == pytest.approx(-h, rel=1e-10)


def test_potential_margin_far_points_do_not_underflow(rng):
    X = rng.normal(size=(30, 3)) * 1e3
    y = (X[:, 0] > 0).astype(int)
    v = ev("potential-margin", sigma=0.01).evaluate(X, y)
    assert np.isfinite(v)
    # sigma far below the distances: all normalized potential sits on the nearest instance's class, so the
    # margin is 1 when the 1-NN is right and 0 otherwise (with two classes the second largest is the own one)
    gam = naive.loo_1nn_correct(X, y).astype(float)
    assert v == pytest.approx(gam.mean() - gam.var(ddof=1), abs=1e-9)


# ------------------------------------------------------------------ classifiers
def test_potential_classifier_matches_naive(rng):
    X = rng.normal(size=(40, 3))
    y = rng.integers(0, 3, 40)
    Q = rng.normal(size=(15, 3))
    clf = PotentialFunctionClassifier(sigma=0.9).fit(X, y)
    ref = [np.argmax(naive.class_potentials(X, y, 3, q, 0.9)) for q in Q]
    assert np.array_equal(clf.predict(Q), ref)
    P = clf.predict_proba(Q)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)


@pytest.mark.parametrize("prune", [False, True])
def test_condensed_matches_naive_and_is_consistent(rng, prune):
    for X, y in [
        (rng.normal(size=(120, 2)), None),
        (rng.integers(0, 4, (90, 3)).astype(float), None),
        (np.r_[rng.normal(size=(60, 2)) * 0.3, rng.normal(size=(60, 2)) * 0.3 + 2], None),
    ]:
        if y is None:
            y = (X[:, 0] + X[:, 1] > X[:, :2].mean() * 2).astype(int) + (X[:, 0] > 1.5)
            y = np.where(rng.random(len(y)) < 0.1, 1 - np.minimum(y, 1), y)  # label noise
        clf = CondensedNearestNeighbor(prune=prune).fit(X, y)
        from metafx.learn.neighbors import _drop_conflicts

        keep = _drop_conflicts(X, codes_of(y))
        Xk, ck = X[keep], codes_of(y)[keep]
        ones = np.ones(X.shape[1])
        d2 = [naive.weighted_sqdist(Xk[i], Xk[j], ones) for i in range(len(Xk)) for j in range(len(Xk))
              if ck[i] != ck[j]]
        gamma = np.sqrt(min(d2))
        assert clf.gamma_ == pytest.approx(gamma)
        net = naive.gamma_net(Xk, min(d2))
        assert clf.n_net_ == len(net)
        if prune:
            diam = max(np.linalg.norm(a - b) for a in Xk for b in Xk)
            radii = []
            r = diam
            while r >= gamma:
                radii.append(r)
                r /= 2
            net = naive.prune(Xk, ck, net, radii, gamma)
        assert np.array_equal(clf.support_, np.flatnonzero(keep)[net])
        # consistent: every kept training point is classified correctly by the condensed set
        assert np.array_equal(clf.predict(Xk), y[keep])
        assert len(clf.support_) <= len(Xk)


def test_condensed_prunes_and_handles_conflicts():
    rng = np.random.default_rng(1)
    X = np.r_[rng.normal(size=(200, 2)) * 0.2, rng.normal(size=(200, 2)) * 0.2 + 3]
    y = np.r_[np.zeros(200, int), np.ones(200, int)]
    full = CondensedNearestNeighbor(prune=False).fit(X, y)
    pruned = CondensedNearestNeighbor().fit(X, y)
    assert len(pruned.support_) <= len(full.support_) < 400
    Xc = np.r_[X, X[:3], X[:1]]
    yc = np.r_[y, [1, 1, 1], [1]]  # point 0 appears with label 0 once and label 1 twice
    clf = CondensedNearestNeighbor().fit(Xc, yc)
    assert clf.predict(X[:1])[0] == 1 and np.isfinite(clf.gamma_)
    one = CondensedNearestNeighbor().fit(X[:5], np.zeros(5))
    assert len(one.support_) == 1 and one.predict(X[:2]).tolist() == [0, 0]


def test_adaptive_nn_weights_and_accuracy(rng):
    X = rng.normal(size=(120, 4))
    y = (X[:, 0] > 0).astype(int)
    clf = AdaptiveNearestNeighbor(k=5, kernel="linear").fit(X, y)
    W = clf.feature_weights(X[:20])
    np.testing.assert_allclose(W.sum(axis=1), 1.0)
    assert (W.argmax(axis=1) == 0).mean() > 0.7  # the relevant direction gets the largest weight
    assert np.mean(clf.predict(X) == y) > 0.9
    # K-NN vote with these weights equals the reference vote
    ref = naive.weighted_knn_vote(X, y, 2, X[:20], W, 5)
    assert np.array_equal(clf.predict(X[:20]), ref)
    X3 = rng.normal(size=(90, 3))
    y3 = np.digitize(X3[:, 1], [-0.5, 0.5])
    clf3 = AdaptiveNearestNeighbor(k=3).fit(X3, y3)
    assert np.mean(clf3.predict(X3) == y3) > 0.8 and len(clf3.svms_) == 3


def test_nn1_binary_and_dense_agree(rng):
    X = rng.integers(0, 2, (50, 70))
    y = rng.integers(0, 3, 50)
    Q = rng.integers(0, 2, (9, 70))
    ref = y[naive.nn_predict_index(X.astype(float), Q.astype(float))]
    assert np.array_equal(NearestNeighbor1().fit(X, y).predict(Q), ref)
    assert np.array_equal(NearestNeighbor1().fit(X, y).predict(Q + 0.0), ref)


# ------------------------------------------------------------------ bad input
def test_set_evaluator_bad_params(rng):
    for name, params, match in [
        ("cv-1nn", {"classifier": "svm"}, "classifier="),
        ("cv-1nn", {"n_splits": 1}, "n_splits"),
        ("cv-1nn", {"classifier": "adaptive-nn", "classifier_params": {"k": 0}}, "k="),
        ("cv-1nn", {"classifier_params": {"x": 1}}, "does not take"),
        ("cv-potential", {"classifier_params": {"sigma": -1}}, "sigma"),
        ("margin", {"utility": "cubic"}, "utility"),
        ("margin", {"beta": -1.0}, "beta"),
        ("potential-margin", {"sigma": 0}, "sigma"),
    ]:
        with pytest.raises(ValidationError, match=match):
            ev(name, **params)
    with pytest.raises(UnknownComponentError) as info:
        ev("cv-2nn")
    assert "cv-1nn" in str(info.value) and "margin" in str(info.value)
    X = rng.normal(size=(9, 2))
    with pytest.raises(ValidationError, match="smallest class"):
        ev("cv-1nn", n_splits=3).evaluate(X, np.array([0] * 7 + [1] * 2), random_state=0)
    with pytest.raises(ValidationError, match="samples"):
        ev("margin").evaluate(X, np.zeros(8))


def test_set_evaluators_usable_in_search(digits):
    X, y = digits
    for name in ("margin", "loo-1nn", "cv-1nn"):
        res = metafx.search(X[:300], y[:300], budget=20, steps=2, seed=0, progress=False, evaluator=name)
        assert np.isfinite(res.best_quality) and res.evaluator == name
        assert res.best_quality == max(r.quality for r in res.trajectory)
