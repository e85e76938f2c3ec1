"""Writing files so that nothing already on disk is lost: unique temporary file, fsync, atomic rename."""

from __future__ import annotations

import os
import tempfile

from ..core.exceptions import StorageError, ValidationError
from .storage import journal_path

__all__ = ["atomic_write_text", "check_output_path", "storage_file", "same_file"]


def check_output_path(path: str | os.PathLike[str], what: str = "out") -> str:
    """``path`` as a string when a file can be written there, else :class:`~metafx.ValidationError`.

    Checked before a long computation: the directory exists and is writable,
    and ``path`` is not a directory.
    """
    if not isinstance(path, (str, os.PathLike)) or os.fspath(path) == "":
        raise ValidationError(f"{what}={path!r} must be a file path")
    p = os.fspath(path)
    if os.path.isdir(p):
        raise ValidationError(f"{what}={p!r} is a directory; give a file path such as {os.path.join(p, 'result.json')!r}")
    parent = os.path.dirname(os.path.abspath(p))
    if not os.path.isdir(parent):
        raise ValidationError(f"{what}={p!r}: directory {parent!r} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ValidationError(f"{what}={p!r}: directory {parent!r} is not writable")
    if os.path.exists(p) and not os.access(p, os.W_OK):
        raise ValidationError(f"{what}={p!r} exists and is not writable")
    return p


def atomic_write_text(path: str | os.PathLike[str], text: str) -> None:
    """Replace ``path`` by a file holding ``text`` so that no reader ever sees a partial file.

    The text goes to a uniquely named temporary file in the same directory
    (two writers never share one), is flushed and fsync-ed, then renamed over
    ``path`` (atomic on POSIX and Windows); the directory is fsync-ed so the
    rename survives a crash.  On any failure the temporary file is removed and
    :class:`~metafx.StorageError` is raised; ``path`` keeps its old content.
    """
    p = os.fspath(path)
    if os.path.isdir(p):
        raise StorageError(f"cannot write {p!r}: it is a directory")
    parent = os.path.dirname(os.path.abspath(p))
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(p)}.", suffix=".tmp", dir=parent)
        # mkstemp makes the file private (0600); a result file gets the permissions of any new file
        os.chmod(tmp, 0o666 & ~_umask())
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, p)
        tmp = None
        if hasattr(os, "O_DIRECTORY"):
            dfd = os.open(parent, os.O_RDONLY | os.O_DIRECTORY)
            try:
                os.fsync(dfd)
            finally:
                os.close(dfd)
    except OSError as e:
        raise StorageError(f"cannot write {p!r}: {e.strerror or e}") from None
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


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
