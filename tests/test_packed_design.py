"""Designs straight from packed bits, the ``cv-linear-svm`` settings, and the threaded
pixel-AND kernel's serial/parallel twins (against tests/naive.py)."""

from __future__ import annotations

import naive
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.svm import LinearSVC

import metafx
import metafx.plugin
from metafx._kernels.design import rows_scores, rows_to_csr, transpose_bits
from metafx._kernels.packing import pack_columns, popcount_rows
from metafx._kernels.pixel_and import eval_pixel_and, word_ops
from metafx._kernels.threads import PARALLEL_MIN_WORD_OPS, use_threads
from metafx.core.values import FeatureValues
from metafx.default_plugins import svm_evaluator
from metafx.default_plugins.pixel_families import PixelAndFamily
from metafx.default_plugins.svm_evaluator import CVLinearSVM, _predict
from metafx.learn.svm import design_matrix, grouped_design, merge_matrix


def packed_to_csr(packed, weights, m, rows=None):
    """The CSR arrays of the design whose column g is weights[g] times packed row g (rows: a subset)."""
    return rows_to_csr(transpose_bits(packed, m), weights, rows)


def packed_scores(packed, weights, coef, m, rows=None):
    return rows_scores(transpose_bits(packed, m), weights, coef, rows)


@pytest.mark.parametrize("m", [1, 63, 64, 65, 131])
@pytest.mark.parametrize("n", [0, 1, 9])
def test_packed_to_csr_matches_reference(m, n, rng):
    X = (rng.random((m, n)) < 0.4).astype(np.uint8)
    packed = pack_columns(X)
    w = rng.random(n) + 0.5
    indptr, indices, data = packed_to_csr(packed, w, m)
    got = sp.csr_matrix((data, indices, indptr), shape=(m, n))
    assert got.has_sorted_indices
    np.testing.assert_array_equal(got.toarray(), naive.packed_to_dense_columns(packed, w, m))


def _rows(m, rng, kind):
    return {"all": None, "none": np.zeros(0, dtype=np.intp), "some": np.flatnonzero(rng.random(m) < 0.5),
            "last": np.array([m - 1])}[kind]


@pytest.mark.parametrize("m", [1, 63, 64, 65, 131])
@pytest.mark.parametrize("n", [0, 1, 9])
@pytest.mark.parametrize("kind", ["all", "none", "some", "last"])
def test_packed_rows_and_scores_match_reference(m, n, kind, rng):
    """A subset of the rows of the CSR design, and its product with a weight matrix, from the bits:
    equal to the dense reference's rows, and to SciPy's product of the full CSR's rows value for value."""
    X = (rng.random((m, n)) < 0.4).astype(np.uint8)
    packed = pack_columns(X)
    w = rng.random(n) + 0.5
    rows = _rows(m, rng, kind)
    sel = np.arange(m) if rows is None else rows
    ref = naive.packed_to_dense_columns(packed, w, m)[sel]
    indptr, indices, data = packed_to_csr(packed, w, m, rows=rows)
    got = sp.csr_matrix((data, indices, indptr), shape=(len(sel), n))
    assert got.has_sorted_indices and got.nnz == np.count_nonzero(ref)
    np.testing.assert_array_equal(got.toarray(), ref)
    T = transpose_bits(packed, m)  # the samples' words: bit g of row i is column g of sample i
    assert T.shape == (m, -(-n // 64))
    np.testing.assert_array_equal(
        [[(int(T[i, g // 64]) >> (g % 64)) & 1 for g in range(n)] for i in range(m)], X.reshape(m, n))
    for k in (1, 3):
        coef = rng.normal(size=(k, n))
        scores = packed_scores(packed, w, coef, m, rows)
        assert scores.shape == (len(sel), k)
        np.testing.assert_allclose(scores, ref @ coef.T, rtol=1e-12, atol=1e-12)
        full = sp.csr_matrix(tuple(reversed(packed_to_csr(packed, w, m))), shape=(m, n))
        np.testing.assert_array_equal(scores, np.asarray(full[sel] @ coef.T))  # SciPy's sums, bit for bit


def test_packed_rows_must_be_increasing_indices():
    packed = np.zeros((1, 1), dtype=np.uint64)
    for bad in ([2, 1], [0, 0], [-1], [5]):
        with pytest.raises(ValueError, match="rows must be increasing sample indices in \\[0, 5\\)"):
            packed_to_csr(packed, np.ones(1), 5, rows=np.array(bad))
        with pytest.raises(ValueError, match="rows must be"):
            packed_scores(packed, np.ones(1), np.ones((1, 1)), 5, rows=np.array(bad))


@pytest.mark.parametrize("m,n", [(64, 64), (128, 192), (70, 130)])
def test_transpose_bits_of_whole_blocks(m, n, rng):
    X = (rng.random((m, n)) < 0.5).astype(np.uint8)
    T = transpose_bits(pack_columns(X), m)
    np.testing.assert_array_equal(transpose_bits(T, n)[:, : -(-m // 64)], pack_columns(X))  # twice: the columns again


def test_packed_to_csr_ignores_bits_past_m():
    packed = np.array([[np.uint64(0xFFFFFFFFFFFFFFFF)]], dtype=np.uint64)
    indptr, indices, _data = packed_to_csr(packed, np.ones(1), 5)
    assert list(indptr) == [0, 1, 2, 3, 4, 5] and list(indices) == [0] * 5


@pytest.mark.parametrize("m", [1, 65, 127])
@pytest.mark.parametrize("n", [0, 1, 12])
def test_grouped_design_is_the_merged_design(m, n, rng):
    base = (rng.random((m, max(1, n // 3))) < 0.3).astype(np.uint8)
    X = base[:, rng.integers(0, base.shape[1], n)]  # many duplicate columns
    values = FeatureValues(n_samples=m, packed=pack_columns(X))
    M = grouped_design(values)
    ref = naive.merged_design(X)
    np.testing.assert_allclose(M.toarray(), ref, rtol=1e-12, atol=0)
    assert M.nnz == np.count_nonzero(ref)  # the set bits only: no stored zeros
    old = design_matrix(values, merge_matrix(values))
    np.testing.assert_allclose(old.toarray() if sp.issparse(old) else old, ref, rtol=1e-12)
    # dense (not packed) values take the old path and give the same matrix
    M2 = grouped_design(FeatureValues.from_dense(X))
    np.testing.assert_allclose(M2.toarray() if sp.issparse(M2) else M2, ref, rtol=1e-12)


def _digits_sets(n_sets=3, n=300):
    X, y = metafx.load_dataset("digits")
    fam = PixelAndFamily().fit(X[:n])
    prepared = fam.prepare(X[:n])
    rng = np.random.default_rng(0)
    sets = []
    for k in range(n_sets):
        point = {"numInputs": 1 + k, "percentPos": 50, "shiftInvLen": 1 + k, "scatter": 1.5}
        sets.append(fam.compute(prepared, fam.draw(point, 120, rng)))
    return sets, y[:n]


def test_packed_design_scores_as_the_merge_design():
    sets, y = _digits_sets()
    for values in sets:
        for tol in (1e-3, 0.1):
            a = CVLinearSVM(tol=tol, design="packed").evaluate(values, y, random_state=0)
            b = CVLinearSVM(tol=tol, design="merge").evaluate(values, y, random_state=0)
            assert abs(a - b) <= 0.01  # same model; liblinear's path may differ in the last bits


def test_packed_designs_go_to_the_dual_and_linear_svc_keeps_the_solver_it_is_given(monkeypatch):
    """Packed designs (CSR at every density) go to liblinear's dual solver (``LiblinearOvR``, solver 1,
    LinearSVC's ``dual=True``); ``linear_svc`` chooses by the format only when it is not told which."""
    from metafx.learn import svm

    sets, y = _digits_sets()
    duals, public = [], []
    real_svc = svm.linear_svc
    monkeypatch.setattr(svm, "linear_svc", lambda *a, **k: duals.append(k.get("dual")) or real_svc(*a, **k))
    monkeypatch.setattr(svm_evaluator, "linear_svc", lambda *a, **k: public.append(a))
    for values in sets:
        duals.clear()
        CVLinearSVM().evaluate(values, y, random_state=0)
        assert duals == [True, True] and not public  # two folds, each liblinear's dual
    monkeypatch.undo()
    real = svm.linear_svc
    M = sp.csr_matrix(np.eye(3))
    assert real(0.1, M).dual is True and real(0.1, M.toarray()).dual is False
    assert real(0.1, M, dual=False).dual is False and real(0.1, M.toarray(), dual=True).dual is True


def test_evaluator_empty_set_and_bad_design():
    _, y = _digits_sets(1)
    empty = FeatureValues(n_samples=len(y), packed=np.zeros((0, (len(y) + 63) // 64), dtype=np.uint64))
    _vals, counts = np.unique(y, return_counts=True)
    q = CVLinearSVM().evaluate(empty, y, random_state=0)
    assert 0 < q <= counts.max() / len(y) + 0.02
    with pytest.raises(metafx.ValidationError, match="design='dense'"):
        metafx.plugin.make_component("set-evaluator", "cv-linear-svm", {"design": "dense"})


def test_use_threads_rule(monkeypatch):
    assert use_threads(10, True) and not use_threads(10**12, False)
    assert not use_threads(PARALLEL_MIN_WORD_OPS - 1)
    monkeypatch.setattr("numba.get_num_threads", lambda: 2)
    assert use_threads(PARALLEL_MIN_WORD_OPS)
    monkeypatch.setattr("numba.get_num_threads", lambda: 1)
    assert not use_threads(PARALLEL_MIN_WORD_OPS)


@pytest.mark.parametrize("m", [1, 65, 130])
def test_pixel_and_serial_and_parallel_twins_agree(m, rng):
    images = (rng.random((m, 9, 7)) < 0.35).astype(np.uint8)
    fam = PixelAndFamily().fit(images)
    batch = fam.draw({"numInputs": 3, "percentPos": 50, "shiftInvLen": 3, "scatter": 1.5}, 200, rng)
    prepared = fam.prepare(images)
    args = (prepared["planes"], prepared["width"], batch.rows, batch.cols, batch.neg, batch.k, batch.shift)
    serial = eval_pixel_and(*args, parallel=False)
    parallel = eval_pixel_and(*args, parallel=True)
    np.testing.assert_array_equal(serial, parallel)
    got = FeatureValues(n_samples=m, packed=serial).dense(np.uint8)
    np.testing.assert_array_equal(got, naive.pixel_and_features(images, fam.to_json(batch)))
    assert word_ops(batch.k, batch.shift, 3) == 3 * int(np.sum(batch.k.astype(int) * batch.shift.astype(int) ** 2))


@pytest.mark.parametrize("n_classes", [2, 3, 10])
@pytest.mark.parametrize("sparse", [False, True])
def test_evaluator_prediction_is_the_models(n_classes, sparse, rng):
    X = (rng.random((157, 23)) < 0.3).astype(float)
    y = rng.integers(0, n_classes, 157) * 7 - 3  # labels that are not 0..k-1
    M = sp.csr_matrix(X) if sparse else X
    model = LinearSVC(C=0.1, random_state=0).fit(M[:100], y[:100])
    np.testing.assert_array_equal(_predict(model, M[100:]), model.predict(M[100:]))


def test_stratified_folds_are_kept_per_labels_and_seed(rng):
    from sklearn.model_selection import StratifiedKFold

    from metafx.learn import svm

    y = rng.integers(0, 4, 203)
    want = list(StratifiedKFold(2, shuffle=True, random_state=5).split(np.zeros(203), y))
    first = svm.stratified_folds(y, 2, 5)
    again = svm.stratified_folds(y.copy(), 2, 5)
    for got in (first, again):
        assert all(np.array_equal(a, c) and np.array_equal(b, d) for (a, b), (c, d) in zip(got, want, strict=True))
    assert again[0][0] is first[0][0] and not first[0][0].flags.writeable  # kept, and nobody can change it
    other = svm.stratified_folds(y, 2, 6)
    assert not np.array_equal(other[0][1], first[0][1])
    y2 = y.copy()
    y2[0] = (y2[0] + 1) % 4
    assert svm.stratified_folds(y2, 2, 5)[0][0] is not first[0][0]  # other labels, other folds
    fresh = svm.stratified_folds(y, 2, None)
    assert fresh[0][0].flags.writeable  # no seed: drawn anew, not kept
    with pytest.raises(metafx.ValidationError, match="n_splits=5"):
        svm.stratified_folds(np.array([0, 0, 0, 1, 1, 1]), 5, 1)
    words = np.array(["no", "yes", "maybe"], dtype=object)[y % 3]  # labels of any dtype, objects too
    for labels in (words, words.astype(str)):
        got = svm.stratified_folds(labels, 2, 5)
        want = list(StratifiedKFold(2, shuffle=True, random_state=5).split(np.zeros(203), labels))
        assert all(np.array_equal(a, c) for (a, _), (c, _) in zip(got, want, strict=True))


@pytest.mark.parametrize("n,size,k", [(203, 50, 4), (65, 64, 3), (10, 3, 5), (9, 9, 2), (130, 1, 2), (77, 0, 3)])
def test_stratified_subset_is_proportional_and_distinct(n, size, k, rng):
    from metafx.learn.svm import stratified_subset

    y = rng.integers(0, k, n)
    y[:k] = np.arange(k)  # every class present
    got = stratified_subset(y, size, np.random.default_rng(1))
    assert len(got) == min(size, n) and np.all(np.diff(got) > 0) and got.min(initial=0) >= 0 and got.max(initial=0) < n
    classes, counts = np.unique(y, return_counts=True)
    share = np.array([np.sum(y[got] == c) for c in classes])
    if size >= k:
        assert share.min() >= 1  # no class lost
        assert np.all(np.abs(share - counts * size / n) <= max(1, k))  # proportional up to the minimum of one each
    again = stratified_subset(y, size, np.random.default_rng(1))
    np.testing.assert_array_equal(got, again)
    np.testing.assert_array_equal(stratified_subset(y, n + 5, np.random.default_rng(1)), np.arange(n))


def test_stratified_folds_cap_the_training_parts_only(rng):
    from metafx.learn import svm

    y = rng.integers(0, 3, 301)
    whole = svm.stratified_folds(y, 3, 7)
    capped = svm.stratified_folds(y, 3, 7, max_train=90)
    for (tr, te), (ctr, cte) in zip(whole, capped, strict=True):
        np.testing.assert_array_equal(te, cte)  # test parts whole
        assert len(ctr) == 90 and np.all(np.isin(ctr, tr)) and np.all(np.diff(ctr) > 0)
        assert set(np.unique(y[ctr])) == set(np.unique(y[tr]))
    assert svm.stratified_folds(y, 3, 7, max_train=90)[0][0] is capped[0][0]  # kept under their own key
    assert not np.array_equal(svm.stratified_folds(y, 3, 8, max_train=90)[0][0], capped[0][0])
    big = svm.stratified_folds(y, 3, 7, max_train=1000)
    assert all(np.array_equal(a, c) for (a, _), (c, _) in zip(big, whole, strict=True))


def test_evaluator_max_train_fits_on_the_capped_folds():
    """The capped evaluator's quality is the accuracy of LinearSVC fitted on the capped
    training parts (a naive twin: dense design, scikit-learn's own predict), tested on whole parts."""
    from metafx.learn.svm import stratified_folds

    sets, y = _digits_sets(2)
    for values in sets:
        full = CVLinearSVM(max_train=None, complement=False).evaluate(values, y, random_state=3)
        assert CVLinearSVM(max_train=len(y), complement=False).evaluate(values, y, random_state=3) == full
        got = CVLinearSVM(max_train=60, complement=False).evaluate(values, y, random_state=3)
        M = values.dense(np.float64)
        accs = []
        for tr, te in stratified_folds(y, 2, 3, max_train=60):
            assert len(tr) == 60
            model = LinearSVC(C=0.1, tol=0.1, max_iter=2000, random_state=0).fit(M[tr], y[tr])
            accs.append(np.mean(model.predict(M[te]) == y[te]))
        assert abs(got - np.mean(accs)) <= 0.02  # merged duplicates and CSR: the same model up to liblinear's path
        assert got != full
    for bad in (1, 0, 2.5, "all"):
        with pytest.raises(metafx.ValidationError, match="max_train"):
            metafx.plugin.make_component("set-evaluator", "cv-linear-svm", {"max_train": bad})


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("m", [131, 64])
@pytest.mark.parametrize("max_train", [None, 40])
@pytest.mark.parametrize("complement", [False, True, 0.75])
def test_packed_evaluator_is_the_whole_design_evaluator(n_classes, m, max_train, complement, rng):
    """The fold-wise packed path scores what fitting ``LinearSVC`` on the whole design's training rows
    and calling its ``predict`` on the test rows scores (the reference, value for value); with
    ``complement``, the reference's columns set on more than half the samples are ``sqrt(k) - column``."""
    from metafx.learn.svm import stratified_folds

    base = (rng.random((m, 7)) < np.linspace(0.1, 0.9, 7)).astype(np.uint8)  # some columns mostly set
    X = base[:, rng.integers(0, 7, 20)]  # duplicate columns
    y = rng.integers(0, n_classes, m) * 5 + 1
    y[:n_classes * 2] = np.repeat(np.arange(n_classes) * 5 + 1, 2)  # every class in both folds
    values = FeatureValues(n_samples=m, packed=pack_columns(X))
    got = CVLinearSVM(max_train=max_train, complement=complement).evaluate(values, y, random_state=4)
    D = naive.merged_design(X)
    if complement is not False:
        flip = np.count_nonzero(D, axis=0) > (0.5 if complement is True else complement) * m
        assert flip.any() and not flip.all()
        D[:, flip] = D[:, flip].max(axis=0) - D[:, flip]
    M = sp.csr_matrix(D)
    accs = []
    for tr, te in stratified_folds(y, 2, 4, max_train=max_train):
        model = LinearSVC(C=0.1, tol=0.1, max_iter=2000, dual=True, random_state=0).fit(M[tr], y[tr])
        accs.append(float(np.mean(model.predict(M[te]) == y[te])))
    assert got == float(np.mean(accs))


@pytest.mark.parametrize("m", [1, 4, 63, 64, 65, 130])
def test_complement_dense_flips_rows_set_on_more_than_half(m, rng):
    from metafx.learn.svm import complement_dense, design_matrix

    X = (rng.random((m, 9)) < np.linspace(0.05, 0.95, 9)).astype(np.uint8)
    if m % 2 == 0:
        X[:, 0] = np.arange(m) % 2  # exactly half: kept as it is
    packed = pack_columns(X)
    before = packed.copy()
    got = complement_dense(packed, m)
    np.testing.assert_array_equal(packed, before)  # input not changed
    flip = np.count_nonzero(X, axis=0) * 2 > m
    want = np.where(flip, 1 - X, X)
    np.testing.assert_array_equal(FeatureValues(n_samples=m, packed=got).dense(np.uint8), want)
    assert np.all(popcount_rows(got) * 2 <= m)  # no bit past m was set
    M = design_matrix(FeatureValues.from_dense(X), complement=True)
    np.testing.assert_array_equal(M.toarray() if sp.issparse(M) else M, want)
    # a share: only rows set on more than that share of the samples
    high = complement_dense(packed, m, 0.8)
    flip = np.count_nonzero(X, axis=0) > 0.8 * m
    want = np.where(flip, 1 - X, X)
    np.testing.assert_array_equal(FeatureValues(n_samples=m, packed=high).dense(np.uint8), want)
    M = design_matrix(FeatureValues.from_dense(X), complement=0.8)
    np.testing.assert_array_equal(M.toarray() if sp.issparse(M) else M, want)
    for bad in ("yes", 1, None, 0.4, 1.0, float("nan")):
        with pytest.raises(metafx.ValidationError, match="complement="):
            metafx.plugin.make_component("set-evaluator", "cv-linear-svm", {"complement": bad})
    for good in (False, True, 0.5, 0.9, np.float32(0.95)):
        metafx.plugin.make_component("set-evaluator", "cv-linear-svm", {"complement": good})
