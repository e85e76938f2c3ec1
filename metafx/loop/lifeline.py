"""Worker processes that end with the process that started them.

A pool worker blocked on its task queue does not notice that its parent was
killed (SIGKILL leaves no chance to shut the pool down), and loky's workers
and resource trackers would then live on, each holding its copy of the data.
Every task a metafx pool sends runs through :func:`run_watched`, which first
calls :func:`watch_parent`: in a worker process whose parent is gone already
it ends the worker at once, and else (once per worker) starts a daemon thread
that ends it (``os._exit``) within ``interval`` seconds of the parent's death
(POSIX: the worker is handed to another parent).  The resource trackers then
see their last client go and exit by themselves.  The task carries the watch
itself, so metafx neither reads nor changes joblib's backend configuration:
whatever backend ``joblib.parallel_config`` chose (loky, a Dask cluster,
threads) runs the tasks, and where a task runs in the parent itself (threads)
or on another host (Dask) nothing is watched.  A loky worker that has not run a
task yet ends by loky's own idle timeout.
"""

from __future__ import annotations

import os
import threading
import time
from typing import Any, Callable, TypeVar

from ..storage.study import host_id

__all__ = ["watch_parent", "parent_id", "run_watched", "INTERVAL"]

T = TypeVar("T")

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


def run_watched(parent: tuple[str, int], fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` after :func:`watch_parent` (``parent``: :func:`parent_id` of the process that sent the
    task): a pool task that makes its worker end with that process."""
    watch_parent(parent)
    return fn(*args)
