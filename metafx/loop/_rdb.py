"""The trial lifecycle of the optuna engine on a database, in few and cheap statements.

optuna's ``RDBStorage`` builds every query through SQLAlchemy's ORM (about
1 ms of this process's CPU per statement) and its cache re-reads, at every
ask, the trial this process has just finished (7 statements).  Here a trial
takes SQLAlchemy Core statements on optuna's own tables (the ``Table``
objects of ``optuna.storages._rdb.models``, so column names and types are
optuna's):

* creating it, one transaction: on PostgreSQL lock the study row first (as
  optuna does, so that two processes do not count the same number); then one
  ``INSERT ... SELECT`` numbers the trial by the trials the study has and
  returns it, with its system attributes (PostgreSQL: in the same statement);
  databases without ``INSERT ... RETURNING`` take optuna's steps (insert,
  count the trials before it, set the number);
* its parameters and the sampler's attributes: one transaction that ends by
  checking the trial is still RUNNING (PostgreSQL: one statement outside a
  transaction, whose inserts all take the trial's row locked ``FOR SHARE``);
* its end (state, value, attributes): one transaction whose first statement
  moves the trial from RUNNING to its final state (PostgreSQL: one statement
  whose inserts take the row that ``UPDATE ... RETURNING`` moved), so a trial
  another process finished gets nothing more;
* the read at an ask (:class:`SyncedCache`, used when optuna's cache has the
  expected shape): one statement lists the ids and states of the trials
  optuna's cache would re-read; trials this process wrote itself and finished
  are taken from the cache, where :meth:`RetryingStorage.write_core
  <metafx.loop.storage.RetryingStorage.write_core>` put an exact copy after
  its commit, and only the others are loaded (optuna's own read).

Per trial: SQLite 9 statements, PostgreSQL 5 (``bench/bench_optuna_storage.py``).
A search on a database therefore proposes the same points as in memory
(tested), and another client (``optuna.load_study``) reads the same trials
(tested, field by field).  Where optuna's internals differ from what this
module expects, :func:`core_available` / :func:`sync_available` are false and
optuna's own storage calls are used.
"""

from __future__ import annotations

import copy
import json
from datetime import datetime
from typing import Any, Iterable, Mapping

__all__ = ["core_available", "sync_available", "unwrap_rdb", "core_create_trial", "core_write_trial", "record",
           "synced_cache"]

_CHECKED: dict[str, bool] = {}


def core_available() -> bool:
    """Whether optuna's RDB models offer what the Core statements here need."""
    if "core" not in _CHECKED:
        try:
            from optuna.distributions import distribution_to_json  # noqa: F401
            from optuna.storages._rdb import models

            ok = all(hasattr(m, "__table__") for m in (
                models.StudyModel, models.TrialModel, models.TrialParamModel, models.TrialValueModel,
                models.TrialUserAttributeModel, models.TrialSystemAttributeModel)) \
                and hasattr(models.TrialValueModel, "value_to_stored_repr") \
                and {"trial_id", "number", "study_id", "state", "datetime_start", "datetime_complete"} <= \
                set(models.TrialModel.__table__.columns.keys())
        except ImportError:  # pragma: no cover - another optuna
            ok = False
        _CHECKED["core"] = ok
    return _CHECKED["core"]


def sync_available() -> bool:
    """Whether optuna's storage cache has the shape :class:`SyncedCache` relies on (optuna >= 4.2)."""
    if "sync" not in _CHECKED:
        import inspect

        try:
            from optuna.storages import RDBStorage
            from optuna.storages._cached_storage import _CachedStorage, _StudyInfo

            info = _StudyInfo()
            ok = core_available() \
                and all(hasattr(info, n) for n in ("trials", "unfinished_trial_ids", "last_finished_trial_id")) \
                and all(hasattr(_CachedStorage, n) for n in ("_read_trials_from_remote_storage",
                                                            "_add_trials_to_cache")) \
                and {"included_trial_ids", "trial_id_greater_than"} <= \
                set(inspect.signature(RDBStorage._get_trials).parameters)
        except (ImportError, AttributeError, TypeError, ValueError):  # pragma: no cover - another optuna
            ok = False
        _CHECKED["sync"] = ok
    return _CHECKED["sync"]


def unwrap_rdb(storage: Any) -> Any:
    """The RDBStorage behind ``storage`` (unwrapping metafx's retries and optuna's cache), or None."""
    import optuna

    for _ in range(3):
        if isinstance(storage, optuna.storages.RDBStorage):
            return storage
        inner = storage.__dict__.get("_storage") or storage.__dict__.get("_backend")
        if inner is None:
            return None
        storage = inner
    return None


class _Statements:
    """The Core statements of one SQL dialect, built once (building a statement costs more
    than running it on SQLite); parameters are bound by name at execution."""

    def __init__(self, dialect: str) -> None:
        from optuna.storages._rdb import models
        from optuna.trial import TrialState
        from sqlalchemy import bindparam, func, insert, literal, null, or_, select, update

        trials, studies = models.TrialModel.__table__, models.StudyModel.__table__
        self.dialect = dialect
        self.lock_study = select(studies.c.study_id).where(studies.c.study_id == bindparam("b_study")) \
            .with_for_update()
        self.insert_trial = insert(trials)
        earlier = trials.alias("earlier")
        self.count_earlier = select(func.count(trials.c.trial_id)).where(
            trials.c.study_id == bindparam("b_study"), trials.c.trial_id < bindparam("b_trial"))
        self.set_number = update(trials).where(trials.c.trial_id == bindparam("b_trial")) \
            .values(number=bindparam("b_number"))
        self.finish = update(trials).where(trials.c.trial_id == bindparam("b_trial"),
                                           trials.c.state == TrialState.RUNNING) \
            .values(state=bindparam("b_state"), datetime_complete=bindparam("b_now"))
        self.probe = select(trials.c.trial_id, trials.c.state).where(
            trials.c.study_id == bindparam("b_study"),
            or_(trials.c.trial_id > bindparam("b_last"), trials.c.trial_id.in_(bindparam("b_ids", expanding=True))))
        # the trial with its number in one statement (0 rows: no such study), where INSERT returns rows;
        # on PostgreSQL after the study's row is locked (the count then sees every trial created before)
        everyone = select(func.count(earlier.c.trial_id)).where(earlier.c.study_id == bindparam("b_study")) \
            .scalar_subquery()
        self.insert_numbered = insert(trials).from_select(
            ["study_id", "number", "state", "datetime_start", "datetime_complete"],
            select(studies.c.study_id, everyone, literal(TrialState.RUNNING, trials.c.state.type),
                   bindparam("b_start", type_=trials.c.datetime_start.type),
                   null().cast(trials.c.datetime_complete.type))
            .where(studies.c.study_id == bindparam("b_study"))) \
            .returning(trials.c.trial_id, trials.c.number) if dialect in ("sqlite", "postgresql") else None
        self.state_of = select(trials.c.state).where(trials.c.trial_id == bindparam("b_trial"))
        self.insert_params = insert(models.TrialParamModel.__table__)
        self.insert_values = insert(models.TrialValueModel.__table__)
        self.attrs: dict[str, Any] = {}
        for kind, model in (("user", models.TrialUserAttributeModel), ("system", models.TrialSystemAttributeModel)):
            table = model.__table__
            if dialect in ("sqlite", "postgresql"):
                if dialect == "sqlite":
                    from sqlalchemy.dialects.sqlite import insert as dialect_insert
                else:
                    from sqlalchemy.dialects.postgresql import insert as dialect_insert
                stmt = dialect_insert(table)
                self.attrs[kind] = (stmt.on_conflict_do_update(index_elements=[table.c.trial_id, table.c.key],
                                                               set_={"value_json": stmt.excluded.value_json}), None)
            else:  # other databases: replace the keys (the unique constraint forbids a second row per key)
                from sqlalchemy import delete

                self.attrs[kind] = (insert(table), delete(table).where(
                    table.c.trial_id == bindparam("b_trial"), table.c.key.in_(bindparam("b_keys", expanding=True))))

        self.pg_params = self.pg_end = self.pg_create = None
        if dialect == "postgresql":
            self._postgresql(models, TrialState)

    def _postgresql(self, models: Any, TrialState: Any) -> None:
        """PostgreSQL: a parameter write and a trial's end as one statement each (data-modifying
        CTEs), run outside a transaction: one round trip instead of five.  The statement reads the
        trial's row first (locked ``FOR SHARE``, or moved to its final state ``RETURNING`` it) and
        takes every insert from that row, so a trial that is no longer RUNNING gets nothing."""
        from sqlalchemy import Float, Integer, String, Text, bindparam, func, literal, select, update
        from sqlalchemy.dialects.postgresql import ARRAY
        from sqlalchemy.dialects.postgresql import insert as pg_insert

        trials = models.TrialModel.__table__
        values_t = models.TrialValueModel.__table__

        def attrs_from(row: Any, table: Any, prefix: str) -> Any:
            stmt = pg_insert(table).from_select(["trial_id", "key", "value_json"], select(
                row.c.trial_id, func.unnest(bindparam(f"{prefix}_keys", type_=ARRAY(String))),
                func.unnest(bindparam(f"{prefix}_values", type_=ARRAY(Text)))))
            return stmt.on_conflict_do_update(index_elements=[table.c.trial_id, table.c.key],
                                              set_={"value_json": stmt.excluded.value_json})

        alive = select(trials.c.trial_id).where(trials.c.trial_id == bindparam("b_trial"),
                                                trials.c.state == TrialState.RUNNING).with_for_update(read=True) \
            .cte("alive")
        params = models.TrialParamModel.__table__
        put_params = params.insert().from_select(
            ["trial_id", "param_name", "param_value", "distribution_json"],
            select(alive.c.trial_id, func.unnest(bindparam("p_names", type_=ARRAY(String))),
                   func.unnest(bindparam("p_values", type_=ARRAY(Float))),
                   func.unnest(bindparam("p_dists", type_=ARRAY(Text))))).cte("put_params")
        put_attrs = attrs_from(alive, models.TrialSystemAttributeModel.__table__, "s").cte("put_attrs")
        self.pg_params = select(func.count()).select_from(alive).add_cte(put_params).add_cte(put_attrs)

        moved = update(trials).where(trials.c.trial_id == bindparam("b_trial"),
                                     trials.c.state == TrialState.RUNNING) \
            .values(state=bindparam("b_state"), datetime_complete=bindparam("b_now")) \
            .returning(trials.c.trial_id).cte("moved")
        put_value = values_t.insert().from_select(
            ["trial_id", "objective", "value", "value_type"],
            select(moved.c.trial_id, literal(0, Integer), bindparam("v_value", type_=values_t.c.value.type),
                   bindparam("v_type", type_=values_t.c.value_type.type))).cte("put_value")
        put_user = attrs_from(moved, models.TrialUserAttributeModel.__table__, "u").cte("put_user")
        self.pg_end = select(func.count()).select_from(moved).add_cte(put_value).add_cte(put_user)

        # a new trial with its system attributes (after the study's row is locked, see core_create_trial)
        created = self.insert_numbered.cte("created")
        put_owner = attrs_from(created, models.TrialSystemAttributeModel.__table__, "s").cte("put_owner")
        self.pg_create = select(created.c.trial_id, created.c.number).add_cte(put_owner)

    def upsert_attrs(self, conn: Any, kind: str, trial_id: int, attrs: Mapping[str, Any]) -> None:
        """All of ``attrs`` in one statement (an upsert on SQLite and PostgreSQL)."""
        if not attrs:
            return
        upsert, delete = self.attrs[kind]
        if delete is not None:
            conn.execute(delete, {"b_trial": trial_id, "b_keys": list(attrs)})
        conn.execute(upsert, [{"trial_id": trial_id, "key": k, "value_json": json.dumps(v)} for k, v in attrs.items()])


_STATEMENTS: dict[str, _Statements] = {}


def _statements(rdb: Any) -> _Statements:
    name = rdb.engine.name
    if name not in _STATEMENTS:
        _STATEMENTS[name] = _Statements(name)
    return _STATEMENTS[name]


def _refusal(trial_id: int, row: Any) -> Exception:
    """Why a write to ``trial_id`` was refused, from its ``(state,)`` row: no such trial (``KeyError``),
    or it is finished already (optuna's ``UpdateFinishedTrialError``)."""
    import optuna

    if row is None:
        return KeyError(f"No trial with trial_id {trial_id} exists.")
    error = getattr(optuna.exceptions, "UpdateFinishedTrialError", RuntimeError)
    return error(f"trial {trial_id} is {getattr(row[0], 'name', row[0])} already and cannot be updated")


def core_create_trial(rdb: Any, study_id: int, template: Any) -> Any:
    """Create a RUNNING trial from ``template`` (its start time and system attributes
    only); returns it as a FrozenTrial.  One transaction."""
    from optuna.trial import TrialState

    st = _statements(rdb)
    with rdb.engine.begin() as conn:
        # the study's row is locked while the number is counted, as optuna does (no two trials get one number);
        # SQLite has one writer at a time anyway
        if st.dialect != "sqlite" and conn.execute(st.lock_study, {"b_study": study_id}).first() is None:
            raise KeyError(f"No study with study_id {study_id} exists.")
        attrs = template.system_attrs
        if st.pg_create is not None:
            row = conn.execute(st.pg_create, {"b_study": study_id, "b_start": template.datetime_start,
                                              "s_keys": list(attrs),
                                              "s_values": [json.dumps(v) for v in attrs.values()]}).first()
            if row is None:
                raise KeyError(f"No study with study_id {study_id} exists.")
            trial_id, number = row
            attrs = {}
        elif st.insert_numbered is not None:
            row = conn.execute(st.insert_numbered, {"b_study": study_id, "b_start": template.datetime_start}).first()
            if row is None:
                raise KeyError(f"No study with study_id {study_id} exists.")
            trial_id, number = row
        else:
            trial_id = conn.execute(st.insert_trial, {
                "study_id": study_id, "number": None, "state": TrialState.RUNNING,
                "datetime_start": template.datetime_start, "datetime_complete": None}).inserted_primary_key[0]
            number = conn.execute(st.count_earlier, {"b_study": study_id, "b_trial": trial_id}).scalar_one()
            conn.execute(st.set_number, {"b_trial": trial_id, "b_number": number})
        st.upsert_attrs(conn, "system", trial_id, attrs)
    frozen = copy.deepcopy(template)
    frozen.number = int(number)
    frozen._trial_id = int(trial_id)
    frozen.state = TrialState.RUNNING
    return frozen


def core_write_trial(rdb: Any, trial_id: int, params: Iterable[tuple[str, float, Any]],
                     user_attrs: Mapping[str, Any], system_attrs: Mapping[str, Any], state: Any,
                     values: list[float] | None, now: datetime | None) -> None:
    """Write ``params`` (internal values), attributes and then the final ``state`` and ``values`` of a
    RUNNING trial, in one transaction.  ``state``: None (the trial stays RUNNING) or a finished state,
    with ``now`` its completion time.  Raises optuna's ``UpdateFinishedTrialError`` (nothing
    written) when the trial is finished already, ``KeyError`` when there is no such trial.
    A repeated parameter write (a retry after a commit whose answer was lost) is ignored."""
    from optuna.distributions import distribution_to_json
    from optuna.storages._rdb import models
    from sqlalchemy.exc import IntegrityError

    st = _statements(rdb)
    params = list(params)
    if st.pg_params is not None and (state is None or (values is not None and len(values) == 1
                                                       and not params and not system_attrs)):
        _pg_write(rdb, st, trial_id, params, user_attrs, system_attrs, state, values, now)
        return
    try:
        with rdb.engine.begin() as conn:
            if state is not None:
                # first statement: the move to the final state, only from RUNNING (a row lock until the commit)
                moved = conn.execute(st.finish, {"b_trial": trial_id, "b_state": state, "b_now": now}).rowcount
                if moved != 1:
                    raise _refusal(trial_id, conn.execute(st.state_of, {"b_trial": trial_id}).first())
            if params:
                conn.execute(st.insert_params, [{"trial_id": trial_id, "param_name": name, "param_value": internal,
                                                 "distribution_json": distribution_to_json(dist)}
                                                for name, internal, dist in params])
            st.upsert_attrs(conn, "user", trial_id, user_attrs)
            st.upsert_attrs(conn, "system", trial_id, system_attrs)
            if state is None:
                current = conn.execute(st.state_of, {"b_trial": trial_id}).first()
                if current is None or current[0].is_finished():
                    raise _refusal(trial_id, current)  # rolls the writes above back
            elif values:
                rows = []
                for objective, v in enumerate(values):
                    stored, kind = models.TrialValueModel.value_to_stored_repr(v)
                    rows.append({"trial_id": trial_id, "objective": objective, "value": stored, "value_type": kind})
                conn.execute(st.insert_values, rows)
    except IntegrityError:
        if not params or state is not None:
            raise


def _pg_write(rdb: Any, st: _Statements, trial_id: int, params: list, user_attrs: Mapping[str, Any],
              system_attrs: Mapping[str, Any], state: Any, values: list[float] | None,
              now: datetime | None) -> None:
    """:func:`core_write_trial` on PostgreSQL in one statement (see ``_Statements._postgresql``)."""
    from optuna.distributions import distribution_to_json
    from optuna.storages._rdb import models
    from sqlalchemy.exc import IntegrityError

    if state is None:
        stmt, args = st.pg_params, {
            "b_trial": trial_id, "p_names": [n for n, _, _ in params], "p_values": [float(v) for _, v, _ in params],
            "p_dists": [distribution_to_json(d) for _, _, d in params],
            "s_keys": list(system_attrs), "s_values": [json.dumps(v) for v in system_attrs.values()]}
    else:
        stored, kind = models.TrialValueModel.value_to_stored_repr(values[0])
        stmt, args = st.pg_end, {
            "b_trial": trial_id, "b_state": state, "b_now": now, "v_value": stored, "v_type": kind,
            "u_keys": list(user_attrs), "u_values": [json.dumps(v) for v in user_attrs.values()]}
    try:
        with rdb.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            if conn.execute(stmt, args).scalar_one() == 1:
                return
            current = conn.execute(st.state_of, {"b_trial": trial_id}).first()
    except IntegrityError:
        if not params or state is not None:
            raise
        return  # a repeated parameter write (a retry after a commit whose answer was lost)
    raise _refusal(trial_id, current)


def record(frozen: Any, *, params: Iterable[tuple[str, float, Any]] = (),
           user_attrs: Mapping[str, Any] | None = None, system_attrs: Mapping[str, Any] | None = None,
           state: Any = None, values: list[float] | None = None, now: datetime | None = None) -> None:
    """Apply a committed write to ``frozen``, the copy of the trial this process keeps, as a
    read of the database would show it (JSON round trip of attributes, external parameter values)."""
    from optuna.storages._rdb import models

    params = list(params)
    if params:
        frozen.params = {**frozen.params, **{name: dist.to_external_repr(internal)
                                             for name, internal, dist in params}}
        frozen.distributions = {**frozen.distributions, **{name: dist for name, _, dist in params}}
    if user_attrs:
        frozen.user_attrs = {**frozen.user_attrs, **{k: json.loads(json.dumps(v)) for k, v in user_attrs.items()}}
    if system_attrs:
        frozen.system_attrs = {**frozen.system_attrs,
                               **{k: json.loads(json.dumps(v)) for k, v in system_attrs.items()}}
    if state is not None:
        stored = [models.TrialValueModel.stored_repr_to_value(*models.TrialValueModel.value_to_stored_repr(v))
                  for v in values or ()]
        frozen.values = stored or None
        frozen.state = state
        frozen.datetime_complete = now


_SYNCED: Any = None


def synced_cache(rdb: Any) -> Any:
    """optuna's trial cache over ``rdb`` whose read at an ask loads only the trials that changed
    (see the module docstring); optuna's own cache where its shape is not the expected one."""
    global _SYNCED
    from optuna.storages._cached_storage import _CachedStorage

    if not sync_available():
        return _CachedStorage(rdb)
    if _SYNCED is None:
        _SYNCED = type("SyncedCache", (_CachedStorage,), {
            "_read_trials_from_remote_storage": _synced_read, "add_own_trial": _add_own_trial,
            "__reduce__": lambda self: (synced_cache, (self._backend,)), "__module__": __name__,
            "__doc__": "optuna's ``_CachedStorage`` that skips re-reading the trials this process finished."})
    return _SYNCED(rdb)


def _add_own_trial(self: Any, study_id: int, frozen: Any) -> None:
    """Put a copy of a trial this process just wrote (and committed) in the cache."""
    from optuna.storages._cached_storage import _StudyInfo

    with self._lock:
        if study_id not in self._studies:
            self._studies[study_id] = _StudyInfo()
        self._add_trials_to_cache(study_id, [copy.deepcopy(frozen)])


def _synced_read(self: Any, study_id: int) -> None:
    """optuna's ``_read_trials_from_remote_storage`` with one cheap statement first: the trials it
    would re-read that this process finished itself are taken from the cache, not loaded again."""
    from optuna.storages._cached_storage import _StudyInfo

    with self._lock:
        if study_id not in self._studies:
            self._studies[study_id] = _StudyInfo()
        study = self._studies[study_id]
        st = _statements(self._backend)
        # outside a transaction: one round trip to a server (no BEGIN, no ROLLBACK)
        with self._backend.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            rows = conn.execute(st.probe, {"b_study": study_id, "b_last": study.last_finished_trial_id,
                                           "b_ids": sorted(study.unfinished_trial_ids)}).all()
        trials, unknown = [], set()
        for trial_id, state in rows:
            known = self._trial_id_to_study_id_and_number.get(trial_id)
            cached = study.trials.get(known[1]) if known is not None and known[0] == study_id else None
            if cached is not None and cached.state.is_finished() and cached.state == state:
                trials.append(cached)
            else:
                unknown.add(trial_id)
        if unknown:
            trials += self._backend._get_trials(study_id, states=None, included_trial_ids=unknown,
                                                trial_id_greater_than=max(unknown))
        if not trials:
            return
        self._add_trials_to_cache(study_id, trials)
        for trial in trials:  # optuna's own bookkeeping
            if not trial.state.is_finished():
                study.unfinished_trial_ids.add(trial._trial_id)
                continue
            study.last_finished_trial_id = max(study.last_finished_trial_id, trial._trial_id)
            study.unfinished_trial_ids.discard(trial._trial_id)
