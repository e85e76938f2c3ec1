"""Inductive transfer (thesis section 5.5) on a synthetic family of related tasks."""

from __future__ import annotations

import numpy as np
import pytest

import metafx
import metafx.plugin
from metafx.core.exceptions import ValidationError

SIDE = 14


def ring_task(rng: np.random.Generator, n: int, side: int = SIDE):
    """A task whose informative pixels are a random 40 % of a ring of radius ~4.5 around the centre.

    Related tasks share *which kind* of pixel is informative (distance from
    the centre), not which pixels: the informative subset is redrawn per task.
    An informative pixel copies the label with 10 % flips; others are coin flips.
    """
    r, c = np.divmod(np.arange(side * side), side)
    rad = np.hypot(r - (side - 1) / 2, c - (side - 1) / 2)
    ring = np.flatnonzero(np.abs(rad - 4.5) < 1.0)
    informative = rng.choice(ring, int(0.4 * ring.size), replace=False)
    y = rng.integers(0, 2, n)
    X = rng.integers(0, 2, (n, side * side)).astype(np.uint8)
    flips = rng.random((n, informative.size)) < 0.1
    X[:, informative] = y[:, None] ^ flips
    return X.reshape(n, side, side), y


def test_indirect_transfer_beats_direct_on_related_tasks():
    fam = metafx.plugin.get_registry().get("family", "pixels")(image_shape=(SIDE, SIDE))
    rng = np.random.default_rng(7)
    corr = {"direct": [], "indirect (x,y)": [], "indirect r": []}
    for _rep in range(4):
        sources = [ring_task(rng, 300) for _ in range(3)]
        X_new, y_new = ring_task(rng, 3000)  # the "real" quality of the new task: many instances
        real = metafx.score_features(X_new.reshape(len(y_new), -1), y_new)
        Q = metafx.source_qualities(fam, sources)
        assert Q.shape == (3, SIDE * SIDE)
        preds = {
            "direct": metafx.transfer_direct(Q),
            "indirect (x,y)": metafx.transfer_indirect(fam, Q),
            "indirect r": metafx.transfer_indirect(fam, Q, meta_features=["r"]),
        }
        for k, p in preds.items():
            corr[k].append(np.corrcoef(p, real)[0, 1])
    mean = {k: float(np.mean(v)) for k, v in corr.items()}
    # transferring the kind of feature (distance from the centre) beats transferring the features
    assert mean["indirect r"] > mean["direct"] + 0.05, mean
    assert sum(corr["indirect r"][i] > corr["direct"][i] for i in range(4)) >= 3, corr
    # r describes this family of tasks better than (x, y)
    assert mean["indirect r"] > mean["indirect (x,y)"], mean


def test_transfer_quality_front_end_matches_the_parts():
    fam = metafx.plugin.get_registry().get("family", "pixels")(image_shape=(SIDE, SIDE))
    rng = np.random.default_rng(3)
    sources = [ring_task(rng, 200) for _ in range(2)]
    Q = metafx.source_qualities(fam, sources)
    np.testing.assert_allclose(metafx.transfer_quality(fam, sources, method="direct"), Q.mean(0))
    np.testing.assert_allclose(metafx.transfer_quality(fam, sources, meta_features=["r"]),
                               metafx.transfer_indirect(fam, Q, meta_features=["r"]))
    # predicting features that no source measured
    pixels = fam.all_features()
    half = pixels.take(np.arange(0, SIDE * SIDE, 2))
    Qh = metafx.source_qualities(fam, sources, features=half)
    other = pixels.take(np.arange(1, SIDE * SIDE, 2))
    assert metafx.transfer_indirect(fam, Qh, features=half, predict_features=other).shape == (SIDE * SIDE // 2,)


def test_transfer_validation():
    fam = metafx.plugin.get_registry().get("family", "pixels")(image_shape=(SIDE, SIDE))
    with pytest.raises(ValidationError, match="method"):
        metafx.transfer_quality(fam, [ring_task(np.random.default_rng(0), 50)], method="both")
    with pytest.raises(ValidationError, match="sources"):
        metafx.source_qualities(fam, [])
    with pytest.raises(ValidationError, match="features"):
        metafx.transfer_indirect(fam, np.zeros((2, 5)))
