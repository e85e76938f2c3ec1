"""Candidates scored by what they add to the columns' model (``residual_gains``, ``rescore_by="residual"``)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from metafx.plugin import ValidationError
from metafx_tabular import CVLinear, CVTree, TabularFamily
from metafx_tabular.rescore import _newton_boost, residual_gains


def _stumps_reference(x, F0, Y, task, rounds, lr, msl, x_new, F0_new):
    """Newton boosting with two-leaf trees, by a plain loop over every split of the sorted column: the split
    of largest ``GL^2/HL + GR^2/HR`` (at least ``msl`` rows a side, threshold halfway between neighbours),
    leaves ``G/H``."""
    F, G = F0.copy(), F0_new.copy()
    order = np.argsort(x, kind="stable")
    xs = x[order]
    for _ in range(rounds):
        if task == "regression":
            g, h = Y - F, np.ones_like(F)
        elif F.shape[1] == 1:
            P = 1 / (1 + np.exp(-F))
            g, h = Y - P, P * (1 - P)
        else:
            E = np.exp(F - F.max(axis=1, keepdims=True))
            P = E / E.sum(axis=1, keepdims=True)
            g, h = Y - P, P * (1 - P)
        for c in range(F.shape[1]):
            gs, hs = g[order, c], h[order, c]
            best, split = -np.inf, None
            for i in range(msl, len(x) - msl + 1):
                if xs[i - 1] == xs[i]:
                    continue
                GL, HL, GR, HR = gs[:i].sum(), hs[:i].sum(), gs[i:].sum(), hs[i:].sum()
                score = GL**2 / HL + GR**2 / HR
                if score > best:
                    best, split = score, ((xs[i - 1] + xs[i]) / 2, GL / HL, GR / HR)
            t, left, right = split
            F[:, c] += lr * np.where(x <= t, left, right)
            G[:, c] += lr * np.where(x_new <= t, left, right)
    return G


@pytest.mark.parametrize("task,k", [("regression", 1), ("classification", 2), ("classification", 3)])
@pytest.mark.parametrize("seed", range(3))
def test_newton_boost_against_a_plain_loop_with_stumps(task, k, seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(37, 90))
    x, x_new = rng.normal(size=n), rng.normal(size=23)
    if task == "regression":
        Y = (np.sin(2 * x) + 0.3 * rng.normal(size=n)).reshape(-1, 1)
        F0, F0_new = rng.normal(0, 0.2, size=(n, 1)), rng.normal(0, 0.2, size=(23, 1))
    else:
        lab = (x + rng.normal(size=n) > 0).astype(int) if k == 2 else rng.integers(0, k, size=n)
        Y = np.eye(k)[lab][:, 1:] if k == 2 else np.eye(k)[lab]
        m = Y.shape[1]
        F0, F0_new = rng.normal(0, 0.5, size=(n, m)), rng.normal(0, 0.5, size=(23, m))
    msl = int(rng.integers(1, 8))
    got = _newton_boost(x, F0, Y, task, 4, 0.3, 2, msl, x_new, F0_new)
    want = _stumps_reference(x, F0, Y, task, 4, 0.3, msl, x_new, F0_new)
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("seed", range(3))
def test_newton_boost_of_a_real_target_is_scikit_learns_gradient_boosting(seed):
    from sklearn.dummy import DummyRegressor
    from sklearn.ensemble import GradientBoostingRegressor

    rng = np.random.default_rng(seed)
    n = 151
    x, x_new = rng.uniform(-2, 2, size=n), rng.uniform(-2, 2, size=40)
    y = x**2 + 0.2 * rng.normal(size=n)
    gbr = GradientBoostingRegressor(n_estimators=7, learning_rate=0.2, max_leaf_nodes=5, min_samples_leaf=6,
                                    max_depth=None, init=DummyRegressor(), random_state=0)
    gbr.fit(x.reshape(-1, 1), y)
    F0 = np.full((n, 1), y.mean())
    got = _newton_boost(x, F0, y.reshape(-1, 1), "regression", 7, 0.2, 5, 6, x_new, np.full((40, 1), y.mean()))
    np.testing.assert_allclose(got[:, 0], gbr.predict(x_new.reshape(-1, 1)), rtol=1e-9, atol=1e-9)


def _gains_reference(model, M, columns, y, task, folds, **kw):
    """``residual_gains`` from scikit-learn's pieces: ``cross_val_predict`` for the out-of-fold prediction,
    ``log_loss`` / ``mean_squared_error`` for the losses."""
    from sklearn.metrics import log_loss, mean_squared_error
    from sklearn.model_selection import cross_val_predict

    method = "decision_function" if task == "classification" else "predict"
    F0 = np.asarray(cross_val_predict(model, M, y, cv=folds, method=method), dtype=float)
    F0 = F0.reshape(len(y), -1)
    labels = np.unique(y)
    Y = y.reshape(-1, 1).astype(float) if task == "regression" else (y[:, None] == labels[None, :]).astype(float)
    if task == "classification" and labels.size == 2:
        Y = Y[:, 1:]
    out = []
    for x in columns:
        total = 0.0
        for tr, te in folds:
            G = _newton_boost(x[tr], F0[tr], Y[tr], task, kw["rounds"], kw["learning_rate"], kw["max_leaf_nodes"],
                              kw["min_samples_leaf"], x[te], F0[te])
            if task == "regression":
                total += (mean_squared_error(y[te], F0[te, 0]) - mean_squared_error(y[te], G[:, 0])) / np.var(y[te])
            else:
                def proba(F):
                    if F.shape[1] == 1:
                        p = 1 / (1 + np.exp(-F[:, 0]))
                        return np.column_stack([1 - p, p])
                    E = np.exp(F - F.max(axis=1, keepdims=True))
                    return E / E.sum(axis=1, keepdims=True)

                total += log_loss(y[te], proba(F0[te]), labels=labels) - log_loss(y[te], proba(G), labels=labels)
        out.append(total / len(folds))
    return np.array(out)


@pytest.mark.parametrize("task,k", [("regression", 0), ("classification", 2), ("classification", 3)])
def test_residual_gains_against_scikit_learn_pieces(task, k):
    from sklearn.linear_model import LogisticRegression, Ridge
    from sklearn.model_selection import KFold, StratifiedKFold

    rng = np.random.default_rng(k)
    n = 203
    M = rng.normal(size=(n, 3))
    z = M[:, 0] * M[:, 1] + 0.5 * M[:, 2]
    if task == "regression":
        y, model, cv = z + 0.3 * rng.normal(size=n), Ridge(), KFold(3, shuffle=True, random_state=1)
    else:
        cuts = np.quantile(z, np.linspace(0, 1, k + 1)[1:-1])
        y, model, cv = np.searchsorted(cuts, z + 0.3 * rng.normal(size=n)), LogisticRegression(), \
            StratifiedKFold(3, shuffle=True, random_state=1)
    folds = list(cv.split(M, y))
    columns = [M[:, 0] * M[:, 1], rng.normal(size=n), M[:, 2]]
    kw = dict(rounds=6, learning_rate=0.2, max_leaf_nodes=4, min_samples_leaf=10)
    got = residual_gains((model, M), columns, y, task, folds, **kw)
    want = _gains_reference(model, M, columns, y, task, folds, **kw)
    np.testing.assert_allclose(got, want, rtol=1e-7, atol=1e-10)
    assert got[0] > 0.02 and got[0] > got[1] + 0.02  # the product explains what the linear model misses


def test_without_a_model_the_start_is_the_training_rows_mean():
    rng = np.random.default_rng(0)
    x = rng.normal(size=120)
    y = 2 * x + rng.normal(size=120)
    folds = [(np.arange(60, 120), np.arange(60)), (np.arange(60), np.arange(60, 120))]
    g_none = residual_gains(None, [x], y, "regression", folds)
    g_empty = residual_gains((CVTree()._model("regression", False), np.zeros((120, 0))), [x], y, "regression", folds)
    assert g_none[0] == g_empty[0] > 0.3


@pytest.mark.parametrize("kw,match", [
    ({"rounds": 0}, "rounds"), ({"rounds": 2.5}, "rounds"), ({"rounds": True}, "rounds"),
    ({"learning_rate": 0.0}, "learning_rate"), ({"learning_rate": 1.5}, "learning_rate"),
    ({"learning_rate": "0.1"}, "learning_rate"), ({"max_leaf_nodes": 1}, "max_leaf_nodes"),
    ({"min_samples_leaf": 0}, "min_samples_leaf"), ({"task": "ranking"}, "task"),
])
def test_invalid_values_are_refused(kw, match):
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=30), rng.integers(0, 2, size=30)
    folds = [(np.arange(15, 30), np.arange(15)), (np.arange(15), np.arange(15, 30))]
    task = kw.pop("task", "classification")
    with pytest.raises(ValidationError, match=match):
        residual_gains(None, [x], y, task, folds, **kw)


def test_bad_folds_columns_and_a_single_class_are_refused():
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=30), rng.integers(0, 2, size=30)
    half = [(np.arange(15, 30), np.arange(15))]
    with pytest.raises(ValidationError, match="folds"):
        residual_gains(None, [x], y, "classification", half)
    folds = [*half, (np.arange(15), np.arange(15, 30))]
    with pytest.raises(ValidationError, match=r"columns\[0\]"):
        residual_gains(None, [x[:10]], y, "classification", folds)
    with pytest.raises(ValidationError, match="class"):
        residual_gains(None, [x], np.zeros(30, dtype=int), "classification", folds)


def _product_table(n=600, seed=0, signal=True):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n), "c": rng.normal(size=n),
                       "d": rng.uniform(1, 3, size=n)})
    z = df["a"] * df["b"] if signal else rng.normal(size=n)
    return df, (np.asarray(z) + 0.3 * rng.normal(size=n) > 0).astype(int)


def test_residual_rescoring_keeps_what_trees_miss_and_nothing_else():
    df, y = _product_table()
    fam = TabularFamily(rescore_by="residual").fit(df, y)
    fam.bind_evaluator(CVLinear(), fam.prepare(df), y, 0)
    assert fam._residual_only and fam._rescored
    batch = fam.draw({"arity": 2, "depth": 1, "op": 0, "rank": 0.5}, 10, np.random.default_rng(0))
    names = fam.feature_names(batch)
    assert names and names[0] == "a * b"
    positive = {k for k, g in fam._rescored.items() if g > 0}
    assert len(batch) <= len(positive)
    # the same set at every point: the candidates of positive gain, not the point's draws
    other = fam.draw({"arity": 1, "depth": 1, "op": 1, "rank": 0.9}, 10, np.random.default_rng(5))
    assert fam.feature_names(other) == names


def test_residual_rescoring_of_noise_mostly_gives_an_empty_set():
    # a gain of pure noise is positive now and then (small): of four noise tables, at most one set is not empty
    sizes = []
    for seed in range(4):
        df, y = _product_table(seed=seed, signal=False)
        fam = TabularFamily(rescore_by="residual").fit(df, y)
        fam.bind_evaluator(CVTree(), fam.prepare(df), y, 0)
        assert fam._rescored and max(fam._rescored.values()) < 0.005
        batch = fam.draw({"arity": 2, "depth": 1, "op": 0, "rank": 0.5}, 10, np.random.default_rng(0))
        assert len(batch) == sum(g > 0 for g in fam._rescored.values())  # no near-copies among them here
        sizes.append(len(batch))
    assert sum(k > 0 for k in sizes) <= 1


def test_auto_reads_the_evaluators_table_rescore():
    df, y = _product_table()
    fam = TabularFamily().fit(df, y)
    fam.bind_evaluator(CVTree(), fam.prepare(df), y, 0)
    assert not fam._residual_only  # cv-tree: "evaluator"

    class Residual(CVTree):
        table_rescore = "residual"

    fam.bind_evaluator(Residual(), fam.prepare(df), y, 0)
    assert fam._residual_only

    class Bogus(CVTree):
        table_rescore = "sometimes"

    with pytest.raises(ValidationError, match="table_rescore"):
        fam.bind_evaluator(Bogus(), fam.prepare(df), y, 0)
    fam_e = TabularFamily(rescore_by="evaluator").fit(df, y)
    fam_e.bind_evaluator(Residual(), fam_e.prepare(df), y, 0)
    assert not fam_e._residual_only


def test_residual_needs_a_model_of_the_columns_and_the_option_is_checked():
    df, y = _product_table()

    class NoModel:
        name = "no-model"

        def evaluate(self, X, y, *, random_state=None):
            return 0.0

    fam = TabularFamily(rescore_by="residual").fit(df, y)
    with pytest.raises(ValidationError, match="rescore_by='residual'"):
        fam.bind_evaluator(NoModel(), fam.prepare(df), y, 0)
    with pytest.raises(ValidationError, match="rescore_by"):
        TabularFamily(rescore_by="tree").fit(df, y)


def test_without_rescoring_residual_has_no_effect():
    df, y = _product_table()
    point = {"arity": 2, "depth": 1, "op": 0, "rank": 0.5}
    sets = []
    for by in ("evaluator", "residual", "gate"):
        fam = TabularFamily(rescore=0, rescore_by=by).fit(df, y)
        fam.bind_evaluator(CVTree(), fam.prepare(df), y, 0)
        assert not fam._residual_only and not fam._rescored and not fam._gate_closed
        sets.append(fam.feature_names(fam.draw(point, 10, np.random.default_rng(0))))
    assert sets[0] == sets[1] == sets[2] and sets[0]


POINTS = [{"arity": 2, "depth": 1, "op": 0, "rank": 0.5}, {"arity": 1, "depth": 1, "op": 1, "rank": 0.9},
          {"arity": 1, "depth": 1, "op": 0, "rank": 0.2}]


def test_an_open_gate_gives_the_evaluators_sets():
    # a*b adds to the linear model of the columns (a positive residual gain): the gate is open
    evaluator = CVLinear
    df, y = _product_table()
    sets = {}
    for by in ("evaluator", "gate"):
        fam = TabularFamily(rescore_by=by).fit(df, y)
        fam.bind_evaluator(evaluator(), fam.prepare(df), y, 0)
        sets[by] = ([fam.feature_names(fam.draw(p, 10, np.random.default_rng(i))) for i, p in enumerate(POINTS)],
                    dict(fam._rescored))
        assert not fam._gate_closed
    assert sets["gate"] == sets["evaluator"] and any(sets["gate"][0])


def test_a_closed_gate_gives_empty_sets_where_no_candidate_adds_to_the_trees():
    # the gate closes exactly when no shortlisted candidate has a positive residual gain (noise: most tables)
    closed = 0
    for seed in range(4):
        df, y = _product_table(seed=seed, signal=False)
        res = TabularFamily(rescore_by="residual").fit(df, y)
        res.bind_evaluator(CVTree(), res.prepare(df), y, 0)
        gate = TabularFamily(rescore_by="gate").fit(df, y)
        gate.bind_evaluator(CVTree(), gate.prepare(df), y, 0)
        assert gate._gate_closed == (max(res._rescored.values()) <= 0)
        drawn = [len(gate.draw(p, 10, np.random.default_rng(i))) for i, p in enumerate(POINTS)]
        if gate._gate_closed:
            closed += 1
            assert drawn == [0, 0, 0] and not gate._rescored
        else:
            assert all(drawn)
    assert closed >= 3
