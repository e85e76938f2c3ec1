"""The yardstick every benchmark reports against, and a competing process.

Yardstick: one ``LinearSVC(C=0.1, dual=False)`` fit on the raw pixels of 2000
MNIST images (2000 x 784, float64), measured in the same run as the figure it
divides (the median of ``repeats`` fits), so a figure reads "this takes N
yardsticks" and stays comparable across machines and across quiet and busy
periods of one machine.

``competing()`` runs a busy process (a pure-Python loop) for the duration of a
``with`` block: the "loaded" condition of the benchmarks.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import warnings
from contextlib import contextmanager
from pathlib import Path

import numpy as np

DEFAULT_MNIST = os.environ.get("METAFX_MNIST_DIR", str(Path(__file__).resolve().parents[2] / "shared/data/mnist"))


def mnist(data_dir: str = DEFAULT_MNIST):
    import metafx

    if not Path(data_dir).is_dir():
        sys.exit(f"MNIST not found at {data_dir}; pass --data-dir or set METAFX_MNIST_DIR")
    return metafx.load_dataset("mnist", data_dir=data_dir)


def yardstick(X: np.ndarray, y: np.ndarray, repeats: int = 3, clock=time.perf_counter) -> float:
    """Seconds of one ``LinearSVC(C=0.1, dual=False)`` fit on the first 2000 images' raw pixels (median);
    ``clock=time.process_time`` counts CPU seconds instead of wall seconds."""
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.svm import LinearSVC

    A = X[:2000].reshape(2000, -1).astype(np.float64)
    times = []
    for _ in range(repeats):
        t = clock()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            LinearSVC(C=0.1, dual=False).fit(A, y[:2000])
        times.append(clock() - t)
    return float(np.median(times))


@contextmanager
def competing(n: int = 1):
    """``n`` busy processes running while the block runs (``n=0``: none)."""
    procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]
    try:
        time.sleep(0.2 if n else 0.0)
        yield
    finally:
        for p in procs:
            p.kill()
            p.wait()


def conditions(which: str):
    """``"idle"``, ``"loaded"`` or ``"both"`` -> [(label, n_competing)]."""
    out = {"idle": [("idle", 0)], "loaded": [("loaded", 1)]}
    return out["idle"] + out["loaded"] if which == "both" else out[which]


def best_of(fn, repeats: int) -> float:
    """The shortest of ``repeats`` timings of ``fn()`` (seconds)."""
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best
