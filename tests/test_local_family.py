"""The pixel-and-local family: location meta-feature with a 4x4 input window (thesis 5.6)."""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np
import pytest
from naive import pixel_and_features  # tests/ is on sys.path under pytest

import metafx
import metafx.plugin
from metafx.core.exceptions import ValidationError
from metafx.default_plugins.local_families import PixelAndLocalFamily
from metafx.testing import FamilyConformance


def window_of(spec, s=4):
    rows = [r for r, _, _ in spec["inputs"]]
    cols = [c for _, c, _ in spec["inputs"]]
    return min(rows), max(rows), min(cols), max(cols)


@pytest.mark.parametrize("K,pp,x,y", [(1, 100, 1, 1), (2, 50, 25, 25), (3, 33, 10, 4), (8, 0, 13, 20), (5, 60, 7, 7)])
def test_draw_puts_inputs_in_the_window(K, pp, x, y, rng):
    fam = PixelAndLocalFamily(image_shape=(28, 28))
    point = {"numInputs": K, "percentPos": pp, "shiftInvLen": 1, "x": x, "y": y}
    b = fam.draw(point, 50, rng)
    assert len(b) == 50 and b.costs.sum() == 50
    d = fam.describe(b)
    assert (d["numInputs"] == K).all() and (d["percentPos"] == round(100 * round(K * pp / 100) / K)).all()
    for spec in fam.to_json(b):
        r0, r1, c0, c1 = window_of(spec)
        assert y - 1 <= r0 and r1 <= y + 2 and x - 1 <= c0 and c1 <= x + 2
        assert len({(r, c) for r, c, _ in spec["inputs"]}) == K
    if K > 1:  # scatter fixed at 1.5 (achievable in a 4x4 window for every K)
        assert np.abs(d["scatter"] - 1.5).max() <= fam.scatter_tol + 1e-9
    # described location = the inputs' centre of gravity, inside the window
    assert (np.abs(d["x"] - (x + 0.5)) <= 1.5).all() and (np.abs(d["y"] - (y + 0.5)) <= 1.5).all()


def test_space_fixed_and_randomized_dimensions():
    fam = PixelAndLocalFamily(image_shape=(28, 28))
    sp = fam.space()
    assert sp.names == ["numInputs", "percentPos", "shiftInvLen", "scatter", "x", "y"]
    assert sp.fixed == {"scatter": 1.5}
    assert (sp["x"].low, sp["x"].high) == (1, 25)
    loc = PixelAndLocalFamily(image_shape=(28, 28), randomize=("numInputs", "percentPos")).space().with_fixed(
        {"shiftInvLen": 1})
    assert [d.name for d in loc.free] == ["x", "y"] and loc.size == 25 * 25
    ni = PixelAndLocalFamily(image_shape=(28, 28), randomize=("x", "y", "percentPos")).space().with_fixed(
        {"shiftInvLen": 1})
    assert [d.name for d in ni.free] == ["numInputs"] and ni.size == 8
    free = PixelAndLocalFamily(image_shape=(28, 28), scatter=None)
    assert "scatter" not in free.space().fixed and math.isinf(free.space().size)


def test_randomized_meta_features_vary_per_feature(rng):
    fam = PixelAndLocalFamily(image_shape=(28, 28), randomize=("x", "y", "percentPos", "shiftInvLen"))
    b = fam.draw({"numInputs": 3}, 300, rng)
    d = fam.describe(b)
    assert (d["numInputs"] == 3).all()
    assert len(np.unique(d["shiftInvLen"])) > 3 and b.costs.sum() <= 300
    assert np.ptp(d["x"]) > 15 and np.ptp(d["y"]) > 15
    assert len(np.unique(d["percentPos"])) >= 3
    fam2 = PixelAndLocalFamily(image_shape=(28, 28), scatter=None, randomize=LOCAL_ALL)
    b2 = fam2.draw({}, 200, rng)
    assert len(np.unique(fam2.describe(b2)["numInputs"])) == 8


LOCAL_ALL = ("numInputs", "percentPos", "shiftInvLen", "scatter", "x", "y")


def test_unreachable_scatter_gets_the_closest(rng):
    # two inputs in a 4x4 window are at most 3*sqrt(2) apart: scatter <= 2.12
    fam = PixelAndLocalFamily(image_shape=(12, 12), scatter=3.0)
    b = fam.draw({"numInputs": 2, "percentPos": 50, "shiftInvLen": 1, "x": 5, "y": 5}, 10, rng)
    assert np.allclose(fam.describe(b)["scatter"], 1.5 * math.sqrt(2))


def test_values_match_the_naive_reference(digits, rng):
    X, _y = digits
    fam = metafx.plugin.get_registry().get("family", "pixel-and-local")().fit(X)
    assert isinstance(fam, PixelAndLocalFamily)
    b = fam.concat([fam.draw({"numInputs": k, "shiftInvLen": a, "x": 3, "y": 4, "percentPos": 50}, 12, rng)
                    for k in (1, 2, 4) for a in (1, 2)])
    got = fam.transform(X[:130], b)
    np.testing.assert_array_equal(got, pixel_and_features(X[:130], fam.to_json(b)))
    # JSON round trip
    again = fam.from_json(fam.to_json(b))
    np.testing.assert_array_equal(fam.transform(X[:130], again), got)


def test_mufasa_searches_location(digits):
    X, y = digits
    m = (y == 4) | (y == 9)
    res = metafx.search(X[m][:200], y[m][:200], family="pixel-and-local", budget=15, steps=4, seed=1,
                        family_params={"randomize": ["numInputs", "percentPos"]}, fixed={"shiftInvLen": 1},
                        progress=False)
    assert set(res.best_point) == {"shiftInvLen", "scatter", "x", "y"}
    assert res.n_features == 15
    assert res.transform(X[:3]).shape == (3, 15)
    assert res.metadata["space_size"] == res.get_family().space().with_fixed({"shiftInvLen": 1}).size
    qm = metafx.QualityMap(meta_features=["location"]).fit(res.get_family(), X[:300], y[:300],
                                                           features=res.feature_batch()[1])
    assert qm.columns_ == ["x", "y"]


def test_validation():
    # __init__ only stores; check_params (called by make_component, fit and the search) validates
    with pytest.raises(ValidationError, match="randomize"):
        PixelAndLocalFamily(randomize=("colour",)).check_params()
    with pytest.raises(ValidationError, match="scatter=None"):
        PixelAndLocalFamily.create({"randomize": ("scatter",)})
    with pytest.raises(ValidationError, match="window_size"):
        PixelAndLocalFamily(image_shape=(3, 3)).check_params()
    with pytest.raises(ValidationError, match="window_size"):
        PixelAndLocalFamily().fit(np.zeros((2, 3, 3)))
    fam = PixelAndLocalFamily(image_shape=(8, 8), window_size=2)
    with pytest.raises(ValidationError, match="numInputs=5"):
        fam.draw({"numInputs": 5, "x": 3, "y": 3}, 5, np.random.default_rng(0))
    with pytest.raises(ValidationError, match="outside its range"):
        PixelAndLocalFamily(image_shape=(8, 8)).draw({"x": 7}, 5, np.random.default_rng(0))



class TestPixelAndLocalConformance(FamilyConformance):
    family = "pixel-and-local"


class TestPixelAndLocalRandomizedConformance(FamilyConformance):
    family = "pixel-and-local"
    family_params: ClassVar[dict[str, Any]] = {"randomize": ["x", "y", "percentPos"], "scatter": None}
