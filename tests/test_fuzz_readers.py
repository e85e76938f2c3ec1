"""Property tests of the three readers of files metafx did not necessarily write itself intact.

Any mutation of a valid file (bytes flipped, set, inserted, deleted, a slice
repeated, the file truncated) either loads to exactly the original content or
raises a :class:`metafx.MetafxError` subclass -- never another exception, never
something else in silence:

* result JSON (:meth:`metafx.SearchResult.from_json`): its SHA-256 checksum
  makes every change of content an error;
* the search journal (:class:`metafx.storage.journal.Journal`): a CRC-32 per
  record; a truncated file loads to a *prefix* of the records (the crash
  model: a torn tail is cut off, every whole record kept), never to a changed
  record;
* IDX files (:func:`metafx.core.datafiles.read_idx`): gzip's CRC-32 protects
  ``.gz`` files completely; a plain IDX file has no checksum, so there the
  mutations are the ones its header and length can reveal (one structural
  change: a header byte, an insertion, a deletion, a truncation).

The examples are bounded and derandomized (the same ones on every run) so the
module runs in a few seconds in CI.
"""

from __future__ import annotations

import gzip
import json
import math
import struct
import tempfile
from pathlib import Path

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis", reason="the property tests need hypothesis (in the test extra)")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import metafx  # noqa: E402
from metafx.core.datafiles import read_idx  # noqa: E402
from metafx.storage.journal import Journal  # noqa: E402

SETTINGS = settings(max_examples=150, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@st.composite
def mutation(draw, size: int, kinds=("flip", "set", "insert", "delete", "repeat", "truncate")):
    kind = draw(st.sampled_from(kinds))
    pos = draw(st.integers(0, max(size - 1, 0)))
    if kind == "flip":
        return kind, pos, draw(st.integers(1, 255))
    if kind in ("set", "insert"):
        return kind, pos, draw(st.sampled_from(list(b'{}[]",:0123456789.-eE \ntruefalsnIiy\x00\xff')))
    if kind in ("delete", "repeat"):
        return kind, pos, draw(st.integers(1, 16))
    return kind, pos, 0


def apply(data: bytes, muts) -> bytes:
    b = bytearray(data)
    for kind, pos, arg in muts:
        pos = min(pos, max(len(b) - 1, 0))
        if not b and kind != "insert":
            continue
        if kind == "flip":
            b[pos] ^= arg
        elif kind == "set":
            b[pos] = arg
        elif kind == "insert":
            b[pos:pos] = bytes([arg])
        elif kind == "delete":
            del b[pos:pos + arg]
        elif kind == "repeat":
            b[pos:pos] = b[pos:pos + arg]
        else:
            del b[pos:]
    return bytes(b)


def mutations(size: int, max_size: int = 3, **kw):
    return st.lists(mutation(size, **kw), min_size=1, max_size=max_size)


# ------------------------------------------------------------------ result JSON
def _result():
    X, y = metafx.load_dataset("digits")
    return metafx.search(X[:100], y[:100], budget=10, steps=3, seed=5, progress=False)


RESULT = None


def _original():
    global RESULT
    if RESULT is None:
        RESULT = _result()
        assert math.isinf(RESULT.metadata["space_size"])  # written as null, read back as inf
    return RESULT


@pytest.mark.parametrize("indent", [1, None])
def test_result_json_mutations(indent):
    res = _original()
    data = res.to_json(indent=indent).encode()

    @SETTINGS
    @given(mutations(len(data)))
    def check(muts):
        with tempfile.TemporaryDirectory() as d:
            path = Path(d) / "r.json"
            path.write_bytes(apply(data, muts))
            try:
                back = metafx.SearchResult.from_json(path)
            except metafx.MetafxError:
                return
            assert back == res

    check()


# ------------------------------------------------------------------ journal
SIG = {"search": "fuzz", "budget": 10.0}


def _journal_bytes():
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "j.jsonl"
        with Journal(path, SIG) as j:
            best = -math.inf
            for s, q in enumerate([0.3, 0.5, 0.4, 0.5, 0.7], start=1):
                best = max(best, q)
                j.append(metafx.plugin.StepRecord(step=s, point={"numInputs": s, "scatter": 1.5 + s / 10}, quality=q,
                                           cost=9.5, n_features=s, seconds=0.25, best_quality=best,
                                           accepted=q >= best, timings={"draw": 0.125}))
            records = list(j.records)
        return path.read_bytes(), records


def test_journal_mutations():
    data, records = _journal_bytes()

    @SETTINGS
    @given(mutations(len(data)))
    def check(muts):
        with tempfile.TemporaryDirectory() as d:
            path = Path(d) / "j.jsonl"
            path.write_bytes(apply(data, muts))
            try:
                with Journal(path, SIG) as j:
                    got = list(j.records)
            except metafx.MetafxError:
                return
            # a truncated tail is the crash model: a prefix of the records, never a changed one
            assert got == records[:len(got)]
            if not any(k in ("truncate", "delete") for k, _, _ in muts):
                assert len(got) >= len(records) - 1

    check()


# ------------------------------------------------------------------ IDX
def _idx():
    a = (np.arange(2 * 5 * 7) * 37 % 256).astype(np.uint8).reshape(2, 5, 7)
    raw = struct.pack(">HBB", 0, 8, 3) + struct.pack(">III", *a.shape) + a.tobytes()
    return a, raw


def test_idx_gz_mutations():
    a, raw = _idx()
    data = gzip.compress(raw, mtime=0)

    @SETTINGS
    @given(mutations(len(data)))
    def check(muts):
        with tempfile.TemporaryDirectory() as d:
            path = Path(d) / "x-idx3-ubyte.gz"
            path.write_bytes(apply(data, muts))
            try:
                got = read_idx(path)
            except metafx.MetafxError:
                return
            np.testing.assert_array_equal(got, a)
            assert got.shape == a.shape

    check()


def test_idx_plain_structural_mutations():
    a, raw = _idx()
    header = 4 + 4 * 3

    @SETTINGS
    @given(st.one_of(
        st.tuples(st.just("flip"), st.integers(0, header - 1), st.integers(1, 255)),
        mutation(len(raw), kinds=("insert", "delete", "repeat", "truncate")),
    ))
    def check(mut):
        with tempfile.TemporaryDirectory() as d:
            path = Path(d) / "x-idx3-ubyte"
            path.write_bytes(apply(raw, [mut]))
            try:
                got = read_idx(path)
            except metafx.MetafxError:
                return
            np.testing.assert_array_equal(got, a)
            assert got.shape == a.shape

    check()


def test_the_originals_load():
    res = _original()
    assert metafx.SearchResult.from_json_text(res.to_json()) == res
    data, records = _journal_bytes()
    a, raw = _idx()
    with tempfile.TemporaryDirectory() as d:
        (Path(d) / "j.jsonl").write_bytes(data)
        with Journal(Path(d) / "j.jsonl", SIG) as j:
            assert j.records == records
        (Path(d) / "x.gz").write_bytes(gzip.compress(raw))
        np.testing.assert_array_equal(read_idx(Path(d) / "x.gz"), a)
    json.loads(res.to_json())
