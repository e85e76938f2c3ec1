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

Database storages are opened as :class:`RetryingStorage`: a storage call that
fails because the connection to the database broke is retried with a bounded
back-off (one log line on the ``metafx`` logger); when the database stays away
longer than ``retry_seconds`` the call raises :class:`~metafx.StorageError`.
The optuna engine's trials are created and written through it in few SQL
statements (:mod:`metafx.loop._rdb`), and optuna's cache is kept current with
the trials this process finished, so that the read at an ask loads only what
other processes changed.

SQLite files are switched to write-ahead logging (``journal_mode=WAL``,
``synchronous=NORMAL``), PostgreSQL sessions to ``synchronous_commit=off``:
a commit then does not wait for the disk.  A crash of the search process loses
nothing; a crash of the machine (SQLite) or of the database server
(PostgreSQL) may lose the last fraction of a second of commits, which a rerun
redoes (a trial whose end was lost is evaluated again under its number).
"""

from __future__ import annotations

import contextlib
import copy
import functools
import json
import logging
import os
import random
import re
import threading
import time
from datetime import datetime
from typing import Any, Iterable, Mapping
from urllib.parse import parse_qsl, quote, unquote, urlencode

from ..core.exceptions import StorageError, ValidationError
from ._rdb import core_available, core_create_trial, core_write_trial, record, synced_cache, unwrap_rdb
from .checks import storage_damage

__all__ = ["mask_url", "scrub", "split_password", "journal_path", "open_storage", "describe_storage_forms",
           "RetryingStorage", "write_trial", "PASSWORD_ENV", "DEFAULT_RETRY_SECONDS"]

logger = logging.getLogger("metafx")

_SQLITE_SUFFIXES = (".db", ".sqlite", ".sqlite3")
#: environment variable holding the password of a storage URL given without one
PASSWORD_ENV = "METAFX_STORAGE_PASSWORD"
#: how long a database may stay away before a storage call fails
DEFAULT_RETRY_SECONDS = 60.0
_SECRET_KEYS = {"password", "passwd", "pwd", "pass", "sslpassword", "secret", "token", "access_token"}
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*://)")


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
        return url
    try:
        from sqlalchemy.engine import make_url

        u = make_url(_normalized(url))
        query = {k: ("***" if _is_secret(k) else v) for k, v in u.query.items()}
        return u.set(query=query).render_as_string(hide_password=True).replace("%2A%2A%2A", "***")
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
    return text


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
def _transient(e: BaseException) -> bool:
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
    lost connection triggers in every read; :class:`RetryingStorage` says it in one line instead."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("Caught an error from sqlalchemy")


_NOISE_FILTER = _DropConnectionNoise()


class RetryingStorage:
    """An optuna storage (wrapping another) whose calls ride out short database outages.

    A call that fails on a lost or refused connection is retried after 0.25,
    0.5, 1, 2, 4, 8 s (then every 8 s, with jitter) until ``retry_seconds``
    have passed; the first failure of an outage logs one line.  Then
    :class:`~metafx.StorageError` (one line, password masked).  Retried writes
    are safe for metafx's use: attribute writes are upserts, a repeated
    parameter write is ignored, a repeated end of a trial finds it finished,
    and a trial created twice is taken over by its owner.

    Inside ``with storage.deferred_params():`` the parameters optuna suggests
    (and the system attributes its samplers set meanwhile, such as TPE's
    relative parameters) are collected and written in one transaction at the
    end of the block.
    """

    def __init__(self, storage: Any, where: str, retry_seconds: float = DEFAULT_RETRY_SECONDS) -> None:
        self._storage = storage
        self._where = where
        self._retry_seconds = float(retry_seconds)
        self._outage_logged = False
        self._lock = threading.Lock()
        self._local = threading.local()
        self._fresh: dict[int, Any] = {}
        #: trial id -> (study id, this process's copy of a RUNNING trial it created and writes)
        self._own: dict[int, tuple[int, Any]] = {}
        self._own_lock = threading.RLock()
        rdb_logger = logging.getLogger("optuna.storages._rdb.storage")
        if _NOISE_FILTER not in rdb_logger.filters:
            rdb_logger.addFilter(_NOISE_FILTER)

    @property
    def wrapped(self) -> Any:
        return self._storage

    def retry(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        """``fn(*args, **kwargs)``, retried while the database is away (see the class docstring)."""
        start = None
        delay = 0.25
        while True:
            try:
                out = fn(*args, **kwargs)
            except Exception as e:
                if not _transient(e):
                    damage = storage_damage(e)  # a damaged database file: one line, not optuna's traceback
                    if damage is not None:
                        raise StorageError(f"storage {self._where!r} is damaged or not a database: "
                                           f"{scrub(damage, self._where)}; restore it from a copy or use another "
                                           "storage") from None
                    raise
                now = time.monotonic()
                if start is None:
                    start = now
                    with self._lock:
                        if not self._outage_logged:
                            self._outage_logged = True
                            logger.warning("lost the connection to storage %s (%s); retrying for up to %g s",
                                           self._where, _reason(e, self._where), self._retry_seconds)
                if now - start >= self._retry_seconds:
                    raise StorageError(f"storage {self._where!r} unreachable for {self._retry_seconds:g} s: "
                                       f"{_reason(e, self._where)}") from None
                self._reset()
                time.sleep(max(0.0, min(delay * (0.75 + 0.5 * random.random()),
                                        start + self._retry_seconds - now)))
                delay = min(delay * 2, 8.0)
                continue
            if start is not None:
                with self._lock:
                    if self._outage_logged:
                        self._outage_logged = False
                        logger.info("storage %s is back after %.1f s", self._where, time.monotonic() - start)
            return out

    def _call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        if name.startswith("set_trial_") and args and args[0] in self._own:
            with self._own_lock:  # written around this process's copy: the next read loads it
                self._own.pop(args[0], None)
        return self.retry(getattr(self._storage, name), *args, **kwargs)

    def _reset(self) -> None:
        rdb = unwrap_rdb(self._storage)
        if rdb is not None:
            with contextlib.suppress(Exception):
                rdb.scoped_session.remove()
                rdb.engine.dispose()

    # -- trials this process creates: optuna's Trial reads them back at once; their end goes to the cache
    def create_trial(self, study_id: int, template_trial: Any) -> Any:
        """Create a RUNNING trial from ``template_trial`` (start time, system attributes);
        returns it as a FrozenTrial (one transaction)."""
        rdb = unwrap_rdb(self._storage)
        if rdb is not None and core_available() and not (
                template_trial.params or template_trial.user_attrs or template_trial.intermediate_values
                or template_trial.values is not None):
            frozen = self.retry(core_create_trial, rdb, study_id, template_trial)
            own = copy.deepcopy(frozen)
            record(own, system_attrs=template_trial.system_attrs)  # as a read shows them (JSON round trip)
            with self._own_lock:
                self._fresh[frozen._trial_id] = frozen
                self._own[frozen._trial_id] = (study_id, own)
            return copy.deepcopy(frozen)
        return self._call("get_trial", self._call("create_new_trial", study_id, template_trial))

    def write_core(self, rdb: Any, trial_id: int, params: list, user_attrs: Mapping[str, Any],
                   system_attrs: Mapping[str, Any], state: Any, values: list[float] | None,
                   now: datetime | None) -> None:
        """:func:`write_trial` on a database: one retried transaction.  The copy this process
        keeps of a trial it created follows the write; at the trial's end it goes to optuna's
        cache, so that the next read does not load the trial again."""
        with self._own_lock:  # the heartbeat thread writes the same trials
            try:
                self.retry(core_write_trial, rdb, trial_id, params, user_attrs, system_attrs, state, values, now)
            except BaseException:
                self._own.pop(trial_id, None)
                raise
            own = self._own.get(trial_id)
            if own is None:
                return
            record(own[1], params=params, user_attrs=user_attrs, system_attrs=system_attrs, state=state,
                   values=values, now=now)
            if state is not None:
                del self._own[trial_id]
                add = getattr(self._storage, "add_own_trial", None)
                if add is not None:
                    add(own[0], own[1])

    def set_trial_system_attr(self, trial_id: int, key: str, value: Any) -> None:
        pending = self._buffered(trial_id)
        if pending is not None:
            pending[1][key] = value
        elif trial_id in self._own:
            write_trial(self, trial_id, system_attrs={key: value})
        else:
            self._call("set_trial_system_attr", trial_id, key, value)
        fresh = self._fresh.get(trial_id)
        if fresh is not None:  # a trial just created and not read back yet: keep its copy current
            fresh.system_attrs[key] = value

    def get_trial(self, trial_id: int) -> Any:
        frozen = self._fresh.pop(trial_id, None)
        if frozen is not None:
            return frozen
        return self._call("get_trial", trial_id)

    # -- batching of suggested parameters
    @contextlib.contextmanager
    def deferred_params(self):
        buf: dict[int, tuple[list[tuple[str, Any, Any]], dict[str, Any]]] = {}
        self._local.buffer = buf
        try:
            yield buf
        finally:
            self._local.buffer = None
        for tid, (params, system_attrs) in buf.items():
            write_trial(self, tid, params=params, system_attrs=system_attrs)

    def _buffered(self, trial_id: int):
        """The deferred writes of ``trial_id`` (params, system attributes), or None outside ``deferred_params``."""
        buf = getattr(self._local, "buffer", None)
        return None if buf is None else buf.setdefault(trial_id, ([], {}))

    def set_trial_param(self, trial_id: int, param_name: str, param_value_internal: float, distribution: Any):
        pending = self._buffered(trial_id)
        if pending is not None:
            pending[0].append((param_name, param_value_internal, distribution))
            return None
        return self._call("set_trial_param", trial_id, param_name, param_value_internal, distribution)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name in ("_storage", "_where", "_retry_seconds", "_fresh", "_local", "_lock",
                                             "_own", "_own_lock"):
            raise AttributeError(name)  # not set yet (unpickling)
        attr = getattr(self._storage, name)
        if name.startswith("_") or not callable(attr):
            return attr
        return functools.partial(self._call, name)

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return _rebuild_retrying, (self._storage, self._where, self._retry_seconds)


def _rebuild_retrying(storage: Any, where: str, retry_seconds: float) -> Any:
    return _retrying_class()(storage, where, retry_seconds)


def _reason(e: BaseException, where: str) -> str:
    cause = e
    while cause.__cause__ is not None:
        cause = cause.__cause__
    text = str(cause).strip().splitlines()
    return scrub(text[0] if text else type(cause).__name__, where)


_RETRYING_CLASS: Any = None
#: methods RetryingStorage implements itself (the others are retried calls of the wrapped storage)
_OWN_METHODS = ("set_trial_param", "get_trial", "set_trial_system_attr")


def _retrying_class() -> Any:
    """:class:`RetryingStorage` under optuna's ``BaseStorage`` (every public method retried)."""
    global _RETRYING_CLASS
    if _RETRYING_CLASS is None:
        import optuna

        methods: dict[str, Any] = {}
        for name in dir(optuna.storages.BaseStorage):
            if name.startswith("_") or name in _OWN_METHODS or \
                    not callable(getattr(optuna.storages.BaseStorage, name)):
                continue

            def method(self, *args, _name=name, **kwargs):
                return self._call(_name, *args, **kwargs)

            method.__name__ = name
            methods[name] = method
        for name in _OWN_METHODS:
            methods[name] = getattr(RetryingStorage, name)
        _RETRYING_CLASS = type("RetryingStorage", (RetryingStorage, optuna.storages.BaseStorage), methods)
    return _RETRYING_CLASS


def write_trial(storage: Any, trial_id: int, *, params: Iterable[tuple[str, Any, Any]] = (),
                user_attrs: Mapping[str, Any] | None = None, system_attrs: Mapping[str, Any] | None = None,
                state: Any = None, values: list[float] | None = None) -> None:
    """Write several things about one running trial at once: ``params`` as
    ``(name, internal value, distribution)``, attributes, then its state and
    values.  On a database it is one transaction (one commit, retried as a
    whole); elsewhere one storage call per item.  Raises optuna's
    ``UpdateFinishedTrialError`` when the trial is finished already.
    """
    import optuna

    params = list(params)
    user_attrs = dict(user_attrs or {})
    system_attrs = dict(system_attrs or {})
    rdb = unwrap_rdb(storage)
    if rdb is not None and core_available() and (state is None or state.is_finished()):
        now = datetime.now() if state is not None else None
        args = (rdb, trial_id, params, user_attrs, system_attrs, state, values, now)
        if isinstance(storage, RetryingStorage):
            storage.write_core(*args)
        else:
            core_write_trial(*args)
        return
    target = storage.wrapped if isinstance(storage, RetryingStorage) else storage
    if isinstance(storage, RetryingStorage):
        with storage._own_lock:  # written around this process's copy: the next read loads it
            storage._own.pop(trial_id, None)
    for name, internal, dist in params:
        target.set_trial_param(trial_id, name, internal, dist)
    for k, v in user_attrs.items():
        target.set_trial_user_attr(trial_id, k, v)
    for k, v in system_attrs.items():
        target.set_trial_system_attr(trial_id, k, v)
    if state is not None and not target.set_trial_state_values(trial_id, state, values):
        error = getattr(optuna.exceptions, "UpdateFinishedTrialError", RuntimeError)
        raise error(f"trial {trial_id} could not be set to {state.name}")


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


def _sqlite_pragmas(engine: Any) -> None:
    from sqlalchemy import event

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection, connection_record):  # pragma: no cover - run by SQLAlchemy
        cur = dbapi_connection.cursor()
        try:
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA synchronous=NORMAL")
        finally:
            cur.close()

    engine.dispose()  # connections made while optuna set the tables up get the pragmas too


def open_storage(storage: Any, *, connect_timeout: float = 10.0, retry_seconds: float | None = None):
    """An optuna storage object for ``storage`` (``None``: in memory).

    Database URLs give a :class:`RetryingStorage` (``retry_seconds``: how long
    a database may stay away; default ``$METAFX_STORAGE_RETRY_SECONDS`` or 60).
    Raises :class:`~metafx.StorageError` (naming the URL with its credentials
    masked) when it cannot be opened, :class:`~metafx.ValidationError` when the
    string is not a storage at all.
    """
    import optuna

    if storage is None:
        return optuna.storages.InMemoryStorage()
    if isinstance(storage, optuna.storages.BaseStorage):
        return storage
    if not isinstance(storage, (str, os.PathLike)):
        raise ValidationError(f"storage={mask_url(storage)!r} must be {describe_storage_forms()}")
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
            raise ValidationError(f"storage={mask_url(s)!r} is not a storage; use {describe_storage_forms()}")
    masked = mask_url(s)
    if retry_seconds is None:
        try:
            retry_seconds = float(os.environ.get("METAFX_STORAGE_RETRY_SECONDS", DEFAULT_RETRY_SECONDS))
        except ValueError:
            retry_seconds = DEFAULT_RETRY_SECONDS
    s = _normalized(_with_env_password(s))
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
        # commits do not wait for the server's disk (a server crash may lose the last fraction of a second);
        # no ping before each transaction (a round trip each): a broken connection is retried by RetryingStorage
        engine_kwargs["connect_args"] = {"connect_timeout": max(1, int(connect_timeout)),
                                         "options": "-c synchronous_commit=off"}
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
        # opening is not retried: a wrong URL, password or host gives one line at once
        rdb = optuna.storages.RDBStorage(s, engine_kwargs=engine_kwargs)
    except ImportError as e:
        raise StorageError(
            f"cannot open optuna storage {masked!r}: a database driver is missing ({scrub(e, s)}); "
            "for PostgreSQL: pip install 'psycopg[binary]'"
        ) from None
    except Exception as e:  # sqlalchemy ArgumentError, authentication failures, ...
        reason = scrub(str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__, s)
        raise StorageError(f"cannot open optuna storage {masked!r}: {reason}") from None
    if rdb.engine.name == "sqlite":
        _sqlite_pragmas(rdb.engine)
    return _retrying_class()(synced_cache(rdb), masked, retry_seconds)
