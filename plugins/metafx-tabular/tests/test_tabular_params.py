"""The plugin's components declare their parameters (``_parameter_constraints``): one validator checks them, and
the invalid-value tests below are generated from the declarations (``metafx.testing.check_declared_params``)."""

from __future__ import annotations

import numpy as np
import pytest

import metafx
from metafx.core.params import declared_constraints, invalid_values
from metafx.testing import check_declared_params
from metafx_tabular import ColumnKinds, CVLinear, CVTree, InputColumns, OperatorCounts, TabularFamily

COMPONENTS = [TabularFamily, CVLinear, CVTree, OperatorCounts, InputColumns, ColumnKinds]


@pytest.mark.parametrize("cls", COMPONENTS, ids=lambda c: c.name)
def test_every_constructor_parameter_is_declared(cls):
    missing = set(cls._get_param_names()) - set(declared_constraints(cls))
    assert not missing, f"{cls.__name__} does not declare {sorted(missing)}"


@pytest.mark.parametrize("cls", COMPONENTS, ids=lambda c: c.name)
def test_declared_constraints_refuse_the_values_they_do_not_allow(cls):
    declared = declared_constraints(cls)
    for name in cls._get_param_names():  # every parameter has values to refuse (none is "anything")
        assert invalid_values(declared[name]), name
    tried = check_declared_params(cls)
    assert tried >= len(cls._get_param_names())


@pytest.mark.parametrize("cls", COMPONENTS, ids=lambda c: c.name)
def test_the_defaults_are_allowed(cls):
    cls.create({}).check_params()


@pytest.mark.parametrize("cls, params, message", [
    (TabularFamily, {"operators": ["mul", "cube"]},
     "operators=['mul', 'cube'] must be None or a non-empty list of operator names among threshold, log, square"),
    (TabularFamily, {"operators": []}, "operators=[] must be None or a non-empty list"),
    (TabularFamily, {"max_depth": 4}, "max_depth=4 must be an integer in [1, 3]"),
    (TabularFamily, {"max_arity": True}, "max_arity=True must be an integer in [1, 3]"),
    (TabularFamily, {"clip_quantile": 0.5}, "clip_quantile=0.5 must be a finite number in [0, 0.5)"),
    (TabularFamily, {"missing": "drop"}, "missing='drop' is not allowed; choose one of 'propagate', 'zero'"),
    (TabularFamily, {"column_kinds": {"a": "text"}},
     "column_kinds={'a': 'text'} must be None or a list or {column index or name: kind} of kinds among numeric, "
     "categorical, datetime"),
    (TabularFamily, {"mix": 1}, "mix=1 must be True or False"),
    (CVLinear, {"scoring": "acuracy"}, "scoring='acuracy' must be 'auto' or a scikit-learn scorer name"),
    (CVLinear, {"missing": "native"}, "missing='native' is not allowed; choose one of 'mean', 'indicator'"),
    (CVLinear, {"C": float("inf")}, "C=inf must be a finite number > 0"),
    (CVTree, {"max_leaf_nodes": 1}, "max_leaf_nodes=1 must be an integer >= 2"),
    (CVTree, {"missing": "zero"}, "missing='zero' is not allowed; choose one of 'native', 'mean', 'indicator'"),
])
def test_messages_name_the_parameter_the_value_and_what_is_allowed(cls, params, message):
    with pytest.raises(metafx.ValidationError) as info:
        cls.create(params)
    assert str(info.value).startswith(message), str(info.value)


def test_values_the_declarations_allow_are_accepted():
    fam = TabularFamily.create({"operators": ("mul", "log"), "max_arity": np.int64(2), "rank_width": 1,
                                "oversample": np.float64(2.5), "mix": np.bool_(True),
                                "column_kinds": {0: "categorical", "b": "datetime"}, "column_tags": ["a", None]})
    assert fam.operators == ["log", "mul"]  # in OPERATORS order
    CVLinear.create({"scoring": "accuracy", "missing": "indicator", "C": 2})
    CVTree.create({"missing": "native", "learning_rate": 0.05})


def test_the_learned_parameters_are_checked_together():
    """Declared one by one, the per-column lists must also agree with ``n_columns``."""
    with pytest.raises(metafx.ValidationError, match="column_center must list 2 values when n_columns=2"):
        TabularFamily.create({"n_columns": 2, "column_center": [0.0], "column_scale": [1.0, 1.0],
                              "column_rank": [0.0, 1.0]})
    with pytest.raises(metafx.ValidationError, match="column_scale values must be positive"):
        TabularFamily.create({"n_columns": 2, "column_center": [0.0, 0.0], "column_scale": [1.0, 0.0],
                              "column_rank": [0.0, 1.0]})
    with pytest.raises(metafx.ValidationError, match="column_kinds must list 2 kinds"):
        TabularFamily.create({"n_columns": 2, "column_center": [0.0, 0.0], "column_scale": [1.0, 1.0],
                              "column_rank": [0.0, 1.0], "column_kinds": {0: "numeric"}})


def test_a_fitted_family_rebuilds_from_its_parameters():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    fam = TabularFamily().fit(X, (X[:, 0] > 0).astype(int))
    again = TabularFamily.create(fam.get_params())
    assert again.n_columns == 3 and again.column_kinds == ["numeric"] * 3
