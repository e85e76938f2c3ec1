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


def test_potential_h_criterion_computes_what_metafx_computes(load_example):
    """The example's NumPy margins, potential function rule and default width (it uses only metafx's public API)
    are metafx's own: the potential-margin evaluator's margins, PotentialFunctionClassifier and its default sigma,
    on random inputs of odd sizes and at widths small enough that unshifted potentials underflow."""
    import numpy as np

    from metafx.default_plugins.set_evaluators import normalized_potential_margins
    from metafx.learn.neighbors import PotentialFunctionClassifier, resolve_sigma

    mod = load_example("potential_h_criterion")
    rng = np.random.default_rng(7)
    for m, d, K in ((2, 1, 2), (7, 3, 2), (33, 5, 3), (101, 64, 10)):
        X = rng.normal(size=(m, d)) * rng.uniform(0.1, 10)
        codes = np.arange(m) % K
        rng.shuffle(codes)
        Xte = rng.normal(size=(13, d))
        for sigma in (0.01, 0.3, 4.0):
            np.testing.assert_allclose(mod.shifted_normalized_margins(X, codes, K, sigma),
                                       normalized_potential_margins(X, codes, K, sigma), atol=1e-9)
            y = np.array(list("abcdefghij"))[codes]
            np.testing.assert_array_equal(mod.pfr_predict(X, y, Xte, sigma),
                                          PotentialFunctionClassifier(sigma=sigma).fit(X, y).predict(Xte))
        assert np.isclose(mod.default_sigma(X), resolve_sigma(None, X))
