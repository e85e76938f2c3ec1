"""The ``metafx`` command line.

``metafx plugins``                       list registered components and their plugins
``metafx search --data PATH|digits ...``  run a budgeted search, test it, write the result JSON
``metafx show RESULT``                    a result in a few lines (``--json`` for machines)
``metafx transform RESULT --data PATH``   the chosen features of new data (.npy, .csv, .parquet)
``metafx predict RESULT --data PATH``     the labels (and decision scores) of new data from the result's classifier
``metafx export RESULT --out FILE``       a result's features (and classifier) as C99 or NumPy code
``metafx plot RESULT``                    draw a result as PNG files
``metafx worker``                         join a shared optuna search

Bad input ends with one line on stderr and exit code 2, never a traceback.

One module per group of commands (:mod:`.search`, :mod:`.results`, :mod:`.show`), their parser in
:mod:`.parser`, the data they read in :mod:`.data`, the argparse pieces in :mod:`.options`.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence

from ..core.exceptions import MetafxError
from ..loop.logs import log_level
from .options import _cli_words
from .parser import build_parser
from .results import cmd_export, cmd_predict, cmd_transform
from .search import cmd_search, cmd_worker
from .show import cmd_plot, cmd_plugins, cmd_show

__all__ = ["build_parser", "main"]

#: subcommand -> handler (a new subcommand adds its parser in :mod:`.parser` and its handler here)
COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "plugins": cmd_plugins, "search": cmd_search, "show": cmd_show, "transform": cmd_transform,
    "predict": cmd_predict, "plot": cmd_plot, "worker": cmd_worker, "export": cmd_export}


def main(argv: Sequence[str] | None = None) -> int:
    try:
        # inside the guard: building the parser imports the plugins (a Ctrl-C there is one line too)
        args = build_parser().parse_args(argv)
        with log_level(getattr(args, "log_level", None) or "INFO"):
            code = COMMANDS[args.command](args)
            sys.stdout.flush()
            return code
    except MetafxError as e:
        print(f"metafx: error: {_cli_words(str(e))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("metafx: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader went away (`metafx plugins --json | head`): stop quietly, as a killed pipe writer would
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return 141
