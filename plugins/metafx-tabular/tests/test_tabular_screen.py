"""The candidate screen, numeric columns read as categories, rare levels and the evaluators' missing-value option."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import metafx
from metafx_tabular import CVLinear, CVTree, TabularFamily
from metafx_tabular.batch import TableValues
from metafx_tabular.expressions import _level_codes
from metafx_tabular.operators import PAIR_LEVELS, SCREEN_QUANTILES
from metafx_tabular.screen import SCREEN_REDUNDANT, partial_relevance


def _frame(n=400, seed=0):
    rng = np.random.default_rng(seed)
    city = rng.integers(0, 30, size=n)
    level = rng.normal(0, 3, size=30)
    price = level[city] + rng.normal(size=n)
    df = pd.DataFrame({"price": price, "city": pd.Categorical([f"c{c}" for c in city]),
                       "a": rng.normal(size=n), "b": rng.uniform(1, 2, size=n),
                       "k": rng.integers(0, 4, size=n).astype(float)})
    y = (price - level[city] + 0.3 * rng.normal(size=n) > 0).astype(int)
    return df, y


def test_first_order_enumerates_every_depth_one_candidate():
    df, y = _frame()
    fam = TabularFamily().fit(df, y)
    cands = fam.first_order()
    by_op: dict[str, int] = {}
    for o, _cols, _ in cands:
        by_op[o] = by_op.get(o, 0) + 1
    n_num = 4  # price, a, b, k
    assert by_op["threshold"] == n_num * len(SCREEN_QUANTILES)
    assert by_op["log"] == by_op["square"] == n_num
    assert by_op["mul"] == by_op["diff"] == n_num * (n_num - 1) // 2
    assert by_op["ratio"] == n_num * (n_num - 1)
    # categories: city, and k (4 values) read as one
    assert by_op["count"] == 2 and by_op["pair_count"] == 1
    # group-by: every numeric column by every other category column
    assert by_op["group_dev"] == 4 + 3  # by city: 4 numeric columns; by k: the 3 others
    assert ("group_dev", [0, 1], None) in cands


def test_the_screen_reaches_the_signal_from_any_point():
    """The deviation from the group mean is in the set wherever the search stands (here at the
    first operator, ``threshold``), and a mixed set at that."""
    df, y = _frame()
    fam = TabularFamily(column_names=list(df.columns)).fit(df, y)
    rng = np.random.default_rng(0)
    for op in range(len(fam.enabled_operators)):
        b = fam.draw({"arity": 1, "depth": 1, "op": op, "rank": 1.0}, 6, rng)
        assert "price - mean(price by city)" in fam.feature_names(b)
        assert 1 <= len(b) <= 6 and b.costs.sum() <= 6
    old = TabularFamily(column_names=list(df.columns), screen=0, nominal_op=False).fit(df, y)
    b = old.draw({"arity": 1, "depth": 1, "op": 0, "rank": 1.0}, 6, rng)
    assert "price - mean(price by city)" not in old.feature_names(b)  # the point's own draws: thresholds


def test_the_screen_keeps_nothing_weak_and_nothing_redundant():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(500, 5))
    noise = TabularFamily().fit(X, rng.integers(0, 2, size=500))
    assert len(noise.draw(noise.space().start(None), 10, rng)) <= 1  # nothing above the floor: one at most
    y = (X[:, 0] * X[:, 1] + X[:, 2] ** 2 - 1 + 0.3 * rng.normal(size=500) > 0).astype(int)
    fam = TabularFamily().fit(X, y)
    b = fam.draw(fam.space().start(None), 10, rng)
    names = fam.feature_names(b)
    assert "x0 * x1" in names and "x2^2" in names
    V = fam.transform(X, b)
    r = np.corrcoef(V.T) - np.eye(len(b))
    assert np.abs(r).max() <= SCREEN_REDUNDANT
    assert fam.describe(b)["depth"].max() == 1
    with pytest.raises(metafx.ValidationError, match="screen"):
        TabularFamily(screen=-1).fit(X, y)


def test_operator_is_nominal_by_default():
    df, y = _frame()
    space = TabularFamily().fit(df, y).space()
    assert next(d for d in space.dimensions if d.name == "op").kind == "categorical"


def test_numeric_columns_with_few_values_are_read_as_categories():
    df, y = _frame()
    fam = TabularFamily(column_names=list(df.columns)).fit(df, y)
    assert fam.column_kinds[4] == "numeric" and fam.column_levels[4] is not None
    assert fam.column_levels[0] is None and fam.column_levels[1] is None  # many values; a category column
    ops = fam.enabled_operators
    b = TabularFamily(column_names=list(df.columns), screen=0, operators=["count"]).fit(df, y)
    batch = b.draw({"arity": 1, "depth": 1, "op": 0, "rank": 0.5}, 4, np.random.default_rng(0))
    leaf = [e["args"][0] for e in batch.exprs if e["args"][0]["col"] == 4]
    assert leaf and leaf[0]["levels"] == fam.column_levels[4]
    e = next(e for e in batch.exprs if e["args"][0]["col"] == 4)
    one = b.from_json([{"family": "tabular", "expr": e}])
    v = b.transform(df, one)[:, 0]
    share = df["k"].map(df["k"].value_counts(normalize=True)).to_numpy()
    assert np.corrcoef(v, share)[0, 1] > 0.999
    # a value not seen in training: the table's last entry (as a missing category), not an error
    new = df.iloc[:3].assign(k=[0.0, 7.0, np.nan])
    out = b.transform(new, one)[:, 0]
    assert np.isfinite(out).all() and out[1] == out[2]
    with pytest.raises(metafx.ValidationError, match="levels"):
        b.from_json([{"family": "tabular", "expr": {**e, "args": [{"col": 4, "levels": [1.0, 0.0]}]}}])
    assert "group_dev" in ops


def test_level_codes_against_a_loop():
    rng = np.random.default_rng(3)
    levels = np.sort(rng.normal(size=7))
    z = np.concatenate([rng.choice(levels, size=50), rng.normal(size=11), [np.nan]])
    got = _level_codes(z, levels)
    for v, g in zip(z, got, strict=True):
        if np.isnan(v):
            assert np.isnan(g)
        else:
            hits = np.flatnonzero(levels == v)
            assert g == (hits[0] if hits.size else levels.size)


def test_one_column_with_few_values_does_not_enable_group_operators():
    X = (np.arange(40) % 4).astype(float)[:, None]
    fam = TabularFamily().fit(X, np.arange(40) % 2)
    assert "group_mean" not in fam.enabled_operators and "count" in fam.enabled_operators


def test_frequency_encoding_keeps_rare_levels():
    rng = np.random.default_rng(0)
    p = 1.0 / np.arange(1, 151)
    m = rng.choice(150, size=3000, p=p / p.sum())
    df = pd.DataFrame({"merchant": pd.Categorical([f"m{v}" for v in m]), "x": rng.normal(size=3000)})
    y = rng.integers(0, 2, size=3000)
    fam = TabularFamily(operators=["count"], screen=0).fit(df, y)
    b = fam.draw({"arity": 1, "depth": 1, "op": 0, "rank": 0.5}, 1, rng)
    v = fam.transform(df, b)[:, 0]
    true = np.bincount(m, minlength=150)[m]
    assert np.corrcoef(v, true)[0, 1] > 0.999
    assert len(fam.categories[0]) == len(np.unique(m))  # no "(other)"


def test_pair_count_table_is_capped():
    rng = np.random.default_rng(0)
    n = 2000
    df = pd.DataFrame({"a": pd.Categorical(rng.integers(0, 120, n).astype(str)),
                       "b": pd.Categorical(rng.integers(0, 90, n).astype(str))})
    fam = TabularFamily(operators=["pair_count"], screen=0).fit(df, rng.integers(0, 2, n))
    b = fam.draw({"arity": 2, "depth": 1, "op": 0, "rank": 0.5}, 1, rng)
    t = np.asarray(b.exprs[0]["freq"])
    assert t.shape == (PAIR_LEVELS + 1, PAIR_LEVELS + 1) and abs(t.sum() - 1) < 1e-9
    assert np.isfinite(fam.transform(df, b)).all()


def test_missing_option_values_an_indicator_the_model_lacks():
    rng = np.random.default_rng(0)
    n = 600
    x = rng.normal(size=n)
    miss = rng.uniform(size=n) < 0.3
    y = (rng.uniform(size=n) < np.where(miss, 0.8, 0.3)).astype(int)
    cols = np.column_stack([np.where(miss, np.nan, x), rng.normal(size=n)])
    empty = TableValues(dense=np.zeros((n, 0)), columns=cols)
    flag = TableValues(dense=miss[:, None].astype(float), columns=cols)
    mean, ind = CVLinear(missing="mean", n_repeats=1), CVLinear(missing="indicator", n_repeats=1)
    assert mean.evaluate(flag, y, random_state=0) > mean.evaluate(empty, y, random_state=0) + 0.03
    assert abs(ind.evaluate(flag, y, random_state=0) - ind.evaluate(empty, y, random_state=0)) < 0.01
    assert CVLinear().missing == "mean" and CVTree().missing == "native"
    assert CVTree(missing="mean").evaluate(flag, y, random_state=0) > CVTree(missing="mean").evaluate(
        empty, y, random_state=0)
    with pytest.raises(metafx.ValidationError, match="missing='native'"):
        CVLinear(missing="native").evaluate(flag, y, random_state=0)


def test_a_column_both_numeric_and_category_leaves_a_partner():
    """diabetes' ``sex`` (2 values) is the only category: it is never the numeric anchor of a group-by."""
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.normal(size=200), rng.integers(0, 2, 200).astype(float), rng.normal(size=200)])
    fam = TabularFamily(screen=0).fit(X, rng.integers(0, 2, 200))
    ops = fam.enabled_operators
    for op in ("group_mean", "group_dev", "group_rank"):
        for rank in (0.0, 0.5, 1.0):
            b = fam.draw({"arity": 2, "depth": 1, "op": ops.index(op), "rank": rank}, 3, rng)
            assert all(e["args"][1]["col"] == 1 and e["args"][0]["col"] != 1 for e in b.exprs)
    off = TabularFamily(screen=0, level_columns=0).fit(X, rng.integers(0, 2, 200))
    assert off.column_levels == [None, None, None] and "count" not in off.enabled_operators
    with pytest.raises(metafx.ValidationError, match="level_columns"):
        TabularFamily(level_columns=-1).fit(X, rng.integers(0, 2, 200))


def test_relevance_is_given_the_columns_and_reads_ranks():
    rng = np.random.default_rng(0)
    n = 800
    debt, income, other = rng.lognormal(8, 0.6, n), rng.lognormal(10, 0.6, n), rng.normal(size=n)
    X = np.column_stack([debt, income, other])
    y = (np.log(debt / income) + 0.3 * rng.normal(size=n) > np.log(np.median(debt / income))).astype(int)
    fam = TabularFamily(column_names=["debt", "income", "other"]).fit(X, y)
    S = fam._sample
    # the values of a copy of a column (or an affine one) add nothing given the columns (their ranks may)
    assert partial_relevance(fam, np.column_stack([S[:, 0], 3 * S[:, 1] + 1])).max() == 0.0
    # the ratio is heavy-tailed: its ranks carry the signal, counted at RANK_WEIGHT
    from scipy.stats import rankdata

    from metafx_tabular.screen import RANK_WEIGHT

    ratio = S[:, 0] / S[:, 1]
    assert fam.relevance(ratio[:, None])[0] == pytest.approx(
        max(partial_relevance(fam, ratio[:, None])[0], RANK_WEIGHT * partial_relevance(fam, rankdata(ratio)[:, None])[0]))
    names = fam.feature_names(fam.draw(fam.space().start(None), 8, rng))
    assert names[0] in ("debt / income", "income / debt")


def test_a_family_rebuilt_from_its_parameters_reads_level_leaves():
    df, y = _frame(n=200)
    fam = TabularFamily(column_names=list(df.columns)).fit(df, y)
    b = fam.draw(fam.space().start(None), 12, np.random.default_rng(0))
    ops = fam.enabled_operators
    b = fam.concat([b, fam.draw({"arity": 1, "depth": 1, "op": ops.index("count"), "rank": 1.0}, 4,
                                np.random.default_rng(1))])
    again = TabularFamily(**fam.get_params())
    assert again.enabled_operators == ops and again.column_levels == fam.column_levels
    np.testing.assert_array_equal(again.transform(df, again.from_json(fam.to_json(b))), fam.transform(df, b))


@pytest.mark.xfail(strict=True, reason="known: the screen's copy test (SCREEN_COPY = 0.95) cuts the square and the log of "
                   "a positive column; 0.999 was judged by experiments/tabular_guard/RULE_copy_cut.md and not adopted")
def test_the_curvature_of_a_positive_column_is_not_a_copy_of_it():
    """The square and the log of a positive column (an age, kept on its ratio scale) correlate 0.95-0.999 with it;
    their curvature is what a linear model of the columns misses, so the screen must not score them as copies
    (issue 43, task tab43f: SwissLabor's and SLID's ``age^2`` had relevance 0 with the copy test at 0.95).  A true
    copy (a threshold of a 0/1 column, the column itself) still scores 0."""
    rng = np.random.default_rng(3)
    n = 1500
    age = rng.uniform(2.0, 6.0, size=n)
    df = pd.DataFrame({"age": age, "n0": rng.normal(size=n), "b": rng.integers(0, 2, size=n).astype(float)})
    y = (-((age - 4.0) ** 2) + 1.3 + 0.5 * rng.normal(size=n) > 0).astype(int)
    fam = TabularFamily(column_names=list(df.columns)).fit(df, y)
    exprs = [e for e, _ in fam._screened]
    names = fam.feature_names(fam.from_json([{"expr": e} for e in exprs]))
    rel = dict(zip(names, fam._screen_rel, strict=True))
    V = np.column_stack([fam.transform(df, fam.from_json([{"expr": e}]))[:, 0] for e in exprs])
    R = [np.sqrt(1 - np.linalg.lstsq(np.column_stack([np.ones(n), np.asarray(df, float)]), v - v.mean(),
                                     rcond=None)[1][0] / ((v - v.mean()) ** 2).sum()) for v in V.T]
    assert 0.95 < dict(zip(names, R, strict=True))["age^2"] < 0.999  # the case: correlated, not a copy
    assert rel["age^2"] > fam._floor and rel["log(age)"] > fam._floor
    assert names[int(np.argmax(fam._screen_rel))] in ("age^2", "log(age)")
    copy = fam.relevance(np.column_stack([fam._sample[:, 0], 3 * fam._sample[:, 2] - 1]))
    assert np.all(copy == 0)
