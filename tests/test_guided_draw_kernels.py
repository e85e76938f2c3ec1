"""The kernels of the ``guided`` engine's draw against slow NumPy twins: the pixel-AND sampler (the same numbers
drawn from the generator, the same features, the same generator state after), the negated slots, the first of
repeated features, the redundancy filter at its tolerance, and infogain from counts."""

from __future__ import annotations

import math

import naive_guided
import numpy as np
import pytest

from metafx._kernels.diverse import dense_diverse_prefix, diverse_prefix
from metafx._kernels.draws import EDGE, negated_slots, propose_positions
from metafx._kernels.packing import pack_columns
from metafx._kernels.repeats import first_of_repeats
from metafx._kernels.scoring import mutual_info_from_counts
from metafx.default_plugins.pixel_families import PixelAndFamily, _scatter_of


def _same_state(a: np.random.Generator, b: np.random.Generator) -> bool:
    return a.bit_generator.state == b.bit_generator.state


def _propose_numpy(rng, qr, qc, K, sigma, h, w, target, tol, need):
    """One batch of the sampler in NumPy: four draws, placement, test; the rows accepted or at the edge, in order,
    up to the ``need``-th accepted one."""
    n = len(qr)
    ur = rng.uniform(-0.5, 0.5, (n, 1))
    uc = rng.uniform(-0.5, 0.5, (n, 1))
    zr = rng.standard_normal((n, K))
    zc = rng.standard_normal((n, K))
    pr = np.rint(qr[:, None] + ur + sigma * zr).astype(np.int64)
    pc = np.rint(qc[:, None] + uc + sigma * zc).astype(np.int64)
    fair = ((pr >= 0) & (pr < h) & (pc >= 0) & (pc < w)).all(axis=1)
    fair &= (np.diff(np.sort(pr * w + pc, axis=1), axis=1) != 0).all(axis=1)
    d = np.abs(_scatter_of(pr, pc) - target)
    verdict = np.where(fair & (np.abs(d - tol) < EDGE), 2, np.where(fair & (d <= tol), 1, 0))
    rows = []
    for i in np.flatnonzero(verdict > 0):
        if sum(verdict[j] == 1 for j in rows) >= need:
            break
        rows.append(i)
    rows = np.array(rows, dtype=np.intp)
    return pr[rows].reshape(-1, K), pc[rows].reshape(-1, K), verdict[rows]


@pytest.mark.parametrize("K", [1, 2, 5, 8])
@pytest.mark.parametrize("n", [0, 1, 63, 257])
@pytest.mark.parametrize("need", [0, 1, 5, 1000])
def test_propose_positions_is_the_numpy_batch(K, n, need, rng):
    h, w, target, tol = 11, 9, 1.6, 0.3
    qr, qc = rng.integers(0, h, n), rng.integers(0, w, n)
    for sigma in (0.0, 0.7, 2.3):
        seed = int(rng.integers(1 << 31))
        a, b = np.random.default_rng(seed), np.random.default_rng(seed)
        rows, cols, verdict = propose_positions(a, qr, qc, K, sigma, h, w, target, tol, need)
        pr, pc, v = _propose_numpy(b, qr, qc, K, sigma, h, w, target, tol, need)
        assert rows.shape == cols.shape == (len(v), K) and rows.dtype == np.int64
        np.testing.assert_array_equal(verdict, v)
        np.testing.assert_array_equal(rows, pr)
        np.testing.assert_array_equal(cols, pc)
        assert _same_state(a, b)  # the same numbers were drawn, whatever was placed


def test_propose_positions_leaves_the_edge_to_numpy(rng):
    """A tolerance set at a row's scatter: the kernel marks the row (2) for the caller, as the twin does."""
    h, w, K, sigma, target = 12, 12, 3, 1.2, 1.5
    qr, qc = rng.integers(2, 10, 200), rng.integers(2, 10, 200)
    pr, pc, v = _propose_numpy(np.random.default_rng(7), qr, qc, K, sigma, h, w, target, 50.0, 10**6)
    tol = float(abs(_scatter_of(pr[:1], pc[:1])[0] - target))
    _rows, _cols, verdict = propose_positions(np.random.default_rng(7), qr, qc, K, sigma, h, w, target, tol, 10**6)
    _, _, v = _propose_numpy(np.random.default_rng(7), qr, qc, K, sigma, h, w, target, tol, 10**6)
    np.testing.assert_array_equal(verdict, v)
    assert (verdict == 2).any()


@pytest.mark.parametrize("K,n_pos", [(1, 0), (1, 1), (3, 1), (8, 0), (8, 5), (8, 8)])
@pytest.mark.parametrize("n", [0, 1, 37])
def test_negated_slots_are_the_numpy_argsort(K, n_pos, n):
    a, b = np.random.default_rng(n + K), np.random.default_rng(n + K)
    got = negated_slots(a, n, K, n_pos, 8)
    ref = np.zeros((n, 8), dtype=bool)
    ref[:, :K] = np.argsort(b.random((n, K)), axis=1) >= n_pos
    np.testing.assert_array_equal(got, ref)
    assert _same_state(a, b)
    assert (got[:, :K].sum(1) == K - n_pos).all()


POINTS = [{"numInputs": 1, "percentPos": 0, "shiftInvLen": 2, "scatter": 1.0},
          {"numInputs": 2, "percentPos": 50, "shiftInvLen": 1, "scatter": 1.05},
          {"numInputs": 4, "percentPos": 20, "shiftInvLen": 3, "scatter": 2.4},
          {"numInputs": 8, "percentPos": 60, "shiftInvLen": 5, "scatter": 3.5},
          {"numInputs": 7, "percentPos": 100, "shiftInvLen": 8, "scatter": 1.7}]


@pytest.mark.parametrize("params", [{}, {"window": [3, 20, 2, 17]}, {"location_prior": "ink"},
                                    {"scatter_tol": 0.1}])
@pytest.mark.parametrize("shape", [(28, 28), (13, 9)])
def test_pixel_and_draw_is_the_numpy_twin(params, shape, rng):
    """Whole draws (odd image sizes, a window, the ink prior, a narrow tolerance, odd budgets): the same features
    as the sampler spelt out in NumPy, and the generator in the same state after."""
    h, w = shape
    if "window" in params and h < 28:
        params = {"window": [1, h - 2, 2, w - 1]}
    imgs = (rng.random((40, h, w)) < 0.3).astype(np.uint8)
    fam = PixelAndFamily(**params).fit(imgs)
    twin = PixelAndFamily(**params).fit(imgs)
    for i, pt in enumerate(POINTS if h == 28 else POINTS[:3]):
        for budget in (0.5, 1.0, 37.5, 401.0):
            a, b = np.random.default_rng(i), np.random.default_rng(i)
            got = fam.draw(pt, budget, a)
            ref = naive_guided.pixel_and_draw(twin, pt, budget, b)
            for f, r in zip(("rows", "cols", "neg", "k", "shift"), ref, strict=True):
                np.testing.assert_array_equal(getattr(got, f), r, err_msg=f"{f} at {pt}, budget {budget}")
            assert _same_state(a, b)


@pytest.mark.parametrize("n,m", [(0, 10), (1, 1), (50, 64), (301, 97), (400, 130)])
def test_first_of_repeats_matches_the_reference(n, m, rng):
    D = (rng.random((m, n)) < 0.5).astype(np.uint8)
    if n > 3:
        D[:, rng.integers(0, n, n // 3)] = D[:, rng.integers(0, n, n // 3)]  # repeats, some chained
        D[:, -1] = D[:, 0]
    packed = pack_columns(D)
    got = first_of_repeats(packed)
    ref = naive_guided.first_of_repeats(D) if n else np.zeros(0, bool)
    np.testing.assert_array_equal(got, ref)
    np.testing.assert_array_equal(first_of_repeats(packed.astype(np.int64)), ref)  # any integer words
    if n:
        assert not got[-1] or n == 1 or m == 1


def test_first_of_repeats_edge_cases():
    assert first_of_repeats(np.zeros((3, 0), np.uint64)).tolist() == [True, False, False]
    assert first_of_repeats(np.array([[1, 2], [1, 3], [1, 2], [0, 2]], np.int32)).tolist() == [True, True, False, True]
    with pytest.raises(ValueError, match="2-D integer"):
        first_of_repeats(np.zeros((3, 2), np.float64))


@pytest.mark.parametrize("m", [7, 64, 129])
def test_filter_at_its_limit_matches_the_reference(m, rng):
    """``max_corr`` set exactly at some pairs' |phi| (the kernel's margin, then its exact test, decides): the same
    features as the rule spelt out pair by pair (tests/naive_guided.diverse)."""
    n = 60
    D = (rng.random((m, n)) < rng.uniform(0.05, 0.95, n)).astype(np.uint8)
    D[:, 5] = D[:, 4]  # |phi| = 1
    D[:, 7] = 1 - D[:, 6]  # phi = -1
    D[:, 9] = 0
    ok = [j for j in range(n) if 0 < D[:, j].sum() < m]
    phis = sorted({abs(naive_guided.phi(D[:, a].tolist(), D[:, b].tolist())) for a in ok[:12] for b in ok[:12]
                   if a < b})
    order = rng.permutation(n)
    costs = rng.choice([1.0, 2.5, 5.0], n)
    for max_corr in [phis[len(phis) // 2], phis[-1], 0.5, 1.0]:
        for budget in (20.0, 1e9):
            got = diverse_prefix(pack_columns(D), m, order, costs, budget, max_corr)
            assert got.tolist() == naive_guided.diverse(D, order, costs, budget, max_corr), (max_corr, budget)
    assert diverse_prefix(pack_columns(D), m, order[:0], costs, 10.0, 0.5).shape == (0,)


@pytest.mark.parametrize("m", [9, 64, 131])
def test_filter_at_the_counts_bound_matches_the_reference(m, rng):
    """Pairs whose |phi| is the largest their counts allow (one feature inside the other: ``n11 = min``; two
    disjoint ones, or two that cover every sample: ``n11 = max(0, na + nb - m)``), with ``max_corr`` set exactly
    at their |phi|: the kernel decides these ties as the rule spelt out does (tests/naive_guided.diverse). A test
    in the product form, ``|num| > max_corr * sqrt(...)``, decided some of them the other way."""
    n = 48
    D = (rng.random((m, n)) < rng.uniform(0.05, 0.95, n)).astype(np.uint8)
    for j in range(0, n - 1, 4):
        D[:, j + 1] = D[:, j] & (rng.random(m) < 0.5)  # inside feature j
        D[:, j + 2] = (1 - D[:, j]) & (rng.random(m) < 0.7)  # disjoint from feature j
        D[:, j + 3] = 1 - D[:, j + 2] | (rng.random(m) < 0.3)  # with feature j + 2, covers every sample
    ok = [j for j in range(n) if 0 < D[:, j].sum() < m]
    phis = sorted({abs(naive_guided.phi(D[:, a].tolist(), D[:, a + k].tolist())) for a in ok for k in (1, 2)
                   if a % 4 == 0 and a + k in ok})
    order = rng.permutation(n)
    costs = rng.choice([1.0, 2.5], n)
    for max_corr in [*phis[:: max(1, len(phis) // 6)], 0.3, 0.5]:
        got = diverse_prefix(pack_columns(D), m, order, costs, 1e9, max_corr)
        assert got.tolist() == naive_guided.diverse(D, order, costs, 1e9, max_corr), max_corr


@pytest.mark.parametrize("m", [1, 7, 64, 129, 300])
@pytest.mark.parametrize("kind", ["real", "binary", "few-levels"])
def test_dense_filter_matches_the_python_loop(m, kind, rng):
    """The compiled real-valued filter keeps the features the Python loop the engine ran before kept
    (tests/naive_guided.dense_diverse), on random columns with copies, negated copies, constants and costs
    that leave the budget short; and nothing from an empty order.  (A correlation equal to ``max_corr`` is decided
    by rounding, differently by BLAS and by the kernel: copies have |r| = 1, so ``max_corr`` stays below 1.)"""
    n = 80
    if kind == "real":
        X = rng.standard_normal((m, n)) * rng.uniform(0.1, 10, n)
    elif kind == "binary":
        X = (rng.random((m, n)) < rng.uniform(0.05, 0.95, n)).astype(float)
    else:
        X = rng.integers(0, 3, (m, n)).astype(float)
    X[:, 5] = X[:, 4]
    X[:, 7] = -2 * X[:, 6] + 1
    X[:, 9] = 3.0
    order = rng.permutation(n)
    costs = rng.choice([1.0, 2.5, 5.0], n)
    for max_corr in (0.1, 0.3, 0.5, 0.9, 0.999):
        for budget in (0.5, 20.0, 1e9):
            got = dense_diverse_prefix(X, order, costs, budget, max_corr)
            assert got.tolist() == naive_guided.dense_diverse(X, order, costs, budget, max_corr), (max_corr, budget)
    assert dense_diverse_prefix(X, order[:0], costs, 10.0, 0.5).shape == (0,)
    assert dense_diverse_prefix(X[:, :0], order[:0], costs[:0], 10.0, 0.5).shape == (0,)


def test_dense_and_packed_filters_agree_on_binary_columns(rng):
    """Phi is Pearson's correlation of 0/1 columns: away from the threshold the two filters keep the same."""
    m, n = 257, 120
    D = (rng.random((m, n)) < rng.uniform(0.05, 0.95, n)).astype(np.uint8)
    order, costs = rng.permutation(n), rng.uniform(1, 3, n)
    for max_corr in (0.05, 0.2, 0.5):
        assert (dense_diverse_prefix(D.astype(float), order, costs, 1e9, max_corr).tolist()
                == diverse_prefix(pack_columns(D), m, order, costs, 1e9, max_corr).tolist())


@pytest.mark.parametrize("k", [1, 2, 10])
@pytest.mark.parametrize("pseudo", [0.0, 0.5, 1.0])
def test_infogain_from_counts_matches_the_reference(k, pseudo, rng):
    """Mutual information from class counts against the formula spelt out (one class gives 0), on integer counts
    (the kernel looks their logarithms up) and on counts that are not integers (it takes them one by one)."""
    m = 57
    y = rng.integers(0, k, m)
    y[:k] = np.arange(k)
    D = (rng.random((m, 23)) < rng.uniform(0.0, 1.0, 23)).astype(np.uint8)
    D[:, 0] = 0
    D[:, 1] = 1
    sizes = np.bincount(y, minlength=k).astype(np.float64)
    ones = np.array([[D[y == c, j].sum() for c in range(k)] for j in range(D.shape[1])], dtype=np.float64)
    got = mutual_info_from_counts(ones, sizes, pseudo)
    ref = [_mi_spelt_out(ones[j], sizes, pseudo) for j in range(len(ones))]
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-15)
    if pseudo == 0.0:
        np.testing.assert_allclose(got, [naive_guided.infogain(list(D[:, j]), list(y)) for j in range(D.shape[1])],
                                   rtol=1e-12, atol=1e-15)
    frac = ones * 0.999 + 0.0004  # not integers
    np.testing.assert_allclose(mutual_info_from_counts(frac, sizes, pseudo),
                               [_mi_spelt_out(frac[j], sizes, pseudo) for j in range(len(frac))], rtol=1e-12, atol=1e-15)
    if k == 1:
        assert (got == 0).all()


def _mi_spelt_out(ones, sizes, pseudo):
    """sum over cells of p(x, c) log(p(x, c) / (p(x) p(c))) from the 2 x K table of counts plus ``pseudo``."""
    table = np.stack([sizes - ones, ones]) + pseudo
    total = table.sum()
    out = 0.0
    for x in range(2):
        for c in range(table.shape[1]):
            if table[x, c] > 0:
                p = table[x, c] / total
                out += p * math.log(p / (table[x].sum() / total * table[:, c].sum() / total))
    return max(out, 0.0)
