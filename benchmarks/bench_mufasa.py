"""Wall time of one search, in yardsticks, and its split between drawing
features, computing them (packed numba kernel) and the classifier (2-fold CV linear SVM).

Default: the default engine of ``metafx.search`` (``--engine mufasa`` for plain Mufasa), MNIST, 2000 training
images, budget 3000, 50 steps (the thesis's setting).
Yardstick: one ``LinearSVC(C=0.1, dual=False)`` fit on the raw pixels of 2000 MNIST images
(2000 x 784), measured in the same run and condition (median of 3, before and after the search);
"loaded" runs the search next to one competing busy process.  Peak memory is the process's
maximum resident set size (run one ``--n-train`` per process to compare sizes).

    python benchmarks/bench_mufasa.py [--engine mufasa] [--engine-params '{"pool_factor": 8}'] [--n-train 2000] [--budget 3000] [--steps 50] [--oversample 1]
                                 [--load idle|loaded|both] [--evaluator-params '{"design": "merge", "tol": 0.001, "complement": false}']
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time

from _yardstick import DEFAULT_MNIST, competing, conditions, mnist, yardstick


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default=DEFAULT_MNIST)
    ap.add_argument("--budget", type=float, default=3000)
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--n-train", type=int, default=2000)
    ap.add_argument("--oversample", type=float, default=1.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--load", default="idle", choices=["both", "idle", "loaded"])
    ap.add_argument("--evaluator-params", type=json.loads, default=None)
    ap.add_argument("--engine-params", type=json.loads, default=None)
    ap.add_argument("--engine", default=None, help="a registered search engine (default: metafx.search's default)")
    args = ap.parse_args(argv)
    import inspect

    import metafx

    engine = args.engine or inspect.signature(metafx.search).parameters["engine"].default
    from metafx.core.validation import split_indices

    X, y = mnist(args.data_dir)
    tr, _ = split_indices(len(y), args.n_train, 0, 0)
    metafx.search(X[tr][:200], y[tr][:200], budget=20, steps=1, seed=0, progress=False,
                  engine=engine, evaluator_params=args.evaluator_params)  # compile / load kernels
    print(f"{engine} {args.engine_params or ''}: budget {args.budget:g}, {args.steps} steps, {args.n_train} MNIST images, oversample "
          f"{args.oversample:g}, cv-linear-svm {args.evaluator_params or 'defaults'}")
    for label, n_comp in conditions(args.load):
        with competing(n_comp):
            yd0 = yardstick(X, y)
            t = time.perf_counter()
            res = metafx.search(X[tr], y[tr], budget=args.budget, steps=args.steps, seed=args.seed, progress=False,
                                engine=engine, engine_params=args.engine_params, oversample=args.oversample, evaluator_params=args.evaluator_params)
            wall = time.perf_counter() - t
            yd = (yd0 + yardstick(X, y)) / 2
        tm = res.metadata["timings"]
        other = wall - sum(tm.values())
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"[{label}] yardstick {yd:.3f} s; peak memory {peak:.0f} MB")
        print(f"  search             {wall / yd:7.1f} yardsticks ({wall:.2f} s; 2-fold CV accuracy {res.best_quality:.4f} "
              f"at {res.best_point or 'a portfolio step, no point'})")
        for k, lab in (("draw", "drawing features"), ("compute", "computing features"),
                       ("evaluate", "classifier (CV SVM)")):
            print(f"  {lab:<19}{tm[k] / yd:7.1f} yardsticks {100 * tm[k] / wall:5.1f} %")
        print(f"  {'other':<19}{other / yd:7.1f} yardsticks {100 * other / wall:5.1f} %", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
