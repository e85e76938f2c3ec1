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


