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
    assert metafx.plugin.make_component("evaluator", name, params).quality_label == label


def test_plot_axis_names_the_quality(digits):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    from metafx.plotting import plot_trajectory

    X, y = digits
    res = metafx.search(X[:300], y[:300], budget=40, steps=2, engine="mufasa", seed=0, progress=False)
    fig = plot_trajectory(res)
    assert fig.axes[0].get_ylabel() == "CV accuracy, 2-fold linear SVM"


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


@pytest.mark.parametrize("name", ["FeatureFamily", "SearchEngine", "hookimpl", "register_plugin", "make_component",
                                  "get_registry", "StepRecord"])
def test_names_moved_to_the_plugin_api_still_work_with_a_warning(name):
    import metafx.plugin

    with pytest.warns(FutureWarning, match=f"metafx.{name} is part of the plugin authors' API"):
        assert getattr(metafx, name) is getattr(metafx.plugin, name)


def test_held_out_error_has_one_name(digits):
    from metafx.analysis.evaluation import holdout_error

    X, y = digits
    res = metafx.search(X[:300], y[:300], budget=40, steps=2, engine="mufasa", seed=0, progress=False)
    err, c = holdout_error(res, X[:300], y[:300], X[300:500], y[300:500])
    assert 0 <= err <= 1 and c > 0
    with pytest.warns(FutureWarning, match="renamed metafx.holdout_error"):
        assert metafx.test_error(res, X[:300], y[:300], X[300:500], y[300:500]) == (err, c)
    res.holdout_error = err
    with pytest.warns(FutureWarning, match="renamed holdout_error"):
        assert res.test_error == err
    assert f"held-out error: {100 * err:.2f} %" in res.summary()
    # a file written before the rename (its field was test_error) reads as holdout_error
    d = res.to_dict()
    d["test_error"] = d.pop("holdout_error")
    assert metafx.SearchResult.from_dict(d).holdout_error == err
    d["holdout_error"] = err
    with pytest.raises(metafx.ValidationError, match="both test_error and holdout_error"):
        metafx.SearchResult.from_dict(d)
