"""One input contract from the training images to the device (issue 47).

Every kind of new image (0/1 bytes, bool, grey bytes 0-255, floats in [0, 1], grey floats 0-255, uint16 within
and beyond 0-255) goes through every entry point (``SearchResult.transform``, ``FeatureClassifier`` fit and
predict, ``metafx transform``, ``metafx predict``, the NumPy export and the C export), for a result of each rule
(searched on grey bytes by the command line: threshold 128 on [0, 255]; searched in Python on 0/1 images: no
threshold; written before the rule was kept: the threshold of ``metadata["data"]``).  Each entry point either gives
the answer of the family on the images binarized by the rule, or the one refusal (the same message, in the entry
point's words for the input; the C file returns -1 and writes nothing).
"""

from __future__ import annotations

import ctypes
import importlib.util
import json
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import metafx
from metafx import FeatureClassifier, SearchResult
from metafx.cli import main
from metafx.export import to_c, to_numpy

N = 60  # new images of each kind


def _digits_grey() -> tuple[np.ndarray, np.ndarray]:
    """scikit-learn's digits as grey bytes 0-255 (the 0-16 levels scaled), labels."""
    from sklearn.datasets import load_digits

    d = load_digits()
    return np.round(d.images * (255 / 16)).astype(np.uint8), d.target.astype(np.int64)


@pytest.fixture(scope="module")
def grey_digits():
    return _digits_grey()


@pytest.fixture(scope="module")
def results(grey_digits, tmp_path_factory):
    """``{rule: (result file, result)}`` for the three rules."""
    tmp = tmp_path_factory.mktemp("contract")
    X, y = grey_digits
    np.savez(tmp / "train.npz", X=X[:600], y=y[:600])
    grey = tmp / "grey.json"
    assert main(["search", "--data", str(tmp / "train.npz"), "--budget", "60", "--steps", "3", "--no-progress",
                 "--out", str(grey)]) == 0
    res = SearchResult.from_json(grey)
    assert res.binarization == {"threshold": 128.0, "range": [0.0, 255.0], "seen": [0.0, 255.0]}
    assert res.classifier is not None
    # written before the rule was kept: no binarization field, the threshold only in metadata["data"]
    old = tmp / "old.json"
    d = json.loads(grey.read_text())
    del d["binarization"], d["checksum"]
    old.write_text(json.dumps(d))
    assert SearchResult.from_json(old).binarization is None
    # a Python search on 0/1 images (it keeps no threshold)
    B = (X[:600] >= 128).astype(np.uint8)
    py = metafx.search(B, y[:600], budget=60, steps=3, seed=0, progress=False)
    py.fit_classifier(B, y[:600])
    binary = tmp / "binary.json"
    py.to_json(binary)
    return {"grey": grey, "old": old, "binary": binary}


def _kinds(G: np.ndarray) -> dict[str, np.ndarray]:
    """New images of every kind, from grey bytes ``G``."""
    return {"binary bytes": (G >= 128).astype(np.uint8), "bool": G >= 128, "grey bytes": G,
            "floats in [0, 1]": G / 255.0, "grey floats 0-255": G.astype(np.float64),
            "uint16 in 0-255": G.astype(np.uint16), "uint16 0-65535": G.astype(np.uint16) * 257}


KINDS = list(_kinds(np.zeros((1, 1), np.uint8)))
ENTRIES = ["transform", "FeatureClassifier.fit", "FeatureClassifier.predict", "metafx transform",
           "metafx predict", "numpy export", "C export", "C export, many at once"]


def expected(rule: str, kind: str, G: np.ndarray) -> np.ndarray | str:
    """The binarized images the rule makes of this kind, or the words of its refusal."""
    if kind in ("binary bytes", "bool"):
        return (G >= 128).astype(np.uint8)  # 0/1 images: taken as they are under every rule
    if rule == "binary":
        return "is not binary"  # a result searched on 0/1 images keeps no threshold
    if kind == "floats in [0, 1]":
        return "every pixel would be 0"  # fractions against grey levels 0-255 at 128: refused, not zeroed
    if kind == "uint16 0-65535":
        return "outside the range of the images the result was searched on"
    return (G >= 128).astype(np.uint8)  # grey levels in 0-255: binarized at the stored 128


# ---------------------------------------------------------------------------------------------- entry points
def _cc() -> str | None:
    for name in (os.environ.get("CC"), "cc", "gcc", "clang"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


class _C:
    """The exported C file compiled (``-std=c99 -Wall -Werror``) with a driver keeping every return code."""

    def __init__(self, source: str, d: Path, name: str = "m") -> None:
        d.mkdir()
        (d / f"{name}.c").write_text(source)
        N_ = name.upper()
        (d / "driver.c").write_text("\n".join([
            f'#include "{name}.c"',
            "void run(const uint8_t *img, long n, uint8_t *feats, int *rc, int *pred) {",
            "    long i;",
            "    for (i = 0; i < n; ++i) {",
            f"        const uint8_t *x = img + i * {N_}_HEIGHT * {N_}_WIDTH;",
            f"        rc[i] = {name}_features(x, feats + i * {N_}_N_FEATURES);",
            f"        pred[i] = {name}_predict(x);",
            "    }",
            "}",
            "void run_many(const uint8_t *img, long n, uint8_t *feats, int *rc, int *pred) {",
            f"    rc[0] = {name}_features_many(img, n, feats);",
            f"    rc[1] = {name}_predict_many(img, n, pred);",
            "}", ""]))
        cc = _cc()
        assert cc is not None
        subprocess.run([cc, "-std=c99", "-pedantic", "-Wall", "-Wextra", "-Werror", "-O2", "-shared", "-fPIC",
                        "driver.c", "-o", "lib.so"], cwd=d, check=True, capture_output=True)
        self.lib = ctypes.CDLL(str(d / "lib.so"))
        self.lib.run.restype = None

    def __call__(self, X: np.ndarray, n_features: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        X = np.ascontiguousarray(X, dtype=np.uint8)
        n = X.shape[0]
        F = np.full((n, max(n_features, 1)), 7, np.uint8)  # 7: never written
        rc = np.full(n, 5, np.intc)
        pred = np.full(n, 5, np.intc)
        self.lib.run(ctypes.c_void_p(X.ctypes.data), ctypes.c_long(n), ctypes.c_void_p(F.ctypes.data),
                     ctypes.c_void_p(rc.ctypes.data), ctypes.c_void_p(pred.ctypes.data))
        return F[:, :n_features], rc, pred

    def many(self, X: np.ndarray, n_features: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The ``*_many`` entry points on all of ``X`` at once: features, the two return codes, labels."""
        X = np.ascontiguousarray(X, dtype=np.uint8)
        n = X.shape[0]
        F = np.full((n, max(n_features, 1)), 7, np.uint8)
        rc = np.full(2, 5, np.intc)
        pred = np.full(n, 5, np.intc)
        self.lib.run_many(ctypes.c_void_p(X.ctypes.data), ctypes.c_long(n), ctypes.c_void_p(F.ctypes.data),
                          ctypes.c_void_p(rc.ctypes.data), ctypes.c_void_p(pred.ctypes.data))
        return F[:, :n_features], rc, pred


@pytest.fixture(scope="module")
def exported(results, tmp_path_factory):
    """``{rule: (numpy module, C model or None)}``."""
    tmp = tmp_path_factory.mktemp("exports")
    out = {}
    for rule, path in results.items():
        res = SearchResult.from_json(path)
        src = tmp / f"np_{rule}.py"
        src.write_text(to_numpy(res))
        spec = importlib.util.spec_from_file_location(f"np_{rule}", src)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        out[rule] = (mod, _C(to_c(res, name="m"), tmp / f"c_{rule}") if _cc() else None)
    return out


def _python_error(fn) -> str | None:
    try:
        fn()
    except metafx.ValidationError as e:
        return str(e)
    return None


def _cli(argv: list[str], capsys) -> tuple[int, str]:
    code = main(argv)
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert not any("Traceback" in line for line in lines)
    return code, (lines[-1] if lines else "")


@pytest.mark.parametrize("entry", ENTRIES)
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("rule", ["grey", "old", "binary"])
def test_every_input_through_every_entry_point(rule, kind, entry, results, exported, grey_digits, tmp_path, capsys):
    G, y = grey_digits[0][1000:1000 + N], grey_digits[1][1000:1000 + N]
    X = _kinds(G)[kind]
    path = results[rule]
    res = SearchResult.from_json(path)
    want = expected(rule, kind, G)
    family, batch = res.feature_batch()
    clf = FeatureClassifier.from_result(res)
    if isinstance(want, np.ndarray):
        F_ref = family.transform(want, batch)  # the family itself, on the binarized images
        P_ref = clf.predict(want)
    # the one refusal, in Python's words (name X): every entry point says the same of its input
    refusal = _python_error(lambda: res.transform(X))
    if isinstance(want, str):
        assert refusal is not None and want in refusal, refusal
        assert "\n" not in refusal

    def same_refusal(message: str, name: str) -> None:
        assert message.startswith(name + " ") and "X" + message[len(name):] == refusal, (message, refusal)

    if entry == "transform":
        if isinstance(want, str):
            return  # checked above
        assert np.array_equal(res.transform(X), F_ref)
    elif entry == "FeatureClassifier.fit":
        fit = lambda Z: FeatureClassifier(res, C=0.1).fit(Z, y)  # noqa: E731
        if isinstance(want, str):
            same_refusal(_python_error(lambda: fit(X)), "X")
        else:
            a, b = fit(X), fit(want)
            assert np.array_equal(a.coef_, b.coef_) and np.array_equal(a.intercept_, b.intercept_)
    elif entry == "FeatureClassifier.predict":
        if isinstance(want, str):
            same_refusal(_python_error(lambda: clf.predict(X)), "X")
        else:
            assert np.array_equal(clf.predict(X), P_ref)
    elif entry in ("metafx transform", "metafx predict"):
        data = tmp_path / "new.npy"
        np.save(data, X)
        if entry == "metafx transform":
            out = tmp_path / "f.npy"
            code, line = _cli(["transform", str(path), "--data", str(data), "--out", str(out)], capsys)
        else:
            out = tmp_path / "labels.csv"
            code, line = _cli(["predict", str(path), "--data", str(data), "--out", str(out)], capsys)
        if isinstance(want, str):
            assert code == 2 and not out.exists()
            assert line.startswith("metafx: error: ")
            same_refusal(line[len("metafx: error: "):], f"--data {data}")
        elif entry == "metafx transform":
            assert code == 0 and np.array_equal(np.load(out), F_ref)
        else:
            assert code == 0
            rows = out.read_text().splitlines()
            assert rows[0] == "label" and [int(v) for v in rows[1:]] == P_ref.tolist()
    elif entry == "numpy export":
        mod = exported[rule][0]
        if isinstance(want, str):
            with pytest.raises(ValueError) as e:
                mod.features(X)
            same_refusal(str(e.value), "x")
            with pytest.raises(ValueError):
                mod.predict(X)
        else:
            assert np.array_equal(mod.features(X), F_ref) and np.array_equal(mod.predict(X), P_ref)
    else:  # the C export: images of bytes (uint8_t *); other dtypes cannot reach it unconverted
        cm = exported[rule][1]
        if cm is None:
            pytest.skip("no C compiler (cc, gcc or clang on PATH, or $CC)")
        assert "int m_features(const uint8_t *image, uint8_t *out)" in to_c(res, name="m")
        if X.dtype not in (np.uint8, np.bool_):
            pytest.skip(f"the C functions take bytes (uint8_t); {kind} ({X.dtype}) are converted by the caller")
        if entry == "C export":
            F, rc, pred = cm(X, res.n_features)
        else:
            F, rc, pred = cm.many(X, res.n_features)
        if isinstance(want, str):
            refused = -1 if entry == "C export" else 5  # the *_many functions write no label at all
            assert (rc == -1).all() and (pred == refused).all() and (F == 7).all()  # refused, nothing written
        else:
            assert (rc == 0).all() and np.array_equal(F, F_ref)
            assert np.array_equal(np.asarray(res.classifier["classes"])[pred], P_ref)


def test_the_rule_is_one_function():
    """The NumPy export carries the source of the one function every Python entry point calls."""
    import inspect

    from metafx.core import binarization

    res = metafx.search(np.eye(8, dtype=np.uint8)[None].repeat(20, 0) ^ (np.arange(20) % 2)[:, None, None],
                        np.arange(20) % 2, budget=10, steps=1, progress=False)
    assert inspect.getsource(binarization.binarize_input) in to_numpy(res)


def test_a_threshold_that_leaves_every_pixel_alike_is_refused_before_the_search(tmp_path, capsys, grey_digits):
    X, y = grey_digits
    np.savez(tmp_path / "d.npz", X=X[:200], y=y[:200])
    for t, words in (("300", "every pixel would be 0"), ("0", "every pixel would be 1")):
        code, line = _cli(["search", "--data", str(tmp_path / "d.npz"), "--threshold", t, "--steps", "50",
                           "--no-progress", "--out", str(tmp_path / "o.json")], capsys)
        assert code == 2 and "--threshold" in line and words in line and "[0, 255]" in line, line


@pytest.mark.parametrize("rule", [{"threshold": 8.0, "range": [0.0, 16.0]},  # digits' 0-16 levels (metafx search
                                  {"threshold": 0.5, "range": [0.0, 1.0]},  # --data digits), fractions of 1
                                  {"threshold": 100.5, "range": [3.0, 250.0]}])  # a threshold between bytes
def test_other_ranges_in_c_numpy_and_python(rule, results, tmp_path):
    """The C binarizer's byte bounds and threshold follow any stored rule as Python does, image by image."""
    if _cc() is None:
        pytest.skip("no C compiler (cc, gcc or clang on PATH, or $CC)")
    res = SearchResult.from_json(results["grey"])
    res.binarization = rule
    cm = _C(to_c(res, name="m"), tmp_path / "c")
    src = tmp_path / "np_rule.py"
    src.write_text(to_numpy(res))
    spec = importlib.util.spec_from_file_location("np_rule", src)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    rng = np.random.default_rng(0)
    outcomes = set()
    for high in (1, 2, 16, 17, 249, 250, 251, 255):
        X = rng.integers(0, high + 1, (40, 8, 8)).astype(np.uint8)
        if high >= 3:
            X[:20] = rng.integers(3, high + 1, (20, 8, 8))  # half the images of values 3 and up
        X[:, 0, 0] = high  # every image reaches the top of its range
        F, rc, pred = cm(X, res.n_features)
        outcomes |= set(rc.tolist())
        for i in range(len(X)):
            one = X[i:i + 1]
            refusal = _python_error(lambda one=one: res.transform(one))
            if refusal is None:
                assert rc[i] == 0 and np.array_equal(F[i:i + 1], res.transform(one))
                assert np.array_equal(mod.features(one), res.transform(one))
            else:
                assert rc[i] == -1 and pred[i] == -1 and (F[i] == 7).all()
                with pytest.raises(ValueError):
                    mod.features(one)
    assert outcomes == {0, -1}  # both answers and refusals were compared
