"""Worker processes that end with the process that started them.

A pool worker blocked on its task queue does not notice that its parent was
killed (SIGKILL leaves no chance to shut the pool down), and loky's workers
and resource trackers would then live on, each holding its copy of the data.
:func:`watch_parent`, run once in every worker as the pool's initializer
(:func:`pool_config`: joblib's public ``parallel_config`` with the loky
backend's ``initializer``), ends the worker at once when its parent is gone
already, and else starts a daemon thread that ends it (``os._exit``) within
``interval`` seconds of the parent's death (POSIX: the worker is handed to
another parent).  The resource trackers then see their last client go and
exit by themselves.  Another backend chosen with ``joblib.parallel_config``
(a Dask cluster, threads) is kept as it is.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from typing import Any

import joblib
import joblib.parallel

from ..storage.study import host_id

__all__ = ["INTERVAL", "parent_id", "pool_config", "watch_parent"]

#: seconds between two looks at the parent
INTERVAL = 0.5
_watched: set[int] = set()
_lock = threading.Lock()


_HOST = host_id()


def parent_id() -> tuple[str, int]:
    """This process as the parent of pool workers: ``(host, pid)``."""
    return _HOST, os.getpid()


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


def _watch(parent: int, interval: float) -> None:
    while True:
        time.sleep(interval)
        if os.getppid() != parent:
            os._exit(1)


def watch_parent(parent: int | tuple[str, int], interval: float = INTERVAL) -> bool:
    """End this process when ``parent`` (a pid, or :func:`parent_id` of the process that started it) is no
    longer its parent; whether this process watches ``parent`` (started now, or by an earlier call).

    A child whose parent died already ends at once.  Nothing happens (False) in ``parent`` itself, on
    another host, in a live process that is not ``parent``'s child, or off POSIX."""
    host, parent = parent if isinstance(parent, tuple) else (_HOST, parent)
    if os.name != "posix" or host != _HOST or os.getpid() == parent:
        return False
    if os.getppid() != parent:
        if _gone(parent):  # the parent died before this worker ran its first task
            os._exit(1)
        return False
    with _lock:
        if parent in _watched:
            return True
        _watched.add(parent)
    threading.Thread(target=_watch, args=(parent, interval), name="metafx-lifeline", daemon=True).start()
    return True


def pool_config() -> Any:
    """The joblib configuration a pool of this process is made under: the loky backend with
    :func:`watch_parent` as its workers' initializer when loky is the active backend (joblib's
    default), no initializer is set and joblib's backends take executor arguments (joblib 1.3's do not);
    the active configuration as it is otherwise."""
    active, _ = joblib.parallel.get_active_backend()
    with joblib.parallel_config(backend="loky"):
        loky, _ = joblib.parallel.get_active_backend()
    if type(active) is not type(loky) or "initializer" in getattr(active, "backend_kwargs", {}):
        return contextlib.nullcontext()
    try:
        return joblib.parallel_config(backend="loky", initializer=watch_parent, initargs=(parent_id(),))
    except TypeError:  # a joblib whose backends take no executor arguments (1.3): the pool's workers then
        return contextlib.nullcontext()  # outlive a killed parent, as they do without metafx
