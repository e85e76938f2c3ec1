"""Worker processes that end with the process that started them.

A pool worker blocked on its task queue does not notice that its parent was
killed (SIGKILL leaves no chance to shut the pool down), and loky's workers
and resource trackers would then live on, each holding its copy of the data.
:func:`watch_parent`, run once in every worker as the pool's initializer,
starts a daemon thread that ends the worker (``os._exit``) within
``interval`` seconds of its parent's death (POSIX: the worker is handed to
another parent).  The resource trackers then see their last client go and
exit by themselves.
"""

from __future__ import annotations

import os
import threading
import time

__all__ = ["watch_parent", "loky_backend"]

#: seconds between two looks at the parent
INTERVAL = 0.5


def _watch(parent: int, interval: float) -> None:
    while True:
        time.sleep(interval)
        if os.getppid() != parent:
            os._exit(1)


def watch_parent(parent: int, interval: float = INTERVAL) -> None:
    """End this process when ``parent`` (the pid that started it) is no longer its parent."""
    if os.name != "posix":
        return
    if os.getppid() != parent:  # the parent died while this worker started
        os._exit(1)
    threading.Thread(target=_watch, args=(parent, interval), name="metafx-lifeline", daemon=True).start()


def loky_backend():
    """The active joblib backend with :func:`watch_parent` as worker initializer when it is loky
    (joblib's default); None (keep the active backend) otherwise or when an initializer is set.

    The loky backend class is looked up in joblib's public registry of backends (``joblib.parallel.BACKENDS``,
    where ``register_parallel_backend`` puts them), not imported from joblib's private module."""
    try:
        from joblib.parallel import BACKENDS, get_active_backend
    except ImportError:  # a joblib that moved them: keep the active backend (workers then outlive a killed parent)
        return None
    LokyBackend = BACKENDS.get("loky")
    if LokyBackend is None:  # a joblib without loky
        return None
    active, _ = get_active_backend()
    if type(active) is not LokyBackend or "initializer" in getattr(active, "backend_kwargs", {}):
        return None
    kwargs = {**getattr(active, "backend_kwargs", {}), "initializer": watch_parent, "initargs": (os.getpid(),)}
    try:
        return LokyBackend(**kwargs)
    except TypeError:  # a joblib whose backends take no executor arguments
        return None
