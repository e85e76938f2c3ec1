"""Search engine ``optuna``: the meta-feature point of each step is proposed by
an optuna sampler; the step draws features there under the budget, scores them
with the evaluator and reports the quality (maximized).

How it maps onto optuna
-----------------------
* the engine only proposes, as an optuna sampler does: it keeps an in-memory
  optuna study of the steps it was told, and each ask is a trial of that study
  (``study.ask``/``study.tell``); integer meta-features become
  ``IntDistribution(low, high)``, float ones ``FloatDistribution(low, high)``;
  fixed meta-features are not parameters (they are added to every point);
* step ``j``'s sampler is seeded from ``(seed, j - 1)`` (``qmc``: its
  scrambling uses ``seed`` itself), so a search is a function of its seed even
  when it is resumed or shared by workers;
* samplers: ``tpe`` (default), ``cmaes``, ``gp``, ``random``, ``qmc``;
* its steps are trials (``steps_are_trials = True``): the search loop keeps them
  in an optuna study; ``storage`` is an optuna storage (``sqlite:///search.db``,
  ``postgresql://...``, a journal file ``journal:///path.log`` or ``*.log``),
  in memory when not given (:mod:`metafx.storage.study`; its heartbeat settings
  are the search's ``storage_options``).  Run again with
  the same arguments, a search goes on from its last finished trial; the step
  of a trial left running by a process that died is retried (same step, same
  point, same draw), so nothing is lost or counted twice.

Several processes (``metafx worker``) may share one study; see
``docs/engines.md``.
"""

from __future__ import annotations

import importlib.util
import math
import threading
import warnings
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

import numpy as np
import optuna

from ..core.base import SearchEngine
from ..core.exceptions import ValidationError
from ..core.params import InstanceOf, Options
from ..core.values import StepRecord
from ..hooks.spec import hookimpl
from ..loop.checks import check_call_types
from ..storage.study import distributions, params_of, point_of, quiet_optuna

__all__ = ["SAMPLERS", "OptunaEngine", "trial_seed"]

SAMPLERS = ("tpe", "cmaes", "gp", "random", "qmc")
_REQUIRES = {"cmaes": ("cmaes", "pip install cmaes"), "gp": ("torch", "pip install torch")}


def trial_seed(seed: int, number: int, *keys: int) -> int:
    """The sampler seed of trial ``number`` (a 32-bit integer)."""
    ss = np.random.SeedSequence([int(seed) & 0xFFFFFFFFFFFFFFFF, int(number), 0x6F70, *keys])
    return int(ss.generate_state(1, dtype=np.uint32)[0])


def _name_key(name: str) -> int:
    import zlib

    return zlib.crc32(name.encode())


# ------------------------------------------------------------------ samplers
def _sampler_factory(name: str, seed: int, params: Mapping[str, Any]) -> Callable[[int], Any]:
    params = dict(params)

    def make(s: int):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
            if name == "tpe":
                return optuna.samplers.TPESampler(seed=s, **params)
            if name == "random":
                return optuna.samplers.RandomSampler(seed=s, **params)
            if name == "cmaes":
                return optuna.samplers.CmaEsSampler(seed=s, independent_sampler=optuna.samplers.RandomSampler(seed=s),
                                                    warn_independent_sampling=False, **params)
            if name == "gp":
                return optuna.samplers.GPSampler(seed=s, independent_sampler=optuna.samplers.RandomSampler(seed=s),
                                                 **params)
            if name == "qmc":
                p = {"scramble": True, **params}
                return optuna.samplers.QMCSampler(seed=int(seed) & 0xFFFFFFFF,
                                                  independent_sampler=optuna.samplers.RandomSampler(seed=s),
                                                  warn_independent_sampling=False, **p)
        raise AssertionError(name)

    return make


class _TrialSeededSampler:
    """Delegates to a fresh sampler per trial, seeded from ``(seed, key)``
    (independent draws: from ``(seed, key, parameter)``), where ``key`` is the
    step being asked minus one (``None``: the trial number), so what a step
    gets does not depend on which process asked for it or when."""

    def __init__(self, factory: Callable[[int], Any], seed: int) -> None:
        self._factory = factory
        self._seed = seed
        self._per_trial: dict[int, Any] = {}
        self._lock = threading.Lock()
        self.key: int | None = None

    def _key(self, trial) -> int:
        return trial.number if self.key is None else self.key

    def _for(self, trial):
        with self._lock:
            s = self._per_trial.get(trial.number)
            if s is None:
                if len(self._per_trial) > 4096:
                    self._per_trial.clear()
                s = self._per_trial[trial.number] = self._factory(trial_seed(self._seed, self._key(trial)))
            return s

    def infer_relative_search_space(self, study, trial):
        return self._for(trial).infer_relative_search_space(study, trial)

    def sample_relative(self, study, trial, search_space):
        return self._for(trial).sample_relative(study, trial, search_space)

    def sample_independent(self, study, trial, param_name, param_distribution):
        s = self._factory(trial_seed(self._seed, self._key(trial), _name_key(param_name)))
        s.before_trial(study, trial)
        return s.sample_independent(study, trial, param_name, param_distribution)

    def before_trial(self, study, trial) -> None:
        self._for(trial).before_trial(study, trial)

    def after_trial(self, study, trial, state, values) -> None:
        self._for(trial).after_trial(study, trial, state, values)
        with self._lock:
            self._per_trial.pop(trial.number, None)

    def reseed_rng(self) -> None:  # seeds are per trial already
        pass


class TrialSeededSampler(_TrialSeededSampler, optuna.samplers.BaseSampler):
    """An optuna sampler: :class:`_TrialSeededSampler` under optuna's base class."""


def _wrap_sampler(factory: Callable[[int], Any], seed: int) -> TrialSeededSampler:
    return TrialSeededSampler(factory, seed)


# ------------------------------------------------------------------ engine
class OptunaEngine(SearchEngine):
    """Meta-feature search driven by an optuna sampler (see the module docstring).

    Parameters
    ----------
    sampler : {"tpe", "cmaes", "gp", "random", "qmc"}, default "tpe"
        ``cmaes`` needs the ``cmaes`` package, ``gp`` needs ``torch``.
    sampler_params : dict, optional
        Extra keyword arguments of the optuna sampler (e.g.
        ``{"n_startup_trials": 5}`` for ``tpe``; ``{"constant_liar": True}``
        helps ``tpe`` when many trials run at once).

    Notes
    -----
    With ``n_jobs > 1`` the loop asks ``n_jobs`` trials at once, so a
    model-based sampler proposes them without each other's results (the
    result is still a function of the seed and ``n_jobs``).  Several workers
    on one study run trials at the same time: the search then depends on
    timing, except with ``sampler="random"``, whose points depend only on the
    seed and the trial number.  Ties between trials are resolved as optuna's
    ``study.best_trial`` does: the first trial with the best value wins.

    Examples
    --------
    >>> import metafx
    >>> X, y = metafx.load_dataset("digits")
    >>> r = metafx.search(X[:300], y[:300], budget=40, steps=3, engine="optuna",
    ...                   engine_params={"sampler": "random"}, seed=0, progress=False)
    >>> [t.step for t in r.trajectory]
    [1, 2, 3]
    """

    name = "optuna"
    summary = "meta-feature points proposed by an optuna sampler (tpe, cmaes, gp, random, qmc)"
    steps_are_trials = True
    independent_steps = True
    accept_ties = False  # as optuna's best_trial: the first of equal values

    def __init__(self, sampler: str = "tpe", sampler_params: Mapping[str, Any] | None = None) -> None:
        self.sampler = sampler
        self.sampler_params = sampler_params

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "sampler": [Options(SAMPLERS)],
        "sampler_params": [InstanceOf(Mapping, "a dict of sampler arguments"), None],
    }

    def check_params(self) -> None:
        super().check_params()
        if self.sampler in _REQUIRES and importlib.util.find_spec(_REQUIRES[self.sampler][0]) is None:
            mod, cmd = _REQUIRES[self.sampler]
            raise ValidationError(f"sampler={self.sampler!r} needs the {mod!r} package, which is not installed: {cmd}")
        try:
            made = _sampler_factory(self.sampler, 0, self._sampler_params())(0)
            check_call_types(type(made).__init__, self._sampler_params(), "sampler_params")  # stored, used later
        except (TypeError, ValueError) as e:
            raise ValidationError(f"sampler_params={self.sampler_params!r} are not valid for sampler "
                                  f"{self.sampler!r}: {e}") from None

    def _sampler_params(self) -> dict[str, Any]:
        return dict(self.sampler_params or {})

    # -------------------------------------------------------------- the loop's calls
    def setup(self, problem: Any, seed: int) -> None:
        super().setup(problem, seed)
        self.space_ = problem.space
        self.dists_ = distributions(problem.space)
        self.sampler_ = _wrap_sampler(_sampler_factory(self.sampler, seed, self._sampler_params()), seed)
        with quiet_optuna():
            self.study_ = optuna.create_study(direction="maximize", sampler=self.sampler_)
        self.asked_: dict[int, Any] = {}

    def ask(self, step: int) -> dict[str, Any]:
        """Step ``step``'s point: the ``step``-th warm-start point, else the sampler's proposal for a new
        trial of the engine's study (seeded from ``(seed, step - 1)``)."""
        if step <= len(self.warm_start_):  # as optuna's enqueue_trial: the given points come first
            return dict(self.warm_start_[step - 1])
        self.sampler_.key = step - 1
        try:
            with quiet_optuna():
                trial = self.study_.ask(self.dists_)
        finally:
            self.sampler_.key = None
        self.asked_[step] = trial
        return point_of(self.space_, trial.params)

    def tell(self, record: StepRecord) -> None:
        """The step's quality goes to its trial; a step the engine did not propose (replayed from a shared
        study, or run at another point) is added to the study as it was."""
        trial = self.asked_.pop(record.step, None)
        q = float(record.quality)
        with quiet_optuna():
            if trial is not None and point_of(self.space_, trial.params) == dict(record.point):
                self.study_.tell(trial, None if math.isnan(q) else q,
                                 state=optuna.trial.TrialState.FAIL if math.isnan(q) else None)
                return
            if trial is not None:
                self.study_.tell(trial, state=optuna.trial.TrialState.FAIL)
            if not math.isnan(q):
                self.study_.add_trial(optuna.trial.create_trial(
                    params=params_of(self.space_, record.point), distributions=self.dists_, value=q))

    def close(self, error: BaseException | None) -> None:
        asked = getattr(self, "asked_", {})
        with quiet_optuna():
            for trial in asked.values():
                self.study_.tell(trial, state=optuna.trial.TrialState.FAIL)
        asked.clear()

    def metadata(self) -> dict[str, Any]:
        return {"sampler": self.sampler}


@hookimpl
def metafx_register_search_engines(register):
    register(OptunaEngine)
