"""The reference plugin family (examples/window_or_family.py, written against metafx.plugin alone, in plain
NumPy) gets what the built-in family gets: the conformance suite, every engine, export to C and NumPy bit for bit,
and the speed check."""

from __future__ import annotations

import importlib.util
import sys

import numpy as np
import pytest
from conftest import REPO

import metafx
from metafx.testing import FamilyConformance, check_export, check_family_speed


def _module():
    name = "window_or_family"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, REPO / "examples" / f"{name}.py")
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
    return sys.modules[name]


@pytest.fixture(scope="module", autouse=True)
def registered():
    mod = _module()
    metafx.plugin.register_plugin(mod, name="window-or")
    yield mod
    metafx.plugin.unregister_plugin(mod)


@pytest.fixture(scope="module")
def digits():
    X, y = metafx.load_dataset("digits")
    return X[:500], y[:500]


class TestWindowOrConformance(FamilyConformance):
    family = "window-or"
    budget = 20.0


class TestWindowOrPackedConformance(FamilyConformance):
    family = "window-or-packed"
    budget = 20.0


@pytest.mark.parametrize("m", [1, 63, 64, 65, 130])
def test_packed_variant_computes_the_same_values(m, digits):
    """window-or-packed (the same family computed on bits in NumPy) gives window-or's values bit for bit, on sizes
    that are not whole words, and no values for an empty batch."""
    X, _ = digits
    dense, packed = (metafx.plugin.make_component("family", f, None).fit(X[:m]) for f in ("window-or", "window-or-packed"))
    batch = dense.draw({"numInputs": 5, "window": 6}, 3000, np.random.default_rng(m))
    a, b = dense.compute(dense.prepare(X[:m]), batch), packed.compute(packed.prepare(X[:m]), batch)
    assert b.n_samples == m and np.array_equal(a.packed, b.packed)
    assert packed.compute(packed.prepare(X[:m]), batch.take([])).n_features == 0


def test_packed_variant_searches_as_the_dense_one(digits):
    """The same values give the same search: window-or-packed chooses window-or's features, point for point."""
    X, y = digits
    runs = [metafx.search(X[:300], y[:300], family=f, budget=60, steps=4, seed=2, progress=False)
            for f in ("window-or", "window-or-packed")]
    assert [dict(f, family=None) for f in runs[0].features] == [dict(f, family=None) for f in runs[1].features]
    assert [s.quality for s in runs[0].trajectory] == [s.quality for s in runs[1].trajectory]


@pytest.mark.parametrize("engine", ["guided", "mufasa", "optuna", "random"])
def test_every_engine_searches_the_plugin_family(engine, digits):
    X, y = digits
    res = metafx.search(X[:300], y[:300], family="window-or", engine=engine, budget=60, steps=4, seed=0,
                        progress=False)
    assert res.n_features > 0 and res.total_cost <= 60
    assert res.transform(X[300:]).shape == (200, res.n_features)


def test_binary_values_arrive_packed(digits):
    """The family returns dense 0/1 values with FeatureValues.from_dense: they are packed once, so the engines,
    scorers and evaluators take their compiled paths."""
    X, y = digits
    fam = metafx.plugin.make_component("family", "window-or", None).fit(X, y)
    batch = fam.draw({"numInputs": 3, "window": 4}, 50, np.random.default_rng(0))
    values = fam.compute(fam.prepare(X), batch)
    assert values.packed is not None and values.n_features == len(batch)


def test_result_exports_to_c_and_numpy_exactly(digits, tmp_path):
    X, y = digits
    res = metafx.search(X[:300], y[:300], family="window-or", budget=80, steps=3, seed=1, progress=False)
    res.fit_classifier(X[:300], y[:300])
    out = check_export(res, X, tmp_dir=tmp_path)  # one image at a time and 64 at a time (its code_many), 500 images
    assert out["numpy"] and out["n"] == len(X)
    from metafx.export import to_c
    assert "static void metafx_model_compute64(" in to_c(res) and "metafx_model_block(" in to_c(res)
    grey = X * 200  # 0/200 bytes: the C file reads any nonzero byte as 1, the NumPy module refuses them
    mod_err = pytest.raises(ValueError, match="binary")
    import importlib.util as iu

    from metafx.export import to_numpy
    p = tmp_path / "m.py"
    p.write_text(to_numpy(res))
    spec = iu.spec_from_file_location("m_grey", p)
    m = iu.module_from_spec(spec)
    spec.loader.exec_module(m)
    with mod_err:
        m.features(grey)


def test_speed_check_reports_every_engine(digits):
    X, y = digits
    report = check_family_speed(metafx.plugin.make_component("family", "window-or", None), X[:200], y[:200],
                                budget=40, steps=3, engines=("guided", "mufasa"))
    assert [r["engine"] for r in report.rows] == ["guided", "mufasa"]
    guided, mufasa = report.rows
    assert guided["computed"] > mufasa["computed"] > 0  # the guided engine computes a pool per step
    for r in report.rows:
        assert r["wall"] >= r["draw"] + r["compute"] + r["evaluate"] - 1e-6 and r["own"] >= 0
        assert r["cpu"] > 0  # the process's CPU time of the search
    assert report.ratio("guided") > 0 and "engine" in str(report) and "cpu" in str(report)
    assert report.ratio("guided", clock="cpu") == pytest.approx(guided["cpu"] / mufasa["cpu"])
    with pytest.raises(ValueError, match=r"clock='cycles'.*'wall' or 'cpu'"):
        report.ratio("guided", clock="cycles")


def test_speed_check_notes_features_that_are_mostly_one(digits):
    """OR features are 1 on most images: the speed check says that the evaluator's cost grows with the ones (and
    that complements evaluate faster); the built-in pixel-and's sparse ANDs get no such note."""
    X, y = digits
    notes = {f: check_family_speed(metafx.plugin.make_component("family", f, None), X[:200], y[:200], budget=30,
                                   steps=2, engines=("mufasa",)).notes for f in ("window-or-packed", "pixel-and")}
    said = [n for n in notes["window-or-packed"] if "evaluate faster" in n]
    assert len(said) == 1 and "of the samples in the mean" in said[0]
    assert not any("evaluate faster" in n for n in notes["pixel-and"])


def test_the_reference_family_declares_no_pool_rows(digits):
    """Written from the guide alone, the family declares nothing: the guided engine's pool_rows="auto" ranks its
    pools on FeatureFamily.pool_rows (512) rows, and on every row of a smaller training set."""
    from metafx.core.base import declared_pool_rows

    fam = metafx.plugin.make_component("family", "window-or", None)
    assert "pool_rows" not in type(fam).__dict__ and declared_pool_rows(fam) == 512
    X, y = digits
    res = metafx.search(X[:300], y[:300], family="window-or", engine="guided", budget=40, steps=2, seed=0,
                        progress=False, engine_params={"pool_rows": "auto", "n_init": 2})
    assert res.metadata["pool_rows_used"] is None  # 512 is more than the 300 rows: the pools are ranked on every row
