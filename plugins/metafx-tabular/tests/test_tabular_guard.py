"""Issue 43: the extractor does no harm (the guard of ``confirm="holdout"``) and serves the user's model.

The tables reproduce the issue's failures: a label that is rent's deviation from its shop's mean, a
label following the frequency of a 160-level merchant column, and tables of pure noise, on which
the extractor before the guard returned features of noise columns."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import metafx
from metafx_tabular import TableExtractor
from metafx_tabular.guard import guard_decision, holdout_split, paired_differences, user_matrix

NOISE = ("n0", "n1", "n2", "n3")


def rent_table(n: int = 1500, seed: int = 0) -> tuple[pd.DataFrame, np.ndarray]:
    """Shops (20, strings) with their own rent level; the label is rent's deviation from its shop's mean."""
    rng = np.random.default_rng(seed)
    shop = rng.integers(0, 20, size=n)
    level = rng.normal(10.0, 3.0, size=20)
    rent = level[shop] + rng.normal(0.0, 1.0, size=n)
    df = pd.DataFrame({"shop": pd.Categorical([f"s{s}" for s in shop]), "rent": rent,
                       "staff": rng.poisson(4, size=n)})
    for c in NOISE:
        df[c] = rng.normal(size=n)
    means = pd.Series(rent).groupby(shop).transform("mean").to_numpy()
    return df, rent - means + 0.3 * rng.normal(size=n)


def merchant_table(n: int = 2000, seed: int = 0) -> tuple[pd.DataFrame, np.ndarray]:
    """A 160-level merchant column of uneven frequencies; the label follows the merchant's frequency."""
    rng = np.random.default_rng(seed)
    w = 1.0 / np.arange(1, 161) ** 0.8
    m = rng.choice(160, size=n, p=w / w.sum())
    freq = np.bincount(m, minlength=160)[m] / n
    df = pd.DataFrame({"merchant": pd.Categorical([f"m{i}" for i in m])})
    for c in NOISE:
        df[c] = rng.normal(size=n)
    z = np.log(freq)
    y = (rng.random(n) < 1.0 / (1.0 + np.exp(-2.0 * (z - z.mean()) / z.std()))).astype(int)
    return df, y


def log_table(n: int, seed: int = 3):
    """``(df, y)``: a lognormal column ``x`` and two normal ones, ``y = log(x)`` plus noise: a linear model gains
    from ``log(x)``, trees read ``x`` as well as ``log(x)``."""
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"x": rng.lognormal(sigma=1.2, size=n), "a": rng.normal(size=n), "b": rng.normal(size=n)})
    return df, np.log(df["x"].to_numpy()) + 0.3 * rng.normal(size=n)


def noise_table(seed: int, n: int = 1200) -> tuple[pd.DataFrame, np.ndarray]:
    """Normal, lognormal, categorical and partly missing columns; a label independent of all."""
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"n0": rng.normal(size=n), "n1": rng.normal(size=n), "l0": rng.lognormal(size=n),
                       "c0": pd.Categorical([f"a{i}" for i in rng.integers(0, 6, size=n)]),
                       "m0": np.where(rng.random(n) < 0.3, np.nan, rng.normal(size=n))})
    return df, rng.integers(0, 2, size=n)


def _noise_inputs(names: list[str]) -> list[str]:
    return [f for f in names if any(c in f for c in NOISE)]


def test_rent_deviation_linear_returns_nothing():
    # for a linear model of one-hot shops, rent minus its shop's mean is a combination of the columns:
    # the answer is no feature (the extractor before the guard returned `staff * n1`)
    df, y = rent_table()
    fx = TableExtractor(budget=4, steps=8, seed=0).fit(df, y)
    assert fx.get_params()["model"] == "linear" and fx.get_params()["confirm"] == "holdout"
    assert fx.n_features_out_ == 0 and fx.transform(df).shape == (len(df), 0)
    c = fx.confirmation_
    assert c is None or (c["kept"] is False and c["n_search_rows"] + c["n_confirm_rows"] == len(df))


def test_merchant_frequency_returns_no_feature_of_noise():
    # the extractor before the guard returned [n0 > q50] and [n2 > q60]
    df, y = merchant_table()
    fx = TableExtractor(budget=4, steps=8, seed=0).fit(df, y)
    names = list(fx.get_feature_names_out())
    assert _noise_inputs(names) == [] and "count(merchant)" in names   # the frequency, pruned of its companions
    c = fx.confirmation_
    assert c["kept"] and c["t"] > 2 and len(c["drop_t"]) >= 1 and c["kept_features"] == names


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_noise_tables_give_no_feature(seed):
    df, y = noise_table(seed)
    fx = TableExtractor(budget=4, steps=8, seed=0).fit(df, y)
    assert fx.n_features_out_ == 0, fx.get_feature_names_out()


def test_the_guard_keeps_what_the_linear_model_lacks_and_not_what_trees_read():
    # y follows log(x) of a lognormal x: a linear model gains from log(x); trees read x as well as log(x)
    df, y = log_table(1500)
    lin = TableExtractor(budget=2, steps=6, seed=0).fit(df, y)
    assert lin.n_features_out_ >= 1 and lin.confirmation_["kept"] and lin.confirmation_["t"] > 2
    assert any("log(x)" in f for f in lin.get_feature_names_out())
    tree = TableExtractor(budget=2, steps=6, seed=0, model="trees").fit(df, y)
    assert tree.n_features_out_ == 0
    assert tree.confirmation_ is None or not tree.confirmation_["kept"]


def test_model_names_the_search_evaluator_and_bad_values_are_refused():
    df, y = noise_table(0, n=300)
    assert TableExtractor()._search_evaluator() == "cv-linear"
    assert TableExtractor(model="trees")._search_evaluator() == "cv-tree"
    assert TableExtractor(model="trees", evaluator="cv-linear")._search_evaluator() == "cv-linear"
    with pytest.raises(metafx.ValidationError, match="model='svm'; allowed: 'linear', 'trees'"):
        TableExtractor(model="svm").fit(df, y)
    with pytest.raises(metafx.ValidationError, match="confirm='maybe'; allowed: True, False, 'holdout', 'crossfit', 'test', 'auto'"):
        TableExtractor(confirm="maybe").fit(df, y)


def test_holdout_split_is_stratified_disjoint_and_seeded():
    y = np.array([0] * 30 + [1] * 10)
    s, c = holdout_split(y, 7)
    assert np.intersect1d(s, c).size == 0 and np.union1d(s, c).tolist() == list(range(40))
    assert (y[c] == 1).sum() == 5 and (y[c] == 0).sum() == 15
    assert np.array_equal(holdout_split(y, 7)[1], c) and not np.array_equal(holdout_split(y, 8)[1], c)
    yr = np.linspace(0, 1, 41) + 0.001  # a real target
    s, c = holdout_split(yr, 0)
    assert c.size == 20 and s.size == 21


def test_guard_doctests():
    import doctest

    import metafx_tabular.guard

    res = doctest.testmod(metafx_tabular.guard)
    assert res.attempted > 0 and res.failed == 0


def test_guard_decision_is_the_corrected_t_above_two():
    d = np.array([0.03, 0.01, 0.02, 0.025, 0.015, 0.02, 0.01, 0.03, 0.02, 0.02])
    g = guard_decision(d, n_splits=5)
    se = np.sqrt((1 / 10 + 1 / 4) * d.var(ddof=1))
    assert g["se"] == pytest.approx(se) and g["t"] == pytest.approx(d.mean() / se) and g["kept"]
    assert not guard_decision(d - d.mean(), n_splits=5)["kept"]               # a mean of 0
    assert not guard_decision(np.array([0.01, np.nan, 0.02]))["kept"]         # a failed fit drops the set
    assert guard_decision(np.full(6, 0.01))["kept"] and not guard_decision(np.zeros(6))["kept"]


def test_user_matrix_one_hot_for_linear_codes_for_trees():
    df, y = rent_table(n=200)
    fam = TableExtractor(budget=2, steps=2, confirm=False).fit(df, y).family_
    F = np.zeros((200, 1))
    M, cat = user_matrix(fam, df, F, "linear")
    assert M.shape[1] == 20 + 6 + 1 and not cat.any()       # 20 shops one-hot, 6 numeric, 1 feature
    M, cat = user_matrix(fam, df, F, "trees")
    assert M.shape[1] == 7 + 1 and cat.tolist() == [True] + [False] * 7
    assert set(np.unique(M[:, 0])) <= set(range(20))
    d, a, b = paired_differences("trees", M[:, :-1], M, cat[:-1], cat, y, seed=0, n_repeats=1)
    assert d.shape == (5,) and np.allclose(d, a - b) and np.isfinite(d).all()


def test_the_trees_guard_sees_the_gain_of_a_product_they_cannot_split():
    """Issue 43 (experiments/tabular_planted/DIAGNOSIS_TREES.md): a label from ``x1 * x2`` on 800 rows.  The exact
    product beside the columns must clear the guard for trees; with 100 boosting rounds and no early stopping the
    trees overfit these rows faster with it and scored it a loss (t about -1 to -2.7 on the planted tables)."""
    rng = np.random.default_rng(3)
    n = 800
    X = rng.normal(size=(n, 5))                      # x1, x2 and three columns of noise
    s = X[:, 0] * X[:, 1]
    v = s / s.std() + 0.3 * rng.normal(size=n)
    y = (v > np.median(v)).astype(int)
    cat = np.zeros(5, dtype=bool)
    d, _, _ = paired_differences("trees", X, np.column_stack([X, s]), cat, np.zeros(6, dtype=bool), y, seed=0)
    g = guard_decision(d, n_splits=5)
    assert g["kept"] and g["t"] > 2, g
