"""The screen's best candidates rescored by the search's own evaluator (``TabularFamily(rescore=...)``)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import metafx
from metafx.plugin import SearchProblem, SetEvaluator
from metafx_tabular import CVLinear, TabularBatch, TabularFamily
from metafx_tabular.rescore import shortlist


def _log_ratio(n=800, seed=2):
    """``log(a) + b / c`` plus noise: the screen's proxy prefers ``c / a`` (by its ranks), a linear model ``log(a)``."""
    rng = np.random.default_rng(seed)
    a, b, c = rng.lognormal(0, 1, size=n), rng.lognormal(0, 0.5, size=n), rng.lognormal(0, 0.5, size=n)
    s1, s2 = np.log(a), b / c
    y = s1 / s1.std() + s2 / s2.std() + 0.5 * rng.normal(size=n)
    df = pd.DataFrame({"a": a, "b": b, "c": c, "n0": rng.normal(size=n), "n1": rng.uniform(1, 5, size=n)})
    return df, y


def _shortlist_reference(rel, roots, floor, top):
    above = [i for i in range(len(rel)) if rel[i] > floor]
    above.sort(key=lambda i: (-rel[i], i))
    picked = set(above[:top])
    for op in set(roots):
        of_op = [i for i in above if roots[i] == op]
        if of_op and not any(roots[i] == op for i in picked):
            picked.add(of_op[0])
    return sorted(picked, key=lambda i: (-rel[i], i))


@pytest.mark.parametrize("seed", range(6))
def test_shortlist_against_a_plain_loop(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 40))
    rel = np.round(rng.uniform(0, 1, size=n), 2)  # ties included
    roots = [str(o) for o in rng.choice(["log", "ratio", "mul", "count"], size=n)]
    floor = float(rng.uniform(0, 0.6))
    top = int(rng.integers(0, 10))
    got = shortlist(rel, roots, floor, top).tolist()
    assert got == _shortlist_reference(rel, roots, floor, top)
    assert all(rel[i] > floor for i in got)


def test_shortlist_refuses_mismatched_lengths():
    with pytest.raises(ValueError, match="roots"):
        shortlist(np.zeros(3), ["log"], 0.0, 2)


def test_rescore_puts_what_the_evaluator_prefers_in_the_set():
    df, y = _log_ratio()
    point = None
    sets = {}
    for r in (0, 8):
        fam = TabularFamily(rescore=r).fit(df, y)
        fam.bind_evaluator(CVLinear(), fam.prepare(df), y, 0)
        point = fam.space().start(None)
        sets[r] = fam.feature_names(fam.draw(point, 12, np.random.default_rng(0)))
    # the screen alone takes c / a (or a / c) by its ranks and never log(a); the evaluator's gain puts log(a) first
    assert "log(a)" not in sets[0]
    assert sets[8][0] == "log(a)" and "b / c" in sets[8]
    assert not {"c / a", "a / c"} & set(sets[8])


def test_gains_are_the_evaluators_and_the_search_binds_it():
    df, y = _log_ratio(n=500)
    fam = TabularFamily()
    ev = CVLinear()
    problem = SearchProblem(fam, fam.check_data(df), y, ev, 6.0, eval_seed=3)
    gains = problem.family._rescored
    assert len(gains) >= 8  # the 8 most relevant and the best of other operators
    # one gain checked by hand: the evaluator's score with the feature minus the columns' alone, seed 3
    key, expr = next((k, e) for k, (e, _) in zip(fam._screen_keys, fam._screened, strict=True) if k in gains)
    batch = TabularBatch([expr])
    q1 = ev.evaluate(fam.compute(problem.prepared, batch), y, random_state=3)
    q0 = ev.evaluate(fam.compute(problem.prepared, batch.take([])), y, random_state=3)
    assert gains[key] == pytest.approx(q1 - q0)
    # rescore=0: nothing bound
    off_fam = TabularFamily(rescore=0)
    off = SearchProblem(off_fam, off_fam.check_data(df), y, ev, 6.0, eval_seed=3)
    assert off.family._rescored == {}


class _OnlyOne(SetEvaluator):
    """Scores 1 a set whose last column is ``target`` (correlation > 0.99), 0 the columns alone, -1 anything else."""

    name = "only-one"

    def __init__(self, target=None):
        self.target = target

    def evaluate(self, X, y, *, random_state=None):
        V = X.dense(np.float64)
        if V.shape[1] == 0:
            return 0.0
        v = np.nan_to_num(V[:, -1])
        return 1.0 if abs(np.corrcoef(v, self.target)[0, 1]) > 0.99 else -1.0


def test_a_rescored_candidate_without_gain_is_never_taken():
    df, y = _log_ratio()
    fam = TabularFamily(column_names=list(df.columns), rescore=40).fit(df, y)
    fam.bind_evaluator(_OnlyOne(np.log(df["a"].to_numpy())), fam.prepare(df), y, 0)
    gains = fam._rescored
    assert sum(g > 0 for g in gains.values()) == 1 and len(gains) > 20
    losers = {fam.feature_names(TabularBatch([e]))[0] for k, (e, _) in zip(fam._screen_keys, fam._screened, strict=True)
              if gains.get(k, 1.0) <= 0}
    rng = np.random.default_rng(0)
    for op in range(len(fam.enabled_operators)):
        names = fam.feature_names(fam.draw({**fam.space().start(None), "op": op}, 12, rng))
        assert names[0] == "log(a)"
        assert not losers & set(names)
    assert "b / c" in losers  # which the screen's order alone would take
    free = TabularFamily(column_names=list(df.columns), rescore=0).fit(df, y)
    assert "b / c" in free.feature_names(free.draw(free.space().start(None), 12, rng))


def test_rescore_is_checked():
    df, y = _log_ratio(n=200)
    with pytest.raises(metafx.ValidationError, match="rescore=-1"):
        TabularFamily(rescore=-1).fit(df, y)
    with pytest.raises(metafx.ValidationError, match="rescore=True"):
        TabularFamily(rescore=True).fit(df, y)
