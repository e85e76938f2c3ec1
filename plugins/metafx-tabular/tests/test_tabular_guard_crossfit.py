"""Issue 43, the cross-fitted guard (``confirm="crossfit"``, experiments/tabular_guard/RULE_crossfit.md): the
search runs on each half, each set is scored on the other half, and the pooled gain decides."""

from __future__ import annotations

import math

import numpy as np
import pytest
from test_tabular_guard import log_table, noise_table

import metafx
from metafx_tabular import TableExtractor
from metafx_tabular.guard import crossfit_decision, guard_decision, prune, user_matrix


def test_crossfit_decision_pools_the_two_halves_standard_errors():
    rng = np.random.default_rng(0)
    d_a = 0.01 + 0.02 * rng.standard_normal(15)
    d_b = 0.012 + 0.03 * rng.standard_normal(15)
    c = crossfit_decision(d_a, d_b, n_splits=5)
    se_a = math.sqrt((1 / 15 + 1 / 4) * d_a.var(ddof=1))
    se_b = math.sqrt((1 / 15 + 1 / 4) * d_b.var(ddof=1))
    assert c["se_a"] == pytest.approx(se_a) and c["se_b"] == pytest.approx(se_b)
    assert c["mean_diff"] == pytest.approx((d_a.mean() + d_b.mean()) / 2)
    assert c["se"] == pytest.approx(math.sqrt(se_a**2 + se_b**2) / 2)
    assert c["t"] == pytest.approx(c["mean_diff"] / c["se"]) and c["n_folds"] == 30
    assert c["t_a"] == pytest.approx(d_a.mean() / se_a) and c["t_b"] == pytest.approx(d_b.mean() / se_b)


def test_crossfit_keeps_two_halves_that_each_fall_short_and_drops_noise():
    # two halves with t = 1.6 each: neither passes alone, pooled t = 1.6 * sqrt(2) = 2.26 passes
    base = np.tile([1.0, -1.0, 0.5, -0.5, 0.0], 3)
    d = base / math.sqrt((1 / 15 + 1 / 4) * base.var(ddof=1))   # se 1 ...
    d = d + 1.6 - d.mean()                                         # ... and mean 1.6: t 1.6
    assert guard_decision(d)["t"] == pytest.approx(1.6) and not guard_decision(d)["kept"]
    c = crossfit_decision(d, d)
    assert c["t"] == pytest.approx(1.6 * math.sqrt(2)) and c["kept"]
    assert not crossfit_decision(d, -d)["kept"]                                  # opposite halves: mean 0
    one = crossfit_decision(d, np.zeros(15))   # a half that proposed nothing: mean 0.8, se sqrt(1 + 0) / 2
    assert one["t"] == pytest.approx(1.6) and not one["kept"]
    nan = d.copy()
    nan[3] = np.nan
    assert not crossfit_decision(nan, d)["kept"] and math.isnan(crossfit_decision(d, nan)["t"])
    assert not crossfit_decision(np.zeros(15), np.zeros(15))["kept"]


def test_prune_decided_keeps_a_set_that_fails_on_its_own_half():
    df, y = noise_table(0, n=400)
    fx = TableExtractor(budget=2, steps=2, confirm=False).fit(df, y)
    F = np.random.default_rng(1).normal(size=(len(df), 2))   # two columns of noise
    M_cols, cat = user_matrix(fx.family_, df, F[:, :0], "linear")
    alone = prune("linear", M_cols, F, cat, y, seed=0, n_repeats=1)
    assert not alone["kept"] and alone["keep"] == []
    decided = prune("linear", M_cols, F, cat, y, seed=0, n_repeats=1, decided=True)
    assert decided["kept"] and len(decided["keep"]) == 1 and len(decided["drop_t"]) == 1   # pruned to one
    assert decided["t"] == pytest.approx(alone["t"])


@pytest.mark.parametrize("seed", [0, 1])
def test_crossfit_returns_nothing_on_noise_and_records_both_halves(seed):
    df, y = noise_table(seed)
    fx = TableExtractor(budget=4, steps=8, seed=0, confirm="crossfit").fit(df, y)
    assert fx.n_features_out_ == 0 and fx.transform(df).shape == (len(df), 0), fx.get_feature_names_out()
    c = fx.confirmation_
    if c is not None:
        assert c["crossfit"] and not c["kept"] and c["n_folds"] == 30
        assert c["n_search_rows"] + c["n_confirm_rows"] == len(df)
        assert isinstance(c["searched_a"], list) and isinstance(c["searched_b"], list)


def test_crossfit_keeps_what_the_linear_model_lacks_with_the_chosen_halfs_family():
    n = 1200
    df, y = log_table(n)
    fx = TableExtractor(budget=2, steps=6, seed=0, confirm="crossfit").fit(df, y)
    c = fx.confirmation_
    names = list(fx.get_feature_names_out())
    assert c["kept"] and c["t"] > 2 and c["chosen"] in ("a", "b") and c["kept_features"] == names
    assert any("log(x)" in f for f in names)
    assert c["t"] == pytest.approx(c["mean_diff"] / c["se"])
    own = c["t_a"] if c["chosen"] == "a" else c["t_b"]
    assert own == pytest.approx(c["own_t"]) and own >= min(c["t_a"], c["t_b"])
    # the returned features are the chosen half's search's (its family), and transform the whole table
    assert list(fx.family_.feature_names(fx._batch)) == names
    assert fx.transform(df).shape == (n, len(names)) and fx.n_features_in_ == 3
    np.testing.assert_allclose(fx.transform(df.iloc[:50]), fx.transform(df)[:50])


def test_crossfit_is_an_allowed_confirm_and_bad_values_name_it():
    df, y = noise_table(0, n=300)
    with pytest.raises(metafx.ValidationError, match="allowed: True, False, 'holdout', 'crossfit', 'test', 'auto'"):
        TableExtractor(confirm="cross").fit(df, y)
    small = TableExtractor(budget=2, steps=2, confirm="crossfit").fit(df.iloc[:30], y[:30])
    assert small.n_features_out_ == 0
    assert small.confirmation_ is None or small.confirmation_["why"] == "too few confirmation rows"
