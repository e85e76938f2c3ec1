"""Conformance test suites of the search side: evaluators (set evaluators, per-feature scorers, selectors),
search engines and datasets (pytest).

Used as the suites of :mod:`metafx.testing.conformance` are: a plugin's test module subclasses one class per
component, names it ``Test...`` and sets the component in class attributes::

    from metafx.testing import EngineConformance

    class TestMyEngine(EngineConformance):
        engine = "my-engine"
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
import pytest

from .._kernels.packing import pack_columns
from ..core.base import (
    Component,
    Dataset,
    FeatureScorer,
    FeatureSelector,
    SearchEngine,
    SetEvaluator,
)
from ..core.datafiles import load_digits_binary
from ..core.exceptions import ValidationError
from ..core.validation import check_binary_images, check_labels, check_table
from ..core.values import FeatureValues
from ..hooks.manager import get_registry
from ..hooks.registry import EVALUATOR_KINDS, evaluator_kind
from ..loop.components import make_component
from ..loop.loop import run_search
from ..loop.problem import SearchProblem
from ..loop.result import SearchResult
from .conformance import _resolve, check_declared_params

__all__ = ["DatasetConformance", "EngineConformance", "EvaluatorConformance"]


# --------------------------------------------------------------------------- evaluators
def _informative(task: str, n_samples: int = 160, seed: int = 0) -> tuple[np.ndarray, np.ndarray, int]:
    """0/1 columns: ``n_inf`` informative ones first, then pure noise; the target."""
    rng = np.random.default_rng(seed)
    n_inf, n_noise = 3, 5
    if task == "classification":
        y = rng.integers(0, 3, n_samples)
        inf = np.stack([(y == c) ^ (rng.random(n_samples) < 0.08) for c in range(n_inf)], axis=1)
    else:
        inf = rng.random((n_samples, n_inf)) < 0.5
        y = inf @ np.array([2.0, -1.5, 1.0]) + 0.2 * rng.normal(size=n_samples)
    noise = rng.random((n_samples, n_noise)) < 0.5
    return np.concatenate([inf, noise], axis=1).astype(np.uint8), y, n_inf


def _packed(X: np.ndarray) -> FeatureValues:
    return FeatureValues(n_samples=X.shape[0], packed=pack_columns(np.ascontiguousarray(X, dtype=np.uint8)))


class EvaluatorConformance:
    """The contract of an evaluator: a :class:`~metafx.plugin.SetEvaluator`,
    :class:`~metafx.plugin.FeatureScorer` or :class:`~metafx.plugin.FeatureSelector`.

    Class attributes: ``evaluator`` (name or class), ``evaluator_params``,
    ``task`` (``"classification"`` or ``"regression"``; by default the
    scorer's own ``task``), ``kind`` (the role: ``"set-evaluator"``,
    ``"scorer"`` or ``"selector"``; by default the role the evaluator is
    registered under).  The default data are 0/1 columns, the first
    three informative about the target and five pure noise; override
    :meth:`make_data` (returning ``(X, y, n_informative)``) for other inputs.
    """

    evaluator: ClassVar[Any] = None
    evaluator_params: ClassVar[Mapping[str, Any]] = {}
    task: ClassVar[str | None] = None
    kind: ClassVar[str | None] = None

    def _make(self) -> Component:
        if self.kind is not None and self.kind not in EVALUATOR_KINDS:
            raise ValidationError(f"kind={self.kind!r}; allowed: {', '.join(EVALUATOR_KINDS)} or None")
        return _resolve(self.kind or "evaluator", self.evaluator, self.evaluator_params)

    def make_data(self) -> tuple[np.ndarray, np.ndarray, int]:
        ev = self._make()
        return _informative(str(self.task or getattr(ev, "task", "classification")))

    @pytest.fixture
    def ev(self):
        return self._make()

    @pytest.fixture
    def data(self):
        return self.make_data()

    def _run(self, ev, X, y, seed=0):
        if isinstance(ev, SetEvaluator):
            return ev.evaluate(X, y, random_state=seed)
        if isinstance(ev, FeatureScorer):
            return ev.score(X, y)
        return ev.select(X, y)

    def test_is_a_registered_evaluator(self, ev):
        assert isinstance(ev, (SetEvaluator, FeatureScorer, FeatureSelector))
        kind = evaluator_kind(type(ev))
        assert kind is not None and self.kind in (None, kind)
        if isinstance(self.evaluator, str):
            assert get_registry().get(kind, self.evaluator) is type(ev)  # registered under its role
        params = ev.get_params()
        assert set(params) == set(type(ev)._get_param_names())
        with pytest.raises(ValidationError):
            type(ev).create({**params, "no_such_parameter_xyz": 1})

    def test_declared_params_refuse_invalid_values(self, ev):
        """Generated from ``_parameter_constraints``: each refused value raises, naming the parameter."""
        check_declared_params(type(ev), self.evaluator_params)

    def test_output(self, ev, data):
        X, y, _ = data
        out = self._run(ev, X, y)
        if isinstance(ev, SetEvaluator):
            assert isinstance(out, (float, np.floating)) and math.isfinite(out)
        elif isinstance(ev, FeatureScorer):
            out = np.asarray(out, dtype=np.float64)
            assert out.shape == (X.shape[1],) and np.all(np.isfinite(out))
        else:
            out = np.asarray(out)
            assert out.ndim == 1 and out.dtype.kind in "iu"
            assert len(set(out.tolist())) == out.size and np.all((out >= 0) & (out < X.shape[1]))

    def test_deterministic(self, ev, data):
        X, y, _ = data
        np.testing.assert_array_equal(np.asarray(self._run(ev, X, y, 3)), np.asarray(self._run(ev, X, y, 3)))

    def test_dense_and_feature_values_agree(self, ev, data):
        """Arrays, dense FeatureValues and (for 0/1 data) bit-packed FeatureValues give one answer."""
        X, y, _ = data
        ref = np.asarray(self._run(ev, X, y), dtype=np.float64)
        forms = [FeatureValues.from_dense(X)]
        if set(np.unique(X)) <= {0, 1}:
            forms.append(_packed(X))
        for vals in forms:
            np.testing.assert_allclose(np.asarray(self._run(ev, vals, y), dtype=np.float64), ref, rtol=1e-9, atol=1e-12)

    def test_informative_beats_noise(self, ev, data):
        X, y, n_inf = data
        if isinstance(ev, SetEvaluator):
            good = ev.evaluate(X[:, :n_inf], y, random_state=0)
            bad = ev.evaluate(X[:, n_inf:], y, random_state=0)
            assert good > bad, (good, bad)
        elif isinstance(ev, FeatureScorer):
            s = np.asarray(ev.score(X, y), dtype=np.float64)
            assert s[:n_inf].min() > s[n_inf:].max(), s
        else:
            sel = np.asarray(ev.select(X, y))
            if sel.size:
                assert sel[0] < n_inf, sel

    def test_rejects_mismatched_lengths(self, ev, data):
        X, y, _ = data
        with pytest.raises(ValueError):
            self._run(ev, X, y[:-1])


# --------------------------------------------------------------------------- engines
class EngineConformance:
    """The contract of a :class:`metafx.plugin.SearchEngine`.

    Class attributes: ``engine`` (name or class), ``engine_params``, ``steps``,
    ``deterministic_in_n_jobs``; override :meth:`storage_for` for an engine
    with its own storage.
    The default problem is ``pixel-and`` on 300 binarized digits with
    ``cv-linear-svm`` and budget 15; override :meth:`make_problem`.
    """

    engine: ClassVar[Any] = None
    engine_params: ClassVar[Mapping[str, Any]] = {}
    steps: ClassVar[int] = 4
    #: False for engines whose proposals depend on how many run at once (optuna's model-based samplers)
    deterministic_in_n_jobs: ClassVar[bool] = True

    def make_problem(self) -> SearchProblem:
        X, y = load_digits_binary()
        fam = make_component("family", "pixel-and")
        ev = make_component("set-evaluator", "cv-linear-svm")
        return SearchProblem(fam, X[:300], y[:300], ev, 15.0, eval_seed=0)

    @pytest.fixture
    def eng(self) -> SearchEngine:
        return _resolve("engine", self.engine, self.engine_params)

    @pytest.fixture
    def problem(self) -> SearchProblem:
        return self.make_problem()

    @pytest.fixture
    def result(self, eng, problem) -> SearchResult:
        return run_search(problem, eng, steps=self.steps, seed=5, progress=False)

    def test_is_a_registered_engine(self, eng):
        assert isinstance(eng, SearchEngine)
        if isinstance(self.engine, str):
            assert get_registry().get("engine", self.engine) is type(eng)
        with pytest.raises(ValidationError):
            type(eng).create({**eng.get_params(), "no_such_parameter_xyz": 1})

    def test_declared_params_refuse_invalid_values(self, eng):
        """Generated from ``_parameter_constraints``: each refused value raises, naming the parameter."""
        check_declared_params(type(eng), self.engine_params)

    def test_result(self, result, problem, eng):
        assert isinstance(result, SearchResult)
        assert result.engine == type(eng).name and result.family == problem.family.name
        traj = result.trajectory
        assert 1 <= len(traj) <= self.steps
        assert [r.step for r in traj] == sorted(r.step for r in traj)
        best = max(r.quality for r in traj)
        assert result.best_quality == pytest.approx(best)
        assert result.total_cost <= problem.budget + 1e-9
        assert all(r.cost <= problem.budget + 1e-9 for r in traj)
        assert all(problem.space.check_point(r.point) == r.point for r in traj if r.kind == "point")
        assert all(not r.point for r in traj if r.kind == "portfolio")  # a portfolio step has no point
        assert len(result.features) == result.n_features
        best_rec = [r for r in traj if r.step == result.best_step]
        assert best_rec and best_rec[0].quality == pytest.approx(result.best_quality)
        assert best_rec[0].n_features == result.n_features

    def test_fixed_dimensions_stay_fixed(self, eng, problem):
        space = problem.space
        dim = space.free[0]
        problem.space = space.with_fixed({dim.name: dim.start})
        res = run_search(problem, eng, steps=self.steps, seed=2, progress=False)
        assert all(r.point[dim.name] == dim.start for r in res.trajectory if r.kind == "point")

    def test_features_recompute_to_the_best_quality(self, result, problem):
        """The returned features are the ones that scored ``best_quality``."""
        fam, batch = result.feature_batch()
        vals = fam.compute(problem.prepared, batch)
        q = problem.evaluator.evaluate(vals, problem.y, random_state=problem.eval_seed)
        assert q == pytest.approx(result.best_quality)

    def test_json_round_trip(self, result):
        again = SearchResult.from_json_text(result.to_json())
        assert again == result

    def test_reproducible(self, eng, problem, result):
        again = run_search(problem, eng, steps=self.steps, seed=5, progress=False)
        assert [r.point for r in again.trajectory] == [r.point for r in result.trajectory]
        assert again.features == result.features

    def test_callbacks_and_stop(self, eng, problem):
        seen = []

        def cb(state, record):
            seen.append(record.step)
            return False  # stop after the first step

        res = run_search(problem, eng, steps=self.steps, seed=1, callbacks=[cb], progress=False)
        assert len(res.trajectory) == 1 and seen == [res.trajectory[0].step]

        calls = []
        run_search(problem, eng, steps=2, seed=1, callbacks=[lambda s, r: calls.append(r.step)], progress=False)
        assert len(calls) == min(2, type(eng).max_steps or 2)

    def test_resume_equals_uninterrupted(self, eng, problem, result, tmp_path):
        """Stopped after one step and run again on the same storage, the search ends as an uninterrupted one."""
        storage = self.storage_for(tmp_path)
        run_search(problem, eng, steps=self.steps, seed=5, progress=False, storage=storage,
                   callbacks=[lambda s, r: False])
        again = run_search(problem, _resolve("engine", self.engine, self.engine_params),
                           steps=self.steps, seed=5, progress=False, storage=storage)
        assert [(r.point, r.quality) for r in again.trajectory] == [(r.point, r.quality) for r in result.trajectory]
        assert again.features == result.features

    def test_n_jobs_gives_the_same_result(self, eng, problem, result):
        """Candidates evaluated by two worker processes give the result of one process."""
        if not self.deterministic_in_n_jobs:
            pytest.skip("this engine's proposals depend on n_jobs (declared deterministic_in_n_jobs = False)")
        again = run_search(problem, eng, steps=self.steps, seed=5, progress=False, n_jobs=2)
        assert [(r.point, r.quality) for r in again.trajectory] == [(r.point, r.quality) for r in result.trajectory]
        assert again.features == result.features

    def storage_for(self, tmp_path) -> str:
        """Where :meth:`test_resume_equals_uninterrupted` keeps the search (a journal file by default)."""
        return str(tmp_path / "search.jsonl")


# --------------------------------------------------------------------------- datasets
class DatasetConformance:
    """The contract of a :class:`metafx.plugin.Dataset`.

    Class attributes: ``dataset`` (name or class) and ``dataset_params``.
    """

    dataset: ClassVar[Any] = None
    dataset_params: ClassVar[Mapping[str, Any]] = {}

    @pytest.fixture
    def ds(self) -> Dataset:
        return _resolve("dataset", self.dataset, self.dataset_params)

    @pytest.fixture
    def loaded(self, ds):
        return ds.load()

    def test_is_a_registered_dataset(self, ds):
        assert isinstance(ds, Dataset)
        if isinstance(self.dataset, str):
            assert get_registry().get("dataset", self.dataset) is type(ds)
        assert type(ds).data_kind in ("binary-image", "table")
        with pytest.raises(ValidationError):
            type(ds).create({**ds.get_params(), "no_such_parameter_xyz": 1})

    def test_declared_params_refuse_invalid_values(self, ds):
        """Generated from ``_parameter_constraints``: each refused value raises, naming the parameter."""
        check_declared_params(type(ds), self.dataset_params)

    def test_load(self, ds, loaded):
        X, y = loaded
        X, y = np.asarray(X), np.asarray(y)
        assert X.shape[0] == y.shape[0] > 0
        if type(ds).data_kind == "binary-image":
            check_binary_images(X)
        else:
            check_table(X)
        check_labels(y, X.shape[0], min_classes=2)

    def test_deterministic(self, ds, loaded):
        X2, y2 = type(ds).create(ds.get_params()).load()
        np.testing.assert_array_equal(np.asarray(X2), np.asarray(loaded[0]))
        np.testing.assert_array_equal(np.asarray(y2), np.asarray(loaded[1]))
