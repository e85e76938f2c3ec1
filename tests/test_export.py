"""metafx.export: the C99 file and the NumPy module against SearchResult.transform and the Python decision.

Every comparison is exact: features as bytes, decisions as the bits of their doubles, predictions as labels.
The C file is compiled with the system C compiler (skipped with the reason where there is none).
"""

from __future__ import annotations

import ctypes
import dataclasses
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.svm import LinearSVC

import metafx
from metafx import SearchResult, ValidationError
from metafx.cli import main
from metafx.export import to_c, to_numpy, write
from metafx.testing.export_check import compile_driver

SAVED = Path(__file__).parent / "data" / "saved_results"


# ---------------------------------------------------------------------------------------------- helpers
@pytest.fixture(scope="session")
def cc() -> str:
    for name in (os.environ.get("CC"), "cc", "gcc", "clang"):
        if name and shutil.which(name):
            return shutil.which(name)
    pytest.skip("no C compiler (cc, gcc or clang on PATH, or $CC): the exported C file cannot be compiled here")


def saved(name: str) -> SearchResult:
    return SearchResult.from_dict(json.loads((SAVED / f"{name}.json").read_text())["result"])


def bare_result(family: str, image_shape, features, **family_params) -> SearchResult:
    """A result holding ``features`` (no search: the trajectory is empty)."""
    return SearchResult(family=family, family_params={"image_shape": list(image_shape), **family_params},
                        engine="random", evaluator="cv-linear-svm", budget=1.0, seed=0, best_point={},
                        best_quality=0.0, best_step=0, features=features, total_cost=0.0, trajectory=[])


def random_specs(rng, h, w, n, max_shift, family="pixel-and"):
    specs = []
    for _ in range(n):
        k = int(rng.integers(1, 9))
        r, c, neg = rng.integers(0, h, k), rng.integers(0, w, k), rng.random(k) < 0.4
        specs.append({"family": family, "inputs": [[int(r[i]), int(c[i]), bool(neg[i])] for i in range(k)],
                      "shift": int(rng.integers(1, max_shift + 1))})
    return specs


def random_images(rng, n, h, w):
    """Images of every ink density, plus an all-0 and an all-1 image."""
    dens = rng.uniform(0.02, 0.98, (n, 1, 1))
    X = (rng.random((n, h, w)) < dens).astype(np.uint8)
    X[0], X[-1] = 0, 1
    return X


def random_classifier(rng, n_features, classes):
    rows = 1 if len(classes) <= 2 else len(classes)
    return {"classes": list(classes), "coef": rng.normal(size=(rows, n_features)).tolist(),
            "intercept": rng.normal(size=rows).tolist(), "C": None}


def ref_decision(F, coef, intercept):
    """Obviously correct: Python floats, the weights of the 1-features added in feature order, then the intercept."""
    coef, intercept = np.asarray(coef, float), np.atleast_1d(np.asarray(intercept, float))
    out = np.empty((F.shape[0], coef.shape[0]))
    for i in range(F.shape[0]):
        on = np.flatnonzero(F[i])
        for c in range(coef.shape[0]):
            s = 0.0
            for j in on:
                s += float(coef[c, j])
            out[i, c] = s + float(intercept[c])
    return out


def ref_predict(D, classes):
    classes = np.asarray(classes)
    if len(classes) == 1:
        return classes[np.zeros(len(D), np.intp)]
    if D.shape[1] == 1:
        return classes[(D[:, 0] > 0).astype(np.intp)]
    return classes[D.argmax(axis=1)]


def same_bits(a, b) -> bool:
    a, b = np.ascontiguousarray(a, np.float64), np.ascontiguousarray(b, np.float64)
    return a.shape == b.shape and np.array_equal(a.view(np.uint64), b.view(np.uint64))


class CModel:
    """The exported C file compiled with the conformance kit's batch driver (``run_batch``: the one-sample entry
    points in a loop; ``run_many``: the ``*_many`` ones) into a shared library, called through ctypes."""

    def __init__(self, source: str, tmp: Path, cc: str, name: str = "metafx_model"):
        self.name = name
        d = Path(tempfile.mkdtemp(prefix=f"c_{name}_", dir=tmp))  # one directory per compiled library
        (d / f"{name}.c").write_text(source)
        self.has_classifier = f"{name}_predict" in source
        self.lib = compile_driver(d, cc, "uint8_t", "uint8_t", self.has_classifier, name=name)

    def __call__(self, X, n_features, n_decisions):
        X = np.ascontiguousarray(X, dtype=np.uint8)
        n = X.shape[0]
        F = np.full((n, max(n_features, 1)), 7, np.uint8)  # 7: never written
        D = np.full((n, max(n_decisions, 1)), np.nan)
        P = np.full(n, -1, np.intc)
        self.lib.run_batch(X.ctypes.data, n, F.ctypes.data, D.ctypes.data, P.ctypes.data)
        return F[:, :n_features], D[:, :n_decisions], P

    def many(self, X, n_features, n_decisions):
        """``(return code, features, decisions, labels)`` of the ``*_many`` entry points on all of ``X``."""
        X = np.ascontiguousarray(X, dtype=np.uint8)
        n = X.shape[0]
        F = np.full((n, max(n_features, 1)), 7, np.uint8)
        D = np.full((n, max(n_decisions, 1)), np.nan)
        P = np.full(n, -1, np.intc)
        rc = self.lib.run_many(ctypes.c_void_p(X.ctypes.data), ctypes.c_long(n), ctypes.c_void_p(F.ctypes.data),
                               ctypes.c_void_p(D.ctypes.data), ctypes.c_void_p(P.ctypes.data))
        return rc, F[:, :n_features], D[:, :n_decisions], P


def numpy_module(source: str, tmp: Path, tag: str = "m"):
    path = tmp / f"np_{tag}_{abs(hash(source)) % 10**8}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def check_export(result, X, tmp, cc, classifier=None, name="metafx_model"):
    """C and NumPy exports of ``result`` give ``transform``'s features and the reference decision, bit for bit."""
    F = result.transform(X)
    clf = classifier if classifier is not None else getattr(result, "classifier", None)
    cm = CModel(to_c(result, classifier, name=name), tmp, cc, name=name)
    mod = numpy_module(to_numpy(result, classifier, name=name), tmp)
    rows = 0 if clf is None else (1 if len(clf["classes"]) <= 2 else len(clf["classes"]))
    cF, cD, cP = cm(X, result.n_features, rows)
    assert cF.dtype == F.dtype and np.array_equal(cF, F)
    rc, mF, mD, mP = cm.many(X, result.n_features, rows)  # the *_many entry points: the same, bit for bit
    assert rc == 0 and np.array_equal(mF, F)
    if clf is not None:
        assert same_bits(mD, cD) and np.array_equal(mP, cP)
    nF = mod.features(X)
    assert nF.dtype == np.uint8 and np.array_equal(nF, F)
    assert cm.has_classifier == (clf is not None) == hasattr(mod, "predict")
    if clf is None:
        return F, None, None
    D = ref_decision(F, clf["coef"], clf["intercept"])
    labels = ref_predict(D, clf["classes"])
    assert same_bits(cD, D)
    assert np.array_equal(np.asarray(clf["classes"])[cP], labels)
    nD = mod.decision_function(X)
    assert same_bits(nD.reshape(len(X), rows), D)
    assert np.array_equal(mod.predict(X), labels)
    return F, D, labels


# ---------------------------------------------------------------------------------------------- features
@pytest.mark.parametrize("h, w, max_shift", [(1, 1, 1), (3, 5, 1), (7, 11, 8), (13, 4, 3), (28, 28, 8), (9, 9, 2),
                                             (5, 61, 8), (3, 130, 5),  # rows of 2 and 3 words of 64 bits
                                             (300, 70, 2)])  # input codes beyond 16 bits
def test_random_features_odd_sizes(tmp_path, cc, h, w, max_shift):
    rng = np.random.default_rng(h * 100 + w)
    res = bare_result("pixel-and", (h, w), random_specs(rng, h, w, 40, max_shift))
    X = random_images(rng, 300 if h * w < 10_000 else 60, h, w)
    F, _, _ = check_export(res, X, tmp_path, cc)
    assert ("uint32_t" in to_c(res).split("_input[")[0]) == (h == 300)
    assert 0 < F.mean() < 1  # both values occur
    assert any(i[2] for s in res.features for i in s["inputs"])  # negated inputs
    # inputs at the right and bottom edges, shifted out of the image (read 0, negated 1)
    edge = [{"family": "pixel-and", "inputs": [[h - 1, w - 1, neg]], "shift": max_shift} for neg in (False, True)]
    # inputs whose shifts cross from one 64-bit word of a row to the next
    edge += [{"family": "pixel-and", "inputs": [[0, c, neg], [h - 1, c, not neg]], "shift": max_shift}
             for c in range(max(0, 56), min(w, 72)) for neg in (False, True)]
    check_export(bare_result("pixel-and", (h, w), edge), X, tmp_path, cc)


def test_real_results_on_digits(tmp_path, cc, digits):
    X, _y = digits
    for name in ("random_feature", "ranked", "optuna_tpe", "mufasa"):  # shift lengths 1 to 6
        check_export(saved(name), X, tmp_path, cc)


def test_pixels_and_local_families(tmp_path, cc, digits):
    X, _ = digits
    local = saved("local")
    assert local.family == "pixel-and-local"
    check_export(local, X, tmp_path, cc)
    rng = np.random.default_rng(1)
    pix = bare_result("pixels", (8, 8), [{"family": "pixels", "row": int(r), "col": int(c)}
                                         for r, c in rng.integers(0, 8, (20, 2))], radius=2.0)
    F, _, _ = check_export(pix, X, tmp_path, cc, classifier=random_classifier(rng, 20, ["a", "b", "c"]))
    assert np.array_equal(F, X.reshape(len(X), -1)[:, [s["row"] * 8 + s["col"] for s in pix.features]])
    for name in ("pixel-and", "pixel-and-local", "pixels"):  # the built-in image families say how they compute
        fam = metafx.plugin.make_component("family", name, {"image_shape": [8, 8]})
        assert callable(fam.export_c) and fam.export_c(fam.from_json([]), "m").n_inputs == 64


def test_grey_bytes_follow_the_results_rule_in_c_and_numpy(tmp_path, cc):
    """A result that keeps no threshold reads 0/1 images: grey bytes are refused (C writes nothing), not counted
    as 1 (which gave other predictions than Python's); with the search's threshold kept they are binarized by it.
    (tests/test_input_contract.py runs every kind of input through every entry point.)"""
    rng = np.random.default_rng(2)
    res = bare_result("pixel-and", (6, 7), random_specs(rng, 6, 7, 30, 3))
    X = random_images(rng, 100, 6, 7)
    grey = (X * rng.integers(128, 256, X.shape)).astype(np.uint8)
    grey[:, 0, 0] = 200  # every image holds a grey level
    cm = CModel(to_c(res), tmp_path, cc)
    assert (cm(grey, 30, 0)[0] == 7).all()  # refused: nothing written
    mod = numpy_module(to_numpy(res), tmp_path)
    with pytest.raises(ValueError, match="is not binary"):
        mod.features(grey)
    with pytest.raises(metafx.ValidationError, match="is not binary"):
        res.transform(grey)
    with pytest.raises(ValueError, match=r"\(n, 6, 7\)"):
        mod.features(X[:, :5])
    assert np.array_equal(mod.features(X.reshape(100, -1).astype(bool)), res.transform(X))
    res.binarization = {"threshold": 128.0, "range": [0, 255]}
    F = res.transform(grey)
    assert np.array_equal(F, res.transform(grey >= 128))
    assert np.array_equal(CModel(to_c(res), tmp_path, cc)(grey, 30, 0)[0], F)
    assert np.array_equal(numpy_module(to_numpy(res), tmp_path, "t").features(grey), F)


# ---------------------------------------------------------------------------------------------- classifier
def test_linear_svm_on_digits(tmp_path, cc, digits):
    from sklearn.svm import LinearSVC

    X, y = digits
    res = saved("random_feature")
    Ftr = res.transform(X[:1000])
    for yy in (y, np.where(y == 3, "three", "other")):  # 10 classes, then 2 (string labels)
        svc = LinearSVC(C=0.1, max_iter=5000).fit(Ftr, yy[:1000])
        clf = {"classes": svc.classes_.tolist(), "coef": svc.coef_.tolist(), "intercept": svc.intercept_.tolist()}
        F, D, labels = check_export(res, X, tmp_path, cc, classifier=clf)
        # the Python model: its sparse product adds in the same order, bit for bit
        Fs = sp.csr_matrix(F.astype(np.float64))
        assert same_bits(svc.decision_function(Fs).reshape(D.shape), D)
        assert np.array_equal(svc.predict(Fs), labels)
        # its dense (BLAS) product may round differently in the last bits; no prediction here is that close
        assert np.allclose(svc.decision_function(F).reshape(D.shape), D, rtol=0, atol=1e-12)
        assert np.array_equal(svc.predict(F), labels)
        # an estimator is taken as well as a dict
        assert to_c(res, svc) == to_c(res, clf)


def test_classifier_read_from_the_result(tmp_path, cc, digits):
    X, _ = digits
    res = saved("ranked")
    rng = np.random.default_rng(3)
    clf = random_classifier(rng, res.n_features, range(10))
    res.classifier = clf  # the field a result carries once a classifier is fitted on it
    check_export(res, X[:400], tmp_path, cc)
    assert "_predict" not in to_c(res, classifier=False) and "def predict" not in to_numpy(res, classifier=False)
    fitted = getattr(metafx, "FeatureClassifier", None)
    if fitted is not None:  # the library's own fitted model: the same decisions, bit for bit
        model = fitted.from_result(res)
        _F, D, labels = check_export(res, X[:400], tmp_path, cc)
        assert same_bits(np.asarray(model.decision_function(X[:400])).reshape(D.shape), D)
        assert np.array_equal(model.predict(X[:400]), labels)


def test_ties_near_ties_and_order(tmp_path, cc):
    """Decisions exactly 0, equal classes, sums that float (or another order) would get wrong."""
    from sklearn.svm import LinearSVC

    # single-pixel features: an image sets the features directly
    res = bare_result("pixels", (1, 4), [{"family": "pixels", "row": 0, "col": j} for j in range(4)])
    X = np.array([[[int(b) for b in f"{i:04b}"]] for i in range(16)], np.uint8)
    eps = 2.0**-52
    cases = [
        # (coef rows, intercept, classes)
        ([[0.5, -0.5, 0.25, -0.25]], [0.0], [0, 1]),  # exact ties: decision 0 -> classes[0]
        ([[0.5, -0.5, 0.25, -0.25]], [-0.0], [0, 1]),  # signed zero
        ([[1.0, -(1 - eps), 0.0, 0.0]], [0.0], [0, 1]),  # 2**-52 > 0 in double; 0 in float
        ([[1e16, 1.0, -1e16, 0.0]], [0.0], [0, 1]),  # in order 0 (1 is lost), another order gives 1
        ([[0.1, 0.2, 0.3, 0.0]], [-0.6], [0, 1]),  # 0.1 + 0.2 + 0.3 - 0.6 = 1.1e-16 in this order
        ([[1.0, 0, 0, 0], [1.0, 0, 0, 0], [0, 0, 0, 1.0]], [0.0, 0.0, 0.0], [7, 8, 9]),  # equal classes: first wins
        ([[0.0] * 4], [1.0], ["only"]),  # one class
    ]
    for coef, b, classes in cases:
        clf = {"classes": classes, "coef": coef, "intercept": b}
        F, D, labels = check_export(res, X, tmp_path, cc, classifier=clf)
        if len(classes) >= 2:  # a LinearSVC carrying these weights predicts the same (its sparse product)
            svc = LinearSVC().fit(np.eye(4)[: len(classes)], classes)
            svc.coef_, svc.intercept_ = np.array(coef), np.array(b)
            assert np.array_equal(svc.predict(sp.csr_matrix(F.astype(float))), labels)
    # the near-tie that float32 would lose, and the order it depends on
    D = ref_decision(X.reshape(16, 4), [[1.0, -(1 - eps), 0.0, 0.0]], [0.0])
    assert D[12, 0] == eps and np.float32(1.0) + np.float32(-(1 - eps)) == 0
    D = ref_decision(X.reshape(16, 4), [[1e16, 1.0, -1e16, 0.0]], [0.0])
    assert D[14, 0] == 0.0 and (1e16 - 1e16) + 1.0 == 1.0


@pytest.mark.parametrize("bad", [0, 63, 64, 129])  # first, end of a block of 64, start of one, last
def test_many_at_once_refuse_the_batch_of_one_refused_image(tmp_path, cc, digits, bad):
    """One image the rule refuses (grey bytes for a result searched on 0/1 images) in a batch: every ``*_many``
    function returns -1 and writes nothing, before computing any image; without it, the batch is Python's."""
    X, y = digits
    res = saved("mufasa")
    clf = LinearSVC(C=0.1).fit(res.transform(X), y)
    cm = CModel(to_c(res, clf), tmp_path, cc)
    rows = len(clf.classes_)
    B = X[:130].copy()
    rc, F, D, P = cm.many(B, res.n_features, rows)
    assert rc == 0 and np.array_equal(F, res.transform(B)) and np.array_equal(clf.classes_[P], clf.predict(F))
    B[bad, 3, 3] = 200
    rc, F, D, P = cm.many(B, res.n_features, rows)
    assert rc == -1 and (F == 7).all() and np.isnan(D).all() and (P == -1).all()


def test_empty_feature_set(tmp_path, cc, digits):
    X, _ = digits
    res = bare_result("pixel-and", (8, 8), [])
    check_export(res, X[:50], tmp_path, cc)
    for clf in ({"classes": [0, 1], "coef": np.zeros((1, 0)), "intercept": [-1.0]},
                {"classes": [0, 1, 2], "coef": np.zeros((3, 0)), "intercept": [-1.0, 1.0, -1.0]},
                {"classes": [4], "coef": np.zeros((1, 0)), "intercept": [1.0]}):
        _, _D, labels = check_export(res, X[:50], tmp_path, cc, classifier=clf)
        assert len(set(labels)) == 1


def test_strict_c99_and_fast_math_is_refused(tmp_path, cc):
    res = bare_result("pixels", (2, 2), [{"family": "pixels", "row": 0, "col": 0}])
    src = to_c(res, {"classes": [0, 1], "coef": [[1.0]], "intercept": [0.0]})
    (tmp_path / "m.c").write_text(src)
    # the file compiles alone, as strict C99 with every warning an error
    subprocess.run([cc, "-std=c99", "-pedantic", "-Wall", "-Wextra", "-Werror", "-O2", "-c", "m.c"], cwd=tmp_path,
                   check=True, capture_output=True)
    out = subprocess.run([cc, "-std=c99", "-O2", "-ffast-math", "-c", "m.c"], cwd=tmp_path, capture_output=True,
                         text=True)
    if "__FAST_MATH__" not in subprocess.run([cc, "-ffast-math", "-dM", "-E", "-"], input="", capture_output=True,
                                             text=True).stdout:
        pytest.skip(f"{cc} does not define __FAST_MATH__ under -ffast-math")
    assert out.returncode != 0 and "ffast-math" in out.stderr
    # features alone need no floating point: no such check
    assert "#error" not in to_c(res)


def test_numpy_module_needs_numpy_only(tmp_path):
    res = saved("random_feature")
    clf = random_classifier(np.random.default_rng(4), res.n_features, range(10))
    path = tmp_path / "model.py"
    write(res, path, classifier=clf)
    src = path.read_text()
    assert "metafx" not in [line.split()[1] for line in src.splitlines() if line.startswith(("import ", "from "))]
    code = ("import sys; sys.modules['metafx'] = None; sys.modules['numba'] = None; sys.modules['sklearn'] = None\n"
            "import numpy as np, model\n"
            "X = (np.random.default_rng(0).random((5, 64)) < 0.5).astype(np.uint8)\n"
            "print(model.features(X).sum(), model.predict(X).tolist())")
    run = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(tmp_path)})
    assert run.returncode == 0, run.stderr
    mod = numpy_module(src, tmp_path)
    X = (np.random.default_rng(0).random((5, 64)) < 0.5).astype(np.uint8)
    assert run.stdout.split()[0] == str(int(mod.features(X).sum()))


@pytest.mark.mnist
def test_mnist(tmp_path, cc, mnist):
    from sklearn.svm import LinearSVC

    X, y = mnist
    Xtr, ytr, Xte = X[:1000], y[:1000], X[-2000:]
    res = metafx.search(Xtr, ytr, budget=150, steps=2, seed=0, progress=False, fixed={"shiftInvLen": 3})
    svc = LinearSVC(C=0.1, max_iter=3000).fit(res.transform(Xtr), ytr)
    clf = {"classes": svc.classes_.tolist(), "coef": svc.coef_.tolist(), "intercept": svc.intercept_.tolist()}
    F, _D, labels = check_export(res, Xte, tmp_path, cc, classifier=clf)
    assert np.array_equal(svc.predict(sp.csr_matrix(F.astype(float))), labels)
    rng = np.random.default_rng(5)
    wide = bare_result("pixel-and", (28, 28), random_specs(rng, 28, 28, 200, 8))
    check_export(wide, Xte[:500], tmp_path, cc)


# ---------------------------------------------------------------------------------------------- refusals
def test_families_without_export_are_refused():
    """A family that does not implement export_c / export_numpy gets one clear error naming the method."""
    from metafx.plugin import FeatureFamily

    class NoExport(FeatureFamily):
        name = "no-export"
        data_kind = "table"

    NoExport.__abstractmethods__ = frozenset()  # only its export methods matter here
    res = dataclasses.replace(saved("mufasa"), family="no-export", family_params={}, features=[])
    res.get_family = lambda: NoExport()  # the result rebuilds its family by name: stand the class in
    for fn, method in ((to_c, "export_c"), (to_numpy, "export_numpy")):
        with pytest.raises(ValidationError, match=rf"family 'no-export' cannot be exported: it has no {method}"):
            fn(res)


@pytest.mark.parametrize("clf, match", [
    ({"classes": [0, 1], "coef": [[1.0, 2.0]]}, r"coef has shape \(1, 2\); .* must be \(1, 60\)"),
    ({"classes": [0, 1, 2], "coef": np.zeros((1, 60))}, r"must be \(3, 60\)"),
    ({"classes": [0, 1], "coef": np.full((1, 60), np.nan)}, "finite"),
    ({"classes": [0, 1], "coef": np.zeros((1, 60)), "intercept": [1.0, 2.0]}, "intercept has shape"),
    ({"classes": [0, 0], "coef": np.zeros((1, 60))}, "repeated"),
    ({"classes": [0, "a"], "coef": np.zeros((1, 60))}, "must all be integers"),
    ({"classes": [], "coef": np.zeros((1, 60))}, "non-empty"),
    ({"coef": np.zeros((1, 60))}, "lacks"),
    ("svm", "must be a dict"),
])
def test_bad_classifier(clf, match):
    with pytest.raises(ValidationError, match=match):
        to_c(saved("mufasa"), clf)


def test_bad_name_and_path(tmp_path):
    res = saved("mufasa")
    for bad in ("1model", "int", "a-b", "", "x" * 64, "class"):
        with pytest.raises(ValidationError, match="must be a C identifier"):
            to_c(res, name=bad)
    with pytest.raises(ValidationError, match="to='c' or to='numpy'"):
        write(res, tmp_path / "model.txt")
    with pytest.raises(ValidationError, match="to='fortran' is not an export format"):
        write(res, tmp_path / "model.c", to="fortran")
    with pytest.raises(ValidationError, match="does not exist"):
        write(res, tmp_path / "nowhere" / "model.c")
    assert write(res, tmp_path / "m.py", name="digits_model").read_text().startswith('"""digits_model: generated')


# ---------------------------------------------------------------------------------------------- command line
def test_cli_export(tmp_path, cc, capsys, digits):
    X, _ = digits
    res = saved("random_feature")
    res.to_json(tmp_path / "r.json")
    assert main(["export", str(tmp_path / "r.json"), "--to", "c", "--out", str(tmp_path / "m.c"),
                 "--name", "digits_model"]) == 0
    out, err = capsys.readouterr()
    assert "wrote" in out and "no classifier" in err
    src = (tmp_path / "m.c").read_text()
    assert src == to_c(res, name="digits_model", source="r.json")
    cm = CModel(src, tmp_path, cc, name="digits_model")
    assert np.array_equal(cm(X, res.n_features, 0)[0], res.transform(X))
    assert main(["export", str(tmp_path / "r.json"), "--out", str(tmp_path / "m.py")]) == 0  # --to from the suffix
    assert np.array_equal(numpy_module((tmp_path / "m.py").read_text(), tmp_path).features(X), res.transform(X))
    capsys.readouterr()
    assert main(["export", str(tmp_path / "r.json"), "--to", "numpy"]) == 0  # no --out: standard output
    assert capsys.readouterr().out.startswith('"""metafx_model: generated')


@pytest.mark.parametrize("argv, match", [
    (["--to", "c", "--out", "{tmp}/m.c", "--name", "9x"], "name='9x' must be a C identifier"),
    (["--out", "{tmp}/m.txt"], "give --to c or --to numpy"),
    (["--to", "c", "--out", "{tmp}/no/m.c"], "does not exist"),
])
def test_cli_export_bad_input(tmp_path, capsys, argv, match):
    saved("mufasa").to_json(tmp_path / "r.json")
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    assert main(["export", str(tmp_path / "r.json"), *argv]) == 2
    err = capsys.readouterr().err
    assert match in err and len(err.strip().splitlines()) == 1


def test_cli_export_of_a_tabular_result(tmp_path, capsys):
    """A tabular result exports from the command line (the family implements export_c); an operator the export
    does not support is one line, exit 2, and no file."""
    pytest.importorskip("metafx_tabular")
    from metafx_tabular import TableExtractor  # noqa: F401  (the plugin is installed: its family is registered)

    rng = np.random.default_rng(0)
    Xt = rng.normal(size=(120, 4))
    yt = (Xt[:, 0] > 0).astype(int)
    res = metafx.search(Xt, yt, family="tabular", budget=10, steps=2, seed=0, progress=False,
                        family_params={"operators": ["threshold", "mul"]})
    res.to_json(tmp_path / "t.json")
    assert main(["export", str(tmp_path / "t.json"), "--to", "c", "--out", str(tmp_path / "t.c")]) == 0
    assert "t_features" in (tmp_path / "t.c").read_text() or "metafx_model_features" in (tmp_path / "t.c").read_text()
    res = metafx.search(np.abs(Xt) + 1, yt, family="tabular", budget=10, steps=2, seed=0, progress=False,
                        family_params={"operators": ["log"]})
    if any("log(" in n for n in res.feature_names()):
        res.to_json(tmp_path / "l.json")
        capsys.readouterr()
        assert main(["export", str(tmp_path / "l.json"), "--to", "c", "--out", str(tmp_path / "l.c")]) == 2
        err = capsys.readouterr().err
        assert "uses the operator 'log'" in err and len(err.strip().splitlines()) == 1
        assert not (tmp_path / "l.c").exists()


def test_docstring_example():
    import doctest

    import metafx.export

    res = doctest.testmod(metafx.export)
    assert res.attempted > 0 and res.failed == 0
