"""The ``metafx`` command's entry point: imports :mod:`metafx.cli` under a guard, then runs it.

Importing metafx loads numba, scikit-learn and optuna, which takes a second or
more.  A Ctrl-C during those imports, or an environment that stops them (such
as ``NUMBA_NUM_THREADS=0``), ends the command with one line on stderr (exit
130 or 2) instead of a traceback.  This module imports nothing heavy itself.
"""

from __future__ import annotations

import sys
from typing import Sequence

__all__ = ["main"]


def _is_metafx_error(e: BaseException) -> bool:
    """Whether ``e`` is a :class:`metafx.MetafxError` (told by its class names: metafx may not import)."""
    return any(c.__name__ == "MetafxError" and c.__module__.startswith("metafx.") for c in type(e).__mro__)


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
