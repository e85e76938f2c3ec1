"""A tabular result with numeric operators exports to C and NumPy code that computes Python's features, decisions
and predictions bit for bit (metafx.testing.check_export), missing values included; other operators and
non-numeric columns are refused by name."""

from __future__ import annotations

import numpy as np
import pytest

import metafx
from metafx.export import to_c
from metafx.testing import check_export

NUMERIC = ["threshold", "square", "mul", "ratio", "diff"]


def _table(seed, n=300, d=5):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * rng.uniform(0.5, 20, d) + rng.uniform(-5, 5, d)
    X[:, 1] = np.abs(X[:, 1]) + 0.1
    y = (X[:, 0] * X[:, 1] + X[:, 2] / (np.abs(X[:, 3]) + 1) + rng.normal(size=n) > np.median(X[:, 0] * X[:, 1]))
    return X, y.astype(int)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_numeric_operators_export_exactly(seed, tmp_path):
    X, y = _table(seed)
    res = metafx.search(X, y, family="tabular", budget=14, steps=4, seed=seed, progress=False,
                        family_params={"operators": NUMERIC, "max_depth": 2})
    res.fit_classifier(X, y, C=1.0)
    Xn, _ = _table(seed + 100, n=120)
    Xn[3, 0] = np.nan  # a missing value: 0 in the features, as the classifier reads it
    Xn[5, :] = 1e12  # far outside the training range: clipped
    out = check_export(res, Xn, tmp_dir=tmp_path)
    assert out["n"] == 120


def test_other_operators_are_refused_by_name():
    rng = np.random.default_rng(0)
    X = np.abs(rng.normal(size=(200, 3))) + 0.5
    y = (np.log(X[:, 0]) > 0).astype(int)
    res = metafx.search(X, y, family="tabular", budget=6, steps=3, seed=0, progress=False,
                        family_params={"operators": ["log"]})
    if not any("log(" in n for n in res.feature_names()):
        pytest.skip("the search kept no log feature")
    with pytest.raises(metafx.ValidationError, match="uses the operator 'log': export supports threshold"):
        to_c(res)
