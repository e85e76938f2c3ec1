"""search(reselect=r): the r best steps' sets scored again on a fresh split, the best mean kept."""

from __future__ import annotations

import pytest

import metafx
import metafx.plugin
from metafx.loop.loop import reselect_seed


@pytest.fixture(scope="module")
def small(digits):
    X, y = digits
    return X[:400], y[:400]


@pytest.mark.parametrize("engine", ["mufasa", "guided", "random"])
def test_reselect_keeps_the_best_mean_of_two_scores(small, engine):
    X, y = small
    kw = dict(budget=60, steps=8, seed=4, engine=engine, progress=False)
    plain = metafx.search(X, y, reselect=1, **kw)
    res = metafx.search(X, y, reselect=3, **kw)
    # the steps themselves are those of the plain search
    assert [(r.point, r.quality) for r in res.trajectory] == [(r.point, r.quality) for r in plain.trajectory]
    m = res.metadata["reselect"]
    q = {r.step: r.quality for r in res.trajectory}
    # the three best steps, the loop's own best first (ties: the later step, as the loop accepts ties)
    order = sorted(q, key=lambda s: (-q[s], -s))[:3]
    assert m["steps"] == order and m["qualities"] == [q[s] for s in order] and m["r"] == 3
    assert m["steps"][0] == plain.best_step
    means = [(a + b) / 2 for a, b in zip(m["qualities"], m["second_qualities"], strict=True)]
    k = max(range(3), key=lambda i: (means[i], m["qualities"][i], -i))
    assert res.best_step == m["chosen_step"] == m["steps"][k] and res.best_quality == q[res.best_step]
    assert res.best_point == res.trajectory[res.best_step - 1].point
    # the second score is the evaluator's own, on the derived seed, of the kept set
    assert m["seed"] == reselect_seed(4) != 4
    fam, batch = res.feature_batch()
    ev = metafx.plugin.make_component("set-evaluator", res.evaluator, res.evaluator_params)
    vals = fam.compute(fam.prepare(fam.check_data(X)), batch)
    assert ev.evaluate(vals, y, random_state=m["seed"]) == m["second_qualities"][k]
    if res.best_step == plain.best_step:
        assert res.features == plain.features
    back = metafx.SearchResult.from_json_text(res.to_json())
    assert back == res and back.metadata["reselect"] == m
    with pytest.raises(metafx.MetafxError, match="guided" if engine == "guided" else "reselect chose among the 3"):
        res.bound()


def test_reselect_defaults_to_the_engine_s(small):
    """guided reselects among 3 by default (its class attribute); the other engines do not; 1 turns it off."""
    X, y = small
    kw = dict(budget=60, steps=5, seed=1, progress=False)
    a = metafx.search(X, y, engine="guided", **kw)
    b = metafx.search(X, y, engine="guided", reselect=3, **kw)
    assert a.metadata["reselect"]["r"] == 3 and a.features == b.features and a.best_step == b.best_step
    assert {k: v for k, v in a.metadata["reselect"].items() if k != "seconds"} == \
        {k: v for k, v in b.metadata["reselect"].items() if k != "seconds"}
    assert "reselect" not in metafx.search(X, y, engine="guided", reselect=1, **kw).metadata
    assert "reselect" not in metafx.search(X, y, engine="mufasa", **kw).metadata


def test_reselect_changes_the_choice_somewhere(small):
    """Not a no-op: over a few seeds the second split picks another step than the first score alone."""
    X, y = small
    changed = 0
    for seed in range(8):
        res = metafx.search(X, y, budget=60, steps=10, seed=seed, engine="mufasa", progress=False, reselect=4)
        changed += res.best_step != res.metadata["reselect"]["steps"][0]
    assert changed >= 1


def test_reselect_after_resume_redraws_the_sets(small, tmp_path):
    X, y = small
    kw = dict(budget=60, steps=8, seed=5, engine="mufasa", progress=False, reselect=3)
    full = metafx.search(X, y, **kw)
    j = tmp_path / "r.jsonl"
    part = metafx.search(X, y, storage=str(j), callbacks=[lambda s, r: r.step < 5], **kw)
    assert len(part.trajectory) == 5
    res = metafx.search(X, y, storage=str(j), **kw)       # steps 1-5 replayed, their sets drawn again
    assert res.metadata["resumed_steps"] == 5
    assert res.features == full.features and res.metadata["reselect"] == {
        **full.metadata["reselect"], "seconds": res.metadata["reselect"]["seconds"]}


def test_reselect_errors(small):
    X, y = small
    with pytest.raises(metafx.ValidationError, match="reselect"):
        metafx.search(X, y, budget=40, steps=2, progress=False, reselect=0)
    with pytest.raises(metafx.ValidationError, match="reselect=2 is not available with engine 'optuna'"):
        metafx.search(X, y, budget=40, steps=2, progress=False, engine="optuna", reselect=2)
    res = metafx.search(X, y, budget=40, steps=1, progress=False, reselect=3)   # one step: nothing to choose
    assert "reselect" not in res.metadata
    d = res.to_dict()
    d2 = metafx.search(X, y, budget=40, steps=4, progress=False, reselect=3).to_dict()
    d2["metadata"]["reselect"]["chosen_step"] = 99
    with pytest.raises(metafx.ValidationError, match="metadata\\['reselect'\\]"):
        metafx.SearchResult.from_dict(d2)
    assert metafx.SearchResult.from_dict(d) == res


def test_reselect_splits_keeps_the_best_mean_of_all_scores(small):
    """reselect_splits=k: each of the r best sets is scored on k fresh splits, the best mean of 1 + k scores kept."""
    X, y = small
    kw = dict(budget=60, steps=8, seed=4, engine="guided", progress=False, reselect=4)
    one = metafx.search(X, y, **kw)
    res = metafx.search(X, y, reselect_splits=3, **kw)
    assert [(r.point, r.quality) for r in res.trajectory] == [(r.point, r.quality) for r in one.trajectory]
    m, m1 = res.metadata["reselect"], one.metadata["reselect"]
    assert m["steps"] == m1["steps"] and m["splits"] == 3 and "splits" not in m1
    assert m["split_seeds"] == [reselect_seed(4, i) for i in range(3)] and m["split_seeds"][0] == m1["seed"] == m["seed"]
    assert len(set(m["split_seeds"]) | {4}) == 4
    # the first fresh score is the one-split search's second score; second_qualities is the mean of the fresh ones
    assert [f[0] for f in m["fresh_qualities"]] == m1["second_qualities"]
    assert m["second_qualities"] == [sum(f) / 3 for f in m["fresh_qualities"]]
    means = [(q + sum(f)) / 4 for q, f in zip(m["qualities"], m["fresh_qualities"], strict=True)]
    k = max(range(4), key=lambda i: (means[i], m["qualities"][i], -i))
    assert res.best_step == m["chosen_step"] == m["steps"][k]
    fam, batch = res.feature_batch()
    ev = metafx.plugin.make_component("set-evaluator", res.evaluator, res.evaluator_params)
    vals = fam.compute(fam.prepare(fam.check_data(X)), batch)
    assert [ev.evaluate(vals, y, random_state=s) for s in m["split_seeds"]] == m["fresh_qualities"][k]
    assert metafx.SearchResult.from_json_text(res.to_json()) == res
    # 1 is today's reselect, the same record
    same = metafx.search(X, y, reselect_splits=1, **kw).metadata["reselect"]
    assert {k: v for k, v in same.items() if k != "seconds"} == {k: v for k, v in m1.items() if k != "seconds"}


@pytest.mark.parametrize("bad", [0, -1, 1.5, "2"])
def test_reselect_splits_errors(small, bad):
    X, y = small
    with pytest.raises(metafx.ValidationError, match="reselect_splits"):
        metafx.search(X, y, budget=40, steps=2, progress=False, reselect_splits=bad)
