"""Worker processes end with their parent: a metafx pool's loky workers run the parent watch as their
initializer, set through joblib's public ``parallel_config`` (no backend class looked up)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import joblib

from metafx.loop.lifeline import parent_id, pool_config, watch_parent


def _watch_from_worker(parent: int) -> tuple[int, bool]:
    return os.getpid(), watch_parent(parent)


def test_a_loky_worker_of_a_metafx_pool_watches_its_parent():
    with pool_config():
        pool = joblib.Parallel(n_jobs=2)
    got = pool(joblib.delayed(_watch_from_worker)(parent_id()) for _ in range(4))
    assert all(pid != os.getpid() and watching for pid, watching in got)  # watching since the initializer ran


def test_another_backend_or_initializer_is_kept():
    with joblib.parallel_config(backend="threading"):
        assert type(pool_config()).__name__ == "nullcontext"
    with joblib.parallel_config(backend="loky", initializer=print):
        assert type(pool_config()).__name__ == "nullcontext"
    assert type(pool_config()).__name__ != "nullcontext"


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
        from metafx.loop.lifeline import parent_id, pool_config, watch_parent
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
