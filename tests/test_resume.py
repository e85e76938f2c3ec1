"""Killed searches resume with nothing lost: a real subprocess is killed with
SIGKILL in the middle of a step and started again with the same arguments; the
final result equals that of an uninterrupted run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from studies import check_study

import metafx
import metafx.plugin
from metafx.storage.study import RETRY_KEY

REPO = Path(__file__).resolve().parents[1]

# A search on 500 digits.  The evaluator prints "EVAL" when a step's scoring
# starts and (when METAFX_TEST_SLOW is set) then sleeps, so the parent can kill
# the process while a step is in flight.
CHILD = textwrap.dedent("""
    import os, sys, time
    import metafx
    from metafx.default_plugins.svm_evaluator import CVLinearSVM

    class Announcing(CVLinearSVM):
        name = "announcing-svm"

        def evaluate(self, X, y, *, random_state=None):
            print("EVAL", flush=True)
            time.sleep(float(os.environ.get("METAFX_TEST_SLOW", "0")))
            return super().evaluate(X, y, random_state=random_state)

    engine, storage, out, steps = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    params = {"sampler_params": {"n_startup_trials": 3}} if engine == "optuna" else {}
    X, y = metafx.load_dataset("digits")
    res = metafx.search(X[:500], y[:500], budget=60, steps=steps, engine=engine, engine_params=params,
                        evaluator=Announcing(), seed=11, progress=False,
                        storage=None if storage == "-" else storage,
                        callbacks=[lambda s, r: print("STEP", r.step, flush=True)])
    res.to_json(out)
    print("DONE", flush=True)
""")


def _run(script: Path, args: list[str], *, slow: float = 0.0, kill_at_eval: int | None = None):
    """Run the child; with ``kill_at_eval=k``, SIGKILL it during its k-th evaluation."""
    env = {**os.environ, "METAFX_TEST_SLOW": str(slow), "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen([sys.executable, str(script), *args], stdout=subprocess.PIPE, text=True, env=env,
                            cwd=str(REPO))
    lines: list[str] = []
    evals = 0
    deadline = time.monotonic() + 240
    for line in proc.stdout:
        lines.append(line.strip())
        if line.startswith("EVAL"):
            evals += 1
            if kill_at_eval is not None and evals == kill_at_eval:
                os.kill(proc.pid, signal.SIGKILL)
                break
        assert time.monotonic() < deadline, "child took too long"
    proc.stdout.close()
    rc = proc.wait(timeout=60)
    if kill_at_eval is not None:
        assert rc == -signal.SIGKILL, (rc, lines)
    else:
        assert rc == 0 and lines[-1] == "DONE", (rc, lines)
    return lines


def _same(a: metafx.SearchResult, b: metafx.SearchResult) -> None:
    key = lambda r: [(t.step, t.point, t.quality, t.n_features, t.cost, t.accepted, t.best_quality)  # noqa: E731
                     for t in r.trajectory]
    assert key(a) == key(b)
    assert a.features == b.features and a.best_point == b.best_point and a.best_step == b.best_step
    assert a.best_quality == b.best_quality and a.total_cost == b.total_cost


@pytest.mark.parametrize("engine,storage", [
    ("mufasa", "journal.jsonl"),
    ("optuna", "sqlite:///{tmp}/study.db"),
    ("optuna", "{tmp}/study.log"),
])
def test_sigkill_mid_step_then_resume_equals_uninterrupted(tmp_path, engine, storage):
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    steps = 9
    storage = storage.format(tmp=tmp_path)
    if engine != "optuna":
        storage = str(tmp_path / storage)
    ref_out, out = tmp_path / "ref.json", tmp_path / "out.json"

    # the uninterrupted reference, in this process (same evaluator name and scores, no storage)
    from metafx.default_plugins.svm_evaluator import CVLinearSVM

    class Announcing(CVLinearSVM):
        name = "announcing-svm"

    X, y = metafx.load_dataset("digits")
    params = {"sampler_params": {"n_startup_trials": 3}} if engine == "optuna" else {}
    metafx.search(X[:500], y[:500], budget=60, steps=steps, engine=engine, engine_params=params,
                  evaluator=Announcing(), seed=11, progress=False).to_json(ref_out)
    # killed during the 5th evaluation: 4 steps are recorded, the 5th is in flight
    first = _run(script, [engine, storage, str(out), str(steps)], slow=0.25, kill_at_eval=5)
    assert [s for s in first if s.startswith("STEP")] == [f"STEP {j}" for j in range(1, 5)]
    assert not out.exists()
    if engine == "optuna":
        import optuna

        from metafx.storage.backends import open_storage

        study = optuna.load_study(study_name=optuna.get_all_study_names(open_storage(storage))[0],
                                  storage=open_storage(storage))
        states = [t.state.name for t in study.get_trials(deepcopy=False)]
        assert states == ["COMPLETE"] * 4 + ["RUNNING"]  # the killed trial is left running
    second = _run(script, [engine, storage, str(out), str(steps)])
    steps_seen = [int(s.split()[1]) for s in second if s.startswith("STEP")]
    n_evals = sum(s == "EVAL" for s in second)
    assert n_evals == steps - 4  # only the unfinished steps are evaluated again
    assert steps_seen[-(steps - 4):] == list(range(5, steps + 1))

    ref = metafx.SearchResult.from_json(ref_out)
    res = metafx.SearchResult.from_json(out)
    _same(res, ref)
    if engine == "optuna":
        study = optuna.load_study(study_name=res.metadata["study_name"], storage=open_storage(storage))
        trials = study.get_trials(deepcopy=False)
        complete = check_study(trials, steps)  # the killed trial was retried at its step and point, not lost
        assert [t.number for t in trials if t.state.name == "FAIL"] == [4] and complete[5].user_attrs[RETRY_KEY] == 4
    else:
        assert res.metadata["resumed_steps"] == 4


def test_optuna_resume_in_process_and_extend(digits, tmp_path):
    X, y = digits
    X, y = X[:400], y[:400]
    kw = dict(budget=50, engine="optuna", seed=3, progress=False, engine_params={"sampler": "qmc"})
    full = metafx.search(X, y, steps=10, **kw)
    url = f"sqlite:///{tmp_path}/s.db"
    part = metafx.search(X, y, steps=10, storage=url, callbacks=[lambda s, r: r.step < 4], **kw)
    assert len(part.trajectory) == 4
    seen = []
    res = metafx.search(X, y, steps=10, storage=url, callbacks=[lambda s, r: seen.append(r.step)], **kw)
    assert seen == list(range(5, 11))
    _same(res, full)
    # a finished search is extended by asking for more steps, as if it had been asked for them at once
    longer = metafx.search(X, y, steps=12, storage=url, **kw)
    _same(longer, metafx.search(X, y, steps=12, **kw))


def test_mufasa_candidates_resume(digits, tmp_path):
    X, y = digits
    X, y = X[:400], y[:400]
    kw = dict(budget=40, steps=6, seed=2, engine="mufasa", progress=False, engine_params={"n_candidates": 3})
    full = metafx.search(X, y, **kw)
    j = tmp_path / "m.jsonl"
    metafx.search(X, y, storage=str(j), callbacks=[lambda s, r: r.step < 3], **kw)
    res = metafx.search(X, y, storage=str(j), n_jobs=2, **kw)
    _same(res, full)
    assert res.metadata["resumed_steps"] == 3


def test_random_engine_resume(digits, tmp_path):
    X, y = digits
    X, y = X[:400], y[:400]
    kw = dict(budget=40, steps=6, seed=4, engine="random", progress=False)
    full = metafx.search(X, y, **kw)
    j = tmp_path / "r.jsonl"
    metafx.search(X, y, storage=str(j), callbacks=[lambda s, r: r.step < 4], **kw)
    res = metafx.search(X, y, storage=str(j), **kw)
    _same(res, full)
    assert res.metadata["resumed_steps"] == 4


def test_trial_of_a_dead_process_is_retried(digits, tmp_path):
    """A RUNNING trial owned by a process that no longer exists fails and its step is queued again with
    its point: the result is that of an uninterrupted search (same point, same draw)."""
    import optuna

    from metafx.default_plugins import optuna_engine as oe
    from metafx.storage.backends import open_storage
    from metafx.storage.study import OWNER_KEY, distributions, me

    X, y = digits
    X, y = X[:400], y[:400]
    kw = dict(budget=50, steps=5, engine="optuna", seed=7, progress=False, engine_params={"sampler": "random"})
    full = metafx.search(X, y, **kw)
    url = f"sqlite:///{tmp_path}/s.db"
    metafx.search(X, y, storage=url, study_name="s", callbacks=[lambda s, r: r.step < 2], **kw)
    # simulate a process killed after asking for trial 2 at the point step 3 has in the full search
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    study = optuna.load_study(study_name="s", storage=open_storage(url), sampler=oe._wrap_sampler(
        oe._sampler_factory("random", 7, {}), 7))  # the engine's proposal for step 3 (trial 2)
    trial = study.ask(distributions(_problem(X, y).space))
    trial.set_user_attr(OWNER_KEY, f"{me().split('|')[0]}|{int(dead.stdout)}|1")
    assert trial.number == 2 and trial.params != {}
    res = metafx.search(X, y, storage=url, study_name="s", **kw)
    _same(res, full)
    trials = study.get_trials(deepcopy=False)
    complete = check_study(trials, 5)
    assert trials[2].state.name == "FAIL" and complete[3].user_attrs[RETRY_KEY] == 2
    assert complete[3].params == trials[2].params  # the retry kept the dead trial's point


def _problem(X, y):
    from metafx.loop.problem import SearchProblem

    return SearchProblem(metafx.plugin.make_component("family", "pixel-and"), X, y,
                         metafx.plugin.make_component("set-evaluator", "cv-linear-svm"), 50)


def test_live_owner_is_not_taken_over():
    from metafx.storage.study import me, owner_alive

    assert owner_alive(me()) is True
    assert owner_alive(f"{me().split('|')[0]}|999999999|1") is False
    assert owner_alive("elsewhere/abc|1|1") is None  # another machine: heartbeats decide
    raw = json.dumps(me())
    assert "|" in raw
