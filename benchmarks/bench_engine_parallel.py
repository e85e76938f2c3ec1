"""How to evaluate several candidate points at once: threads or processes?

Evaluates the same meta-feature points (draw + compute + 2-fold linear SVM)
sequentially, on 2 threads and on 2 joblib worker processes (what ``n_jobs``
uses: ``metafx.loop.parallel.EvaluationPool``), and prints the speed-up of each against the sequential
run measured in the same process, each also as a ratio to the yardstick (one
``LinearSVC(C=0.1, dual=False)`` fit on 2000 x 784 MNIST pixels, measured in the
same run; needs MNIST), and how many qualities the threads changed:
liblinear keeps its random generator in a global variable, so concurrent fits
on threads are not reproducible.

    python benchmarks/bench_engine_parallel.py [--data digits|mnist] [--n-train 2000] [--budget 3000]
"""

from __future__ import annotations

import argparse
import os
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from _yardstick import yardstick

import metafx
import metafx.plugin
from metafx.loop.parallel import EvaluationPool, evaluate_candidate
from metafx.loop.problem import SearchProblem, step_rng
from metafx.plugin import Candidate

_PROBLEM = None


def build(data: str, n_train: int, budget: float) -> SearchProblem:
    X, y = metafx.load_dataset(data)
    return SearchProblem(metafx.plugin.make_component("family", "pixel-and"), X[:n_train], y[:n_train],
                         metafx.plugin.make_component("set-evaluator", "cv-linear-svm"), budget, eval_seed=0)


def _init(data: str, n_train: int, budget: float) -> None:
    global _PROBLEM
    _PROBLEM = build(data, n_train, budget)
    _PROBLEM.evaluate(_PROBLEM.space.start(), step_rng(0, 0))  # compile / warm up


def _eval_in_process(args):
    point, key = args
    return evaluate_candidate(_PROBLEM, Candidate(point, keys=(0, key, 1)))[0].quality


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="mnist" if os.environ.get("METAFX_MNIST_DIR") else "digits")
    ap.add_argument("--n-train", type=int, default=2000)
    ap.add_argument("--budget", type=float, default=3000)
    ap.add_argument("--points", type=int, default=16)
    a = ap.parse_args()
    n_train = min(a.n_train, 1797) if a.data == "digits" else a.n_train
    _init(a.data, n_train, a.budget)
    p = _PROBLEM
    rng = np.random.default_rng(1)
    jobs = [(p.space.uniform(rng), k) for k in range(a.points)]

    t = time.perf_counter()
    seq = [_eval_in_process(j) for j in jobs]
    t_seq = time.perf_counter() - t

    with ThreadPoolExecutor(2) as ex:
        t = time.perf_counter()
        thr = list(ex.map(_eval_in_process, jobs))
        t_thr = time.perf_counter() - t

    cands = [Candidate(point, keys=(0, key, 1)) for point, key in jobs]
    with EvaluationPool(p, None, 2) as ev:
        ev.map(cands[:2])  # start the workers and warm them up
        t = time.perf_counter()
        prc = [e.quality for e, _ in ev.map(cands)]
        t_prc = time.perf_counter() - t

    assert seq == prc, "evaluation in processes changed a quality"
    yd = float("nan")
    if os.environ.get("METAFX_MNIST_DIR"):
        Xm, ym = metafx.load_dataset("mnist")
        yd = yardstick(Xm, ym)
    print(f"{a.data}, {n_train} samples, budget {a.budget:g}, {a.points} points, os.cpu_count()={os.cpu_count()}")
    print(f"yardstick           {yd:7.3f} s")
    print(f"sequential          {t_seq:7.2f} s   {t_seq / yd:6.1f} yardsticks")
    n_diff = sum(a != b for a, b in zip(seq, thr, strict=True))
    print(f"2 threads           {t_thr:7.2f} s   {t_thr / yd:6.1f} yardsticks   speed-up {t_seq / t_thr:5.2f}x   "
          f"({n_diff} of {len(seq)} qualities differ from the sequential run)")
    print(f"2 joblib processes  {t_prc:7.2f} s   {t_prc / yd:6.1f} yardsticks   speed-up {t_seq / t_prc:5.2f}x"
          "   (warm workers)")


if __name__ == "__main__":
    main()
