"""What a search's numbers are called where a user reads them (summaries, plots, the command line)."""

from __future__ import annotations

import dataclasses

import pytest

import metafx


@pytest.fixture(scope="module")
def digits():
    return metafx.load_dataset("digits")


def test_quality_label_says_what_the_quality_is(digits):
    X, y = digits
    res = metafx.search(X[:300], y[:300], budget=40, steps=2, engine="mufasa", seed=0, progress=False,
                        evaluator_params={"n_splits": 3})
    assert res.quality_label == "CV accuracy, 3-fold linear SVM"
    assert f"best CV accuracy, 3-fold linear SVM: {res.best_quality:.4f}" in res.summary()
    assert "best quality" not in res.summary()
    # the label is kept with the result; a result written before it existed falls back to the evaluator's name
    again = metafx.SearchResult.from_dict(res.to_dict())
    assert again.quality_label == res.quality_label
    old = dataclasses.replace(res, metadata={k: v for k, v in res.metadata.items() if k != "quality_label"})
    assert old.quality_label == "quality (cv-linear-svm)"


@pytest.mark.parametrize("name, params, label", [
    ("cv-linear-svm", {}, "CV accuracy, 2-fold linear SVM"),
    ("cv-1nn", {"n_splits": 4}, "CV accuracy, 4-fold 1-NN"),
    ("loo-1nn", {}, "leave-one-out 1-NN accuracy"),
    ("margin", {"utility": "sigmoid"}, "margin evaluation e(F), sigmoid utility"),
    ("potential-margin", {}, "quality (potential-margin)"),
])
def test_evaluators_name_their_quality(name, params, label):
    assert metafx.plugin.make_component("set-evaluator", name, params).quality_label == label


def test_plot_axis_names_the_quality(digits):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    from metafx.plotting import plot_trajectory

    X, y = digits
    res = metafx.search(X[:300], y[:300], budget=40, steps=2, engine="mufasa", seed=0, progress=False)
    fig = plot_trajectory(res)
    assert fig.axes[0].get_ylabel() == "CV accuracy, 2-fold linear SVM"


def test_show_names_the_quality_as_the_search_did(digits):
    from metafx.analysis.report import format_report, result_report

    X, y = digits
    res = metafx.search(X[:300], y[:300], budget=40, steps=2, engine="mufasa", seed=0, progress=False,
                        evaluator_params={"n_splits": 3})
    line = next(t for t in format_report(result_report(res)).splitlines() if t.startswith("quality:"))
    assert "(CV accuracy, 3-fold linear SVM; higher is better)" in line, line  # not the summary's "k-fold (default 2)"


# ------------------------------------------------------------------ two APIs, old names for one release
def test_the_users_and_the_plugin_authors_apis_share_only_the_exceptions():
    import metafx.plugin

    shared = set(metafx.__all__) & set(metafx.plugin.__all__)
    assert shared <= {"MetafxError", "ValidationError", "UnknownComponentError", "DuplicateComponentError",
                      "StorageError"}, shared
    for name in metafx.__all__:
        getattr(metafx, name)  # every public name resolves (lazy ones too), with no warning
    for name in metafx.plugin.__all__:
        getattr(metafx.plugin, name)


@pytest.mark.parametrize("module, name", [
    *[("metafx", n) for n in ("FeatureFamily", "SearchEngine", "hookimpl", "register_plugin", "make_component",
                             "get_registry", "StepRecord", "MetaFeatureSpace", "Dimension", "FeatureValues",
                             "MetaFeatureDescriber", "FeatureScorer", "SetEvaluator", "FeatureSelector", "Candidate",
                             "Dataset", "hookspec", "unregister_plugin", "test_error")],
    ("metafx.analysis.evaluation", "test_error"), ("metafx.loop.parallel", "Evaluator"),
    ("metafx.distributed", "run_search"), ("metafx.loop.lifeline", "loky_backend")])
def test_names_from_before_the_first_release_are_gone(module, name):
    """No compatibility for a release that never happened: one name per thing."""
    import importlib

    with pytest.raises(AttributeError):
        getattr(importlib.import_module(module), name)
    assert not hasattr(metafx.SearchResult, "test_error")


def test_held_out_error_has_one_name(digits):
    from metafx.analysis.evaluation import holdout_error

    X, y = digits
    res = metafx.search(X[:300], y[:300], budget=40, steps=2, engine="mufasa", seed=0, progress=False)
    err, c = holdout_error(res, X[:300], y[:300], X[300:500], y[300:500])
    assert 0 <= err <= 1 and c > 0
    assert metafx.holdout_error(res, X[:300], y[:300], X[300:500], y[300:500]) == (err, c)
    res.holdout_error = err
    assert f"held-out error: {100 * err:.2f} %" in res.summary()
    # a file written before the rename (its field was test_error) reads as holdout_error
    d = res.to_dict()
    d["test_error"] = d.pop("holdout_error")
    assert metafx.SearchResult.from_dict(d).holdout_error == err
    d["holdout_error"] = err
    with pytest.raises(metafx.ValidationError, match="both test_error and holdout_error"):
        metafx.SearchResult.from_dict(d)


# ------------------------------------------------------------------ portfolio steps say what they are
def test_portfolio_steps_are_marked_and_have_no_invented_point(digits, tmp_path):
    pytest.importorskip("pandas")
    X, y = digits
    kw = dict(budget=40, steps=6, engine="guided", seed=0, progress=False,
              engine_params={"n_init": 2, "portfolio_every": 2})
    res = metafx.search(X[:300], y[:300], **kw)
    kinds = [r.kind for r in res.trajectory]
    assert "portfolio" in kinds and "point" in kinds
    for r in res.trajectory:
        assert (r.point == {}) == (r.kind == "portfolio")  # no mean meta-features passed off as a point
    # kept in the result file and in the journal: a resumed search gives the same records
    again = metafx.SearchResult.from_json_text(res.to_json())
    assert [r.kind for r in again.trajectory] == kinds
    j = tmp_path / "g.jsonl"
    metafx.search(X[:300], y[:300], storage=str(j), callbacks=[lambda s, r: r.step < 4], **kw)
    resumed = metafx.search(X[:300], y[:300], storage=str(j), **kw)
    assert [(r.kind, r.point, r.quality) for r in resumed.trajectory] == \
        [(r.kind, r.point, r.quality) for r in res.trajectory]
    assert list(res.trajectory_frame()["kind"]) == kinds
    # a record of a point step is written as before the field existed
    assert "kind" not in next(r for r in res.trajectory if r.kind == "point").to_dict()
    with pytest.raises(metafx.ValidationError, match="portfolio step has no meta-feature point"):
        metafx.plugin.StepRecord.from_dict({**next(r for r in res.trajectory if r.kind == "portfolio").to_dict(),
                                            "point": {"numInputs": 2}})


def test_a_portfolio_best_is_reported_as_such(digits):
    from metafx.analysis.report import format_report, result_report

    X, y = digits
    for seed in range(6):
        res = metafx.search(X[:300], y[:300], budget=40, steps=6, engine="guided", seed=seed, progress=False,
                            engine_params={"n_init": 2, "portfolio_every": 2}, reselect=1)
        best = next(r for r in res.trajectory if r.step == res.best_step)
        if best.kind == "portfolio":
            break
    else:
        pytest.skip("no seed of 0-5 ended on a portfolio step")
    assert res.best_point == {}
    assert "best set: step" in res.summary() and "a portfolio step: the union of the sets of steps" in res.summary()
    assert "a portfolio step: the union of the sets of steps" in format_report(result_report(res))
    # a warm start from it hands over its best point step instead
    from metafx.loop.loop import warm_start_points

    space = metafx.plugin.make_component("family", "pixel-and").fit(X[:300]).space()
    (point,) = warm_start_points(res, space)
    best_point_step = max((r for r in res.trajectory if r.point), key=lambda r: (r.quality, -r.step))
    assert point == space.check_point(best_point_step.point)


def test_dimension_labels_name_the_values_in_reports():
    """A dimension's labels name its values where a point is shown (a tabular family's operator indices)."""
    from metafx.core.values import Dimension, MetaFeatureSpace
    from metafx.loop.result import describe_point

    op = Dimension("op", "int", 0, 2, labels=("log", "mul", "ratio"))
    cat = Dimension("c", "categorical", choices=(0, 1), labels=("a", "b"))
    space = MetaFeatureSpace((Dimension("k", "int", 1, 3), op, cat, Dimension("r", "float", 0.0, 1.0)))
    point = {"k": 2, "op": 1, "c": 0, "r": 0.25}
    assert space.describe(point) == "k=2, op=1 (mul), c=0 (a), r=0.25"
    assert op.label(2) == "ratio" and op.label(3) is None and op.label(0.5) is None
    again = MetaFeatureSpace.from_dict(space.to_dict())
    assert again == space and "labels" not in space.to_dict()["dimensions"][0]
    assert describe_point(space.to_dict(), point) == space.describe(point)
    assert describe_point({}, point) == describe_point({"dimensions": "edited"}, point) == "k=2, op=1, c=0, r=0.25"
    for bad in (dict(kind="int", low=0, high=2, labels=("a", "b")), dict(kind="float", low=0, high=1, labels=("a",)),
                dict(kind="int", low=0, high=0, labels=(3,))):
        with pytest.raises(metafx.ValidationError, match="labels"):
            Dimension("x", **bad)
