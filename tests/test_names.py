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
    assert metafx.make_component("evaluator", name, params).quality_label == label


def test_plot_axis_names_the_quality(digits):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    from metafx.plotting import plot_trajectory

    X, y = digits
    res = metafx.search(X[:300], y[:300], budget=40, steps=2, engine="mufasa", seed=0, progress=False)
    fig = plot_trajectory(res)
    assert fig.axes[0].get_ylabel() == "CV accuracy, 2-fold linear SVM"
