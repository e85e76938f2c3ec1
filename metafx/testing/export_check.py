"""Checks a plugin author runs on their family's export and speed (``docs/plugins.md``, "Export" and
"Performance").

* :func:`check_export`: a result's C file compiles with ``cc -std=c99 -Wall -Wextra -Werror -pedantic`` and,
  like the NumPy module, computes the features, decisions and predictions of Python bit for bit;
* :func:`check_family_speed`: a search per engine on the author's data, its time split between the family's
  draw and compute, the engine's own work and the evaluation, with notes on what sends an engine down a slow
  path.
"""

from __future__ import annotations

import ctypes
import importlib.util
import shutil
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .._kernels.packing import popcount_rows
from ..core.values import FeatureValues, is_binary
from ..export import to_c, to_numpy
from ..learn.classifier import FeatureClassifier
from ..loop.api import search

__all__ = ["SpeedReport", "check_export", "check_family_speed"]


def _python_side(result: Any, X: Any) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
    """The features as the classifier reads them, its decisions and its predictions."""
    fam, batch = result.feature_batch()
    prepared = fam.prepare(X)
    F = fam.compute(prepared, batch).dense(np.float64)
    D = P = None
    if getattr(result, "classifier", None) is not None:
        clf = FeatureClassifier.from_result(result)
        D = np.asarray(clf.decision_function(X), dtype=np.float64).reshape(len(F), -1)
        P = np.asarray(clf.predict(X))
    return F, D, P


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    a, b = np.ascontiguousarray(a, np.float64), np.ascontiguousarray(b, np.float64)
    return a.shape == b.shape and np.array_equal(a.view(np.uint64), b.view(np.uint64))


def check_export(result: Any, X: Any, *, cc: str | None = None, tmp_dir: str | Path | None = None) -> dict[str, Any]:
    """Check that ``result``'s exports compute what Python computes on the samples ``X``, bit for bit.

    The NumPy module (:func:`metafx.export.to_numpy`) is imported and run; the C file
    (:func:`metafx.export.to_c`) is compiled with ``cc`` (default: ``$CC``-free lookup of ``cc``, ``gcc``,
    ``clang``) as ``-std=c99 -pedantic -Wall -Wextra -Werror -O2`` into a shared library with a small driver
    and run through ctypes.  Compared with Python: the features as the classifier reads them
    (``family.compute``), and with a classifier (``result.classifier``) its decisions and predictions.
    The C file is run twice: one sample at a time (``NAME_features``, ``NAME_decision``, ``NAME_predict``) and
    all at once (``NAME_features_many`` ..., bit-sliced 64 samples at a time for a family whose export gives
    ``code_many``).  Raises ``AssertionError`` saying what differs; returns ``{"c": bool, "numpy": True, "n": len(X)}``
    (``"c"`` False when no C compiler was found).  ``X`` must be in the layout the exported code reads:
    images ``(n, H, W)`` of 0/1 for an image family, a numeric table ``(n, n_columns)`` for a table family.
    """
    F, D, P = _python_side(result, X)
    classes = None if getattr(result, "classifier", None) is None else np.asarray(result.classifier["classes"])
    work = Path(tempfile.mkdtemp(prefix="metafx_export_", dir=tmp_dir))
    # NumPy
    src = to_numpy(result)
    path = work / "exported_model.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location("exported_model", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    nF = np.asarray(mod.features(X), dtype=np.float64)
    assert _same_bits(nF, F), "the NumPy export's features differ from Python's (family.compute)"
    if D is not None:
        nD = np.asarray(mod.decision_function(X), dtype=np.float64).reshape(D.shape)
        assert _same_bits(nD, D), "the NumPy export's decisions differ from FeatureClassifier.decision_function"
        assert P is not None and np.array_equal(mod.predict(X), P), "the NumPy export's predictions differ from FeatureClassifier"
    # C
    compiler = cc or next((c for c in ("cc", "gcc", "clang") if shutil.which(c)), None)
    if compiler is None:
        return {"c": False, "numpy": True, "n": len(F)}
    fam, batch = result.feature_batch()
    fx = fam.export_c(batch, "metafx_model")
    rows = np.ascontiguousarray(np.asarray(X).reshape(len(F), -1))
    binary_in = fx.input_type == "binary"
    rows = rows.astype(np.uint8) if binary_in else rows.astype(np.float64)
    in_t = "uint8_t" if binary_in else "double"
    binary_out = fx.value_type == "binary"
    out_t = "uint8_t" if binary_out else "double"
    n_dec = 0 if D is None else D.shape[1]
    (work / "metafx_model.c").write_text(to_c(result))
    lib = compile_driver(work, compiler, in_t, out_t, D is not None)
    n, k = F.shape
    for how in ("one at a time", "_many"):  # NAME_features / _decision / _predict, then the *_many entry points
        cF = np.zeros((n, max(k, 1)), dtype=np.uint8 if binary_out else np.float64)
        cD = np.full((n, max(n_dec, 1)), np.nan)
        cP = np.full(n, -1, np.intc)
        rc = (lib.run_batch if how == "one at a time" else lib.run_many)(
            rows.ctypes.data, n, cF.ctypes.data, cD.ctypes.data, cP.ctypes.data)
        what = "C export's" if how == "one at a time" else "C export's *_many"
        assert rc == 0, f"the {what} entry points refused the samples (-1)"
        assert _same_bits(cF[:, :k], F), f"the {what} features differ from Python's (family.compute)"
        if D is not None and classes is not None:
            assert _same_bits(cD[:, :n_dec], D), f"the {what} decisions differ from FeatureClassifier.decision_function"
            assert P is not None and np.array_equal(classes[cP], P), f"the {what} predictions differ from FeatureClassifier.predict"
    return {"c": True, "numpy": True, "n": n}


def compile_driver(work: Path, compiler: str, in_t: str, out_t: str, classifier: bool,
                   name: str = "metafx_model") -> Any:
    """``<name>.c`` in ``work`` compiled (``-std=c99 -pedantic -Wall -Wextra -Werror -O2``) with a driver of two
    functions, ``run_batch`` (the one-sample entry points in a loop) and ``run_many`` (the ``*_many`` ones), each
    ``int f(const in_t *x, long n, out_t *feats, double *dec, int *pred)``, loaded through ctypes."""
    N = name.upper()
    args = f"const {in_t} *x, long n, {out_t} *feats, double *dec, int *pred"
    driver = [f'#include "{name}.c"',
              f"int run_batch({args}) {{",
              "    long i;",
              "    for (i = 0; i < n; ++i) {",
              f"        const {in_t} *row = x + i * {N}_N_INPUTS;",
              f"        {name}_features(row, feats + i * {N}_N_FEATURES);"]
    if classifier:
        driver += [f"        {name}_decision(row, dec + i * {N}_N_DECISIONS);",
                   f"        pred[i] = {name}_predict(row);"]
    else:
        driver += ["        (void)dec; (void)pred;"]
    driver += ["    }", "    return 0;", "}",
               f"int run_many({args}) {{",
               f"    int rc = {name}_features_many(x, n, feats);"]
    driver += ([f"    rc |= {name}_decision_many(x, n, dec);", f"    rc |= {name}_predict_many(x, n, pred);"]
               if classifier else ["    (void)dec; (void)pred;"])
    driver += ["    return rc;", "}"]
    (work / "driver.c").write_text("\n".join(driver) + "\n")
    build = subprocess.run([compiler, "-std=c99", "-pedantic", "-Wall", "-Wextra", "-Werror", "-O2", "-shared", "-fPIC",
                            "driver.c", "-o", "libmodel.so", "-lm"], cwd=work, capture_output=True, text=True)
    assert build.returncode == 0, f"the C export does not compile with {compiler} -std=c99 -Wall -Werror:\n{build.stderr}"
    lib = ctypes.CDLL(str(work / "libmodel.so"))
    for fn in (lib.run_batch, lib.run_many):
        fn.restype = ctypes.c_int
        fn.argtypes = [ctypes.c_void_p, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
    return lib


# ---------------------------------------------------------------------------------------------- speed
@dataclass
class SpeedReport:
    """What :func:`check_family_speed` measured: one row per engine, in seconds, and notes."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        head = (f"{'engine':<10} {'wall':>8} {'cpu':>8} {'draw':>8} {'compute':>8} {'engine':>8} {'evaluate':>8} "
                f"{'features':>10}")
        lines = [head] + [
            f"{r['engine']:<10} {r['wall']:8.2f} {r['cpu']:8.2f} {r['draw']:8.2f} {r['compute']:8.2f} {r['own']:8.2f} "
            f"{r['evaluate']:8.2f} {r['computed']:10d}" for r in self.rows]
        return "\n".join(lines + [f"- {note}" for note in self.notes])

    def ratio(self, engine: str, reference: str = "mufasa", clock: str = "wall") -> float:
        """Time of ``engine`` over ``reference``'s, measured in the same call: ``clock="wall"`` (elapsed) or
        ``"cpu"`` (the process's CPU time, ``time.process_time``: less sensitive to other processes' load)."""
        if clock not in ("wall", "cpu"):
            raise ValueError(f"clock={clock!r}: expected 'wall' or 'cpu'")
        by = {r["engine"]: r[clock] for r in self.rows}
        return by[engine] / by[reference]


def _timed_class(cls: Any, clock: dict[str, float]) -> type:
    """A subclass of the family's class whose draw and compute add their time (and the features computed)
    to ``clock``; everything else is the family's own."""

    def draw(self, *args, **kwargs):
        t = time.perf_counter()
        try:
            return cls.draw(self, *args, **kwargs)
        finally:
            clock["draw"] += time.perf_counter() - t

    def compute(self, prepared, batch):
        t = time.perf_counter()
        try:
            return cls.compute(self, prepared, batch)
        finally:
            clock["compute"] += time.perf_counter() - t
            clock["computed"] += len(batch)

    return type(cls.__name__, (cls,), {"draw": draw, "compute": compute, "__module__": cls.__module__})


def check_family_speed(family: Any, X: Any, y: Any, *, budget: float, steps: int = 10,
                       engines: Sequence[Any] = ("guided", "mufasa"), seed: int = 0) -> SpeedReport:
    """Run a search per engine on ``(X, y)`` with ``family`` (an instance, unfitted or fitted) and split each
    search's wall time (``engines``: names, or ``(label, name, engine_params)`` triples, run in that order) into the
    family's ``draw`` and ``compute``, the evaluation (the set evaluator) and the engine's own work (the rest:
    proposing points, ranking and filtering pools, bookkeeping).  Each row also has ``cpu``, the process's CPU
    time of the search (``time.process_time``; all of the process's threads), which another process's load
    changes less than the wall time.

    The notes say where the family's values send an engine down a slow path (0/1 values held dense, not
    packed; real values; 0/1 features that are 1 on more than half the samples, whose sets the linear-SVM
    evaluator fits slowly; a compute that costs more than the evaluation, which the ``guided`` engine pays
    ``pool_factor`` times over).  ``str(report)`` is a table; ``report.ratio("guided")`` the time against
    plain Mufasa's.  A measurement, not a test: compare ratios from one call, on one machine.
    """
    report = SpeedReport()
    base = type(family)
    for arm in engines:
        label, engine, params = (arm, arm, None) if isinstance(arm, str) else arm
        clock = {"draw": 0.0, "compute": 0.0, "computed": 0}
        fam = _timed_class(base, clock)(**family.get_params())
        t, c = time.perf_counter(), time.process_time()
        res = search(X, y, family=fam, engine=engine, engine_params=params, budget=budget, steps=steps, seed=seed,
                     progress=False)
        wall, cpu = time.perf_counter() - t, time.process_time() - c
        evaluate = float(res.metadata.get("timings", {}).get("evaluate", 0.0))
        report.rows.append({"engine": label, "wall": wall, "cpu": cpu, "draw": clock["draw"], "compute": clock["compute"],
                            "evaluate": evaluate, "own": max(wall - clock["draw"] - clock["compute"] - evaluate, 0.0),
                            "computed": int(clock["computed"]), "result": res})
    # the representation of the family's values
    fam = base(**family.get_params())
    data = fam.check_data(X)
    fam.fit(data, y)
    prepared = fam.prepare(data)
    rng = np.random.default_rng(seed)
    batch = fam.draw(fam.space().check_point({}), budget, rng)
    values = fam.compute(prepared, batch) if len(batch) else None
    if isinstance(values, FeatureValues) and values.packed is None:
        dense = values.dense(np.float64)
        if dense.size and is_binary(dense):
            report.notes.append("compute returns 0/1 values held dense: every scorer, filter and evaluator takes "
                                "its slow path; return FeatureValues.from_dense(values) (it packs 0/1 values once) "
                                "or packed bits")
        else:
            report.notes.append("real-valued features: the engines' filter and scorers are compiled for them; the "
                                "linear-SVM evaluator fits a dense design (slower than on packed 0/1 values)")
    if isinstance(values, FeatureValues) and values.packed is not None and values.n_samples:
        share = float(np.mean(popcount_rows(values.packed)) / values.n_samples)
        if share > 0.5:
            report.notes.append(f"the features drawn at the space's default point are 1 on {share:.0%} of the samples"
                                " in the mean: the linear-SVM evaluator's cost grows with the ones of a set (it "
                                "enters columns set on more than its complement share, 70 % by default, as 1 - x, "
                                "not those set on 50-70 %); features defined the other way round (their complements) "
                                "evaluate faster")
    for r in report.rows:
        if r["engine"].startswith("guided") and r["compute"] > r["evaluate"]:
            used = r["result"].metadata.get("pool_rows_used")
            rows = ("it ranked the pools on every row (the family declares pool_rows = None, or the search asked "
                    "for every row): ranking them on a sample of rows cuts it (leave the class attribute pool_rows "
                    "undeclared, 512, or engine_params={'pool_rows': 512})" if used is None else
                    f"it already ranked the pools on {used} rows (pool_rows)")
            report.notes.append(f"guided spends {r['compute']:.2f} s in the family's compute ({r['computed']} features"
                                f") against {r['evaluate']:.2f} s evaluating: it computes a pool of pool_factor x "
                                f"budget per step; a faster compute (vectorized, bit-packed) cuts it; {rows}")
    return report
