"""A durable, append-only journal of finished search steps (JSON lines).

The first line is a header naming everything that determines the search (the
*signature*); each further line is one :class:`~metafx.types.StepRecord`,
flushed and fsync-ed before the search goes on, so a search killed at any
moment loses at most the step it was computing.  A torn last line (killed
while writing) is ignored on reading.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Mapping

from .exceptions import StorageError
from .types import StepRecord

__all__ = ["Journal"]


class Journal:
    def __init__(self, path: str | os.PathLike[str], signature: Mapping[str, Any]) -> None:
        self.path = Path(path)
        self.signature = json.loads(json.dumps(signature))
        self.records: list[StepRecord] = []
        if self.path.exists() and self.path.stat().st_size > 0:
            self._read()
        else:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                with open(self.path, "w", encoding="utf-8") as fh:
                    fh.write(json.dumps({"metafx_journal": 1, "signature": self.signature}) + "\n")
                    fh.flush()
                    os.fsync(fh.fileno())
            except OSError as e:
                raise StorageError(f"cannot create search journal {str(self.path)!r}: {e}") from None

    def _read(self) -> None:
        with open(self.path, encoding="utf-8") as fh:
            lines = fh.read().split("\n")
        try:
            head = json.loads(lines[0])
            sig = head["signature"]
        except (ValueError, KeyError, IndexError):
            raise StorageError(f"{str(self.path)!r} is not a metafx search journal") from None
        if sig != self.signature:
            diff = sorted(k for k in set(sig) | set(self.signature) if sig.get(k) != self.signature.get(k))
            raise StorageError(
                f"journal {str(self.path)!r} belongs to a different search (differs in: {', '.join(diff)}); "
                "use another storage path or the same arguments"
            )
        good = 0
        for i, line in enumerate(lines[1:], start=1):
            if not line.strip():
                continue
            try:
                self.records.append(StepRecord.from_dict(json.loads(line)))
                good = i
            except (ValueError, TypeError):
                if i < len(lines) - 1 and any(s.strip() for s in lines[i + 1 :]):
                    raise StorageError(f"journal {str(self.path)!r} is corrupt at line {i + 1}") from None
                break  # torn last line: the step it described is recomputed
        if good < len([s for s in lines[1:] if s.strip()]):
            # rewrite without the torn tail so appends stay line-aligned
            with open(self.path, "w", encoding="utf-8") as fh:
                fh.write("\n".join(lines[: good + 1]) + "\n")
                fh.flush()
                os.fsync(fh.fileno())

    def append(self, rec: StepRecord) -> None:
        with open(self.path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(rec.to_dict()) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        self.records.append(rec)
