"""The optuna-study step store: an optuna journal file (``.log``) survives a torn write and a full disk
(issue 36, item 1), and its OS errors are one-line storage errors."""

from __future__ import annotations

import errno
import os

import pytest
from studies import check_study

import metafx

optuna = pytest.importorskip("optuna")


def _strip(r):
    d = r.to_dict()
    d["metadata"] = {k: v for k, v in d["metadata"].items() if k not in ("seconds", "timings", "failed_trials")}
    for t in d["trajectory"]:
        t.pop("seconds", None)
        t.pop("timings", None)
    return d


KW = dict(budget=40, engine="optuna", engine_params={"sampler": "random"}, seed=2, progress=False)


@pytest.fixture(scope="module")
def data():
    X, y = metafx.load_dataset("digits")
    return X[:200], y[:200]


@pytest.mark.parametrize("cut", [15, 1])
def test_torn_last_record_is_cut_on_opening(data, tmp_path, cut):
    """``truncate -s -15 s.log`` (a kill or a full disk in the middle of optuna's last write): the next
    run cuts the torn record, retries the trial it belonged to and ends as an uninterrupted run."""
    X, y = data
    log = tmp_path / "s.log"
    metafx.search(X, y, steps=3, storage=str(log), study_name="s", **KW)
    size = log.stat().st_size
    os.truncate(log, size - cut)
    res = metafx.search(X, y, steps=5, storage=str(log), study_name="s", **KW)
    ref = metafx.search(X, y, steps=5, **KW)
    assert _strip(res)["trajectory"] == _strip(ref)["trajectory"] and res.features == ref.features
    trials = optuna.load_study(study_name="s", storage=metafx.storage.backends.open_storage(str(log))).trials
    check_study(trials, 5)
    assert log.read_bytes().endswith(b"\n")


def test_torn_first_record_is_an_empty_journal(data, tmp_path):
    X, y = data
    log = tmp_path / "s.log"
    log.write_bytes(b'{"op_code":0,"worker_id":"x","study_na')
    res = metafx.search(X, y, steps=2, storage=str(log), study_name="s", **KW)
    assert len(res.trajectory) == 2


def test_a_file_that_is_not_a_journal_is_left_as_it_is(data, tmp_path):
    X, y = data
    notes = tmp_path / "notes.log"
    notes.write_bytes(b"my notes\nno newline at the end")
    with pytest.raises(metafx.StorageError, match="is not an optuna journal"):
        metafx.search(X, y, steps=2, storage=str(notes), **KW)
    assert notes.read_bytes() == b"my notes\nno newline at the end"


def test_full_disk_is_one_storage_error_and_the_rerun_resumes(data, tmp_path, monkeypatch):
    """The disk fills while optuna writes a record (half of it reaches the file): one StorageError
    naming the file and the OS's reason; the rerun cuts the half record and finishes the search."""
    from optuna.storages.journal import JournalFileBackend

    X, y = data
    log = tmp_path / "s.log"
    real = JournalFileBackend.append_logs
    calls = []

    def full_disk(self, logs):
        calls.append(1)
        if len(calls) < 12:
            return real(self, logs)
        with open(log, "ab") as fh:
            fh.write(b'{"op_code":6,"worker_id":"x","trial_id":1,"user_att')
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(JournalFileBackend, "append_logs", full_disk)
    with pytest.raises(metafx.StorageError) as e:
        metafx.search(X, y, steps=4, storage=str(log), study_name="s", **KW)
    msg = str(e.value)
    assert "No space left on device" in msg and str(log) in msg and "\n" not in msg
    monkeypatch.setattr(JournalFileBackend, "append_logs", real)
    res = metafx.search(X, y, steps=4, storage=str(log), study_name="s", **KW)
    ref = metafx.search(X, y, steps=4, **KW)
    assert _strip(res)["trajectory"] == _strip(ref)["trajectory"]


def test_journal_under_a_file_is_one_storage_error(data, tmp_path):
    X, y = data
    (tmp_path / "plain").write_text("x")
    with pytest.raises(metafx.StorageError, match=r"cannot (open|read) optuna journal file .*Not a directory") as e:
        metafx.search(X, y, steps=2, storage=str(tmp_path / "plain" / "s.log"), **KW)
    assert "\n" not in str(e.value)


def test_tpe_resumed_from_its_study_equals_the_uninterrupted_search(data, tmp_path):
    """A model-based sampler resumes exactly: the steps in the study are replayed through the engine,
    so it proposes the later steps from the same history as in one run."""
    X, y = data
    kw = dict(budget=40, engine="optuna", seed=4, progress=False, engine_params={"sampler_params": {"n_startup_trials": 3}})
    full = metafx.search(X, y, steps=8, **kw)
    url = f"sqlite:///{tmp_path / 's.db'}"
    metafx.search(X, y, steps=8, storage=url, callbacks=[lambda s, r: r.step < 4], **kw)
    seen = []
    res = metafx.search(X, y, steps=8, storage=url, callbacks=[lambda s, r: seen.append(r.step)], **kw)
    assert seen == [5, 6, 7, 8]
    assert _strip(res)["trajectory"] == _strip(full)["trajectory"] and res.features == full.features


def test_an_outage_ended_by_another_call_is_logged_as_over(caplog):
    """A call met a lost connection and then ended otherwise (e.g. its retry found the trial finished): the
    next call that succeeds closes the outage, so the next outage is logged again."""
    import logging

    import sqlalchemy.exc

    from metafx.storage.backends import Retry

    retry = Retry("db", retry_seconds=5)
    lost = sqlalchemy.exc.OperationalError("SELECT 1", {}, Exception("terminating connection"))
    calls = []

    def tell():
        calls.append(1)
        if len(calls) == 1:
            raise lost
        raise ValueError("Cannot tell a COMPLETE trial.")

    with caplog.at_level(logging.INFO, logger="metafx"):
        with pytest.raises(ValueError):
            retry(tell)
        assert retry(lambda: 3) == 3
        calls.clear()
        with pytest.raises(ValueError):
            retry(tell)
    lines = [r.getMessage() for r in caplog.records]
    assert sum("lost the connection" in m for m in lines) == 2 and sum("is back" in m for m in lines) == 1, lines
