"""Per-feature scorers against slow references (tests/naive.py) and scikit-learn."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import mutual_info_score

import metafx
from metafx.exceptions import UnknownComponentError, ValidationError

import naive


def packed(X):
    from metafx._kernels.packing import pack_columns

    return metafx.FeatureValues(n_samples=X.shape[0], packed=pack_columns(np.asarray(X, dtype=np.uint8)))


# ------------------------------------------------------------------ infogain
@pytest.mark.parametrize("m,p,k", [(1, 3, 1), (63, 5, 2), (64, 4, 3), (65, 7, 10), (200, 0, 2), (777, 33, 4)])
def test_class_count_kernels_match_naive(rng, m, p, k):
    from metafx._kernels.scoring import class_masks, dense_binary_class_counts, packed_class_counts

    X = rng.integers(0, 2, (m, p)).astype(np.uint8)
    y = rng.integers(0, k, m)
    ref = naive.class_counts(X, y, k)
    assert np.array_equal(dense_binary_class_counts(X, y, k), ref)
    assert np.array_equal(dense_binary_class_counts(X.astype(bool), y, k), ref)
    from metafx._kernels.packing import pack_columns

    assert np.array_equal(packed_class_counts(pack_columns(X), class_masks(y, k)), ref)


@pytest.mark.parametrize("m,p,k", [(2, 3, 2), (65, 9, 3), (130, 17, 10), (1001, 40, 4)])
def test_infogain_equals_sklearn_mutual_info_score(rng, m, p, k):
    X = rng.integers(0, 2, (m, p))
    X[:, 0] = 0  # a constant column
    if p > 1:
        X[:, 1] = rng.integers(0, 2, m) | (rng.random(m) < 0.9)  # skewed
    y = rng.integers(0, k, m) * 7 - 3  # labels need not be 0..K-1
    ref = np.array([mutual_info_score(y, X[:, j]) for j in range(p)])
    for data in (X, X.astype(np.uint8), X.astype(bool), X.astype(np.float64), packed(X)):
        got = metafx.score_features(data, y, "infogain")
        np.testing.assert_allclose(got, ref, rtol=0, atol=1e-12)


def test_infogain_multivalued_and_single_member_classes(rng):
    m = 97
    X = rng.integers(-2, 4, (m, 6))
    y = rng.integers(0, 5, m)
    y[3] = 99  # a single-member class
    X[10] = X[11]  # duplicate rows
    ref = np.array([mutual_info_score(y, X[:, j]) for j in range(6)])
    np.testing.assert_allclose(metafx.score_features(X, y), ref, atol=1e-12)
    got = metafx.score_features(X, y, pseudo_count=0.5)
    ref_pc = [naive.infogain(X[:, j], y, 0.5) for j in range(6)]
    np.testing.assert_allclose(got, ref_pc, atol=1e-12)
    assert np.isfinite(got).all()


def test_infogain_pseudo_count_binary_alphabet(rng):
    X = rng.integers(0, 2, (70, 8)).astype(np.uint8)
    X[:, 2] = 1  # constant column: its alphabet is still {0, 1}
    y = rng.integers(0, 3, 70)
    ref = [naive.infogain(X[:, j], y, 0.01, values=[0, 1]) for j in range(8)]
    for data in (X, packed(X)):
        np.testing.assert_allclose(metafx.score_features(data, y, pseudo_count=0.01), ref, atol=1e-12)


def test_infogain_median_binarization_and_costs(rng):
    Xc = rng.normal(size=(101, 5))
    y = (Xc[:, 0] + 0.3 * rng.normal(size=101) > 0).astype(int)
    Xb = (Xc > np.median(Xc, axis=0)).astype(int)
    ref = np.array([mutual_info_score(y, Xb[:, j]) for j in range(5)])
    np.testing.assert_allclose(metafx.score_features(Xc, y), ref, atol=1e-12)
    np.testing.assert_allclose(metafx.score_features(Xc, y, binarize="median"), ref, atol=1e-12)
    costs = np.array([1.0, 2.0, 0.5, 4.0, 1.5])
    np.testing.assert_allclose(metafx.score_features(Xc, y, costs=costs), ref / costs, atol=1e-12)
    # a real target is median-binarized too (thesis section 4.3)
    t = Xc[:, 1] * 2 + 0.1 * rng.normal(size=101)
    tb = (t > np.median(t)).astype(int)
    np.testing.assert_allclose(metafx.score_features(Xc, t), [mutual_info_score(tb, Xb[:, j]) for j in range(5)],
                               atol=1e-12)
    # "none": every distinct value is a category
    Xi = rng.integers(0, 3, (101, 2)).astype(float) + 0.5
    np.testing.assert_allclose(metafx.score_features(Xi, y, binarize="none"),
                               [mutual_info_score(y, (2 * Xi[:, j]).astype(int)) for j in range(2)], atol=1e-12)


def test_infogain_one_class_is_zero(rng):
    X = rng.integers(0, 2, (30, 4))
    assert np.array_equal(metafx.score_features(X, np.zeros(30)), np.zeros(4))


def test_infogain_bad_input(rng):
    X = rng.integers(0, 2, (20, 3))
    y = rng.integers(0, 2, 20)
    with pytest.raises(UnknownComponentError, match="registered: .*infogain"):
        metafx.score_features(X, y, "no-such-scorer")
    with pytest.raises(ValidationError, match="pseudo_count"):
        metafx.score_features(X, y, pseudo_count=-1)
    with pytest.raises(ValidationError, match="binarize"):
        metafx.score_features(X, y, binarize="mean")
    with pytest.raises(ValidationError, match="costs"):
        metafx.score_features(X, y, costs=[1, 2])
    with pytest.raises(ValidationError, match="costs"):
        metafx.score_features(X, y, costs=[1, 0, 2])
    with pytest.raises(ValidationError, match="does not take"):
        metafx.score_features(X, y, pseudocount=1)
    with pytest.raises(ValidationError, match="samples"):
        metafx.score_features(X, y[:-1])
    with pytest.raises(ValidationError, match="non-finite"):
        metafx.score_features(np.full((20, 2), np.nan), y)
    with pytest.raises(ValidationError, match="set evaluator"):
        metafx.score_features(X, y, "cv-linear-svm")


def test_top_n_and_select_features(rng):
    X = rng.integers(0, 2, (80, 10))
    y = X[:, 4] ^ (rng.random(80) < 0.1)
    ig = metafx.score_features(X, y)
    order = np.argsort(-ig, kind="stable")
    assert np.array_equal(metafx.select_features(X, y, "top-n", scorer="infogain", n=3), order[:3])
    assert np.array_equal(metafx.select_features(X, y, "infogain", n=3), order[:3])
    assert metafx.select_features(X, y, "infogain")[0] == 4
    assert len(metafx.select_features(X, y, "infogain", n=0)) == 0
    with pytest.raises(ValidationError, match="n="):
        metafx.select_features(X, y, "top-n", n=-1)
    with pytest.raises(UnknownComponentError, match="top-n"):
        metafx.select_features(X, y, "nope")
