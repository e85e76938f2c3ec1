"""The metafx command line."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from metafx.cli import main


def test_plugins_lists_every_kind(capsys):
    assert main(["plugins"]) == 0
    out = capsys.readouterr().out
    for word in ("families:", "pixel-and", "set evaluators:", "per-feature scorers:", "selectors:", "cv-linear-svm", "engines:", "mufasa", "datasets:", "digits"):
        assert word in out


def test_search_on_digits_writes_result(tmp_path, capsys):
    out = tmp_path / "r.json"
    rc = main(["search", "--data", "digits", "--n-train", "500", "--n-test", "300", "--budget", "100", "--steps", "3",
               "--no-progress", "--out", str(out), "--fix", "shiftInvLen=1", "--final-c", "0.1"])
    assert rc == 0
    text = capsys.readouterr().out
    assert "best point" in text and "held-out error" in text
    data = json.loads(out.read_text())
    assert 0 <= data["holdout_error"] <= 1 and data["total_cost"] <= 100
    assert all(t["point"]["shiftInvLen"] == 1 for t in data["trajectory"])


def test_search_reselect_option(tmp_path, capsys):
    out = tmp_path / "r.json"
    rc = main(["search", "--data", "digits", "--n-train", "400", "--n-test", "100", "--budget", "60", "--steps", "4",
               "--no-progress", "--out", str(out), "--reselect", "2"])
    assert rc == 0
    data = json.loads(out.read_text())
    assert data["metadata"]["reselect"]["r"] == 2 and data["best_step"] in data["metadata"]["reselect"]["steps"]


@pytest.mark.parametrize("argv,match", [
    (["search", "--reselect", "0"], "reselect"),
    (["search", "--budget", "0.5"], "below the cheapest"),
    (["search", "--engine", "mufsa"], "did you mean 'mufasa'"),
    (["search", "--data", "mnist", "--data-dir", "/nonexistent"], "does not exist"),
    (["search", "--n-train", "5000"], "exceeds"),
    (["search", "--evaluator-param", "C=-1"], "C=-1"),
    (["search", "--engine", "optuna", "--storage-option", "heartbeat=0"],
     "--storage-option heartbeat=0 must be a finite number > 0"),
    (["search", "--engine", "optuna", "--storage-option", "beat=3"], "'beat' is not an option"),
    (["search", "--engine", "optuna", "--storage-option", "heartbeat=9", "--storage-option", "stale_after=5"],
     "heartbeat=9 must be below stale_after=5"),
    (["search", "--engine", "mufasa", "--storage-option", "heartbeat=5"], "engine 'mufasa' keeps its steps in a journal"),
])
def test_bad_input_is_one_line_and_exit_2(argv, match, capsys):
    assert main([*argv, "--no-progress", "--steps", "1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("metafx: error:") and match in err[-1]
    assert not any("Traceback" in line for line in err)


def test_console_script_runs():
    out = subprocess.run([sys.executable, "-m", "metafx.cli", "plugins", "--json"], capture_output=True, text=True,
                         check=True)
    names = {r["name"] for r in json.loads(out.stdout)}
    assert {"pixel-and", "mufasa", "digits"} <= names


def test_parameter_values_are_json_or_python_words():
    from metafx.cli.options import _kv

    assert _kv("max_train=null") == ("max_train", None) and _kv("max_train=None") == ("max_train", None)
    assert _kv("complement=true") == ("complement", True) and _kv("complement=False") == ("complement", False)
    assert _kv("sizes=[2, 3]") == ("sizes", [2, 3]) and _kv("tol=0.5") == ("tol", 0.5)
    assert _kv("design=merge") == ("design", "merge") and _kv("name=none") == ("name", "none")
