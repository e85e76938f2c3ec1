"""Declared parameter constraints (metafx.core.params) and the built-in components that declare them."""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np
import pytest

import metafx
import metafx.plugin
from metafx.core.base import Component
from metafx.core.params import (
    HasMethods,
    InstanceOf,
    Interval,
    Options,
    check_value,
    declared_constraints,
    invalid_values,
    make_constraint,
)
from metafx.default_plugins import (
    baselines,
    datasets,
    guided,
    local_families,
    mufasa,
    optuna_engine,
    pixel_families,
    regression_scorers,
    scorers,
    selectors,
    set_evaluators,
    svm_evaluator,
    wrappers,
)
from metafx.testing import check_declared_params

#: every built-in component whose parameters are declared (the others still check by hand)
DECLARED = [
    svm_evaluator.CVLinearSVM,
    set_evaluators.CVNearestNeighbor, set_evaluators.CVCondensed1NN, set_evaluators.CVAdaptiveNN,
    set_evaluators.CVPotential, set_evaluators.LOO1NN, set_evaluators.MarginEvaluator,
    set_evaluators.PotentialMargin,
    scorers.Infogain, scorers.Relief, scorers.ReliefF, scorers.Simba, scorers.R2W2,
    regression_scorers.Corrcoef, regression_scorers.RGS, regression_scorers.SKS,
    selectors.TopN, selectors.GFlip, selectors.GFlipStable,
    wrappers.ForwardSelection, wrappers.BackwardElimination,
    mufasa.Mufasa, baselines.RandomSearch, baselines.RankedBaseline, guided.GuidedSearch, optuna_engine.OptunaEngine,
    pixel_families.PixelAndFamily, pixel_families.PixelsFamily, local_families.PixelAndLocalFamily,
    datasets.DigitsDataset, datasets.MnistDataset,
]


@pytest.mark.parametrize("cls", DECLARED, ids=lambda c: c.name)
def test_every_constructor_parameter_is_declared(cls):
    params = set(cls._get_param_names())
    declared = set(declared_constraints(cls))
    assert params <= declared, f"{cls.__name__} does not declare {sorted(params - declared)}"


@pytest.mark.parametrize("cls", [c for c in DECLARED if c._get_param_names()], ids=lambda c: c.name)
def test_declared_constraints_refuse_invalid_values(cls):
    assert check_declared_params(cls) > 0


@pytest.mark.parametrize("cls", DECLARED, ids=lambda c: c.name)
def test_defaults_satisfy_the_declarations(cls):
    cls.create({})  # raises if a default breaks its own declaration


def test_messages_name_the_parameter_the_value_and_what_is_allowed():
    with pytest.raises(metafx.ValidationError, match=r"^n_candidates=0 must be an integer >= 1$"):
        metafx.plugin.make_component("engine", "mufasa", {"n_candidates": 0})
    with pytest.raises(metafx.ValidationError, match=r"^mode='grid' is not allowed; choose one of 'point', 'feature'$"):
        metafx.plugin.make_component("engine", "random", {"mode": "grid"})
    with pytest.raises(metafx.ValidationError, match=r"^cv='x' must be an integer >= 2 or one of 'loo'$"):
        metafx.plugin.make_component("selector", "forward", {"cv": "x"})
    with pytest.raises(metafx.ValidationError, match=r"^subsample=1.5 must be a finite number in \(0, 1\]$"):
        metafx.plugin.make_component("selector", "gflip-stable", {"subsample": 1.5})
    with pytest.raises(metafx.ValidationError, match=r"^n=-1 must be an integer >= 0 or None$"):
        metafx.plugin.make_component("selector", "top-n", {"n": -1})
    with pytest.raises(metafx.ValidationError, match=r"^average='yes' must be True or False$"):
        metafx.plugin.make_component("set-evaluator", "margin", {"average": "yes"})


def test_cross_parameter_checks_still_run():
    with pytest.raises(metafx.ValidationError, match="cv='loo' is only available with estimator=None"):
        metafx.plugin.make_component("selector", "forward", {"cv": "loo", "estimator": _Est()})


class _Est:
    def fit(self, X, y):
        return self

    def predict(self, X):
        return np.zeros(len(X))


@pytest.mark.parametrize("kind, lo, hi, closed, good, bad", [
    ("int", 1, None, "both", [1, 2, np.int64(7)], [0, 1.0, True, "1", None, 1.5]),
    ("int", 0, 10, "both", [0, 10], [-1, 11]),
    ("real", 0, None, "neither", [1e-9, 3, np.float32(0.5)], [0, -1, math.inf, math.nan, False]),
    ("real", 0, 1, "right", [1, 0.5], [0, 1.0001]),
    ("real", 0.5, 1, "left", [0.5, 0.99], [1, 0.49]),
])
def test_interval(kind, lo, hi, closed, good, bad):
    c = Interval(kind, lo, hi, closed=closed)
    assert all(c.accepts(v) for v in good)
    assert not any(c.accepts(v) for v in bad)
    assert invalid_values([c]) and not any(c.accepts(v) for v in invalid_values([c]))


def test_other_constraints_and_invalid_values():
    assert Options("a", "b").accepts("a") and not Options("a", "b").accepts("c")
    assert not Options(0, 1).accepts(True) and not Options("a").accepts(np.array(["a", "a"]))
    assert make_constraint(None).accepts(None) and not make_constraint(None).accepts(0)
    assert make_constraint("boolean").accepts(np.bool_(True)) and not make_constraint("boolean").accepts(1)
    assert make_constraint("array-like").accepts([1]) and not make_constraint("array-like").accepts("ab")
    assert make_constraint("dict").accepts({}) and not make_constraint("dict").accepts([])
    assert HasMethods("fit", "predict").accepts(_Est()) and not HasMethods("fit").accepts(object())
    assert InstanceOf(str).accepts("x")
    assert invalid_values([make_constraint("no_validation")]) == []
    bad = invalid_values([Interval("int", 1, None), None])
    assert 0 in bad and None not in bad
    with pytest.raises(TypeError, match="unknown parameter constraint"):
        make_constraint("no-such-kind")
    with pytest.raises(metafx.ValidationError, match=r"^x=3 must be an integer in \[0, 2\] or None$"):
        check_value("x", 3, [Interval("int", 0, 2), None])


def test_declarations_are_inherited_and_overridable():
    class A(Component):
        _parameter_constraints: ClassVar[dict[str, Any]] = {"a": [Interval("int", 0, None)], "b": [str]}

        def __init__(self, a=0, b="x"):
            self.a, self.b = a, b

    class B(A):
        _parameter_constraints: ClassVar[dict[str, Any]] = {"b": [Options("x", "y")]}

    assert set(declared_constraints(B)) == {"a", "b"}
    B.create({"b": "y"})
    with pytest.raises(metafx.ValidationError, match="b='z' is not allowed"):
        B.create({"b": "z"})
    with pytest.raises(metafx.ValidationError, match="a=-1"):
        B.create({"a": -1})


def test_a_component_without_declarations_keeps_its_own_checks():
    class Hand(Component):
        def __init__(self, k=1):
            self.k = k

        def check_params(self):
            super().check_params()
            if self.k < 1:
                raise metafx.ValidationError(f"k={self.k!r} must be >= 1")

    assert declared_constraints(Hand) == {}
    assert check_declared_params(Hand) == 0
    Hand.create({"k": 2})
    with pytest.raises(metafx.ValidationError, match="k=0"):
        Hand.create({"k": 0})


def test_engines_families_and_datasets_name_what_they_allow():
    make = metafx.plugin.make_component
    with pytest.raises(metafx.ValidationError, match=r"^selector='corr' is not allowed; choose one of 'filter', 'cmim'$"):
        make("engine", "guided", {"selector": "corr"})
    with pytest.raises(metafx.ValidationError, match=r"^portfolio_sizes=\[1\] must be a non-empty list of integers >= 2"):
        make("engine", "guided", {"portfolio_sizes": [1]})
    with pytest.raises(metafx.ValidationError, match="feature_map=2 biases the engine's own pool; it needs a pool_fac"):
        make("engine", "guided", {"feature_map": 2, "pool_factor": None})  # the cross-parameter check still runs
    with pytest.raises(metafx.ValidationError, match=r"^sampler_params=\[1\] must be a dict of sampler arguments or No"):
        make("engine", "optuna", {"sampler_params": [1]})
    with pytest.raises(metafx.ValidationError, match=r"^optuna does not take parameter\(s\) 'heartbeat'; allowed: sampler, sampler_params$"):
        make("engine", "optuna", {"heartbeat": 5})  # a study's setting: storage_options, not the engine's
    with pytest.raises(metafx.ValidationError, match=r"^image_shape=\(0, 5\) must be \(H, W\): two integers >= 1 or"):
        make("family", "pixel-and", {"image_shape": (0, 5)})
    with pytest.raises(metafx.ValidationError, match=r"^window=\[0, 1, 2\] must be \(row0, row1, col0, col1\)"):
        make("family", "pixel-and", {"window": [0, 1, 2]})
    with pytest.raises(metafx.ValidationError, match=r"^radius=0 must be a finite number > 0$"):
        make("family", "pixels", {"radius": 0})
    with pytest.raises(metafx.ValidationError, match=r"^part='test' is not allowed; choose one of 't10k', 'train'$"):
        make("dataset", "mnist", {"part": "test"})
    # the image families keep a checked shape as a list of ints (numpy integers accepted)
    fam = make("family", "pixels", {"image_shape": (np.int64(8), 8)})
    assert fam.image_shape == [8, 8] and all(type(v) is int for v in fam.image_shape)
    assert make("family", "pixel-and", {"window": (0, np.int32(3), 1, 4)}).window == [0, 3, 1, 4]
