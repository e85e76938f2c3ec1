"""Regression tests of the fourth reliability sweep (issue 45; docs/reliability.md, section 7): every file is
written beside and renamed, an output never overwrites an input, data files are checked before they are read,
images are read by their depth, a search's quality is that of the features it saves, one label rule and one
column-name rule, and interrupts end in one line from the first import on."""

from __future__ import annotations

import errno
import io
import os
import signal
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest
from _cli_run import REPO, one_line_error, run_cli

import metafx
from metafx.core import files as core_files
from metafx.core.userdata import read_data, write_features
from metafx.loop.components import make_component

pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")


def _env(**extra):
    path = [str(REPO), str(REPO / "plugins" / "metafx-tabular"), os.environ.get("PYTHONPATH", "")]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in path if p), **extra}


def _leftovers(d):
    """Temporary files of the atomic writer left in ``d``."""
    return [f for f in os.listdir(d) if f.endswith(".tmp")]


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    """A table whose labels are random but for a column equal to them (a leak) and a copy of a column."""
    rng = np.random.default_rng(0)
    n = 120
    y = rng.integers(0, 2, n)
    df = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n), "c": rng.normal(size=n)})
    df["leak"] = y.astype(float)
    df["a2"] = df["a"]
    d = tmp_path_factory.mktemp("table")
    path = d / "t.csv"
    df.assign(y=y).to_csv(path, index=False)
    return path, df, y


@pytest.fixture(scope="module")
def table_result(table):
    path, _, _ = table
    out = path.parent / "r.json"
    assert metafx.cli.main(["search", "--data", str(path), "--target", "y", "--family", "tabular", "--budget", "6",
                            "--steps", "2", "--no-progress", "--out", str(out)]) == 0
    return out


# ------------------------------------------------------------------ 1. one atomic writer
FORMATS = ["npy", "csv", "parquet"]


def _half_then(exc):
    """A replacement of np.save / DataFrame.to_csv / to_parquet that writes some bytes, then raises ``exc``."""
    def write(*args, **kwargs):
        fh = next(a for a in args if hasattr(a, "write"))
        fh.write(b"torn" * 1000)
        raise exc
    return write


def _patch_writer(monkeypatch, fmt, exc):
    if fmt == "npy":
        monkeypatch.setattr(np, "save", _half_then(exc))
    elif fmt == "csv":
        monkeypatch.setattr(pd.DataFrame, "to_csv", lambda self, fh, **k: _half_then(exc)(fh))
    else:
        monkeypatch.setattr(pd.DataFrame, "to_parquet", lambda self, fh, **k: _half_then(exc)(fh))


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("exc", [OSError(errno.ENOSPC, "No space left on device"), KeyboardInterrupt()],
                         ids=["full-disk", "ctrl-c"])
def test_a_failed_feature_write_keeps_the_old_file(tmp_path, monkeypatch, fmt, exc):
    path = tmp_path / f"f.{fmt}"
    write_features(path, np.ones((3, 2)), ["a", "b"])
    before = path.read_bytes()
    _patch_writer(monkeypatch, fmt, exc)
    with pytest.raises(metafx.StorageError if isinstance(exc, OSError) else KeyboardInterrupt):
        write_features(path, np.zeros((50, 2)), ["a", "b"])
    assert path.read_bytes() == before and _leftovers(tmp_path) == []


@pytest.mark.parametrize("fmt", ["npy", "csv"])
def test_transform_on_a_full_disk_is_one_line_and_keeps_the_old_file(table, table_result, tmp_path, monkeypatch,
                                                                     capsys, fmt):
    path, _, _ = table
    out = tmp_path / f"features.{fmt}"
    assert run_cli(capsys, "transform", str(table_result), "--data", str(path), "--out", str(out))[0] == 0
    before = out.read_bytes()
    _patch_writer(monkeypatch, fmt, OSError(errno.ENOSPC, "No space left on device"))
    code, _, err = run_cli(capsys, "transform", str(table_result), "--data", str(path), "--out", str(out))
    assert "No space left on device" in one_line_error(code, err)
    assert out.read_bytes() == before and _leftovers(tmp_path) == []


def test_ctrl_c_while_transform_writes_keeps_the_old_file(table, table_result, tmp_path, monkeypatch, capsys):
    path, _, _ = table
    out = tmp_path / "features.csv"
    assert run_cli(capsys, "transform", str(table_result), "--data", str(path), "--out", str(out))[0] == 0
    before = out.read_bytes()
    _patch_writer(monkeypatch, "csv", KeyboardInterrupt())
    code, _, err = run_cli(capsys, "transform", str(table_result), "--data", str(path), "--out", str(out))
    assert code == 130 and err.strip() == "metafx: interrupted"
    assert out.read_bytes() == before and _leftovers(tmp_path) == []


def test_a_kill_before_the_rename_leaves_the_old_file_whole(tmp_path):
    """SIGKILL at the exact point between the last byte written and the rename: the old file is intact."""
    path = tmp_path / "f.csv"
    write_features(path, np.ones((3, 2)), ["a", "b"])
    before = path.read_bytes()
    script = textwrap.dedent(f"""
        import os, signal
        import numpy as np
        from metafx.core import files
        from metafx.core.userdata import write_features
        files.os.replace = lambda *a: os.kill(os.getpid(), signal.SIGKILL)
        write_features({str(path)!r}, np.zeros((20000, 2)), ["a", "b"])
    """)
    proc = subprocess.run([sys.executable, "-c", script], env=_env(), capture_output=True, timeout=120)
    assert proc.returncode == -signal.SIGKILL
    assert path.read_bytes() == before
    tmp = _leftovers(tmp_path)  # a SIGKILL cannot clean up: one whole temporary file, named .f.csv.*.tmp
    assert len(tmp) == 1 and tmp[0].startswith(".f.csv.")


def test_two_writers_of_one_feature_file_leave_one_whole_output(tmp_path):
    """Two transforms on one --out at once: every read sees one writer's whole file, never a mix."""
    path = tmp_path / "f.npy"
    outputs = [np.full((2000, 3), k, dtype=np.float64) for k in (1.0, 2.0)]
    write_features(path, outputs[0], ["a", "b", "c"])
    errors, seen = [], set()

    def writer(F):
        try:
            for _ in range(15):
                write_features(path, F, ["a", "b", "c"])
        except Exception as e:  # any error is reported below
            errors.append(e)

    threads = [threading.Thread(target=writer, args=(F,)) for F in outputs]
    for t in threads:
        t.start()
    while any(t.is_alive() for t in threads):
        A = np.load(path)
        assert A.shape == (2000, 3) and np.unique(A).size == 1, "a torn or mixed file"
        seen.add(float(A[0, 0]))
    for t in threads:
        t.join()
    assert not errors and seen <= {1.0, 2.0} and _leftovers(tmp_path) == []


@pytest.mark.parametrize("what", ["result", "export", "plot", "features"])
def test_every_writer_goes_through_the_one_helper(digits120_result, tmp_path, monkeypatch, what):
    calls = []
    real = core_files.tempfile.mkstemp

    def spy(**kwargs):  # the atomic writer's temporary file beside the target
        calls.append(kwargs)
        return real(**kwargs)

    monkeypatch.setattr(core_files.tempfile, "mkstemp", spy)
    if what == "result":
        digits120_result.to_json(tmp_path / "r.json")
    elif what == "export":
        metafx.export.write(digits120_result, tmp_path / "m.c")
    elif what == "plot":
        from metafx.plotting import plot_result
        plot_result(digits120_result, tmp_path, stem="r")
    else:
        write_features(tmp_path / "f.csv", np.ones((2, 2)), ["a", "b"])
    assert calls and all(c["dir"] == str(tmp_path) and c["suffix"] == ".tmp" for c in calls)
    assert _leftovers(tmp_path) == []


@pytest.mark.parametrize("what", ["result", "export"])
def test_a_failed_result_or_export_write_keeps_the_old_file(digits120_result, tmp_path, monkeypatch, what):
    path = tmp_path / ("r.json" if what == "result" else "m.c")
    write = (lambda: digits120_result.to_json(path)) if what == "result" else \
        (lambda: metafx.export.write(digits120_result, path))
    write()
    before = path.read_bytes()

    def full_disk(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(core_files.os, "fsync", full_disk)
    with pytest.raises(metafx.StorageError, match="No space left on device"):
        write()
    assert path.read_bytes() == before and _leftovers(tmp_path) == []


# ------------------------------------------------------------------ 2. an output never overwrites an input
def test_search_out_over_its_data_is_refused(table, tmp_path, capsys):
    path, _, _ = table
    (tmp_path / "sub").mkdir()
    data = tmp_path / "t.csv"
    data.write_bytes(path.read_bytes())
    for out in (data, tmp_path / "sub" / ".." / "t.csv"):
        code, _, err = run_cli(capsys, "search", "--data", str(data), "--target", "y", "--family", "tabular",
                               "--out", str(out))
        assert "is the command's input --data" in one_line_error(code, err)
    os.symlink(data, tmp_path / "link.csv")
    code, _, err = run_cli(capsys, "search", "--data", str(data), "--target", "y", "--family", "tabular",
                           "--out", str(tmp_path / "link.csv"))
    assert "is the command's input --data" in one_line_error(code, err)
    assert data.read_bytes() == path.read_bytes()


def test_search_out_over_its_labels_or_test_is_refused(tmp_path, capsys):
    X = (np.random.default_rng(0).random((40, 6, 6)) > 0.5).astype(np.uint8)
    np.save(tmp_path / "X.npy", X)
    (tmp_path / "y.txt").write_text("\n".join(str(i % 2) for i in range(40)))
    code, _, err = run_cli(capsys, "search", "--data", str(tmp_path / "X.npy"), "--labels", str(tmp_path / "y.txt"),
                           "--out", str(tmp_path / "y.txt"))
    assert "is the command's input --labels" in one_line_error(code, err)


def test_transform_out_over_its_data_or_result_is_refused(table, table_result, tmp_path, capsys):
    path, _df, _ = table
    X = tmp_path / "X.npy"
    np.save(X, np.ones((4, 8, 8), np.uint8))
    before = X.read_bytes()
    code, _, err = run_cli(capsys, "transform", str(table_result), "--data", str(X), "--out", str(X))
    assert "is the command's input --data" in one_line_error(code, err)
    assert X.read_bytes() == before
    copy = tmp_path / "t.csv"
    copy.write_bytes(path.read_bytes())
    code, _, err = run_cli(capsys, "transform", str(table_result), "--data", str(copy), "--out",
                           str(tmp_path / "." / "t.csv"))
    assert "is the command's input --data" in one_line_error(code, err)
    assert copy.read_bytes() == path.read_bytes()


def test_a_result_file_is_not_replaced_by_other_content(table, table_result, tmp_path, capsys):
    path, _, _ = table
    keep = tmp_path / "kept.csv"  # a result file under a name a feature file could have
    keep.write_bytes(table_result.read_bytes())
    code, _, err = run_cli(capsys, "transform", str(table_result), "--data", str(path), "--out", str(keep))
    assert "holds a metafx result; writing features over it" in one_line_error(code, err)
    assert keep.read_bytes() == table_result.read_bytes()


def test_export_out_over_its_result_is_refused(digits120_result, tmp_path, capsys):
    r = tmp_path / "r.json"
    digits120_result.to_json(r)
    before = r.read_bytes()
    code, _, err = run_cli(capsys, "export", str(r), "--to", "c", "--out", str(r))
    assert "is the command's input RESULT" in one_line_error(code, err)
    other = tmp_path / "other.py"
    other.write_bytes(before)
    code, _, err = run_cli(capsys, "export", str(r), "--to", "numpy", "--out", str(other))
    assert "holds a metafx result" in one_line_error(code, err)
    assert r.read_bytes() == before and other.read_bytes() == before


# ------------------------------------------------------------------ 3. data files checked before they are read
def _unblock_later(fifo):
    """Open ``fifo`` for writing in a daemon thread (the open waits for a reader): if the command wrongly
    opened it, it reads an empty file instead of blocking the test forever."""
    def open_it():
        try:
            with open(fifo, "wb"):
                pass
        except OSError:
            pass
    threading.Thread(target=open_it, daemon=True).start()


@pytest.mark.parametrize("suffix", [".npy", ".npz", ".csv", ".parquet"])
def test_a_fifo_as_data_is_refused_at_once(tmp_path, capsys, suffix):
    fifo = tmp_path / f"data{suffix}"
    os.mkfifo(fifo)
    _unblock_later(fifo)
    code, _, err = run_cli(capsys, "search", "--data", str(fifo), "--target" if suffix in (".csv", ".parquet")
                           else "--labels", "y")
    assert "is a FIFO (named pipe); give a regular file" in one_line_error(code, err)


@pytest.mark.parametrize("suffix", [".npy", ".csv"])
def test_a_link_to_dev_zero_is_refused(tmp_path, suffix):
    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero")
    link = tmp_path / f"data{suffix}"
    os.symlink("/dev/zero", link)
    with pytest.raises(metafx.ValidationError, match="is a device; give a regular file"):
        read_data(link, need_labels=False)
    X = tmp_path / "X.npy"
    np.save(X, np.zeros((3, 4, 4)))
    with pytest.raises(metafx.ValidationError, match=r"labels file .* is a device"):
        read_data(X, labels=link)


def test_image_files_that_are_no_regular_files_are_refused(tmp_path):
    (tmp_path / "a").mkdir()
    os.mkfifo(tmp_path / "a" / "x.png")
    with pytest.raises(metafx.ValidationError, match=r"image file .*x.png' is a FIFO"):
        read_data(tmp_path)


def _npy_with_header(shape, dtype="<f8", body=64):
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, {"descr": dtype, "fortran_order": False, "shape": shape})
    return buf.getvalue() + b"\0" * body


def test_an_npy_header_claiming_1e11_images_is_one_line(tmp_path, capsys):
    p = tmp_path / "X.npy"
    p.write_bytes(_npy_with_header((10**11, 8, 8)))
    code, _, err = run_cli(capsys, "search", "--data", str(p), "--labels", str(p))
    line = one_line_error(code, err)
    assert "header declares an array of shape (100000000000, 8, 8)" in line and "truncated or damaged" in line


def test_an_npy_larger_than_the_memory_is_refused_before_reading(tmp_path, monkeypatch):
    p = tmp_path / "X.npy"
    np.save(p, np.zeros((40, 8, 8)))
    monkeypatch.setattr(core_files.os, "sysconf", lambda name: 1024 if name == "SC_PAGE_SIZE" else 4)  # 4 KiB
    with pytest.raises(metafx.ValidationError, match="more than this machine's"):
        read_data(p, need_labels=False)


def test_a_table_larger_than_the_memory_is_refused_before_reading(tmp_path, monkeypatch):
    p = tmp_path / "t.csv"
    pd.DataFrame({"a": np.arange(2000.0), "y": np.arange(2000) % 2}).to_csv(p, index=False)
    monkeypatch.setattr(core_files.os, "sysconf", lambda name: 1024 if name == "SC_PAGE_SIZE" else 4)  # 4 KiB
    with pytest.raises(metafx.ValidationError, match="GiB of table, more than this machine's"):
        read_data(p, target="y")


def test_npz_defects_are_one_line(tmp_path, capsys):
    good = tmp_path / "good.npz"
    np.savez(good, X=np.zeros((20, 8, 8), np.uint8), y=np.arange(20) % 2)
    data = good.read_bytes()
    cases = {"truncated": data[: len(data) // 2], "empty": b"", "not a zip": b"PK\x03\x04 nothing"}
    for name, raw in cases.items():
        p = tmp_path / f"{name.replace(' ', '_')}.npz"
        p.write_bytes(raw)
        code, _, err = run_cli(capsys, "search", "--data", str(p))
        assert "cannot be read as an .npz archive" in one_line_error(code, err), name
    import zipfile
    lying = tmp_path / "lying.npz"
    with zipfile.ZipFile(lying, "w") as z:
        z.writestr("X.npy", _npy_with_header((10**11, 8, 8), "|u1"))
        z.writestr("y.npy", _npy_with_header((10**11,), "<i8"))
    code, _, err = run_cli(capsys, "search", "--data", str(lying))
    assert "header declares an array of shape (100000000000, 8, 8)" in one_line_error(code, err)


def test_the_tabular_screen_counts_pairs_without_listing_them():
    """A table of 5,000 columns has 3 x 12.5 million pair candidates: counted in closed form, and a drawn
    index maps to the pair the full listing has at that position (checked against the listing on a small
    table)."""
    from metafx_tabular.screen import _Candidates

    first = np.arange(5000, dtype=np.int64)
    assert _Candidates.pairs("mul", first, first, True, True).n == 5000 * 4999 // 2
    assert _Candidates.pairs("ratio", first, first, False, True).n == 5000 * 4999
    rng = np.random.default_rng(0)
    for _ in range(20):
        a = np.sort(rng.choice(12, size=rng.integers(1, 8), replace=False))
        b = np.sort(rng.choice(12, size=rng.integers(1, 8), replace=False))
        for sym in (True, False):
            if sym:
                want = [[int(x), int(z)] for x in a for z in b if x < z or (z not in a and x != z)]
                same = [[int(x), int(z)] for i, x in enumerate(a) for z in a[i + 1:]]
            else:
                want = [[int(x), int(z)] for x in a for z in b if x != z]
                same = [[int(x), int(z)] for x in a for z in a if x != z]
            g = _Candidates.pairs("op", a, b, sym, False)
            assert [g.get(k)[1] for k in range(g.n)] == want
            g = _Candidates.pairs("op", a, a, sym, True)
            assert [g.get(k)[1] for k in range(g.n)] == same


def test_a_wide_table_fits_without_listing_its_pairs(monkeypatch):
    """The screen draws its candidates from the counted groups: it never lists every pair (``first_order``;
    before, 300 rows x 10,000 columns grew past 23 GB listing 150 million pairs)."""
    from metafx_tabular import TabularFamily

    def listed(self):
        raise AssertionError("the screen listed every candidate")

    monkeypatch.setattr(TabularFamily, "first_order", listed)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(100, 300))
    y = rng.integers(0, 2, 100)
    fam = TabularFamily(sample_size=100).fit(X, y)
    assert 0 < len(fam._screened) <= 2000


# ------------------------------------------------------------------ 4. images by their real depth
def test_16_bit_images_are_scaled_not_clipped(tmp_path):
    from PIL import Image

    rng = np.random.default_rng(0)
    raw = {}
    for c in ("a", "b"):
        (tmp_path / c).mkdir()
        for i in range(3):
            a = rng.integers(0, 65536, (6, 6)).astype(np.uint16)
            a[0, 0], a[0, 1] = 0, 65535
            Image.fromarray(a).save(tmp_path / c / f"{i}.png")
            raw[f"{c}/{i}.png"] = a
    d = read_data(tmp_path)
    for k, f in enumerate(d.files):
        np.testing.assert_array_equal(d.X[k], np.rint(raw[f] / 257.0).astype(np.uint8))
    assert d.X[:, 0, 0].max() == 0 and d.X[:, 0, 1].min() == 255
    assert 50 < np.unique(d.X).size  # grey levels, not every pixel 255


def test_float_images_are_refused(tmp_path):
    from PIL import Image

    for c in ("a", "b"):
        (tmp_path / c).mkdir()
        Image.fromarray(np.full((4, 4), 0.5, np.float32)).save(tmp_path / c / "0.tif")
    with pytest.raises(metafx.ValidationError, match="floating-point image"):
        read_data(tmp_path)


# ------------------------------------------------------------------ 5. the quality recorded is that of the features saved
IMAGE_EVALUATORS = ["cv-linear-svm", "loo-1nn", "cv-1nn", "margin", "potential-margin", "cv-potential",
                    "cv-condensed-1nn", "cv-adaptive-nn"]
CASES = ([(f, e) for f in ("pixel-and", "pixel-and-local", "pixels") for e in IMAGE_EVALUATORS]
         + [("tabular", e) for e in ("cv-linear", "cv-tree", "cv-linear-svm", "loo-1nn")])


@pytest.mark.parametrize("family,evaluator", CASES)
def test_the_recorded_quality_is_that_of_the_saved_features(digits, table, family, evaluator):
    """For every built-in family and evaluator: the evaluator, at the search's seed, on what ``result.transform``
    computes from the saved features gives the recorded quality.  The table has a column equal to the labels
    (a leak) and a copy of a column (duplicate features); with cv-linear / cv-tree the quality is that of the
    table's columns beside the features (``with_columns``), recorded with the columns' own score."""
    if family == "tabular":
        _, df, y = table
        X = df
    else:
        X, y = digits[0][:80], digits[1][:80]
    extra = {"evaluator_params": {"n_repeats": 1}} if evaluator == "cv-linear" else {}
    res = metafx.search(X, y, family=family, evaluator=evaluator, budget=12 if family != "pixels" else 6, steps=2,
                        seed=3, progress=False, **extra)
    back = metafx.SearchResult.from_json_text(res.to_json())  # what the file says
    ev = make_component("set-evaluator", back.evaluator, back.evaluator_params)
    F = np.asarray(back.transform(X), dtype=np.float64)
    seed = back.seed % 2**32
    if getattr(ev, "with_columns", False):
        fam, _ = back.feature_batch()
        columns = fam.prepare(X)["design"]
        assert ev.evaluate(np.hstack([columns, F]), y, random_state=seed) == pytest.approx(back.best_quality,
                                                                                           abs=1e-12)
        assert ev.evaluate(columns, y, random_state=seed) == pytest.approx(back.metadata["columns_quality"],
                                                                           abs=1e-12)
        assert "the columns alone score" in back.summary()
    else:
        assert ev.evaluate(F, y, random_state=seed) == pytest.approx(back.best_quality, abs=1e-12)
        assert "columns_quality" not in back.metadata


def test_show_says_what_the_features_add_beside_the_columns(table_result, capsys):
    code, out, _ = run_cli(capsys, "show", str(table_result))
    assert code == 0
    assert "score of the table's columns with the chosen set" in out
    assert "columns alone: " in out and "the features add " in out


# ------------------------------------------------------------------ 6. one label rule, one column-name rule
@pytest.mark.parametrize("header", ["y,a,b,c,y", "a,y,b,a,c"])
def test_a_csv_header_repeating_a_name_is_refused(tmp_path, capsys, header):
    rng = np.random.default_rng(0)
    p = tmp_path / "dup.csv"
    rows = [",".join(str(v) for v in [int(rng.integers(0, 2)), *list(rng.normal(size=4).round(3))])
            for _ in range(30)]
    p.write_text(header + "\n" + "\n".join(rows) + "\n")
    code, _, err = run_cli(capsys, "search", "--data", str(p), "--target", "y", "--family", "tabular")
    assert "has repeated column names" in one_line_error(code, err)


def test_mixed_labels_are_refused_by_the_extractor(digits120):
    X, y = digits120
    mixed = [1 if i % 2 else "a" for i in range(len(y))]
    with pytest.raises(metafx.ValidationError, match="mixes label types"):
        metafx.MetaFeatureExtractor(budget=10, steps=1, progress=False).fit(X, mixed)
    with pytest.raises(metafx.ValidationError, match="mixes label types"):
        metafx.MetaFeatureExtractor(budget=10, steps=1, progress=False).fit(X, np.array(mixed, dtype=object))


# ------------------------------------------------------------------ 7. interrupts and the environment: one line
def test_ctrl_c_while_the_parser_loads_the_plugins(monkeypatch, capsys):
    import metafx.cli.parser as cli

    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "get_registry", interrupted)
    try:
        code, _, err = run_cli(capsys, "plugins")
    except KeyboardInterrupt:
        pytest.fail("the Ctrl-C escaped metafx.cli.main (a traceback on the command line)")
    assert code == 130 and err == "metafx: interrupted\n"


def test_python_m_metafx_cli_in_a_bad_environment_is_one_line(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "metafx.cli", "plugins"], capture_output=True, text=True,
                          timeout=120, env=_env(NUMBA_NUM_THREADS="0"), cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.splitlines() == [
        "metafx: error: NUMBA_NUM_THREADS='0' in the environment must be a positive integer (numba's thread "
        "count): unset it or set it to 1 or more"]


@pytest.mark.parametrize("module", ["filelock", "colorlog"])  # imported by metafx / first by metafx.cli
def test_python_m_metafx_cli_interrupted_while_importing_is_one_line(tmp_path, module):
    (tmp_path / f"{module}.py").write_text("raise KeyboardInterrupt  # as a Ctrl-C while this imports\n")
    env = _env()
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), env["PYTHONPATH"]])
    proc = subprocess.run([sys.executable, "-m", "metafx.cli", "plugins"], capture_output=True, text=True,
                          timeout=120, env=env, cwd=tmp_path)
    assert proc.returncode in (130, -signal.SIGINT) and proc.stderr == "metafx: interrupted\n", proc.stderr


def test_a_program_importing_metafx_still_gets_the_exception(tmp_path):
    proc = subprocess.run([sys.executable, "-c", "import metafx"], capture_output=True, text=True, timeout=120,
                          env=_env(NUMBA_NUM_THREADS="0"), cwd=tmp_path)
    assert proc.returncode == 1 and "ValidationError: NUMBA_NUM_THREADS='0'" in proc.stderr.splitlines()[-1]
