"""Exceptions raised by metafx.

Every error a user can provoke with bad input derives from :class:`MetafxError`,
so callers (and the command line) can catch one type and print one clear line.
"""

from __future__ import annotations

__all__ = [
    "DuplicateComponentError",
    "MetafxError",
    "StorageError",
    "UnknownComponentError",
    "ValidationError",
]


class MetafxError(Exception):
    """Base class of every error metafx raises on purpose."""


class ValidationError(MetafxError, ValueError):
    """An argument or an input array is not what metafx can work with.

    The message names the parameter, the value received and what is allowed.
    """


class UnknownComponentError(MetafxError, KeyError):
    """A family, describer, evaluator, engine or dataset name is not registered."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class DuplicateComponentError(MetafxError):
    """Two plugins registered a component of the same kind under the same name."""


class StorageError(MetafxError):
    """A search journal or optuna storage cannot be opened or does not match."""
