"""Opening optuna storages from the strings users pass as ``storage=``.

Accepted forms:

* a database URL understood by SQLAlchemy: ``sqlite:///search.db``,
  ``postgresql://user:password@host:5432/db``, ``mysql+pymysql://...``;
* a path ending in ``.db``, ``.sqlite`` or ``.sqlite3``: an SQLite file;
* an optuna journal file: ``journal:///abs/path.log``, ``journal://rel/path.log``
  or a plain path ending in ``.log``.

Secrets: errors and results never show a password: :func:`mask_url` hides the
password of the URL's user part and every password-like query parameter
(``?password=...``).  A URL without a password takes it from the environment
variable ``METAFX_STORAGE_PASSWORD`` when that is set (that is how
``--n-workers`` hands it to the workers it starts, never on their command
line); PostgreSQL's own ``PGPASSWORD`` and ``~/.pgpass`` work as well.

Database storage calls go through :class:`Retry`: a call that fails because
the connection to the database broke is retried with a bounded back-off (one
log line on the ``metafx`` logger); when the database stays away longer than
``retry_seconds`` the call raises :class:`~metafx.StorageError`.

An optuna journal file (``.log``) whose last record was torn (a kill or a full
disk while optuna wrote it) is cut back to its last whole record when opened,
under optuna's own lock, as metafx's ``.jsonl`` journals are.

SQLite files are switched to write-ahead logging (``journal_mode=WAL``,
``synchronous=NORMAL``), PostgreSQL sessions to ``synchronous_commit=off``:
a commit then does not wait for the disk.  A crash of the search process loses
nothing; a crash of the machine (SQLite) or of the database server
(PostgreSQL) may lose the last fraction of a second of commits, which a rerun
redoes (a trial whose end was lost is evaluated again under its number).
"""

from __future__ import annotations

import json
import logging
import os
import random
import re
import sqlite3
import threading
import time
from collections.abc import Callable
from typing import Any, cast
from urllib.parse import parse_qsl, quote, unquote, urlencode

import optuna
from optuna.storages.journal import JournalFileBackend, JournalFileOpenLock

from ..core.exceptions import StorageError, ValidationError

__all__ = [
    "DEFAULT_RETRY_SECONDS",
    "PASSWORD_ENV",
    "Retry",
    "describe_storage_forms",
    "journal_path",
    "mask_url",
    "open_storage",
    "retry_seconds_default",
    "scrub",
    "split_password",
    "storage_damage",
]

logger = logging.getLogger("metafx")

_SQLITE_SUFFIXES = (".db", ".sqlite", ".sqlite3")
#: environment variable holding the password of a storage URL given without one
PASSWORD_ENV = "METAFX_STORAGE_PASSWORD"
#: how long a database may stay away before a storage call fails
DEFAULT_RETRY_SECONDS = 60.0
_SECRET_KEYS = {"password", "passwd", "pwd", "pass", "sslpassword", "secret", "token", "access_token"}
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*://)")


#: the storage objects accepted as they are: optuna's public storage classes (the gRPC proxy from optuna 4.2)
_STORAGE_CLASSES: tuple[type, ...] = tuple(
    c for c in (optuna.storages.RDBStorage, optuna.storages.JournalStorage, optuna.storages.InMemoryStorage,
                getattr(optuna.storages, "GrpcStorageProxy", None)) if c is not None)


def describe_storage_forms() -> str:
    return ("an optuna storage URL (sqlite:///search.db, postgresql://user:password@host/db), "
            "a journal file (journal:///path/search.log or a path ending in .log) "
            "or an SQLite file (a path ending in .db)")


def _parts(url: str) -> tuple[str, str | None, str | None, str, str] | None:
    """``(scheme://, user, password, host/path, query)`` of a URL, or None when it is none.

    The user part ends at the *last* ``@`` before the query, so a password
    holding an unescaped ``@`` (``u:Se@cret@host/db``) is still one password.
    """
    m = _SCHEME.match(url)
    if m is None:
        return None
    rest = url[m.end():]
    rest, q, query = rest.partition("?")
    at = rest.rfind("@")
    user = password = None
    if at >= 0:
        userinfo, rest = rest[:at], rest[at + 1:]
        user, colon, pw = userinfo.partition(":")
        password = pw if colon else None
    return m.group(1), user, password, rest, query if q else ""


def _is_secret(key: str) -> bool:
    return key.lower() in _SECRET_KEYS


def _normalized(url: str) -> str:
    """``url`` with its user and password percent-encoded (what SQLAlchemy's parser expects)."""
    p = _parts(url)
    if p is None or p[1] is None:
        return url
    scheme, user, pw, rest, query = p
    assert user is not None  # p[1], checked above
    auth = quote(unquote(user), safe="")
    if pw is not None:
        auth += ":" + quote(unquote(pw), safe="")
    return f"{scheme}{auth}@{rest}" + (f"?{query}" if query else "")


def mask_url(url: Any) -> str:
    """``url`` with every credential replaced by ``***``: the password of the
    user part and password-like query parameters.

    Examples
    --------
    >>> mask_url("postgresql://alice:s3cret@db.example.org:5432/metafx")
    'postgresql://alice:***@db.example.org:5432/metafx'
    >>> mask_url("postgresql://u:Se@cret@h/db")
    'postgresql://u:***@h/db'
    >>> mask_url("postgresql://alice@h/db?password=s3cret&sslmode=require")
    'postgresql://alice@h/db?password=***&sslmode=require'
    >>> mask_url("sqlite:///search.db")
    'sqlite:///search.db'
    """
    url = str(url)
    p = _parts(url)
    if p is None:
        return cast("str", url)
    try:
        from sqlalchemy.engine import make_url

        u = make_url(_normalized(url))
        masked = {k: ("***" if _is_secret(k) else v) for k, v in u.query.items()}
        return u.set(query=masked).render_as_string(hide_password=True).replace("%2A%2A%2A", "***")
    except Exception:  # not an SQLAlchemy URL (or no SQLAlchemy): mask by hand
        scheme, user, pw, rest, query = p
        auth = "" if user is None else user + (":***" if pw else "") + "@"
        q = urlencode([(k, "***" if _is_secret(k) else v) for k, v in parse_qsl(query, keep_blank_values=True)],
                      safe="*")
        return f"{scheme}{auth}{rest}" + (f"?{q}" if q else "")


def _secrets(url: str) -> list[str]:
    p = _parts(str(url))
    if p is None:
        return []
    out = []
    if p[2]:
        out.append(p[2])
    out += [v for k, v in parse_qsl(p[4], keep_blank_values=True) if _is_secret(k) and v]
    out += [unquote(s) for s in out] + [quote(unquote(s), safe="") for s in out]
    return sorted({s for s in out if s}, key=len, reverse=True)


def scrub(text: Any, url: Any) -> str:
    """``text`` with every credential of ``url`` (in any of its spellings) replaced by ``***``."""
    text = str(text)
    for s in _secrets(str(url)):
        text = text.replace(s, "***")
    return cast("str", text)


def split_password(url: str) -> tuple[str, str | None]:
    """``(url without its password, the password)``: the password of the user
    part or of a password query parameter (None when there is none)."""
    p = _parts(str(url))
    if p is None:
        return str(url), None
    scheme, user, pw, rest, query = p
    found = unquote(pw) if pw else None
    kept = []
    for k, v in parse_qsl(query, keep_blank_values=True):
        if k.lower() in ("password", "passwd") and v:
            found = v if found is None else found
        else:
            kept.append((k, v))
    auth = "" if user is None else user + "@"
    q = urlencode(kept)
    return f"{scheme}{auth}{rest}" + (f"?{q}" if q else ""), found


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
    if not first.endswith(b"\n") and first.startswith(b'{"op_code":'):
        return  # its first record was torn (cut on opening)
    try:
        rec = json.loads(first.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        rec = None
    if not isinstance(rec, dict) or "op_code" not in rec:
        raise StorageError(f"{path!r} exists and is not an optuna journal (its first line is no optuna record); "
                           "give a new file or an existing optuna journal")


def _is_url(s: str) -> bool:
    return _SCHEME.match(s) is not None


# ---------------------------------------------------------------------------- retries
def _transient(e: BaseException | None) -> bool:
    """Whether ``e`` (or its cause) is a lost or refused database connection."""
    import sqlalchemy.exc as sa_exc

    seen = 0
    while e is not None and seen < 5:
        if isinstance(e, sa_exc.DBAPIError) and e.connection_invalidated:
            return True
        if isinstance(e, (sa_exc.OperationalError, sa_exc.InterfaceError, sa_exc.DisconnectionError)):
            return True
        if isinstance(e, sa_exc.PendingRollbackError):
            return True
        e, seen = e.__cause__ or e.__context__, seen + 1
    return False


class _DropConnectionNoise(logging.Filter):
    """Drops optuna's multi-line "Caught an error from sqlalchemy ... Falling back" warning, which a
    lost connection triggers in every read; :class:`Retry` says it in one line instead.  It sits on the
    handlers of optuna's library logger, which the records of optuna's storage modules pass through."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("Caught an error from sqlalchemy")


_NOISE_FILTER = _DropConnectionNoise()


class Retry:
    """Calls to one storage that ride out short database outages.

    A call that fails on a lost or refused connection is retried after 0.25,
    0.5, 1, 2, 4, 8 s (then every 8 s, with jitter) until ``retry_seconds``
    have passed; the first failure of an outage logs one line, the end of it
    another.  Then :class:`~metafx.StorageError` (one line, password masked).
    An OS error (a full disk, a file removed) is a StorageError at once.
    ``reset`` is called before each retry (e.g. to drop a broken connection pool).
    """

    def __init__(self, where: str, retry_seconds: float = DEFAULT_RETRY_SECONDS,
                 reset: Callable[[], None] | None = None) -> None:
        self.where = where
        self.retry_seconds = float(retry_seconds)
        self.reset = reset
        self._outage_logged = False
        self._outage_since = 0.0
        self._lock = threading.Lock()
        for handler in logging.getLogger("optuna").handlers:
            if _NOISE_FILTER not in handler.filters:
                handler.addFilter(_NOISE_FILTER)

    def __call__(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        start = None
        delay = 0.25
        while True:
            try:
                out = fn(*args, **kwargs)
            except OSError as e:
                raise StorageError(f"storage {self.where!r}: {e.strerror or e}") from None
            except Exception as e:
                if not _transient(e):
                    damage = storage_damage(e)  # a damaged database file: one line, not optuna's traceback
                    if damage is not None:
                        raise StorageError(f"storage {self.where!r} is damaged or not a database: "
                                           f"{scrub(damage, self.where)}; restore it from a copy or use another "
                                           "storage") from None
                    raise
                now = time.monotonic()
                start = self._outage(e, start, now)
                time.sleep(max(0.0, min(delay * (0.75 + 0.5 * random.random()), start + self.retry_seconds - now)))
                delay = min(delay * 2, 8.0)
                continue
            if self._outage_logged:  # this call or another one (which then ended otherwise) met the outage
                self._back()
            return out

    def _outage(self, e: BaseException, start: float | None, now: float) -> float:
        if start is None:
            start = now
            with self._lock:
                if not self._outage_logged:
                    self._outage_logged, self._outage_since = True, now
                    logger.warning("lost the connection to storage %s (%s); retrying for up to %g s",
                                   self.where, _reason(e, self.where), self.retry_seconds)
        if now - start >= self.retry_seconds:
            raise StorageError(f"storage {self.where!r} unreachable for {self.retry_seconds:g} s: "
                               f"{_reason(e, self.where)}") from None
        if self.reset is not None:
            self.reset()
        return start

    def _back(self) -> None:
        with self._lock:
            if self._outage_logged:
                self._outage_logged = False
                logger.info("storage %s is back after %.1f s", self.where, time.monotonic() - self._outage_since)


def _reason(e: BaseException, where: str) -> str:
    cause = e
    while cause.__cause__ is not None:
        cause = cause.__cause__
    text = str(cause).strip().splitlines()
    return scrub(text[0] if text else type(cause).__name__, where)


# ---------------------------------------------------------------------------- opening
def _with_env_password(s: str) -> str:
    """``s`` with the password from ``$METAFX_STORAGE_PASSWORD`` when it has a user and no password."""
    pw = os.environ.get(PASSWORD_ENV)
    p = _parts(s)
    if not pw or p is None or not p[1] or p[2] is not None or s.startswith("sqlite"):
        return s
    if any(k.lower() in ("password", "passwd") for k, _ in parse_qsl(p[4])):
        return s
    scheme, user, _, rest, query = p
    return f"{scheme}{user}:{quote(pw, safe='')}@{rest}" + (f"?{query}" if query else "")


def _sqlite_connect(path: str) -> Callable[[], Any]:
    """SQLite connections for SQLAlchemy's ``creator``: wait up to 60 s for another process's lock;
    write-ahead logging (``journal_mode=WAL``, kept in the file) with ``synchronous=NORMAL``."""

    def connect() -> sqlite3.Connection:
        con = sqlite3.connect(path, timeout=60, check_same_thread=False)
        con.execute("PRAGMA journal_mode=WAL")
        con.execute("PRAGMA synchronous=NORMAL")
        return con

    return connect


def retry_seconds_default() -> float:
    """How long a database may stay away: ``$METAFX_STORAGE_RETRY_SECONDS`` or 60."""
    try:
        return float(os.environ.get("METAFX_STORAGE_RETRY_SECONDS", DEFAULT_RETRY_SECONDS))
    except ValueError:
        return DEFAULT_RETRY_SECONDS


def _cut_torn_tail(path: str, lock: Any) -> None:
    """Cut an optuna journal file back to its last whole record (a kill or a full disk while a record
    was written leaves a torn last line, after which optuna reads nothing more), under optuna's lock."""
    try:
        size = os.path.getsize(path)
    except FileNotFoundError:
        return
    except OSError as e:
        raise StorageError(f"cannot read optuna journal file {path!r}: {e.strerror or e}") from None
    if size == 0:
        return
    lock.acquire()
    try:
        with open(path, "r+b") as fh:
            data = fh.read()
            good = _whole_records(data)
            if good < len(data):
                fh.truncate(good)
                fh.flush()
                os.fsync(fh.fileno())
                logger.warning("optuna journal %s: cut a torn last record (%d bytes)", path, len(data) - good)
    except OSError as e:
        raise StorageError(f"cannot repair optuna journal file {path!r}: {e.strerror or e}") from None
    finally:
        lock.release()


def _whole_records(data: bytes) -> int:
    """Length of the leading part of ``data`` made of whole records (lines ending in a newline whose
    JSON parses); the rest is a torn tail."""
    end = data.rfind(b"\n") + 1
    while end > 0:
        start = data.rfind(b"\n", 0, end - 1) + 1
        try:
            json.loads(data[start:end])
            return end
        except ValueError:  # a record torn and followed by another write: cut it too
            end = start
    return 0


def _open_journal(storage: str, path: str) -> Any:
    _check_optuna_journal(path)
    try:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        lock = JournalFileOpenLock(path)
        _cut_torn_tail(path, lock)
        return optuna.storages.JournalStorage(JournalFileBackend(path, lock_obj=lock))
    except (OSError, ValueError) as e:
        raise StorageError(f"cannot open optuna journal file {path!r}: {e}") from None


def open_storage(storage: Any, *, connect_timeout: float = 10.0) -> Any:
    """An optuna storage object for ``storage`` (``None``: in memory): optuna's public
    ``RDBStorage``, ``JournalStorage`` or ``InMemoryStorage``.

    Raises :class:`~metafx.StorageError` (naming the URL with its credentials
    masked) when it cannot be opened, :class:`~metafx.ValidationError` when the
    string is not a storage at all.
    """
    if storage is None:
        return optuna.storages.InMemoryStorage()
    if isinstance(storage, _STORAGE_CLASSES):
        return storage
    if not isinstance(storage, (str, os.PathLike)):
        raise ValidationError(f"storage={mask_url(storage)!r} must be {describe_storage_forms()}")
    s = os.fspath(storage)
    jpath = journal_path(s)
    if jpath is not None:
        return _open_journal(s, jpath)
    if not _is_url(s):
        if s.endswith(_SQLITE_SUFFIXES):
            s = "sqlite:///" + os.path.abspath(s)
        else:
            raise ValidationError(f"storage={mask_url(s)!r} is not a storage; use {describe_storage_forms()}")
    masked = mask_url(s)
    s, engine_kwargs = _engine_kwargs(_normalized(_with_env_password(s)), masked, connect_timeout)
    try:
        # opening is not retried: a wrong URL, password or host gives one line at once
        return optuna.storages.RDBStorage(s, engine_kwargs=engine_kwargs)
    except ImportError as e:
        raise StorageError(
            f"cannot open optuna storage {masked!r}: a database driver is missing ({scrub(e, s)}); "
            "for PostgreSQL: pip install 'psycopg[binary]'"
        ) from None
    except Exception as e:  # sqlalchemy ArgumentError, authentication failures, ...
        reason = scrub(str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__, s)
        raise StorageError(f"cannot open optuna storage {masked!r}: {reason}") from None


def _engine_kwargs(s: str, masked: str, connect_timeout: float) -> tuple[str, dict[str, Any]]:
    """The URL with an installed driver, and SQLAlchemy's engine arguments for it."""
    engine_kwargs: dict[str, Any] = {}
    if s.startswith(("postgresql", "postgres")):
        if s.startswith("postgres://"):
            s = "postgresql://" + s[len("postgres://"):]
        if s.startswith("postgresql://"):
            # SQLAlchemy's default driver differs between versions (2.0: psycopg2, 2.1: psycopg 3): use an installed one
            import importlib.util

            if importlib.util.find_spec("psycopg") is not None:
                s = "postgresql+psycopg://" + s[len("postgresql://"):]
            elif importlib.util.find_spec("psycopg2") is not None:
                s = "postgresql+psycopg2://" + s[len("postgresql://"):]
        # commits do not wait for the server's disk (a server crash may lose the last fraction of a second)
        engine_kwargs["connect_args"] = {"connect_timeout": max(1, int(connect_timeout)),
                                         "options": "-c synchronous_commit=off"}
    elif s.startswith("mysql"):
        engine_kwargs["connect_args"] = {"connect_timeout": max(1, int(connect_timeout))}
    elif s.startswith("sqlite:///"):
        path = s[len("sqlite:///"):].split("?")[0]
        if path and path != ":memory:":
            parent = os.path.dirname(os.path.abspath(path))
            if not os.path.isdir(parent):
                raise StorageError(f"cannot open optuna storage {masked!r}: directory {parent!r} does not exist")
            # several processes share the file: wait for locks instead of failing at once
            engine_kwargs["creator"] = _sqlite_connect(path)
    return s, engine_kwargs


def storage_damage(e: BaseException) -> str | None:
    """The reason when ``e`` says a database file is damaged or unreadable (not a lost connection), else None.

    SQLite reports a damaged file as ``database disk image is malformed`` or
    ``file is not a database``; SQLAlchemy wraps it as ``DatabaseError`` and
    optuna as ``StorageInternalError``.
    """
    try:
        import sqlalchemy.exc as sa_exc
    except ImportError:  # pragma: no cover - sqlalchemy comes with optuna
        return None
    cur: BaseException | None
    seen, cur = 0, e
    found = None
    while cur is not None and seen < 8:
        if type(cur) is sa_exc.DatabaseError:  # the driver's DatabaseError itself, not a subclass (IntegrityError ...)
            found = cur
        cur, seen = cur.__cause__ or cur.__context__, seen + 1
    if found is None:
        return None
    orig = getattr(found, "orig", None)
    text = str(orig if orig is not None else found).strip().splitlines()
    return text[0] if text else type(found).__name__
