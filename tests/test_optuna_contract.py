"""The optuna calls metafx makes, each against the installed optuna: a new optuna release that changes one
of them fails here, by name, before it fails in a search (metafx/storage/study.py, metafx/storage/backends.py,
metafx/default_plugins/optuna_engine.py, metafx/distributed.py use nothing else of optuna's)."""

from __future__ import annotations

import math

import optuna
import pytest
from optuna.distributions import CategoricalDistribution, FloatDistribution, IntDistribution
from optuna.exceptions import DuplicatedStudyError
from optuna.storages.journal import JournalFileBackend, JournalFileOpenLock
from optuna.trial import FrozenTrial, Trial, TrialState

from metafx.storage.study import GivenPoint, UpdateFinishedTrialError, quiet_optuna, suggest

DISTS = {"i": IntDistribution(1, 9), "f": FloatDistribution(0.0, 1.0), "c": CategoricalDistribution(("a", "b", 3))}
POINT = {"i": 4, "f": 0.25, "c": 3}


@pytest.fixture(params=["memory", "sqlite", "journal"])
def storage(request, tmp_path):
    """One of the public storage classes, built as metafx builds it (metafx.storage.backends.open_storage)."""
    if request.param == "memory":
        return optuna.storages.InMemoryStorage()
    if request.param == "sqlite":
        return optuna.storages.RDBStorage(f"sqlite:///{tmp_path / 's.db'}", engine_kwargs={})
    path = str(tmp_path / "s.log")
    return optuna.storages.JournalStorage(JournalFileBackend(path, lock_obj=JournalFileOpenLock(path)))


def _study(storage, name="s", **kw):
    with quiet_optuna():
        return optuna.create_study(storage=storage, study_name=name, sampler=GivenPoint(), direction="maximize", **kw)


def test_create_load_and_study_attributes(storage):
    with pytest.raises(KeyError):
        optuna.load_study(study_name="s", storage=storage, sampler=GivenPoint())
    study = _study(storage)
    with pytest.raises(DuplicatedStudyError):
        _study(storage)
    again = optuna.load_study(study_name="s", storage=storage, sampler=GivenPoint())
    assert again.directions == [optuna.study.StudyDirection.MAXIMIZE]
    study.set_user_attr("metafx:steps", 5)
    study.set_user_attr("metafx:signature", {"a": [1, 2], "b": "x"})
    assert again.user_attrs == {"metafx:steps": 5, "metafx:signature": {"a": [1, 2], "b": "x"}}
    assert optuna.get_all_study_names(storage) == ["s"]


def test_ask_suggest_through_a_sampler_of_metafx_and_tell(storage):
    study = _study(storage)
    trial = study.ask()
    assert isinstance(trial, Trial) and trial.number == 0 and trial.params == {}
    trial.set_user_attr("metafx:owner", "host|1|2")
    study.sampler.point = POINT
    assert {name: suggest(trial, name, d) for name, d in DISTS.items()} == POINT  # the sampler's values
    frozen = study.tell(trial, 0.5, state=TrialState.COMPLETE)
    assert isinstance(frozen, FrozenTrial) and frozen.state == TrialState.COMPLETE and frozen.value == 0.5
    assert frozen.params == POINT and frozen.user_attrs == {"metafx:owner": "host|1|2"} and frozen.number == 0
    with pytest.raises(ValueError):  # a finished trial is not told again
        study.tell(trial, 0.7, state=TrialState.COMPLETE)
    with pytest.raises(ValueError):  # NaN is no value of a complete trial
        study.tell(study.ask(), math.nan, state=TrialState.COMPLETE)


def test_get_trials_by_state_and_tell_by_number(storage):
    study = _study(storage)
    a, b = study.ask(), study.ask()
    study.tell(a, 1.0, state=TrialState.COMPLETE)
    running = study.get_trials(deepcopy=False, states=(TrialState.RUNNING, TrialState.WAITING))
    assert [t.number for t in running] == [1] and running[0].datetime_start is not None
    study.tell(b.number, state=TrialState.FAIL)  # a trial of another process, by its number
    with pytest.raises(ValueError):
        study.tell(b.number, state=TrialState.FAIL)
    assert [t.state for t in study.get_trials(deepcopy=False)] == [TrialState.COMPLETE, TrialState.FAIL]
    assert issubclass(UpdateFinishedTrialError, RuntimeError)  # optuna's own from 4.3, a RuntimeError before


def test_a_queued_trial_is_taken_once_with_its_parameters_and_attributes(storage):
    study = _study(storage)
    other = optuna.load_study(study_name="s", storage=storage, sampler=GivenPoint())
    study.enqueue_trial(POINT, user_attrs={"metafx:step": 3, "metafx:retry_of": 0})
    waiting = study.get_trials(deepcopy=False, states=(TrialState.WAITING,))
    assert [(t.number, t.user_attrs["metafx:step"]) for t in waiting] == [(0, 3)]
    taken = other.ask()
    assert taken.number == 0 and taken.user_attrs == {"metafx:step": 3, "metafx:retry_of": 0}
    assert study.ask().number == 1  # not taken twice: a new trial
    other.sampler.point = {"i": 9, "f": 0.9, "c": "a"}  # a queued trial's parameters win over the sampler's
    assert {name: suggest(taken, name, d) for name, d in DISTS.items()} == POINT


def test_add_trial_and_ask_with_fixed_distributions(storage):
    """What the optuna engine does with its in-memory study (and with its sampler)."""
    study = optuna.create_study(storage=storage, direction="maximize", sampler=optuna.samplers.RandomSampler(seed=0))
    study.add_trial(optuna.trial.create_trial(params=POINT, distributions=DISTS, value=0.3))
    trial = study.ask(DISTS)
    assert set(trial.params) == set(DISTS)
    study.tell(trial, None, state=TrialState.FAIL)
    assert [t.state for t in study.trials] == [TrialState.COMPLETE, TrialState.FAIL]
    assert study.best_trial.params == POINT


@pytest.mark.filterwarnings("ignore::optuna.exceptions.ExperimentalWarning")
def test_samplers_and_logging():
    for make in (optuna.samplers.TPESampler, optuna.samplers.RandomSampler, optuna.samplers.QMCSampler):
        assert isinstance(make(seed=1), optuna.samplers.BaseSampler)
    old = optuna.logging.get_verbosity()
    with quiet_optuna():
        assert optuna.logging.get_verbosity() == optuna.logging.WARNING
    assert optuna.logging.get_verbosity() == old
    assert issubclass(optuna.exceptions.ExperimentalWarning, Warning)
