"""Size and speed of `metafx export`: the C99 file and the NumPy module against transform + predict.

For pixel-and feature sets of MNIST drawn at two points (shift length 5: (6, 40, 5, 1.7); shift length 1:
(3, 60, 1, 2.0)) and budgets 3000 and 12000, with a ``LinearSVC(C=0.1, dual=False)`` fitted on the features of
2000 training images (10 classes), this prints

* the C file's size (bytes of source) and of its compiled object (text + data, ``cc -O2``);
* seconds per image of the class of ``--n-test`` test images by: the compiled C (``NAME_predict`` per image,
  called in a C loop over the batch through ctypes, and ``NAME_predict_many`` on the whole batch, 64 images per
  machine word), the NumPy module (``predict`` on the batch), and
  ``svc.predict(result.transform(X))`` on the batch; and of the features alone (``NAME_features``,
  ``features``, ``transform``);
* the per-image latency of one image at a time (``--single`` calls, interleaved): the C function through ctypes
  (the call's overhead of about a microsecond included) and ``transform`` + ``predict`` on a one-image array;
* ratios (Python / C, Python / NumPy module), all measured in the same run (best of ``--repeats``, the ways
  interleaved so that they share the machine's load), after checking that the three give the same features
  and classes on every test image.

Times are CPU seconds of this process (``time.process_time``; every way runs in it on one thread: run with
NUMBA_NUM_THREADS=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1), so that a busy machine's waits do not count.

    python benchmarks/bench_export.py [--data-dir ../shared/data/mnist] [--n-test 5000] [--repeats 5]
"""

from __future__ import annotations

import argparse
import ctypes
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from functools import partial
from pathlib import Path

import numpy as np
from _yardstick import DEFAULT_MNIST, mnist

from metafx import SearchResult
from metafx.default_plugins.pixel_families import PixelAndFamily
from metafx.export import to_c, to_numpy

#: CPU time of this process (every way runs in it, on one thread): on a shared, busy machine it counts the work
#: done, not the time spent waiting for a CPU
CLOCK = time.process_time

POINTS = {"a=5": {"numInputs": 6, "percentPos": 40, "shiftInvLen": 5, "scatter": 1.7},
          "a=1": {"numInputs": 3, "percentPos": 60, "shiftInvLen": 1, "scatter": 2.0}}


def bare_result(features, shape) -> SearchResult:
    return SearchResult(family="pixel-and", family_params={"image_shape": list(shape)}, engine="random",
                        evaluator="cv-linear-svm", budget=1.0, seed=0, best_point={}, best_quality=0.0, best_step=0,
                        features=features, total_cost=0.0, trajectory=[])


def build(src: str, tmp: Path, cc: str, name: str = "metafx_model"):
    (tmp / f"{name}.c").write_text(src)
    subprocess.run([cc, "-std=c99", "-O2", "-c", f"{name}.c", "-o", f"{name}.o"], cwd=tmp, check=True)
    size = None
    if shutil.which("size"):
        line = subprocess.run(["size", f"{name}.o"], cwd=tmp, capture_output=True, text=True).stdout.splitlines()[1]
        text, data = (int(v) for v in line.split()[:2])
        size = text + data
    N = name.upper()
    (tmp / "driver.c").write_text(
        f'#include "{name}.c"\n'
        "void predict_batch(const uint8_t *img, long n, int *pred) {\n"
        f"    long i; for (i = 0; i < n; ++i) pred[i] = {name}_predict(img + i * {N}_HEIGHT * {N}_WIDTH);\n}}\n"
        "void features_batch(const uint8_t *img, long n, uint8_t *out) {\n"
        f"    long i; for (i = 0; i < n; ++i) {name}_features(img + i * {N}_HEIGHT * {N}_WIDTH, "
        f"out + i * {N}_N_FEATURES);\n}}\n"
        "void predict_many(const uint8_t *img, long n, int *pred) {\n"
        f"    {name}_predict_many(img, n, pred);\n}}\n"
        "void features_many(const uint8_t *img, long n, uint8_t *out) {\n"
        f"    {name}_features_many(img, n, out);\n}}\n")
    subprocess.run([cc, "-std=c99", "-O2", "-shared", "-fPIC", "driver.c", "-o", "libm.so"], cwd=tmp, check=True)
    lib = ctypes.CDLL(str(tmp / "libm.so"))
    for f in (lib.predict_batch, lib.features_batch, lib.predict_many, lib.features_many):
        f.restype = None
        f.argtypes = [ctypes.c_void_p, ctypes.c_long, ctypes.c_void_p]
    return lib, size


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default=DEFAULT_MNIST)
    ap.add_argument("--n-test", type=int, default=5000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--single", type=int, default=300)
    ap.add_argument("--budgets", type=float, nargs="+", default=[3000, 12000])
    args = ap.parse_args()
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if not cc:
        sys.exit("no C compiler (cc, gcc, clang or $CC)")
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.svm import LinearSVC

    X, y = mnist(args.data_dir)
    Xtr, ytr, Xte = X[:2000], y[:2000], np.ascontiguousarray(X[-args.n_test:], dtype=np.uint8)
    n = len(Xte)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    threads = {k: os.environ.get(k) for k in ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS")}
    if any(v != "1" for v in threads.values()):
        print(f"warning: {threads}: CPU times add up the threads; set each to 1", file=sys.stderr)
    print(f"MNIST: {len(Xtr)} training images, {n} test images; {cc}; best of {args.repeats}; "
          f"{os.cpu_count()} CPUs, load average {load:.1f} at the start")
    rows = []
    for label, point in POINTS.items():
        for budget in args.budgets:
            fam = PixelAndFamily(image_shape=(28, 28)).fit(Xtr)
            batch = fam.draw(point, budget, np.random.default_rng(0))
            res = bare_result(fam.to_json(batch), (28, 28))
            Ftr = res.transform(Xtr)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                svc = LinearSVC(C=0.1, dual=False).fit(Ftr, ytr)
            clf = {"classes": svc.classes_.tolist(), "coef": svc.coef_.tolist(), "intercept": svc.intercept_.tolist()}
            src = to_c(res, clf)
            with tempfile.TemporaryDirectory() as tmp:
                lib, obj = build(src, Path(tmp), cc)
                spec = importlib.util.spec_from_file_location("exported", Path(tmp) / "exported.py")
                (Path(tmp) / "exported.py").write_text(to_numpy(res, clf))
                mod = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(mod)

                # the C entry points over the whole batch, each into its own output
                pred, pred_m = np.empty(n, np.intc), np.empty(n, np.intc)
                feats, feats_m = (np.empty((n, res.n_features), np.uint8) for _ in range(2))
                c_predict, c_features, c_predict_many, c_features_many = (
                    partial(fn, Xte.ctypes.data, n, out.ctypes.data)
                    for fn, out in ((lib.predict_batch, pred), (lib.features_batch, feats),
                                    (lib.predict_many, pred_m), (lib.features_many, feats_m)))

                # the same answers first
                c_predict()
                c_features()
                c_predict_many()
                c_features_many()
                F = res.transform(Xte)
                assert np.array_equal(feats, F) and np.array_equal(mod.features(Xte), F)
                assert np.array_equal(feats_m, F)
                labels = svc.predict(F)
                assert np.array_equal(svc.classes_[pred], labels) and np.array_equal(mod.predict(Xte), labels)
                assert np.array_equal(pred_m, pred)

                # interleaved: every repeat times each way once, so that all see the same load; best of the repeats
                ways = {"c": c_predict, "cm": c_predict_many, "np": partial(mod.predict, Xte),
                        "py": lambda svc=svc, res=res: svc.predict(res.transform(Xte)),
                        "fc": c_features, "fcm": c_features_many, "fnp": partial(mod.features, Xte),
                        "fpy": partial(res.transform, Xte)}
                best = dict.fromkeys(ways, float("inf"))
                for _ in range(args.repeats):
                    for key, fn in ways.items():
                        t0 = CLOCK()
                        fn()
                        best[key] = min(best[key], CLOCK() - t0)
                one = np.empty(1, np.intc)
                k = min(args.single, n)
                s_c = s_py = 0.0
                base, stride, out1 = Xte.ctypes.data, Xte[0].size, one.ctypes.data
                for i in range(k):  # interleaved, one image at a time
                    t0 = CLOCK()
                    lib.predict_batch(base + i * stride, 1, out1)
                    t1 = CLOCK()
                    svc.predict(res.transform(Xte[i:i + 1]))
                    s_py += CLOCK() - t1
                    s_c += t1 - t0
                s_c, s_py = s_c / k, s_py / k
            us = 1e6 / n
            rows.append((label, budget, res.n_features, len(src.encode()), obj, best, s_c, s_py, us))
    print("\nsize of the C file (source bytes, object text + data bytes) and CPU microseconds per image; Python = "
          "svc.predict(result.transform(X)), NumPy = the exported module's predict, C = NAME_predict:")
    print("| point | budget | features | C source | C object | batch: C | NumPy | Python | Python / C | "
          "Python / NumPy | features only: C | NumPy | transform | one image per call: C | Python | Python / C |")
    print("|" + "---|" * 16)
    for label, budget, nf, src_b, obj, t, s_c, s_py, us in rows:
        print(f"| {label} | {budget:g} | {nf} | {src_b / 1e3:.0f} kB | {(obj or 0) / 1e3:.0f} kB | "
              f"{t['c'] * us:.1f} | {t['np'] * us:.1f} | {t['py'] * us:.1f} | {t['py'] / t['c']:.2f} | "
              f"{t['py'] / t['np']:.2f} | {t['fc'] * us:.1f} | {t['fnp'] * us:.1f} | {t['fpy'] * us:.1f} | "
              f"{s_c * 1e6:.1f} | {s_py * 1e6:.0f} | {s_py / s_c:.0f} |")
    print("\nthe C file's two ways over the whole batch, CPU microseconds per image: NAME_predict called per image, "
          "and NAME_predict_many (64 images per machine word):")
    print("| point | budget | features | predict: one at a time | _many | one / _many | "
          "features: one at a time | _many | one / _many |")
    print("|" + "---|" * 9)
    for label, budget, nf, _src_b, _obj, t, _s_c, _s_py, us in rows:
        print(f"| {label} | {budget:g} | {nf} | {t['c'] * us:.2f} | {t['cm'] * us:.2f} | {t['c'] / t['cm']:.1f} | "
              f"{t['fc'] * us:.2f} | {t['fcm'] * us:.2f} | {t['fc'] / t['fcm']:.1f} |")
    print("all gave the same features and classes on every test image")


if __name__ == "__main__":
    main()
