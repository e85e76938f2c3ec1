"""QualityMap (Algorithm 5), the RBF-grid regressor and smoothing (section 5.7)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import metafx
import metafx.plugin
from metafx.analysis.quality_map import default_domain, meta_feature_matrix
from metafx.core.exceptions import ValidationError
from metafx.learn.rbf import RBFGridRegressor, grid_centres

SIDE = 16


def pixels_family(side: int = SIDE):
    return metafx.plugin.get_registry().get("family", "pixels")(image_shape=(side, side))


def flip_prob(side: int = SIDE) -> np.ndarray:
    """Known smooth map: each pixel copies the label, flipped with this probability (low = informative)."""
    r, c = np.divmod(np.arange(side * side), side)
    d2 = (r - 0.3 * side) ** 2 + (c - 0.65 * side) ** 2
    return 0.5 - 0.45 * np.exp(-d2 / (2 * (side / 5) ** 2))


def true_infogain(p: np.ndarray) -> np.ndarray:
    """Infogain (nats) of a pixel = label XOR Bernoulli(p), balanced labels: ln 2 - H(p)."""
    p = np.clip(p, 1e-12, 1 - 1e-12)
    return math.log(2) + p * np.log(p) + (1 - p) * np.log(1 - p)


def synthetic_images(n: int, rng: np.random.Generator, side: int = SIDE):
    y = rng.integers(0, 2, n)
    flips = rng.random((n, side * side)) < flip_prob(side)[None, :]
    X = (y[:, None] ^ flips).astype(np.uint8).reshape(n, side, side)
    return X, y


def test_grid_centres_match_the_thesis_grid():
    assert grid_centres(-0.5, 27.5, 7).tolist() == [1.5 + 4 * i for i in range(7)]
    reg = RBFGridRegressor(domain=[(-0.5, 27.5)] * 2).fit(np.zeros((3, 2)), np.zeros(3))
    assert reg.std_.tolist() == [3.0, 3.0]
    assert reg.transform(np.array([[1.5, 1.5]])).shape == (1, 49)
    assert reg.transform(np.array([[1.5, 1.5]]))[0, 0] == pytest.approx(1.0)


def test_recovers_a_known_smooth_quality_from_few_features(rng):
    X, y = synthetic_images(600, rng)
    fam = pixels_family()
    truth = true_infogain(flip_prob())
    pixels = fam.all_features()
    train = rng.choice(SIDE * SIDE, 40, replace=False)
    qm = metafx.QualityMap().fit(fam, X, y, features=pixels.take(train))
    assert qm.columns_ == ["x", "y"] and qm.meta_.shape == (40, 2)
    # the measured training qualities are Infogain on (X, y)
    np.testing.assert_allclose(qm.qualities_, metafx.score_features(X.reshape(600, -1)[:, train], y))
    test = np.setdiff1d(np.arange(SIDE * SIDE), train)
    pred = qm.predict(pixels.take(test))
    assert np.corrcoef(pred, truth[test])[0, 1] > 0.9
    # the best predicted pixels are near the true best one
    best = qm.rank(pixels)[:5]
    r, c = np.divmod(best, SIDE)
    assert np.all(np.hypot(r - 0.3 * SIDE, c - 0.65 * SIDE) < 3)


def test_fit_meta_and_predict_meta_with_any_sklearn_regressor(rng):
    from sklearn.neighbors import KNeighborsRegressor

    u = rng.uniform(0, 10, (200, 1))
    q = np.sin(u[:, 0] / 2)
    qm = metafx.QualityMap(regressor=KNeighborsRegressor(5)).fit_meta(u, q, columns=["s"])
    grid = np.linspace(1, 9, 17)[:, None]
    assert np.max(np.abs(qm.predict_meta(grid) - np.sin(grid[:, 0] / 2))) < 0.1
    assert qm.columns_ == ["s"]
    # default regressor with its grid over the data's range
    qm2 = metafx.QualityMap().fit_meta(u, q)
    assert np.corrcoef(qm2.predict_meta(grid), np.sin(grid[:, 0] / 2))[0, 1] > 0.99
    with pytest.raises(ValidationError, match="not fitted"):
        metafx.QualityMap().predict_meta(grid)
    with pytest.raises(ValidationError, match="family"):
        qm.predict()


def test_describers_r_and_location_as_meta_features(rng):
    X, y = synthetic_images(300, rng)
    fam = pixels_family()
    M, cols = meta_feature_matrix(fam, meta_features=["r", "location", "x"])
    assert cols == ["r", "x", "y", "x"] and M.shape == (SIDE * SIDE, 4)
    r, c = np.divmod(np.arange(SIDE * SIDE), SIDE)
    np.testing.assert_allclose(M[:, 0], np.hypot(r - 7.5, c - 7.5))
    np.testing.assert_allclose(M[:, 1], c)
    dom = default_domain(fam, ["x", "y", "r"], M[:, [1, 2, 0]])
    assert dom[:2] == [(-0.5, SIDE - 0.5)] * 2 and dom[2] == (0.0, pytest.approx(math.hypot(7.5, 7.5)))
    qm = metafx.QualityMap(meta_features=["r"]).fit(fam, X, y)
    assert qm.predict().shape == (SIDE * SIDE,)
    with pytest.raises(ValidationError, match="neither a column"):
        meta_feature_matrix(fam, meta_features=["nope"])


def test_scorer_choices(rng):
    X, y = synthetic_images(300, rng)
    fam = pixels_family()
    flat = X.reshape(300, -1).astype(float)

    def abs_corr(A, t):
        return np.abs([np.corrcoef(A[:, j], t)[0, 1] for j in range(A.shape[1])])

    qm = metafx.QualityMap(scorer=abs_corr).fit(fam, X, y)
    np.testing.assert_allclose(qm.qualities_, abs_corr(flat, y))
    qm2 = metafx.QualityMap(scorer="corrcoef").fit(fam, X, y)
    assert np.corrcoef(qm2.qualities_, qm.qualities_)[0, 1] > 0.99
    with pytest.raises(ValidationError, match="scorer"):
        metafx.QualityMap(scorer=3).fit(fam, X, y)


def test_smoothing_helps_with_few_instances_but_not_with_many(rng):
    fam = pixels_family()
    truth = true_infogain(flip_prob())
    M, _ = meta_feature_matrix(fam)
    dom = default_domain(fam, ["x", "y"], M)
    gains = {}
    for n in (20, 2000):
        direct_c, smooth_c = [], []
        for rep in range(5):
            X, y = synthetic_images(n, np.random.default_rng(100 * n + rep))
            q = metafx.score_features(X.reshape(n, -1), y)
            s = metafx.smooth_qualities(M, q, domain=dom)
            direct_c.append(np.corrcoef(q, truth)[0, 1])
            smooth_c.append(np.corrcoef(s, truth)[0, 1])
        gains[n] = np.mean(smooth_c) - np.mean(direct_c)
    assert gains[20] > 0.1          # noisy direct estimates: smoothing helps a lot
    assert gains[2000] < gains[20]  # precise direct estimates: little left to gain
    qm = metafx.QualityMap().fit(fam, *synthetic_images(50, rng))
    np.testing.assert_allclose(qm.smooth(), qm.predict())


def test_validation_messages():
    with pytest.raises(ValidationError, match="rows"):
        metafx.QualityMap().fit_meta(np.zeros((3, 2)), np.zeros(4))
    with pytest.raises(ValidationError, match="NaN"):
        metafx.QualityMap().fit_meta(np.zeros((3, 1)), [0, np.nan, 1])
    with pytest.raises(ValidationError, match="at least one"):
        metafx.QualityMap().fit_meta(np.zeros((0, 2)), np.zeros(0))
    fam = metafx.plugin.get_registry().get("family", "pixel-and")(image_shape=(8, 8))
    with pytest.raises(ValidationError, match="features="):
        meta_feature_matrix(fam)
    with pytest.raises(ValidationError, match="alpha"):
        RBFGridRegressor(alpha=-1).fit(np.zeros((2, 1)), np.zeros(2))


def test_pixel_and_features_with_their_own_meta_features(digits):
    X, y = digits
    fam = metafx.plugin.get_registry().get("family", "pixel-and")().fit(X)
    rng = np.random.default_rng(0)
    batch = fam.concat([fam.draw({"numInputs": k, "shiftInvLen": a}, 40, rng)
                        for k in (1, 2, 3) for a in (1, 2)])
    qm = metafx.QualityMap(meta_features=["numInputs", "shiftInvLen", "location"]).fit(fam, X[:600], y[:600],
                                                                                     features=batch)
    assert qm.columns_ == ["numInputs", "shiftInvLen", "x", "y"]
    assert qm.regressor_.transform(qm.meta_[:1]).shape == (1, 7 ** 4)
    assert qm.predict(batch).shape == (len(batch),)
