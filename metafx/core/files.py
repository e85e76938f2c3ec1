"""Writing files so that nothing already on disk is lost (unique temporary file, fsync, atomic rename),
and reading files that must be regular files of bounded size.

The one place where metafx writes a file (:func:`atomic_file`): results, features, exports, plots and
journal headers all go through it.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterator
from typing import BinaryIO

from .exceptions import StorageError, ValidationError

__all__ = [
    "atomic_file",
    "atomic_write_bytes",
    "atomic_write_text",
    "check_output_path",
    "check_regular_file",
    "physical_memory",
    "read_regular_file",
]


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
    """Replace ``path`` by a file holding ``text`` (UTF-8) so that no reader ever sees a partial file.

    See :func:`atomic_write_bytes`.
    """
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Replace ``path`` by a file holding ``data`` so that no reader ever sees a partial file.

    See :func:`atomic_file`, which this writes through.
    """
    with atomic_file(path) as fh:
        fh.write(data)


@contextlib.contextmanager
def atomic_file(path: str | os.PathLike[str]) -> Iterator[BinaryIO]:
    """A binary file to write ``path``'s new content to; ``path`` is replaced only when the block ends well.

    Every file metafx writes (result files, features, exports, plots, journal
    headers) goes through here.  The bytes go to a uniquely named temporary
    file in the same directory (two writers never share one); when the block
    ends without an exception they are flushed and fsync-ed, then renamed
    over ``path`` (atomic on POSIX and Windows), and the directory is fsync-ed
    so the rename survives a crash.  A file replaced keeps its permission bits
    (a private ``0600`` or read-only ``0444`` file stays so); a new file gets
    those of any new file (``0666`` less the umask).  On any failure (a full
    disk, an exception of the writer, a Ctrl-C, a kill before the rename) the
    temporary file is removed (a SIGKILL leaves it, named ``.NAME.*.tmp``,
    beside an intact ``path``) and ``path`` keeps its old content; an
    ``OSError`` is raised as :class:`~metafx.StorageError` naming ``path``.
    """
    p = os.fspath(path)
    if os.path.isdir(p):
        raise StorageError(f"cannot write {p!r}: it is a directory")
    parent = os.path.dirname(os.path.abspath(p))
    tmp = None
    try:
        try:
            mode = stat.S_IMODE(os.stat(p).st_mode)
        except FileNotFoundError:
            mode = 0o666 & ~_umask()
        fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(p)}.", suffix=".tmp", dir=parent)
        # mkstemp makes the file private (0600): give it the replaced file's mode, or a new file's
        os.chmod(tmp, mode)
        with os.fdopen(fd, "wb") as fh:
            yield fh
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


def read_regular_file(path: str | os.PathLike[str], max_bytes: int, what: str = "file", *,
                      shown: str | None = None) -> bytes:
    """The bytes of ``path``, which must be a regular file of at most ``max_bytes`` bytes.

    A FIFO, a device (``/dev/zero``), a socket or a directory is refused
    without blocking or reading (the file is opened non-blocking and checked
    with ``fstat``); a longer file is refused after reading ``max_bytes + 1``
    bytes at most.  Raises :class:`~metafx.ValidationError` naming ``what``
    and the path (``shown``, when given, in its place); ``FileNotFoundError`` is
    raised as it is (callers word it).
    """
    p = os.fspath(path)
    q = p if shown is None else shown
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(p, flags)
    except FileNotFoundError:
        raise
    except IsADirectoryError:
        raise ValidationError(f"{what} {q!r} is a directory") from None
    except OSError as e:
        raise ValidationError(f"cannot read {what} {q!r}: {e.strerror or e}") from None
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise ValidationError(f"{what} {q!r} is a directory")
        if not stat.S_ISREG(st.st_mode):
            raise ValidationError(f"{what} {q!r} is {_kind(st.st_mode)}; give a regular file")
        if st.st_size > max_bytes:
            raise ValidationError(f"{what} {q!r} has {st.st_size} bytes, more than the {max_bytes} accepted")
        chunks = []
        n = 0
        while n <= max_bytes:
            chunk = os.read(fd, min(1 << 20, max_bytes + 1 - n))
            if not chunk:
                break
            chunks.append(chunk)
            n += len(chunk)
        if n > max_bytes:  # the file grew while read
            raise ValidationError(f"{what} {q!r} has more than the {max_bytes} bytes accepted")
        return b"".join(chunks)
    except OSError as e:
        raise ValidationError(f"cannot read {what} {q!r}: {e.strerror or e}") from None
    finally:
        os.close(fd)


def _kind(mode: int) -> str:
    """What a file that is no regular file is, in words."""
    return "a FIFO (named pipe)" if stat.S_ISFIFO(mode) else \
        "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else \
        "a socket" if stat.S_ISSOCK(mode) else "a directory" if stat.S_ISDIR(mode) else "not a regular file"


def check_regular_file(path: str | os.PathLike[str], what: str) -> int:
    """The size in bytes of ``path``, which must be a regular file (a symbolic link is followed).

    Checked before a reader opens the file: a FIFO would block the reader forever and a device
    (``/dev/zero``) would feed it without end.  Raises :class:`~metafx.ValidationError` naming ``what``.
    """
    p = os.fspath(path)
    try:
        st = os.stat(p)
    except FileNotFoundError:
        raise ValidationError(f"{what} {p!r} does not exist") from None
    except OSError as e:
        raise ValidationError(f"cannot read {what} {p!r}: {e.strerror or e}") from None
    if not stat.S_ISREG(st.st_mode):
        raise ValidationError(f"{what} {p!r} is {_kind(st.st_mode)}; give a regular file")
    return int(st.st_size)


def physical_memory() -> float | None:
    """Bytes of physical memory (None when the platform does not say)."""
    try:
        return float(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):
        return None


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
