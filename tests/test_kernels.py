"""Packed kernels against the NumPy references in tests/naive.py."""

from __future__ import annotations

import naive
import numpy as np
import pytest

from metafx._kernels.packing import pack_columns, popcount_rows, unpack_columns
from metafx.default_plugins.pixel_families import PixelAndFamily


@pytest.mark.parametrize("m", [1, 63, 64, 65, 130, 200])
@pytest.mark.parametrize("p", [0, 1, 7])
def test_pack_matches_reference(m, p, rng):
    X = (rng.random((m, p)) < 0.4).astype(np.uint8)
    P = pack_columns(X)
    np.testing.assert_array_equal(P, naive.pack_columns(X))
    np.testing.assert_array_equal(unpack_columns(P, m), X)
    np.testing.assert_array_equal(popcount_rows(P), X.sum(0))


def test_pack_accepts_bool(rng):
    X = rng.random((70, 3)) < 0.5
    np.testing.assert_array_equal(unpack_columns(pack_columns(X), 70), X.astype(np.uint8))


def _random_specs(rng, n, h, w):
    specs = []
    for _ in range(n):
        k = int(rng.integers(1, 9))
        pos = rng.choice(h * w, size=min(k, h * w), replace=False)
        specs.append({
            "family": "pixel-and",
            "inputs": [[int(q // w), int(q % w), bool(rng.random() < 0.5)] for q in pos],
            "shift": int(rng.integers(1, 9)),
        })
    return specs


@pytest.mark.parametrize("m,h,w", [(1, 5, 5), (63, 6, 7), (64, 8, 8), (131, 9, 6), (200, 12, 12)])
def test_pixel_and_matches_reference(m, h, w, rng):
    images = (rng.random((m, h, w)) < 0.35).astype(np.uint8)
    fam = PixelAndFamily().fit(images)
    specs = _random_specs(rng, 60, h, w)
    batch = fam.from_json(specs)
    got = fam.compute(fam.prepare(images), batch).dense(np.uint8)
    np.testing.assert_array_equal(got, naive.pixel_and_features(images, specs))


def test_pixel_and_empty_batch(rng):
    images = (rng.random((70, 8, 8)) < 0.5).astype(np.uint8)
    fam = PixelAndFamily().fit(images)
    vals = fam.compute(fam.prepare(images), fam.from_json([]))
    assert vals.n_features == 0 and vals.dense().shape == (70, 0)


def test_drawn_features_match_reference(rng):
    images = (rng.random((150, 10, 10)) < 0.3).astype(np.uint8)
    fam = PixelAndFamily().fit(images)
    batch = fam.draw({"numInputs": 4, "percentPos": 25, "shiftInvLen": 3, "scatter": 1.5}, 100, rng)
    got = fam.transform(images, batch)
    np.testing.assert_array_equal(got, naive.pixel_and_features(images, fam.to_json(batch)))


def _accept_numpy(rows, cols, h, w, target, tol):
    """The pixel-AND sampler's acceptance test as NumPy wrote it before the kernel."""
    from metafx.default_plugins.pixel_families import _scatter_of

    ok = ((rows >= 0) & (rows < h) & (cols >= 0) & (cols < w)).all(axis=1)
    ok &= np.abs(_scatter_of(rows, cols) - target) <= tol
    code = np.sort(rows * w + cols, axis=1)
    ok &= (np.diff(code, axis=1) != 0).all(axis=1)
    return ok


@pytest.mark.parametrize("K", [1, 2, 3, 5, 8])
@pytest.mark.parametrize("n", [1, 63, 257])
def test_accept_positions_matches_numpy(K, n, rng):
    """Inside the image, distinct, scatter within tol: the kernel's verdict (with NumPy
    deciding the rows it leaves at the tolerance's edge) is the NumPy test's, also for
    tolerances set exactly at the scatter of some rows."""
    from metafx._kernels.draws import accept_positions
    from metafx.default_plugins.pixel_families import _scatter_of

    h, w = 9, 7
    rows = rng.integers(-1, h + 1, (n, K))
    cols = rng.integers(-1, w + 1, (n, K))
    rows[: n // 3] = np.clip(rows[: n // 3], 0, h - 1)  # many inside, some with repeated positions
    cols[: n // 3] = np.clip(cols[: n // 3], 0, w - 1)
    target = 1.7
    edges = np.abs(_scatter_of(rows, cols) - target)
    fair = _accept_numpy(rows, cols, h, w, target, 100.0)  # inside and distinct
    seen_edge = False
    for tol in (0.0, 0.35, 1.0, float(edges[0]), float(np.sort(edges[fair])[fair.sum() // 2]) if fair.any() else 0.5, 10.0):
        verdict = accept_positions(rows, cols, h, w, target, tol)
        mid = np.flatnonzero(verdict == 2)
        seen_edge |= mid.size > 0
        verdict[mid] = np.abs(_scatter_of(rows[mid], cols[mid]) - target) <= tol
        assert np.array_equal(verdict.astype(bool), _accept_numpy(rows, cols, h, w, target, tol)), tol
    assert seen_edge or not fair.any()  # a tolerance at some row's scatter went to NumPy
    assert accept_positions(rows[:0], cols[:0], h, w, target, 1.0).shape == (0,)


@pytest.mark.parametrize("K", [1, 2, 5, 8])
@pytest.mark.parametrize("n", [0, 1, 63, 257])
def test_place_and_accept_is_the_numpy_placement_bit_for_bit(K, n, rng):
    """The fused kernel places the inputs as NumPy's ``rint(q + u + sigma * z)`` does, bit for bit
    (also at half-integers, where rint rounds to even), and gives accept_positions' verdict on them."""
    from metafx._kernels.draws import accept_positions, place_and_accept

    h, w, target, tol = 11, 9, 1.6, 0.3
    qr, qc = rng.integers(0, h, n), rng.integers(0, w, n)
    ur, uc = rng.uniform(-0.5, 0.5, (n, 1)), rng.uniform(-0.5, 0.5, (n, 1))
    zr, zc = rng.standard_normal((n, K)), rng.standard_normal((n, K))
    if n:
        ur[0, 0], zr[0, 0] = 0.5, 0.0  # a half-integer position: rounds to even
    for sigma in (0.0, 0.7, 2.3):
        pr = np.rint(qr[:, None] + ur + sigma * zr).astype(np.int64)
        pc = np.rint(qc[:, None] + uc + sigma * zc).astype(np.int64)
        rows, cols, verdict = place_and_accept(qr, qc, ur, uc, zr, zc, sigma, h, w, target, tol)
        assert rows.dtype == cols.dtype == np.int64 and rows.shape == cols.shape == (n, K)
        assert np.array_equal(rows, pr) and np.array_equal(cols, pc)
        assert np.array_equal(verdict, accept_positions(pr, pc, h, w, target, tol))
