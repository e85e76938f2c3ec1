"""Regression tests of docs/reliability.md: nothing computed is lost, nothing wrong is reported as right,
bad input ends with one line (exit code 2 on the command line, a MetafxError in Python)."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest
from _cli_run import REPO, SMALL, one_line_error, run_cli

import metafx
import metafx.plugin
from metafx.core.datafiles import read_idx
from metafx.storage.backends import open_storage
from metafx.storage.journal import Journal


def _env(**extra):
    path = [str(REPO / "tests"), str(REPO), os.environ.get("PYTHONPATH", "")]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in path if p), **extra}


# ------------------------------------------------------------------ 1. a fresh machine
def test_no_test_builds_an_environment_that_sees_the_base_interpreter():
    proc = subprocess.run([sys.executable, str(REPO / ".ci" / "check_isolation.py")], capture_output=True,
                          text=True, env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    # outside a virtual environment the check says so; the source scan must find nothing in any case
    assert "a virtual environment that sees the base interpreter" not in proc.stderr, proc.stderr


# ------------------------------------------------------------------ 2. data loss
def _journal(tmp_path, n=3):
    sig = {"search": "test"}
    path = tmp_path / "j.jsonl"
    with Journal(path, sig) as j:
        best = -math.inf
        for s in range(1, n + 1):
            q = 0.1 * s
            best = max(best, q)
            j.append(metafx.plugin.StepRecord(step=s, point={"a": s}, quality=q, cost=1.0, n_features=1, seconds=0.1,
                                       best_quality=best, accepted=True))
    return path, sig


def test_torn_last_line_is_cut_by_truncation_not_rewritten(tmp_path):
    path, sig = _journal(tmp_path)
    whole = path.read_bytes()
    with open(path, "ab") as fh:
        fh.write(b'{"step": 4, "point": {"a"')
    ino = os.stat(path).st_ino
    with Journal(path, sig) as j:
        assert [r.step for r in j.records] == [1, 2, 3]
    assert path.read_bytes() == whole and os.stat(path).st_ino == ino


def test_a_second_process_cannot_open_a_journal_in_use(tmp_path):
    path, sig = _journal(tmp_path)
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from metafx.storage.journal import Journal; "
         f"j = Journal({str(path)!r}, {sig!r}); print('ok', flush=True); time.sleep(60)"],
        stdout=subprocess.PIPE, text=True, env=_env())
    try:
        assert holder.stdout.readline().strip() == "ok"
        t = time.monotonic()
        with pytest.raises(metafx.StorageError, match="in use by another process"):
            Journal(path, sig)
        assert time.monotonic() - t < 5
    finally:
        holder.kill()
        holder.wait()


def test_out_equal_to_storage_is_refused_before_any_work(capsys, tmp_path):
    journal = tmp_path / "run.jsonl"
    code, _, err = run_cli(capsys, *SMALL, "--storage", str(journal), "--out", str(journal))
    assert "is the search's storage" in one_line_error(code, err)
    assert not journal.exists()
    db = tmp_path / "s.db"
    db.write_bytes(b"precious")
    code, _, err = run_cli(capsys, *SMALL, "--engine", "optuna", "--storage", str(db), "--out", str(db))
    one_line_error(code, err)
    assert db.read_bytes() == b"precious"


@pytest.mark.parametrize("where", ["missing-dir", "a-directory"])
def test_out_path_checked_before_the_search(capsys, tmp_path, where):
    out = tmp_path / "nope" / "r.json" if where == "missing-dir" else tmp_path
    code, _, err = run_cli(capsys, *SMALL, "--out", str(out))
    line = one_line_error(code, err)
    assert "--out" in line and "data digits" not in err  # refused before loading the data


def test_concurrent_writers_and_readers_of_one_result_file(tmp_path, digits120_result):
    path = tmp_path / "r.json"
    digits120_result.to_json(path)
    errors, reads = [], [0]
    stop = threading.Event()

    def write():
        try:
            for _ in range(40):
                digits120_result.to_json(path)
        except BaseException as e:  # pragma: no cover - the failure being tested for
            errors.append(e)

    def read():
        while not stop.is_set():
            try:
                assert metafx.SearchResult.from_json(path) == digits120_result
                reads[0] += 1
            except BaseException as e:  # pragma: no cover
                errors.append(e)
                return

    writers = [threading.Thread(target=write) for _ in range(4)]
    reader = threading.Thread(target=read)
    reader.start()
    for w in writers:
        w.start()
    for w in writers:
        w.join()
    stop.set()
    reader.join()
    assert not errors, errors[:3]
    assert reads[0] > 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json"]  # no temporary file left behind


def test_a_file_that_is_not_an_optuna_journal_is_refused(tmp_path):
    other = tmp_path / "unrelated.log"
    other.write_text('{"a": 1}\nsome log line\n')
    with pytest.raises(metafx.StorageError, match="not an optuna journal"):
        open_storage(str(other))
    assert other.read_text() == '{"a": 1}\nsome log line\n'
    path, _ = _journal(tmp_path)
    os.rename(path, tmp_path / "metafx.log")
    with pytest.raises(metafx.StorageError, match="not an optuna journal"):
        open_storage(str(tmp_path / "metafx.log"))
    fresh = tmp_path / "fresh.log"
    open_storage(str(fresh))  # a new journal is fine, and an optuna journal opens again
    import optuna

    optuna.create_study(storage=open_storage(str(fresh)), study_name="s")
    optuna.load_study(storage=open_storage(str(fresh)), study_name="s")


def test_ctrl_c_keeps_the_result_and_says_how_to_resume(tmp_path):
    out, journal = tmp_path / "r.json", tmp_path / "run.jsonl"
    script = ("import sys, metafx, _slow_plugin; metafx.plugin.register_plugin(_slow_plugin); "
              "from metafx.cli import main; sys.exit(main(sys.argv[1:]))")
    args = [sys.executable, "-c", script, "search", "--n-train", "100", "--n-test", "30", "--steps", "200",
            "--budget", "20", "--no-progress", "--evaluator", "slow-cv-linear-svm", "--storage", str(journal),
            "--out", str(out)]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=_env(METAFX_TEST_SLOW="0.05", PYTHONFAULTHANDLER="1"),
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    t_end = time.monotonic() + 60
    while time.monotonic() < t_end and (not journal.exists() or journal.read_text().count("\n") < 4):
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "to resume, run the same command again" in err
    res = metafx.SearchResult.from_json(out)
    assert res.metadata["interrupted"] is True
    n = len(res.trajectory)
    assert n >= 2 and res.best_quality == max(r.quality for r in res.trajectory)
    with Journal(journal, json.loads(journal.read_text().splitlines()[0])["signature"]) as j:
        assert len(j.records) >= n  # every step of the written result is in the journal


# ------------------------------------------------------------------ 3. silent wrong answers
def test_infeasible_fixed_meta_feature_is_refused(capsys, digits120):
    X, y = digits120
    with pytest.raises(metafx.ValidationError, match="no feature"):
        metafx.search(X, y, budget=20, steps=2, fixed={"shiftInvLen": 8}, progress=False)
    code, _, err = run_cli(capsys, *SMALL, "--fix", "shiftInvLen=8")
    one_line_error(code, err)


@pytest.mark.parametrize("window", [[5, 2, 0, 7], [0, 9, 0, 7], [0, 7, -1, 3]])
def test_window_outside_or_inverted_is_refused(digits120, window):
    X, y = digits120
    with pytest.raises(metafx.ValidationError, match="window"):
        metafx.search(X, y, budget=20, steps=2, family_params={"window": window}, progress=False)


def test_one_pixel_images(capsys, digits120, monkeypatch, tmp_path):
    X, y = digits120
    res = metafx.search(X[:, :1, :1], y, budget=20, steps=2, progress=False)  # the corner pixel: always 0
    assert res.n_features == 0 and res.metadata["empty_result"] is True
    import metafx.cli.data as cli

    monkeypatch.setattr(cli, "load_dataset", lambda *a, **k: (X[:, :1, :1], y))
    code, _out, err = run_cli(capsys, *SMALL, "--n-train", "80", "--out", str(tmp_path / "r.json"))
    assert "no step of the search drew a usable feature" in one_line_error(code, err)
    assert not (tmp_path / "r.json").exists()


@pytest.mark.parametrize("bad, match", [
    ([[1, 1, "false"]], "negated must be true or false"),
    ([[1.7, 1, False]], "must be integers"),
    ([[1.0, 1, False]], "must be integers"),
    ([[True, 1, False]], "must be integers"),
    ([[1, 99, False]], "outside"),
])
def test_result_json_is_validated_not_coerced(digits120_result, bad, match):
    d = digits120_result.to_dict()
    d["features"] = [dict(d["features"][0], inputs=bad)]
    with pytest.raises(metafx.ValidationError, match=match):
        metafx.SearchResult.from_json_text(json.dumps(d))


def test_result_json_fields_are_typed(digits120_result):
    base = digits120_result.to_dict()
    for field, value in [("budget", "20"), ("seed", 1.5), ("best_step", True), ("trajectory", {}),
                         ("total_cost", -1), ("best_quality", 2.0), ("family", 3), ("features", "x")]:
        d = dict(base, **{field: value})
        with pytest.raises(metafx.ValidationError, match=field):
            metafx.SearchResult.from_json_text(json.dumps(d))


def test_checksum_detects_an_edited_value(digits120_result):
    text = digits120_result.to_json()
    d = json.loads(text)
    d["trajectory"][0]["seconds"] += 1.0
    with pytest.raises(metafx.ValidationError, match="checksum"):
        metafx.SearchResult.from_json_text(json.dumps(d))


def test_from_json_takes_a_path_only(tmp_path, digits120_result):
    odd = tmp_path / "{run1}.json"
    digits120_result.to_json(odd)
    assert metafx.SearchResult.from_json(odd) == digits120_result
    assert metafx.SearchResult.from_json(str(odd)) == digits120_result
    with pytest.raises(metafx.ValidationError, match="from_json_text"):
        metafx.SearchResult.from_json(digits120_result.to_json())
    with pytest.raises(metafx.ValidationError, match="does not exist"):
        metafx.SearchResult.from_json(tmp_path / "missing.json")
    assert metafx.SearchResult.from_json_text(digits120_result.to_json()) == digits120_result


def test_strict_json_null_for_infinity(digits120_result, tmp_path):
    assert math.isinf(digits120_result.metadata["space_size"])
    text = digits120_result.to_json()

    def refuse(c):
        raise AssertionError(f"non-standard JSON constant {c}")

    d = json.loads(text, parse_constant=refuse)
    assert d["metadata"]["space_size"] is None
    back = metafx.SearchResult.from_json_text(text)
    assert back == digits120_result and math.isinf(back.metadata["space_size"])
    empty = metafx.SearchResult.from_dict(dict(digits120_result.to_dict(), trajectory=[], features=[], best_point={},
                                               best_quality=-math.inf, best_step=0, total_cost=0.0))
    assert metafx.SearchResult.from_json_text(empty.to_json()).best_quality == -math.inf


@pytest.mark.parametrize("edit, match", [
    (lambda d: d.update(quality=float("nan")), "corrupt"),
    (lambda d: d.update(quality=d["quality"] - 0.05), "crc32"),
    (lambda d: d.update(step=7), "corrupt"),
])
def test_journal_refuses_edited_records(tmp_path, edit, match):
    path, sig = _journal(tmp_path)
    lines = path.read_text().splitlines()
    d = json.loads(lines[2])
    edit(d)
    lines[2] = json.dumps(d)
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(metafx.StorageError, match=match):
        Journal(path, sig)


def _resealed(d: dict) -> str:
    """A record edited and given the crc32 of its new content (what passes the checksum, not the checks)."""
    from metafx.storage.journal import _crc

    d = {k: v for k, v in d.items() if k != "crc32"}
    return json.dumps({**d, "crc32": _crc(d)})


def test_journal_checks_consistency_beyond_the_checksum(tmp_path):
    path, sig = _journal(tmp_path)
    lines = path.read_text().splitlines()
    d = json.loads(lines[3])
    d["quality"] = 0.9  # above best_quality
    lines[3] = _resealed(d)
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(metafx.StorageError, match="line 4"):
        Journal(path, sig)


def test_a_journal_record_without_its_checksum_is_refused(tmp_path):
    """No reader of journals written before records carried crc32 (there was no release before)."""
    path, sig = _journal(tmp_path)
    lines = path.read_text().splitlines()
    d = json.loads(lines[2])
    del d["crc32"]
    lines[2] = json.dumps(d)
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(metafx.StorageError, match="line 3: the record has no crc32"):
        Journal(path, sig)


def test_worker_on_a_missing_study_leaves_no_file(capsys, tmp_path):
    for name in ("s.db", "s.log"):
        code, _, err = run_cli(capsys, "worker", "--storage", str(tmp_path / name), "--study", "nope")
        one_line_error(code, err)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("scorer, target", [("simba", "class"), ("rgs", "real")])
def test_constant_columns_score_zero(scorer, target, rng):
    X = rng.uniform(-1, 1, (120, 4))
    X[:, 2] = 0.5
    y = X[:, 0] > 0 if target == "class" else np.sin(3 * X[:, 0])
    params = {"n_restarts": 2} if scorer == "simba" else {"k": 10}
    w = metafx.score_features(X, y, scorer, **params)
    assert w[2] == 0.0 and int(np.argmax(w)) == 0 and w.max() == 1.0


# ------------------------------------------------------------------ 4. one line, exit code 2
@pytest.mark.parametrize("args", [
    ["--seed", str(2**63)], ["--budget", "1e12"], ["--budget", "1e9"], ["--engine-param", "start=abc"],
    ["--evaluator-param", "C=[1]"], ["--storage", "{tmp}"], ["--seed", "-1"],
])
def test_bad_search_arguments_are_one_line(capsys, tmp_path, args):
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    one_line_error(*run_cli(capsys, *SMALL, *args)[::2])


def test_large_seed_is_accepted(capsys):
    code, _out, err = run_cli(capsys, *SMALL, "--seed", str(2**32))
    assert code == 0, err


def test_huge_budget_is_refused_with_the_figure(digits120):
    X, y = digits120
    with pytest.raises(metafx.ValidationError, match="GiB"):
        metafx.search(X, y, budget=1e12, steps=1, progress=False)


def _idx_bytes(a):
    import struct

    return struct.pack(">HBB", 0, 8, a.ndim) + struct.pack(">" + "I" * a.ndim, *a.shape) + a.tobytes()


def test_idx_reader_defects(tmp_path):
    import gzip
    import struct

    a = (np.arange(60) % 256).astype(np.uint8).reshape(3, 4, 5)
    raw = _idx_bytes(a)
    cases = {
        "truncated.gz": gzip.compress(raw)[:-6],
        "plain-as.gz": raw,
        "short": raw[:7],
        "overflow": struct.pack(">HBB", 0, 8, 3) + struct.pack(">III", 2**32 - 1, 2**32 - 1, 2**32 - 1),
        "long": raw + b"\x00",
        "empty": b"",
        "int32": struct.pack(">HBB", 0, 0x0C, 1) + struct.pack(">I", 1) + b"\x00\x00\x00\x01",
    }
    for name, data in cases.items():
        (tmp_path / name).write_bytes(data)
        with pytest.raises(metafx.ValidationError):
            read_idx(tmp_path / name)
    with pytest.raises(metafx.ValidationError, match="does not exist"):
        read_idx(tmp_path / "missing.gz")
    (tmp_path / "ok.gz").write_bytes(gzip.compress(raw))
    np.testing.assert_array_equal(read_idx(tmp_path / "ok.gz"), a)


@pytest.mark.parametrize("content", [b'{"family": "pixel-and", "engi', b"", b"[]", b"[1, 2]", b'"x"', b"\xff\xfe",
                                     b'{"family": 1}', b'{"format_version": 1, "trajectory": 3}'])
def test_plot_on_a_bad_result_file_is_one_line(capsys, tmp_path, content):
    path = tmp_path / "r.json"
    path.write_bytes(content)
    one_line_error(*run_cli(capsys, "plot", str(path))[::2])


def test_plot_on_wrong_typed_fields_is_one_line(capsys, tmp_path, digits120_result):
    d = digits120_result.to_dict()
    d["trajectory"][0]["quality"] = "high"
    (tmp_path / "r.json").write_text(json.dumps(d))
    one_line_error(*run_cli(capsys, "plot", str(tmp_path / "r.json"))[::2])


def test_plugins_json_into_a_closed_pipe():
    proc = subprocess.Popen([sys.executable, "-m", "metafx.cli", "plugins", "--json"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=_env())
    proc.stdout.read(10)
    proc.stdout.close()
    err = proc.stderr.read().decode()
    proc.wait(timeout=60)
    assert "Traceback" not in err and "BrokenPipeError" not in err, err
    assert proc.returncode in (0, 141)


@pytest.mark.parametrize("header", [b"[]", b"1", b'"x"', b"\xff\xfe\xfd", b'{"metafx_journal": "1"}',
                                    b'{"metafx_journal": 1, "signature": []}'])
def test_journal_bad_header(tmp_path, header):
    path = tmp_path / "j.jsonl"
    path.write_bytes(header + b"\n")
    with pytest.raises(metafx.StorageError, match="not a metafx search journal"):
        Journal(path, {"search": "test"})


@pytest.mark.parametrize("field, value", [("step", "1"), ("point", []), ("cost", "1"), ("accepted", 1),
                                          ("timings", [1]), ("n_features", 1.5)])
def test_journal_wrong_typed_fields(tmp_path, field, value):
    path, sig = _journal(tmp_path)
    lines = path.read_text().splitlines()
    d = json.loads(lines[1])
    d[field] = value
    lines[1] = _resealed(d)
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(metafx.StorageError, match="line 2"):
        Journal(path, sig)


def test_journal_non_utf8_record(tmp_path):
    path, sig = _journal(tmp_path)
    data = path.read_bytes().split(b"\n")
    data[2] = data[2][:10] + b"\xff" + data[2][11:]
    path.write_bytes(b"\n".join(data))
    with pytest.raises(metafx.StorageError, match="line 3"):
        Journal(path, sig)


def test_python_api_errors(digits120):
    X, y = digits120
    with pytest.raises(metafx.ValidationError, match="non-integer"):
        metafx.search(X, y + 0.5, budget=20, steps=1, progress=False)
    seen = []
    with pytest.raises(metafx.ValidationError, match="not callable"):
        metafx.search(X, y, budget=20, steps=2, progress=False, callbacks=[lambda s, r: seen.append(r), 1])
    assert seen == []  # refused before step 1
    with pytest.raises(metafx.ValidationError, match="or -1"):
        metafx.search(X, y, budget=20, steps=1, progress=False, n_jobs=-2)
    with pytest.raises(metafx.ValidationError, match="start"):
        metafx.search(X, y, budget=20, steps=1, progress=False, engine_params={"start": "abc"})
    assert metafx.search(X, y, budget=20, steps=1, progress=False, seed=2**63 - 1).seed == 2**63 - 1


def test_result_files_get_the_usual_permissions(tmp_path):
    """The atomic write's temporary file is private (mkstemp); the result file is not."""
    import os

    from metafx.core.files import atomic_write_text

    mask = os.umask(0o022)
    try:
        atomic_write_text(tmp_path / "r.json", "{}")
    finally:
        os.umask(mask)
    assert (os.stat(tmp_path / "r.json").st_mode & 0o777) == 0o644
