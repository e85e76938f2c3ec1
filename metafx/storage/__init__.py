"""Where a search keeps its finished steps.

The loop opens one step store per search with :func:`open_store` and speaks to it through one protocol
(:class:`metafx.storage.store.StepStore`); engines know nothing of it.  Modules: the protocol, no store and
the JSON-lines journal store (:mod:`metafx.storage.store`), the journal file (:mod:`metafx.storage.journal`),
the optuna study store (:mod:`metafx.storage.study`), the optuna storages a ``storage=`` string opens
(:mod:`metafx.storage.backends`) and the files storages name (:mod:`metafx.storage.files`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from ..core.exceptions import ValidationError
from .backends import describe_storage_forms
from .store import JournalStore, NullStore, StepStore, storage_kind
from .study import StudyStore

__all__ = ["open_store"]


def open_store(storage: Any, study_name: str | None, steps: int, space: Any, *, trials: bool, engine: str,
               options: Mapping[str, Any] | None = None) -> StepStore:
    """The step store ``storage`` names for a search of ``steps`` steps in ``space`` (not opened yet).

    ``trials``: the engine's steps are trials of an optuna study (its ``steps_are_trials``): they are kept in
    an optuna study (``storage`` an optuna storage, or None: in memory); else in a JSON-lines journal
    (``storage`` a path, or None: nothing is kept).  ``options``: a study's liveness settings
    (``storage_options=``, :func:`metafx.storage.study.check_storage_options`); ``engine``: the engine's name,
    for errors.
    """
    kind = storage_kind(storage)
    if trials:
        if kind == "journal":
            raise ValidationError(f"storage={storage!r} is not a storage; use {describe_storage_forms()}")
        return StudyStore(storage, study_name, steps, space, options=options)
    if kind == "study":
        raise ValidationError(
            f"storage={storage!r} looks like an optuna storage; engine {engine!r} records its steps in a "
            "JSON-lines journal file: pass a path such as search.jsonl (optuna storages hold the steps of "
            "engines whose steps are trials of an optuna study, such as 'optuna')")
    if options:
        raise ValidationError(f"storage_options={dict(options)!r} set a study's heartbeat; engine {engine!r} "
                              "keeps no study (its steps go to a JSON-lines journal): leave storage_options out")
    if study_name is not None:
        raise ValidationError(f"engine {engine!r} keeps a journal file, which holds one search: omit study_name")
    return NullStore(steps) if kind is None else JournalStore(os.fspath(storage), steps)
