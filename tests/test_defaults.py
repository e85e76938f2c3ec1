"""The defaults a user gets without asking: the engine and the budget (docs/results/defaults.md)."""

from __future__ import annotations

import numpy as np
import pytest

import metafx
import metafx.plugin
from metafx.loop.api import DEFAULT_BUDGET, resolve_budget


def _family(name="pixel-and"):
    return metafx.plugin.make_component("family", name)


@pytest.mark.parametrize("shape, budget", [((28, 28), 6272.0), ((8, 8), 512.0), ((5, 7), 280.0)])
def test_auto_budget_is_eight_per_pixel(shape, budget):
    X = np.zeros((4, *shape), np.uint8)
    for name in ("pixel-and", "pixels", "pixel-and-local"):
        fam = _family(name)
        assert resolve_budget("auto", fam, fam.check_data(X)) == budget


def test_a_family_without_a_rule_gets_the_fixed_default():
    class NoRule(type(_family())):
        def default_budget(self, X):
            return None

    fam = NoRule()
    assert resolve_budget("auto", fam, np.zeros((3, 8, 8), np.uint8)) == DEFAULT_BUDGET == 500.0


@pytest.mark.parametrize("bad", ["abc", "", "Auto ", -1, 0, float("nan"), True])
def test_bad_budgets_are_refused_naming_the_parameter(bad):
    fam = _family()
    with pytest.raises(metafx.ValidationError, match="budget"):
        resolve_budget(bad, fam, np.zeros((3, 8, 8), np.uint8))


def test_search_defaults_and_an_explicit_number_wins():
    X, y = metafx.load_dataset("digits")
    res = metafx.search(X[:200], y[:200], steps=2, seed=0, progress=False)
    assert res.engine == "guided" and res.budget == 512.0 and res.total_cost <= 512.0
    res = metafx.search(X[:200], y[:200], budget=30, steps=2, engine="mufasa", seed=0, progress=False)
    assert res.engine == "mufasa" and res.budget == 30.0


def test_extractor_and_cli_resolve_auto_the_same_way(tmp_path, capsys):
    from metafx.cli import main

    X, y = metafx.load_dataset("digits")
    fx = metafx.MetaFeatureExtractor(steps=2, progress=False).fit(X[:200], y[:200])
    assert fx.result_.budget == 512.0 and fx.get_params()["budget"] == "auto"
    out = tmp_path / "r.json"
    assert main(["search", "--data", "digits", "--n-train", "200", "--n-test", "100", "--steps", "2",
                 "--engine", "mufasa", "--out", str(out)]) == 0
    assert "budget 512 (--budget auto" in capsys.readouterr().err
    assert metafx.SearchResult.from_json(out).budget == 512.0
