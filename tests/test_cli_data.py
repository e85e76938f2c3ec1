"""The command line on a user's own data: --data PATH by kind, --threshold, held-out data, show, transform,
the default result file, --warm-start, and one-line errors naming the file."""

from __future__ import annotations

import inspect
import json
import os
import re

import numpy as np
import pytest
from sklearn.datasets import load_digits

import metafx
from metafx.cli import main
from metafx.cli.search import _default_out
from metafx.core.userdata import auto_threshold, binarize, read_data
from metafx.loop.api import DEFAULT_ENGINE

SMALL = ["--budget", "40", "--steps", "2", "--no-progress"]


@pytest.fixture(scope="module")
def digits_grey():
    d = load_digits()
    keep = d.target < 3
    return (d.images[keep][:150] * 15).astype(np.uint8), d.target[keep][:150]  # grey levels 0-240


@pytest.fixture(scope="module")
def png_dir(tmp_path_factory, digits_grey):
    Image = pytest.importorskip("PIL.Image")  # Pillow is in [test]; the skip is for minimal installs
    root = tmp_path_factory.mktemp("png")
    X, y = digits_grey
    for i, (im, t) in enumerate(zip(X, y, strict=True)):
        (root / "data" / f"class{t}").mkdir(parents=True, exist_ok=True)
        Image.fromarray(im).save(root / "data" / f"class{t}" / f"{i:04d}.png")
    (root / "new").mkdir()
    for i, im in enumerate(X[:7]):
        Image.fromarray(im).save(root / "new" / f"{i:02d}.png")
    return root


def _one_line_error(capsys, *words):
    err = capsys.readouterr().err.strip().splitlines()
    assert err and err[-1].startswith("metafx") and "error" in err[-1]
    assert not any("Traceback" in line or line.startswith("usage:") for line in err)
    for w in words:
        assert w in err[-1], err[-1]
    return err[-1]


# ------------------------------------------------------------------ readers
def test_read_data_by_kind(tmp_path, png_dir, digits_grey):
    X, y = digits_grey
    np.save(tmp_path / "x.npy", X)
    np.save(tmp_path / "y.npy", y)
    (tmp_path / "y.txt").write_text("\n".join(map(str, y)) + "\n")
    np.savez(tmp_path / "xy.npz", X=X, y=y)
    a = read_data(tmp_path / "x.npy", labels=tmp_path / "y.npy")
    b = read_data(tmp_path / "x.npy", labels=tmp_path / "y.txt")
    c = read_data(tmp_path / "xy.npz")
    for d in (a, b, c):
        assert d.kind == "images" and np.array_equal(d.X, X) and np.array_equal(d.y, y)
    f = read_data(png_dir / "data")
    assert f.kind == "images" and f.format == "folder" and f.classes == ["class0", "class1", "class2"]
    # sorted class folders, sorted files: the rows are the images in that order, labels their folders'
    order = np.argsort([f"class{t}/{i:04d}" for i, t in enumerate(y)], kind="stable")
    assert np.array_equal(f.X, X[order]) and np.array_equal(f.y, y[order])
    assert f.files[0].startswith("class0/")
    new = read_data(png_dir / "new", need_labels=False)
    assert new.y is None and new.X.shape == (7, 8, 8)


def test_read_tables(tmp_path, wine_csv):
    t = read_data(wine_csv, target="kind")
    assert t.kind == "table" and "kind" not in t.columns and t.y[0] == "barolo" and t.X.shape == (178, 13)
    t.X.assign(kind=t.y).to_parquet(tmp_path / "w.parquet")
    p = read_data(tmp_path / "w.parquet", target="kind")
    assert list(p.X.columns) == list(t.X.columns) and np.array_equal(p.y, t.y)
    u = read_data(tmp_path / "w.parquet", target="kind", need_labels=False)
    assert u.target == "kind"
    v = read_data(wine_csv, target="nope", need_labels=False)  # new rows without the target
    assert v.y is None and "kind" in v.columns


def test_auto_threshold_rules():
    assert auto_threshold(np.array([[0, 1], [1, 0]])) is None
    assert auto_threshold(np.array([[0, 200]], dtype=np.uint8)) == 128
    assert auto_threshold(np.array([[0.0, 0.7]])) == 0.5
    with pytest.raises(metafx.ValidationError, match=r"values in \[0, 16\].*threshold=8 "):
        auto_threshold(np.array([[0, 16]]))  # scikit-learn's digits: 128 would make every pixel 0
    b, t = binarize(np.array([[3, 9]]), 8)
    assert t == 8 and b.tolist() == [[0, 1]]


# ------------------------------------------------------------------ search, show, transform
def test_png_folder_to_result_summary_and_features(tmp_path, png_dir, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["search", "--data", str(png_dir / "data"), *SMALL, "--test-size", "0.2"]) == 0
    out = capsys.readouterr().out
    written = [f for f in os.listdir(tmp_path) if f.startswith("metafx-result-")]
    assert len(written) == 1 and f"wrote {written[0]}" in out and "default name" in out  # no silent discard
    res = metafx.SearchResult.from_json(tmp_path / written[0])
    d = res.metadata["data"]
    assert d["format"] == "folder" and d["threshold"] == 128 and d["n_test"] == 30 and d["n_train"] == 120
    assert d["classes"] == ["class0", "class1", "class2"] and 0 <= res.holdout_error <= 1

    assert main(["show", written[0]]) == 0
    text = capsys.readouterr().out
    for word in ("best point:", "quality:", "(CV accuracy, 2-fold linear SVM; higher is better)", "held-out error:", "features:",
                 "trajectory: 2 steps", "binarized at value >= 128", "total cost"):
        assert word in text, word
    assert main(["show", written[0], "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["best_point"] == res.best_point and rep["n_features"] == res.n_features
    assert rep["trajectory"]["steps"] == 2 and rep["data"]["threshold"] == 128

    for suffix in ("npy", "csv"):
        assert main(["transform", written[0], "--data", str(png_dir / "new"), "--out", f"f.{suffix}"]) == 0
    new = read_data(png_dir / "new", need_labels=False)
    want = res.transform((new.X >= 128).astype(np.uint8))
    assert np.array_equal(np.load("f.npy"), want)
    import pandas as pd

    table = pd.read_csv("f.csv")
    assert list(table["file"]) == [f"{i:02d}.png" for i in range(7)]
    assert np.array_equal(table.drop(columns="file").to_numpy(), want)
    assert table.columns[1] == res.feature_names()[0] and table.shape[1] == 1 + res.n_features
    # plot reads the training part of the folder again (the mean image behind the features)
    assert main(["plot", written[0], "--out", "plots"]) == 0
    assert any(f.endswith("_features.png") for f in os.listdir("plots"))
    assert "could not be loaded" not in capsys.readouterr().err


def test_registered_dataset_keeps_working_with_threshold_and_test_size(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "digits").mkdir()  # a folder of the same name: the registered name wins (./digits is the folder)
    out = tmp_path / "d.json"
    assert main(["search", "--data", "digits", "--threshold", "4", "--test-size", "0.5", *SMALL, "--out", str(out)]) == 0
    res = metafx.SearchResult.from_json(out)
    assert res.metadata["data"]["name"] == "digits" and res.n_samples == 899 and res.metadata["data"]["n_test"] == 898
    assert main(["show", str(out)]) == 0
    assert "registered dataset 'digits'" in capsys.readouterr().out
    assert res.metadata["data"]["threshold"] == 4
    grey = load_digits().images[:5]
    np.save(tmp_path / "grey.npy", grey)  # new 0-16 images: binarized at the search's threshold
    assert main(["transform", str(out), "--data", str(tmp_path / "grey.npy"), "--out", str(tmp_path / "f.npy")]) == 0
    assert np.array_equal(np.load(tmp_path / "f.npy"), res.transform((grey >= 4).astype(np.uint8)))


def test_default_result_file_never_overwrites(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    t = 1_780_000_000.0
    first = _default_out(t)
    assert first.startswith("metafx-result-") and first.endswith(".json")
    open(first, "w").close()
    second = _default_out(t)
    assert second != first and second.endswith("-2.json")


def test_npy_with_threshold_and_test_file(tmp_path, capsys):
    d = load_digits()
    np.save(tmp_path / "x.npy", d.images[:300])  # 0-16
    np.save(tmp_path / "y.npy", d.target[:300])
    np.savez(tmp_path / "test.npz", X=d.images[300:400], y=d.target[300:400])
    base = ["search", "--data", str(tmp_path / "x.npy"), "--labels", str(tmp_path / "y.npy"), *SMALL]
    assert main(base) == 2
    _one_line_error(capsys, "x.npy", "values in [0, 16]", "--threshold 8")
    out = tmp_path / "r.json"
    assert main([*base, "--threshold", "8", "--test", str(tmp_path / "test.npz"), "--out", str(out)]) == 0
    res = metafx.SearchResult.from_json(out)
    assert res.metadata["data"]["threshold"] == 8 and res.metadata["data"]["n_test"] == 100
    assert res.n_samples == 300 and res.holdout_error is not None
    # transform binarizes new 0-16 images with the threshold the search used
    assert main(["transform", str(out), "--data", str(tmp_path / "test.npz"), "--out", str(tmp_path / "f.npy")]) == 0
    assert np.array_equal(np.load(tmp_path / "f.npy"), res.transform((d.images[300:400] >= 8).astype(np.uint8)))
    # other image sizes are named
    np.save(tmp_path / "big.npy", np.zeros((3, 9, 9), dtype=np.uint8))
    assert main(["transform", str(out), "--data", str(tmp_path / "big.npy"), "--out", str(tmp_path / "g.npy")]) == 2
    _one_line_error(capsys, "9 x 9", "8 x 8")


def test_csv_table_with_the_tabular_family(tmp_path, wine_csv, capsys):
    out = tmp_path / "w.json"
    argv = ["search", "--data", str(wine_csv), "--target", "kind", "--family", "tabular",
            "--budget", "3", "--steps", "2", "--no-progress", "--out", str(out)]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "evaluator cv-linear" in text and "held-out score" in text  # the family's own evaluator and test
    res = metafx.SearchResult.from_json(out)
    assert res.evaluator == "cv-linear" and res.metadata["data"]["target"] == "kind"
    assert res.metadata["test_score"]["n_test"] == round(0.25 * 178)
    import pandas as pd

    df = pd.read_csv(wine_csv)
    shuffled = df[list(reversed(df.columns))]  # the columns in another order, the target among them
    shuffled.to_parquet(tmp_path / "new.parquet")
    assert main(["transform", str(out), "--data", str(tmp_path / "new.parquet"),
                 "--out", str(tmp_path / "f.parquet")]) == 0
    got = pd.read_parquet(tmp_path / "f.parquet")
    want = res.transform(df.drop(columns="kind"))
    assert np.allclose(got.to_numpy(), want, equal_nan=True) and list(got.columns) == res.feature_names()
    assert main(["show", str(out)]) == 0
    assert "held-out score" in capsys.readouterr().out
    # a table given to an image family: one line, pointing to --family tabular
    assert main(["search", "--data", str(wine_csv), "--target", "kind", "--family", "pixel-and",
                 *SMALL]) == 2
    _one_line_error(capsys, "wine.csv is a table", "--family tabular")
    # transform has no --family: data of the other kind is refused in the words of the result's family
    np.save(tmp_path / "imgs.npy", np.zeros((5, 8, 8), np.uint8))
    assert main(["transform", str(out), "--data", str(tmp_path / "imgs.npy"), "--out", str(tmp_path / "f.npy")]) == 2
    line = _one_line_error(capsys, "imgs.npy holds images", "the result's family tabular reads tables")
    assert "--target" not in line and "--family" not in line
    digits_result = tmp_path / "d.json"
    assert main(["search", "--data", "digits", *SMALL, "--out", str(digits_result)]) == 0
    capsys.readouterr()
    assert main(["transform", str(digits_result), "--data", str(wine_csv),
                 "--out", str(tmp_path / "f.npy")]) == 2
    line = _one_line_error(capsys, "wine.csv is a table", "the result's family pixel-and reads binary images")
    assert "--family" not in line


@pytest.mark.parametrize("make,argv_extra,words", [
    (lambda p: None, [], ["missing.npy", "does not exist"]),
    (lambda p: (p / "x.dat").write_text("1"), [], ["x.dat", "unknown kind of data file", ".npy"]),
    (lambda p: np.save(p / "x.npy", np.zeros((4, 3, 3))), [], ["x.npy", "no labels", "--labels"]),
    (lambda p: np.savez(p / "x.npz", a=np.zeros((4, 3, 3)), b=np.zeros(4), c=np.zeros(4)), [],
     ["x.npz", "'X'", "'y'"]),
    (lambda p: np.save(p / "x.npy", np.zeros((4, 3, 3, 3))), [], ["x.npy", "colour", "grey"]),
    (lambda p: (np.save(p / "x.npy", np.zeros((4, 3, 3))), np.save(p / "l.npy", np.zeros(5)))[0],
     ["--labels", "{p}/l.npy"], ["l.npy", "5 labels", "4 samples"]),
    (lambda p: (p / "t.csv").write_text("a,b\n1,2\n"), [], ["t.csv", "--target COLUMN", "a, b"]),
    (lambda p: (p / "t.csv").write_text("a,b\n1,2\n"), ["--target", "c"], ["t.csv", "no column 'c'"]),
    (lambda p: (p / "t.csv").write_bytes(b"\x00\xff\x00"), ["--target", "c"], ["t.csv", "CSV"]),
])
def test_bad_files_are_one_line_naming_the_file(tmp_path, capsys, make, argv_extra, words):
    make(tmp_path)
    name = next((f for f in ("x.dat", "x.npy", "x.npz", "t.csv") if (tmp_path / f).exists()), "missing.npy")
    argv = ["search", "--data", str(tmp_path / name), *[a.format(p=tmp_path) for a in argv_extra], *SMALL]
    assert main(argv) == 2
    _one_line_error(capsys, *words)


def test_bad_image_folders(tmp_path, capsys):
    Image = pytest.importorskip("PIL.Image")
    flat = tmp_path / "flat"
    flat.mkdir()
    Image.fromarray(np.zeros((8, 8), np.uint8)).save(flat / "a.png")
    assert main(["search", "--data", str(flat), *SMALL]) == 2
    _one_line_error(capsys, "flat", "one sub-folder per class")
    mixed = tmp_path / "mixed"
    for c, size in (("a", 8), ("b", 9)):
        (mixed / c).mkdir(parents=True)
        Image.fromarray(np.zeros((size, size), np.uint8)).save(mixed / c / "1.png")
    assert main(["search", "--data", str(mixed), *SMALL]) == 2
    _one_line_error(capsys, "1.png", "9 x 9", "one size")
    broken = tmp_path / "broken" / "a"
    broken.mkdir(parents=True)
    (broken / "1.png").write_bytes(b"not a png")
    assert main(["search", "--data", str(broken.parent), *SMALL]) == 2
    _one_line_error(capsys, "1.png", "cannot be read as an image")


# ------------------------------------------------------------------ warm starts
def test_warm_start_from_the_command_line(tmp_path, png_dir, capsys, wine_csv):
    first = tmp_path / "a.json"
    assert main(["search", "--data", str(png_dir / "data"), *SMALL, "--out", str(first)]) == 0
    second = tmp_path / "b.json"
    # mufasa records the warm point itself as its first step's point (guided records the drawn set's mean)
    assert main(["search", "--data", str(png_dir / "data"), *SMALL, "--seed", "3", "--warm-start", str(first),
                 "--engine", "mufasa", "--out", str(second)]) == 0
    a, b = (metafx.SearchResult.from_json(p) for p in (first, second))
    assert b.trajectory[0].point == a.best_point and b.metadata["warm_start"] == [a.best_point]
    tab = tmp_path / "t.json"
    assert main(["search", "--data", str(wine_csv), "--target", "kind", "--family", "tabular",
                 "--budget", "3", "--steps", "1", "--no-progress", "--out", str(tab)]) == 0
    capsys.readouterr()
    assert main(["search", "--data", str(png_dir / "data"), *SMALL, "--warm-start", str(first), str(tab)]) == 2
    _one_line_error(capsys, f"--warm-start {tab}", "family 'tabular'", "'pixel-and'")


def test_warm_start_refuses_other_families_spaces_and_image_sizes(digits):
    X, y = digits
    src = metafx.search(X[:200], y[:200], budget=30, steps=2, seed=1, progress=False)
    crop = X[:200, :7, :7]  # other image sizes
    with pytest.raises(metafx.ValidationError, match=r"images of 8 x 8 but this search's are 7 x 7"):
        metafx.search(crop, y[:200], budget=30, steps=2, warm_start=src, progress=False)
    other = metafx.search(X[:200], y[:200], family="pixels", budget=10, steps=1, progress=False)
    with pytest.raises(metafx.ValidationError, match=r"warm_start\[1\] is a result of family 'pixels'"):
        metafx.search(X[:200], y[:200], budget=30, steps=2, warm_start=[src, other], progress=False)
    d = src.to_dict()
    d["space"] = json.loads(json.dumps(d["space"]))
    d["space"]["dimensions"][0]["high"] = 5
    narrower = metafx.SearchResult.from_dict(d)
    with pytest.raises(metafx.ValidationError, match=r"another meta-feature space \(numInputs: int 1..5 there, "
                                                     r"int 1..8 here\)"):
        metafx.search(X[:200], y[:200], budget=30, steps=2, warm_start=narrower, progress=False)
    with pytest.raises(metafx.ValidationError, match="names none of this space's meta-features"):
        metafx.search(X[:200], y[:200], budget=30, steps=2, warm_start={"arity": 2}, progress=False)
    # the same family, space and size: accepted, and its point is evaluated first
    res = metafx.search(X[200:400], y[200:400], budget=30, steps=2, warm_start=src, engine="mufasa", progress=False)
    assert res.trajectory[0].point == src.best_point


@pytest.mark.parametrize("value", [True, "3", False, np.bool_(True)])
def test_fixed_values_of_another_type_are_refused(digits, value):
    X, y = digits
    with pytest.raises(metafx.ValidationError, match=r"numInputs=.* is not a number; allowed: an integer in \[1, 8\]"):
        metafx.search(X[:100], y[:100], budget=20, steps=1, fixed={"numInputs": value}, progress=False)


def test_fixed_on_the_command_line_is_typed(capsys):
    assert main(["search", "--fix", "numInputs=true", *SMALL]) == 2
    _one_line_error(capsys, "numInputs=True", "not a number")


# ------------------------------------------------------------------ hints
def test_hint_table_to_an_image_family(capsys, tmp_path):
    from sklearn.datasets import load_diabetes

    X, y = load_diabetes(return_X_y=True)
    with pytest.raises(metafx.ValidationError, match='use family="tabular"') as e:
        metafx.search(X, y, steps=1, progress=False)
    assert "--family" not in str(e.value)
    with pytest.raises(metafx.ValidationError, match='use family="tabular"'):
        metafx.MetaFeatureExtractor(steps=1).fit(X, y)
    np.save(tmp_path / "t.npy", (X > 0).astype(np.uint8))  # binary, 10 columns: not square
    np.save(tmp_path / "y.npy", (y > 140).astype(int))
    assert main(["search", "--data", str(tmp_path / "t.npy"), "--labels", str(tmp_path / "y.npy"), *SMALL]) == 2
    line = _one_line_error(capsys, "--family tabular", "--family-param image_shape=[H,W]")
    assert 'family="tabular"' not in line


def test_labels_of_one_class_are_named_by_their_option(tmp_path, digits, capsys):
    X, _y = digits
    pd = pytest.importorskip("pandas")
    pd.DataFrame({"a": np.arange(40.0), "b": np.arange(40.0) % 7, "label": 1}).to_csv(tmp_path / "t.csv", index=False)
    assert main(["search", "--data", str(tmp_path / "t.csv"), "--target", "label", "--family", "tabular",
                 *SMALL]) == 2
    _one_line_error(capsys, "--target 'label'", "a single value (1)", "at least 2")
    assert read_data(tmp_path / "t.csv", target="label").describe().endswith(", 1 class")
    # a table's numeric target of many values (a price) is not called classes: the tabular family regresses on it
    pd.DataFrame({"a": np.arange(40.0), "price": np.arange(40) * 7}).to_csv(tmp_path / "p.csv", index=False)
    assert read_data(tmp_path / "p.csv", target="price").describe().endswith(", a numeric target of 40 values")
    pd.DataFrame({"a": np.arange(40.0), "price": np.arange(40) / 3}).to_csv(tmp_path / "r.csv", index=False)
    assert read_data(tmp_path / "r.csv", target="price").describe().endswith(", a real-valued target")
    np.savez(tmp_path / "one.npz", X=X[:60], y=np.zeros(60, int))
    assert main(["search", "--data", str(tmp_path / "one.npz"), *SMALL]) == 2
    _one_line_error(capsys, "the labels 'y' of --data", "a single value (0)", "at least 2")
    np.save(tmp_path / "x.npy", X[:60])
    np.save(tmp_path / "y.npy", np.full(60, 7))
    assert main(["search", "--data", str(tmp_path / "x.npy"), "--labels", str(tmp_path / "y.npy"), *SMALL]) == 2
    _one_line_error(capsys, "--labels", "y.npy", "a single value (7)")
    Image = pytest.importorskip("PIL.Image")
    (tmp_path / "pics" / "cats").mkdir(parents=True)
    for i in range(8):
        Image.fromarray(X[i] * 255).save(tmp_path / "pics" / "cats" / f"{i}.png")
    assert main(["search", "--data", str(tmp_path / "pics"), *SMALL]) == 2
    _one_line_error(capsys, "one class sub-folder", "'cats'", "at least 2 classes")


def test_hint_threshold_for_scikit_learn_digits():
    X, y = load_digits(return_X_y=True)  # 0-16
    with pytest.raises(metafx.ValidationError) as e:
        metafx.MetaFeatureExtractor(steps=1).fit(X, y)
    assert "threshold=8" in str(e.value) and "128" not in str(e.value)
    assert "found value 5.0;" in str(e.value) and "np.float64" not in str(e.value)  # a number, not NumPy's repr
    with pytest.raises(metafx.ValidationError, match=r"\(X >= 8\)"):
        metafx.search(X, y, steps=1, progress=False)
    fx = metafx.MetaFeatureExtractor(budget=20, steps=1, threshold=8, progress=False).fit(X[:200], y[:200])
    assert fx.transform(X[:3]).shape[0] == 3


def test_hint_budget_wording(digits, capsys):
    X, y = digits
    with pytest.raises(metafx.ValidationError) as e:
        metafx.search(X[:100], y[:100], budget=0.5, steps=1, progress=False)
    assert "below the cheapest" in str(e.value) and "--budget" not in str(e.value)
    assert main(["search", "--budget", "0.5", "--steps", "1", "--no-progress"]) == 2
    _one_line_error(capsys, "below the cheapest", "raise --budget")


@pytest.mark.parametrize("argv, words", [
    (["--steps", "0"], ["--steps=0", ">= 1"]),
    (["--oversample", "0"], ["--oversample=0", "[1, 1000]"]),
    (["--n-jobs", "0"], ["--n-jobs=0", "-1"]),
    (["--seed", "-1"], ["--seed=-1", "[0, "]),
    (["--fix", "bogus=1"], ["--fix holds unknown meta-feature 'bogus'", "numInputs"]),
    (["--n-train", "5000"], ["--n-train + --n-test = 5797", "1797 samples"]),
])
def test_search_parameters_are_named_by_their_options(capsys, argv, words):
    assert main(["search", *argv, "--no-progress", "--out", "never.json"]) == 2
    line = _one_line_error(capsys, *words)
    assert "steps=" not in line.replace("--steps=", "") and "fixed " not in line


def test_hint_sampler_needs_engine_optuna(capsys):
    assert main(["search", "--sampler", "tpe", *SMALL]) == 2
    _one_line_error(capsys, "--sampler tpe", "add --engine optuna")


@pytest.mark.parametrize("argv,words", [
    (["search", "--budget", "abc"], ["--budget", "'abc'", "a number", "above 0"]),
    (["search", "--budget", "-1"], ["--budget", "'-1'", "above 0", "auto"]),
    (["search", "--final-c", "-1"], ["--final-c", "'-1'", "above 0", "cv"]),
    (["search", "--final-c", "often"], ["--final-c", "'often'", "a number", "cv"]),
    (["search", "--budget", "inf"], ["--budget", "'inf'", "above 0"]),
    (["search", "--steps", "2.5"], ["--steps", "'2.5'", "an integer"]),
    (["search", "--test-size", "1.5"], ["--test-size", "'1.5'", "share"]),
    (["show"], ["result"]),
])
def test_argument_errors_are_one_line(capsys, argv, words):
    with pytest.raises(SystemExit) as e:
        main(argv)
    assert e.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--help" in err[0], err
    for w in words:
        assert w in err[0]


def test_help_tells_a_new_user_the_way(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    top = capsys.readouterr().out
    for cmd in ("search", "show", "transform", "plot"):
        assert cmd in top
    with pytest.raises(SystemExit):
        main(["search", "--help"])
    text = capsys.readouterr().out
    for word in ("--data PATH|NAME", "--target COLUMN", "--labels FILE", "--threshold T|auto", "--test-size F",
                 "--test PATH", "--warm-start RESULT", "metafx-result-DATE-TIME.json", "one sub-folder per class",
                 "metafx[images]", "metafx[tabular]", "metafx transform"):
        assert word in text, word
    with pytest.raises(SystemExit):
        main(["transform", "--help"])
    assert "FILE.parquet" in capsys.readouterr().out


def test_help_stars_the_defaults_a_search_uses(capsys):
    """`metafx search --help` marks with * the component each option uses when left out: the defaults of
    metafx.search (engine guided), not another engine's."""
    with pytest.raises(SystemExit):
        main(["search", "--help"])
    text = capsys.readouterr().out.split("registered components", 1)[1]
    starred = {opt: name for opt, name in re.findall(r"\[(--[a-z-]+)\](?:(?!\[--).)*?\n   \*([\w-]+)", text, re.S)}
    params = inspect.signature(metafx.search).parameters
    assert starred == {"--family": params["family"].default, "--engine": DEFAULT_ENGINE,
                       "--evaluator": params["evaluator"].default, "--prune-by": params["prune_by"].default,
                       "--data": "digits"}


def test_interrupted_search_without_out_is_kept(tmp_path, monkeypatch, digits, capsys):
    import argparse

    from metafx.cli.search import _interrupted
    from metafx.loop.loop import SearchInterrupted

    monkeypatch.chdir(tmp_path)
    X, y = digits
    res = metafx.search(X[:100], y[:100], budget=20, steps=2, progress=False)
    assert _interrupted(argparse.Namespace(out=None, storage=None), SearchInterrupted(res)) == 130
    (kept,) = [f for f in os.listdir(tmp_path) if f.startswith("metafx-result-")]
    assert kept in capsys.readouterr().err
    assert metafx.SearchResult.from_json(kept).metadata["interrupted"] is True


def test_table_with_a_test_file_in_another_column_order(tmp_path, wine_csv, capsys):
    import pandas as pd

    df = pd.read_csv(wine_csv)
    df.iloc[:120].to_csv(tmp_path / "sorted.csv", index=False)  # wine is sorted by class: no 'barbera' here
    df.iloc[120:].to_csv(tmp_path / "rest.csv", index=False)
    kept = tmp_path / "kept.json"
    assert main(["search", "--data", str(tmp_path / "sorted.csv"), "--test", str(tmp_path / "rest.csv"),
                 "--target", "kind", "--family", "tabular", "--budget", "3", "--steps", "1", "--no-progress",
                 "--out", str(kept)]) == 0
    assert "held-out test could not be computed" in capsys.readouterr().err  # said, and the search is kept
    assert "test_score" not in metafx.SearchResult.from_json(kept).metadata
    df = df.sample(frac=1.0, random_state=0).reset_index(drop=True)
    df.iloc[:120].to_csv(tmp_path / "train.csv", index=False)
    df.iloc[120:][list(reversed(df.columns))].to_csv(tmp_path / "test.csv", index=False)
    out = tmp_path / "r.json"
    assert main(["search", "--data", str(tmp_path / "train.csv"), "--test", str(tmp_path / "test.csv"),
                 "--target", "kind", "--family", "tabular", "--budget", "3", "--steps", "1", "--no-progress",
                 "--out", str(out)]) == 0
    res = metafx.SearchResult.from_json(out)
    assert res.n_samples == 120 and res.metadata["data"]["n_test"] == 58
    assert res.metadata["data"]["test"].endswith("test.csv") and "score" in res.metadata["test_score"]
    assert main(["search", "--data", str(tmp_path / "train.csv"), "--test", str(tmp_path / "test.csv"),
                 "--test-size", "0.2", "--target", "kind", "--family", "tabular", *SMALL]) == 2
    _one_line_error(capsys, "--test", "leave out --test-size")
