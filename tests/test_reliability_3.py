"""Regression tests of the third reliability sweep (issue 36; docs/reliability.md, section 6): nothing computed
is lost, nothing wrong is reported as right, bad input ends with one line (exit 2) or a MetafxError."""

from __future__ import annotations

import gzip
import json
import math
import os
import sqlite3
import stat
import struct
import subprocess
import sys

import numpy as np
import pytest
from _cli_run import REPO, SMALL, one_line_error, run_cli

import metafx
import metafx.plugin
from metafx.core.datafiles import read_idx
from metafx.storage.journal import Journal


def _env(**extra):
    path = [str(REPO), str(REPO / "plugins" / "metafx-tabular"), os.environ.get("PYTHONPATH", "")]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in path if p), **extra}


# ------------------------------------------------------------------ 2, 3. the journal
@pytest.mark.parametrize("how", ["moved", "removed"])
def test_journal_moved_or_removed_during_the_search_stops_it(digits120, tmp_path, how):
    X, y = digits120
    path = tmp_path / "j.jsonl"
    moved = tmp_path / "moved.jsonl"

    def meddle(state, rec):
        if rec.step == 1:
            os.rename(path, moved) if how == "moved" else os.unlink(path)

    with pytest.raises(metafx.StorageError, match="was removed or moved away during the search"):
        metafx.search(X, y, budget=20, steps=4, seed=0, progress=False, storage=str(path), callbacks=[meddle])
    assert not path.exists()  # no headerless file strewn at the old path
    if how == "moved":  # the open journal got step 2 too: moving it back resumes both
        os.rename(moved, path)
        res = metafx.search(X, y, budget=20, steps=4, seed=0, progress=False, storage=str(path))
        assert res.metadata["resumed_steps"] == 2 and len(res.trajectory) == 4
        plain = metafx.search(X, y, budget=20, steps=4, seed=0, progress=False)
        assert [r.quality for r in res.trajectory] == [r.quality for r in plain.trajectory]


def test_journal_replaced_during_the_search_stops_it(tmp_path):
    path = tmp_path / "j.jsonl"
    rec = metafx.plugin.StepRecord(step=1, point={"a": 1}, quality=0.5, cost=1.0, n_features=1, seconds=0.1,
                            best_quality=0.5, accepted=True)
    with Journal(path, {"s": 1}) as j:
        os.rename(path, tmp_path / "old.jsonl")
        path.write_text("somebody else's file\n")
        with pytest.raises(metafx.StorageError, match="replaced by another file"):
            j.append(rec)
    assert path.read_text() == "somebody else's file\n"


@pytest.mark.parametrize("cut", [1, 12, 40, -2, -1])
def test_a_header_torn_while_written_is_an_empty_journal(tmp_path, cut):
    sig = {"search": "x"}
    head = (json.dumps({"metafx_journal": 1, "signature": sig}) + "\n").encode()
    path = tmp_path / "j.jsonl"
    path.write_bytes(head[:cut])  # a kill while the header was written: no newline, no record
    with Journal(path, sig) as j:
        assert j.records == []
        j.append(metafx.plugin.StepRecord(step=1, point={"a": 1}, quality=0.5, cost=1.0, n_features=1, seconds=0.1,
                                   best_quality=0.5, accepted=True))
    with Journal(path, sig) as j:
        assert len(j.records) == 1


def test_a_file_without_newline_that_is_no_journal_is_still_refused(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("my notes, no newline")
    with pytest.raises(metafx.StorageError, match="not a metafx search journal"):
        Journal(path, {"s": 1})
    assert path.read_text() == "my notes, no newline"


# ------------------------------------------------------------------ 4. plots written by rename
def test_a_failed_plot_write_keeps_the_old_picture(digits120_result, tmp_path, monkeypatch):
    from metafx import plotting
    from metafx.core import files

    paths = plotting.plot_result(digits120_result, tmp_path, stem="r")
    before = {p: p.read_bytes() for p in paths}

    def full_disk(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(files.os, "fsync", full_disk)
    with pytest.raises(metafx.StorageError, match="No space left on device"):
        plotting.plot_result(digits120_result, tmp_path, stem="r", dpi=60)  # another picture: other bytes
    assert {p: p.read_bytes() for p in paths} == before
    assert sorted(os.listdir(tmp_path)) == sorted(p.name for p in paths)  # no temporary file left


# ------------------------------------------------------------------ 5, 18. tables: columns by name
@pytest.fixture(scope="module")
def table_result():
    pd = pytest.importorskip("pandas")
    pytest.importorskip("metafx_tabular")
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"a": rng.normal(size=200), "b": rng.normal(size=200), "c": rng.normal(size=200)})
    y = (df.a * df.b > 0).astype(int).to_numpy()
    res = metafx.search(df, y, family="tabular", evaluator="cv-linear", budget=6, steps=3, progress=False)
    return df, y, res


def test_table_columns_are_matched_by_name(table_result):
    df, _, res = table_result
    ref = res.transform(df)
    with pytest.raises(metafx.ValidationError, match="in another order"):
        res.transform(df[["b", "a", "c"]])
    with pytest.raises(metafx.ValidationError, match=r"missing \['a'\]; not among them \['z'\]"):
        res.transform(df.rename(columns={"a": "z"}))
    back = metafx.SearchResult.from_json_text(res.to_json())  # the names travel with the result
    with pytest.raises(metafx.ValidationError, match="in another order"):
        back.transform(df[["c", "b", "a"]])
    np.testing.assert_array_equal(np.asarray(back.transform(df)), np.asarray(ref))
    np.testing.assert_array_equal(np.asarray(res.transform(df.to_numpy())), np.asarray(ref))  # no names: by position


def test_repeated_column_names_are_one_error(table_result):
    pd = pytest.importorskip("pandas")
    from metafx_tabular import TableExtractor

    df, y, _ = table_result
    dup = pd.DataFrame(df.to_numpy(), columns=["a", "a", "c"])
    with pytest.raises(metafx.ValidationError, match=r"repeated column names \['a'\]"):
        TableExtractor(budget=6, steps=2).fit(dup, y)
    with pytest.raises(metafx.ValidationError, match=r"repeated column names \['a'\]"):
        metafx.search(dup, y, family="tabular", evaluator="cv-linear", budget=6, steps=2, progress=False)
    fx = TableExtractor(budget=6, steps=2, confirm=False).fit(df, y)
    with pytest.raises(metafx.ValidationError, match=r"repeated column names \['a'\]"):
        fx.transform(dup)


# ------------------------------------------------------------------ 6. the mode of a replaced file
@pytest.mark.parametrize("mode", [0o600, 0o444, 0o640])
def test_replacing_a_result_file_keeps_its_mode(digits120_result, tmp_path, mode):
    path = tmp_path / "r.json"
    digits120_result.to_json(path)
    os.chmod(path, mode)
    digits120_result.to_json(path)
    assert stat.S_IMODE(os.stat(path).st_mode) == mode
    assert metafx.SearchResult.from_json(path) == digits120_result


def test_replacing_out_on_the_command_line_keeps_its_mode(capsys, tmp_path):
    out = tmp_path / "r.json"
    out.write_text("{}")
    os.chmod(out, 0o600)
    code, _, err = run_cli(capsys, *SMALL, "--out", str(out))
    assert code == 0, err
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o600


# ------------------------------------------------------------------ 7. fixed values are not coerced
@pytest.mark.parametrize("value", [True, "3", 3.5, None])
def test_fixed_values_are_not_coerced(digits120, value):
    X, y = digits120
    with pytest.raises(metafx.ValidationError, match="numInputs"):
        metafx.search(X, y, budget=20, steps=1, progress=False, fixed={"numInputs": value})


def test_fixed_numbers_still_work(digits120, capsys):
    X, y = digits120
    res = metafx.search(X, y, budget=20, steps=1, progress=False, fixed={"numInputs": 3, "scatter": 1})
    assert res.space["fixed"] == {"numInputs": 3, "scatter": 1.0}
    code, _, err = run_cli(capsys, *SMALL, "--fix", "numInputs=true")
    assert "numInputs=True is not a number; allowed: an integer in [1, 8]" in one_line_error(code, err)


# ------------------------------------------------------------------ 8. --out ''
def test_empty_out_is_refused(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(capsys, *SMALL, "--out", "")
    assert "--out=''" in one_line_error(code, err)
    assert out == "" and os.listdir(tmp_path) == []


# ------------------------------------------------------------------ 9. the bound counts correctly or refuses
def test_bound_counts_the_steps_planned(digits120):
    X, y = digits120
    y2 = y % 2
    stopped = metafx.search(X, y2, budget=20, steps=10, seed=0, engine="mufasa", progress=False,
                            callbacks=[lambda state, rec: rec.step < 1])
    assert len(stopped.trajectory) == 1 and stopped.metadata["planned_steps"] == 10
    assert stopped.bound().terms["g(J)"] == pytest.approx(10 * math.log(2))
    back = metafx.SearchResult.from_json_text(stopped.to_json())
    assert back.bound().terms["g(J)"] == pytest.approx(10 * math.log(2))
    old = metafx.SearchResult.from_dict({k: v for k, v in stopped.to_dict().items()})
    del old.metadata["planned_steps"]  # written before the steps planned were recorded
    with pytest.raises(metafx.MetafxError, match="pass steps=J"):
        old.bound()
    assert old.bound(steps=10).terms["g(J)"] == pytest.approx(10 * math.log(2))


def test_bound_refuses_what_theorem_5_1_does_not_cover(digits120):
    X, y = digits120
    kw = dict(budget=20, steps=2, seed=0, engine="mufasa", progress=False)  # the theorem covers mufasa's search
    multi = metafx.search(X, y, **kw)
    with pytest.raises(metafx.MetafxError, match="10 classes; the theorem is for two"):
        multi.bound()
    ink = metafx.search(X, y % 2, family_params={"location_prior": "ink"}, **kw)
    with pytest.raises(metafx.MetafxError, match="location_prior='ink'"):
        ink.bound()
    assert metafx.search(X, y % 2, **kw).bound().terms["m"] == len(y)


# ------------------------------------------------------------------ 10. absurd budgets, --timeout
def test_absurd_feature_to_sample_ratio_is_refused_with_the_figures(digits):
    X, y = digits
    with pytest.raises(metafx.ValidationError, match=r"1e\+03 per training sample at 1000 samples; at most 20 "):
        metafx.search(X[:1000], y[:1000], budget=1e6, steps=1, progress=False)
    from metafx.loop.checks import MAX_FEATURES_PER_SAMPLE
    assert MAX_FEATURES_PER_SAMPLE == 20


def test_cli_timeout(capsys, tmp_path):
    out = tmp_path / "r.json"
    code, _, err = run_cli(capsys, "search", "--n-train", "100", "--n-test", "30", "--steps", "100000",
                           "--budget", "20", "--no-progress", "--timeout", "1", "--out", str(out))
    assert code == 0, err
    res = metafx.SearchResult.from_json(out)
    assert res.metadata["stopped"] == "timeout" and 1 <= len(res.trajectory) < 100000
    code, _, err = run_cli(capsys, *SMALL, "--timeout", "-1")
    assert "timeout=-1" in one_line_error(code, err)


# ------------------------------------------------------------------ 11. IDX .gz: header first, then the body
def test_idx_gz_body_read_only_as_far_as_the_header_says(tmp_path, monkeypatch):
    path = tmp_path / "x-idx3-ubyte.gz"
    with gzip.open(path, "wb") as fh:  # a 1 x 1 image announced, 64 MiB of body
        fh.write(struct.pack(">HBBIII", 0, 8, 3, 1, 1, 1))
        for _ in range(64):
            fh.write(bytes(1 << 20))
    got = []
    real = gzip.GzipFile.read

    def counting(self, size=-1):
        data = real(self, size)
        got.append(len(data))
        return data

    monkeypatch.setattr(gzip.GzipFile, "read", counting)
    with pytest.raises(metafx.ValidationError, match="holds more than the 1 values"):
        read_idx(path)
    assert sum(got) < 1 << 16  # header, one value, one byte more: not the 64 MiB
    with gzip.open(path, "wb") as fh:  # and an exact file still reads
        fh.write(struct.pack(">HBBIII", 0, 8, 3, 2, 1, 2) + bytes([1, 2, 3, 4]))
    assert read_idx(path).tolist() == [[[1, 2]], [[3, 4]]]


# ------------------------------------------------------------------ 12. plot: regular files, bounded images
def test_plot_refuses_a_fifo_and_a_device(tmp_path):
    fifo = tmp_path / "ff"
    os.mkfifo(fifo)
    for target, what in ((fifo, "is a FIFO"), ("/dev/zero", "is a device")):
        proc = subprocess.run([sys.executable, "-m", "metafx_cli", "plot", str(target)], capture_output=True,
                              text=True, timeout=120, env=_env())
        assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
        assert what in proc.stderr.strip().splitlines()[-1]


def test_result_files_are_read_to_a_bound(tmp_path, monkeypatch):
    from metafx.loop import result as result_module

    path = tmp_path / "big.json"
    path.write_text(" " * 2000)
    monkeypatch.setattr(result_module, "MAX_RESULT_BYTES", 1000)
    with pytest.raises(metafx.ValidationError, match="has 2000 bytes, more than the 1000 accepted"):
        metafx.SearchResult.from_json(path)


def test_plot_refuses_a_huge_image_shape(digits120_result, tmp_path, capsys):
    d = json.loads(digits120_result.to_json())
    d.pop("checksum")
    d["family_params"]["image_shape"] = [60000, 60000]
    path = tmp_path / "big.json"
    path.write_text(json.dumps(d))
    code, _, err = run_cli(capsys, "plot", str(path), "--out", str(tmp_path))
    assert "image_shape=[60000, 60000] (3600000000 pixels) is too large to draw" in one_line_error(code, err)


# ------------------------------------------------------------------ 13. plot on bad metadata.data
@pytest.mark.parametrize("field,value", [("n_train", "abc"), ("n_test", None), ("split_seed", -1),
                                         ("n_train", True), ("name", 3)])
def test_plot_on_bad_data_metadata_is_one_line(digits120_result, tmp_path, capsys, field, value):
    d = json.loads(digits120_result.to_json())
    d.pop("checksum")
    d["metadata"]["data"] = {"name": "digits", "n_train": 100, "n_test": 10, "split_seed": 0, field: value}
    path = tmp_path / "r.json"
    path.write_text(json.dumps(d))
    code, _, err = run_cli(capsys, "plot", str(path), "--out", str(tmp_path))
    assert f"metadata.data.{field}={value!r}" in one_line_error(code, err)


# ------------------------------------------------------------------ 14, 15. shared studies: tampered, damaged
@pytest.fixture(scope="module")
def study_db(tmp_path_factory):
    from metafx.distributed import ProblemSpec, create_study

    path = tmp_path_factory.mktemp("study") / "s.db"
    spec = ProblemSpec(data="digits", n_train=100, n_test=0, budget=20, steps=2, engine_params={"sampler": "random"})
    create_study(f"sqlite:///{path}", "st", spec)
    con = sqlite3.connect(path)
    con.execute("pragma wal_checkpoint(TRUNCATE)")
    con.close()
    return path


def _copy_db(src, dst):
    a, b = sqlite3.connect(src), sqlite3.connect(dst)
    a.backup(b)
    a.close()
    b.close()


@pytest.mark.parametrize("field,value", [("steps", "x"), ("budget", "abc"), ("family_params", "abc"),
                                         ("data_params", [1, 2]), ("fixed", [1]), ("split_seed", -1),
                                         ("n_train", "abc")])
def test_worker_on_a_tampered_spec_is_one_line(study_db, tmp_path, capsys, field, value):
    db = tmp_path / "t.db"
    _copy_db(study_db, db)
    con = sqlite3.connect(db)
    (raw,), = con.execute("select value_json from study_user_attributes where key='metafx:spec'").fetchall()
    spec = json.loads(raw)
    spec[field] = value
    con.execute("update study_user_attributes set value_json=? where key='metafx:spec'", (json.dumps(spec),))
    con.commit()
    con.close()
    code, _, err = run_cli(capsys, "worker", "--storage", f"sqlite:///{db}", "--study", "st", "--no-progress")
    assert f"damaged problem spec: {field}={value!r}" in one_line_error(code, err)


@pytest.mark.parametrize("page", [1, 2, 10])
def test_a_zeroed_sqlite_page_is_one_line(study_db, tmp_path, capsys, page):
    data = bytearray(study_db.read_bytes())
    size = 4096
    assert len(data) > (page + 1) * size
    data[page * size:(page + 1) * size] = bytes(size)
    db = tmp_path / "z.db"
    db.write_bytes(bytes(data))
    code, _, err = run_cli(capsys, "search", "--engine", "optuna", "--storage", f"sqlite:///{db}", "--study", "st",
                           "--n-train", "100", "--n-test", "0", "--budget", "20", "--steps", "2",
                           "--engine-param", "sampler=random", "--no-progress")
    line = one_line_error(code, err)
    assert "database disk image is malformed" in line or "not a database" in line, line


# ------------------------------------------------------------------ 16. arguments checked before any work
def test_negative_split_seed_is_one_line(capsys):
    code, _, err = run_cli(capsys, *SMALL, "--split-seed", "-1")
    assert "--split-seed=-1" in one_line_error(code, err)


def test_sampler_params_are_type_checked_before_the_first_trial(capsys):
    code, _, err = run_cli(capsys, *SMALL, "--engine", "optuna", "--engine-param",
                           'sampler_params={"n_startup_trials": "x"}')
    assert "n_startup_trials='x' must be an integer" in one_line_error(code, err)
    assert "step" not in err.replace("n_startup_trials", "")  # refused before any step ran
    metafx.plugin.make_component("engine", "optuna", {"sampler_params": {"n_startup_trials": 5}})


# ------------------------------------------------------------------ 17. mixed label types
def test_labels_mixing_strings_and_numbers_are_refused(digits120):
    pd = pytest.importorskip("pandas")
    X, _ = digits120
    mixed = [1 if i % 2 else "a" for i in range(len(X))]
    for y in (mixed, np.array(mixed, dtype=object), pd.Series(mixed)):
        with pytest.raises(metafx.ValidationError, match="mixes label types"):
            metafx.search(X, y, budget=20, steps=1, progress=False)
    res = metafx.search(X, ["a" if i % 2 else "b" for i in range(len(X))], budget=20, steps=1, progress=False)
    assert res.metadata["n_classes"] == 2


# ------------------------------------------------------------------ 19. the environment, Ctrl-C during imports
def test_numba_num_threads_zero(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "metafx_cli", "plugins"], capture_output=True, text=True,
                          timeout=120, env=_env(NUMBA_NUM_THREADS="0"), cwd=tmp_path)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.strip().splitlines() == [
        "metafx: error: NUMBA_NUM_THREADS='0' in the environment must be a positive integer (numba's thread "
        "count): unset it or set it to 1 or more"]
    proc = subprocess.run([sys.executable, "-c", "import metafx"], capture_output=True, text=True, timeout=120,
                          env=_env(NUMBA_NUM_THREADS="-3"), cwd=tmp_path)
    assert "metafx.core.exceptions.ValidationError: NUMBA_NUM_THREADS='-3'" in proc.stderr.splitlines()[-1]


def test_ctrl_c_during_the_imports_of_the_command(tmp_path):
    (tmp_path / "filelock.py").write_text("raise KeyboardInterrupt  # as a Ctrl-C while metafx imports\n")
    env = _env()
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), env["PYTHONPATH"]])
    proc = subprocess.run([sys.executable, "-m", "metafx_cli", "plugins"], capture_output=True, text=True,
                          timeout=120, env=env, cwd=tmp_path)
    assert proc.returncode == 130 and proc.stderr == "metafx: interrupted\n", proc.stderr


def test_the_command_entry_point_is_the_guarded_one():
    text = (REPO / "pyproject.toml").read_text()
    assert 'metafx = "metafx_cli:main"' in text
    from metafx_cli import main as entry

    assert entry(["plugins", "--json"]) == 0
