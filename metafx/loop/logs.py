"""The ``metafx`` logger: where search progress goes when no bar is shown.

Like scikit-learn and optuna, metafx logs through the standard :mod:`logging`
module under the name ``"metafx"`` and adds no handler of its own unless asked:
:func:`set_log_level` (the CLI's ``--log-level``) sends the messages to stderr,
and ``verbose=True`` in :func:`metafx.search` / ``MetaFeatureExtractor`` does so
for one search when the application has not configured logging itself.
"""

from __future__ import annotations

import contextlib
import logging
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, TextIO, cast

from ..core.exceptions import ValidationError

__all__ = ["LOG_LEVELS", "auto_progress", "log_level", "set_log_level", "verbosity"]

LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
_FORMAT = "[metafx %(asctime)s] %(message)s"


if TYPE_CHECKING:
    _Handler = logging.StreamHandler[TextIO]
else:
    _Handler = logging.StreamHandler


class _StderrHandler(_Handler):
    """The handler metafx adds (recognized so that it is added once); writes to the current ``sys.stderr``."""

    def __init__(self) -> None:
        super().__init__()
        self.setFormatter(logging.Formatter(_FORMAT, "%H:%M:%S"))

    @property
    def stream(self) -> TextIO:
        return sys.stderr

    @stream.setter
    def stream(self, value: TextIO) -> None:  # logging.StreamHandler sets it in __init__
        pass


def _level(level: int | str) -> int:
    if isinstance(level, str) and level.upper() in LOG_LEVELS:
        return cast("int", getattr(logging, level.upper()))
    if isinstance(level, int) and not isinstance(level, bool) and level >= 0:
        return level
    raise ValidationError(f"log level {level!r} is not allowed; allowed: {', '.join(LOG_LEVELS)} or an int")


def set_log_level(level: int | str = "INFO") -> logging.Logger:
    """Send the ``metafx`` logger's messages of ``level`` and above to stderr.

    ``INFO`` gives one line every 10 steps when no progress bar is shown (step,
    best quality, features and cost of the best set, seconds) and a line on
    resume; ``WARNING`` only problems.  Returns the logger.

    Examples
    --------
    >>> import metafx
    >>> metafx.set_log_level("WARNING").name
    'metafx'
    """
    logger = logging.getLogger("metafx")
    logger.setLevel(_level(level))
    if not any(isinstance(h, _StderrHandler) for h in logger.handlers):
        logger.addHandler(_StderrHandler())
    return logger


@contextlib.contextmanager
def log_level(level: int | str) -> Iterator[logging.Logger]:
    """:func:`set_log_level` for the duration of a ``with`` block (the CLI runs each command in one)."""
    logger = logging.getLogger("metafx")
    saved = (list(logger.handlers), logger.level)
    try:
        yield set_log_level(level)
    finally:
        for h in list(logger.handlers):
            if h not in saved[0]:
                logger.removeHandler(h)
        logger.setLevel(saved[1])


@contextlib.contextmanager
def verbosity(verbose: bool | int) -> Iterator[None]:
    """With ``verbose`` true, show the ``metafx`` logger's INFO lines on stderr for the duration,
    unless the application configured the logger (a handler or a level of its own)."""
    if not isinstance(verbose, int):  # bool is an int
        raise ValidationError(f"verbose={verbose!r} must be a bool or an int (0: quiet)")
    logger = logging.getLogger("metafx")
    if not verbose or logger.handlers or logger.level != logging.NOTSET:
        yield
        return
    handler = _StderrHandler()
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    propagate, logger.propagate = logger.propagate, False  # once on stderr, not again through the root logger
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(logging.NOTSET)
        logger.propagate = propagate


def auto_progress() -> bool:
    """Whether ``progress=None`` shows a bar: on a terminal, or in a Jupyter kernel (tqdm.auto's widget)."""
    if getattr(sys.stderr, "isatty", lambda: False)():
        return True
    ipython = sys.modules.get("IPython")
    if ipython is None:
        return False
    try:
        shell = ipython.get_ipython()
    except Exception:  # pragma: no cover
        return False
    return shell is not None and "IPKernelApp" in getattr(shell, "config", {})
