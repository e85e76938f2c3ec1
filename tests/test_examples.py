"""The examples run end to end on scikit-learn's digits (small settings) and write what they promise."""

from __future__ import annotations

import functools
import json
import operator
import sys
from pathlib import Path

import pytest
from conftest import REPO


def test_meta_feature_choice_on_digits(tmp_path, load_example):
    mod = load_example("meta_feature_choice")
    s = mod.main(["--data", "digits", "--repeats", "2", "--counts", "2", "8", "--steps", "4", "--out", str(tmp_path)])
    assert {p.name for p in tmp_path.iterdir()} >= {"fig5_6.csv", "summary.json", "fig5_6.png"}
    assert s["engine"] == "optuna" and s["location_num_inputs"] == "1"
    paired = s["location_minus_numInputs_paired"]["2"]
    assert paired["location_better"] + paired["numInputs_better"] <= 2
    assert set(s["error_mean"]) == {"location", "numInputs", "random"}
    assert json.loads((tmp_path / "summary.json").read_text())["repeats"] == 2


@pytest.mark.parametrize("name, argv", [
    ("quality_prediction", ["--repeats", "2", "--train-sizes", "5", "20"]),
    ("smoothing", ["--repeats", "2", "--sizes", "20", "60"]),
    ("inductive_transfer", ["--repeats", "1", "--subsets", "2"]),
])
def test_quality_map_examples_on_digits(tmp_path, name, argv, load_example):
    mod = load_example(name)
    s = mod.main(["--data", "digits", "--out", str(tmp_path), *argv])
    assert isinstance(s, dict) and (tmp_path / "summary.json").exists()
    assert any(p.suffix == ".png" for p in tmp_path.iterdir())


def test_guided_extraction_on_digits(tmp_path, load_example):
    mod = load_example("guided_extraction_mnist")
    argv = ["--data", "digits", "--partitions", "0", "--budgets", "40", "--engines", "mufasa+o2", "ranked",
            "--steps", "3", "--n-train", "400", "--n-test", "400", "--reference", "mufasa+o2", "--out", str(tmp_path)]
    assert mod.main(argv) == 0
    runs = [json.loads(line) for line in (tmp_path / "runs.jsonl").read_text().splitlines()]
    assert {r["method"] for r in runs} >= {"mufasa+o2", "ranked", "svm-linear", "svm-poly2"}
    assert all(0 <= r["test_error"] <= 1 for r in runs)
    for f in ("summary.csv", "summary.md", "paired.csv", "paired.md", "fig_error_vs_budget.png",
              "fig_metafeatures_vs_budget.png"):
        assert (tmp_path / f).exists(), f
    assert mod.main(argv) == 0  # everything done: nothing runs again
    assert len((tmp_path / "runs.jsonl").read_text().splitlines()) == len(runs)


def test_transfer_search_on_digits(tmp_path, load_example):
    mod = load_example("transfer_search")
    argv = ["--data", "digits", "--targets", "2", "--sources", "2", "--steps", "2", "4", "--max-steps", "4",
            "--budget", "20", "--out", str(tmp_path)]
    s = mod.main(argv)
    assert set(s["rows"]) == {"cold J=2", "warm J=2", "cold J=4", "warm J=4"}
    assert all(0 <= r["test_error"] <= 1 and r["n"] == 2 for r in s["rows"].values())
    runs = [json.loads(line) for line in (tmp_path / "runs.jsonl").read_text().splitlines()]
    warm = [r for r in runs if r.get("arm") == "warm"]
    assert all(not set(r["target"]) & set(functools.reduce(operator.iadd, r["sources"], [])) for r in warm)  # no shared digit
    assert (tmp_path / "summary.md").exists()
    n = len(runs)
    mod.main(argv)  # everything done: nothing runs again
    assert len((tmp_path / "runs.jsonl").read_text().splitlines()) == n


def test_guided_extraction_sizes_its_split_to_digits(tmp_path, capsys, load_example):
    """``--data digits`` without sizes: the 2000 + 2000 protocol shrinks to the 1797 images (half each)."""
    mod = load_example("guided_extraction_mnist")
    argv = ["--data", "digits", "--partitions", "0", "--budgets", "20", "--engines", "ranked", "--steps", "1",
            "--no-svm-baselines", "--reference", "ranked", "--out", str(tmp_path)]
    assert mod.main(argv) == 0
    runs = [json.loads(line) for line in (tmp_path / "runs.jsonl").read_text().splitlines()]
    assert [(r["data"], r["n_train"], r["n_test"]) for r in runs] == [("digits", 898, 899)]
    assert "digits: 898 training and 899 test images" in capsys.readouterr().out
    assert mod.data_label(runs, mod.parse_args(argv)) == "scikit-learn digits (8x8), 898 training / 899 test images"
    with pytest.raises(SystemExit, match="exceeds the 1797 images"):
        mod.main([*argv, "--n-train", "1000", "--n-test", "1000"])


@pytest.mark.parametrize("name", ["guided_extraction_mnist", "quality_prediction", "smoothing",
                                  "inductive_transfer", "meta_feature_choice"])
def test_default_output_is_outside_the_source_tree(name, monkeypatch, tmp_path, load_example):
    monkeypatch.delenv("METAFX_EXAMPLES_OUT", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    mod = load_example(name)
    if name == "guided_extraction_mnist":
        out = Path(mod.parse_args(["--data", "digits"]).out)
    else:
        import _qm_common  # noqa: F401  (loaded by the example)

        out = Path(sys.modules["_qm_common"].base_parser("x", name).parse_args([]).out)
    assert out.is_relative_to(tmp_path) and not out.resolve().is_relative_to(REPO)
    monkeypatch.setenv("METAFX_EXAMPLES_OUT", str(tmp_path / "elsewhere"))
    if name == "guided_extraction_mnist":
        assert Path(mod.parse_args([]).out) == tmp_path / "elsewhere" / "guided_mnist"


def test_guided_extraction_methods_take_engine_parameters(tmp_path, load_example):
    mod = load_example("guided_extraction_mnist")
    assert mod.parse_engine("guided:n_init=2:portfolio_sizes=[2,3]:x=abc") == (
        "guided", {"n_init": 2, "portfolio_sizes": [2, 3], "x": "abc"})
    method = "guided:n_init=2:portfolio_every=1:pool_factor=4"
    argv = ["--data", "digits", "--partitions", "0", "--budgets", "30", "--engines", method, "--steps", "4",
            "--n-train", "300", "--n-test", "300", "--no-svm-baselines", "--reference", method, "--out", str(tmp_path)]
    assert mod.main(argv) == 0
    runs = [json.loads(line) for line in (tmp_path / "runs.jsonl").read_text().splitlines()]
    assert [r["method"] for r in runs] == [method] and 0 <= runs[0]["test_error"] <= 1
