"""Opening optuna storages from the strings users pass as ``storage=``.

Accepted forms:

* a database URL understood by SQLAlchemy: ``sqlite:///search.db``,
  ``postgresql://user:password@host:5432/db``, ``mysql+pymysql://...``;
* a path ending in ``.db``, ``.sqlite`` or ``.sqlite3``: an SQLite file;
* an optuna journal file: ``journal:///abs/path.log``, ``journal://rel/path.log``
  or a plain path ending in ``.log``.

Errors never show a password: :func:`mask_url` replaces it by ``***``.
"""

from __future__ import annotations

import os
import re
from typing import Any

from ..core.exceptions import StorageError, ValidationError

__all__ = ["mask_url", "journal_path", "open_storage", "describe_storage_forms"]

_SQLITE_SUFFIXES = (".db", ".sqlite", ".sqlite3")


def describe_storage_forms() -> str:
    return ("an optuna storage URL (sqlite:///search.db, postgresql://user:password@host/db), "
            "a journal file (journal:///path/search.log or a path ending in .log) "
            "or an SQLite file (a path ending in .db)")


def mask_url(url: str) -> str:
    """``url`` with its password replaced by ``***``.

    Examples
    --------
    >>> mask_url("postgresql://alice:s3cret@db.example.org:5432/metafx")
    'postgresql://alice:***@db.example.org:5432/metafx'
    >>> mask_url("sqlite:///search.db")
    'sqlite:///search.db'
    """
    url = str(url)
    # scheme://user:password@host  (password may contain ':' but not '@' unless escaped)
    return re.sub(r"^([A-Za-z][A-Za-z0-9+.\-]*://[^:/@]*):[^@]*@", r"\1:***@", url)


def _password(url: str) -> str | None:
    m = re.match(r"^[A-Za-z][A-Za-z0-9+.\-]*://[^:/@]*:([^@]*)@", str(url))
    return m.group(1) if m and m.group(1) else None


def scrub(text: str, url: str) -> str:
    """``text`` with every occurrence of ``url``'s password replaced by ``***``."""
    pw = _password(url)
    text = str(text)
    if pw:
        text = text.replace(pw, "***")
        from urllib.parse import unquote

        if unquote(pw) != pw:
            text = text.replace(unquote(pw), "***")
    return text


def journal_path(storage: str) -> str | None:
    """The file path when ``storage`` names an optuna journal file, else ``None``."""
    s = str(storage)
    if s.startswith("journal:"):
        rest = s[len("journal:"):]
        if rest.startswith("//"):
            rest = rest[2:]
        if not rest:
            raise ValidationError(f"storage={storage!r} names no journal file; use journal:///path/search.log")
        return rest
    if "://" not in s and s.endswith(".log"):
        return s
    return None


def _check_optuna_journal(path: str) -> None:
    """Refuse an existing file that is not an optuna journal (optuna would append its records to it)."""
    if os.path.isdir(path):
        raise StorageError(f"optuna journal {path!r} is a directory; give the path of a journal file")
    try:
        with open(path, "rb") as fh:
            first = fh.readline(1 << 20)
    except FileNotFoundError:
        return
    except OSError as e:
        raise StorageError(f"cannot read optuna journal file {path!r}: {e.strerror or e}") from None
    if not first.strip():
        return  # empty: a new journal
    import json

    try:
        rec = json.loads(first.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        rec = None
    if not isinstance(rec, dict) or "op_code" not in rec:
        raise StorageError(f"{path!r} exists and is not an optuna journal (its first line is no optuna record); "
                           "give a new file or an existing optuna journal")


def _is_url(s: str) -> bool:
    return re.match(r"^[A-Za-z][A-Za-z0-9+.\-]*://", s) is not None


def open_storage(storage: Any, *, connect_timeout: float = 10.0):
    """An optuna storage object for ``storage`` (``None``: in memory).

    Raises :class:`~metafx.StorageError` (naming the URL with its password
    masked) when it cannot be opened, :class:`~metafx.ValidationError` when the
    string is not a storage at all.
    """
    import optuna

    if storage is None:
        return optuna.storages.InMemoryStorage()
    if isinstance(storage, optuna.storages.BaseStorage):
        return storage
    if not isinstance(storage, (str, os.PathLike)):
        raise ValidationError(f"storage={storage!r} must be {describe_storage_forms()}")
    s = os.fspath(storage)
    jpath = journal_path(s)
    if jpath is not None:
        from optuna.storages.journal import JournalFileBackend, JournalFileOpenLock

        _check_optuna_journal(jpath)
        try:
            parent = os.path.dirname(os.path.abspath(jpath))
            os.makedirs(parent, exist_ok=True)
            backend = JournalFileBackend(jpath, lock_obj=JournalFileOpenLock(jpath))
            return optuna.storages.JournalStorage(backend)
        except (OSError, ValueError) as e:
            raise StorageError(f"cannot open optuna journal file {jpath!r}: {e}") from None
    if not _is_url(s):
        if s.endswith(_SQLITE_SUFFIXES):
            s = "sqlite:///" + os.path.abspath(s)
        else:
            raise ValidationError(f"storage={s!r} is not a storage; use {describe_storage_forms()}")
    masked = mask_url(s)
    engine_kwargs: dict[str, Any] = {}
    if s.startswith(("postgresql", "postgres")):
        if s.startswith("postgres://"):
            s = "postgresql://" + s[len("postgres://"):]
        if s.startswith("postgresql://"):
            # SQLAlchemy's default driver differs between versions (psycopg2 / psycopg 3): use the installed one
            import importlib.util

            if importlib.util.find_spec("psycopg") is None and importlib.util.find_spec("psycopg2") is not None:
                s = "postgresql+psycopg2://" + s[len("postgresql://"):]
            elif importlib.util.find_spec("psycopg") is not None:
                s = "postgresql+psycopg://" + s[len("postgresql://"):]
        engine_kwargs["connect_args"] = {"connect_timeout": max(1, int(connect_timeout))}
        engine_kwargs["pool_pre_ping"] = True
    elif s.startswith("mysql"):
        engine_kwargs["connect_args"] = {"connect_timeout": max(1, int(connect_timeout))}
    elif s.startswith("sqlite:///"):
        path = s[len("sqlite:///"):]
        if path and path != ":memory:":
            parent = os.path.dirname(os.path.abspath(path))
            if not os.path.isdir(parent):
                raise StorageError(f"cannot open optuna storage {masked!r}: directory {parent!r} does not exist")
        # several processes share the file: wait for locks instead of failing at once
        engine_kwargs["connect_args"] = {"timeout": 60}
    try:
        return optuna.storages.RDBStorage(s, engine_kwargs=engine_kwargs)
    except ImportError as e:
        raise StorageError(
            f"cannot open optuna storage {masked!r}: a database driver is missing ({scrub(e, s)}); "
            "for PostgreSQL: pip install psycopg2-binary"
        ) from None
    except Exception as e:  # sqlalchemy OperationalError, ArgumentError, ...
        reason = scrub(str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__, s)
        raise StorageError(f"cannot open optuna storage {masked!r}: {reason}") from None
