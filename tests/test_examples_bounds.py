"""The bound experiments' example scripts run end to end on tiny settings (scikit-learn's shipped data)."""

from __future__ import annotations

import json


def test_potential_h_criterion_tiny(tmp_path, load_example):
    mod = load_example("potential_h_criterion")
    s = mod.main(["--runs", "2", "--datasets", "iris", "wine", "--out", str(tmp_path)])
    for name in ("iris", "wine"):
        d = s["datasets"][name]
        assert d["n_B"] + d["n_E"] + d["n_W"] == 2
        assert all(r["sigma_h"] in mod.SIGMAS and r["sigma_loo"] in mod.SIGMAS for r in d["runs"])
        assert 0 <= d["err_h_mean"] <= 1 and d["thm4_bound_min"] > 0
    assert (tmp_path / "table1.md").read_text().count("\n") == 4
    assert json.loads((tmp_path / "summary.json").read_text())["runs"] == 2


def test_potential_h_criterion_raw_variant(tmp_path, load_example):
    mod = load_example("potential_h_criterion")
    s = mod.main(["--runs", "1", "--datasets", "iris", "--potentials", "raw", "--scaling", "none",
                  "--out", str(tmp_path)])
    assert s["potentials"] == "raw" and s["datasets"]["iris"]["n_B"] + s["datasets"]["iris"]["n_E"] + \
        s["datasets"]["iris"]["n_W"] == 1


def test_sample_compression_tiny(tmp_path, load_example):
    mod = load_example("sample_compression")
    s = mod.main(["--trials", "2", "--srm-trials", "1", "--datasets", "iris", "--out", str(tmp_path)])
    assert set(s["problems"]) == {"iris 0 vs 1", "iris 0 vs 2", "iris 1 vs 2"}
    for d in s["problems"].values():
        assert 0 < d["pct_pruned"] <= d["pct_net"] <= 100
        assert 0 < d["pct_hierarchy"] <= 100 and -1 <= d["acc_change"] <= 1
        assert d["ddim"] > 0 and d["srm_bound"] > 0
    assert (tmp_path / "figure2.md").exists()


def test_potential_theorem3_mc_tiny(load_example):
    mod = load_example("potential_theorem3_mc")
    rows = mod.main(["--reps", "20", "--sizes", "400", "--points", "0.3"])
    assert rows[0]["share"] <= rows[0]["bound"] < 0.01 and rows[0]["gap"] > 0.35
