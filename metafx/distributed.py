"""Searches shared by several processes, on one machine or many, through one
optuna storage (engines whose steps are trials of an optuna study, such as ``optuna``).

The study is created with a :class:`ProblemSpec` in its user attributes:
everything a worker needs to rebuild the problem (dataset name and
parameters, train/test split, family, budget, evaluator, engine parameters,
steps and seed).  Any number of workers then join it; each evaluates trials
until the study has ``steps`` finished ones.  Trial numbers, points and draws
come from the storage and the seed, so no step is evaluated twice or lost; the
step of a trial left running by a worker that died is retried by another, at
the same point with the same draw (at once on the same machine, after
``stale_after`` seconds without a heartbeat from another machine; the study's
``storage_options``, recorded in it when it is created).

Command line::

    metafx search --data mnist --budget 3000 --engine optuna \\
        --storage postgresql://user:pw@host/db --study mnist-3000 --n-workers 0   # create, wait, collect
    metafx worker --storage postgresql://user@host/db --study mnist-3000           # on each machine

Passwords: prefer ``PGPASSWORD`` or ``~/.pgpass`` (PostgreSQL) or
``METAFX_STORAGE_PASSWORD`` (any database) to a password in the URL, which
other local users can read in the process list; ``--n-workers`` passes the
password to the workers it starts through ``METAFX_STORAGE_PASSWORD``.

Python::

    >>> from metafx.distributed import ProblemSpec, create_study, run_worker
    >>> spec = ProblemSpec(data="digits", n_train=300, n_test=0, budget=40, steps=3,
    ...                    engine_params={"sampler": "random"})
    >>> import tempfile, os
    >>> url = "sqlite:///" + os.path.join(tempfile.mkdtemp(), "s.db")
    >>> name = create_study(url, "demo", spec)
    >>> result = run_worker(url, "demo", progress=False)
    >>> len(result.trajectory)
    3
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import optuna
from optuna.trial import TrialState

from .core.base import FeatureFamily, SearchEngine
from .core.exceptions import MetafxError, StorageError, ValidationError
from .core.validation import check_int as _check_int
from .core.validation import check_labels, split_indices
from .loop.checks import check_spec_fields
from .loop.components import load_dataset, make_component
from .loop.loop import Progress, SearchState, search_signature
from .loop.loop import run_search as run_loop
from .loop.problem import SearchProblem, _jsonable
from .loop.result import SearchResult
from .storage.backends import PASSWORD_ENV, mask_url, open_storage, split_password
from .storage.files import storage_file
from .storage.study import SPEC_KEY, STEPS_KEY, StudyStore, check_storage_options, quiet_optuna

__all__ = ["ProblemSpec", "create_study", "run_shared_search", "run_worker", "study_spec", "wait_for_study"]


@dataclass
class ProblemSpec:
    """What determines a search, in a form a worker on another machine can rebuild.

    ``data`` is a registered dataset (``metafx.load_dataset(data, **data_params)``);
    the training part is ``split_indices(n, n_train, n_test, split_seed)[0]``.
    """

    data: str = "digits"
    data_params: dict[str, Any] = field(default_factory=dict)
    n_train: int = 1000
    n_test: int = 0
    split_seed: int = 0
    family: str = "pixel-and"
    family_params: dict[str, Any] = field(default_factory=dict)
    fixed: dict[str, Any] = field(default_factory=dict)
    budget: float = 500.0
    steps: int = 50
    seed: int = 0
    evaluator: str = "cv-linear-svm"
    evaluator_params: dict[str, Any] = field(default_factory=dict)
    engine_params: dict[str, Any] = field(default_factory=dict)
    oversample: float = 1.0
    prune_by: str = "infogain"
    engine: str = "optuna"

    def to_dict(self) -> dict[str, Any]:
        return _jsonable(dataclasses.asdict(self))

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> ProblemSpec:
        known = {f.name for f in dataclasses.fields(cls)}
        extra = set(d) - known
        if extra:
            raise ValidationError(f"unknown problem-spec fields {sorted(extra)}; known: {sorted(known)}")
        return cls(**dict(d))

    def validate(self) -> ProblemSpec:
        """Check the numbers (clear errors naming the field); returns ``self``."""
        import math

        _check_int("steps", self.steps, 1)
        _check_int("seed", self.seed, 0)
        _check_int("n_train", self.n_train, 1)
        _check_int("n_test", self.n_test, 0)
        b = self.budget
        if isinstance(b, bool) or not isinstance(b, (int, float)) or not math.isfinite(float(b)) or b <= 0:
            raise ValidationError(f"budget={b!r} must be a positive finite number")
        return self

    def load(self, data_params: Mapping[str, Any] | None = None
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(X_train, y_train, X_test, y_test)``; ``data_params`` override the stored ones
        (e.g. another ``data_dir`` on this machine)."""
        params = {**self.data_params, **(data_params or {})}
        X, y = load_dataset(self.data, **params)
        tr, te = split_indices(len(y), self.n_train, self.n_test, self.split_seed)
        return X[tr], y[tr], X[te], y[te]

    def make_engine(self) -> SearchEngine:
        """The engine (one whose steps are trials of an optuna study: a shared search needs one)."""
        eng = make_component("engine", self.engine, self.engine_params, base=SearchEngine)
        if not eng.steps_are_trials:
            raise ValidationError(f"engine {self.engine!r} keeps its steps in a journal file, which one process "
                                  "writes; a shared search needs an engine whose steps live in a study, such as "
                                  "'optuna'")
        return eng

    def problem(self, X_train: np.ndarray, y_train: np.ndarray):
        """The :class:`~metafx.plugin.SearchProblem` (as :func:`metafx.search` builds it)."""
        fam = make_component("family", self.family, self.family_params, base=FeatureFamily)
        ev = make_component("set-evaluator", self.evaluator, self.evaluator_params)
        Xc = fam.check_data(X_train)
        y = check_labels(y_train, Xc.shape[0])
        return SearchProblem(fam, Xc, y, ev, float(self.budget), fixed=self.fixed, eval_seed=int(self.seed) % 2**32,
                             oversample=self.oversample, prune_by=self.prune_by)


def _load_study(storage: Any, study_name: str):
    path = storage_file(storage)
    if path is not None and not os.path.exists(path):  # loading never creates an empty storage file
        raise StorageError(f"there is no study {study_name!r}: storage file {path!r} does not exist; create the "
                           "study with `metafx search --engine optuna --storage ... --study ...`")
    st = open_storage(storage)
    with quiet_optuna():
        try:
            return optuna.load_study(study_name=study_name, storage=st)
        except KeyError:
            raise StorageError(f"there is no study {study_name!r} in storage {mask_url(str(storage))!r}") from None


def study_spec(storage: Any, study_name: str) -> ProblemSpec:
    """The :class:`ProblemSpec` recorded in a study (with its current ``steps``)."""
    study = _load_study(storage, study_name)
    attrs = study.user_attrs
    if SPEC_KEY not in attrs:
        raise StorageError(
            f"study {study_name!r} in {mask_url(str(storage))!r} records no problem for workers; create it with "
            "`metafx search --engine optuna --storage ... --study ...` or metafx.distributed.create_study")
    check_spec_fields(attrs[SPEC_KEY], f"study {study_name!r} in {mask_url(str(storage))!r}", attrs.get(STEPS_KEY))
    spec = ProblemSpec.from_dict(attrs[SPEC_KEY])
    spec.steps = max(int(spec.steps), int(attrs.get(STEPS_KEY, 0)))
    return spec


def create_study(storage: Any, study_name: str, spec: ProblemSpec, *,
                 data: tuple[np.ndarray, np.ndarray] | None = None,
                 storage_options: Mapping[str, float] | None = None) -> str:
    """Create the study of ``spec`` in ``storage`` (or check that the existing one
    is the same search); returns its name.  ``data`` = ``(X_train, y_train)``
    avoids loading the dataset again.  ``storage_options``: the study's
    heartbeat settings (as :func:`metafx.search`'s), recorded in it for every
    worker."""
    if not isinstance(study_name, str) or not study_name:
        raise ValidationError(f"study_name={study_name!r} must be a non-empty string")
    if storage is None:
        raise ValidationError("a shared search needs storage= (an optuna storage URL or journal file)")
    spec.validate()
    check_storage_options(storage_options)
    X, y = data if data is not None else spec.load()[:2]
    problem = spec.problem(X, y)
    eng = spec.make_engine()
    eng.setup(problem, int(spec.seed))
    store = StudyStore(storage, study_name, int(spec.steps), problem.space, spec=spec.to_dict(),
                       options=storage_options)
    try:
        store.open(search_signature(eng, problem, int(spec.seed), []))
    finally:
        store.close(None)
    return study_name


def run_worker(storage: Any, study_name: str, *, n_jobs: int = 1, progress: bool | None = None,
               callbacks: Sequence[Callable[..., Any]] = (), data_params: Mapping[str, Any] | None = None,
               data: tuple[np.ndarray, np.ndarray] | None = None) -> SearchResult:
    """Join a study: evaluate its trials until it has ``steps`` finished ones,
    then return its result (all workers' trials)."""
    spec = study_spec(storage, study_name)
    X, y = data if data is not None else spec.load(data_params)[:2]
    return _run(spec, storage, study_name, X, y, n_jobs=n_jobs, progress=progress, callbacks=callbacks)


def _run(spec: ProblemSpec, storage: Any, study_name: str, X: np.ndarray, y: np.ndarray, *, n_jobs: int = 1,
         progress: bool | None = None, callbacks: Sequence[Callable[..., Any]] = ()) -> SearchResult:
    """The search loop on the existing study (evaluating what is left; nothing when it is finished)."""
    problem = spec.problem(X, y)
    eng = spec.make_engine()
    store = StudyStore(storage, study_name, int(spec.steps), problem.space, create=False)  # the study's liveness
    return run_loop(problem, eng, steps=int(spec.steps), seed=int(spec.seed), callbacks=callbacks,
                    progress=progress, n_jobs=n_jobs, store=store)


def wait_for_study(storage: Any, study_name: str, *, progress: bool | None = None, poll: float = 2.0,
                   timeout: float | None = None, data: tuple[np.ndarray, np.ndarray] | None = None,
                   data_params: Mapping[str, Any] | None = None) -> SearchResult:
    """Wait (evaluating nothing) until the study has ``steps`` finished trials; return its result."""
    spec = study_spec(storage, study_name)
    X, y = data if data is not None else spec.load(data_params)[:2]
    study = _load_study(storage, study_name)
    steps = int(spec.steps)
    t_end = None if timeout is None else time.monotonic() + timeout
    state = SearchState(total_steps=steps)
    shown = 0
    with Progress(steps, progress, f"{study_name} (waiting for workers)", float(spec.budget)) as bar:
        while True:
            done = [t for t in study.get_trials(deepcopy=False) if t.state == TrialState.COMPLETE]
            n = min(len(done), steps)
            if n > shown:
                state.best_quality = max(float(t.value) for t in done)
                bar.update(state, n - shown)
                shown = n
            if n >= steps:
                break
            if t_end is not None and time.monotonic() > t_end:
                raise MetafxError(f"study {study_name!r} has {n} of {steps} finished trials after {timeout:g} s")
            time.sleep(poll)
    return _run(spec, storage, study_name, X, y)


def worker_command(storage: str, study_name: str, n_jobs: int = 1) -> tuple[list[str], dict[str, str]]:
    """The command line and environment of one ``metafx worker`` process.

    The password is not on the command line (which every local user can read
    in ``ps``): the URL goes without it and the password goes into the
    environment variable ``METAFX_STORAGE_PASSWORD`` of the child, readable
    only by its user.
    """
    url, password = split_password(str(storage))
    env = dict(os.environ)
    if password is not None:
        env[PASSWORD_ENV] = password
    return ([sys.executable, "-m", "metafx.cli", "worker", "--storage", url, "--study", study_name,
             "--n-jobs", str(n_jobs), "--no-progress"], env)


def run_shared_search(spec: ProblemSpec, storage: Any, study_name: str, *, n_workers: int = 1, n_jobs: int = 1,
                             progress: bool | None = None, callbacks: Sequence[Callable[..., Any]] = (),
                      data: tuple[np.ndarray, np.ndarray] | None = None,
                      storage_options: Mapping[str, float] | None = None) -> SearchResult:
    """Create (or reopen) the study and run it with ``n_workers`` processes on this machine.

    ``n_workers = 1``: this process evaluates the trials; ``n_workers = k > 1``:
    it also starts ``k - 1`` ``metafx worker`` processes; ``n_workers = 0``: it
    only waits for workers started elsewhere and collects the result.
    ``storage_options``: the study's heartbeat settings (:func:`create_study`).
    """
    if isinstance(n_workers, bool) or not isinstance(n_workers, int) or n_workers < 0:
        raise ValidationError(f"n_workers={n_workers!r} must be an integer >= 0")
    if n_workers > 1 and not isinstance(storage, (str, os.PathLike)):
        raise ValidationError("n_workers > 1 needs storage= as a URL or file that other processes can open")
    create_study(storage, study_name, spec, data=data, storage_options=storage_options)
    procs = []
    for _ in range(max(0, n_workers - 1)):
        cmd, env = worker_command(os.fspath(storage), study_name, n_jobs)
        procs.append(subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL))
    try:
        if n_workers == 0:
            return wait_for_study(storage, study_name, progress=progress, data=data)
        result = run_worker(storage, study_name, n_jobs=n_jobs, progress=progress, callbacks=callbacks, data=data)
        for p in procs:
            p.wait()
        return result
    finally:
        for p in procs:
            if p.poll() is None:
                p.terminate()
                p.wait()

