"""The pixel-and and pixels families: drawing, meta-features, costs, JSON."""

from __future__ import annotations

import numpy as np
import pytest

import metafx
import metafx.plugin
from metafx.default_plugins.pixel_families import PixelAndFamily, PixelsFamily


@pytest.fixture
def fam():
    return PixelAndFamily(image_shape=(28, 28))


@pytest.mark.parametrize("K,pp,a,s", [(1, 100, 1, 2.0), (2, 50, 2, 1.5), (3, 33, 3, 2.0), (5, 60, 1, 3.0),
                                       (8, 0, 8, 3.5), (4, 100, 4, 1.0)])
def test_draw_satisfies_point(fam, K, pp, a, s, rng):
    point = {"numInputs": K, "percentPos": pp, "shiftInvLen": a, "scatter": s}
    b = fam.draw(point, 300, rng)
    cost = 0.5 * (1 + a * a)
    assert len(b) == int(300 // cost)
    assert b.costs.sum() <= 300
    d = fam.describe(b)
    assert (d["numInputs"] == K).all() and (d["shiftInvLen"] == a).all()
    npos = round(K * pp / 100)
    assert (d["percentPos"] == round(100 * npos / K)).all()
    if K > 1:
        assert np.abs(d["scatter"] - s).max() <= fam.scatter_tol + 1e-9
    # inputs are distinct and inside the image
    for spec in fam.to_json(b):
        pos = [(r, c) for r, c, _ in spec["inputs"]]
        assert len(set(pos)) == K
        assert all(0 <= r < 28 and 0 <= c < 28 for r, c in pos)


def test_draw_is_reproducible(fam):
    p = {"numInputs": 3, "percentPos": 50, "shiftInvLen": 2, "scatter": 2.0}
    a = fam.to_json(fam.draw(p, 100, np.random.default_rng(3)))
    b = fam.to_json(fam.draw(p, 100, np.random.default_rng(3)))
    assert a == b


def test_draw_covers_the_image(fam):
    b = fam.draw({"numInputs": 1, "percentPos": 100, "shiftInvLen": 1, "scatter": 1.0}, 20000,
                 np.random.default_rng(0))
    seen = {(int(r), int(c)) for r, c in zip(b.rows[:, 0], b.cols[:, 0], strict=True)}
    assert len(seen) == 784  # uniform over positions: all pixels drawn


def test_cost_model(fam):
    for a, c in [(1, 1.0), (2, 2.5), (3, 5.0), (8, 32.5)]:
        b = fam.from_json([{"inputs": [[0, 0, False]], "shift": a}])
        assert b.costs[0] == c


def test_budget_smaller_than_a_feature_draws_nothing(fam, rng):
    assert len(fam.draw({"shiftInvLen": 8}, 30, rng)) == 0


def test_json_round_trip_and_validation(fam, rng):
    b = fam.draw({"numInputs": 5}, 50, rng)
    specs = fam.to_json(b)
    assert fam.to_json(fam.from_json(specs)) == specs
    with pytest.raises(metafx.ValidationError, match="outside"):
        fam.from_json([{"inputs": [[28, 0, False]], "shift": 1}])
    with pytest.raises(metafx.ValidationError, match="shift"):
        fam.from_json([{"inputs": [[0, 0, False]], "shift": 9}])
    with pytest.raises(metafx.ValidationError, match="inputs"):
        fam.from_json([{"inputs": [], "shift": 1}])


def test_space_validation(fam):
    space = fam.space()
    with pytest.raises(metafx.ValidationError, match="numInputs=9"):
        space.check_point({"numInputs": 9})
    with pytest.raises(metafx.ValidationError, match="unknown meta-feature"):
        space.check_point({"nInputs": 3})
    fixed = space.with_fixed({"shiftInvLen": 1})
    rng = np.random.default_rng(0)
    for _ in range(20):
        assert fixed.neighbour(fixed.start(), rng)["shiftInvLen"] == 1
        assert fixed.uniform(rng)["shiftInvLen"] == 1


def test_feature_names_are_readable(fam):
    b = fam.from_json([{"inputs": [[1, 2, False], [3, 4, True]], "shift": 2}])
    assert fam.feature_names(b) == ["(p[1,2] & ~p[3,4]) shift 2"]


def test_family_needs_binary_images():
    with pytest.raises(metafx.ValidationError, match="not binary"):
        PixelAndFamily().fit(np.full((3, 4, 4), 7))
    with pytest.raises(metafx.ValidationError, match="NaN"):
        PixelAndFamily().fit(np.full((3, 4, 4), np.nan))
    with pytest.raises(metafx.ValidationError, match="not square"):
        PixelAndFamily().fit(np.zeros((3, 10)))
    fam = PixelAndFamily(image_shape=(2, 5)).fit(np.zeros((3, 10)))
    assert fam.image_shape == [2, 5]


def test_pixels_family_and_describers(rng):
    imgs = (rng.random((20, 6, 6)) < 0.5).astype(np.uint8)
    fam = PixelsFamily().fit(imgs)
    allf = fam.all_features()
    assert len(allf) == 36
    np.testing.assert_array_equal(fam.transform(imgs, allf), imgs.reshape(20, -1))
    reg = metafx.plugin.get_registry()
    loc = reg.get("describer", "location")().describe(fam, allf)
    np.testing.assert_array_equal(loc[:, 0], np.tile(np.arange(6), 6))
    r = reg.get("describer", "r")().describe(fam, allf)
    assert r.shape == (36, 1) and np.isclose(r.min(), np.hypot(0.5, 0.5))
    b = fam.draw({"x": 2, "y": 3}, 5, rng)
    assert len(b) == 5 and np.hypot(b.rows - 3, b.cols - 2).max() <= fam.radius


def test_ink_location_prior_follows_pixel_variance(rng):
    imgs = np.zeros((200, 12, 12), np.uint8)
    imgs[:, 3:6, 6:9] = rng.random((200, 3, 3)) < 0.5  # only this block varies
    fam = PixelAndFamily(location_prior="ink").fit(imgs)
    b = fam.draw({"numInputs": 1, "percentPos": 100, "shiftInvLen": 1, "scatter": 1.0}, 2000, rng)
    inside = (b.rows[:, 0] >= 2) & (b.rows[:, 0] <= 6) & (b.cols[:, 0] >= 5) & (b.cols[:, 0] <= 9)
    assert inside.mean() > 0.9
    assert len(fam.draw({"numInputs": 3, "scatter": 1.5, "shiftInvLen": 1}, 50, rng)) == 50
    with pytest.raises(metafx.ValidationError, match="call fit"):
        PixelAndFamily(image_shape=(12, 12), location_prior="ink").draw({}, 10, rng)
    with pytest.raises(metafx.ValidationError, match="location_prior='x'"):
        metafx.plugin.make_component("family", "pixel-and", {"location_prior": "x"})
    with pytest.raises(metafx.ValidationError, match="location_prior='x'"):  # fit checks the parameters too
        PixelAndFamily(location_prior="x").fit(np.zeros((3, 4, 4)))


def test_draw_random_skips_points_without_features():
    fam = PixelAndFamily(image_shape=(8, 8))
    b = fam.draw_random(400, np.random.default_rng(0))  # some uniform points (8 inputs, scatter 3.5) have no feature
    assert 400 - 32.5 < b.costs.sum() <= 400
    assert len(fam.draw_random(0.5, np.random.default_rng(0))) == 0
