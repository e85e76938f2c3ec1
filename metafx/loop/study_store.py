"""A search's steps as the trials of an optuna study (through optuna's public storage API).

One trial is one step: trial number ``t`` is step ``t + 1`` (its features are
drawn with ``step_rng(seed, t + 1, 1)``); the free meta-features are the
trial's parameters, its value is the step's quality, and its user attributes
hold the rest of the step record (``point``, ``cost``, ``n_features``,
``quality``, ``metafx:record``), readable by optuna's own tools.  The study's
user attributes hold the search's signature (``metafx:signature``), its length
(``metafx:steps``) and, for shared searches, the problem spec
(``metafx:spec``).

Several processes may share a study (``metafx worker``): each claims a step by
creating a RUNNING trial whose system attribute ``metafx:owner`` names it
(host, pid, process start time).  A trial left RUNNING by a process that died
is claimed again under its number and point: at once on the same machine
(``/proc`` says the owner is gone), after ``stale_after`` seconds without a
heartbeat (``metafx:heartbeat``, written every ``heartbeat`` seconds) from
another machine.  Two processes that claim the last step at the same moment
both create a trial; the one numbered ``steps`` or later is closed unevaluated
(FAIL, ``metafx:surplus``).  optuna's own heartbeat (``heartbeat_interval`` of
``RDBStorage``) is not used: it fails a stale trial and retries it under a new
number, which would change the trial numbers the draws are seeded with.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import socket
import threading
import time
from typing import Any, Iterable, Mapping

from ..core.exceptions import StorageError
from ..core.values import StepRecord
from .problem import signature_digest
from .storage import Retry, mask_url, open_storage, retry_seconds_default
from .store import Claim, StepStore

__all__ = ["StudyStore", "distributions", "params_of", "point_of", "quiet_optuna", "SIGNATURE_KEY", "STEPS_KEY",
           "SPEC_KEY", "RECORD_KEY", "OWNER_KEY", "BEAT_KEY", "SURPLUS_KEY"]

SIGNATURE_KEY = "metafx:signature"
STEPS_KEY = "metafx:steps"
SPEC_KEY = "metafx:spec"
RECORD_KEY = "metafx:record"
OWNER_KEY = "metafx:owner"
BEAT_KEY = "metafx:heartbeat"
SURPLUS_KEY = "metafx:surplus"
_NEVER = 1 << 62


@contextlib.contextmanager
def quiet_optuna():
    """optuna's INFO lines (a trial finished, a study created) silenced."""
    import optuna

    old = optuna.logging.get_verbosity()
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    try:
        yield
    finally:
        optuna.logging.set_verbosity(old)


def _update_finished() -> type[Exception]:
    """What optuna raises when a finished trial is written: its own exception since optuna 4.x, a
    RuntimeError before (both public)."""
    import optuna

    return getattr(optuna.exceptions, "UpdateFinishedTrialError", RuntimeError)


# ------------------------------------------------------------------ points and parameters
def distributions(space: Any) -> dict[str, Any]:
    """optuna distributions of the free meta-features of ``space``."""
    import optuna

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
    """Marks this process's running trials as alive every ``interval`` seconds."""

    def __init__(self, storage: Any, interval: float) -> None:
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


# ------------------------------------------------------------------ the store
class StudyStore(StepStore):
    """The steps of a search as the trials of an optuna study (see the module docstring).

    ``storage``: an optuna storage URL, SQLite or optuna journal file, a storage object, or None
    (in memory).  ``create=False``: the study must exist (workers joining a shared search).
    """

    shared = True

    def __init__(self, storage: Any, study_name: str | None, steps: int, space: Any, *,
                 stale_after: float = 600.0, heartbeat: float = 30.0, create: bool = True,
                 spec: Mapping[str, Any] | None = None) -> None:
        self.storage_arg = storage
        self.study_name = study_name
        self.steps = int(steps)
        self.space = space
        self.stale_after, self.heartbeat, self.create, self.spec = float(stale_after), float(heartbeat), create, spec
        self.where = mask_url(str(storage)) if storage is not None else "memory"
        self.retry = Retry(self.where, retry_seconds_default())
        self.mine: dict[int, int] = {}  # step -> trial id of the steps this process claimed and runs
        self.known: set[int] = set()  # numbers of the complete trials the loop has seen
        self._news: list[StepRecord] = []
        self._done: dict[int, Any] = {}  # number -> complete trial (read once)
        self._failed: set[int] = set()  # numbers of failed trials
        self._top = -1  # the highest trial number this process created
        self.beat: _Heartbeat | None = None
        self.storage: Any = None

    # -------------------------------------------------------------- opening
    def open(self, signature: Mapping[str, Any]) -> list[StepRecord]:
        """Create or load the study, check it is this search's, start the heartbeat; its finished steps."""
        import optuna

        self.storage = open_storage(self.storage_arg)
        self.name = self.study_name or f"metafx-{signature_digest(signature)}"
        self.study_id = self._study_id()
        self._check_signature(dict(signature))
        if self.retry(self.storage.get_study_directions, self.study_id) != [optuna.study.StudyDirection.MAXIMIZE]:
            raise StorageError(f"study {self.name!r} in {self.where!r} minimizes; metafx studies maximize quality")
        attrs = self.retry(self.storage.get_study_user_attrs, self.study_id)
        if int(attrs.get(STEPS_KEY, 0)) < self.steps:
            self.retry(self.storage.set_study_user_attr, self.study_id, STEPS_KEY, self.steps)
        if not isinstance(self.storage, optuna.storages.InMemoryStorage):
            self.beat = _Heartbeat(self.storage, self.heartbeat)
        self.me = me()
        done = self._complete(self._refresh())
        self.known = {t.number for t in done}
        out, best = [], -math.inf
        for t in done:  # each with the running best, as the first run recorded it
            out.append(self._record(t, best=best))
            best = max(best, out[-1].quality)
        return out

    def _study_id(self) -> int:
        import optuna

        try:
            return self.retry(self.storage.get_study_id_from_name, self.name)
        except KeyError:
            if not self.create:
                raise StorageError(f"there is no study {self.name!r} in storage {self.where!r}") from None
        try:
            with quiet_optuna():
                return self.retry(self.storage.create_new_study, [optuna.study.StudyDirection.MAXIMIZE], self.name)
        except optuna.exceptions.DuplicatedStudyError:  # created meanwhile by another process
            return self.retry(self.storage.get_study_id_from_name, self.name)

    def _check_signature(self, sig: dict[str, Any]) -> None:
        attrs = self.retry(self.storage.get_study_user_attrs, self.study_id)
        if SIGNATURE_KEY not in attrs:
            if self.retry(self.storage.get_n_trials, self.study_id):
                raise StorageError(f"study {self.name!r} in {self.where!r} was not made by metafx; "
                                   "choose another study name")
            self.retry(self.storage.set_study_user_attr, self.study_id, SIGNATURE_KEY, sig)
            if self.spec is not None:
                self.retry(self.storage.set_study_user_attr, self.study_id, SPEC_KEY, dict(self.spec))
            return
        old = attrs[SIGNATURE_KEY]
        if old != sig:
            diff = sorted(k for k in set(old) | set(sig) if old.get(k) != sig.get(k))
            raise StorageError(
                f"study {self.name!r} in {self.where!r} belongs to a different search (differs in: "
                f"{', '.join(diff)}); use another study name or the same arguments")

    # -------------------------------------------------------------- reading
    def _trials(self) -> list[Any]:
        """The study's complete and running trials, by number.  A finished trial never changes: the
        running ones are read each time, the others only when a number below the highest seen is
        neither running nor known (finished by another process meanwhile)."""
        import optuna

        running = self.retry(self.storage.get_all_trials, self.study_id, deepcopy=False,
                             states=(optuna.trial.TrialState.RUNNING,))
        numbers = {t.number for t in running} | set(self._done) | self._failed
        if len(numbers) != max(numbers, default=-1) + 1 or max(numbers, default=-1) < self._top:
            return self._refresh()
        return sorted([*self._done.values(), *running], key=lambda t: t.number)

    def _refresh(self) -> list[Any]:
        """Every trial read again: the complete and running ones, by number."""
        every = self.retry(self.storage.get_all_trials, self.study_id, deepcopy=False)
        self._done = {t.number: t for t in every if t.state.name == "COMPLETE"}
        self._failed = {t.number for t in every if t.state.name == "FAIL"}
        self._top = max([self._top, *(t.number for t in every)])
        return sorted((t for t in every if t.state.name in ("COMPLETE", "RUNNING")), key=lambda t: t.number)

    def _complete(self, trials: Iterable[Any]) -> list[Any]:
        """The first ``steps`` complete trials, by number."""
        return [t for t in trials if t.state.name == "COMPLETE"][: self.steps]

    def _record(self, t: Any, step: int | None = None, best: float = -math.inf) -> StepRecord:
        r = t.user_attrs.get(RECORD_KEY, {})
        q = float(t.value)
        return StepRecord(step=t.number + 1 if step is None else step, point=point_of(self.space, t.params),
                          quality=q, cost=float(r.get("cost", 0.0)), n_features=int(r.get("n_features", 0)),
                          seconds=float(r.get("seconds", 0.0)), best_quality=max(best, q), accepted=q > best,
                          timings={k: float(v) for k, v in r.get("timings", {}).items()})

    # -------------------------------------------------------------- claiming
    def claim(self) -> Claim | None:
        """A step to compute: a trial of a dead process (its number and point) or a new trial."""
        trials = self._trials()
        self._note_news(trials)
        now = time.time()
        running = [t for t in trials if t.state.name == "RUNNING"]
        stale = [t for t in running if t.number + 1 not in self.mine and self._is_stale(t, now)]
        cutoff = _cutoff(trials, self.steps)
        for t in stale:
            if t.number >= cutoff:  # beyond the search's trials: close it
                self._close_trial(self._tid(t), True, t.number)
                continue
            return Claim(t.number + 1, self._take_over(t))
        complete = sum(t.state.name == "COMPLETE" for t in trials)
        if complete + len(running) - len(stale) >= self.steps:
            return None
        number = self._new_trial(trials)
        return None if number is None else Claim(number + 1)

    def _take_over(self, t: Any) -> dict[str, Any] | None:
        """A process died while evaluating trial ``t``: it is this process's now (same number and point)."""
        tid = self._tid(t)
        self.retry(self.storage.set_trial_system_attr, tid, OWNER_KEY, self.me)
        self.retry(self.storage.set_trial_system_attr, tid, BEAT_KEY, time.time())
        self._own(t.number + 1, tid)
        params = set(t.params) >= {d.name for d in self.space.free}
        return point_of(self.space, t.params) if params else None

    def _new_trial(self, trials: list[Any]) -> int | None:
        """A new RUNNING trial owned by this process (the owner recorded with it); None when it is surplus:
        another process created one at the same moment and ``steps`` live trials come before it."""
        import optuna

        template = optuna.trial.create_trial(state=optuna.trial.TrialState.RUNNING,
                                             system_attrs={OWNER_KEY: self.me})
        expected = max([-1, *self._failed, *(t.number for t in trials)]) + 1
        tid = self.retry(self.storage.create_new_trial, self.study_id, template)
        # the new trial's number: the one expected (one statement to check), else optuna's (a read of the trial)
        if self.retry(self._id_of, expected) == tid:
            number = expected
        else:
            number = self.retry(self.storage.get_trial_number_from_id, tid)
        self._top = max(self._top, number)
        if number >= self.steps:  # another process may have asked at the same moment: keep the first `steps`
            before = sum(t.number < number and t.state.name in ("COMPLETE", "RUNNING") for t in self._trials())
            if before >= self.steps:
                self._close_trial(tid, True, number)
                return None
        self._own(number + 1, tid)
        return number

    def _id_of(self, number: int) -> int | None:
        try:
            return self.storage.get_trial_id_from_study_id_trial_number(self.study_id, number)
        except KeyError:
            return None

    def _own(self, step: int, tid: int) -> None:
        self.mine[step] = tid
        if self.beat is not None:
            self.beat.add(tid)

    def _tid(self, t: Any) -> int:
        return self.retry(self.storage.get_trial_id_from_study_id_trial_number, self.study_id, t.number)

    def _is_stale(self, t: Any, now: float) -> bool:
        owner = t.system_attrs.get(OWNER_KEY)
        if owner == self.me:  # ours, but not claimed by this run: created twice by a retried call
            return True
        if owner:
            alive = owner_alive(owner)
            if alive is not None:
                return not alive
        beat = t.system_attrs.get(BEAT_KEY)
        if beat is None:
            beat = t.datetime_start.timestamp() if t.datetime_start else now
        return now - float(beat) > self.stale_after

    def _note_news(self, trials: list[Any]) -> None:
        for t in self._complete(trials):
            if t.number not in self.known and t.number + 1 not in self.mine:
                self.known.add(t.number)
                self._news.append(self._record(t))

    def news(self) -> list[StepRecord]:
        out, self._news = self._news, []
        return out

    # -------------------------------------------------------------- writing
    def start(self, claim: Claim, point: Mapping[str, Any]) -> None:
        """The parameters of a new trial (a taken-over trial keeps its own)."""
        if claim.point is not None:
            return
        tid = self.mine[claim.step]
        for name, dist in distributions(self.space).items():
            self.retry(self.storage.set_trial_param, tid, name, dist.to_internal_repr(point[name]), dist)

    def append(self, record: StepRecord) -> None:
        """The trial's attributes, then its end (COMPLETE with the quality)."""
        import optuna

        tid = self.mine.pop(record.step)
        if self.beat is not None:
            self.beat.remove(tid)
        self.known.add(record.step - 1)
        attrs = trial_attrs(record)
        try:
            for k, v in attrs.items():
                self.retry(self.storage.set_trial_user_attr, tid, k, v)
            self.retry(self.storage.set_trial_state_values, tid, optuna.trial.TrialState.COMPLETE,
                       [float(record.quality)])
        except _update_finished():  # another process finished it
            return
        # the trial as the study now holds it (what matters here: number, state, point, value, record)
        self._done[record.step - 1] = optuna.trial.FrozenTrial(
            number=record.step - 1, state=optuna.trial.TrialState.COMPLETE, value=float(record.quality),
            datetime_start=None, datetime_complete=None, params=params_of(self.space, record.point),
            distributions=distributions(self.space), user_attrs=json.loads(json.dumps(attrs)), system_attrs={},
            intermediate_values={}, trial_id=tid)

    def _close_trial(self, tid: int, surplus: bool, number: int) -> None:
        import optuna

        self._failed.add(number)
        with contextlib.suppress(_update_finished()):
            if surplus:
                self.retry(self.storage.set_trial_system_attr, tid, SURPLUS_KEY, True)
            self.retry(self.storage.set_trial_state_values, tid, optuna.trial.TrialState.FAIL)

    def done(self) -> bool:
        return len(self._complete(self._refresh())) >= self.steps

    def replayed(self, records: list[StepRecord]) -> None:
        pass

    def close(self, error: BaseException | None) -> None:
        """Steps claimed and not finished: failed (error), or not needed (stopped: marked surplus);
        interrupted or the database gone: left running, taken over by the next run."""
        try:
            if self.storage is not None and not isinstance(error, (KeyboardInterrupt, StorageError)):
                for step, tid in self.mine.items():
                    self._close_trial(tid, error is None, step - 1)
            self.mine.clear()
        finally:
            if self.beat is not None:
                self.beat.close()
                self.beat = None

    # -------------------------------------------------------------- the result
    def finished(self, own: list[StepRecord]) -> list[tuple[StepRecord, int]]:
        """The first ``steps`` complete trials as steps at positions 1, 2, ... (all processes'), each with
        its trial number + 1 (the step number its features were drawn under)."""
        out: list[tuple[StepRecord, int]] = []
        best = -math.inf
        self.best_trial = None
        for pos, t in enumerate(self._complete(self._refresh()), start=1):
            rec = self._record(t, pos, best)
            if rec.accepted:
                best, self.best_trial = rec.quality, t.number
            out.append((rec, t.number + 1))
        self.numbers = [n - 1 for _, n in out]
        return out

    def metadata(self) -> dict[str, Any]:
        trials = self.retry(self.storage.get_all_trials, self.study_id, deepcopy=False) \
            if self.storage is not None else []
        n_fail = sum(t.state.name == "FAIL" and not t.system_attrs.get(SURPLUS_KEY) for t in trials)
        meta = {"study_name": getattr(self, "name", self.study_name), "storage": self.where,
                "best_trial": getattr(self, "best_trial", None), "failed_trials": n_fail}
        numbers = getattr(self, "numbers", [])
        if numbers != list(range(len(numbers))):  # steps are positions; trials are these numbers
            meta["trial_numbers"] = numbers
        return meta


def _cutoff(trials: list[Any], steps: int) -> int:
    """Number of the first trial beyond the first ``steps`` complete-or-running ones."""
    n = 0
    for t in trials:
        if t.state.name in ("COMPLETE", "RUNNING"):
            n += 1
            if n > steps:
                return t.number
    return _NEVER

