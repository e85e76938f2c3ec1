"""Writing files so that nothing already on disk is lost, and reading files that must be regular files of
bounded size (:mod:`metafx.core.files`, where the one atomic writer lives), and the files of storages."""

from __future__ import annotations

import os

from ..core.exceptions import ValidationError
from ..core.files import atomic_file, atomic_write_bytes, atomic_write_text, check_output_path, read_regular_file
from .storage import journal_path

__all__ = ["atomic_file", "atomic_write_text", "atomic_write_bytes", "check_output_path", "read_regular_file",
           "storage_file", "same_file"]


def storage_file(storage: object) -> str | None:
    """The local file a ``storage=`` string names (a metafx or optuna journal, an SQLite file), else ``None``.

    ``None`` for database servers (``postgresql://...``) and storage objects.
    """
    if not isinstance(storage, (str, os.PathLike)):
        return None
    s = os.fspath(storage)
    try:
        jp = journal_path(s)
    except ValidationError:
        return None
    if jp is not None:
        return jp
    if s.startswith("sqlite:///"):
        rest = s[len("sqlite:///"):]
        return None if rest in ("", ":memory:") else rest
    if "://" in s:
        return None
    return s


def same_file(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    """Whether two paths name the same file (existing or not)."""
    a, b = os.fspath(a), os.fspath(b)
    try:
        if os.path.exists(a) and os.path.exists(b):
            return os.path.samefile(a, b)
    except OSError:
        pass
    return os.path.realpath(a) == os.path.realpath(b)
