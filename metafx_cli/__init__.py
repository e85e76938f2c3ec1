"""The ``metafx`` command's entry point: imports :mod:`metafx.cli` under a guard, then runs it.

Importing metafx loads numba, scikit-learn and optuna, which takes a second or
more.  A Ctrl-C during those imports, or an environment that stops them (such
as ``NUMBA_NUM_THREADS=0``), ends the command with one line on stderr (exit
130 or 2) instead of a traceback.  This module imports nothing heavy itself.

``python -m metafx.cli`` (which the distributed workers use) imports the
package ``metafx`` before any code of the command runs: ``metafx/__init__.py``
imports under :func:`startup_guard`, which gives the same one line when the
process is that command (:func:`running_as_command`), and
:func:`guard_rest_of_startup` covers the imports of :mod:`metafx.cli` itself.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator, Sequence
from typing import Any

__all__ = ["guard_rest_of_startup", "main", "running_as_command", "startup_guard"]


def _is_metafx_error(e: BaseException) -> bool:
    """Whether ``e`` is a :class:`metafx.MetafxError` (told by its class names: metafx may not import)."""
    return any(c.__name__ == "MetafxError" and c.__module__.startswith("metafx.") for c in type(e).__mro__)


def running_as_command() -> bool:
    """Whether this process is ``python -m metafx.cli ...`` (the command, not a program importing metafx)."""
    argv = list(getattr(sys, "orig_argv", []))
    return any(a == "-m" and argv[i + 1:i + 2] == ["metafx.cli"] for i, a in enumerate(argv)) \
        or "-mmetafx.cli" in argv


@contextlib.contextmanager
def startup_guard() -> Iterator[None]:
    """Around ``metafx``'s imports: in the command ``python -m metafx.cli``, a Ctrl-C ends it with
    ``metafx: interrupted`` (exit 130) and a :class:`metafx.MetafxError` with its one line (exit 2); in any
    other process the exception goes on as it is (``import metafx`` in a program raises)."""
    try:
        yield
    except KeyboardInterrupt:
        if not running_as_command():
            raise
        print("metafx: interrupted", file=sys.stderr)
        raise SystemExit(130) from None
    except Exception as e:
        if not (running_as_command() and _is_metafx_error(e)):
            raise
        print(f"metafx: error: {e}", file=sys.stderr)
        raise SystemExit(2) from None


def guard_rest_of_startup() -> None:
    """In the command ``python -m metafx.cli``: a Ctrl-C after ``metafx`` is imported and before
    :func:`metafx.cli.main` runs (the imports of :mod:`metafx.cli`) prints ``metafx: interrupted``, not a
    traceback (``sys.excepthook``; the process still ends by the interrupt, exit 130)."""
    if not running_as_command():
        return
    previous = sys.excepthook

    def hook(kind: type[BaseException], value: BaseException, tb: Any) -> None:
        if issubclass(kind, KeyboardInterrupt):
            print("metafx: interrupted", file=sys.stderr)
            return
        previous(kind, value, tb)

    sys.excepthook = hook


def main(argv: Sequence[str] | None = None) -> int:
    try:
        from metafx.cli import main as cli_main
    except KeyboardInterrupt:
        print("metafx: interrupted", file=sys.stderr)
        return 130
    except Exception as e:
        if not _is_metafx_error(e):
            raise
        print(f"metafx: error: {e}", file=sys.stderr)
        return 2
    return cli_main(argv)
