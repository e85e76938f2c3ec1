"""Every public kernel of metafx/_kernels that no other test names, against its NumPy twin in tests/naive.py, on
random inputs: odd sizes, sample counts that are not a multiple of 64, one class, no features."""

from __future__ import annotations

import naive
import numpy as np
import pytest

from metafx._kernels import compression as kc
from metafx._kernels import margin as km
from metafx._kernels import neighbors as kn
from metafx._kernels import packing as kp
from metafx._kernels import pixel_and as kpa

SIZES = [(1, 3), (2, 1), (7, 5), (33, 4), (65, 3), (70, 0)]


def _data(m: int, n: int, seed: int, binary: bool = False):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, (m, n)).astype(float) if binary else rng.normal(size=(m, n))
    return X, rng


@pytest.mark.parametrize("m, n", SIZES)
@pytest.mark.parametrize("l1", [False, True])
def test_metric_kernels(m, n, l1):
    X, rng = _data(m, n, m * 31 + n)
    B = rng.normal(size=(max(1, m // 2 + 1), n))
    np.testing.assert_allclose(kc.pairwise_metric(X, l1), naive.cross_metric(X, X, l1), atol=1e-12)
    np.testing.assert_allclose(kc.cross_metric(X, B, l1), naive.cross_metric(X, B, l1), atol=1e-12)
    idx, dist = kc.nn_metric(X, B, l1)
    nidx, ndist = naive.nn_metric(X, B, l1)
    np.testing.assert_array_equal(idx, nidx)
    np.testing.assert_allclose(dist, ndist, atol=1e-12)
    full = naive.cross_metric(X, X, l1)
    assert kc.diameter_metric(X, l1) == pytest.approx(full.max() if m > 1 else 0.0, abs=1e-12)
    for c in {0, m - 1, m // 2}:
        assert kc.max_dist_from(X, c, l1) == pytest.approx(full[c].max(), abs=1e-12)


def test_nn_metric_of_an_empty_reference():
    idx, dist = kc.nn_metric(np.zeros((0, 3)), np.ones((2, 3)), False)
    assert list(idx) == [-1, -1] and np.all(np.isinf(dist))


@pytest.mark.parametrize("m, n", [(2, 3), (9, 4), (67, 2), (12, 0)])
def test_neighbour_kernels(m, n):
    X, rng = _data(m, n, 7 * m + n)
    np.testing.assert_allclose(kn.pairwise_dist(X), naive.cross_metric(X, X, False), atol=1e-12)
    for k in range(1, m):
        assert km.knn_mean_sqdist(X, k) == pytest.approx(naive.knn_mean_sqdist(X, k), rel=1e-12, abs=1e-12)
    gamma2 = float(np.median(naive.cross_metric(X, X, False)) ** 2) if n else 0.5
    assert list(kn.net_indices(X, gamma2)) == naive.gamma_net(X, gamma2)
    for n_classes in (1, 3):
        codes = rng.integers(0, n_classes, m)
        radii = np.sort(rng.uniform(0.1, 3.0, 3))[::-1]
        alive = kn.prune_net(kn.pairwise_dist(X), codes, radii, 0.05)
        assert list(np.flatnonzero(alive)) == naive.prune(X, codes, list(range(m)), radii, 0.05)
        B = rng.normal(size=(5, n))
        for sigma in (0.5, 2.0):
            np.testing.assert_allclose(kn.potential_scores(X, codes, n_classes, B, sigma),
                                       naive.normalized_potentials(X, codes, n_classes, B, sigma), atol=1e-9)
            np.testing.assert_allclose(kn.loo_potential_scores(X, codes, n_classes, sigma),
                                       naive.normalized_potentials(X, codes, n_classes, X, sigma, loo=True), atol=1e-9)


def test_potentials_of_a_lone_point_are_zero():
    assert not kn.loo_potential_scores(np.ones((1, 2)), np.array([0]), 2, 1.0).any()


@pytest.mark.parametrize("m, n", [(5, 3), (64, 7), (65, 7), (130, 1), (9, 0)])
def test_relief_kernels(m, n):
    X, rng = _data(m, n, m + 100 * n)
    for n_classes in (1, 2, 4):
        codes = rng.integers(0, n_classes, m)
        queries = rng.choice(m, size=min(m, 6), replace=False)
        idx, _ = naive.nearest_by_class(X, codes, n_classes, np.ones(n), queries)
        idx = np.asarray(idx, np.int64)
        hit = np.array([idx[q, codes[i]] for q, i in enumerate(queries)])
        miss = np.array([next((idx[q, c] for c in range(n_classes) if c != codes[i] and idx[q, c] >= 0), -1)
                         for q, i in enumerate(queries)])
        np.testing.assert_allclose(km.relief_weights(X, queries, hit, miss), naive.relief_from(X, queries, hit, miss),
                                   atol=1e-9)
        np.testing.assert_allclose(km.relieff_weights(X, codes, queries, idx),
                                   naive.relieff_from(X, codes, queries, idx), atol=1e-9)


@pytest.mark.parametrize("m, n", [(5, 3), (64, 70), (65, 129), (130, 1)])
def test_loo_margins_on_packed_rows(m, n):
    X, rng = _data(m, n, 3 * m + n, binary=True)
    for n_classes in (1, 3):
        codes = rng.integers(0, n_classes, m)
        theta, valid = km.loo_margins_packed(naive.pack_columns(X.T), codes)
        ntheta, nvalid = naive.loo_margins(X, codes, np.ones(n))
        np.testing.assert_array_equal(valid, nvalid)
        np.testing.assert_allclose(theta[valid], ntheta[nvalid], atol=1e-12)


@pytest.mark.parametrize("m", [1, 63, 64, 65, 200])
def test_packing_sizes_and_planes(m):
    assert kp.n_words(m) == -(-m // 64)
    r = m % 64
    assert int(kp.tail_mask(m)) == (2 ** 64 - 1 if r == 0 else 2 ** r - 1)
    rng = np.random.default_rng(m)
    images = rng.integers(0, 2, (m, 5, 3)).astype(np.uint8)
    np.testing.assert_array_equal(kpa.make_planes(images), naive.planes(images, kpa.PAD))
