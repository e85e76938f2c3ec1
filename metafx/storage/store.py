"""Where a search keeps its finished steps: the loop's step stores.

A search's steps are recorded by a *step store*, chosen from ``storage=``; the
engine only proposes points.  Every store speaks one protocol
(:class:`StepStore`):

* :meth:`~StepStore.open` with the search's signature and length: checks the
  store belongs to this search (or creates it) and returns the steps finished
  before, in order (the loop replays them through the engine);
* :meth:`~StepStore.claim`: the number of the next step this process should
  compute, or None when none is left for it (a shared store hands each step to
  one process; a step left unfinished by a dead process is handed out again,
  with the point it was at);
* :meth:`~StepStore.start`: the point a claimed step is computed at;
* :meth:`~StepStore.append`: one finished step;
* :meth:`~StepStore.news`: steps other processes finished since the last claim;
* :meth:`~StepStore.close`.

Stores: :class:`NullStore` (``storage=None``: nothing kept), :class:`JournalStore`
(a JSON-lines journal file, :mod:`metafx.storage.journal`) and
:class:`~metafx.storage.study.StudyStore` (an optuna study in a database,
an optuna journal file, or in memory), chosen by :func:`metafx.storage.open_store`
from ``storage=`` and whether the engine's steps are trials of an optuna study (its
``steps_are_trials``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..core.values import StepRecord
from .journal import Journal

__all__ = ["Claim", "JournalStore", "NullStore", "StepStore", "storage_kind"]


@dataclass
class Claim:
    """A step handed to this process: its number and, when another process started it and died,
    the point it was at (computed again there, with the same draw)."""

    step: int
    point: dict[str, Any] | None = None


class StepStore:
    """The protocol of a step store (the base class keeps nothing)."""

    #: other processes may record steps in the same store (steps come from :meth:`claim`; the
    #: finished steps may not replay exactly, so the loop imports them rather than check them)
    shared: bool = False
    #: what the result's metadata says about the store
    where: str = ""

    def __init__(self, steps: int) -> None:
        self.steps = int(steps)
        self.last = 0

    def open(self, signature: Mapping[str, Any]) -> list[StepRecord]:
        """Check (or create) the store of the search with ``signature``; the steps finished before."""
        return []

    def claim(self) -> Claim | None:
        """The next step to compute here (steps 1, 2, ... up to ``steps``), or None."""
        if self.last >= self.steps:
            return None
        self.last += 1
        return Claim(self.last)

    def start(self, claim: Claim, point: Mapping[str, Any]) -> None:
        """Step ``claim.step`` is computed at ``point``."""

    def append(self, record: StepRecord) -> None:
        """One finished step."""

    def news(self) -> list[StepRecord]:
        """Steps other processes finished, found by the last :meth:`claim` (never the same twice)."""
        return []

    def done(self) -> bool:
        """Whether every step of the search is finished (in a shared store: by anyone)."""
        return True

    def finished(self, own: list[StepRecord]) -> list[tuple[StepRecord, int]]:
        """The search's finished steps for its result, each with the step number its features were drawn
        under; ``own``: the steps this run replayed and computed."""
        return [(r, r.step) for r in own]

    def metadata(self) -> dict[str, Any]:
        return {}

    def close(self, error: BaseException | None) -> None:
        """The search ended (``error``: what ended it); steps claimed and not finished are released."""

    def replayed(self, records: list[StepRecord]) -> None:
        """The loop replayed ``records`` (the first steps): later claims follow them."""
        self.last = max([self.last, *(r.step for r in records)])


class NullStore(StepStore):
    """``storage=None`` for engines whose steps are not trials of a study: nothing is kept."""


class JournalStore(StepStore):
    """The steps of one search in a JSON-lines journal file (:class:`~metafx.storage.journal.Journal`)."""

    def __init__(self, path: str, steps: int) -> None:
        super().__init__(steps)
        self.path = path
        self.journal: Journal | None = None

    def open(self, signature: Mapping[str, Any]) -> list[StepRecord]:
        self.journal = Journal(self.path, signature)
        self.where = str(self.journal.path)
        return self.journal.records[: self.steps]

    def append(self, record: StepRecord) -> None:
        assert self.journal is not None
        self.journal.append(record)

    def close(self, error: BaseException | None) -> None:
        if self.journal is not None:
            self.journal.close()


def storage_kind(storage: Any) -> str | None:
    """``"study"`` for an optuna storage (a database URL, an SQLite or optuna journal file, a storage
    object), ``"journal"`` for any other path, None for None."""
    if storage is None:
        return None
    if isinstance(storage, (str, os.PathLike)):
        s = os.fspath(storage)
        if "://" in s or s.startswith("journal:") or s.endswith((".db", ".sqlite", ".sqlite3", ".log")):
            return "study"
        return "journal"
    return "study"
