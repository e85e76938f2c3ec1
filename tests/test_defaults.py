"""The defaults a user gets without asking: the engine, the budget, the steps and the final model
(docs/results/defaults.md, experiments/cnn48/RULE_DEFAULTS_IMAGES.md)."""

from __future__ import annotations

import numpy as np
import pytest

import metafx
import metafx.plugin
from metafx.loop.api import DEFAULT_BUDGET, DEFAULT_STEPS, resolve_budget, resolve_steps


def _family(name="pixel-and"):
    return metafx.plugin.make_component("family", name)


@pytest.mark.parametrize("shape, budget", [((28, 28), 12544.0), ((16, 20), 5120.0), ((15, 28), 3360.0),
                                           ((8, 8), 512.0), ((5, 7), 280.0)])
def test_auto_budget_is_sixteen_per_pixel_on_large_images_and_eight_on_small(shape, budget):
    X = np.zeros((2000, *shape), np.uint8)
    for name in ("pixel-and", "pixels", "pixel-and-local"):
        fam = _family(name)
        assert resolve_budget("auto", fam, fam.check_data(X)) == budget


@pytest.mark.parametrize("n, budget", [(2000, 12544.0), (628, 12544.0), (500, 10000.0), (314, 6280.0), (100, 6272.0)])
def test_the_large_image_budget_stays_within_the_size_check(n, budget):
    """16 per pixel, but at most MAX_FEATURES_PER_SAMPLE (20) features per training image and never below 8 per
    pixel: a default search of a few hundred 28 x 28 images is not refused by the search's size check."""
    from metafx.loop.checks import MAX_FEATURES_PER_SAMPLE

    fam = _family()
    X = fam.check_data(np.zeros((n, 28, 28), np.uint8))
    assert resolve_budget("auto", fam, X) == budget
    assert MAX_FEATURES_PER_SAMPLE == 20


def test_a_family_without_a_rule_gets_the_fixed_default():
    class NoRule(type(_family())):
        def default_budget(self, X):
            return None

    fam = NoRule()
    assert resolve_budget("auto", fam, np.zeros((3, 8, 8), np.uint8)) == DEFAULT_BUDGET == 500.0


@pytest.mark.parametrize("bad", ["abc", "", "Auto ", -1, 0, float("nan"), True])
def test_bad_budgets_are_refused_naming_the_parameter(bad):
    fam = _family()
    with pytest.raises(metafx.ValidationError, match="budget"):
        resolve_budget(bad, fam, np.zeros((3, 8, 8), np.uint8))


def test_search_defaults_and_an_explicit_number_wins():
    X, y = metafx.load_dataset("digits")
    res = metafx.search(X[:200], y[:200], steps=2, seed=0, progress=False)
    assert res.engine == "guided" and res.budget == 512.0 and res.total_cost <= 512.0
    res = metafx.search(X[:200], y[:200], budget=30, steps=2, engine="mufasa", seed=0, progress=False)
    assert res.engine == "mufasa" and res.budget == 30.0


def test_extractor_and_cli_resolve_auto_the_same_way(tmp_path, capsys):
    from metafx.cli import main

    X, y = metafx.load_dataset("digits")
    fx = metafx.MetaFeatureExtractor(steps=2, progress=False).fit(X[:200], y[:200])
    assert fx.result_.budget == 512.0 and fx.get_params()["budget"] == "auto"
    out = tmp_path / "r.json"
    assert main(["search", "--data", "digits", "--n-train", "200", "--n-test", "100", "--steps", "2",
                 "--engine", "mufasa", "--out", str(out)]) == 0
    assert "budget 512 (--budget auto" in capsys.readouterr().err
    assert metafx.SearchResult.from_json(out).budget == 512.0


def test_auto_steps_are_fifteen_on_large_images_and_fifty_otherwise():
    large, small = np.zeros((3, 28, 28), np.uint8), np.zeros((3, 8, 8), np.uint8)
    for name in ("pixel-and", "pixels", "pixel-and-local"):
        fam = _family(name)
        assert resolve_steps("auto", fam, fam.check_data(large)) == 15
        assert resolve_steps("auto", fam, fam.check_data(small)) == DEFAULT_STEPS == 50
    assert resolve_steps(7, _family(), None) == 7

    class NoRule(type(_family())):
        def default_steps(self, X):
            return None

    assert resolve_steps("auto", NoRule(), large) == 50


@pytest.mark.parametrize("bad", ["abc", "", "Auto ", -1, 0, 2.5, True])
def test_bad_steps_are_refused_naming_the_parameter(bad):
    with pytest.raises(metafx.ValidationError, match="steps"):
        resolve_steps(bad, _family(), np.zeros((3, 8, 8), np.uint8))
    X, y = metafx.load_dataset("digits")
    with pytest.raises(metafx.ValidationError, match="steps"):
        metafx.search(X[:50], y[:50], steps=bad, budget=20, progress=False)


def _images28(n=120, seed=0):
    """Two classes of 28 x 28 binary images: a bar left or right, with noise."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2
    X = (rng.random((n, 28, 28)) < 0.05).astype(np.uint8)
    for i in range(n):
        c = 6 if y[i] else 20
        X[i, 4:24, c:c + 3] = 1
    return X, y


def test_the_large_image_defaults_are_the_settings_the_rule_judged():
    """RULE_DEFAULTS_IMAGES2.md ran its arm C with explicit settings on 28 x 28 images: budget 16 per pixel,
    15 steps and a final model on shifted copies; the defaults there must be exactly those (from 628 images on)."""
    X, y = _images28(640)
    auto = metafx.search(X, y, seed=1, progress=False)
    explicit = metafx.search(X, y, budget=16 * 28 * 28, steps=15, seed=1, progress=False)
    assert len(auto.trajectory) == 15 and auto.budget == 12544.0
    assert auto.features == explicit.features
    clf = metafx.FeatureClassifier(auto).fit(X, y)
    shifted = metafx.FeatureClassifier(auto, shift_copies=True).fit(X, y)
    plain = metafx.FeatureClassifier(auto, shift_copies=False).fit(X, y)
    assert clf.shift_copies_ and not plain.shift_copies_
    np.testing.assert_array_equal(clf.coef_, shifted.coef_)
    assert not np.array_equal(clf.coef_, plain.coef_)
    flat = metafx.FeatureClassifier(auto).fit(X.reshape(len(X), -1), y)  # flat images get their copies too
    np.testing.assert_array_equal(flat.coef_, shifted.coef_)


def test_the_small_image_defaults_are_those_of_before():
    """On the 8 x 8 digits the defaults stay budget 8 per pixel, 50 steps, no shifted copies."""
    X, y = metafx.load_dataset("digits")
    X, y = X[:240], y[:240]
    auto = metafx.search(X, y, seed=1, progress=False)
    explicit = metafx.search(X, y, budget=512, steps=50, seed=1, progress=False)
    assert len(auto.trajectory) == 50 and auto.budget == 512.0 and auto.features == explicit.features
    clf = metafx.FeatureClassifier(auto).fit(X, y)
    plain = metafx.FeatureClassifier(auto, shift_copies=False).fit(X, y)
    assert not clf.shift_copies_
    np.testing.assert_array_equal(clf.coef_, plain.coef_)
def test_shift_copies_auto_is_off_for_a_family_that_is_not_images():
    pytest.importorskip("metafx_tabular")
    import pandas as pd

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=120), "b": rng.normal(size=120)})
    y = (X["a"] + 0.3 * rng.normal(size=120) > 0).astype(int).to_numpy()
    res = metafx.search(X, y, family="tabular", budget=20, steps=2, seed=0, progress=False)
    if res.n_features == 0:
        pytest.skip("the tiny search kept no feature")
    clf = metafx.FeatureClassifier(res).fit(X, y)
    assert clf.shift_copies_ is False


@pytest.mark.parametrize("bad", ["yes", 1, None])
def test_bad_shift_copies_are_refused_naming_the_parameter(bad):
    X, y = metafx.load_dataset("digits")
    res = metafx.search(X[:100], y[:100], budget=40, steps=2, seed=0, progress=False)
    with pytest.raises(metafx.ValidationError, match="shift_copies"):
        metafx.FeatureClassifier(res, shift_copies=bad).fit(X[:100], y[:100])
