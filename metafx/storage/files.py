"""The files of storages: which local file a ``storage=`` names, and checks that an output file is neither
an input, nor the storage, nor a result file of value (files are written by :mod:`metafx.core.files`'s one
atomic writer)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from typing import Any

from ..core.exceptions import ValidationError
from .backends import journal_path

__all__ = ["check_keeps_results", "check_not_an_input", "is_result_file", "same_file", "storage_file"]


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


def check_not_an_input(out: str | os.PathLike[str], inputs: Iterable[tuple[str, Any]], what: str = "--out") -> None:
    """Refuse an output path that names one of the command's inputs (``(option, path)`` pairs; a path None is
    skipped), compared as files: ``sub/../t.csv``, a symbolic link or a hard link to ``t.csv`` is ``t.csv``."""
    for opt, path in inputs:
        if path is None or not isinstance(path, (str, os.PathLike)) or not os.path.exists(path):
            continue  # not a file (a registered dataset's name): nothing to destroy
        if same_file(out, path):
            raise ValidationError(f"{what}={os.fspath(out)!r} is the command's input {opt} {os.fspath(path)!r}: "
                                  "writing there would destroy it; give another " + what)


def is_result_file(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is an existing file holding a metafx result (JSON with ``family`` and ``trajectory``)."""
    p = os.fspath(path)
    try:
        if not os.path.isfile(p) or os.path.getsize(p) > MAX_SNIFFED_BYTES:
            return False
        with open(p, "rb") as fh:
            data = fh.read(MAX_SNIFFED_BYTES)
        if not data.lstrip().startswith(b"{"):
            return False
        d = json.loads(data)
    except (OSError, ValueError, RecursionError):
        return False
    return isinstance(d, dict) and "family" in d and "trajectory" in d


#: a result file larger than this is not recognised as one by :func:`is_result_file`
MAX_SNIFFED_BYTES = 64 << 20


def check_keeps_results(out: str | os.PathLike[str], content: str, what: str = "--out") -> None:
    """Refuse to write ``content`` (features, C source, ...) over an existing metafx result file: replacing a
    result by something else takes the explicit choice of removing it first."""
    if is_result_file(out):
        raise ValidationError(f"{what}={os.fspath(out)!r} holds a metafx result; writing {content} over it would "
                              f"destroy it: give another {what} (or remove the result first)")
