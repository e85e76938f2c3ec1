"""The tabular family, its describers and the cv-linear evaluator: behaviour specific to this plugin."""

from __future__ import annotations

import json

import numpy as np
import pytest
from sklearn.datasets import load_diabetes

import metafx
import metafx.plugin
from metafx_tabular import CVLinear, TabularFamily
from metafx_tabular.batch import TableValues
from metafx_tabular.operators import ARITH, OPERATORS
from metafx_tabular.shapes import tree_shapes
from metafx_tabular.tasks import column_scores, infer_task


@pytest.fixture(scope="module")
def table():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 6))
    X[:, 3] = np.exp(X[:, 3])  # a skewed positive column
    y = (X[:, 0] * X[:, 1] + 0.3 * X[:, 2] > 0).astype(int)
    return X, y


@pytest.fixture
def fam(table):
    X, y = table
    return TabularFamily(column_names=list("abcdef"), max_depth=2, screen=0).fit(X, y)


def point(fam, **kw):
    p = fam.space().start()
    p.update(kw)
    return p


# ------------------------------------------------------------------ registration
def test_registered_from_the_distribution():
    reg = metafx.plugin.get_registry()
    for kind, name in [("family", "tabular"), ("describer", "tabular-ops"), ("describer", "tabular-inputs"),
                       ("set-evaluator", "cv-linear"), ("set-evaluator", "cv-tree")]:
        r = reg.registration(kind, name)
        assert r.plugin == "tabular" and r.distribution == "metafx-tabular", r


# ------------------------------------------------------------------ ranks, tasks
def test_infer_task():
    assert infer_task(np.array([0, 1, 2, 1])) == "classification"
    assert infer_task(np.array(["a", "b"])) == "classification"
    assert infer_task(np.array([0.5, 1.0, 2.0])) == "regression"
    assert infer_task(np.arange(100.0)) == "regression"  # many distinct integer values


@pytest.mark.parametrize("name, params, label", [
    ("cv-linear", {}, "-log-loss (classes) or R^2 (real target), 5-fold CV x3, linear model"),
    ("cv-linear", {"task": "classification"}, "-log-loss, 5-fold CV x3, logistic regression"),
    ("cv-linear", {"task": "regression", "n_repeats": 1}, "R^2, 5-fold CV, ridge regression"),
    ("cv-linear", {"scoring": "accuracy", "task": "classification"}, "accuracy, 5-fold CV x3, logistic regression"),
    ("cv-tree", {}, "-log-loss (classes) or R^2 (real target), 3-fold CV, boosted trees"),
])
def test_evaluators_name_their_quality(name, params, label):
    # what `metafx search` prints as the best quality and plots draw on their axis: the score, not "quality (cv-linear)"
    assert metafx.plugin.make_component("set-evaluator", name, params).quality_label == label


def test_column_rank_puts_the_informative_column_first(table):
    X, _ = table
    y = (X[:, 4] > 0).astype(int)
    fam = TabularFamily().fit(X, y)
    assert fam.column_rank[4] == 0.0 and max(fam.column_rank) == 1.0
    assert sorted(fam.column_rank) == pytest.approx(np.linspace(0, 1, 6))
    yr = 3 * X[:, 2] + np.random.default_rng(1).normal(size=len(X))
    assert TabularFamily().fit(X, yr).column_rank[2] == 0.0
    assert np.argmax(column_scores(X, yr, "regression")) == 2


# ------------------------------------------------------------------ drawing follows the point
@pytest.mark.parametrize("op", ARITH)
def test_draw_matches_feasible_points(fam, op):
    ops = fam.enabled_operators
    arity = 1 if OPERATORS[op].arity == 1 else 2
    batch = fam.draw(point(fam, op=ops.index(op), arity=arity, depth=1, rank=0.5), 10, np.random.default_rng(0))
    assert len(batch) > 0
    d = fam.describe(batch)
    assert set(d["arity"]) == {arity} and set(d["depth"]) == {1} and set(d["op"]) == {ops.index(op)}
    assert np.all(batch.costs == 1)


def test_infeasible_points_are_moved_to_the_nearest_feasible(fam, table):
    ops = fam.enabled_operators
    rng = np.random.default_rng(0)
    # a binary root needs two columns
    d = fam.describe(fam.draw(point(fam, op=ops.index("mul"), arity=1, depth=1), 6, rng))
    assert set(d["arity"]) == {2}
    # a unary root over two columns needs depth 2: log(a * b)
    d = fam.describe(fam.draw(point(fam, op=ops.index("log"), arity=2, depth=1), 12, rng))
    assert set(d["arity"]) == {2} and set(d["depth"]) == {2}
    # over three columns it needs depth 3, beyond max_depth=2: the arity gives way
    d = fam.describe(fam.draw(point(fam, op=ops.index("log"), arity=3, depth=2), 12, rng))
    assert set(d["arity"]) == {2} and set(d["depth"]) == {2}
    deep = TabularFamily(max_depth=3, screen=0).fit(*table)
    d = deep.describe(deep.draw(point(deep, op=ops.index("log"), arity=3, depth=1), 12, rng))
    assert set(d["arity"]) == {3} and set(d["depth"]) == {3}


def test_rank_meta_feature_selects_columns(fam):
    ops = fam.enabled_operators
    rank = np.asarray(fam.column_rank)
    best = fam.draw(point(fam, op=ops.index("log"), arity=1, depth=1, rank=0.0), 6, np.random.default_rng(0))
    worst = fam.draw(point(fam, op=ops.index("log"), arity=1, depth=1, rank=1.0), 6, np.random.default_rng(0))
    assert fam.describe(best)["rank"].mean() < 0.35 < 0.65 < fam.describe(worst)["rank"].mean()
    # with two inputs, `rank` is the best input's: the anchor near the target, its partner no better
    pairs = fam.draw(point(fam, op=ops.index("mul"), arity=2, depth=1, rank=0.4), 12, np.random.default_rng(1))
    for cols in pairs.columns():
        r = sorted(rank[cols])
        assert r[0] < r[1]
    assert abs(fam.describe(pairs)["rank"].mean() - 0.4) < 0.2


def test_tags(table):
    X, y = table
    fam = TabularFamily(column_names=list("abcdef"), column_tags={"a": "geo", "b": "geo", 4: "money", "f": "money"},
                        screen=0)
    fam.fit(X, y)
    assert fam.tag_names() == ["geo", "money"]
    assert fam.column_tags == ["geo", "geo", "", "", "money", "money"]
    assert "tag" in fam.space().names
    ops = fam.enabled_operators
    batch = fam.draw(point(fam, op=ops.index("mul"), arity=2, depth=1, tag=1), 5, np.random.default_rng(0))
    assert all(set(c) == {4, 5} for c in batch.columns())
    assert set(fam.describe(batch)["tag"]) == {1}
    with pytest.raises(metafx.ValidationError, match="column_tags"):
        TabularFamily(column_tags=["x"]).fit(X, y)


def test_shapes_never_stack_unary_operators():
    def unary_over_unary(s):
        if s == "L":
            return False
        if s[0] == "U" and s[1] != "L" and s[1][0] == "U":
            return True
        return any(unary_over_unary(c) for c in s[1:])

    shapes = tree_shapes(3, 3, True, True)
    assert not any(unary_over_unary(s) for group in shapes.values() for s in group)
    assert ("B", 3, 1) not in shapes and ("U", 2, 1) not in shapes and ("B", 2, 1) in shapes


def test_budget_and_costs(fam):
    rng = np.random.default_rng(3)
    for _ in range(20):
        b = fam.draw(fam.space().uniform(rng), 7.5, rng)
        assert b.costs.sum() <= 7.5
        assert np.array_equal(b.costs, [sum(1 for _ in _ops(e)) for e in b.exprs])
    assert fam.min_cost() == 1.0


def _ops(e):
    if "col" in e:
        return []
    return [e["op"]] + [o for a in e["args"] for o in _ops(a)]


def test_no_repeats_and_no_constant_features(fam, table):
    X, _ = table
    b = fam.draw(point(fam, op=fam.enabled_operators.index("log"), arity=1, depth=1), 50, np.random.default_rng(0))
    keys = [json.dumps(e, sort_keys=True) for e in b.exprs]
    assert len(keys) == len(set(keys)) and len(b) <= 6  # only six columns to take a log of
    assert np.all(fam.transform(X, b).std(axis=0) > 0)


# ------------------------------------------------------------------ values, by hand
def test_positive_columns_keep_their_origin(fam, table):
    X, _ = table
    assert fam.column_center[3] == 0.0  # exp(normal): positive
    assert fam.column_center[0] == pytest.approx(X[:, 0].mean())
    np.testing.assert_allclose(fam.column_scale, X.std(0))


def test_values_match_a_hand_computation(fam, table):
    X, _ = table
    z = (X - np.where(X.min(0) > 0, 0.0, X.mean(0))) / X.std(0)

    def std(v, e):
        return (v - e["center"]) / e["scale"]

    mul = {"op": "mul", "args": [{"col": 0}, {"col": 1}], "center": 0.1, "scale": 2.0}
    ratio = {"op": "ratio", "args": [{"col": 3}, {"col": 2}], "lo": [-0.5, -3.0], "center": 0.0, "scale": 1.0}
    log = {"op": "log", "args": [{"col": 3}], "lo": -0.7, "center": 0.2, "scale": 0.5}
    thr = {"op": "threshold", "args": [mul], "q": 0.5, "t": 0.25}
    sq = {"op": "square", "args": [{"op": "diff", "args": [{"col": 4}, {"col": 5}], "center": 0.0, "scale": 1.5}],
          "center": 1.0, "scale": 1.0}
    clipped = {"op": "mul", "args": [{"col": 0}, {"col": 1}], "range": [-0.5, 1.0], "center": 0.2, "scale": 0.4}
    batch = fam.from_json([{"family": "tabular", "expr": e} for e in (mul, ratio, log, thr, sq, clipped)])
    got = fam.transform(X, batch)
    m = std(z[:, 0] * z[:, 1], mul)
    expected = np.stack([
        m,
        (z[:, 3] + 0.5) / np.maximum(z[:, 2] + 3.0, 1e-3),
        std(np.log(z[:, 3] + 0.7), log),
        (m > 0.25).astype(float),
        std(((z[:, 4] - z[:, 5]) / 1.5) ** 2, sq),
        std(np.clip(z[:, 0] * z[:, 1], -0.5, 1.0), clipped),  # clipped first, then standardized
    ], axis=1)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
    assert fam.feature_names(batch) == ["a * b", "d / c", "log(d)", "[a * b > q50]", "(e - f)^2", "a * b"]


def test_drawn_constants_standardize_on_training_rows(fam, table):
    X, _ = table
    b = fam.draw(point(fam, op=fam.enabled_operators.index("mul"), arity=2, depth=1), 5, np.random.default_rng(0))
    V = fam.transform(X, b)  # the sample is the whole table here (300 < sample_size)
    np.testing.assert_allclose(V.mean(0), 0, atol=1e-9)
    np.testing.assert_allclose(V.std(0), 1, atol=1e-9)


def test_new_data_is_clipped_to_the_training_range(fam, table):
    b = fam.draw_random(30, np.random.default_rng(0))
    X = np.full((4, 6), 1e12)
    X[1] = -1e12
    X[2] = 0.0
    V = fam.transform(X, b)
    assert np.all(np.isfinite(V))
    T = fam.transform(table[0], b)
    assert np.all(V >= T.min(0) - 1e-12) and np.all(V <= T.max(0) + 1e-12)


def test_values_carry_the_table(fam, table):
    X, _ = table
    b = fam.draw_random(5, np.random.default_rng(0))
    vals = fam.compute(fam.prepare(X), b)
    assert isinstance(vals, TableValues) and vals.columns.shape == X.shape
    assert isinstance(vals.take([0]), TableValues) and vals.take([0]).columns is vals.columns


def test_bad_parameters_and_specs(table):
    X, y = table
    # __init__ only stores: make_component, create and fit check the parameters
    with pytest.raises(metafx.ValidationError, match="operators"):
        metafx.plugin.make_component("family", "tabular", {"operators": ["mul", "sine"]})
    with pytest.raises(metafx.ValidationError, match="max_arity"):
        TabularFamily(max_arity=4).fit(X, y)
    with pytest.raises(metafx.ValidationError, match="fit"):
        TabularFamily().space()
    fam = TabularFamily(operators=["mul"]).fit(X, y)
    with pytest.raises(metafx.ValidationError, match="not enabled"):
        fam.from_json([{"family": "tabular", "expr": {"op": "log", "args": [{"col": 0}], "lo": 0.0,
                                                        "center": 0.0, "scale": 1.0}}])
    with pytest.raises(metafx.ValidationError, match="column"):
        fam.from_json([{"family": "tabular", "expr": {"op": "mul", "args": [{"col": 0}, {"col": 9}],
                                                        "center": 0.0, "scale": 1.0}}])
    with pytest.raises(metafx.ValidationError, match="columns"):
        fam.prepare(X[:, :3])


# ------------------------------------------------------------------ describers
def test_describers(fam):
    reg = metafx.plugin.get_registry()
    ops_desc = reg.get("describer", "tabular-ops")()
    inp_desc = reg.get("describer", "tabular-inputs")()
    b = fam.draw(point(fam, op=fam.enabled_operators.index("ratio"), arity=3, depth=2), 8, np.random.default_rng(0))
    M = ops_desc.describe(fam, b)
    assert np.all(M[:, ops_desc.columns.index("n_ratio")] >= 1)
    np.testing.assert_array_equal(M.sum(1), b.costs)
    R = inp_desc.describe(fam, b)
    best = fam.describe(b)["rank"]  # the best input's rank
    assert np.all(best <= R[:, 0]) and np.all(R[:, 0] <= R[:, 1])


# ------------------------------------------------------------------ evaluator
def test_cv_linear_with_columns(fam, table):
    X, y = table
    b = fam.draw(point(fam, op=fam.enabled_operators.index("mul"), arity=2, depth=1, rank=0.0), 3, np.random.default_rng(0))
    vals = fam.compute(fam.prepare(X), b)
    ev = CVLinear()
    with_cols = ev.evaluate(vals, y, random_state=0)
    alone = CVLinear(with_columns=False).evaluate(vals, y, random_state=0)
    plain = ev.evaluate(vals.dense(np.float64), y, random_state=0)  # a plain array carries no table
    assert alone == plain and with_cols != alone
    raw = CVLinear().evaluate(fam.compute(fam.prepare(X), b.take([])), y, random_state=0)
    assert raw == pytest.approx(CVLinear().evaluate(fam.prepare(X)["z"], y, random_state=0))


def test_cv_linear_regression_and_scoring():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 3))
    y = X[:, 0] - 2 * X[:, 1] + 0.1 * rng.normal(size=120)
    assert CVLinear().evaluate(X, y, random_state=0) > 0.95
    assert CVLinear(scoring="neg_mean_squared_error").evaluate(X, y, random_state=0) < 0
    assert CVLinear(n_repeats=2).evaluate(X, y, random_state=0) > 0.95
    with pytest.raises(metafx.ValidationError, match="scoring"):
        CVLinear(scoring="nope").check_params()
    with pytest.raises(metafx.ValidationError, match="n_splits"):
        CVLinear().evaluate(X[:, :1], (X[:, 0] > 2).astype(int), random_state=0)


# ------------------------------------------------------------------ end to end
def test_search_result_round_trip_on_diabetes():
    d = load_diabetes()
    X, y = d.data, d.target
    res = metafx.search(X[:300], y[:300], family="tabular", evaluator="cv-linear", budget=6, steps=3, seed=0,
                        progress=False, family_params={"column_names": list(d.feature_names)})
    again = metafx.SearchResult.from_json_text(res.to_json())
    np.testing.assert_array_equal(again.transform(X[300:]), res.transform(X[300:]))
    assert again.feature_names() == res.feature_names()
    assert any(n in " ".join(res.feature_names()) for n in d.feature_names)


def test_extractor_with_the_tabular_family():
    d = load_diabetes()
    fx = metafx.MetaFeatureExtractor(family="tabular", evaluator="cv-linear", budget=5, steps=2).fit(d.data, d.target)
    out = fx.transform(d.data[:7])
    assert out.shape == (7, fx.n_features_out_) and out.dtype == np.float64
    assert len(fx.get_feature_names_out()) == fx.n_features_out_


def test_space_bounds_follow_depth(table):
    X, y = table
    shallow = TabularFamily().fit(X, y)  # max_depth 1: one operator over one or two columns
    assert shallow.space()["arity"].high == 2 and shallow.space()["depth"].high == 1
    deep = TabularFamily(max_depth=2).fit(X, y)
    assert deep.space()["arity"].high == 3 and deep.space()["depth"].high == 2
    one = TabularFamily().fit(X[:, :1], y)
    assert one.space()["arity"].high == 1
    # the operator indices are named where a point is shown (op=3 (mul))
    op = shallow.space()["op"]
    assert op.labels[:len(shallow.enabled_operators)] == tuple(shallow.enabled_operators)
    assert shallow.space().describe({"op": shallow.enabled_operators.index("mul")}) == \
        f"op={shallow.enabled_operators.index('mul')} (mul)"
    # one numeric column: the binary arithmetic operators are not enabled (each op value draws its own features)
    assert one.enabled_operators == ["threshold", "log", "square"]
    assert TabularFamily(max_arity=1).fit(X, y).enabled_operators == ["threshold", "log", "square"]
    assert TabularFamily().fit(X[:, :2], y).enabled_operators == ["threshold", "log", "square", "mul", "ratio", "diff"]
    # an explicit binary operator that cannot apply: said so
    with pytest.raises(metafx.ValidationError, match="none of the operators"):
        TabularFamily(operators=["mul"]).fit(X[:, :1], y).space()
    fam = TabularFamily(operators=["log", "mul"]).fit(X[:, :1], y)
    b = fam.draw(point(fam, op=0), 5, np.random.default_rng(0))
    assert len(b) > 0 and set(fam.describe(b)["arity"]) == {1}


def test_cv_linear_default_scores_log_loss(table):
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import log_loss
    from sklearn.model_selection import RepeatedStratifiedKFold
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, y = table
    losses = []
    for tr, te in RepeatedStratifiedKFold(n_splits=5, n_repeats=3, random_state=4).split(X, y):
        m = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)).fit(X[tr], y[tr])
        losses.append(log_loss(y[te], m.predict_proba(X[te]), labels=m.classes_))
    assert CVLinear().evaluate(X, y, random_state=4) == pytest.approx(-np.mean(losses))
    acc = CVLinear(scoring="accuracy", n_repeats=1).evaluate(X, y, random_state=4)
    assert 0.5 < acc <= 1.0


def test_affine_copies_of_an_input_are_skipped():
    rng = np.random.default_rng(0)
    X = np.c_[rng.normal(size=(200, 2)), rng.integers(0, 2, 200)]  # column 2 is 0/1
    y = (X[:, 0] > 0).astype(int)
    fam = TabularFamily(operators=["threshold", "square", "log"]).fit(X, y)
    b = fam.draw({"arity": 1, "depth": 1, "op": 0, "rank": 1.0}, 40, np.random.default_rng(1))
    V = fam.transform(X, b)
    for i, cols in enumerate(b.columns()):
        r = np.corrcoef(V[:, i], X[:, cols[0]])[0, 1]
        assert abs(r) < 1 - 1e-9, fam.feature_names(b.take([i]))
    assert all(c != [2] for c in b.columns())  # nothing of a 0/1 column survives these operators


def test_clip_quantile_winsorizes_training_rows(table):
    X, y = table
    fam = TabularFamily(operators=["square"], clip_quantile=0.05).fit(X, y)
    b = fam.draw({"arity": 1, "depth": 1, "op": 0, "rank": 0.5}, 3, np.random.default_rng(0))
    raw_sq = ((X[:, b.columns()[0][0]] - fam.column_center[b.columns()[0][0]]) / fam.column_scale[b.columns()[0][0]]) ** 2
    v = fam.transform(X, b)[:, 0]
    # the top 5 % of the squares are clipped to one value
    assert np.sum(v == v.max()) >= int(0.05 * len(X))
    assert np.corrcoef(v, np.clip(raw_sq, *np.quantile(raw_sq, [0.05, 0.95])))[0, 1] > 0.999
    with pytest.raises(metafx.ValidationError, match="clip_quantile"):
        TabularFamily(clip_quantile=0.5).check_params()
