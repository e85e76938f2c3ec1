"""Selectors: G-flip against the from-scratch reference, its monotone convergence; top-n."""

from __future__ import annotations

import naive
import numpy as np
import pytest

import metafx
import metafx.plugin
from metafx.core.exceptions import UnknownComponentError, ValidationError
from metafx.default_plugins.selectors import GFlip


def perms_of(seed, n, passes=100):
    rng = np.random.default_rng(seed)
    return [rng.permutation(n) for _ in range(passes)]


def test_distance_matrix_kernels_match_naive(rng):
    from metafx._kernels import margin as K
    from metafx._kernels.packing import pack_columns

    for m, n in [(1, 3), (17, 5), (65, 67), (9, 0)]:
        X = rng.integers(0, 2, (m, n)).astype(float)
        ref = np.array([[naive.weighted_sqdist(a, b, np.ones(n)) for b in X] for a in X])
        assert np.array_equal(K.sq_distance_matrix(X), ref)
        if n:
            R = pack_columns(np.ascontiguousarray(X.astype(np.uint8).T))
            assert np.array_equal(K.sq_distance_matrix_packed(R), ref)


@pytest.mark.parametrize("utility", ["linear", "zero-one", "sigmoid"])
def test_toggle_value_equals_e_of_the_flipped_set(rng, utility):
    from metafx._kernels import margin as K
    from metafx.learn.arrays import utility_code

    X = rng.integers(0, 3, (23, 6)).astype(float)
    y = rng.integers(0, 3, 23)
    y[4] = 5  # single-member class
    code = utility_code(utility)
    F = np.array([True, False, True, False, False, True])
    D = K.sq_distance_matrix(X[:, F])
    assert K.margin_sum_from_D(D, y, code, 0.7) == pytest.approx(
        naive.margin_evaluation(X, y, F.astype(float), utility, 0.7), rel=1e-12, abs=1e-12)
    for f in range(6):
        G = F.copy()
        G[f] = not F[f]
        got = K.gflip_toggle_value(D, X[:, f], -1.0 if F[f] else 1.0, y, code, 0.7)
        assert got == pytest.approx(naive.margin_evaluation(X, y, G.astype(float), utility, 0.7), rel=1e-12,
                                    abs=1e-12)
    D2 = K.toggle_feature(D.copy(), X[:, 1], 1.0)
    assert np.array_equal(D2, K.sq_distance_matrix(X[:, [0, 1, 2, 5]]))


@pytest.mark.parametrize("utility", ["linear", "zero-one", "sigmoid"])
def test_gflip_matches_naive(rng, utility):
    X = rng.integers(0, 3, (31, 7)).astype(float)
    y = (X[:, 0] + X[:, 3] > 2).astype(int)
    y[rng.random(31) < 0.15] ^= 1
    sel = GFlip(utility=utility, beta=0.9, random_state=3)
    got = sel.select(X, y)
    F, hist = naive.gflip(X, y, perms_of(3, 7), utility, 0.9)
    assert np.array_equal(got, np.flatnonzero(F))
    np.testing.assert_allclose(sel.history_[1:], hist, rtol=1e-12, atol=1e-12)


def test_gflip_monotone_convergence_local_maximum(rng):
    X = rng.normal(size=(60, 12))
    y = (X[:, 1] * X[:, 4] > 0).astype(int)
    for utility in ("linear", "zero-one", "sigmoid"):
        sel = GFlip(utility=utility, beta=2.0, random_state=1)
        F = sel.select(X, y)
        h = np.array(sel.history_)
        assert np.all(np.diff(h) >= -1e-9), utility  # e never decreases
        assert sel.converged_ and sel.n_passes_ < 20
        mask = np.zeros(12)
        mask[F] = 1
        e = naive.margin_evaluation(X, y, mask, utility, 2.0)
        assert e == pytest.approx(h[-1], rel=1e-9, abs=1e-9)
        for f in range(12):  # local maximum: no single flip increases e
            g = mask.copy()
            g[f] = 1 - g[f]
            assert naive.margin_evaluation(X, y, g, utility, 2.0) <= e + 1e-9
    sel = GFlip(random_state=0)
    assert set(sel.select(X, y)) >= {1, 4}


def test_gflip_edge_cases(rng):
    y = rng.integers(0, 2, 15)
    assert len(GFlip().select(np.zeros((15, 0)), y)) == 0
    X = np.zeros((15, 3))  # constant features change nothing
    assert len(GFlip().select(X, y)) == 0
    Xb = rng.integers(0, 2, (40, 10))
    Xb[1] = Xb[0]
    yb = Xb[:, 0] ^ Xb[:, 1]
    yb[5] = 2  # single-member class
    from metafx._kernels.packing import pack_columns

    fv = metafx.plugin.FeatureValues(n_samples=40, packed=pack_columns(Xb.astype(np.uint8)))
    a = metafx.select_features(Xb, yb, "gflip")
    assert np.array_equal(a, metafx.select_features(fv, yb, "gflip"))
    sel = GFlip(max_passes=1)
    sel.select(rng.normal(size=(30, 8)), rng.integers(0, 2, 30))
    assert sel.n_passes_ == 1


def test_top_n_by_other_scorers(rng):
    X = rng.normal(size=(60, 5))
    y = (X[:, 3] > 0).astype(int)
    got = metafx.select_features(X, y, "top-n", scorer="relief", n=2)
    r = metafx.score_features(X, y, "relief")
    assert np.array_equal(got, np.argsort(-r, kind="stable")[:2]) and got[0] == 3
    got = metafx.select_features(X, y, "simba", n=1, n_restarts=2)
    assert got.tolist() == [3]
    with pytest.raises(ValidationError, match="scorer_params"):
        metafx.select_features(X, y, "top-n", scorer_params=[1])


def test_selector_bad_params(rng):
    X = rng.normal(size=(10, 2))
    y = rng.integers(0, 2, 10)
    for params, match in [({"utility": "cubic"}, "utility"), ({"max_passes": 0}, "max_passes"),
                          ({"beta": -1}, "beta"), ({"foo": 1}, "does not take")]:
        with pytest.raises(ValidationError, match=match):
            metafx.select_features(X, y, "gflip", **params)
    with pytest.raises(UnknownComponentError) as info:
        metafx.select_features(X, y, "g-flip")
    assert "gflip" in str(info.value) and "top-n" in str(info.value)
    with pytest.raises(ValidationError, match="set evaluator"):
        metafx.select_features(X, y, "margin")
    with pytest.raises(ValidationError, match="scorer='gflip' is a selector, not a per-feature scorer"):
        metafx.select_features(X, y, "top-n", scorer="gflip")
    with pytest.raises(UnknownComponentError, match=r"scorer='nope'.*infogain"):
        metafx.select_features(X, y, "top-n", scorer="nope")
