"""The examples run end to end on scikit-learn's digits (small settings) and write what they promise."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def _load(name):
    sys.path.insert(0, str(EXAMPLES))
    try:
        spec = importlib.util.spec_from_file_location(f"_example_{name}", EXAMPLES / f"{name}.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod
    finally:
        sys.path.remove(str(EXAMPLES))


def test_meta_feature_choice_on_digits(tmp_path):
    mod = _load("meta_feature_choice")
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
def test_quality_map_examples_on_digits(tmp_path, name, argv):
    mod = _load(name)
    s = mod.main(["--data", "digits", "--out", str(tmp_path), *argv])
    assert isinstance(s, dict) and (tmp_path / "summary.json").exists()
    assert any(p.suffix == ".png" for p in tmp_path.iterdir())


def test_guided_extraction_on_digits(tmp_path):
    mod = _load("guided_extraction_mnist")
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


def test_guided_extraction_sizes_its_split_to_digits(tmp_path, capsys):
    """``--data digits`` without sizes: the 2000 + 2000 protocol shrinks to the 1797 images (half each)."""
    mod = _load("guided_extraction_mnist")
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
def test_default_output_is_outside_the_source_tree(name, monkeypatch, tmp_path):
    monkeypatch.delenv("METAFX_EXAMPLES_OUT", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    mod = _load(name)
    if name == "guided_extraction_mnist":
        out = Path(mod.parse_args(["--data", "digits"]).out)
    else:
        import _qm_common  # noqa: F401  (loaded by the example)

        out = Path(sys.modules["_qm_common"].base_parser("x", name).parse_args([]).out)
    assert out.is_relative_to(tmp_path) and not out.resolve().is_relative_to(EXAMPLES.parent)
    monkeypatch.setenv("METAFX_EXAMPLES_OUT", str(tmp_path / "elsewhere"))
    if name == "guided_extraction_mnist":
        assert Path(mod.parse_args([]).out) == tmp_path / "elsewhere" / "guided_mnist"
