"""Issue 43, the guard feature by feature (``confirm="holdout-each"``, experiments/tabular_guard/RULE_each.md): on
the confirmation rows each proposed feature is judged alone (t above Bonferroni's correction of 2), then those that
pass are added greedily, so a feature that helps is kept from a set that fails as a whole."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import t as student_t
from test_tabular_guard import log_table, noise_table

import metafx
from metafx_tabular import TableExtractor
from metafx_tabular.guard import confirm_each, each_threshold, guard_decision, paired_differences, prune


def _one_signal_among_noise(n: int = 300, k_noise: int = 60, seed: int = 0):
    """Three numeric columns, a label with ``|x0|`` in it (which a linear model lacks), and a proposed set of
    ``|x0|`` beside ``k_noise`` columns of noise (which cost a linear model fitted on 240 rows)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    good = np.abs(X[:, 0])
    y = X[:, 1] + good + rng.normal(size=n)
    F = np.column_stack([good] + [rng.normal(size=n) for _ in range(k_noise)])
    return X, F, np.zeros(3, dtype=bool), y


def test_each_threshold_is_bonferronis_correction_of_two():
    assert each_threshold(1) == 2.0 and each_threshold(0) == 2.0
    p2 = student_t.sf(2.0, 14)
    for k in (2, 5, 12):
        assert student_t.sf(each_threshold(k), 14) == pytest.approx(p2 / k)
    assert each_threshold(2) < each_threshold(5) < each_threshold(12)
    assert each_threshold(3, n_folds=6, t_min=1.5) == pytest.approx(student_t.isf(student_t.sf(1.5, 5) / 3, 5))


def test_a_feature_that_helps_is_kept_from_a_set_that_fails_as_a_whole():
    X, F, cat, y = _one_signal_among_noise()
    whole = prune("linear", X, F, cat, y, seed=0)            # confirm="holdout": the set as a whole
    assert not whole["kept"] and whole["keep"] == [] and whole["t"] < 2
    each = confirm_each("linear", X, F, cat, y, seed=0)
    assert each["kept"] and each["keep"] == [0], each
    assert each["t_each"] == pytest.approx(each_threshold(F.shape[1]))
    assert each["each_t"][0] > each["t_each"] and max(each["each_t"][1:]) < each["t_each"]
    # the reported decision is the best single feature's, on the guard's folds
    d, _, _ = paired_differences("linear", X, np.hstack([X, F[:, :1]]), cat, np.zeros(4, dtype=bool), y, seed=0)
    assert each["t"] == pytest.approx(guard_decision(d)["t"]) and each["added_t"] == [each["t"]]
    assert each["quality"] > each["columns_quality"]


def test_greedy_forward_adds_a_second_signal_but_not_a_copy_of_the_first():
    rng = np.random.default_rng(1)
    n = 400
    X = rng.normal(size=(n, 3))
    a, b = np.abs(X[:, 0]), np.abs(X[:, 1])
    y = a + b + 0.7 * rng.normal(size=n)
    copy = a + 0.01 * rng.normal(size=n)                     # passes alone, adds nothing beside a
    F = np.column_stack([copy, rng.normal(size=n), b, a])
    out = confirm_each("linear", X, F, np.zeros(3, dtype=bool), y, seed=0)
    t = out["each_t"]
    assert t[0] > out["t_each"] and t[2] > out["t_each"] and t[3] > out["t_each"] and t[1] < out["t_each"]
    assert len(out["keep"]) == 2 and 2 in out["keep"] and out["keep"] == sorted(out["keep"])
    assert len(out["added_t"]) == 2 and all(v > out["t_each"] for v in out["added_t"])


def test_noise_features_are_not_kept_and_a_failed_fit_drops():
    rng = np.random.default_rng(2)
    n = 300
    X = rng.normal(size=(n, 3))
    y = rng.integers(0, 2, size=n)
    F = rng.normal(size=(n, 6))
    out = confirm_each("linear", X, F, np.zeros(3, dtype=bool), y, seed=0, n_repeats=1)
    assert not out["kept"] and out["keep"] == [] and out["added_t"] == [] and len(out["each_t"]) == 6
    assert out["quality"] == out["columns_quality"]
    bad = F.copy()
    bad[:, 0] = np.inf                                       # every fit with it fails (NaN scores): not kept
    with pytest.warns(UserWarning, match="a guard fit failed"):
        failed = confirm_each("linear", X, bad[:, :1], np.zeros(3, dtype=bool), y, seed=0, n_repeats=1)
    assert not failed["kept"] and math.isnan(failed["t"])


@pytest.mark.parametrize("seed", [0, 1])
def test_holdout_each_returns_nothing_on_noise(seed):
    df, y = noise_table(seed)
    fx = TableExtractor(budget=4, steps=8, seed=0, confirm="holdout-each").fit(df, y)
    assert fx.n_features_out_ == 0 and fx.transform(df).shape == (len(df), 0), fx.get_feature_names_out()
    c = fx.confirmation_
    if c is not None:
        assert not c["kept"] and c["kept_features"] == [] and c["n_folds"] == 15
        assert c["n_search_rows"] + c["n_confirm_rows"] == len(df)
        assert c["t_each"] == pytest.approx(each_threshold(len(c["each_t"])))


def test_holdout_each_keeps_what_the_linear_model_lacks():
    n = 1200
    df, y = log_table(n)
    fx = TableExtractor(budget=2, steps=6, seed=0, confirm="holdout-each").fit(df, y)
    c = fx.confirmation_
    names = list(fx.get_feature_names_out())
    assert c["kept"] and c["kept_features"] == names and any("log(x)" in f for f in names)
    assert max(c["each_t"]) == pytest.approx(c["t"]) and c["t"] > c["t_each"]
    assert fx.transform(df).shape == (n, len(names))


def test_holdout_each_is_an_allowed_confirm_and_bad_values_name_it():
    df, y = noise_table(0, n=300)
    with pytest.raises(metafx.ValidationError, match=r"confirm='each'; allowed: .*'holdout-each'"):
        TableExtractor(confirm="each").fit(df, y)
    small = TableExtractor(budget=2, steps=2, confirm="holdout-each").fit(df.iloc[:30], y[:30])
    assert small.n_features_out_ == 0
    assert small.confirmation_ is None or small.confirmation_["why"] == "too few confirmation rows"
