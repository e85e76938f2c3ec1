"""Tables as users have them: DataFrames with categorical, datetime and missing values; cv-tree; TableExtractor."""

from __future__ import annotations

import json
import pickle
from typing import Any, ClassVar

import numpy as np
import pytest

pd = pytest.importorskip("pandas", reason="pandas is a dependency of metafx-tabular (pip install -e ./plugins/metafx-tabular)")

import naive_tabular as naive  # noqa: E402

import metafx  # noqa: E402
from metafx.plugin import SetEvaluator  # noqa: E402
from metafx.testing import DescriberConformance, EvaluatorConformance, FamilyConformance  # noqa: E402
from metafx_tabular import CVLinear, CVTree, TableExtractor, TabularFamily, corrected_t_test  # noqa: E402
from metafx_tabular.frame import OTHER, encode, infer_kinds, learn_categories  # noqa: E402
from metafx_tabular.operators import DATE_PARTS, OPERATORS, date_part  # noqa: E402


def make_frame(n: int = 157, seed: int = 0):
    """A mixed table: numeric (with missing values), categorical (strings, with missing), datetime, boolean."""
    rng = np.random.default_rng(seed)
    city = rng.choice(["paris", "rome", "oslo", "lima", "kyiv"], size=n, p=[0.4, 0.25, 0.15, 0.12, 0.08])
    plan = rng.choice(["a", "b", "c"], size=n)
    x = rng.normal(size=n)
    z = rng.gamma(2.0, size=n)
    start = pd.Timestamp("2020-01-01") + pd.to_timedelta(rng.integers(0, 700, n), unit="D")
    end = start + pd.to_timedelta(rng.integers(1, 90, n), unit="D") + pd.to_timedelta(rng.integers(0, 24, n), unit="h")
    df = pd.DataFrame({"x": x, "z": z, "city": city, "plan": pd.Categorical(plan), "start": start, "end": end,
                       "flag": rng.random(n) < 0.3})
    df.loc[rng.random(n) < 0.15, "x"] = np.nan
    df.loc[rng.random(n) < 0.1, "city"] = None
    df.loc[rng.random(n) < 0.05, "end"] = pd.NaT
    # the label needs a group-by feature: x against its city's mean, and the weekday
    city_shift = pd.Series(city).map({"paris": 1.0, "rome": -1.0, "oslo": 0.5, "lima": -0.5, "kyiv": 0.0}).to_numpy()
    y = ((np.nan_to_num(x) - city_shift + 0.5 * (start.day_of_week.to_numpy() >= 5)) > 0).astype(int)
    return df, y


# ------------------------------------------------------------------ kinds and encoding
def test_kinds_are_read_from_dtypes_and_can_be_given():
    df, _ = make_frame()
    assert infer_kinds(df) == ["numeric", "numeric", "categorical", "categorical", "datetime", "datetime", "numeric"]
    assert infer_kinds(df, {"flag": "categorical", 0: "numeric"})[6] == "categorical"
    assert infer_kinds(np.zeros((3, 2))) == ["numeric", "numeric"]
    assert infer_kinds(np.array([["a", 1.5], ["b", 2.0]], dtype=object)) == ["categorical", "numeric"]
    with pytest.raises(metafx.ValidationError, match="unknown kind"):
        infer_kinds(df, {"x": "text"})
    with pytest.raises(metafx.ValidationError, match="neither a column index"):
        infer_kinds(df, {"nope": "numeric"})


def test_categories_most_frequent_first_rare_ones_shared_unseen_and_missing():
    s = pd.DataFrame({"c": ["b", "a", "b", "c", None, "b", "a", "d", 2.0]})
    cats = learn_categories(s, ["categorical"], max_levels=3)
    assert cats == [["b", "a", OTHER]]
    codes = encode(pd.DataFrame({"c": ["a", "b", "zzz", None, "2"]}), ["categorical"], cats)[:, 0]
    np.testing.assert_array_equal(codes[:3], [1, 0, 2])  # unseen -> "(other)"
    assert np.isnan(codes[3]) and codes[4] == 2  # "2" and 2.0 are the same label; rare -> other
    # without an "(other)" code an unseen category reads as missing
    assert np.isnan(encode(pd.DataFrame({"c": ["q"]}), ["categorical"], [["a", "b"]])[0, 0])


def test_datetimes_become_days_since_1970():
    t = pd.DataFrame({"t": pd.to_datetime(["1970-01-02 12:00", None, "2000-03-01 00:00"]),
                      "u": pd.to_datetime(["2021-06-01"] * 3).tz_localize("Europe/Paris")})
    M = encode(t, ["datetime", "datetime"], [None, None])
    assert M[0, 0] == pytest.approx(1.5) and np.isnan(M[1, 0])
    assert M[2, 0] == (pd.Timestamp("2000-03-01") - pd.Timestamp("1970-01-01")).days
    assert M[0, 1] == pytest.approx((pd.Timestamp("2021-05-31 22:00") - pd.Timestamp("1970-01-01")) / pd.Timedelta("1D"))


# ------------------------------------------------------------------ operators against the references
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_category_operators_match_the_reference(seed):
    rng = np.random.default_rng(seed)
    n, m = 97, 41
    c = rng.integers(0, 5, n).astype(float)
    c[rng.random(n) < 0.1] = np.nan
    d = rng.integers(0, 3, n).astype(float)
    x = rng.normal(size=n)
    x[rng.random(n) < 0.1] = np.nan
    c2 = rng.integers(-1, 7, m).astype(float)  # out-of-range codes read as missing
    c2[:3] = np.nan
    d2 = rng.integers(0, 4, m).astype(float)
    x2 = rng.normal(size=m)
    x2[:2] = np.nan
    r = np.random.default_rng(0)

    op = OPERATORS["count"]
    np.testing.assert_allclose(op.apply([c2], op.fit([c], r)), naive.count(c.tolist(), c2.tolist()))
    op = OPERATORS["pair_count"]
    np.testing.assert_allclose(op.apply([c2, d2], op.fit([c, d], r)),
                               naive.pair_count(c.tolist(), d.tolist(), c2.tolist(), d2.tolist()))
    op = OPERATORS["group_mean"]
    np.testing.assert_allclose(op.apply([x2, c2], op.fit([x, c], r)), naive.group_mean(x.tolist(), c.tolist(), c2.tolist()))
    op = OPERATORS["group_dev"]
    np.testing.assert_allclose(op.apply([x2, c2], op.fit([x, c], r)),
                               naive.group_dev(x.tolist(), c.tolist(), x2.tolist(), c2.tolist()))
    op = OPERATORS["group_rank"]
    np.testing.assert_allclose(op.apply([x2, c2], op.fit([x, c], r)),
                               naive.group_rank(x.tolist(), c.tolist(), x2.tolist(), c2.tolist()), atol=1e-12)
    op = OPERATORS["isna"]
    np.testing.assert_array_equal(op.apply([x2], {}), np.isnan(x2).astype(float))


def test_date_parts_match_the_reference():
    rng = np.random.default_rng(3)
    days = rng.uniform(-2000, 25000, 301)
    days[::17] = np.nan
    for part in DATE_PARTS:
        np.testing.assert_allclose(date_part(days, part), naive.date_part(days.tolist(), part), err_msg=part)


def test_arithmetic_lets_missing_values_through():
    x = np.array([1.0, np.nan, 3.0, -2.0])
    r = np.random.default_rng(0)
    for name in ("threshold", "log", "square"):
        op = OPERATORS[name]
        v = op.apply([x], op.fit([x], r))
        assert np.isnan(v[1]) and np.isfinite(v[[0, 2, 3]]).all(), name


# ------------------------------------------------------------------ the family on a DataFrame
@pytest.fixture(scope="module")
def frame():
    return make_frame()


@pytest.fixture
def ffam(frame):
    df, y = frame
    # the point's own draws (no candidate screen), the operator an index: what these tests check
    return TabularFamily(screen=0, nominal_op=False).fit(df, y)


def test_fit_learns_the_schema(ffam, frame):
    df, _ = frame
    assert ffam.column_names == list(df.columns)
    assert ffam.column_kinds[2:6] == ["categorical", "categorical", "datetime", "datetime"]
    assert (ffam.categories[2][0] == "paris" and ffam.categories[3] == ["a", "b", "c"]) or len(ffam.categories[3]) == 3
    assert ffam.column_missing == [True, False, True, False, False, True, False]
    assert ffam.enabled_operators == list(OPERATORS)  # every kind is present


def test_operator_as_a_nominal_meta_feature(frame, ffam):
    """``nominal_op=True``: ``op`` is categorical (its values the operators' indices, as in saved
    points), so one move of a search reaches any other operator; by default it is an index that
    moves to its neighbours."""
    df, y = frame
    fam = TabularFamily(nominal_op=True, screen=0).fit(df, y)
    space = fam.space()
    op = next(d for d in space.dimensions if d.name == "op")
    ops = fam.enabled_operators
    assert op.kind == "categorical" and op.choices == tuple(range(len(ops))) and op.start == ops.index("mul")
    rng = np.random.default_rng(0)
    start = space.check_point({"arity": 2, "depth": 1, "op": 0, "rank": 0.5})
    assert {space.neighbour(start, rng)["op"] for _ in range(300)} == set(range(1, len(ops)))
    base = ffam.space()
    assert next(d for d in base.dimensions if d.name == "op").kind == "int"
    assert {base.neighbour(start, rng)["op"] for _ in range(300)} <= {0, 1}
    point = {"arity": 2, "depth": 1, "op": ops.index("pair_count"), "rank": 0.5}
    a, b = fam.draw(point, 4, np.random.default_rng(3)), ffam.draw(point, 4, np.random.default_rng(3))
    assert fam.to_json(a) == ffam.to_json(b)  # the same point draws the same features
    with pytest.raises(metafx.ValidationError, match="nominal_op"):
        TabularFamily(nominal_op="yes").fit(df, y)


@pytest.mark.parametrize("op", ["isna", "count", "pair_count", "group_mean", "group_dev", "group_rank",
                                "date_part", "date_diff"])
def test_typed_operators_draw_on_the_right_columns(ffam, op):
    ops = ffam.enabled_operators
    kinds = ffam.column_kinds
    b = ffam.draw({"arity": 2, "depth": 1, "op": ops.index(op), "rank": 0.5}, 6, np.random.default_rng(1))
    assert len(b) > 0
    for e in b.exprs:
        assert e["op"] == op
        for a, kind in zip(e["args"], OPERATORS[op].kinds, strict=True):
            assert "col" in a
            j = a["col"]
            as_category = kind == "categorical" and kinds[j] == "numeric" and "levels" in a
            assert (ffam.column_missing[j] if kind == "missing" else kinds[j] == kind or as_category), (op, j)
    d = ffam.describe(b)
    assert set(d["depth"]) == {1} and set(d["arity"]) == {OPERATORS[op].arity}


def test_values_json_and_missing_values(ffam, frame):
    df, _ = frame
    rng = np.random.default_rng(0)
    batch = ffam.concat([ffam.draw({"arity": 2, "depth": 1, "op": i, "rank": 0.3}, 3, rng)
                         for i in range(len(ffam.enabled_operators))])
    out = ffam.transform(df, batch)
    assert out.shape == (len(df), len(batch))
    names = ffam.feature_names(batch)
    # a feature reading x is missing exactly where x is (isna and the group-by means excepted)
    for i, e in enumerate(batch.exprs):
        if e["op"] not in ("isna", "count", "pair_count", "group_mean") and "x" in names[i].replace("x)", "x ").split():
            assert np.isnan(out[:, i]).sum() >= df["x"].isna().sum()
    vals = ffam.compute(ffam.prepare(df), batch)
    assert np.isfinite(vals.dense(np.float64)).all()
    np.testing.assert_array_equal(np.nan_to_num(out, nan=0.0), vals.dense(np.float64))
    # rows are independent; JSON rebuilds the family without data
    np.testing.assert_allclose(ffam.transform(df.iloc[::4], batch), out[::4])
    specs = json.loads(json.dumps(ffam.to_json(batch)))
    params = json.loads(json.dumps(ffam.get_params()))
    again = TabularFamily(**params)
    np.testing.assert_array_equal(again.transform(df, again.from_json(specs)), out)
    f2 = pickle.loads(pickle.dumps(ffam))
    np.testing.assert_array_equal(f2.transform(df, batch), out)
    zero = TabularFamily(**{**params, "missing": "zero"})
    np.testing.assert_array_equal(zero.transform(df, batch), vals.dense(np.float64))


def test_bad_tables_raise(ffam, frame):
    df, y = frame
    with pytest.raises(metafx.ValidationError, match="infinite"):
        TabularFamily().fit(df.assign(z=np.inf), y)
    with pytest.raises(metafx.ValidationError, match="columns"):
        ffam.transform(df.iloc[:, :3], ffam.draw(ffam.space().start(), 2, np.random.default_rng(0)))
    with pytest.raises(metafx.ValidationError, match="must be numeric"):
        ffam.prepare(df.assign(z="text"))
    with pytest.raises(metafx.ValidationError, match="operator 'count' needs a categorical column"):
        ffam.from_json([{"family": "tabular", "expr": {"op": "count", "args": [{"col": 0}], "freq": [1.0],
                                                       "range": [0, 1], "center": 0, "scale": 1}}])
    with pytest.raises(metafx.ValidationError, match="applies"):
        # numeric columns of more than 20 distinct values cannot be read as categories
        TabularFamily(operators=["count"]).fit(np.zeros((30, 2)) + np.arange(30)[:, None], np.arange(30) % 2)


def test_mixed_sets_use_several_operators(frame):
    df, y = frame
    fam = TabularFamily(mix=True, screen=0).fit(df, y)
    space = fam.space()
    n_ops = len(fam.enabled_operators)
    assert space["op"].high == n_ops  # the extra value "any"
    b = fam.draw({"arity": 2, "depth": 1, "op": n_ops, "rank": 0.5}, 12, np.random.default_rng(0))
    assert len({e["op"] for e in b.exprs}) >= 4
    assert set(fam.describe(b)["op"]) <= set(range(n_ops))


def test_symmetric_operators_are_not_drawn_twice():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 3))
    fam = TabularFamily(operators=["mul", "diff"]).fit(X, (X[:, 0] > 0).astype(int))
    for rank in (0.0, 0.5, 1.0):
        b = fam.draw({"arity": 2, "depth": 1, "op": 0, "rank": rank}, 20, np.random.default_rng(0))
        assert 1 <= len(b) <= 3  # at most the three pairs, once each
        assert len({tuple(sorted(a["col"] for a in e["args"])) for e in b.exprs}) == len(b)


# ------------------------------------------------------------------ evaluators
def test_cv_tree_reads_interactions_and_missing_values():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(240, 3))
    y = (X[:, 0] * X[:, 1] > 0).astype(int)
    ev = CVTree()
    assert ev.evaluate(X[:, :2], y, random_state=0) > ev.evaluate(X[:, 2:], y, random_state=0) + 0.1
    Xm = X.copy()
    Xm[::7, 0] = np.nan
    assert np.isfinite(ev.evaluate(Xm, y, random_state=0))
    assert np.isfinite(CVLinear().evaluate(Xm, y, random_state=0))
    with pytest.raises(metafx.ValidationError, match="infinite"):
        CVLinear().evaluate(np.where(np.isnan(Xm), np.inf, Xm), y)
    with pytest.raises(metafx.ValidationError, match="learning_rate"):
        CVTree(learning_rate=0).check_params()
    assert "C" not in CVTree().get_params() and CVTree().get_params()["n_splits"] == 3


class TestCVTreeClassification(EvaluatorConformance):
    evaluator = "cv-tree"
    task = "classification"


class TestCVTreeRegression(EvaluatorConformance):
    evaluator = "cv-tree"
    task = "regression"


class TestTabularFamilyOnAFrame(FamilyConformance):
    family = "tabular"
    family_params: ClassVar[dict[str, Any]] = {"missing": "zero", "mix": True}

    def make_data(self):
        return make_frame(n=70, seed=1)


class TestColumnKinds(DescriberConformance):
    describer = "tabular-kinds"
    family = "tabular"

    def make_data(self):
        return make_frame(n=70, seed=2)


def test_column_kinds_describer(ffam):
    from metafx_tabular.describers import ColumnKinds

    ops = ffam.enabled_operators
    b = ffam.draw({"arity": 2, "depth": 1, "op": ops.index("group_mean"), "rank": 0.5}, 2, np.random.default_rng(0))
    d = ColumnKinds().describe(ffam, b)
    np.testing.assert_array_equal(d[:, :4], [[2, 1, 1, 0]] * len(b))


# ------------------------------------------------------------------ end to end
def test_search_on_a_frame(frame):
    df, y = frame
    res = metafx.search(df, y, family="tabular", evaluator="cv-linear", budget=3, steps=6, seed=0, progress=False)
    assert res.transform(df).shape == (len(df), len(res.features))
    assert np.isfinite(res.best_quality)


def test_table_extractor_in_a_pipeline_keeps_names(frame):
    from sklearn.base import clone
    from sklearn.compose import make_column_transformer
    from sklearn.impute import SimpleImputer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    df, y = frame
    df = df.set_index(pd.RangeIndex(1000, 1000 + len(df)))
    fx = TableExtractor(budget=3, steps=4, seed=0).set_output(transform="pandas")
    F = fx.fit(df, y).transform(df)
    assert isinstance(F, pd.DataFrame) and list(F.columns) == list(fx.get_feature_names_out())
    assert (F.index == df.index).all() and list(fx.feature_names_in_) == list(df.columns)
    assert fx.n_features_in_ == df.shape[1]
    # as one step of a Pipeline, the features beside the encoded raw columns
    raw = make_column_transformer((OneHotEncoder(handle_unknown="ignore"), ["city", "plan"]),
                                  (SimpleImputer(add_indicator=True), ["x", "z"]))
    from sklearn.pipeline import make_union

    # (the imputer after the union: a confirmation that drops the set leaves the extractor with no column)
    for ev in ("cv-linear", _FewerIsBetter()):
        pipe = make_pipeline(make_union(raw, TableExtractor(budget=3, steps=4, evaluator=ev)),
                             SimpleImputer(keep_empty_features=True), StandardScaler(),
                             LogisticRegression(max_iter=2000))
        pipe.fit(df.iloc[:120], y[:120])
        assert 0.0 <= pipe.score(df.iloc[120:], y[120:]) <= 1.0
    assert pipe[0].transformer_list[1][1].n_features_out_ == 0          # the last one had no column
    assert clone(fx).get_params()["budget"] == 3
    with pytest.raises(metafx.ValidationError):
        TableExtractor(budget=3, steps=2, threshold=8).fit(df, y)


def test_meta_feature_extractor_reads_frames_in_a_pipeline(frame):
    """metafx's own MetaFeatureExtractor with the tabular family: a DataFrame with categorical,
    missing and datetime columns goes to the family as it is (no numeric validation), in a
    Pipeline, with the columns' names kept and the same features as TableExtractor's."""
    from sklearn.base import clone
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.pipeline import make_pipeline

    df, y = frame
    fx = metafx.MetaFeatureExtractor(family="tabular", evaluator="cv-linear", budget=3, steps=4, seed=0,
                                     engine="mufasa")  # TableExtractor's engine
    F = fx.fit(df, y).transform(df)
    assert F.shape[0] == len(df) and F.shape[1] == len(fx.get_feature_names_out()) > 0
    assert list(fx.feature_names_in_) == list(df.columns) and fx.n_features_in_ == df.shape[1]
    same = TableExtractor(budget=3, steps=4, seed=0, confirm=False, starts="default").fit(df, y)  # its own defaults off
    assert list(same.get_feature_names_out()) == list(fx.get_feature_names_out())
    np.testing.assert_array_equal(same.transform(df), F)
    with pytest.raises(ValueError, match="feature names"):  # other columns than at fit: refused
        fx.transform(df.rename(columns={"city": "town"}))
    # NaN passes through the features (missing="propagate"): a model that reads NaN takes them
    pipe = make_pipeline(clone(fx), HistGradientBoostingClassifier(max_iter=20, random_state=0))
    pipe.fit(df.iloc[:120], y[:120])
    assert 0.0 <= pipe.score(df.iloc[120:], y[120:]) <= 1.0
    out = clone(fx).set_output(transform="pandas").fit(df, y).transform(df.iloc[:7])
    assert isinstance(out, pd.DataFrame) and list(out.index) == list(df.index[:7])


def test_table_extractor_timeout_and_search_parameters(frame):
    from sklearn.base import clone

    df, y = frame
    fx = TableExtractor(budget=3, steps=100000, timeout=0.5, oversample=2.0)
    assert {"timeout", "oversample", "warm_start"} <= set(fx.get_params())
    fx.fit(df, y)
    assert fx.result_.metadata["stopped"] == "timeout" and 1 <= len(fx.result_.trajectory) < 100000
    assert clone(fx).get_params()["timeout"] == 0.5


# ------------------------------------------------------------------ confirmation of the search's set
class _FewerIsBetter(CVLinear):
    """Scores a set by minus its number of features: every drawn set loses to the table's columns alone."""

    name = "test-fewer-is-better"

    def evaluate(self, X, y, *, random_state=None):
        return -float(X.n_features)


def test_confirm_drops_a_set_that_does_not_beat_the_columns(frame):
    df, y = frame
    fx = TableExtractor(budget=3, steps=3, evaluator=_FewerIsBetter(), confirm="auto").set_output(transform="pandas") \
        .fit(df, y)
    assert fx.result_.features and fx.best_quality_ < 0          # the search ran and chose a set ...
    c = fx.confirmation_
    assert c["kept"] is False and c["columns_quality"] == 0.0 and c["quality"] == -len(fx.result_.features)
    assert fx.features_ == [] and fx.n_features_out_ == 0        # ... which the confirmation dropped
    out = fx.transform(df.iloc[:5])
    assert isinstance(out, pd.DataFrame) and out.shape == (5, 0) and list(out.index) == list(df.index[:5])
    assert fx.get_feature_names_out().shape == (0,)
    off = TableExtractor(budget=3, steps=3, evaluator=_FewerIsBetter(), confirm=False).fit(df, y)
    assert off.confirmation_ is None and off.features_ == off.result_.features and off.n_features_out_ > 0


def test_confirm_keeps_a_useful_set_and_scores_it_on_a_fresh_split():
    rng = np.random.default_rng(3)
    X = pd.DataFrame({"a": rng.normal(size=300), "b": rng.normal(size=300), "c": rng.normal(size=300)})
    y = X["a"] * X["b"] + 0.1 * rng.normal(size=300)              # a product the columns alone cannot give
    fx = TableExtractor(budget=2, steps=12, seed=5, confirm="auto").fit(X, y)
    c = fx.confirmation_
    assert c["kept"] is True and c["quality"] > c["columns_quality"] + 0.3
    assert fx.n_features_out_ == len(fx.features_) == len(fx.result_.features) > 0
    assert c["seed"] != fx.result_.seed                          # not the search's split
    # the recorded qualities are the evaluator's own, on that seed
    fam, batch = fx.result_.feature_batch()
    prep = fam.prepare(X)
    assert CVLinear().evaluate(fam.compute(prep, batch), np.asarray(y), random_state=c["seed"]) == c["quality"]
    assert CVLinear().evaluate(fam.compute(prep, batch.take([])), np.asarray(y), random_state=c["seed"]) \
        == c["columns_quality"]
    again = TableExtractor(budget=2, steps=12, seed=5, confirm="auto").fit(X, y)
    assert again.confirmation_ == c                               # reproducible


def test_confirm_must_be_a_bool_or_test(frame):
    df, y = frame
    with pytest.raises(metafx.ValidationError, match="confirm='yes'; allowed: True, False, 'holdout', 'crossfit', 'test', 'auto'"):
        TableExtractor(budget=3, steps=2, confirm="yes").fit(df, y)
    with pytest.raises(metafx.ValidationError, match="allowed: True, False, 'holdout', 'crossfit', 'test', 'auto'"):
        TableExtractor(budget=3, steps=2, confirm=np.array([1, 2])).fit(df, y)
    with pytest.raises(metafx.ValidationError, match="confirm='test' needs an evaluator with fold_scores"):
        TableExtractor(budget=3, steps=2, confirm="test", evaluator=_NoFolds()).fit(df, y)


class _NoFolds(SetEvaluator):
    name = "test-no-folds"

    def evaluate(self, X, y, *, random_state=None):
        return float(X.n_features)


def _naive_corrected_t(d, k):
    """The corrected resampled t statistic written out, and its one-sided p by integrating Student's density."""
    import math

    from scipy import integrate
    n = len(d)
    m = sum(d) / n
    v = sum((x - m) ** 2 for x in d) / (n - 1)
    t = m / math.sqrt((1 / n + 1 / (k - 1)) * v)
    nu = n - 1
    c = math.gamma((nu + 1) / 2) / (math.sqrt(nu * math.pi) * math.gamma(nu / 2))
    p = integrate.quad(lambda x: c * (1 + x * x / nu) ** (-(nu + 1) / 2), t, math.inf)[0]
    return t, p


@pytest.mark.parametrize("n, k", [(2, 2), (9, 3), (15, 5), (7, 4)])
def test_corrected_t_test_matches_the_formula(n, k):
    rng = np.random.default_rng(n * 10 + k)
    for shift in (-0.02, 0.0, 0.01, 0.05):
        d = rng.normal(shift, 0.02, size=n)
        t, p = corrected_t_test(d, k)
        t0, p0 = _naive_corrected_t(list(d), k)
        assert t == pytest.approx(t0, rel=1e-12) and p == pytest.approx(p0, rel=1e-6, abs=1e-12)
    # the correction makes the test stricter than the plain paired t-test (a positive mean: a larger p)
    d = rng.normal(0.0, 0.02, size=n)
    d = d - d.mean() + 0.005
    from scipy.stats import ttest_1samp
    assert corrected_t_test(d, k)[1] > ttest_1samp(d, 0.0, alternative="greater").pvalue
    assert corrected_t_test(np.full(n, 0.25), k) == (np.inf, 0.0)
    assert corrected_t_test(np.full(n, -0.25), k) == (-np.inf, 1.0)
    assert corrected_t_test(np.zeros(n), k) == (0.0, 0.5)


def test_corrected_t_test_rejects_bad_input():
    with pytest.raises(metafx.ValidationError, match="needs >= 2 finite differences"):
        corrected_t_test([0.1], 3)
    with pytest.raises(metafx.ValidationError, match="needs >= 2 finite differences"):
        corrected_t_test([0.1, np.nan], 3)
    with pytest.raises(metafx.ValidationError, match="n_splits=1 must be an integer >= 2"):
        corrected_t_test([0.1, 0.2], 1)


@pytest.mark.parametrize("cls", [CVLinear, CVTree])
@pytest.mark.parametrize("task", ["classification", "regression"])
def test_fold_scores_are_what_evaluate_averages(cls, task):
    rng = np.random.default_rng(7)
    X = rng.normal(size=(61, 3))                                  # 61 rows: folds of unequal size
    X[rng.random(X.shape) < 0.1] = np.nan if cls is CVTree else 0.0
    y = (X[:, 0] > 0).astype(int) if task == "classification" else rng.normal(size=61)
    ev = cls()
    s = ev.fold_scores(X, y, random_state=4)
    assert s.shape == (ev.n_splits * ev.n_repeats,)
    assert float(np.mean(s)) == ev.evaluate(X, y, random_state=4)
    s5 = ev.fold_scores(X, y, random_state=4, n_repeats=5)
    assert s5.shape == (ev.n_splits * 5,) and np.array_equal(s5[:s.size], s)   # more repeats: the same first folds
    with pytest.raises(metafx.ValidationError, match="n_repeats=0 must be an integer >= 1"):
        ev.fold_scores(X, y, n_repeats=0)


@pytest.mark.parametrize("cls", [CVLinear, CVTree])
@pytest.mark.parametrize("task", ["classification", "regression"])
def test_split_scores_on_the_evaluators_folds_are_its_fold_scores(cls, task):
    from sklearn.model_selection import RepeatedKFold, RepeatedStratifiedKFold, train_test_split

    rng = np.random.default_rng(8)
    X = rng.normal(size=(61, 3))
    X[rng.random(X.shape) < 0.1] = np.nan if cls is CVTree else 0.0   # the tree's imputer path too
    y = (X[:, 0] > 0).astype(int) if task == "classification" else rng.normal(size=61)
    ev = cls()
    splitter = (RepeatedStratifiedKFold if task == "classification" else RepeatedKFold)(
        n_splits=ev.n_splits, n_repeats=ev.n_repeats, random_state=4)
    folds = list(splitter.split(np.zeros((61, 1)), y))
    assert np.array_equal(ev.split_scores(X, y, folds), ev.fold_scores(X, y, random_state=4))
    tr, te = train_test_split(np.arange(61), test_size=0.3, random_state=0)
    one = ev.split_scores(X, y, [(tr, te)])
    assert one.shape == (1,) and np.isfinite(one[0])
    for bad, what in (([], "non-empty list"), ([(tr,)], r"splits\[0\] must be a \(train rows, test rows\) pair"),
                      ([(tr, te + 61)], r"splits\[0\]: the test rows must be .* in \[0, 61\)"),
                      ([(tr.astype(float), te)], "the train rows"), ([(tr[:0], te)], "the train rows")):
        with pytest.raises(metafx.ValidationError, match=what):
            ev.split_scores(X, y, bad)
    if task == "classification":
        # a class smaller than n_splits is fine with splits of the caller's; a train part needs 2 classes and
        # every class of its test part
        y2 = y.copy()
        y2[np.flatnonzero(y2 == 1)[2:]] = 0          # class 1 holds 2 rows, fewer than n_splits=3
        rows = np.flatnonzero(y2 == 1)
        rest = np.setdiff1d(np.arange(61), rows)
        ok = ev.split_scores(X, y2, [(np.r_[rest[:40], rows[:1]], np.r_[rest[40:], rows[1:]])])
        assert np.isfinite(ok[0])
        with pytest.raises(metafx.ValidationError, match=r"splits\[0\]: the train rows hold one class \(0\)"):
            ev.split_scores(X, y2, [(rest[:40], rows)])
        y3 = y.copy()
        y3[rows] = 2                                  # a third class, only in the test part
        with pytest.raises(metafx.ValidationError, match=r"splits\[0\]: the test rows hold classes \[2\]"):
            ev.split_scores(X, y3, [(rest[:40], np.r_[rest[40:], rows])])


def test_confirm_test_keeps_a_clear_gain_and_drops_noise():
    rng = np.random.default_rng(3)
    X = pd.DataFrame({"a": rng.normal(size=300), "b": rng.normal(size=300), "c": rng.normal(size=300)})
    y = X["a"] * X["b"] + 0.1 * rng.normal(size=300)              # a product the columns alone cannot give
    fx = TableExtractor(budget=2, steps=12, seed=5, confirm="test").fit(X, y)
    c = fx.confirmation_
    assert c["kept"] is True and c["p"] < 0.05 and c["t"] > 0 and c["n_folds"] == 15   # cv-linear: 5 x 3
    assert fx.n_features_out_ == len(fx.result_.features) > 0
    # the recorded numbers are the evaluator's fold scores on the confirmation's seed
    fam, batch = fx.result_.feature_batch()
    prep = fam.prepare(X)
    s_set = CVLinear().fold_scores(fam.compute(prep, batch), np.asarray(y), random_state=c["seed"])
    s_cols = CVLinear().fold_scores(fam.compute(prep, batch.take([])), np.asarray(y), random_state=c["seed"])
    assert c["quality"] == float(np.mean(s_set)) and c["columns_quality"] == float(np.mean(s_cols))
    assert (c["t"], c["p"]) == corrected_t_test(s_set - s_cols, 5)
    # the tree search's set passes too when it helps trees clearly (a product: many splits for a tree)
    tree = TableExtractor(budget=2, steps=12, seed=0, evaluator="cv-tree", confirm="test").fit(X, y)
    c = tree.confirmation_
    assert c["kept"] is True and c["n_folds"] == 9 and c["p"] < 0.05 and c["quality"] > c["columns_quality"] + 0.1
    assert "a * b" in list(tree.get_feature_names_out()) and tree.n_features_out_ > 0
    # y unrelated to the table: whatever the search kept by luck does not pass the test
    noise = rng.normal(size=300)
    tree = TableExtractor(budget=2, steps=6, seed=1, evaluator="cv-tree", confirm="test").fit(X, noise)
    c = tree.confirmation_
    assert c["n_folds"] == 9 and c["kept"] is False and c["p"] >= 0.05   # cv-tree: 3 folds x 3 repeats
    assert tree.n_features_out_ == 0 and tree.features_ == []
    # "auto" (the default before issue 43): one fresh split, for cv-tree as for cv-linear
    auto = TableExtractor(budget=2, steps=6, seed=1, evaluator="cv-tree", confirm="auto").fit(X, noise).confirmation_
    assert auto is not None and "t" not in auto and auto["seed"] == c["seed"]
    assert auto == TableExtractor(budget=2, steps=6, seed=1, evaluator="cv-tree", confirm=True).fit(X, noise).confirmation_
    assert set(fx.get_params()["confirm"] for fx in [TableExtractor()]) == {"holdout"}
    lin = TableExtractor(budget=2, steps=6, seed=1, confirm="auto").fit(X, noise).confirmation_
    assert lin is None or "t" not in lin


# ------------------------------------------------------------------ start points per operator group
def test_group_starts_one_point_per_operator_group(frame):
    df, y = frame
    fam = TabularFamily().fit(df, y)
    ops = fam.enabled_operators
    starts = fam.group_starts()
    base = fam.space().start(None)
    assert starts[0] == base
    groups = [OPERATORS[ops[p["op"]]].group for p in starts]
    assert groups == ["arith", "missing", "category", "date"]    # the frame has all four
    for p in starts[1:]:                                           # each at its group's first operator
        assert {k: v for k, v in p.items() if k != "op"} == {k: v for k, v in base.items() if k != "op"}
        assert all(OPERATORS[o].group != OPERATORS[ops[p["op"]]].group for o in ops[:p["op"]])
    numeric = TabularFamily().fit(np.random.default_rng(0).normal(size=(50, 3)), np.arange(50) % 2)
    assert numeric.group_starts() == [numeric.space().start(None)]
    # mix=True: "any" (the last op value) is started too, where there are several groups
    mixed = TabularFamily(mix=True).fit(df, y)
    assert mixed.group_starts() == [*starts, {**base, "op": len(ops)}]
    assert {d.name: d for d in mixed.space().dimensions}["op"].high == len(ops)
    numeric_mixed = TabularFamily(mix=True).fit(np.random.default_rng(0).normal(size=(50, 3)), np.arange(50) % 2)
    assert numeric_mixed.group_starts() == [numeric_mixed.space().start(None)]


def test_table_extractor_starts_groups_evaluates_the_group_starts_first(frame):
    df, y = frame
    fx = TableExtractor(budget=3, steps=8, starts="groups", confirm=False).fit(df, y)  # warm starts: <= steps // 2
    starts = TabularFamily().fit(df, y).group_starts()
    assert [r.point for r in fx.result_.trajectory[:len(starts)]] == starts
    # a numeric table without missing values has one group: the same search as the default start
    rng = np.random.default_rng(1)
    X = rng.normal(size=(120, 3))
    yn = (X[:, 0] * X[:, 1] > 0).astype(int)
    a = TableExtractor(budget=3, steps=5, starts="groups").fit(X, yn)
    b = TableExtractor(budget=3, steps=5).fit(X, yn)
    assert [r.point for r in a.result_.trajectory] == [r.point for r in b.result_.trajectory]
    assert a.features_ == b.features_
    with pytest.raises(metafx.ValidationError, match="starts='all'; allowed: 'default', 'groups'"):
        TableExtractor(budget=3, steps=2, starts="all").fit(df, y)


def test_commutative_operators_have_one_name_whatever_the_draw(frame):
    """``a * b`` and ``count(a, b)`` are built with their arguments in one order: the same feature drawn
    with its columns in either order (two folds, two draws) is one expression, one name, one value."""
    from metafx_tabular.drawing import build
    from metafx_tabular.expressions import COMMUTATIVE, _structure

    df, y = frame
    fam = TabularFamily().fit(df, y)
    kinds = fam._kinds()
    num = [j for j, k in enumerate(kinds) if k == "numeric"]
    cat = [j for j, k in enumerate(kinds) if k == "categorical"]
    assert COMMUTATIVE == {"mul", "pair_count"}
    for root, (a, b) in (("mul", num[:2]), ("pair_count", cat[:2])):
        e1, v1 = build(fam, ("B", "L", "L"), root, [a, b], np.random.default_rng(0))
        e2, v2 = build(fam, ("B", "L", "L"), root, [b, a], np.random.default_rng(0))
        assert e1 == e2 and [_structure(x) for x in e1["args"]] == sorted(_structure(x) for x in e1["args"])
        np.testing.assert_array_equal(v1, v2)
        batch = fam.from_json([{"family": "tabular", "expr": e1}])
        assert fam.feature_names(batch) == fam.feature_names(fam.from_json([{"family": "tabular", "expr": e2}]))
    # a non-commutative operator keeps its order
    e1, _ = build(fam, ("B", "L", "L"), "ratio", num[:2], np.random.default_rng(0))
    e2, _ = build(fam, ("B", "L", "L"), "ratio", num[:2][::-1], np.random.default_rng(0))
    assert e1["args"] == e2["args"][::-1]


def test_docstring_examples():
    import doctest

    import metafx_tabular.evaluator
    import metafx_tabular.extractor
    import metafx_tabular.family

    for mod in (metafx_tabular.extractor, metafx_tabular.evaluator, metafx_tabular.family):
        res = doctest.testmod(mod, optionflags=doctest.ELLIPSIS)
        assert res.attempted > 0 and res.failed == 0, mod.__name__


def test_a_bad_table_confirm_is_refused_before_the_search(monkeypatch):
    monkeypatch.setattr(CVLinear, "table_confirm", "yes")
    X = pd.DataFrame({"a": np.arange(30.0), "b": np.arange(30.0) % 7})
    fx = TableExtractor(budget=2, steps=2, seed=0, confirm="auto")
    with pytest.raises(metafx.ValidationError, match="evaluator 'cv-linear' has table_confirm='yes'"):
        fx.fit(X, X["a"] * X["b"])
    assert not hasattr(fx, "result_")   # refused before any search ran
