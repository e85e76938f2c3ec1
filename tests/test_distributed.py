"""Shared searches: several worker processes on one optuna study (SQLite, journal
file, PostgreSQL), a worker killed mid-trial, the command line."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
import uuid
from collections import Counter
from pathlib import Path

import pytest
from studies import check_study

import metafx
import metafx.plugin
from metafx.default_plugins.svm_evaluator import CVLinearSVM
from metafx.distributed import ProblemSpec, create_study, run_worker, study_spec
from metafx.storage.study import OWNER_KEY, SURPLUS_KEY

REPO = Path(__file__).resolve().parents[1]
TESTS = Path(__file__).resolve().parent
PG_ENV = "METAFX_TEST_POSTGRES_URL"

# One worker: registers the slow evaluator, waits at a barrier until every
# worker is ready (so they really overlap), runs, prints the trials it evaluated.
WORKER = textwrap.dedent("""
    import json, os, sys, time
    sys.path.insert(0, {tests!r})
    import metafx, _slow_plugin
    metafx.plugin.register_plugin(_slow_plugin)
    from metafx.distributed import run_worker

    url, study, barrier, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    open(os.path.join(barrier, str(os.getpid())), "w").close()
    while len(os.listdir(barrier)) < n:
        time.sleep(0.02)
    mine = []
    def cb(state, rec):
        mine.append(rec.step)
        print("STEP", rec.step, flush=True)
    res = run_worker(url, study, progress=False, callbacks=[cb])
    print("RESULT", json.dumps({{"pid": os.getpid(), "mine": mine, "best": res.best_quality,
                                 "steps": [t.step for t in res.trajectory]}}), flush=True)
""").format(tests=str(TESTS))


@pytest.fixture
def slow_plugin():
    sys.path.insert(0, str(TESTS))
    import _slow_plugin

    metafx.plugin.register_plugin(_slow_plugin)
    yield _slow_plugin
    metafx.plugin.unregister_plugin(_slow_plugin)


def _spec(steps: int = 12, **kw) -> ProblemSpec:
    return ProblemSpec(data="digits", n_train=400, n_test=0, split_seed=1, budget=50, steps=steps, seed=3,
                       evaluator="slow-cv-linear-svm", engine_params={"sampler": "tpe",
                                                                      "sampler_params": {"n_startup_trials": 4}},
                       **kw)


def _start_workers(tmp_path: Path, url: str, study: str, n: int, slow: float):
    script = tmp_path / "worker.py"
    script.write_text(WORKER)
    barrier = tmp_path / f"barrier-{uuid.uuid4().hex[:6]}"
    barrier.mkdir()
    env = {**os.environ, "METAFX_TEST_SLOW": str(slow), "PYTHONPATH": str(REPO)}
    return [subprocess.Popen([sys.executable, str(script), url, study, str(barrier), str(n)], stdout=subprocess.PIPE,
                             text=True, env=env, cwd=str(tmp_path)) for _ in range(n)]


def _finish(procs) -> list[dict]:
    out = []
    for p in procs:
        text, _ = p.communicate(timeout=300)
        assert p.returncode == 0, text
        line = [s for s in text.splitlines() if s.startswith("RESULT ")][-1]
        out.append(json.loads(line[len("RESULT "):]))
    return out


def _check_shared_study(url: str, study: str, steps: int, reports: list[dict]) -> None:
    import optuna

    from metafx.storage.backends import open_storage

    trials = optuna.load_study(study_name=study, storage=open_storage(url)).get_trials(deepcopy=False)
    # none lost, none duplicated: steps 1..steps, each complete once; two workers that ask at the same moment
    # can both create a trial when one is missing: the one after `steps` live ones is closed unevaluated
    # (FAIL, marked surplus), as the engine intends; no other trial failed
    complete = check_study(trials, steps)
    assert all(t.user_attrs.get(SURPLUS_KEY) for t in trials if t.state.name == "FAIL")
    mine = [set(r["mine"]) for r in reports]
    assert all(mine), f"a worker contributed no trial: {[r['mine'] for r in reports]}"
    assert set.union(*mine) == set(range(1, steps + 1))
    assert sum(len(r["mine"]) for r in reports) == steps  # no trial evaluated twice
    owners = Counter(t.user_attrs[OWNER_KEY].split("|")[1] for t in complete.values())
    assert set(owners) == {str(r["pid"]) for r in reports}
    # every worker returns the same, complete result
    assert all(r["steps"] == list(range(1, steps + 1)) and r["best"] == reports[0]["best"] for r in reports)


def _two_workers(tmp_path: Path, url: str, slow_plugin) -> None:
    study = f"two-workers-{uuid.uuid4().hex[:8]}"
    steps = 12
    create_study(url, study, _spec(steps))
    reports = _finish(_start_workers(tmp_path, url, study, 2, slow=0.3))
    _check_shared_study(url, study, steps, reports)
    # the coordinator's view (metafx search --n-workers 0) is the same result
    from metafx.distributed import wait_for_study

    res = wait_for_study(url, study, progress=False, timeout=5)
    assert res.best_quality == reports[0]["best"] and len(res.trajectory) == steps
    if url.startswith("postgresql"):
        import optuna

        from metafx.storage.backends import open_storage

        optuna.delete_study(study_name=study, storage=open_storage(url))


def test_two_workers_sqlite(tmp_path, slow_plugin):
    _two_workers(tmp_path, f"sqlite:///{tmp_path}/shared.db", slow_plugin)


def test_two_workers_postgresql(tmp_path, slow_plugin):
    url = os.environ.get(PG_ENV)
    if not url:
        pytest.skip(f"no PostgreSQL server configured: set {PG_ENV} (e.g. `source .ci/postgres.sh`, as .ci/run does)")
    _two_workers(tmp_path, url, slow_plugin)


def _wait_for_running_trial(url: str, study: str, pid: int) -> None:
    """Until process ``pid`` evaluates a trial of ``study`` (it owns a running trial with its parameters)."""
    import optuna

    from metafx.storage.backends import open_storage

    st = optuna.load_study(study_name=study, storage=open_storage(url))
    # every parameter of a point: as many as a complete trial has (the process finished some before)
    done = st.get_trials(deepcopy=False, states=(optuna.trial.TrialState.COMPLETE,))
    whole = max((len(t.params) for t in done), default=1)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        for t in st.get_trials(deepcopy=False, states=(optuna.trial.TrialState.RUNNING,)):
            if t.user_attrs.get(OWNER_KEY, "||").split("|")[1] == str(pid) and len(t.params) >= whole:
                return
        time.sleep(0.02)
    raise AssertionError(f"process {pid} started no trial")


def test_killed_worker_trial_is_taken_over(tmp_path, slow_plugin):
    """Worker A is killed with SIGKILL while evaluating; worker B finishes the study, retrying A's
    unfinished trial at its step and point: nothing lost or duplicated."""
    url = f"sqlite:///{tmp_path}/shared.db"
    study, steps = "takeover", 8
    create_study(url, study, _spec(steps))
    a, b = _start_workers(tmp_path, url, study, 2, slow=0.4)
    seen = 0
    for line in a.stdout:
        if line.startswith("STEP"):
            seen += 1
            if seen == 2:  # A has finished two trials: kill it while it evaluates its third
                _wait_for_running_trial(url, study, a.pid)
                os.kill(a.pid, signal.SIGKILL)
                break
    a.stdout.close()
    assert a.wait(timeout=60) == -signal.SIGKILL
    [report_b] = _finish([b])
    import optuna

    from metafx.storage.backends import open_storage

    trials = optuna.load_study(study_name=study, storage=open_storage(url)).get_trials(deepcopy=False)
    complete = check_study(trials, steps)  # A's third trial failed and was retried at its point
    owners = Counter(t.user_attrs[OWNER_KEY].split("|")[1] for t in complete.values())
    assert owners[str(a.pid)] == 2 and owners[str(report_b["pid"])] == steps - 2  # B retried A's third trial
    failed = [t for t in trials if t.state.name == "FAIL" and not t.user_attrs.get(SURPLUS_KEY)]
    assert [t.user_attrs[OWNER_KEY].split("|")[1] for t in failed] == [str(a.pid)]
    assert report_b["steps"] == list(range(1, steps + 1))


def test_cli_coordinator_and_worker(tmp_path):
    """`metafx search --n-workers 0` creates the study and waits; `metafx worker` does the work."""
    url = f"journal:///{tmp_path}/cli.log"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    out = tmp_path / "res.json"
    coord = subprocess.Popen([sys.executable, "-m", "metafx.cli", "search", "--data", "digits", "--n-train", "300",
                              "--n-test", "200", "--budget", "40", "--steps", "6", "--engine", "optuna",
                              "--sampler", "random", "--storage", url, "--study", "cli", "--n-workers", "0",
                              "--out", str(out), "--no-progress"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    # the worker joins once the study exists (it fails clearly before that)
    deadline = time.monotonic() + 120
    while True:
        w = subprocess.run([sys.executable, "-m", "metafx.cli", "worker", "--storage", url, "--study", "cli",
                            "--no-progress"], capture_output=True, text=True, env=env)
        if w.returncode == 0 or time.monotonic() > deadline:
            break
        assert "there is no study 'cli'" in w.stderr or "records no problem" in w.stderr, w.stderr
        time.sleep(0.5)
    assert w.returncode == 0, w.stderr
    assert "study 'cli' finished: 6 trials" in w.stdout
    _stdout, stderr = coord.communicate(timeout=120)
    assert coord.returncode == 0, stderr
    res = metafx.SearchResult.from_json(out)
    assert res.engine == "optuna" and len(res.trajectory) == 6 and res.holdout_error is not None
    assert res.metadata["study_name"] == "cli"
    spec = study_spec(url, "cli")
    assert spec.n_train == 300 and spec.budget == 40 and spec.engine_params == {"sampler": "random"}


def test_problem_spec_round_trip_and_errors(tmp_path):
    spec = _spec(5, fixed={"shiftInvLen": 1})
    assert ProblemSpec.from_dict(json.loads(json.dumps(spec.to_dict()))) == spec
    with pytest.raises(metafx.ValidationError, match=r"unknown problem-spec fields \['dataset'\]"):
        ProblemSpec.from_dict({"dataset": "digits"})
    url = f"sqlite:///{tmp_path}/s.db"
    with pytest.raises(metafx.ValidationError, match="steps=0 must be an integer >= 1"):
        create_study(url, "s", ProblemSpec(data="digits", n_train=100, steps=0))
    with pytest.raises(metafx.ValidationError, match=r"budget=0.5 is below the cheapest feature's cost"):
        create_study(url, "s", ProblemSpec(data="digits", n_train=100, budget=0.5))
    with pytest.raises(metafx.StorageError, match="there is no study 'nope'"):
        run_worker(url, "nope")
    # a study made by metafx.search (no problem spec) cannot be joined by workers
    X, y = metafx.load_dataset("digits")
    metafx.search(X[:200], y[:200], budget=20, steps=1, engine="optuna", storage=url, study_name="api",
                  progress=False)
    with pytest.raises(metafx.StorageError, match="records no problem for workers"):
        run_worker(url, "api")
    with pytest.raises(metafx.StorageError, match=r"postgresql://u:\*\*\*@127.0.0.1:1/db"):
        run_worker("postgresql://u:topsecret@127.0.0.1:1/db", "x")


def _proc_table() -> dict[int, tuple[int, str, str]]:
    """pid -> (parent pid, state, start time) of every process (Linux /proc)."""
    out = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                text = Path(f"/proc/{d}/stat").read_text()
            except OSError:
                continue
            rest = text[text.rindex(")") + 2:].split()
            out[int(d)] = (int(rest[1]), rest[0], rest[19])
    return out


def _descendants(root: int) -> dict[int, str]:
    table = _proc_table()
    found: dict[int, str] = {}
    todo = [root]
    while todo:
        parent = todo.pop()
        for pid, (ppid, _, start) in table.items():
            if ppid == parent and pid not in found:
                found[pid] = start
                todo.append(pid)
    return found


def _alive(procs: dict[int, str]) -> list[int]:
    table = _proc_table()
    return [pid for pid, start in procs.items() if pid in table and table[pid][1] not in "ZX"
            and table[pid][2] == start]


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="needs Linux /proc to find a process's children")
def test_killed_worker_leaves_no_processes(tmp_path):
    """SIGKILL of `metafx worker --n-jobs 2`: its pool processes and resource trackers end too."""
    url = f"sqlite:///{tmp_path}/orphans.db"
    create_study(url, "orphans", ProblemSpec(data="digits", n_train=400, n_test=0, budget=100, steps=500, seed=0,
                                             engine_params={"sampler": "random"}))
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    w = subprocess.Popen([sys.executable, "-m", "metafx.cli", "worker", "--storage", url, "--study", "orphans",
                          "--n-jobs", "2", "--no-progress"], env=env, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    kids: dict[int, str] = {}
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and w.poll() is None:
            kids = _descendants(w.pid)
            if len(kids) >= 3:  # two pool workers and a resource tracker
                break
            time.sleep(0.2)
        assert len(kids) >= 3 and w.poll() is None, f"the worker started no pool: {kids}, exit {w.poll()}"
        time.sleep(0.5)
        kids.update(_descendants(w.pid))
        os.kill(w.pid, signal.SIGKILL)
        assert w.wait(timeout=30) == -signal.SIGKILL
        deadline = time.monotonic() + 15
        while _alive(kids) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not _alive(kids), f"processes left behind by the killed worker: {_alive(kids)}"
    finally:
        if w.poll() is None:
            w.kill()
        for pid in _alive(kids):
            os.kill(pid, signal.SIGKILL)


# ----------------------------------------------------------------------------- PostgreSQL: issue-level checks
def _pg_url() -> str:
    url = os.environ.get(PG_ENV)
    if not url:
        pytest.skip(f"no PostgreSQL server configured: set {PG_ENV} (e.g. `source .ci/postgres.sh`, as .ci/run does)")
    return url


class _Constant(CVLinearSVM):
    """Every set scores the same: every trial ties with the first."""

    name = "constant-quality"

    def evaluate(self, X, y, *, random_state=None):
        return 0.5


def test_credentials_never_shown(tmp_path):
    from metafx.distributed import worker_command
    from metafx.storage.backends import mask_url, split_password

    assert mask_url("postgresql://u:Se@cret@h/db") == "postgresql://u:***@h/db"
    assert mask_url("postgresql://u@h:5/db?password=PW&sslmode=require") == \
        "postgresql://u@h:5/db?password=***&sslmode=require"
    assert split_password("postgresql://u@h/db?password=PW&sslmode=require") == \
        ("postgresql://u@h/db?sslmode=require", "PW")
    # a password given as a query parameter is masked in errors
    with pytest.raises(metafx.StorageError) as err:
        run_worker("postgresql://u@127.0.0.1:1/db?password=topsecret", "x")
    assert "topsecret" not in str(err.value) and "password=***" in str(err.value)
    # workers started by --n-workers get the password by environment, not on their command line
    cmd, env = worker_command("postgresql://u:topsecret@h/db", "s", 2)
    assert not any("topsecret" in c for c in cmd) and env["METAFX_STORAGE_PASSWORD"] == "topsecret"
    assert cmd[cmd.index("--storage") + 1] == "postgresql://u@h/db"


def test_postgresql_password_as_query_parameter_and_environment(tmp_path, monkeypatch):
    """The password of a query parameter is nowhere in the result; a URL without one takes
    METAFX_STORAGE_PASSWORD; plain optuna opens the same URL (SQLAlchemy's default driver)."""
    import optuna
    from sqlalchemy.engine import make_url

    url = _pg_url()
    u = make_url(url)
    password = u.password
    query_url = u.set(password=None, query={"password": password}).render_as_string(hide_password=False)
    X, y = metafx.load_dataset("digits")
    study = f"q-{uuid.uuid4().hex[:8]}"
    res = metafx.search(X[:200], y[:200], budget=20, steps=2, engine="optuna", storage=query_url,
                        study_name=study, engine_params={"sampler": "random"}, progress=False)
    res.to_json(tmp_path / "r.json")
    text = (tmp_path / "r.json").read_text()
    assert password not in text and "password=***" in res.metadata["storage"]
    monkeypatch.setenv("METAFX_STORAGE_PASSWORD", password)
    bare = u.set(password=None).render_as_string(hide_password=False)
    again = metafx.search(X[:200], y[:200], budget=20, steps=2, engine="optuna", storage=bare,
                          study_name=study, engine_params={"sampler": "random"}, progress=False)
    assert again.metadata.get("resumed_steps", 0) == 0 and [t.quality for t in again.trajectory] == \
        [t.quality for t in res.trajectory]
    plain = optuna.load_study(study_name=study, storage=url)  # postgresql://, no driver named
    assert len(plain.trials) == 2
    optuna.delete_study(study_name=study, storage=url)


def test_ties_follow_optuna_best_trial_postgresql():
    """All trials score the same: metafx's best step is optuna's best_trial (the first)."""
    import optuna

    url = _pg_url()
    X, y = metafx.load_dataset("digits")
    study = f"ties-{uuid.uuid4().hex[:8]}"
    res = metafx.search(X[:200], y[:200], budget=20, steps=4, engine="optuna", evaluator=_Constant(),
                        storage=url, study_name=study, engine_params={"sampler": "random"}, progress=False)
    s = optuna.load_study(study_name=study, storage=url)
    values = [t.value for t in s.trials]
    assert values == [0.5] * 4
    assert res.best_step == 1 and res.metadata["best_trial"] == 0 and res.best_point == res.trajectory[0].point
    # optuna's definition (in-memory and journal storages: the first of equal values) ...
    mem = optuna.create_study(direction="maximize")
    mem.add_trials(s.trials)
    assert mem.best_trial.number == 0
    # ... while its RDB storage orders by value only, so PostgreSQL may name any of the tied trials
    assert s.best_trial.value == res.best_quality
    optuna.delete_study(study_name=study, storage=url)


def test_storage_options_are_checked_before_the_search():
    X, y = metafx.load_dataset("digits")
    kw = dict(budget=20, steps=2, engine="optuna", progress=False)
    with pytest.raises(metafx.ValidationError, match=r"^storage_options: heartbeat=10 must be below stale_after=5"):
        metafx.search(X[:100], y[:100], storage_options={"heartbeat": 10, "stale_after": 5}, **kw)
    with pytest.raises(metafx.ValidationError, match=r"^storage_options: heartbeat=0 must be a finite number > 0$"):
        metafx.search(X[:100], y[:100], storage_options={"heartbeat": 0}, **kw)
    with pytest.raises(metafx.ValidationError, match=r"^storage_options: 'grace' is not an option; the options are"):
        metafx.search(X[:100], y[:100], storage_options={"grace": 1}, **kw)
    with pytest.raises(metafx.ValidationError, match=r"^storage_options=\{'heartbeat': 1\} set a study's heartbeat; "
                                                     r"engine 'mufasa' keeps no study"):
        metafx.search(X[:100], y[:100], budget=20, steps=2, engine="mufasa", storage_options={"heartbeat": 1},
                      progress=False)
    with pytest.raises(metafx.ValidationError, match=r"^storage_options: heartbeat=700.0 must be below "
                                                     r"stale_after=600.0"):  # against the default stale_after
        metafx.search(X[:100], y[:100], storage_options={"heartbeat": 700}, **kw)


def test_a_study_records_its_liveness_for_the_workers_that_join(tmp_path):
    """The study's creator records heartbeat and stale_after; a worker that gives none uses them; a process that
    gives its own records them for the workers after it."""
    from metafx.storage.study import LIVENESS_KEY, SIGNATURE_KEY, StudyStore

    optuna = pytest.importorskip("optuna")
    url = f"sqlite:///{tmp_path}/live.db"
    X, y = metafx.load_dataset("digits")
    metafx.search(X[:200], y[:200], budget=20, steps=2, engine="optuna", storage=url, study_name="live",
                  storage_options={"heartbeat": 2, "stale_after": 7}, progress=False)
    space = metafx.plugin.make_component("family", "pixel-and").space()
    study = optuna.load_study(study_name="live", storage=url)
    assert study.user_attrs[LIVENESS_KEY] == {"heartbeat": 2.0, "stale_after": 7.0}

    def joined(**kw):
        store = StudyStore(url, "live", 2, space, create=False, **kw)
        try:
            store.open(study.user_attrs[SIGNATURE_KEY])
            return store.heartbeat, store.stale_after
        finally:
            store.close(None)

    assert joined() == (2.0, 7.0)
    assert joined(options={"stale_after": 60}) == (2.0, 60.0)
    assert optuna.load_study(study_name="live", storage=url).user_attrs[LIVENESS_KEY] == {"heartbeat": 2.0,
                                                                                         "stale_after": 60.0}
    with pytest.raises(metafx.ValidationError, match=r"^storage_options: heartbeat=90.0 must be below "
                                                     r"stale_after=60.0"):
        joined(options={"heartbeat": 90})
    # a search without options on a study made before the record existed gets the defaults, and records them
    optuna.load_study(study_name="live", storage=url).set_user_attr(LIVENESS_KEY, None)
    assert joined() == (30.0, 600.0)


def test_trial_attributes_for_optuna_tools(tmp_path):
    """optuna's own API (as optuna-dashboard and optuna.visualization use it) reads each trial's
    point, cost, number of features and quality."""
    import optuna

    url = f"sqlite:///{tmp_path}/attrs.db"
    X, y = metafx.load_dataset("digits")
    res = metafx.search(X[:200], y[:200], budget=30, steps=3, engine="optuna", storage=url, study_name="a",
                        fixed={"shiftInvLen": 1}, engine_params={"sampler": "random"}, progress=False)
    study = optuna.load_study(study_name="a", storage=url)  # plain optuna, plain URL
    for t, rec in zip(study.trials, res.trajectory, strict=True):
        assert t.user_attrs["point"] == rec.point and t.user_attrs["point"]["shiftInvLen"] == 1
        assert t.user_attrs["cost"] == pytest.approx(rec.cost) and t.user_attrs["n_features"] == rec.n_features
        assert t.user_attrs["quality"] == t.value == pytest.approx(rec.quality)
        assert t.params == {k: v for k, v in rec.point.items() if k != "shiftInvLen"}
    df = study.trials_dataframe()
    assert {"user_attrs_cost", "user_attrs_n_features", "user_attrs_quality", "value"} <= set(df.columns)
    import warnings

    import matplotlib.pyplot as plt

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        ax = optuna.visualization.matplotlib.plot_optimization_history(study)
    assert len(ax.collections[0].get_offsets()) == 3
    plt.close("all")


CLI_WORKER = textwrap.dedent("""
    import sys
    sys.path.insert(0, {tests!r})
    import metafx, _slow_plugin
    metafx.plugin.register_plugin(_slow_plugin)
    from metafx.cli import main
    sys.exit(main(["worker", "--storage", sys.argv[1], "--study", sys.argv[2], "--no-progress"]))
""").format(tests=str(TESTS))


def test_postgresql_outage(tmp_path, slow_plugin):
    """The database restarts under a running `metafx worker`: it goes on (one log line); the
    database stays away: the worker ends with exit 2 and one line, no traceback."""
    import optuna

    _pg_url()
    env = {**os.environ, "METAFX_PG_PORT": "55439", "METAFX_PG_DATA": "/tmp/metafx-pg-outage"}
    server = REPO / ".ci" / "postgres.sh"
    r = subprocess.run(["bash", str(server)], env=env, capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        pytest.skip(f"cannot start a second PostgreSQL server for the outage test: {r.stderr[-300:]}")
    url = r.stdout.strip().splitlines()[-1]

    def pg(action: str) -> None:
        subprocess.run(["bash", str(server), action], env=env, check=True, timeout=120, capture_output=True)

    def complete() -> int:
        st = optuna.load_study(study_name=study, storage=url)
        return sum(t.state.name == "COMPLETE" for t in st.get_trials(deepcopy=False))

    def wait_for(n: int) -> None:
        deadline = time.monotonic() + 120
        while complete() < n:
            assert w.poll() is None and time.monotonic() < deadline, w.communicate()
            time.sleep(0.2)

    study = f"outage-{uuid.uuid4().hex[:8]}"
    create_study(url, study, _spec(60))
    script = tmp_path / "cli_worker.py"
    script.write_text(CLI_WORKER)
    w = subprocess.Popen([sys.executable, str(script), url, study], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, env={**env, "PYTHONPATH": str(REPO), "METAFX_TEST_SLOW": "0.3",
                                         "METAFX_STORAGE_RETRY_SECONDS": "8"})
    try:
        wait_for(1)
        pg("stop")
        time.sleep(1)
        pg("start")
        n = complete()
        wait_for(n + 2)  # the worker went on after the restart
        pg("stop")  # and now the database stays away
        _out, err = w.communicate(timeout=120)
    finally:
        if w.poll() is None:
            w.kill()
        pg("start")
    try:
        assert w.returncode == 2, err
        lines = err.strip().splitlines()
        assert "Traceback" not in err and len(lines) <= 4, err
        assert sum("lost the connection to storage" in s for s in lines) == 2, err
        assert lines[-1].startswith("metafx: error: storage ") and "unreachable for 8 s" in lines[-1], err
        assert "metafx-ci" not in err
        trials = optuna.load_study(study_name=study, storage=url).get_trials(deepcopy=False)
        numbers = [t.number for t in trials]
        assert numbers == list(range(len(numbers))) and all(t.state.name in ("COMPLETE", "RUNNING") for t in trials)
    finally:
        pg("stop")  # the test's own server leaves with it


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="needs Linux /proc to read command lines")
def test_n_workers_keeps_password_off_command_lines():
    """`--n-workers 2` on PostgreSQL: the started worker's command line has no password (ps shows it to
    every local user); the password reaches it in METAFX_STORAGE_PASSWORD (tested above)."""
    import threading

    import optuna
    from sqlalchemy.engine import make_url

    from metafx.distributed import run_shared_search

    url = _pg_url()
    password = make_url(url).password
    study = f"cmdline-{uuid.uuid4().hex[:8]}"
    seen: list[str] = []
    done = threading.Event()

    def watch():
        while not done.is_set():
            for pid in _descendants(os.getpid()):
                with contextlib.suppress(OSError):
                    cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
                    if "metafx.cli worker" in cmd and cmd not in seen:
                        seen.append(cmd)
            time.sleep(0.05)

    t = threading.Thread(target=watch, daemon=True)
    t.start()
    try:
        res = run_shared_search(ProblemSpec(data="digits", n_train=200, budget=20, steps=3,
                                            engine_params={"sampler": "random"}), url, study, n_workers=2,
                                progress=False)
    finally:
        done.set()
        t.join()
    assert len(res.trajectory) == 3
    # the password in no argument (the interpreter's path may contain the same letters: CI's venv is metafx-ci-venv)
    args = [c.split() for c in seen]
    assert seen and all("--storage" in a and not any(password in x for x in a[1:]) for a in args), seen
    optuna.delete_study(study_name=study, storage=url)


def test_a_race_for_the_last_trials_closes_the_surplus_one():
    """Two workers that read the study before each other's new trial both create one; the one
    numbered ``steps`` or later finds ``steps`` live trials before it and is closed unevaluated."""
    import optuna

    from metafx.storage.study import StudyStore

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    storage = optuna.storages.InMemoryStorage()
    a, b = StudyStore(storage, "s", 2, None), StudyStore(storage, "s", 2, None)
    a.open({"search": 1})
    b.open({"search": 1})
    b.me = "another-worker"  # two workers in one process: b does not own a's trials
    first, second = a.claim(), a.claim()
    assert (first.step, second.step) == (1, 2)
    # worker b read the trials when only trial 0 existed
    real, calls = b._trials, []

    def stale_then_real():
        calls.append(1)
        got = real()
        return [t for t in got if t.number == 0] if len(calls) == 1 else got

    b._trials = stale_then_real
    assert b.claim() is None     # it created trial 2, found it surplus
    b._trials = real
    study = optuna.load_study(study_name="s", storage=storage)
    trials = study.get_trials(deepcopy=False)
    assert [(t.number, t.state.name) for t in trials] == [(0, "RUNNING"), (1, "RUNNING"), (2, "FAIL")]
    assert trials[2].user_attrs.get(SURPLUS_KEY) is True and not trials[1].user_attrs.get(SURPLUS_KEY)
    # with one trial missing (trial 1 failed), the late trial is needed and kept
    study.tell(1, state=optuna.trial.TrialState.FAIL)
    late = b.claim()
    assert late.step == 4 and late.step - 1 >= 2
