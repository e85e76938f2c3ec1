"""Transfer inside the search: warm_start hands the best points of related tasks' searches to the engine."""

from __future__ import annotations

import pytest

import metafx
import metafx.plugin
from metafx.loop.loop import warm_start_points


def test_points_from_results_best_first_fitted_to_the_space(pairs):
    Xs, _ys = pairs(0, 1)
    src = [metafx.search(*pairs(a, b), budget=30, steps=4, seed=s, progress=False)
           for s, (a, b) in enumerate([(2, 3), (4, 5)])]
    space = metafx.plugin.make_component("family", "pixel-and").fit(Xs).space().with_fixed({"shiftInvLen": 1})
    pts = warm_start_points([*src, {"numInputs": 99, "other": 1}], space)
    best, other = sorted(src, key=lambda r: -r.best_quality)
    assert pts[0]["numInputs"] == 8 and "other" not in pts[0]  # given points first: clipped, unknown dropped
    assert pts[1:] == [{**best.best_point, "shiftInvLen": 1}, {**other.best_point, "shiftInvLen": 1}]
    assert warm_start_points(None, space) == [] and len(warm_start_points(src, space, limit=1)) == 1
    with pytest.raises(metafx.ValidationError, match="warm_start holds 3"):
        warm_start_points([3], space)
    # a file name is not a result: the message says how to read it (a string was taken letter by letter)
    for given in ("src.json", ["src.json"]):
        with pytest.raises(metafx.ValidationError, match=r"warm_start holds the file name 'src.json'.*"
                                                         r"metafx.SearchResult.from_json\('src.json'\)"):
            warm_start_points(given, space)


@pytest.mark.parametrize("engine", ["mufasa", "random"])
def test_engines_evaluate_the_warm_points_first_and_resume(pairs, engine, tmp_path):
    src = metafx.search(*pairs(2, 3), budget=30, steps=6, seed=1, progress=False)
    kw = dict(budget=30, steps=6, seed=4, engine=engine, progress=False, warm_start=[src])
    res = metafx.search(*pairs(0, 1), **kw)
    assert res.trajectory[0].point == src.best_point
    assert res.metadata["warm_start"] == [src.best_point]
    plain = metafx.search(*pairs(0, 1), **{**kw, "warm_start": None})
    assert plain.trajectory[0].point != src.best_point or engine == "mufasa"
    if engine == "mufasa":  # later steps are neighbours of the best point so far, as without a warm start
        assert res.trajectory[1].point != res.trajectory[0].point
    j = tmp_path / "w.jsonl"
    metafx.search(*pairs(0, 1), storage=str(j), callbacks=[lambda s, r: r.step < 2], **kw)
    again = metafx.search(*pairs(0, 1), storage=str(j), **kw)
    assert [t.point for t in again.trajectory] == [t.point for t in res.trajectory]
    with pytest.raises(metafx.StorageError, match="differs in: warm_start"):
        metafx.search(*pairs(0, 1), storage=str(j), **{**kw, "warm_start": [{"numInputs": 1}]})


def test_extractor_warm_start(pairs):
    src = metafx.search(*pairs(2, 3), budget=30, steps=6, seed=1, progress=False)
    X, y = pairs(0, 1)
    # mufasa records the warm point as its first step (guided records the mean of the set it drew there)
    fx = metafx.MetaFeatureExtractor(budget=30, steps=4, engine="mufasa", warm_start=[src]).fit(X, y)
    assert fx.result_.trajectory[0].point == src.best_point
    again = metafx.MetaFeatureExtractor(budget=30, steps=4, engine="mufasa", warm_start=True)
    first = again.fit(X, y).result_
    second = again.fit(X, y).result_  # scikit-learn's meaning: start from the previous fit
    assert second.trajectory[0].point == first.best_point


def test_optuna_starts_its_model_with_the_warm_points(pairs, tmp_path):
    srcs = [metafx.search(*pairs(a, b), budget=30, steps=4, seed=1, progress=False) for a, b in [(2, 3), (4, 5)]]
    for storage in (None, f"sqlite:///{tmp_path}/w.db"):
        res = metafx.search(*pairs(0, 1), budget=30, steps=4, seed=2, engine="optuna", progress=False,
                            warm_start=srcs, storage=storage)
        want = [r.best_point for r in sorted(srcs, key=lambda r: -r.best_quality)]
        assert [t.point for t in res.trajectory[:2]] == want
