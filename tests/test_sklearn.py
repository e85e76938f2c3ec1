"""MetaFeatureExtractor: scikit-learn's estimator checks, Pipeline, GridSearchCV, pickling."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import Pipeline
from sklearn.svm import LinearSVC
from sklearn.utils.estimator_checks import parametrize_with_checks

import metafx
from metafx import MetaFeatureExtractor, ValidationError
from metafx.default_plugins.pixel_families import PixelAndFamily

# Small budgets and two steps keep every check fast.  ``threshold=0.0`` binarizes
# the checks' continuous data (X >= 0), so every check runs on meaningful binary
# images; ``numInputs`` is fixed to 1 for pixel-and because several checks use
# one- or two-pixel "images", where AND-ing 3 distinct pixels is impossible and
# the drawn feature set would be empty (an empty output would pass the checks
# vacuously).  No check needs to be marked as an expected failure.
# The default engine (guided) is checked with the shift held at 1 as well: on a 1 x 3 "image" a shift of 2 leaves
# no room for a feature, and guided keeps the empty set when it scores best, as it may on the checks' noise.
CHECKED = [
    MetaFeatureExtractor(budget=6, steps=2, threshold=0.0, fixed={"numInputs": 1, "shiftInvLen": 1}),
    MetaFeatureExtractor(budget=6, steps=2, threshold=0.0, fixed={"numInputs": 1}, engine="mufasa"),
    MetaFeatureExtractor(family="pixels", budget=4, steps=2, threshold=0.0),
]


@parametrize_with_checks(CHECKED)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_checked_instances_produce_features():
    """The checked configurations output real features on check-like data (not an empty set)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3))
    y = np.repeat([0, 1, 2], 10)
    for est in CHECKED:
        out = clone(est).fit(X, y).transform(X)
        assert out.shape[0] == 30 and out.shape[1] >= 1


@pytest.fixture(scope="module")
def digits_small(digits):
    X, y = digits
    return X[:400], y[:400], X[400:600], y[400:600]


@pytest.fixture(scope="module")
def fitted(digits_small):
    X, y, _, _ = digits_small
    return MetaFeatureExtractor(budget=30, steps=3, seed=1).fit(X, y)


def test_fit_transform_attributes(fitted, digits_small):
    _X, _y, Xt, _ = digits_small
    fx = fitted
    out = fx.transform(Xt)
    assert out.shape == (200, fx.n_features_out_) and fx.n_features_out_ > 0
    assert out.dtype == np.uint8 and set(np.unique(out)) <= {0, 1}
    assert fx.n_features_in_ == 64 and fx.image_shape_ == (8, 8)
    assert fx.best_point_ == fx.result_.best_point and fx.features_ == fx.result_.features
    assert fx.best_quality_ == pytest.approx(max(r.quality for r in fx.result_.trajectory))
    assert fx.result_.total_cost <= 30 + 1e-9
    # the same values as the result itself and as flat rows
    np.testing.assert_array_equal(out, fx.result_.transform(Xt))
    np.testing.assert_array_equal(out, fx.transform(Xt.reshape(len(Xt), -1)))


def test_feature_names_are_readable(fitted):
    names = fitted.get_feature_names_out()
    assert len(names) == fitted.n_features_out_ and len(set(names)) == len(names)
    batch = fitted.family_.from_json(fitted.features_)
    assert list(names[:1]) == fitted.family_.feature_names(batch)[:1]
    assert all("p[" in n for n in names)
    shifts = [f["shift"] for f in fitted.features_]
    assert all(("shift" in n) == (s > 1) for n, s in zip(names, shifts, strict=True))


def test_pickle_round_trip(fitted, digits_small):
    _, _, Xt, _ = digits_small
    again = pickle.loads(pickle.dumps(fitted))
    np.testing.assert_array_equal(again.transform(Xt), fitted.transform(Xt))
    assert list(again.get_feature_names_out()) == list(fitted.get_feature_names_out())
    assert again.result_ == fitted.result_


def test_deterministic_and_seed_matters(digits_small):
    X, y, _Xt, _ = digits_small
    a = MetaFeatureExtractor(budget=20, steps=2, seed=3).fit(X, y)
    b = MetaFeatureExtractor(budget=20, steps=2, seed=3).fit(X, y)
    c = MetaFeatureExtractor(budget=20, steps=2, seed=4).fit(X, y)
    assert a.features_ == b.features_
    assert a.features_ != c.features_


def test_pipeline_and_grid_search_over_budget(digits_small):
    X, y, Xt, yt = digits_small
    pipe = Pipeline([("fx", MetaFeatureExtractor(steps=2, seed=0)), ("svm", LinearSVC(C=0.1))])
    grid = GridSearchCV(pipe, {"fx__budget": [10, 40]}, cv=2)
    grid.fit(X, y)
    assert grid.best_params_["fx__budget"] in (10, 40)
    scores = grid.cv_results_["mean_test_score"]
    assert np.all(np.isfinite(scores))
    # more budget means more features here, and better accuracy than chance
    fx = grid.best_estimator_.named_steps["fx"]
    assert fx.result_.budget == grid.best_params_["fx__budget"]
    assert grid.score(Xt, yt) > 0.3


def test_gray_images_need_threshold(digits_small):
    from sklearn.datasets import load_digits

    Xg, yg = load_digits(return_X_y=True)
    with pytest.raises(ValidationError, match="not binary"):
        MetaFeatureExtractor(budget=10, steps=1).fit(Xg[:100], yg[:100])
    fx = MetaFeatureExtractor(budget=10, steps=1, threshold=8).fit(Xg[:100], yg[:100])
    X, _ = metafx.load_dataset("digits")  # binarized at >= 8 as well
    np.testing.assert_array_equal(fx.transform(Xg[:50]), fx.result_.transform(X[:50]))


def test_bad_parameters_are_reported(digits_small):
    X, y, _, _ = digits_small
    with pytest.raises(ValidationError, match="budget"):
        MetaFeatureExtractor(budget=-1, steps=1).fit(X, y)
    with pytest.raises(ValidationError, match="threshold"):
        MetaFeatureExtractor(budget=10, steps=1, threshold="high").fit(X, y)
    with pytest.raises(ValueError, match="features"):
        MetaFeatureExtractor(budget=10, steps=1).fit(X, y).transform(X.reshape(len(X), -1)[:, :10])


def test_family_instance_is_not_mutated(digits_small):
    X, y, _, _ = digits_small
    fam = PixelAndFamily()
    fx = MetaFeatureExtractor(family=fam, budget=10, steps=1).fit(X, y)
    assert fam.image_shape is None  # the extractor fitted a copy
    assert fx.family_.image_shape == [8, 8]


def test_lazy_export():
    import subprocess
    import sys

    code = "import sys, metafx; assert 'sklearn' not in sys.modules; metafx.MetaFeatureExtractor; print('ok')"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "ok"


def test_reselect_is_the_search_s(digits_small):
    """``reselect`` is passed to :func:`metafx.search`: the same result, its choice in the metadata."""
    X, y, _, _ = digits_small
    fx = MetaFeatureExtractor(budget=30, steps=6, reselect=3, random_state=0).fit(X, y)
    res = metafx.search(X, y, family="pixel-and", budget=30, steps=6, reselect=3, seed=0, progress=False)
    got, want = (dict(m["reselect"]) for m in (fx.result_.metadata, res.metadata))
    got.pop("seconds"), want.pop("seconds")
    assert got == want and got["r"] == 3
    assert fx.features_ == list(res.features) and fx.best_quality_ == res.best_quality
    plain = MetaFeatureExtractor(budget=30, steps=6, engine="mufasa", random_state=0).fit(X, y)
    assert "reselect" not in plain.result_.metadata  # mufasa's default: no reselection
    assert clone(fx).get_params()["reselect"] == 3
