"""Dense feature values as plugin families return them: binary ones packed once (so every engine takes its
compiled path), and real-valued decisions summed in a fixed order (so exports match Python bit for bit)."""

from __future__ import annotations

import naive
import numpy as np
import pytest

from metafx._kernels.design import dense_scores
from metafx.core.values import FeatureValues, is_binary, pack_binary


@pytest.mark.parametrize("m", [0, 1, 7, 8, 63, 64, 65, 129, 300])
@pytest.mark.parametrize("p", [0, 1, 5])
@pytest.mark.parametrize("dtype", [bool, np.uint8, np.int64, np.float32, np.float64])
def test_pack_binary_matches_the_reference(m, p, dtype, rng):
    X = (rng.random((m, p)) < rng.uniform(0.05, 0.95)).astype(dtype)
    assert np.array_equal(pack_binary(X), naive.pack_columns(X.astype(np.uint8)))


def test_from_dense_packs_binary_values_only(rng):
    D = (rng.random((70, 9)) < 0.4).astype(np.uint8)
    v = FeatureValues.from_dense(D)
    assert v.packed is not None and np.array_equal(v.packed, naive.pack_columns(D))
    assert v.dense(np.uint8) is D or np.array_equal(v.dense(np.uint8), D)  # the array given is kept
    assert FeatureValues.from_dense(D.astype(bool)).packed is not None
    assert FeatureValues.from_dense(D.astype(float)).packed is not None
    for other in (D + 0.5, D * 2, -D.astype(np.int8), np.where(D, np.nan, 0.0)):
        assert FeatureValues.from_dense(other).packed is None
    assert FeatureValues.from_dense(np.zeros((0, 3))).n_features == 3
    assert is_binary(np.zeros((0, 2))) and not is_binary(np.array(["a"]))


@pytest.mark.parametrize("n, p, k", [(0, 3, 1), (5, 0, 2), (1, 1, 1), (13, 7, 1), (40, 65, 4)])
def test_dense_scores_add_in_feature_order(n, p, k, rng):
    X = rng.normal(size=(n, p)) * rng.choice([1e-8, 1.0, 1e8], size=(n, p))
    W = rng.normal(size=(k, p)) * rng.choice([1e-8, 1.0, 1e8], size=(k, p))
    got = dense_scores(X, W)
    ref = naive.sequential_scores(X, W)
    assert got.shape == (n, k) and np.array_equal(got.view(np.uint64), ref.view(np.uint64))
