"""examples/madelon_like.py and examples/regression_selection.py run end to end in tiny settings."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

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


def test_madelon_like_tiny(tmp_path):
    mod = _load("madelon_like")
    argv = ["--out", str(tmp_path), "--seeds", "0", "--train", "80", "--test", "60", "--features", "30",
            "--simba-restarts", "1", "--r2w2-iter", "2"]
    res = mod.main(argv)
    rows = res["rows"]
    assert {r["method"] for r in rows} == set(mod.METHODS)
    for r in rows:
        assert 0 <= r["n_relevant"] <= min(r["n_selected"], 20) and 0.0 <= r["ber"] <= 1.0
    true = next(r for r in rows if r["method"] == "true")
    assert true["n_selected"] == 20 and true["share_relevant"] == 1.0
    assert (tmp_path / "table.md").read_text().startswith("seeds: 1")
    # a second run skips what is done
    again = mod.main(argv)
    assert len(again["rows"]) == len(rows)
    assert len((tmp_path / "runs.jsonl").read_text().splitlines()) == len(rows)


def test_regression_selection_tiny(tmp_path):
    mod = _load("regression_selection")
    s = mod.main(["--out", str(tmp_path), "--repeats", "2", "--sizes", "20", "--rgs-epochs", "1"])
    assert set(s["success"]) == {"a", "b", "c", "d"}
    assert all(0.0 <= v[20] <= 1.0 for t in s["success"].values() for v in t.values())
    assert set(s["fig41"]) == {"noise-free", "noisy"}
    assert json.loads((tmp_path / "summary.json").read_text())["repeats"] == 2
    # the relevant feature of target (a) is found by the k-NN methods even at m = 20
    assert s["success"]["a"]["sks"][20] == 1.0
