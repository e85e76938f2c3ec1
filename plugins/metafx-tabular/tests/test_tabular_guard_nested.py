"""Issue 43, the nested guard (``confirm="nested"``, experiments/tabular_guard/RULE_nested.md): the gain of the
whole procedure (family fit and search on K - 1 outer folds, the user's model scored on the fold left out) is
pooled over the K folds, and only when it clears the bar does the search run on all the rows."""

from __future__ import annotations

import math

import numpy as np
import pytest
from test_tabular_guard import log_table, noise_table

import metafx
from metafx_tabular import TableExtractor
from metafx_tabular.extractor import _outer_folds
from metafx_tabular.guard import crossfit_decision, guard_decision, nested_decision


def _with_t(t: float) -> np.ndarray:
    """15 differences whose corrected t (5 folds x 3 repeats) is ``t``, with corrected s.e. 1."""
    base = np.tile([1.0, -1.0, 0.5, -0.5, 0.0], 3)
    d = base / math.sqrt((1 / 15 + 1 / 4) * base.var(ddof=1))
    return d + t - d.mean()


def test_nested_decision_pools_the_folds_standard_errors():
    rng = np.random.default_rng(0)
    ds = [0.01 + s * rng.standard_normal(15) for s in (0.02, 0.03, 0.025)]
    c = nested_decision(ds, n_splits=5)
    se = [math.sqrt((1 / 15 + 1 / 4) * d.var(ddof=1)) for d in ds]
    assert c["fold_se"] == pytest.approx(se) and c["n_folds"] == 45
    assert c["mean_diff"] == pytest.approx(np.mean([d.mean() for d in ds]))
    assert c["se"] == pytest.approx(math.sqrt(sum(s**2 for s in se)) / 3)
    assert c["t"] == pytest.approx(c["mean_diff"] / c["se"])
    assert c["fold_t"] == pytest.approx([d.mean() / s for d, s in zip(ds, se, strict=True)])
    two = nested_decision(ds[:2])   # two folds: the cross-fitted guard's pooling
    assert two["t"] == pytest.approx(crossfit_decision(ds[0], ds[1])["t"])


def test_nested_decision_keeps_three_folds_that_each_fall_short_and_drops_noise():
    d = _with_t(1.3)   # t 1.3 alone; three such folds: 1.3 * sqrt(3) = 2.25
    assert not guard_decision(d)["kept"]
    c = nested_decision([d, d, d])
    assert c["t"] == pytest.approx(1.3 * math.sqrt(3)) and c["kept"]
    assert not nested_decision([d, d, -d])["kept"]
    assert not nested_decision([d, np.zeros(15), np.zeros(15)])["kept"]   # folds whose search proposed nothing
    nan = d.copy()
    nan[2] = np.nan
    assert not nested_decision([d, nan, d])["kept"] and math.isnan(nested_decision([d, nan, d])["t"])
    assert not nested_decision([])["kept"]


def test_outer_folds_partition_the_rows_stratified_and_seeded():
    y = np.array([0] * 90 + [1] * 30)
    folds = _outer_folds(y, 3, seed=7)
    assert len(folds) == 3 and np.array_equal(np.sort(np.concatenate(folds)), np.arange(120))
    assert [int(y[f].sum()) for f in folds] == [10, 10, 10]
    assert all(np.array_equal(a, b) for a, b in zip(folds, _outer_folds(y, 3, seed=7), strict=True))
    assert not all(np.array_equal(a, b) for a, b in zip(folds, _outer_folds(y, 3, seed=8), strict=True))
    real = _outer_folds(np.linspace(0, 1, 100), 5, seed=2**32 + 5)
    assert sorted(f.size for f in real) == [20] * 5


@pytest.mark.parametrize("seed", [0, 1])
def test_nested_returns_nothing_on_noise_and_records_every_fold(seed):
    df, y = noise_table(seed)
    fx = TableExtractor(budget=4, steps=8, seed=0, confirm="nested").fit(df, y)
    assert fx.n_features_out_ == 0 and fx.transform(df).shape == (len(df), 0), fx.get_feature_names_out()
    c = fx.confirmation_
    if c is not None:
        assert c["nested"] and not c["kept"] and c["k_folds"] == 3 and c["n_folds"] == 45
        assert sum(c["n_confirm_rows"]) == len(df) and all(s + r == len(df) for s, r in
                                                            zip(c["n_search_rows"], c["n_confirm_rows"], strict=True))
        assert len(c["searched_folds"]) == 3 and len(c["fold_t"]) == 3
        assert "kept_features" not in c


def test_nested_keeps_what_the_linear_model_lacks_from_a_search_on_all_rows():
    n = 1200
    df, y = log_table(n)
    fx = TableExtractor(budget=2, steps=6, seed=0, confirm="nested").fit(df, y)
    c = fx.confirmation_
    names = list(fx.get_feature_names_out())
    assert c["kept"] and c["t"] > 2 and c["kept_features"] == names and any("log(x)" in f for f in names)
    assert c["t"] == pytest.approx(c["mean_diff"] / c["se"]) and len(c["fold_t"]) == 3
    assert all(any("log(x)" in f for f in s) for s in c["searched_folds"])
    # the returned set is the final search's (its family's batch), and transforms the whole table
    assert list(fx.family_.feature_names(fx._batch)) == names
    assert fx.transform(df).shape == (n, len(names)) and fx.n_features_in_ == 3
    np.testing.assert_allclose(fx.transform(df.iloc[:50]), fx.transform(df)[:50])
    five = TableExtractor(budget=2, steps=6, seed=0, confirm="nested", confirm_folds=5).fit(df, y)
    assert five.confirmation_["k_folds"] == 5 and five.confirmation_["n_folds"] == 75
    assert sorted(five.confirmation_["n_confirm_rows"]) == [240] * 5


@pytest.mark.parametrize("bad", [1, 0, -3, 2.5, "3", True, None])
def test_bad_confirm_folds_is_refused_naming_it(bad):
    df, y = noise_table(0, n=300)
    with pytest.raises(metafx.ValidationError, match=r"confirm_folds=.*; allowed: an integer >= 2"):
        TableExtractor(confirm="nested", confirm_folds=bad).fit(df, y)


def test_nested_is_an_allowed_confirm_and_small_tables_return_nothing():
    df, y = noise_table(0, n=300)
    with pytest.raises(metafx.ValidationError, match="'holdout-each', 'nested'"):
        TableExtractor(confirm="nest").fit(df, y)
    small = TableExtractor(budget=2, steps=2, confirm="nested").fit(df.iloc[:50], y[:50])
    assert small.n_features_out_ == 0 and small.transform(df.iloc[:50]).shape == (50, 0)
    assert small.confirmation_ is None or small.confirmation_["why"] == "too few confirmation rows"
