"""A search's steps as the trials of an optuna study, through optuna's public API.

One trial is one step.  The free meta-features are the trial's parameters, its
value is the step's quality, and its user attributes hold the rest of the step
record (``point``, ``cost``, ``n_features``, ``quality``, ``metafx:record``),
readable by optuna's own tools.  The study's user attributes hold the search's
signature (``metafx:signature``), its length (``metafx:steps``) and, for shared
searches, the problem spec (``metafx:spec``).

Steps and trial numbers: a trial made by :meth:`optuna.study.Study.ask` is step
``number + 1 - r``, where ``r`` counts the *retries* numbered below it; a retry
(a trial put in the queue with :meth:`~optuna.study.Study.enqueue_trial`) carries
its step in the user attribute ``metafx:step``.  The step seeds the feature draw
(``step_rng(seed, step, 1)``), so a retried step draws what its first attempt drew.

Several processes may share a study (``metafx worker``): each claims a step with
``Study.ask`` and records itself as the trial's owner (user attribute
``metafx:owner``: host, pid, process start time) and a heartbeat
(``metafx:heartbeat``, every ``heartbeat`` seconds).  ``heartbeat`` and
``stale_after`` are the study's *liveness* settings
(:func:`check_storage_options`: ``storage_options=`` of the search, default 30
and 600 seconds), recorded in the study's user attribute ``metafx:liveness`` by
the process that creates it (and by one that gives options of its own), so a
worker that joins without options uses the same ones.  A trial left RUNNING by a
process that died (at once on the same machine, where ``/proc`` says the owner
is gone; after ``stale_after`` seconds without a heartbeat from another machine)
is told ``FAIL`` and its step is queued again as a retry with the same point
(``metafx:retry_of`` names the failed trial), which the next ``ask`` of any
process takes.  Two processes that claim the last step at the same moment both
create a trial; the one with ``steps`` live trials before it is closed unevaluated
(FAIL, ``metafx:surplus``); a step whose evaluation raised is closed FAIL with
``metafx:error``.  optuna's own heartbeat (``RDBStorage(heartbeat_interval=...)``)
is meant for ``Study.optimize`` and is not used.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import socket
import threading
import time
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, cast

import optuna
from optuna.trial import FrozenTrial, Trial, TrialState

from ..core.exceptions import StorageError, ValidationError
from ..core.validation import check_number
from ..core.values import StepRecord
from .backends import Retry, mask_url, open_storage, retry_seconds_default
from .store import Claim, StepStore

__all__ = [
    "BEAT_KEY",
    "ERROR_KEY",
    "LIVENESS_DEFAULTS",
    "LIVENESS_KEY",
    "OWNER_KEY",
    "RECORD_KEY",
    "RETRY_KEY",
    "SIGNATURE_KEY",
    "SPEC_KEY",
    "STEPS_KEY",
    "STEP_KEY",
    "SURPLUS_KEY",
    "StudyStore",
    "UpdateFinishedTrialError",
    "check_storage_options",
    "distributions",
    "host_id",
    "params_of",
    "point_of",
    "quiet_optuna",
    "signature_digest",
]

SIGNATURE_KEY = "metafx:signature"
STEPS_KEY = "metafx:steps"
SPEC_KEY = "metafx:spec"
RECORD_KEY = "metafx:record"
OWNER_KEY = "metafx:owner"
BEAT_KEY = "metafx:heartbeat"
SURPLUS_KEY = "metafx:surplus"
STEP_KEY = "metafx:step"
RETRY_KEY = "metafx:retry_of"
ERROR_KEY = "metafx:error"
#: the study's liveness settings, ``{"heartbeat": seconds, "stale_after": seconds}``
LIVENESS_KEY = "metafx:liveness"
#: seconds between two heartbeats of a process's running trials, and without one after which the step of another
#: machine's running trial is retried (processes on this machine are checked directly)
LIVENESS_DEFAULTS: Mapping[str, float] = {"heartbeat": 30.0, "stale_after": 600.0}
_NEVER = 1 << 62
#: what optuna raises when a finished trial is written: its own exception from optuna 4.3, a RuntimeError
#: before (both public); telling a trial read as finished is a ValueError
UpdateFinishedTrialError: type[Exception] = getattr(optuna.exceptions, "UpdateFinishedTrialError", RuntimeError)
_LIVE = (TrialState.COMPLETE, TrialState.RUNNING, TrialState.WAITING)


@contextlib.contextmanager
def quiet_optuna() -> Iterator[None]:
    """optuna's INFO lines (a trial finished, a study created) silenced."""
    old = optuna.logging.get_verbosity()
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    try:
        yield
    finally:
        optuna.logging.set_verbosity(old)


# ------------------------------------------------------------------ points and parameters
def distributions(space: Any) -> dict[str, Any]:
    """optuna distributions of the free meta-features of ``space``."""
    out: dict[str, Any] = {}
    for d in space.free:
        if d.kind == "int":
            out[d.name] = optuna.distributions.IntDistribution(int(d.low), int(d.high))
        elif d.kind == "categorical":
            out[d.name] = optuna.distributions.CategoricalDistribution(d.choices)
        else:
            out[d.name] = optuna.distributions.FloatDistribution(float(d.low), float(d.high))
    return out


def point_of(space: Any, params: Mapping[str, Any]) -> dict[str, Any]:
    """The point of a trial's parameters (fixed meta-features added)."""
    out: dict[str, Any] = {}
    for d in space.dimensions:
        if d.name in space.fixed:
            out[d.name] = space.fixed[d.name]
        else:
            v = params[d.name]
            out[d.name] = int(v) if d.kind == "int" else (d.check(v) if d.kind == "categorical" else float(v))
    return out


def params_of(space: Any, point: Mapping[str, Any]) -> dict[str, Any]:
    """A point's free meta-features (a trial's parameters)."""
    return {d.name: point[d.name] for d in space.free}


def trial_attrs(record: StepRecord) -> dict[str, Any]:
    """What a finished trial records besides its value: readable user attributes for optuna's own
    tools (``point``, ``cost``, ``n_features``, ``quality``) and metafx's step record."""
    return {"point": dict(record.point), "cost": float(record.cost), "n_features": int(record.n_features),
            "quality": float(record.quality),
            RECORD_KEY: {"cost": record.cost, "n_features": record.n_features, "seconds": record.seconds,
                         "timings": record.timings}}


def suggest(trial: Trial, name: str, dist: Any) -> Any:
    """``trial``'s parameter ``name`` from ``dist`` through the public ``suggest_*`` methods (the value is
    the sampler's, or the queued one of a trial put in the queue with its parameters)."""
    if isinstance(dist, optuna.distributions.IntDistribution):
        return trial.suggest_int(name, dist.low, dist.high, step=dist.step, log=dist.log)
    if isinstance(dist, optuna.distributions.CategoricalDistribution):
        return trial.suggest_categorical(name, dist.choices)
    return trial.suggest_float(name, dist.low, dist.high, step=dist.step, log=dist.log)


class GivenPoint(optuna.samplers.BaseSampler):
    """The store's sampler: a trial's parameters are the point the loop computes its step at
    (:attr:`point`, set before the ``suggest_*`` calls); it proposes nothing of its own."""

    def __init__(self) -> None:
        self.point: Mapping[str, Any] = {}

    def infer_relative_search_space(self, study: Any, trial: Any) -> dict[str, Any]:
        return {}

    def sample_relative(self, study: Any, trial: Any, search_space: Any) -> dict[str, Any]:
        return {}

    def sample_independent(self, study: Any, trial: Any, param_name: str, param_distribution: Any) -> Any:
        return self.point[param_name]


# ------------------------------------------------------------------ owners
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


def check_storage_options(options: Any, where: str = "storage_options") -> dict[str, float]:
    """``options`` (a mapping of ``heartbeat`` and ``stale_after`` seconds, or None) checked: finite numbers > 0,
    ``heartbeat`` below ``stale_after`` when both are given; the given ones as floats.

    ``where`` names the value in errors (:class:`~metafx.ValidationError`).
    """
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise ValidationError(f"{where}={options!r} must be a dict with keys among 'heartbeat', 'stale_after'")
    unknown = sorted(str(k) for k in options if k not in LIVENESS_DEFAULTS)
    if unknown:
        raise ValidationError(f"{where}: {', '.join(map(repr, unknown))} is not an option; the options are "
                              "'heartbeat' and 'stale_after' (seconds) of a study storage")
    out = {str(k): check_number(f"{where}: {k}", v, low=0, strict=True) for k, v in options.items()}
    if len(out) == 2 and out["heartbeat"] >= out["stale_after"]:
        raise ValidationError(f"{where}: heartbeat={options['heartbeat']!r} must be below "
                              f"stale_after={options['stale_after']!r}: a live worker's trials would be retried "
                              "between two heartbeats")
    return out


def host_id() -> str:
    """This machine: host name and boot id."""
    boot = ""
    with contextlib.suppress(OSError):
        with open("/proc/sys/kernel/random/boot_id") as fh:
            boot = fh.read().strip()[:8]
    return f"{socket.gethostname()}/{boot}"


def signature_digest(signature: Mapping[str, Any]) -> str:
    return hashlib.sha256(json.dumps(signature, sort_keys=True).encode()).hexdigest()[:12]


_HOST = host_id()


def me() -> str:
    """This process as a trial's owner: ``host|pid|start time``."""
    pid = os.getpid()
    return f"{_HOST}|{pid}|{_proc_start(pid) or ''}"


def owner_alive(owner: str) -> bool | None:
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
    """Marks this process's running trials as alive every ``interval`` seconds (a user attribute)."""

    def __init__(self, interval: float) -> None:
        self.interval = interval
        self.trials: dict[int, Trial] = {}
        self.lock = threading.Lock()
        self.stop_event = threading.Event()
        self.thread = threading.Thread(target=self._loop, name="metafx-heartbeat", daemon=True)
        self.thread.start()

    def _loop(self) -> None:
        while not self.stop_event.wait(self.interval):
            with self.lock:
                trials = list(self.trials.values())
            for trial in trials:
                with contextlib.suppress(Exception):  # finished meanwhile, or the database blinked
                    trial.set_user_attr(BEAT_KEY, time.time())

    def add(self, trial: Trial) -> None:
        with self.lock:
            self.trials[trial.number] = trial

    def remove(self, trial: Trial) -> None:
        with self.lock:
            self.trials.pop(trial.number, None)

    def close(self) -> None:
        self.stop_event.set()
        self.thread.join(timeout=5)


# ------------------------------------------------------------------ the store
class StudyStore(StepStore):
    """The steps of a search as the trials of an optuna study (see the module docstring).

    ``storage``: an optuna storage URL, SQLite or optuna journal file, a storage object, or None
    (in memory).  ``create=False``: the study must exist (workers joining a shared search).  ``options``:
    the liveness settings of this process (:func:`check_storage_options`); those not given are the study's
    recorded ones, else the defaults.
    """

    shared = True

    def __init__(self, storage: Any, study_name: str | None, steps: int, space: Any, *,
                 options: Mapping[str, Any] | None = None, create: bool = True,
                 spec: Mapping[str, Any] | None = None) -> None:
        self.storage_arg = storage
        self.study_name = study_name
        self.steps = int(steps)
        self.space = space
        self.options, self.create, self.spec = check_storage_options(options), create, spec
        self.heartbeat, self.stale_after = LIVENESS_DEFAULTS["heartbeat"], LIVENESS_DEFAULTS["stale_after"]
        self.where = mask_url(str(storage)) if storage is not None else "memory"
        self.retry = Retry(self.where, retry_seconds_default())
        self.sampler = GivenPoint()
        self.mine: dict[int, Trial] = {}  # step -> trial of the steps this process claimed and runs
        self.known: set[int] = set()  # numbers of the complete trials the loop has seen
        self._news: list[StepRecord] = []
        self._done: dict[int, FrozenTrial] = {}  # number -> complete trial (read once)
        self._failed: set[int] = set()  # numbers of failed trials
        self._retries: dict[int, int] = {}  # number -> step of the retries seen
        self._top = -1  # the highest trial number this process has seen
        self.beat: _Heartbeat | None = None
        self.study: optuna.Study | None = None
        self.name = study_name

    # -------------------------------------------------------------- opening
    def open(self, signature: Mapping[str, Any]) -> list[StepRecord]:
        """Create or load the study, check it is this search's, start the heartbeat; its finished steps."""
        storage = open_storage(self.storage_arg)
        self.name = self.study_name or f"metafx-{signature_digest(signature)}"
        self.study = study = self._load_or_create(storage)
        if study.directions != [optuna.study.StudyDirection.MAXIMIZE]:
            raise StorageError(f"study {self.name!r} in {self.where!r} minimizes; metafx studies maximize quality")
        self._check_signature(dict(signature))
        self._settle_liveness()
        if int(self.retry(lambda: study.user_attrs).get(STEPS_KEY, 0)) < self.steps:
            self.retry(study.set_user_attr, STEPS_KEY, self.steps)
        if not isinstance(storage, optuna.storages.InMemoryStorage):
            self.beat = _Heartbeat(self.heartbeat)
        self.me = me()
        done = self._complete(self._refresh())
        self.known = {t.number for t in done}
        out, best = [], -math.inf
        for t in done:  # each with the running best, as the first run recorded it
            out.append(self._record(t, best=best))
            best = max(best, out[-1].quality)
        return out

    def _load_or_create(self, storage: Any) -> optuna.Study:
        study: optuna.Study = self._open_study(storage)
        return study

    def _open_study(self, storage: Any) -> Any:
        with quiet_optuna():
            try:
                return cast("optuna.Study", self.retry(optuna.load_study, study_name=self.name, storage=storage, sampler=self.sampler))
            except KeyError:
                if not self.create:
                    raise StorageError(f"there is no study {self.name!r} in storage {self.where!r}") from None
            try:
                return self.retry(optuna.create_study, storage=storage, study_name=self.name, sampler=self.sampler,
                                  direction="maximize")
            except optuna.exceptions.DuplicatedStudyError:  # created meanwhile by another process
                return cast("optuna.Study", self.retry(optuna.load_study, study_name=self.name, storage=storage, sampler=self.sampler))

    def _check_signature(self, sig: dict[str, Any]) -> None:
        study = self._study()
        attrs = self.retry(lambda: study.user_attrs)
        if SIGNATURE_KEY not in attrs:
            if self.retry(study.get_trials, deepcopy=False):
                raise StorageError(f"study {self.name!r} in {self.where!r} was not made by metafx; "
                                   "choose another study name")
            self.retry(study.set_user_attr, SIGNATURE_KEY, sig)
            if self.spec is not None:
                self.retry(study.set_user_attr, SPEC_KEY, dict(self.spec))
            return
        old = attrs[SIGNATURE_KEY]
        if old != sig:
            diff = sorted(k for k in set(old) | set(sig) if old.get(k) != sig.get(k))
            raise StorageError(
                f"study {self.name!r} in {self.where!r} belongs to a different search (differs in: "
                f"{', '.join(diff)}); use another study name or the same arguments")

    def _settle_liveness(self) -> None:
        """This process's heartbeat and stale_after: its own options over the study's recorded ones over the
        defaults; the study records them when it has no record or this process gave options of its own (workers
        that join later use the latest)."""
        study = self._study()
        recorded = self.retry(lambda: study.user_attrs).get(LIVENESS_KEY)
        where = f"study {self.name!r} in {self.where!r}: {LIVENESS_KEY}"
        live = {**LIVENESS_DEFAULTS, **check_storage_options(recorded, where)}
        live.update(self.options)
        check_storage_options(live, "storage_options" if self.options else where)
        if recorded is None or (self.options and live != recorded):
            self.retry(study.set_user_attr, LIVENESS_KEY, live)
        self.heartbeat, self.stale_after = live["heartbeat"], live["stale_after"]

    def _study(self) -> optuna.Study:
        if self.study is None:
            raise StorageError("the study store is not open")
        return self.study

    # -------------------------------------------------------------- reading
    def _trials(self) -> list[FrozenTrial]:
        """The study's complete, running and waiting trials, by number.  A finished trial never changes:
        the running and waiting ones are read each time, the others only when a number below the highest
        seen is none of these nor known (finished by another process meanwhile)."""
        pending = self.retry(self._study().get_trials, deepcopy=False, states=(TrialState.RUNNING, TrialState.WAITING))
        self._note_retries(pending)
        numbers = {t.number for t in pending} | set(self._done) | self._failed
        if len(numbers) != max(numbers, default=-1) + 1 or max(numbers, default=-1) < self._top:
            return self._refresh()
        self._top = max(numbers, default=-1)
        return sorted([*self._done.values(), *pending], key=lambda t: t.number)

    def _refresh(self) -> list[FrozenTrial]:
        """Every trial read again: the complete, running and waiting ones, by number."""
        every = self.retry(self._study().get_trials, deepcopy=False)
        self._note_retries(every)
        self._done = {t.number: t for t in every if t.state == TrialState.COMPLETE}
        self._failed = {t.number for t in every if t.state == TrialState.FAIL}
        self._top = max([self._top, *(t.number for t in every)])
        return sorted((t for t in every if t.state in _LIVE), key=lambda t: t.number)

    def _note_retries(self, trials: Iterable[FrozenTrial]) -> None:
        for t in trials:
            if STEP_KEY in t.user_attrs:
                self._retries[t.number] = int(t.user_attrs[STEP_KEY])

    def step_of(self, t: FrozenTrial | Trial) -> int:
        """The step trial ``t`` computes: a retry's own, else its number + 1 less the retries before it."""
        if t.number in self._retries:
            return self._retries[t.number]
        return t.number + 1 - sum(n < t.number for n in self._retries)

    def _complete(self, trials: Iterable[FrozenTrial]) -> list[FrozenTrial]:
        """The first ``steps`` complete trials, by step (one per step: the first by number)."""
        by_step: dict[int, FrozenTrial] = {}
        for t in trials:
            if t.state == TrialState.COMPLETE:
                by_step.setdefault(self.step_of(t), t)
        return [by_step[s] for s in sorted(by_step)][: self.steps]

    def _record(self, t: FrozenTrial, step: int | None = None, best: float = -math.inf) -> StepRecord:
        r = t.user_attrs.get(RECORD_KEY, {})
        q = float(t.value) if t.value is not None else math.nan
        return StepRecord(step=self.step_of(t) if step is None else step, point=point_of(self.space, t.params),
                          quality=q, cost=float(r.get("cost", 0.0)), n_features=int(r.get("n_features", 0)),
                          seconds=float(r.get("seconds", 0.0)), best_quality=max(best, q), accepted=q > best,
                          timings={k: float(v) for k, v in r.get("timings", {}).items()})

    # -------------------------------------------------------------- claiming
    def claim(self) -> Claim | None:
        """A step to compute: a queued retry (the step and point of a dead process's trial) or a new trial."""
        trials = self._trials()
        self._note_news(trials)
        now = time.time()
        running = [t for t in trials if t.state == TrialState.RUNNING]
        stale = [t for t in running if self.step_of(t) not in self.mine and self._is_stale(t, now)]
        cutoff = _cutoff(trials, self.steps)
        queued = sum(t.state == TrialState.WAITING for t in trials)
        for t in stale:
            queued += self._retire(t, retry=t.number < cutoff)
        live = sum(t.state in _LIVE for t in trials) - len(stale)
        if not queued and live >= self.steps:
            return None
        return self._ask()

    def _retire(self, t: FrozenTrial, retry: bool) -> int:
        """A process died while evaluating trial ``t``: it fails, and (``retry``) its step is queued again
        with the same point.  1 when this process queued the retry, 0 when another process was first."""
        study = self._study()
        try:
            with quiet_optuna():
                self.retry(study.tell, t.number, state=TrialState.FAIL)
        except (ValueError, UpdateFinishedTrialError):  # finished or retired by another process meanwhile
            return 0
        self._failed.add(t.number)
        if not retry:
            return 0
        params = dict(t.params) if set(t.params) >= {d.name for d in self.space.free} else {}
        self.retry(study.enqueue_trial, params, user_attrs={STEP_KEY: self.step_of(t), RETRY_KEY: t.number})
        return 1

    def _ask(self) -> Claim | None:
        """A trial of this process (a queued retry, else a new one); None when it is surplus: another
        process created one at the same moment and ``steps`` live trials come before it."""
        study = self._study()
        with quiet_optuna():
            trial = self.retry(study.ask)
        self.retry(trial.set_user_attr, OWNER_KEY, self.me)
        attrs = trial.user_attrs
        if STEP_KEY in attrs:
            self._retries[trial.number] = int(attrs[STEP_KEY])
        self._top = max(self._top, trial.number)
        trials = self._trials()  # every trial before this one is known now (the retries among them too)
        before = sum(t.number < trial.number and t.state in _LIVE for t in trials)
        if before >= self.steps:  # another process may have asked at the same moment: keep the first `steps`
            self._close(trial, SURPLUS_KEY)
            return None
        step = self.step_of(trial)
        self._own(step, trial)
        if RETRY_KEY in attrs:
            return Claim(step, self._retry_point(int(attrs[RETRY_KEY])))
        return Claim(step)

    def _retry_point(self, number: int) -> dict[str, Any] | None:
        """The point of the failed trial a retry repeats (None when it failed before its parameters)."""
        for t in self.retry(self._study().get_trials, deepcopy=False, states=(TrialState.FAIL,)):
            if t.number == number:
                return point_of(self.space, t.params) if set(t.params) >= {d.name for d in self.space.free} \
                    else None
        return None

    def _own(self, step: int, trial: Trial) -> None:
        self.mine[step] = trial
        if self.beat is not None:
            self.beat.add(trial)

    def _is_stale(self, t: FrozenTrial, now: float) -> bool:
        owner = t.user_attrs.get(OWNER_KEY)
        if owner == self.me:  # ours, but not claimed by this run (interrupted, or created twice by a retried call)
            return True
        if owner:
            alive = owner_alive(owner)
            if alive is not None:
                return not alive
        beat = t.user_attrs.get(BEAT_KEY)
        if beat is None:
            beat = t.datetime_start.timestamp() if t.datetime_start else now
        return now - float(beat) > self.stale_after

    def _note_news(self, trials: list[FrozenTrial]) -> None:
        for t in self._complete(trials):
            if t.number not in self.known and self.step_of(t) not in self.mine:
                self.known.add(t.number)
                self._news.append(self._record(t))

    def news(self) -> list[StepRecord]:
        out, self._news = self._news, []
        return out

    # -------------------------------------------------------------- writing
    def start(self, claim: Claim, point: Mapping[str, Any]) -> None:
        """The trial's parameters: the point (a retry's queued parameters are the same point)."""
        trial = self.mine[claim.step]
        self.sampler.point = point
        for name, dist in distributions(self.space).items():
            self.retry(suggest, trial, name, dist)

    def append(self, record: StepRecord) -> None:
        """The trial's attributes, then its end (COMPLETE with the quality)."""
        trial = self.mine.pop(record.step)
        if self.beat is not None:
            self.beat.remove(trial)
        self.known.add(trial.number)
        if math.isnan(record.quality):  # no value optuna accepts: the step failed
            self._close(trial, ERROR_KEY, "quality is NaN")
            return
        try:
            for k, v in trial_attrs(record).items():
                self.retry(trial.set_user_attr, k, v)
            with quiet_optuna():
                # the trial as the study now holds it (number, state, point, value, record)
                self._done[trial.number] = self.retry(self._study().tell, trial, float(record.quality),
                                                      state=TrialState.COMPLETE)
        except (ValueError, UpdateFinishedTrialError):  # another process finished it
            return

    def _close(self, trial: Trial, key: str, value: Any = True) -> None:
        """Trial ``trial`` fails, marked with user attribute ``key`` (surplus, or the error that ended it)."""
        self._failed.add(trial.number)
        with contextlib.suppress(ValueError, UpdateFinishedTrialError), quiet_optuna():
            self.retry(trial.set_user_attr, key, value)
            self.retry(self._study().tell, trial, state=TrialState.FAIL)

    def done(self) -> bool:
        return len(self._complete(self._refresh())) >= self.steps

    def replayed(self, records: list[StepRecord]) -> None:
        pass

    def close(self, error: BaseException | None) -> None:
        """Steps claimed and not finished: failed (error), or not needed (stopped: marked surplus);
        interrupted or the database gone: left running, retried by the next run."""
        try:
            if self.study is not None and not isinstance(error, (KeyboardInterrupt, StorageError)):
                for trial in self.mine.values():
                    if error is None:
                        self._close(trial, SURPLUS_KEY)
                    else:
                        self._close(trial, ERROR_KEY, type(error).__name__)
            self.mine.clear()
        finally:
            if self.beat is not None:
                self.beat.close()
                self.beat = None

    # -------------------------------------------------------------- the result
    def finished(self, own: list[StepRecord]) -> list[tuple[StepRecord, int]]:
        """The first ``steps`` complete trials as steps at positions 1, 2, ... (all processes'), each with
        the step its features were drawn under."""
        out: list[tuple[StepRecord, int]] = []
        best = -math.inf
        self.best_trial = None
        trials = self._complete(self._refresh())
        for pos, t in enumerate(trials, start=1):
            rec = self._record(t, pos, best)
            if rec.accepted:
                best, self.best_trial = rec.quality, t.number
            out.append((rec, self.step_of(t)))
        self.numbers = [t.number for t in trials]
        return out

    def metadata(self) -> dict[str, Any]:
        trials = self.retry(self.study.get_trials, deepcopy=False) if self.study is not None else []
        n_fail = sum(t.state == TrialState.FAIL and ERROR_KEY in t.user_attrs for t in trials)
        meta = {"study_name": self.name, "storage": self.where,
                "best_trial": getattr(self, "best_trial", None), "failed_trials": n_fail}
        numbers = getattr(self, "numbers", [])
        if numbers != list(range(len(numbers))):  # steps are positions; trials are these numbers
            meta["trial_numbers"] = numbers
        return meta


def _cutoff(trials: list[FrozenTrial], steps: int) -> int:
    """Number of the first trial beyond the first ``steps`` live (complete, running, waiting) ones."""
    n = 0
    for t in trials:
        if t.state in _LIVE:
            n += 1
            if n > steps:
                return t.number
    return _NEVER
