"""``metafx predict``; the family chosen by the data; arguments refused before any data is read; a summary a
person reads (issue 47)."""

from __future__ import annotations

import csv

import numpy as np
import pytest
from sklearn.datasets import load_digits

import metafx
from metafx import FeatureClassifier, SearchResult
from metafx.cli import main
from metafx.loop.result import portfolio_words, reselect_words

SMALL = ["--budget", "40", "--steps", "2", "--no-progress"]


def _one_line_error(capsys, *words):
    err = capsys.readouterr().err.strip().splitlines()
    assert err and err[-1].startswith("metafx: error: ")
    assert not any("Traceback" in line or line.startswith("usage:") for line in err)
    for w in words:
        assert w in err[-1], err[-1]
    return err[-1]


@pytest.fixture(scope="module")
def png_dir(tmp_path_factory):
    Image = pytest.importorskip("PIL.Image")
    d = load_digits()
    keep = d.target < 3
    X, y = (d.images[keep][:150] * 15).astype(np.uint8), d.target[keep][:150]  # grey levels 0-240
    root = tmp_path_factory.mktemp("png")
    for i, (im, t) in enumerate(zip(X, y, strict=True)):
        (root / "data" / f"class{t}").mkdir(parents=True, exist_ok=True)
        Image.fromarray(im).save(root / "data" / f"class{t}" / f"{i:04d}.png")
    (root / "new").mkdir()
    for i, im in enumerate(X[:9]):
        Image.fromarray(im).save(root / "new" / f"{i:02d}.png")
    return root, X[:9]


def _rows(path):
    with open(path, newline="") as fh:
        return list(csv.reader(fh))


# ---------------------------------------------------------------------------------------------- metafx predict
def test_predict_images_agrees_with_feature_classifier(png_dir, tmp_path, capsys):
    root, new = png_dir
    out = tmp_path / "r.json"
    assert main(["search", "--data", str(root / "data"), *SMALL, "--out", str(out)]) == 0
    capsys.readouterr()
    res = SearchResult.from_json(out)
    assert res.binarization["threshold"] == 128.0 and res.classifier is not None
    clf = FeatureClassifier.from_result(res)
    names = res.metadata["data"]["classes"]
    labels = tmp_path / "labels.csv"
    assert main(["predict", str(out), "--data", str(root / "new"), "--out", str(labels), "--scores"]) == 0
    assert f"wrote {labels}: 9 labels" in capsys.readouterr().out
    rows = _rows(labels)
    assert rows[0] == ["file", "label", *[f"score_{c}" for c in names]]  # a folder: each row's image file
    assert [r[0] for r in rows[1:]] == [f"{i:02d}.png" for i in range(9)]
    # the grey PNGs are binarized by the result's rule (128): the labels and scores of FeatureClassifier
    assert [r[1] for r in rows[1:]] == [names[k] for k in clf.predict(new)]
    assert np.array_equal(np.array([[float(v) for v in r[2:]] for r in rows[1:]]), clf.decision_function(new))
    # without --out: the same CSV on standard output; a folder of class sub-folders adds the file column
    assert main(["predict", str(out), "--data", str(root / "data")]) == 0
    got = capsys.readouterr().out.splitlines()
    assert got[0] == "file,label" and got[1].startswith("class0/") and len(got) == 151


def test_predict_a_table_searched_with_target_alone(wine_csv, tmp_path, capsys):
    """A CSV searches with --target alone (the tabular family follows the data); predict gives the labels of
    the classifier the search keeps, and the summary reports accuracy beside the log-loss."""
    import pandas as pd

    out = tmp_path / "w.json"
    assert main(["search", "--data", str(wine_csv), "--target", "kind", "--budget", "3", "--steps", "2",
                 "--no-progress", "--out", str(out)]) == 0
    cap = capsys.readouterr()
    assert "family tabular (--data" in cap.err and "family tabular" in cap.out
    assert "held-out accuracy: " in cap.out and "log-loss" in cap.out
    res = SearchResult.from_json(out)
    acc = res.metadata["test_score"]["accuracy"]
    assert 0 <= acc <= 1 and res.classifier is not None
    labels = tmp_path / "labels.csv"
    assert main(["predict", str(out), "--data", str(wine_csv), "--out", str(labels)]) == 0
    X = pd.read_csv(wine_csv).drop(columns="kind")
    want = FeatureClassifier.from_result(res).predict(X)
    assert [r[0] for r in _rows(labels)[1:]] == list(want)


def test_predict_refusals(png_dir, tmp_path, capsys, digits):
    X, y = digits
    res = metafx.search(X[:200], y[:200], budget=20, steps=1, progress=False)
    res.to_json(tmp_path / "nofit.json")
    np.save(tmp_path / "new.npy", X[:5])
    assert main(["predict", str(tmp_path / "nofit.json"), "--data", str(tmp_path / "new.npy")]) == 2
    _one_line_error(capsys, "keeps no classifier", "fit_classifier")
    res.fit_classifier(X[:200], y[:200])
    res.to_json(tmp_path / "fit.json")
    assert main(["predict", str(tmp_path / "fit.json"), "--data", str(tmp_path / "new.npy"),
                 "--out", str(tmp_path / "l.txt")]) == 2
    _one_line_error(capsys, "--out", "FILE.csv")
    assert not (tmp_path / "l.txt").exists()
    # 0/1 digits predicted as FeatureClassifier does
    assert main(["predict", str(tmp_path / "fit.json"), "--data", str(tmp_path / "new.npy")]) == 0
    got = capsys.readouterr().out.splitlines()
    assert got == ["label"] + [str(v) for v in FeatureClassifier.from_result(res).predict(X[:5])]


# ---------------------------------------------------------------------------------------------- before the data
@pytest.fixture
def no_data(monkeypatch):
    """Reading any data fails the test: the refusals below must come first."""
    import metafx.cli.data as cli

    def fail(*a, **k):
        raise AssertionError("data was read before the arguments were checked")

    for name in ("read_data", "load_dataset", "_file_data", "_registered_data"):
        monkeypatch.setattr(cli, name, fail)


@pytest.mark.parametrize("argv, words", [
    (["--engine", "nope"], ["--engine 'nope'", "registered engines"]),
    (["--evaluator", "nope"], ["--evaluator 'nope'", "registered set evaluators"]),
    (["--engine-param", "bogus=1"], ["--engine-param", "'bogus'", "allowed"]),
    (["--engine", "mufasa", "--engine-param", "n_candidates=0"], ["--engine-param", "n_candidates=0"]),
    (["--evaluator-param", "zzz=2"], ["--evaluator-param", "'zzz'"]),
    (["--family-param", "zzz=2"], ["--family-param", "'zzz'"]),
    (["--steps", "0"], ["--steps=0", ">= 1"]),
    (["--fix", "bogus=1"], ["--fix holds unknown meta-feature 'bogus'", "numInputs"]),
    (["--prune-by", "nope"], ["--prune-by 'nope'"]),
])
@pytest.mark.parametrize("data", ["digits", "FOLDER"])
def test_arguments_are_refused_before_any_data_is_read(no_data, png_dir, capsys, argv, words, data):
    where = str(png_dir[0] / "data") if data == "FOLDER" else data
    assert main(["search", "--data", where, *argv, "--no-progress", "--out", "never.json"]) == 2
    _one_line_error(capsys, *words)


def test_threshold_outside_the_data_kind_and_target_on_images(no_data, png_dir, capsys):
    folder = str(png_dir[0] / "data")
    assert main(["search", "--data", folder, "--threshold", "300", *SMALL]) == 2
    _one_line_error(capsys, "--threshold 300", "(0, 255]")
    assert main(["search", "--data", folder, "--target", "label", *SMALL]) == 2
    line = _one_line_error(capsys, "--target 'label'", "not a table", "sub-folders")
    assert "Traceback" not in line


def test_a_table_without_the_tabular_plugin_says_how_to_install_it(monkeypatch, tmp_path, capsys):
    import metafx.cli.search as cli

    real = cli.get_registry()

    class Without:
        def __contains__(self, key):
            return key != ("family", "tabular") and key in real

        def __iter__(self):
            return iter(real)

        def __getattr__(self, name):
            return getattr(real, name)

    monkeypatch.setattr(cli, "get_registry", lambda: Without())
    (tmp_path / "t.csv").write_text("a,b,y\n1,2,0\n3,4,1\n")
    assert main(["search", "--data", str(tmp_path / "t.csv"), "--target", "y", *SMALL]) == 2
    _one_line_error(capsys, "t.csv is a table", "pip install ./plugins/metafx-tabular")


# ---------------------------------------------------------------------------------------------- the summary
def test_portfolio_and_reselect_in_words():
    meta = {"portfolio_sources": {"35": [5, 11, 30], "12": "prior"},
            "reselect": {"steps": [35, 12, 40], "qualities": [0.954, 0.95, 0.949],
                         "second_qualities": [0.93, 0.946, 0.94], "chosen_step": 12}}
    assert portfolio_words(meta, 35) == "a portfolio step: the union of the sets of steps 5, 11 and 30"
    assert "related tasks' best points" in portfolio_words(meta, 12)
    assert "the union of the best sets found before it" in portfolio_words({}, 7)
    words = reselect_words(meta)
    assert words == ("reselect: step 12 kept, not step 35 (best first score 0.9540, then 0.9300): of the 3 best "
                     "steps (35, 12 and 40), scored again on a fresh split, it has the best mean of two scores "
                     "(0.9500, 0.9460)")
    assert reselect_words({"reselect": {**meta["reselect"], "chosen_step": 35}}) == ""  # the best first score kept


def test_a_guided_summary_names_its_portfolio_and_reselect(digits):
    X, y = digits
    seen_portfolio = seen_reselect = False
    for seed in range(8):
        res = metafx.search(X[:300], y[:300], budget=40, steps=6, engine="guided", seed=seed, progress=False,
                            engine_params={"n_init": 2, "portfolio_every": 2})
        text = res.summary()
        rec = next(r for r in res.trajectory if r.step == res.best_step)
        if rec.kind == "portfolio":
            seen_portfolio = True
            sources = res.metadata["portfolio_sources"][str(res.best_step)]
            assert f"best set: step {res.best_step}, a portfolio step: the union of the sets of steps" in text
            assert all(str(s) in text for s in sources) and "best point: none" not in text
        chosen = res.metadata.get("reselect", {})
        if chosen and chosen["chosen_step"] != chosen["steps"][0]:
            seen_reselect = True
            assert f"reselect: step {res.best_step} kept, not step {chosen['steps'][0]}" in text
        if seen_portfolio and seen_reselect:
            break
    assert seen_portfolio or seen_reselect, "no seed of 0-7 ended on a portfolio step or a reselected step"
