"""Worker processes end with their parent: every task of a metafx pool runs the parent watch first
(``run_watched``), so metafx neither reads nor changes joblib's backend configuration."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
import types

import joblib

from metafx.loop.lifeline import parent_id, run_watched, watch_parent
from metafx.loop.parallel import EvaluationPool


def _watch_from_worker(parent: int) -> tuple[int, bool]:
    return os.getpid(), watch_parent(parent)


def _watching_after_a_task(parent: tuple[str, int]) -> tuple[int, bool]:
    return os.getpid(), watch_parent(parent)  # True: this process watches ``parent`` already


def test_a_loky_worker_that_ran_a_watched_task_watches_its_parent():
    pool = joblib.Parallel(n_jobs=2)
    got = pool(joblib.delayed(run_watched)(parent_id(), _watching_after_a_task, parent_id()) for _ in range(4))
    assert all(pid != os.getpid() and watching for pid, watching in got)


def _marked() -> None:
    os.environ["METAFX_TEST_USER_INITIALIZER"] = "ran"


def _worker_state(parent: tuple[str, int]) -> tuple[int, str | None, bool]:
    return os.getpid(), os.environ.get("METAFX_TEST_USER_INITIALIZER"), watch_parent(parent)


def test_the_users_backend_configuration_is_kept_and_still_watched():
    """A user's own loky initializer runs in the workers of a metafx pool, and the workers watch their parent
    too (the watch is part of the task, not an initializer metafx would set over the user's)."""
    with joblib.parallel_config(backend="loky", initializer=_marked):
        pool = joblib.Parallel(n_jobs=2)
        got = pool(joblib.delayed(run_watched)(parent_id(), _worker_state, parent_id()) for _ in range(4))
    assert all(pid != os.getpid() and mark == "ran" and watching for pid, mark, watching in got)


def test_a_metafx_pool_sends_watched_tasks(monkeypatch):
    """EvaluationPool's tasks go through run_watched with this process as the parent."""
    from metafx.loop import parallel

    sent = []

    class Recording:
        def __init__(self, n_jobs):
            pass

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return None

        def __call__(self, tasks):
            out = []
            for fn, args, _ in tasks:
                sent.append((fn, args[0]))
                out.append(None)
            return out

    monkeypatch.setattr(parallel.joblib, "Parallel", Recording)
    pool = EvaluationPool(problem=None, engine=None, n_jobs=2)
    pool.map([types.SimpleNamespace(how="point")] * 2)
    assert sent == [(run_watched, parent_id())] * 2


def test_no_watch_in_the_parent_nor_in_threads():
    assert watch_parent(os.getpid()) is False
    with joblib.parallel_config(backend="threading"):
        got = joblib.Parallel(n_jobs=2)(joblib.delayed(_watch_from_worker)(os.getpid()) for _ in range(2))
    assert [started for _, started in got] == [False, False]


def test_no_watch_in_a_live_process_that_is_not_the_parents_child_nor_on_another_host():
    assert watch_parent(1 if os.getppid() != 1 else 2) is False
    assert watch_parent(("elsewhere/0", os.getppid())) is False


def test_a_watching_process_ends_when_its_parent_is_killed(tmp_path):
    """A middle process starts a child that watches it; SIGKILL of the middle ends the child."""
    pidfile = tmp_path / "child.pid"
    child = textwrap.dedent(f"""
        import os, time
        from metafx.loop.lifeline import watch_parent
        assert watch_parent(os.getppid(), interval=0.1)
        open({str(pidfile)!r}, "w").write(str(os.getpid()))
        time.sleep(60)
    """)
    middle = textwrap.dedent(f"""
        import subprocess, sys, time
        subprocess.Popen([sys.executable, "-c", {child!r}])
        time.sleep(60)
    """)
    m = subprocess.Popen([sys.executable, "-c", middle])
    try:
        deadline = time.monotonic() + 60
        while not pidfile.exists() or not pidfile.read_text():
            assert time.monotonic() < deadline, "the child did not start"
            time.sleep(0.05)
        pid = int(pidfile.read_text())
        os.kill(m.pid, signal.SIGKILL)
        m.wait(timeout=10)
        deadline = time.monotonic() + 10
        while os.path.exists(f"/proc/{pid}") and time.monotonic() < deadline:
            try:
                os.waitpid(pid, os.WNOHANG)  # not ours; /proc shows it until it is reaped by init
            except ChildProcessError:
                pass
            stat = open(f"/proc/{pid}/stat").read() if os.path.exists(f"/proc/{pid}") else ""
            if not stat or stat[stat.rindex(")") + 2] in "ZX":
                break
            time.sleep(0.1)
        stat = open(f"/proc/{pid}/stat").read() if os.path.exists(f"/proc/{pid}") else ""
        assert not stat or stat[stat.rindex(")") + 2] in "ZX", "the watching child outlived its parent"
    finally:
        if m.poll() is None:
            m.kill()
