"""A durable, append-only journal of finished search steps (JSON lines).

The first line is a header naming everything that determines the search (the
*signature*); each further line is one :class:`~metafx.plugin.StepRecord`, flushed and
fsync-ed before the search goes on, so a search killed at any moment loses at
most the step it was computing.

* A torn last line (killed while writing) is cut off on opening by truncating
  the file at the end of the last whole line: earlier lines are never
  rewritten, so there is no moment at which the journal is gone.
* The header is written to a temporary file renamed into place, so a kill
  while it is written leaves no journal or a whole one; a first line with no
  newline that begins like a journal header (torn by a kill in an older
  version) holds no record and is read as an empty journal.
* The file is opened once and kept open for the whole search; before each
  append the path is checked to still name that file.  A journal removed,
  moved or replaced during the search stops it with
  :class:`~metafx.StorageError` instead of strewing later steps into a new
  file (a moved journal still receives the step, so moving it back resumes
  every step).
* One process at a time: the journal is locked (``<journal>.lock``, with
  :mod:`filelock`) from opening to :meth:`Journal.close`; a second process
  fails at once with :class:`~metafx.StorageError`.
* Records are validated on reading: steps numbered 1, 2, ... in order, finite
  qualities and costs, the running best consistent with the qualities.  A
  journal that fails is refused with the line number, never half-read.
* Each record carries ``crc32``, the CRC-32 of its canonical JSON (sorted
  keys, no spaces): an edited or damaged value that still parses is refused
  too, and so is a record without it.
"""

from __future__ import annotations

import json
import math
import os
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import filelock

from ..core.exceptions import StorageError
from ..core.files import atomic_write_bytes
from ..core.values import StepRecord

__all__ = ["JOURNAL_VERSION", "Journal"]

JOURNAL_VERSION = 1
#: how every header starts (a first line with no newline that begins so was torn while written)
_HEAD_START = b'{"metafx_journal": %d, "signature": ' % JOURNAL_VERSION


class Journal:
    """The journal at ``path`` of the search with ``signature`` (created when missing).

    ``records`` holds the steps found on opening.  Use as a context manager, or
    call :meth:`close` to release the lock.
    """

    def __init__(self, path: str | os.PathLike[str], signature: Mapping[str, Any]) -> None:
        self.path = Path(path)
        self.signature = json.loads(json.dumps(signature))
        self.records: list[StepRecord] = []
        if self.path.is_dir():
            raise StorageError(f"storage={str(self.path)!r} is a directory; give the path of a journal file")
        if not self.path.parent.is_dir():
            raise StorageError(f"cannot create search journal {str(self.path)!r}: "
                               f"directory {str(self.path.parent)!r} does not exist")
        self._lock = filelock.FileLock(f"{self.path}.lock", timeout=0)
        self._fh: Any = None
        self._ident: tuple[int, int] | None = None
        try:
            self._lock.acquire()
        except filelock.Timeout:
            raise StorageError(f"search journal {str(self.path)!r} is in use by another process "
                               f"(lock file {str(self.path)!r}.lock); wait for it to finish") from None
        except OSError as e:
            raise StorageError(f"cannot lock search journal {str(self.path)!r}: {e}") from None
        try:
            if self.path.exists() and self.path.stat().st_size > 0 and not self._torn_header():
                self._read()
            else:
                self._create()
            self._open()
        except BaseException:
            self.close()
            raise

    # ------------------------------------------------------------------ files
    def _header(self) -> bytes:
        return (json.dumps({"metafx_journal": JOURNAL_VERSION, "signature": self.signature}) + "\n").encode("utf-8")

    def _torn_header(self) -> bool:
        """Whether the file holds only a header torn while written: no newline, and the start of a header
        (of this or another search: it holds no record either way)."""
        try:
            with open(self.path, "rb") as fh:
                data = fh.read(1 << 20)
        except OSError:
            return False
        if b"\n" in data or len(data) >= 1 << 20:
            return False
        return _HEAD_START.startswith(data) or data.startswith(_HEAD_START)

    def _create(self) -> None:
        try:
            atomic_write_bytes(self.path, self._header())
        except StorageError as e:
            raise StorageError(f"cannot create search journal {str(self.path)!r}: {e}") from None

    def _open(self) -> None:
        """Open the journal for the whole search and remember which file it is."""
        try:
            self._fh = open(self.path, "ab")
            st = os.fstat(self._fh.fileno())
        except OSError as e:
            raise StorageError(f"cannot open search journal {str(self.path)!r}: {e}") from None
        self._ident = (st.st_dev, st.st_ino)

    def _check_identity(self) -> str:
        """'' while the path still names the open journal, else what happened to it."""
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return "removed or moved away"
        except OSError as e:
            return f"unreadable ({e.strerror or e})"
        return "" if (st.st_dev, st.st_ino) == self._ident else "replaced by another file"

    def _read(self) -> None:
        where = str(self.path)
        try:
            with open(self.path, "rb") as fh:
                data = fh.read()
        except OSError as e:
            raise StorageError(f"cannot read search journal {where!r}: {e}") from None
        lines = data.split(b"\n")
        try:
            head = json.loads(lines[0].decode("utf-8"))
        except (ValueError, UnicodeDecodeError, RecursionError):
            head = None
        if not isinstance(head, dict) or head.get("metafx_journal") != JOURNAL_VERSION \
                or not isinstance(head.get("signature"), dict):
            raise StorageError(f"{where!r} is not a metafx search journal (its first line is no journal header); "
                               "give another storage path")
        sig = head["signature"]
        if sig != self.signature:
            diff = sorted(k for k in set(sig) | set(self.signature) if sig.get(k) != self.signature.get(k))
            raise StorageError(
                f"journal {where!r} belongs to a different search (differs in: {', '.join(diff)}); "
                "use another storage path or the same arguments"
            )
        # every line but the last ends with "\n"; a last line without it was torn by a kill
        whole, torn = lines[1:-1], lines[-1]
        best = -math.inf
        for i, raw in enumerate(whole, start=2):
            rec = _parse_record(raw, i, where)
            expected = len(self.records) + 1
            if rec.step != expected:
                raise StorageError(f"journal {where!r} is corrupt at line {i}: step {rec.step}, expected {expected}")
            best_after = max(best, rec.quality)
            if not math.isclose(rec.best_quality, best_after, rel_tol=0, abs_tol=1e-12):
                raise StorageError(f"journal {where!r} is corrupt at line {i}: best_quality {rec.best_quality!r} "
                                   f"disagrees with the qualities recorded ({best_after!r})")
            best = best_after
            self.records.append(rec)
        if torn:
            # cut the torn tail: truncation keeps every whole line where it is (nothing is rewritten)
            good = len(data) - len(torn)
            try:
                with open(self.path, "r+b") as fh:
                    fh.truncate(good)
                    fh.flush()
                    os.fsync(fh.fileno())
            except OSError as e:
                raise StorageError(f"cannot repair the torn last line of journal {where!r}: {e}") from None

    def append(self, rec: StepRecord) -> None:
        """Write one finished step (flushed and fsync-ed before returning).

        Raises :class:`~metafx.StorageError` when the journal file was removed,
        moved or replaced since it was opened (the step then goes to the file
        opened, wherever it is now, and not to a new file at the path).
        """
        where = str(self.path)
        if self._fh is None:
            raise StorageError(f"search journal {where!r} is closed")
        d = rec.to_dict()
        d["crc32"] = _crc(d)
        line = (json.dumps(d, allow_nan=False) + "\n").encode("utf-8")
        gone = self._check_identity()
        try:
            self._fh.write(line)
            self._fh.flush()
            os.fsync(self._fh.fileno())
        except OSError as e:  # a full disk: a torn last line is cut when the journal is opened next
            raise StorageError(f"cannot write to search journal {where!r}: {e.strerror or e}") from None
        if gone:
            linked = os.fstat(self._fh.fileno()).st_nlink > 0
            kept = (f"the open journal (steps 1 to {rec.step}) still exists under another name: move it back to "
                    f"{where!r} and run the same search again to resume") if linked else \
                f"its {rec.step} step(s) are lost with it"
            raise StorageError(f"search journal {where!r} was {gone} during the search; the search stops rather "
                               f"than record its later steps elsewhere; {kept}")
        self.records.append(rec)

    def close(self) -> None:
        """Close the file and release the lock (the journal stays on disk)."""
        if self._fh is not None:
            try:
                self._fh.close()
            except OSError:
                pass
            self._fh = None
        if self._lock.is_locked:
            self._lock.release()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def _crc(d: Mapping[str, Any]) -> int:
    canon = json.dumps(d, sort_keys=True, separators=(",", ":"), allow_nan=False, ensure_ascii=True)
    return zlib.crc32(canon.encode("ascii"))


def _parse_record(raw: bytes, line: int, where: str) -> StepRecord:
    try:
        d = json.loads(raw.decode("utf-8"))
        if not isinstance(d, dict) or "crc32" not in d:
            raise ValueError("the record has no crc32 (edited, or not written by this metafx)")
        crc = d.pop("crc32")
        if isinstance(crc, bool) or not isinstance(crc, int) or crc != _crc(d):
            raise ValueError(f"crc32={crc!r} does not match the record (edited or damaged)")
        rec = StepRecord.from_dict(d)
    except (ValueError, TypeError, UnicodeDecodeError, AttributeError, RecursionError) as e:
        raise StorageError(f"journal {where!r} is corrupt at line {line}: {e}") from None
    bad = rec.problems()
    if bad:
        raise StorageError(f"journal {where!r} is corrupt at line {line}: {bad}")
    return rec
