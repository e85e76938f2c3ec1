"""Search engine ``optuna``: the meta-feature point of each step is proposed by
an optuna sampler; the step draws features there under the budget, scores them
with the evaluator and reports the quality (maximized).

How it maps onto optuna
-----------------------
* one optuna trial = one step; integer meta-features become
  ``IntDistribution(low, high)``, float ones ``FloatDistribution(low, high)``;
  fixed meta-features are not parameters (they are added to every point);
* trial number ``t`` is step ``t + 1``; its features are drawn with
  ``step_rng(seed, t + 1, 1)``, so the best set is re-drawn from ``seed`` and
  the trial number alone (nothing but the point is stored);
* samplers: ``tpe`` (default), ``cmaes``, ``gp``, ``random``, ``qmc``.  Each
  trial's sampler is seeded from ``(seed, trial number)`` (``qmc``: its
  scrambling uses ``seed`` itself), so a search is a function of its seed even
  when it is resumed or shared by workers;
* ``storage`` is an optuna storage (``sqlite:///search.db``,
  ``postgresql://...``, a journal file ``journal:///path.log`` or ``*.log``);
  the study (default name: ``metafx-<digest of the problem>``) records every
  finished step, and its user attributes record what determines the search.
  Run again with the same arguments, a search goes on from its last finished
  trial.  A trial left running by a process that died is taken over (same
  trial number, same point, same draw), so nothing is lost or counted twice.

Several processes (``metafx worker``) may share one study; see
``docs/engines.md``.
"""

from __future__ import annotations

import contextlib
import importlib.util
import math
import os
import socket
import threading
import time
import warnings
from datetime import datetime
from typing import Any, Callable, Mapping

import numpy as np
import optuna
from optuna.trial import FrozenTrial, TrialState

from ..core.base import Candidate, SearchEngine
from ..core.exceptions import StorageError, ValidationError
from ..core.validation import check_choice, check_number
from ..core.values import StepRecord
from ..hooks.spec import hookimpl
from ..loop.checks import check_call_types
from ..loop.problem import SearchProblem, problem_signature, signature_digest
from ..loop.storage import RetryingStorage, mask_url, open_storage, write_trial

__all__ = ["OptunaEngine", "SAMPLERS", "trial_seed"]

SAMPLERS = ("tpe", "cmaes", "gp", "random", "qmc")
# updating a trial another process finished: its own exception since optuna 4.x, a RuntimeError before
_UPDATE_FINISHED = getattr(optuna.exceptions, "UpdateFinishedTrialError", RuntimeError)
_REQUIRES = {"cmaes": ("cmaes", "pip install cmaes"), "gp": ("torch", "pip install torch")}
_DRAW = 1

SIGNATURE_KEY = "metafx:signature"
STEPS_KEY = "metafx:steps"
SPEC_KEY = "metafx:spec"
RECORD_KEY = "metafx:record"
OWNER_KEY = "metafx:owner"
BEAT_KEY = "metafx:heartbeat"
SURPLUS_KEY = "metafx:surplus"


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


class _AskTimeStudy:
    """The study as a sampler sees it while one trial is asked: every read of
    its trials returns those read for the ask (the engine reads them just
    before creating the trial, see ``OptunaEngine._next_trial``), so TPE's
    constant liar does not read the database a second time."""

    def __init__(self, study) -> None:
        self._study = study

    def __getattr__(self, name: str):
        return getattr(self._study, name)

    def _get_trials(self, deepcopy: bool = True, states=None, use_cache: bool = False):
        return self._study._get_trials(deepcopy, states, use_cache=True)

    def get_trials(self, deepcopy: bool = True, states=None):
        return self._get_trials(deepcopy, states)


def _ask_time(study):
    """``study`` seen through :class:`_AskTimeStudy` when the ask's trials are cached (database storages)."""
    tl = getattr(study, "_thread_local", None)
    return _AskTimeStudy(study) if getattr(tl, "cached_all_trials", None) is not None else study


class _TrialSeededSampler:
    """Delegates to a fresh sampler per trial, seeded from ``(seed, trial number)``
    (independent draws: from ``(seed, trial number, parameter)``), so what a
    trial gets does not depend on which process asked for it or when."""

    def __init__(self, factory: Callable[[int], Any], seed: int) -> None:
        self._factory = factory
        self._seed = seed
        self._per_trial: dict[int, Any] = {}
        self._lock = threading.Lock()

    def _for(self, number: int):
        with self._lock:
            s = self._per_trial.get(number)
            if s is None:
                if len(self._per_trial) > 4096:
                    self._per_trial.clear()
                s = self._per_trial[number] = self._factory(trial_seed(self._seed, number))
            return s

    def infer_relative_search_space(self, study, trial):
        return self._for(trial.number).infer_relative_search_space(_ask_time(study), trial)

    def sample_relative(self, study, trial, search_space):
        return self._for(trial.number).sample_relative(_ask_time(study), trial, search_space)

    def sample_independent(self, study, trial, param_name, param_distribution):
        s = self._factory(trial_seed(self._seed, trial.number, _name_key(param_name)))
        study = _ask_time(study)
        s.before_trial(study, trial)
        return s.sample_independent(study, trial, param_name, param_distribution)

    def before_trial(self, study, trial) -> None:
        self._for(trial.number).before_trial(study, trial)

    def after_trial(self, study, trial, state, values) -> None:
        self._for(trial.number).after_trial(study, trial, state, values)
        with self._lock:
            self._per_trial.pop(trial.number, None)

    def reseed_rng(self) -> None:  # seeds are per trial already
        pass


class TrialSeededSampler(_TrialSeededSampler, optuna.samplers.BaseSampler):
    """An optuna sampler: :class:`_TrialSeededSampler` under optuna's base class."""


def _wrap_sampler(factory: Callable[[int], Any], seed: int) -> TrialSeededSampler:
    return TrialSeededSampler(factory, seed)


# ------------------------------------------------------------------ owners
def _host_id() -> str:
    boot = ""
    with contextlib.suppress(OSError):
        with open("/proc/sys/kernel/random/boot_id") as fh:
            boot = fh.read().strip()[:8]
    return f"{socket.gethostname()}/{boot}"


def _proc_start(pid: int) -> str | None:
    """Start time of process ``pid`` (clock ticks since boot), ``"Z"`` for a zombie, None if unknown."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            text = fh.read()
    except FileNotFoundError:
        return "gone"
    except OSError:
        return None
    fields = text[text.rindex(")") + 2:].split()
    if fields[0] in ("Z", "X"):
        return "Z"
    return fields[19]


_HOST = _host_id()


def _me() -> str:
    pid = os.getpid()
    return f"{_HOST}|{pid}|{_proc_start(pid) or ''}"


def _owner_alive(owner: str) -> bool | None:
    """Whether the process named by ``owner`` runs (None: on another host, unknown)."""
    try:
        host, pid_s, start = owner.split("|")
        pid = int(pid_s)
    except ValueError:
        return None
    if host != _HOST:
        return None
    now = _proc_start(pid)
    if now == "gone" or now == "Z":
        return False
    if now is None:  # no /proc: ask the kernel
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True
    return not start or now == start


class _Heartbeat:
    """Marks this process's running trials as alive every ``interval`` seconds."""

    def __init__(self, storage, interval: float) -> None:
        self.storage = storage
        self.interval = interval
        self.trials: set[int] = set()
        self.lock = threading.Lock()
        self.stop_event = threading.Event()
        self.thread = threading.Thread(target=self._loop, name="metafx-heartbeat", daemon=True)
        self.thread.start()

    def _loop(self) -> None:
        while not self.stop_event.wait(self.interval):
            with self.lock:
                ids = list(self.trials)
            for tid in ids:
                with contextlib.suppress(Exception):  # finished meanwhile, or the database blinked
                    self.storage.set_trial_system_attr(tid, BEAT_KEY, time.time())

    def add(self, tid: int) -> None:
        with self.lock:
            self.trials.add(tid)

    def remove(self, tid: int) -> None:
        with self.lock:
            self.trials.discard(tid)

    def close(self) -> None:
        self.stop_event.set()
        self.thread.join(timeout=5)


@contextlib.contextmanager
def _quiet_optuna():
    old = optuna.logging.get_verbosity()
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    try:
        yield
    finally:
        optuna.logging.set_verbosity(old)


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
    stale_after : float, default 600
        Seconds without a heartbeat after which a running trial of a process
        on *another* machine is taken over (processes on this machine are
        checked directly).
    heartbeat : float, default 30
        Seconds between heartbeats of this process's running trials; must be
        below ``stale_after``.

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
    own_storage = True
    independent_steps = True
    accept_ties = False  # as optuna's best_trial: the first of equal values
    _runtime_params = ("stale_after", "heartbeat")

    def __init__(self, sampler: str = "tpe", sampler_params: Mapping[str, Any] | None = None,
                 stale_after: float = 600.0, heartbeat: float = 30.0) -> None:
        self.sampler = sampler
        self.sampler_params = sampler_params
        self.stale_after = stale_after
        self.heartbeat = heartbeat

    def check_params(self) -> None:
        check_choice("sampler", self.sampler, SAMPLERS)
        if self.sampler in _REQUIRES and importlib.util.find_spec(_REQUIRES[self.sampler][0]) is None:
            mod, cmd = _REQUIRES[self.sampler]
            raise ValidationError(f"sampler={self.sampler!r} needs the {mod!r} package, which is not installed: {cmd}")
        if self.sampler_params is not None and not isinstance(self.sampler_params, Mapping):
            raise ValidationError(f"sampler_params={self.sampler_params!r} must be a dict of sampler arguments")
        check_number("stale_after", self.stale_after, low=0, strict=True)
        check_number("heartbeat", self.heartbeat, low=0, strict=True)
        if self.heartbeat >= self.stale_after:
            raise ValidationError(f"heartbeat={self.heartbeat!r} must be below stale_after={self.stale_after!r}: "
                                  "a live worker's trials would be taken over between two heartbeats")
        try:
            made = _sampler_factory(self.sampler, 0, self._sampler_params())(0)
            check_call_types(type(made).__init__, self._sampler_params(), "sampler_params")  # stored, used later
        except (TypeError, ValueError) as e:
            raise ValidationError(f"sampler_params={self.sampler_params!r} are not valid for sampler "
                                  f"{self.sampler!r}: {e}") from None

    def _sampler_params(self) -> dict[str, Any]:
        return dict(self.sampler_params or {})

    # -------------------------------------------------------------- study
    def signature(self, problem: SearchProblem, seed: int) -> dict[str, Any]:
        return problem_signature(self, problem, seed, exclude_params=self._runtime_params)

    def distributions(self, problem: SearchProblem) -> dict[str, Any]:
        out = {}
        for d in problem.space.free:
            if d.kind == "int":
                out[d.name] = optuna.distributions.IntDistribution(int(d.low), int(d.high))
            elif d.kind == "categorical":
                out[d.name] = optuna.distributions.CategoricalDistribution(d.choices)
            else:
                out[d.name] = optuna.distributions.FloatDistribution(float(d.low), float(d.high))
        return out

    def open_study(self, problem: SearchProblem, seed: int, storage: Any = None, study_name: str | None = None,
                   *, steps: int | None = None, spec: Mapping[str, Any] | None = None, create: bool = True):
        """Create or load the study of this search (checking it is the same search)."""
        sig = self.signature(problem, seed)
        st = open_storage(storage)
        where = mask_url(str(storage)) if storage is not None else "memory"
        name = study_name or f"metafx-{signature_digest(sig)}"
        sampler = _wrap_sampler(_sampler_factory(self.sampler, seed, self._sampler_params()), seed)
        with _quiet_optuna():
            try:
                study = optuna.load_study(study_name=name, storage=st, sampler=sampler)
            except KeyError:
                if not create:
                    raise StorageError(f"there is no study {name!r} in storage {where!r}") from None
                study = optuna.create_study(study_name=name, storage=st, sampler=sampler, direction="maximize",
                                            load_if_exists=True)
        attrs = study.user_attrs
        if SIGNATURE_KEY not in attrs:
            if study.get_trials(deepcopy=False):
                raise StorageError(f"study {name!r} in {where!r} was not made by metafx; choose another study name")
            study.set_user_attr(SIGNATURE_KEY, sig)
            if spec is not None:
                study.set_user_attr(SPEC_KEY, dict(spec))
            attrs = study.user_attrs
        if attrs[SIGNATURE_KEY] != sig:
            old = attrs[SIGNATURE_KEY]
            diff = sorted(k for k in set(old) | set(sig) if old.get(k) != sig.get(k))
            raise StorageError(
                f"study {name!r} in {where!r} belongs to a different search (differs in: {', '.join(diff)}); "
                "use another study name or the same arguments")
        if study.direction != optuna.study.StudyDirection.MAXIMIZE:
            raise StorageError(f"study {name!r} in {where!r} minimizes; metafx studies maximize quality")
        if steps is not None and int(attrs.get(STEPS_KEY, 0)) < steps:
            study.set_user_attr(STEPS_KEY, int(steps))
        self._where = where
        return study

    # -------------------------------------------------------------- the loop's calls
    def open(self, storage: Any, study_name: str | None, steps: int) -> list[tuple[StepRecord, Candidate]]:
        """Open the study (created unless ``create_study_ = False``), start the heartbeat, return its steps."""
        create = getattr(self, "create_study_", True)
        self.study_ = self.open_study(self.problem_, self.seed_, storage, study_name, steps=steps, create=create)
        self.steps_ = int(steps)
        self.dists_ = self.distributions(self.problem_)
        self.me_ = _me()
        self.mine_: set[int] = set()
        self.trials_: dict[int, Any] = {}
        in_memory = isinstance(self.study_._storage, optuna.storages.InMemoryStorage)
        self.beat_ = None if in_memory else _Heartbeat(self.study_._storage, float(self.heartbeat))
        return self.collect()

    def ask(self, step: int) -> Candidate | None:
        with _quiet_optuna():
            trial = self._next_trial(self.study_, self.steps_, self.dists_, self.me_, self.mine_)
        if trial is None:
            return None
        self.mine_.add(trial._trial_id)
        if self.beat_ is not None:
            self.beat_.add(trial._trial_id)
        self.trials_[trial.number + 1] = trial
        return Candidate(self._point(self.problem_, trial.params), keys=(self.seed_, trial.number + 1, _DRAW),
                         tag=trial.number)

    def step_number(self, step: int, candidate: Candidate) -> int:
        return int(candidate.tag) + 1  # trial number + 1: the same in every worker sharing the study

    def tell(self, record: StepRecord) -> None:
        trial = self.trials_.pop(record.step, None)
        if trial is None:
            return
        self._finish(self.study_, trial, record)
        if self.beat_ is not None:
            self.beat_.remove(trial._trial_id)

    @staticmethod
    def trial_attrs(record: StepRecord) -> dict[str, Any]:
        """What a finished trial records besides its value: readable user attributes for
        optuna's own tools (``point``, ``cost``, ``n_features``, ``quality``; shown by
        optuna-dashboard and ``trials_dataframe``) and metafx's step record."""
        return {"point": dict(record.point), "cost": float(record.cost), "n_features": int(record.n_features),
                "quality": float(record.quality),
                RECORD_KEY: {"cost": record.cost, "n_features": record.n_features, "seconds": record.seconds,
                             "timings": record.timings}}

    def _finish(self, study, trial, record: StepRecord) -> None:
        """As ``study.tell(trial, quality)``, with the attributes written in the same transaction."""
        q = float(record.quality)
        state = TrialState.FAIL if math.isnan(q) else TrialState.COMPLETE
        values = None if state == TrialState.FAIL else [q]
        with contextlib.suppress(_UPDATE_FINISHED):  # another process finished it
            frozen = getattr(trial, "_cached_frozen_trial", None) or study._storage.get_trial(trial._trial_id)
            study.sampler.after_trial(study, frozen, state, values)
            write_trial(study._storage, trial._trial_id, user_attrs=self.trial_attrs(record), state=state,
                        values=values)

    def close(self, error: BaseException | None) -> None:
        if not hasattr(self, "study_"):
            return
        try:
            # interrupted, or the database went away: left running, taken over on restart
            if not isinstance(error, (KeyboardInterrupt, StorageError)):
                for trial in self.trials_.values():  # asked but not finished: failed, or not needed (stopped)
                    if error is None:
                        self.study_._storage.set_trial_system_attr(trial._trial_id, SURPLUS_KEY, True)
                    with _quiet_optuna():
                        self.study_.tell(trial, state=TrialState.FAIL, skip_if_finished=True)
            self.trials_.clear()
        finally:
            if self.beat_ is not None:
                self.beat_.close()
                self.beat_ = None

    def finished(self) -> bool:
        trials = self.study_.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
        return len(trials) >= self.steps_

    def collect(self) -> list[tuple[StepRecord, Candidate]]:
        """The first ``steps`` complete trials as steps (positions 1, 2, ...), best first on ties."""
        trials = sorted(self.study_.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)),
                        key=lambda t: t.number)[: self.steps_]
        out: list[tuple[StepRecord, Candidate]] = []
        best_q = -math.inf
        self.best_trial_ = None
        for pos, t in enumerate(trials, start=1):
            r = t.user_attrs.get(RECORD_KEY, {})
            q = float(t.value)
            accepted = q > best_q
            if accepted:
                best_q, self.best_trial_ = q, t.number
            rec = StepRecord(
                step=pos, point=self._point(self.problem_, t.params), quality=q, cost=float(r.get("cost", 0.0)),
                n_features=int(r.get("n_features", 0)), seconds=float(r.get("seconds", 0.0)), best_quality=best_q,
                accepted=accepted, timings={k: float(v) for k, v in r.get("timings", {}).items()})
            out.append((rec, Candidate(rec.point, keys=(self.seed_, t.number + 1, _DRAW), tag=t.number)))
        self.trial_numbers_ = [t.number for t in trials]
        return out

    def metadata(self) -> dict[str, Any]:
        if not hasattr(self, "study_"):
            return {"sampler": self.sampler}
        n_fail = sum(not t.system_attrs.get(SURPLUS_KEY)
                     for t in self.study_.get_trials(deepcopy=False, states=(TrialState.FAIL,)))
        meta = {"study_name": self.study_.study_name, "sampler": self.sampler,
                "storage": getattr(self, "_where", "memory"),
                "best_trial": getattr(self, "best_trial_", None), "failed_trials": n_fail}
        numbers = getattr(self, "trial_numbers_", [])
        if numbers != list(range(len(numbers))):  # steps are positions; trials are these numbers
            meta["trial_numbers"] = numbers
        return meta

    # -------------------------------------------------------------- trials
    def _point(self, problem: SearchProblem, params: Mapping[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for d in problem.space.dimensions:
            if d.name in problem.space.fixed:
                out[d.name] = problem.space.fixed[d.name]
            else:
                v = params[d.name]
                out[d.name] = int(v) if d.kind == "int" else (d.check(v) if d.kind == "categorical" else float(v))
        return out

    def _is_stale(self, t, now: float) -> bool:
        owner = t.system_attrs.get(OWNER_KEY)
        if owner == getattr(self, "me_", None):  # ours, but not asked by us: created twice by a retried call
            return True
        if owner:
            alive = _owner_alive(owner)
            if alive is not None:
                return not alive
        beat = t.system_attrs.get(BEAT_KEY)
        if beat is None:
            beat = t.datetime_start.timestamp() if t.datetime_start else now
        return now - float(beat) > self.stale_after

    def _new_trial(self, study, dists: Mapping[str, Any], me: str, trials: list | None = None):
        """Like ``study.ask(dists)``, with the owner recorded atomically with the trial
        (no heartbeat yet: the trial's start time counts as its first)."""
        template = FrozenTrial(number=-1, state=TrialState.RUNNING, value=None, datetime_start=datetime.now(),
                               datetime_complete=None, params={}, distributions={}, user_attrs={},
                               system_attrs={OWNER_KEY: me}, intermediate_values={}, trial_id=-1)
        st = study._storage
        if isinstance(st, RetryingStorage):
            frozen = st.create_trial(study._study_id, template)
            self._fix_warm_params(st, frozen._trial_id, frozen.number, dists)
            # the samplers see the trials just read and this one (as if read now; saves a round trip)
            cache = None if trials is None else sorted([*trials, frozen], key=lambda t: t.number)
            return self._open_trial(study, frozen._trial_id, dists, cache)
        tid = st.create_new_trial(study._study_id, template_trial=template)
        self._fix_warm_params(st, tid, st.get_trial_number_from_id(tid), dists)
        return self._open_trial(study, tid, dists)

    def _fix_warm_params(self, st, tid: int, number: int, dists: Mapping[str, Any]) -> None:
        """Trials ``0..K-1`` of a warm-started search take the ``K`` given points (as optuna's
        ``enqueue_trial`` does, through the ``fixed_params`` the trial's suggestions return)."""
        warm = getattr(self, "warm_start_", [])
        if number < len(warm):
            st.set_trial_system_attr(tid, "fixed_params", {name: warm[number][name] for name in dists})

    def _open_trial(self, study, tid: int, dists: Mapping[str, Any], cache: list | None = None):
        tl = getattr(study, "_thread_local", None)
        if tl is not None and hasattr(tl, "cached_all_trials"):
            tl.cached_all_trials = cache  # None: as Study.ask, the samplers read fresh trials
        st = study._storage
        # the suggested parameters are written together, in one transaction
        with st.deferred_params() if isinstance(st, RetryingStorage) else contextlib.nullcontext():
            trial = optuna.Trial(study, tid)
            for name, dist in dists.items():  # a taken-over trial gets its stored values back
                if isinstance(dist, optuna.distributions.IntDistribution):
                    trial.suggest_int(name, dist.low, dist.high)
                elif isinstance(dist, optuna.distributions.CategoricalDistribution):
                    trial.suggest_categorical(name, dist.choices)
                else:
                    trial.suggest_float(name, dist.low, dist.high)
        return trial

    def _next_trial(self, study, steps: int, dists: Mapping[str, Any], me: str, mine: set[int]):
        """A trial to evaluate (taken over or new), or None when the study needs no more from us."""
        now = time.time()
        trials = study.get_trials(deepcopy=False)
        complete = sum(t.state == TrialState.COMPLETE for t in trials)
        running = [t for t in trials if t.state == TrialState.RUNNING]
        stale = [t for t in running if t._trial_id not in mine and self._is_stale(t, now)]
        live = len(running) - len(stale)
        cutoff = self._cutoff(trials, steps)
        for t in sorted(stale, key=lambda t: t.number):
            if t.number >= cutoff:  # beyond the search's trials: close it
                study._storage.set_trial_system_attr(t._trial_id, SURPLUS_KEY, True)
                study.tell(t.number, state=TrialState.FAIL, skip_if_finished=True)
                continue
            # a process died while evaluating this trial: take it over (same number, point and draw)
            study._storage.set_trial_system_attr(t._trial_id, OWNER_KEY, me)
            study._storage.set_trial_system_attr(t._trial_id, BEAT_KEY, time.time())
            return self._open_trial(study, t._trial_id, dists)
        if complete + live >= steps:
            return None
        trial = self._new_trial(study, dists, me, trials)
        if trial.number < steps:  # fewer than `steps` trials before it: it is needed
            return trial
        # another process may have asked at the same moment: keep only the first `steps` live trials
        trials = study.get_trials(deepcopy=False)
        before = sum(t.number < trial.number and t.state in (TrialState.COMPLETE, TrialState.RUNNING)
                     for t in trials)
        if before >= steps:
            study._storage.set_trial_system_attr(trial._trial_id, SURPLUS_KEY, True)
            study.tell(trial, state=TrialState.FAIL)
            return None
        return trial

    @staticmethod
    def _cutoff(trials, steps: int) -> int:
        """Number of the first trial beyond the first ``steps`` complete-or-running ones."""
        n = 0
        for t in sorted(trials, key=lambda t: t.number):
            if t.state in (TrialState.COMPLETE, TrialState.RUNNING):
                n += 1
                if n > steps:
                    return t.number
        return 1 << 62


@hookimpl
def metafx_register_search_engines(register):
    register(OptunaEngine)
