"""A newcomer's first hour: one set of defaults and names, logging, help that teaches, results as data, pictures."""

from __future__ import annotations

import inspect
import json
import logging

import numpy as np
import pytest

import metafx
import metafx.plugin
from metafx.cli import build_parser, main
from metafx.loop.api import DEFAULT_ENGINE, DEFAULT_STEPS

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def small(digits):
    X, y = digits
    res = metafx.search(X[:300], y[:300], budget=40, steps=5, seed=0, progress=False)
    return X[:300], y[:300], res


# ------------------------------------------------------------------ 1. defaults and names
def test_one_set_of_defaults_everywhere():
    search = inspect.signature(metafx.search).parameters
    fx = inspect.signature(metafx.MetaFeatureExtractor).parameters
    cli = build_parser().parse_args(["search"])
    assert search["budget"].default == fx["budget"].default == cli.budget == "auto"
    assert search["engine"].default == fx["engine"].default == cli.engine == DEFAULT_ENGINE == "guided"
    assert search["steps"].default == fx["steps"].default == cli.steps == "auto" and DEFAULT_STEPS == 50
    assert search["progress"].default is fx["progress"].default is cli.progress is None
    assert search["verbose"].default is fx["verbose"].default is False


def test_seed_and_random_state_name_the_same_thing(small):
    X, y, _res = small
    a = metafx.search(X, y, budget=20, steps=2, seed=4, progress=False)
    b = metafx.search(X, y, budget=20, steps=2, random_state=4, progress=False)
    assert a.seed == b.seed == 4 and a.features == b.features
    with pytest.raises(metafx.ValidationError, match="seed=3 and random_state=4 are two names"):
        metafx.search(X, y, budget=20, steps=2, seed=3, random_state=4)
    # estimators: random_state, seed accepted
    fx1 = metafx.MetaFeatureExtractor(budget=20, steps=2, random_state=4, threshold=None).fit(X, y)
    fx2 = metafx.MetaFeatureExtractor(budget=20, steps=2, seed=4).fit(X, y)
    assert fx1.result_.seed == fx2.result_.seed == 4 and fx1.features_ == fx2.features_
    # components (scorers, selectors): random_state, seed accepted
    Z = np.random.default_rng(0).integers(0, 2, (60, 4))
    t = np.arange(60) % 2
    assert np.array_equal(metafx.score_features(Z, t, "relief", seed=2),
                          metafx.score_features(Z, t, "relief", random_state=2))
    with pytest.raises(metafx.ValidationError, match="two names"):
        metafx.plugin.make_component("scorer", "relief", {"seed": 1, "random_state": 2})
    assert build_parser().parse_args(["search", "--random-state", "7"]).seed == 7


# ------------------------------------------------------------------ 2. logging plumbing
def test_verbose_shows_log_lines_on_stderr(small, capsys):
    X, y, _ = small
    logger = logging.getLogger("metafx")
    assert not logger.handlers
    metafx.search(X, y, budget=20, steps=10, seed=0, progress=False, verbose=True)
    err = capsys.readouterr().err
    assert "step 10/10, best quality" in err
    assert not logger.handlers and logger.level == logging.NOTSET  # restored
    metafx.search(X, y, budget=20, steps=10, seed=0, progress=False)
    assert "step 10/10" not in capsys.readouterr().err


def test_cli_log_level(tmp_path, capsys):
    logger = logging.getLogger("metafx")
    argv = ["search", "--n-train", "200", "--n-test", "100", "--budget", "20", "--steps", "10", "--no-progress"]
    assert main(argv) == 0
    assert "step 10/10, best quality" in capsys.readouterr().err
    assert main([*argv, "--log-level", "warning"]) == 0
    assert "step 10/10" not in capsys.readouterr().err
    assert not logger.handlers and logger.level == logging.NOTSET  # each command configures and restores


# ------------------------------------------------------------------ 3. help that teaches
def test_search_help_lists_components_with_defaults_and_providers(capsys):
    with pytest.raises(SystemExit):
        main(["search", "--help"])
    out = " ".join(capsys.readouterr().out.split())  # argparse wraps the help lines
    for text in ("families [--family]", "*pixel-and", "engines [--engine]", "*guided",
                 "set evaluators [--evaluator]", "*cv-linear-svm", "per-feature scorers [--prune-by]",
                 "built in; parameters: n_splits=2, C=0.1", "--log-level", "'auto' (default)", "default guided"):
        assert text in out, text


def test_plugins_groups_evaluators_by_role(capsys):
    assert main(["plugins", "--json"]) == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["infogain"]["role"] == "per-feature scorer"
    assert rows["cv-linear-svm"]["role"] == "set evaluator"
    assert rows["gflip"]["role"] == "selector"
    assert main(["plugins"]) == 0
    out = capsys.readouterr().out
    pos = [out.index(s) for s in ("\nset evaluators:", "\n  cv-linear-svm ", "\nper-feature scorers:",
                                  "\n  infogain ", "\nselectors:", "\n  gflip ")]
    assert pos == sorted(pos)


def test_a_scorer_as_evaluator_names_the_set_evaluators(capsys):
    assert main(["search", "--evaluator", "infogain", "--n-train", "100", "--n-test", "0"]) == 2
    err = capsys.readouterr().err
    assert "'infogain' is a per-feature scorer, not a set evaluator; registered set evaluators:" in err
    assert "cv-linear-svm" in err and "loo-1nn" in err


def test_missing_plugin_names_its_distribution(small):
    _, _, res = small
    assert res.metadata["plugins"]["family"] == {"name": "pixel-and", "plugin": "metafx.builtin:families",
                                                 "distribution": "metafx"}
    d = res.to_dict()
    d["family"] = "binary-blobs"
    d["metadata"]["plugins"]["family"] = {"name": "binary-blobs", "plugin": "blobs", "distribution": "metafx-blobs"}
    gone = metafx.SearchResult.from_dict(d)
    with pytest.raises(metafx.UnknownComponentError, match=r"pip install metafx-blobs"):
        gone.transform(np.zeros((2, 8, 8), np.uint8))


# ------------------------------------------------------------------ 4. results as data
def test_repr_is_short(small):
    _, _, res = small
    text = repr(res)
    assert len(text) < 240 and text.count("\n") == 0
    assert text.startswith("SearchResult(engine='guided', family='pixel-and'") and "steps=5" in text


def test_trajectory_frame(small):
    _, _, res = small
    df = res.trajectory_frame()
    assert len(df) == 5 and list(df["step"]) == [1, 2, 3, 4, 5]
    assert {"quality", "best_quality", "accepted", "n_features", "cost", "seconds", "point_numInputs",
            "point_scatter", "seconds_evaluate"} <= set(df.columns)
    assert np.allclose(df["best_quality"], np.maximum.accumulate(df["quality"]))


def test_feature_table(small):
    X, y, res = small
    t = res.feature_table()
    assert len(t) == res.n_features and list(t.columns) == ["name", "cost", "numInputs", "percentPos",
                                                             "shiftInvLen", "scatter"]
    assert t["name"].iloc[0] == res.feature_names()[0] and t["cost"].sum() == pytest.approx(res.total_cost)
    ranked = res.feature_table(X, y)
    assert list(ranked["infogain"]) == sorted(ranked["infogain"], reverse=True)
    expect = metafx.score_features(res.transform(X), y, "infogain")
    assert np.allclose(ranked["infogain"].sort_index(), expect)
    with pytest.raises(metafx.ValidationError, match="both X and y"):
        res.feature_table(X)


# ------------------------------------------------------------------ 5. pictures
def _png_ok(path, min_bytes=8000):
    data = path.read_bytes()
    assert data[:8] == PNG and len(data) > min_bytes, path


def test_plot_functions_return_figures(small, tmp_path):
    from matplotlib.figure import Figure

    from metafx.plotting import plot_features, plot_path, plot_trajectory

    X, y, res = small
    figs = [plot_trajectory(res), plot_path(res), plot_features(res, X, y, n=6)]
    assert all(isinstance(f, Figure) for f in figs)
    # best-so-far is a step line; integer meta-features have integer ticks
    line = next(ln for ln in figs[0].axes[0].get_lines() if ln.get_label() == "best so far")
    assert line.get_drawstyle() == "steps-post"
    ax_k = next(a for a in figs[1].axes if a.get_ylabel() == "numInputs")
    assert all(float(t).is_integer() for t in ax_k.get_yticks())
    assert not any("cumulative" in a.get_ylabel() for a in figs[0].axes)
    assert len(figs[2].axes) >= 6 and "infogain" in figs[2].axes[0].get_title()


def test_plot_result_writes_three_pictures(small, tmp_path):
    X, y, res = small
    paths = metafx.plotting.plot_result(res, tmp_path, X=X, y=y, stem="r")
    assert [p.name for p in paths] == ["r_trajectory.png", "r_path.png", "r_features.png"]
    for p in paths:
        _png_ok(p)


def test_one_point_ranked_result_is_drawn(digits, tmp_path):
    X, y = digits
    res = metafx.search(X[:300], y[:300], budget=30, steps=3, engine="ranked", seed=0, progress=False)
    assert len(res.trajectory) == 1
    fig = metafx.plotting.plot_trajectory(res)
    assert "evaluates one feature set" in " ".join(t.get_text() for t in fig.axes[0].texts)
    for p in metafx.plotting.plot_result(res, tmp_path, X=X[:300], y=y[:300]):
        _png_ok(p)


def test_cli_plot_writes_the_feature_picture(tmp_path, capsys):
    out = tmp_path / "r.json"
    assert main(["search", "--n-train", "300", "--n-test", "100", "--budget", "30", "--steps", "3",
                 "--no-progress", "--out", str(out)]) == 0
    assert main(["plot", str(out), "--n-features", "4"]) == 0
    printed = capsys.readouterr().out
    for name in ("r_trajectory.png", "r_path.png", "r_features.png"):
        assert name in printed
        _png_ok(tmp_path / name)


def test_family_without_a_drawing_says_so():
    from metafx.plugin import FeatureFamily

    fam = metafx.plugin.get_registry().get("family", "pixels")(image_shape=(8, 8))
    assert type(fam).plot_features is FeatureFamily.plot_features
    with pytest.raises(NotImplementedError, match=r"family 'pixels'.*plot_features\(batch, ax, background=None\)"):
        fam.plot_features(fam.all_features(), None)


def test_pixel_and_local_draws_its_features(digits):
    X, y = digits
    res = metafx.search(X[:300], y[:300], family="pixel-and-local", budget=30, steps=2, seed=0, progress=False)
    fig = metafx.plotting.plot_features(res, X[:300], y[:300], n=3)
    panels = [a for a in fig.axes if a.images]
    assert len(panels) == 3 and all(a.collections for a in panels)  # inputs drawn over the mean image


def test_result_of_a_family_without_a_drawing(digits, tmp_path, capsys):
    X, y = digits
    res = metafx.search(X[:300], y[:300], family="pixels", budget=10, steps=2, seed=0, progress=False)
    with pytest.raises(NotImplementedError, match="does not draw its features"):
        metafx.plotting.plot_features(res)
    paths = metafx.plotting.plot_result(res, tmp_path)
    assert [p.name for p in paths] == ["result_trajectory.png", "result_path.png"]
    res.to_json(tmp_path / "px.json")
    assert main(["plot", str(tmp_path / "px.json")]) == 0
    assert "does not draw its features" in capsys.readouterr().err
