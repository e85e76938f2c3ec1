"""Per-feature scorers against slow references (tests/naive.py) and scikit-learn."""

from __future__ import annotations

import naive
import numpy as np
import pytest
from sklearn.metrics import mutual_info_score

import metafx
import metafx.plugin
from metafx.core.exceptions import UnknownComponentError, ValidationError


def packed(X):
    from metafx._kernels.packing import pack_columns

    return metafx.plugin.FeatureValues(n_samples=X.shape[0], packed=pack_columns(np.asarray(X, dtype=np.uint8)))


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
    with pytest.raises(UnknownComponentError, match=r"registered: .*infogain"):
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


# ------------------------------------------------------------------ nearest hit / miss kernels
def datasets(rng):
    """Random data sets with the awkward cases: odd sizes, ties, duplicates, single-member classes."""
    out = []
    X = rng.normal(size=(37, 5))
    y = rng.integers(0, 3, 37)
    out.append(("continuous", X, y))
    Xi = rng.integers(0, 3, (65, 7)).astype(float)  # many ties
    yi = rng.integers(0, 2, 65)
    Xi[5] = Xi[6]  # duplicate rows, same label
    yi[6] = yi[5]
    Xi[8] = Xi[9]  # duplicate rows, other label
    yi[9] = 1 - yi[8]
    out.append(("integer-ties", Xi, yi))
    Xs = rng.normal(size=(23, 4))
    ys = rng.integers(0, 2, 23)
    ys[4] = 7  # single-member class
    out.append(("single-member", Xs, ys))
    out.append(("one-class", rng.normal(size=(9, 3)), np.zeros(9, dtype=int)))
    Xb = rng.integers(0, 2, (70, 67)).astype(float)
    Xb[3] = Xb[4]
    out.append(("binary", Xb, rng.integers(0, 4, 70)))
    out.append(("one-sample-per-class", rng.normal(size=(3, 2)), np.array([0, 1, 2])))
    return out


def codes_of(y):
    from metafx.learn.arrays import encode_labels

    return encode_labels(np.asarray(y))


def rows_packed(X):
    from metafx._kernels.packing import pack_columns

    return pack_columns(np.ascontiguousarray(X.astype(np.uint8).T))


def test_hit_miss_kernels_match_naive(rng):
    from metafx._kernels import margin as K

    for label, X, y in datasets(rng):
        codes, k = codes_of(y)
        w2 = rng.uniform(0, 2, X.shape[1])
        w2[0] = 0.0
        for weights in (np.ones(X.shape[1]), w2):
            hit, miss, dh, dm = K.hit_miss(X, codes, weights)
            ref = [naive.hit_miss(X, codes, weights, i) for i in range(X.shape[0])]
            assert hit.tolist() == [r[0] for r in ref], label
            assert miss.tolist() == [r[1] for r in ref], label
            np.testing.assert_allclose(dh, [r[2] for r in ref], rtol=1e-12)
            np.testing.assert_allclose(dm, [r[3] for r in ref], rtol=1e-12)
            q = np.array([X.shape[0] - 1, 0], dtype=np.int64)
            idx, dist = K.nearest_by_class(X, codes, k, weights, q)
            ridx, rdist = naive.nearest_by_class(X, codes, k, weights, q)
            assert np.array_equal(idx, ridx), label
            np.testing.assert_allclose(dist, rdist, rtol=1e-12)
        if label == "binary":
            R = rows_packed(X)
            hit, miss, dh, dm = K.hit_miss_packed(R, codes)
            ref = [naive.hit_miss(X, codes, np.ones(X.shape[1]), i) for i in range(X.shape[0])]
            assert hit.tolist() == [r[0] for r in ref] and miss.tolist() == [r[1] for r in ref]
            idx, dist = K.nearest_by_class_packed(R, codes, k)
            ridx, rdist = naive.nearest_by_class(X, codes, k, np.ones(X.shape[1]), np.arange(X.shape[0]))
            assert np.array_equal(idx, ridx) and np.array_equal(dist, rdist)


def test_loo_margins_match_naive(rng):
    from metafx._kernels import margin as K

    for label, X, y in datasets(rng):
        codes, _ = codes_of(y)
        w2 = rng.uniform(0, 1, X.shape[1])
        theta, valid = K.loo_margins(X, codes, w2)
        rt, rv = naive.loo_margins(X, codes, w2)
        assert np.array_equal(valid, rv), label
        np.testing.assert_allclose(theta, rt, atol=1e-12)
        assert np.isfinite(theta).all()


def test_empty_feature_set_margins(rng):
    from metafx._kernels import margin as K

    X = np.zeros((6, 0))
    codes = np.array([0, 0, 1, 1, 1, 2])
    theta, valid = K.loo_margins(X, codes, np.zeros(0))
    assert np.array_equal(valid, [True] * 5 + [False]) and np.all(theta == 0)


# ------------------------------------------------------------------ Relief, Relief-F
def test_relief_matches_naive(rng):
    for label, X, y in datasets(rng):
        codes, k = codes_of(y)
        ref = naive.relief(X, codes, range(X.shape[0]))
        got = metafx.score_features(X, y, "relief")
        np.testing.assert_allclose(got, ref, atol=1e-9, err_msg=label)
        assert np.isfinite(got).all()
        ref_f = naive.relieff(X, codes, k, list(range(X.shape[0])))
        np.testing.assert_allclose(metafx.score_features(X, y, "relief-f"), ref_f, atol=1e-9, err_msg=label)
        if label == "binary":
            np.testing.assert_allclose(metafx.score_features(packed(X), y, "relief"), ref, atol=1e-9)
            np.testing.assert_allclose(metafx.score_features(packed(X), y, "relief-f"), ref_f, atol=1e-9)


def test_relief_sampled_and_two_class_relieff(rng):
    X = rng.normal(size=(50, 6))
    y = rng.integers(0, 2, 50)
    codes, _ = codes_of(y)
    q = np.random.default_rng(3).integers(0, 50, size=17)
    np.testing.assert_allclose(metafx.score_features(X, y, "relief", n_iter=17, random_state=3),
                               naive.relief(X, codes, q), atol=1e-9)
    # with two classes Relief-F is Relief
    np.testing.assert_allclose(metafx.score_features(X, y, "relief-f"), metafx.score_features(X, y, "relief"),
                               atol=1e-9)


# ------------------------------------------------------------------ Simba
def test_simba_pass_matches_naive(rng):
    from metafx._kernels import margin as K

    for label, X, y in datasets(rng):
        codes, _ = codes_of(y)
        order = np.concatenate([rng.permutation(X.shape[0]), rng.permutation(X.shape[0])[:5]])
        for name, code in (("linear", 0), ("sigmoid", 2)):
            w = K.simba_pass(X, codes, order, np.ones(X.shape[1]), code, 0.7)
            ref = naive.simba_pass(X, codes, order, np.ones(X.shape[1]), name, 0.7)
            np.testing.assert_allclose(w, ref, rtol=1e-9, atol=1e-12, err_msg=f"{label} {name}")
            assert np.isfinite(w).all()


def test_simba_scorer_keeps_best_restart(rng):
    from metafx.default_plugins.scorers import instance_order

    X = rng.normal(size=(40, 5))
    y = (X[:, 0] * X[:, 1] > 0).astype(int)
    codes, _ = codes_of(y)
    got = metafx.score_features(X, y, "simba", n_restarts=3, random_state=5, utility="sigmoid", beta=2.0)
    r = np.random.default_rng(5)
    best = (-np.inf, None)
    for _ in range(3):
        w = naive.simba_pass(X, codes, instance_order(40, None, r, permutations=True), np.ones(5), "sigmoid", 2.0)
        v = w / np.abs(w).max()
        e = naive.margin_evaluation(X, codes, v, "sigmoid", 2.0)
        if e > best[0]:
            best = (e, v)
    np.testing.assert_allclose(got, best[1] ** 2, rtol=1e-9)
    assert got.max() == 1.0


@pytest.mark.parametrize("name,code", [("linear", 0), ("sigmoid", 2)])
def test_simba_gradient_vs_finite_differences(rng, name, code):
    from metafx._kernels import margin as K

    X = rng.normal(size=(30, 6))
    y = rng.integers(0, 3, 30)
    codes, _ = codes_of(y)
    w = rng.uniform(0.5, 1.5, 6)
    grad = K.simba_gradient(X, codes, w, code, 1.3)
    h = 1e-6
    fd = np.zeros(6)
    for f in range(6):
        wp, wm = w.copy(), w.copy()
        wp[f] += h
        wm[f] -= h
        fd[f] = (naive.margin_evaluation(X, codes, wp, name, 1.3) - naive.margin_evaluation(X, codes, wm, name, 1.3)) / (2 * h)
    np.testing.assert_allclose(grad, fd, rtol=1e-5, atol=1e-7)
    # and it is the sum of the per-instance steps of Algorithm 2
    steps = sum(naive.simba_delta(X, codes, w, i, name, 1.3) for i in range(30))
    np.testing.assert_allclose(grad, steps, rtol=1e-10)


def test_simba_duplicates_and_degenerate_inputs(rng):
    X = np.zeros((6, 3))
    y = np.array([0, 0, 0, 1, 1, 1])
    w = metafx.score_features(X, y, "simba", n_restarts=2)
    assert np.isfinite(w).all()
    X = rng.normal(size=(10, 3))
    X[1] = X[0]
    X[2] = X[3]
    y = np.array([0, 0, 1, 0, 1, 1, 0, 1, 1, 2])
    assert np.isfinite(metafx.score_features(X, y, "simba", n_restarts=2)).all()
    assert metafx.score_features(X[:, :0], y, "simba").shape == (0,)


# ------------------------------------------------------------------ corrcoef
def test_corrcoef(rng):
    X = rng.normal(size=(41, 6))
    X[:, 2] = 3.0  # constant column
    g = X[:, 0] - 2 * X[:, 1] + rng.normal(size=41)
    got = metafx.score_features(X, g, "corrcoef")
    ref = [abs(np.corrcoef(X[:, j], g)[0, 1]) if j != 2 else 0.0 for j in range(6)]
    np.testing.assert_allclose(got, ref, atol=1e-12)
    assert np.all(metafx.score_features(X, np.ones(41), "corrcoef") == 0)
    with pytest.raises(ValidationError, match="numeric"):
        metafx.score_features(X, np.array(["a"] * 41), "corrcoef")


# ------------------------------------------------------------------ RGS
def test_rgs_value_and_gradient_match_naive_and_finite_differences(rng):
    from metafx._kernels import margin as K

    X = rng.normal(size=(25, 4))
    g = np.sin(X[:, 0]) + 0.1 * X[:, 1]
    w = rng.uniform(0.5, 1.5, 4)
    for k in (24, 6):  # k = m - 1: neighbour sets cannot change
        e, grad = K.rgs_value_and_gradient(X, g, w, k, 1.7)
        assert e == pytest.approx(naive.rgs_value(X, g, w, k, 1.7), rel=1e-10)
        ref = sum(naive.rgs_sample_gradient(X, g, w, k, 1.7, i) for i in range(25))
        np.testing.assert_allclose(grad, ref, rtol=1e-8, atol=1e-12)
        h = 1e-6
        fd = np.zeros(4)
        for f in range(4):
            wp, wm = w.copy(), w.copy()
            wp[f] += h
            wm[f] -= h
            fd[f] = (naive.rgs_value(X, g, wp, k, 1.7) - naive.rgs_value(X, g, wm, k, 1.7)) / (2 * h)
        np.testing.assert_allclose(grad, fd, rtol=1e-5, atol=1e-8)


def test_rgs_pass_matches_naive_and_finds_relevant_feature(rng):
    from metafx._kernels import margin as K

    X = rng.normal(size=(31, 5))
    g = X[:, 2] ** 2
    order = rng.permutation(31)
    eta = 1.0 / (1 + 0.1 * np.arange(31))
    w = K.rgs_pass(X, g, order, np.ones(5), 7, 0.9, eta)
    np.testing.assert_allclose(w, naive.rgs_pass(X, g, order, np.ones(5), 7, 0.9, eta), rtol=1e-8)
    X = rng.uniform(-1, 1, (200, 5))
    s = metafx.score_features(X, np.sin(3 * X[:, 3]) + X[:, 1], "rgs", k=15)
    assert set(np.argsort(-s)[:2]) == {1, 3} and s.max() == 1.0


def test_scorer_bad_params(rng):
    X = rng.normal(size=(20, 3))
    y = rng.integers(0, 2, 20)
    for method, params, match in [
        ("relief", {"n_iter": 0}, "n_iter"),
        ("relief", {"n_iter": 2.5}, "n_iter"),
        ("simba", {"utility": "zero-one"}, "utility"),
        ("simba", {"beta": 0}, "beta"),
        ("simba", {"n_restarts": 0}, "n_restarts"),
        ("rgs", {"k": 0}, "k="),
        ("rgs", {"eta": -1}, "eta"),
        ("relief-f", {"foo": 1}, "does not take"),
    ]:
        with pytest.raises(ValidationError, match=match):
            metafx.score_features(X, y, method, **params)
    with pytest.raises(UnknownComponentError) as info:
        metafx.score_features(X, y, "reliefF")
    for name in ("infogain", "relief", "relief-f", "simba", "corrcoef", "rgs"):
        assert name in str(info.value)


def test_simba_beats_relief_on_xor(load_example):
    """Thesis section 3.7.1 in small: Simba finds the three xor features and points closer to (1,1,1,0,...)."""
    ex = load_example("xor_simba_vs_relief")
    target = np.r_[np.ones(3), np.zeros(7)]
    for seed in range(3):
        X, y = ex.xor_data(400, 10, seed)
        ws = np.sqrt(metafx.score_features(X, y, "simba", n_restarts=2, random_state=seed))
        wr = metafx.score_features(X, y, "relief")
        assert ex.top3(ws)
        assert ex.angle(ws, target) < ex.angle(wr, target)


def _infogain_loop(X, codes, n_classes, pseudo):
    """The non-binary branch of ``Infogain`` before it counted columns together: one ``np.unique`` per column."""
    from metafx.default_plugins.scorers import _is_binary, infogain_table

    out = np.empty(X.shape[1])
    for j in range(X.shape[1]):
        col = X[:, j]
        if _is_binary(col):
            inv, n_values = col.astype(np.int64), 2
        else:
            _, inv = np.unique(col, return_inverse=True)
            inv = inv.ravel()
            n_values = int(inv.max()) + 1
        joint = np.bincount(inv * n_classes + codes, minlength=n_values * n_classes)
        out[j] = infogain_table(joint.reshape(n_values, n_classes), pseudo)
    return out


@pytest.mark.parametrize("m", [1, 2, 63, 65, 130])
@pytest.mark.parametrize("pseudo", [0.0, 0.5])
@pytest.mark.parametrize("n_classes", [1, 2, 5])
def test_categorical_infogain_is_a_loop_of_unique(m, pseudo, n_classes, monkeypatch):
    """Columns counted together give each column's own table's infogain (to rounding), for 0/1, integer, real,
    negative, constant, -0.0 and NaN columns, and columns too wide for a block's tables."""
    from metafx.default_plugins import scorers

    rng = np.random.default_rng(m * 10 + n_classes)
    codes = rng.integers(0, n_classes, m)
    cols = [rng.integers(0, 2, m), rng.integers(-3, 5, m), np.round(rng.normal(size=m), 1), np.full(m, 7.0),
            np.ones(m), np.zeros(m), rng.integers(0, 40, m) * 0.5]
    X = np.column_stack(cols + cols[1:3]).astype(np.float64)
    X[0, 2] = -0.0 if m > 1 else X[0, 2]
    X[:, 3][: m // 2] = 0.0  # a 0/1-free column of two values
    X[m // 3, 6] = np.nan
    want = _infogain_loop(X, codes, n_classes, pseudo)
    np.testing.assert_allclose(scorers.categorical_infogain(X, codes, n_classes, pseudo), want, rtol=0, atol=0)
    got = scorers.categorical_infogain(X, codes, n_classes, pseudo)
    assert got[1] == got[7]  # equal columns, equal scores
    monkeypatch.setattr(scorers, "TABLE_CELLS", 2 * n_classes * 4)  # wide columns counted one at a time
    monkeypatch.setattr(scorers, "BLOCK_ENTRIES", 3 * max(m, 1))  # blocks of 3 columns
    np.testing.assert_allclose(scorers.categorical_infogain(X, codes, n_classes, pseudo), want, rtol=0, atol=0)
    for dtype in (np.int64, np.uint8, bool):
        Z = np.column_stack([rng.integers(0, 2 if dtype is bool else 6, m) for _ in range(5)]).astype(dtype)
        np.testing.assert_allclose(scorers.categorical_infogain(Z, codes, n_classes, pseudo),
                                   _infogain_loop(Z, codes, n_classes, pseudo), rtol=0, atol=0)
    big = np.iinfo(np.int64)
    W = np.column_stack([rng.choice([big.min, 0, big.max], m), rng.integers(0, 200, m), rng.integers(-70, 0, m)])
    W = np.column_stack([W, np.where(W[:, 1] > 100, np.inf, -np.inf)])
    for Z in (W, W[:, 1:].astype(np.float64)):  # counted (small integers) and sorted (wide or extreme) columns
        np.testing.assert_array_equal(scorers.categorical_infogain(Z, codes, n_classes, pseudo),
                                      _infogain_loop(Z, codes, n_classes, pseudo))
    assert scorers.categorical_infogain(np.zeros((m, 0)), codes, n_classes, pseudo).shape == (0,)


def test_infogain_of_integer_columns_is_sklearns_mutual_info():
    from sklearn.metrics import mutual_info_score

    rng = np.random.default_rng(3)
    X = rng.integers(0, 9, (300, 40)).astype(np.float64)
    y = rng.integers(0, 4, 300)
    got = metafx.score_features(X, y, "infogain")
    np.testing.assert_allclose(got, [mutual_info_score(y, X[:, j]) for j in range(40)], rtol=1e-10, atol=1e-14)
