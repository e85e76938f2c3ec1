"""Conformance test suites for metafx components (pytest).

A plugin's test module subclasses one class per component and names it
``Test...`` so that pytest collects the inherited tests::

    from metafx.testing import FamilyConformance

    class TestMyFamily(FamilyConformance):
        family = "my-family"                 # registered name (or the class)
        family_params = {"alpha": 2}         # optional constructor parameters

        def make_data(self):                 # optional: data in the family's layout
            return X, y

Every class reads its component from class attributes, builds it through the
registry (so the tests also prove the plugin is registered), and checks the
contract that :func:`metafx.search`, :class:`metafx.SearchResult` and the
command line rely on.  Override ``make_data`` (or ``make_problem`` for
engines) when the default synthetic data does not suit the component.
"""

from __future__ import annotations

import json
import math
import pickle
import re
from collections.abc import Mapping
from typing import Any, ClassVar, Literal, overload

import numpy as np
import pytest

from ..core.base import (
    Component,
    Dataset,
    FeatureFamily,
    FeatureScorer,
    FeatureSelector,
    MetaFeatureDescriber,
    SearchEngine,
    SetEvaluator,
    declared_pool_rows,
)
from ..core.exceptions import ValidationError
from ..core.params import declared_constraints, invalid_values
from ..core.values import FeatureValues, MetaFeatureSpace
from ..hooks.manager import get_registry
from ..hooks.registry import expected_base
from ..loop.api import search
from ..loop.problem import _jsonable
from .export_check import check_export

__all__ = [
    "DescriberConformance",
    "FamilyConformance",
    "check_declared_params",
    "synthetic_data",
]


# --------------------------------------------------------------------------- helpers
def synthetic_data(kind: str, *, n_samples: int = 70, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Small random data of a family's ``data_kind`` with a learnable two-class label.

    ``"binary-image"``: ``(n, 10, 11)`` 0/1 images (odd sizes on purpose; 70 samples
    is not a multiple of 64, the packing word size) whose label is the top-left
    pixel OR the centre pixel.  ``"table"``: ``(n, 6)`` Gaussian columns, label
    ``x0 * x1 + x2 > 0``.
    """
    rng = np.random.default_rng(seed)
    X: np.ndarray
    if kind == "binary-image":
        X = (rng.random((n_samples, 10, 11)) < 0.4).astype(np.uint8)
        y = (X[:, 0, 0] | X[:, 5, 5]).astype(np.int64)
    elif kind == "table":
        X = rng.normal(size=(n_samples, 6))
        y = (X[:, 0] * X[:, 1] + X[:, 2] > 0).astype(np.int64)
    else:
        raise ValidationError(f"kind={kind!r}; allowed: 'binary-image', 'table' (override make_data for others)")
    return X, y


@overload
def _resolve(kind: Literal["family"], spec: Any, params: Mapping[str, Any] | None) -> FeatureFamily: ...
@overload
def _resolve(kind: Literal["describer"], spec: Any, params: Mapping[str, Any] | None) -> MetaFeatureDescriber: ...
@overload
def _resolve(kind: Literal["set-evaluator"], spec: Any, params: Mapping[str, Any] | None) -> SetEvaluator: ...
@overload
def _resolve(kind: Literal["scorer"], spec: Any, params: Mapping[str, Any] | None) -> FeatureScorer: ...
@overload
def _resolve(kind: Literal["selector"], spec: Any, params: Mapping[str, Any] | None) -> FeatureSelector: ...
@overload
def _resolve(kind: Literal["engine"], spec: Any, params: Mapping[str, Any] | None) -> SearchEngine: ...
@overload
def _resolve(kind: Literal["dataset"], spec: Any, params: Mapping[str, Any] | None) -> Dataset: ...
@overload
def _resolve(kind: str, spec: Any, params: Mapping[str, Any] | None) -> Component: ...
def _resolve(kind: str, spec: Any, params: Mapping[str, Any] | None) -> Component:
    """The component ``spec`` names (a registered name of ``kind`` or a class), made with ``params``.

    ``kind="evaluator"``: a quality evaluator of any role (looked up by :meth:`Registry.evaluator`).
    """
    cls: type[Component]
    if isinstance(spec, str):
        cls = get_registry().evaluator(spec).cls if kind == "evaluator" else get_registry().get(kind, spec)
    elif isinstance(spec, type) and issubclass(spec, expected_base(kind)):
        cls = spec
    else:
        raise TypeError(f"set the class attribute to a registered {kind} name or a {kind} class, not {spec!r}")
    return cls.create(dict(params or {}))


def check_declared_params(cls: type[Component], params: Mapping[str, Any] | None = None) -> int:
    """Every value a declared parameter constraint refuses makes ``cls.create`` raise, naming the parameter.

    For each constructor parameter of ``cls`` declared in ``_parameter_constraints``, the values that no
    constraint accepts (``metafx.core.params.invalid_values``: just outside each interval, an unknown
    option, a wrong type) are given one at a time with the other parameters of ``params``; each must raise
    :class:`~metafx.ValidationError` whose message starts with ``name=``.  Returns the number of values
    tried (0 for a component that declares nothing).
    """
    declared = declared_constraints(cls)
    tried = 0
    for name in cls._get_param_names():
        for bad in invalid_values(declared.get(name, [])):
            tried += 1
            with pytest.raises(ValidationError, match=re.escape(f"{name}=")):
                cls.create({**dict(params or {}), name: bad})
    return tried


def _values_equal(a: FeatureValues, b: FeatureValues) -> None:
    assert a.n_samples == b.n_samples and a.n_features == b.n_features
    np.testing.assert_array_equal(a.dense(np.float64), b.dense(np.float64))


# --------------------------------------------------------------------------- families
class FamilyConformance:
    """The contract of a :class:`metafx.plugin.FeatureFamily`.

    Class attributes: ``family`` (registered name or class, required),
    ``family_params`` (dict), ``budget`` (a budget that buys several features).
    Override :meth:`make_data` to give data in the family's layout.
    """

    family: ClassVar[Any] = None
    family_params: ClassVar[Mapping[str, Any]] = {}
    budget: ClassVar[float] = 12.0
    #: draws tried at random points in the draw tests
    n_points: ClassVar[int] = 8

    def make_data(self) -> tuple[np.ndarray, np.ndarray]:
        """``(X, y)`` for the family; by default :func:`synthetic_data` of its ``data_kind``."""
        cls = type(_resolve("family", self.family, self.family_params))
        return synthetic_data(cls.data_kind)

    # -- fixtures
    @pytest.fixture
    def data(self) -> tuple[np.ndarray, np.ndarray]:
        return self.make_data()

    @pytest.fixture
    def fam(self, data) -> FeatureFamily:
        X, y = data
        f = _resolve("family", self.family, self.family_params)
        assert f.fit(X, y) is f, "fit must return self"
        return f

    @pytest.fixture
    def batch(self, fam):
        b = fam.draw(fam.space().start(), self.budget, np.random.default_rng(0))
        if len(b) == 0:  # the start point buys nothing on this data: try random points
            rng = np.random.default_rng(1)
            for _ in range(50):
                b = fam.draw(fam.space().uniform(rng), self.budget, rng)
                if len(b):
                    break
        assert len(b) > 0, f"no point of the space yields a feature within budget {self.budget}"
        return b

    # -- identity and parameters
    def test_is_a_registered_family(self):
        f = _resolve("family", self.family, self.family_params)
        assert isinstance(f, FeatureFamily), f"{type(f).__name__} is not a subclass of metafx.plugin.FeatureFamily"
        assert isinstance(type(f).name, str) and type(f).name, \
            f"{type(f).__name__} needs a class attribute `name` (a non-empty str), got {type(f).name!r}"
        if isinstance(self.family, str):
            assert get_registry().get("family", self.family) is type(f), \
                f"the registry's {self.family!r} is {get_registry().get('family', self.family)!r}, not {type(f)!r}"
        assert type(f).data_kind in ("binary-image", "table"), \
            f"{type(f).__name__}.data_kind = {type(f).data_kind!r}; allowed: 'binary-image', 'table'"

    def test_params_round_trip_and_unknown_params_rejected(self):
        f = _resolve("family", self.family, self.family_params)
        params = f.get_params()
        assert set(params) == set(type(f)._get_param_names()), "__init__ must store every argument under its name"
        assert repr(type(f).create(params)) == repr(f), \
            f"{type(f).__name__}(**get_params()) is {type(f).create(params)!r}, not {f!r}: __init__ must store its " \
            "arguments unchanged"
        with pytest.raises(ValidationError):
            type(f).create({**params, "no_such_parameter_xyz": 1})

    def test_declared_params_refuse_invalid_values(self):
        """Generated from ``_parameter_constraints``: each refused value raises, naming the parameter."""
        check_declared_params(type(_resolve("family", self.family, self.family_params)), self.family_params)

    def test_fitted_params_rebuild_an_equivalent_family(self, fam, batch, data):
        """``SearchResult`` rebuilds the family from JSON parameters, without data."""
        params = json.loads(json.dumps(_jsonable(fam.get_params())))
        again = type(fam)(**params)
        specs = json.loads(json.dumps(fam.to_json(batch)))
        X, _ = data
        np.testing.assert_array_equal(again.transform(X, again.from_json(specs)), fam.transform(X, batch))

    # -- space
    def test_space(self, fam):
        space = fam.space()
        assert isinstance(space, MetaFeatureSpace) and len(space.dimensions) >= 1, \
            f"space() must return a MetaFeatureSpace with at least one Dimension, got {space!r}"
        rng = np.random.default_rng(0)
        start = space.start()
        assert space.check_point(start) == start, f"the start point {start} is not a valid point of the space"
        for _ in range(20):
            u = space.uniform(rng)
            assert space.check_point(u) == u, f"a uniform point {u} is not a valid point of the space"
            v = space.neighbour(u, rng)
            assert space.check_point(v) == v, f"a neighbour {v} of {u} is not a valid point of the space"

    # -- drawing
    def test_draw_respects_budget_and_costs(self, fam):
        space = fam.space()
        rng = np.random.default_rng(2)
        min_cost = float(fam.min_cost())
        assert math.isfinite(min_cost) and min_cost > 0, f"min_cost() must be a positive number, got {min_cost!r}"
        for _ in range(self.n_points):
            u = space.uniform(rng)
            b = fam.draw(u, self.budget, rng)
            costs = np.asarray(b.costs, dtype=np.float64)
            assert costs.shape == (len(b),), \
                f"batch.costs has shape {costs.shape} but the batch holds {len(b)} features (draw at {u})"
            assert np.all(np.isfinite(costs)) and np.all(costs >= min_cost - 1e-9), \
                f"draw at {u} gave costs {costs.min():g}..{costs.max():g}; every cost must be finite and at least " \
                f"min_cost() = {min_cost:g}"
            assert costs.sum() <= self.budget + 1e-9, \
                f"draw at {u} with budget {self.budget:g} gave features costing {costs.sum():g} in all: stop " \
                "drawing before the next feature would exceed the budget"

    def test_draw_below_min_cost_is_empty(self, fam):
        budget = 0.999 * float(fam.min_cost())
        b = fam.draw(fam.space().start(), budget, np.random.default_rng(0))
        assert len(b) == 0, f"draw with budget {budget:g}, below min_cost() = {fam.min_cost():g}, gave {len(b)} " \
            "feature(s): it must give an empty batch (or min_cost() is too high)"

    def test_draw_max_features(self, fam, batch):
        b = fam.draw(fam.space().start(), self.budget, np.random.default_rng(0), max_features=1)
        assert len(b) <= 1, f"draw(..., max_features=1) gave {len(b)} features"

    def test_draw_is_reproducible(self, fam):
        u = fam.space().start()
        a = fam.draw(u, self.budget, np.random.default_rng(7))
        b = fam.draw(u, self.budget, np.random.default_rng(7))
        assert fam.to_json(a) == fam.to_json(b), \
            "two draws with generators of the same seed differ: draw must take all its randomness from `rng`"

    def test_draw_random(self, fam):
        b = fam.draw_random(self.budget, np.random.default_rng(3))
        assert float(np.sum(b.costs)) <= self.budget + 1e-9, \
            f"draw_random(budget={self.budget:g}) gave features costing {float(np.sum(b.costs)):g}"

    # -- batches
    def test_take_and_concat(self, fam, batch, data):
        X, _ = data
        prep = fam.prepare(X)
        full = fam.compute(prep, batch)
        idx = np.arange(len(batch))[::-1][: max(1, len(batch) // 2)]
        _values_equal(fam.compute(prep, batch.take(idx)), full.take(idx))
        both = fam.concat([batch, batch.take(idx)])
        assert len(both) == len(batch) + len(idx), \
            f"concat of batches of {len(batch)} and {len(idx)} features holds {len(both)}"
        np.testing.assert_allclose(np.asarray(both.costs), np.r_[batch.costs, np.asarray(batch.costs)[idx]])
        empty = fam.concat([])
        assert len(empty) == 0, f"concat([]) must give an empty batch, got {len(empty)} features"
        assert fam.compute(prep, empty).n_features == 0, "compute of an empty batch must give 0 columns"
        assert fam.compute(prep, batch.take([])).n_features == 0, "compute of batch.take([]) must give 0 columns"

    # -- values
    def test_compute(self, fam, batch, data):
        X, _ = data
        vals = fam.compute(fam.prepare(X), batch)
        assert isinstance(vals, FeatureValues), \
            f"compute must return metafx.plugin.FeatureValues (e.g. FeatureValues.from_dense(A)), got {type(vals)}"
        assert vals.n_samples == len(X) and vals.n_features == len(batch), \
            f"compute gave {vals.n_samples} x {vals.n_features} values for {len(X)} samples x {len(batch)} features"
        dense = vals.dense(np.float64)
        assert dense.shape == (len(X), len(batch)) and np.all(np.isfinite(dense)), \
            f"the values must be a finite ({len(X)}, {len(batch)}) array, got shape {dense.shape}"
        if vals.packed is not None:
            assert set(np.unique(dense)) <= {0.0, 1.0}, "bit-packed values must be 0/1"
        out = fam.transform(X, batch)
        assert out.shape == (len(X), len(batch)), f"transform gave shape {out.shape}, not {(len(X), len(batch))}"
        np.testing.assert_array_equal(out.astype(np.float64), dense)

    def test_rows_are_independent(self, fam, batch, data):
        """A sample's feature values do not depend on the other samples of the call."""
        X, _ = data
        full = fam.transform(X, batch)
        part = fam.transform(X[::3], batch)
        np.testing.assert_allclose(part, full[::3])

    def test_check_data_rejects_bad_input(self, fam):
        with pytest.raises(ValidationError):
            fam.check_data(np.zeros(5))

    # -- description and JSON
    def test_describe(self, fam, batch):
        desc = fam.describe(batch)
        assert isinstance(desc, Mapping), f"describe must return a dict name -> array, got {type(desc)}"
        missing = set(fam.space().names) - set(desc)
        assert not missing, f"describe() must give every meta-feature of the space; missing {sorted(missing)}"
        for name, col in desc.items():
            col = np.asarray(col, dtype=np.float64)
            assert col.shape == (len(batch),), \
                f"describe()[{name!r}] has shape {col.shape}; one value per feature is {(len(batch),)}"
            assert np.all(np.isfinite(col)), f"describe()[{name!r}] holds non-finite values"
        sub = fam.describe(batch.take([0]))
        for name in desc:
            np.testing.assert_allclose(np.asarray(sub[name], np.float64), np.asarray(desc[name], np.float64)[:1])

    def test_json_round_trip(self, fam, batch, data):
        X, _ = data
        specs = fam.to_json(batch)
        assert len(specs) == len(batch), f"to_json gave {len(specs)} specifications for {len(batch)} features"
        text = json.dumps(specs)
        again = fam.from_json(json.loads(text))
        assert fam.to_json(again) == specs, "to_json(from_json(specs)) differs from specs: the JSON round trip loses " \
            "something"
        np.testing.assert_allclose(np.asarray(again.costs), np.asarray(batch.costs))
        np.testing.assert_array_equal(fam.transform(X, again), fam.transform(X, batch))

    def test_from_json_rejects_bad_specs(self, fam):
        with pytest.raises(ValidationError):
            fam.from_json([{"family": type(fam).name, "no_such_key": 1}])

    def test_feature_names(self, fam, batch):
        names = fam.feature_names(batch)
        assert len(names) == len(batch) and all(isinstance(n, str) and n for n in names), \
            f"feature_names must give one non-empty str per feature ({len(batch)}), got {names[:3]!r}..."

    def test_export_matches_python(self, fam, data, tmp_path):
        """A family with ``export_c`` / ``export_numpy``: a search's result (with a fitted classifier) exports
        to C and NumPy code that computes Python's features, decisions and predictions bit for bit
        (:func:`metafx.testing.check_export`); skipped for a family that does not export, or that refuses (with
        a ``ValidationError``) to export the features this search chose."""
        if type(fam).export_c is FeatureFamily.export_c:
            pytest.skip(f"family {fam.name!r} does not implement export_c")
        X, y = data
        res = search(X, y, family=type(fam)(**fam.get_params()), budget=self.budget, steps=2, seed=0, progress=False)
        res.fit_classifier(X, y, C=1.0)
        try:
            check_export(res, X, tmp_dir=tmp_path)
        except ValidationError as e:  # a family that exports some of its features refuses the others by name
            pytest.skip(f"family {fam.name!r} does not export this result's features: {e}")

    def test_pool_rows_declaration(self, fam):
        """The class attribute ``pool_rows`` (read by the guided engine's ``pool_rows="auto"``): None or >= 16."""

        declared_pool_rows(fam)

    def test_pickle(self, fam, batch, data):
        X, _ = data
        f2, b2 = pickle.loads(pickle.dumps((fam, batch)))
        np.testing.assert_array_equal(f2.transform(X, b2), fam.transform(X, batch))


# --------------------------------------------------------------------------- describers
class DescriberConformance:
    """The contract of a :class:`metafx.plugin.MetaFeatureDescriber`.

    Class attributes: ``describer`` (name or class), ``describer_params``, and
    the family it is tested on: ``family`` / ``family_params`` (one the
    describer applies to); override :meth:`make_data` for that family's layout.
    """

    describer: ClassVar[Any] = None
    describer_params: ClassVar[Mapping[str, Any]] = {}
    family: ClassVar[Any] = None
    family_params: ClassVar[Mapping[str, Any]] = {}
    budget: ClassVar[float] = 12.0

    def make_data(self) -> tuple[np.ndarray, np.ndarray]:
        cls = type(_resolve("family", self.family, self.family_params))
        return synthetic_data(cls.data_kind)

    @pytest.fixture
    def fam(self) -> FeatureFamily:
        X, y = self.make_data()
        return _resolve("family", self.family, self.family_params).fit(X, y)

    @pytest.fixture
    def desc(self) -> MetaFeatureDescriber:
        return _resolve("describer", self.describer, self.describer_params)

    @pytest.fixture
    def batch(self, fam):
        b = fam.draw_random(self.budget, np.random.default_rng(0))
        assert len(b) > 0
        return b

    def test_is_a_registered_describer(self, desc):
        assert isinstance(desc, MetaFeatureDescriber)
        if isinstance(self.describer, str):
            assert get_registry().get("describer", self.describer) is type(desc)

    def test_declared_params_refuse_invalid_values(self, desc):
        """Generated from ``_parameter_constraints``: each refused value raises, naming the parameter."""
        check_declared_params(type(desc), self.describer_params)

    def test_columns(self, desc):
        cols = type(desc).columns
        assert isinstance(cols, tuple) and len(cols) >= 1
        assert all(isinstance(c, str) and c for c in cols) and len(set(cols)) == len(cols)

    def test_applies_to_its_families(self, desc, fam):
        assert desc.applies_to(fam) and desc.applies_to(type(fam).name)
        fams = type(desc).families
        if "*" not in fams:
            assert not desc.applies_to("no-such-family-xyz")
            for name in fams:  # every family it names exists
                assert ("family", name) in get_registry(), name

    def test_describe(self, desc, fam, batch):
        M = np.asarray(desc.describe(fam, batch), dtype=np.float64)
        assert M.shape == (len(batch), len(type(desc).columns))
        assert np.all(np.isfinite(M))
        np.testing.assert_allclose(np.asarray(desc.describe(fam, batch), np.float64), M)  # deterministic
        idx = np.arange(len(batch))[::-1]
        np.testing.assert_allclose(np.asarray(desc.describe(fam, batch.take(idx)), np.float64), M[idx])

    def test_describe_empty_batch(self, desc, fam, batch):
        M = np.asarray(desc.describe(fam, batch.take([])), dtype=np.float64)
        assert M.shape == (0, len(type(desc).columns))

    def test_needs_no_data(self, desc, fam, batch):
        """Meta-features do not depend on the instances: a family rebuilt from its parameters gives the same."""
        again = type(fam)(**json.loads(json.dumps(_jsonable(fam.get_params()))))
        b2 = again.from_json(fam.to_json(batch))
        np.testing.assert_allclose(np.asarray(desc.describe(again, b2), np.float64),
                                   np.asarray(desc.describe(fam, batch), np.float64))
