"""numba threads of the pixel-AND kernel, idle and next to a competing busy process.

For batches of growing work (word operations), the best-of-``--repeats`` time of the
serial twin, the parallel twin (all numba threads) and the default choice
(``metafx._kernels.threads``: threads only from ``PARALLEL_MIN_WORD_OPS`` on), each as a
ratio to the yardstick (one ``LinearSVC(C=0.1, dual=False)`` fit on 2000 x 784 MNIST pixels)
measured in the same condition.  Run with the threads you want to test (the project's
other benchmarks use ``NUMBA_NUM_THREADS=1``):

    NUMBA_NUM_THREADS=2 python benchmarks/bench_threads.py [--load both|idle|loaded] [--repeats 7]
"""

from __future__ import annotations

import argparse
import sys
from functools import partial

import numpy as np
from _yardstick import DEFAULT_MNIST, best_of, competing, conditions, mnist, yardstick


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default=DEFAULT_MNIST)
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--load", default="both", choices=["both", "idle", "loaded"])
    ap.add_argument("--n-images", type=int, default=2000)
    args = ap.parse_args(argv)
    import numba

    from metafx._kernels.pixel_and import eval_pixel_and, word_ops
    from metafx._kernels.threads import PARALLEL_MIN_WORD_OPS
    from metafx.default_plugins.pixel_families import PixelAndBatch, PixelAndFamily

    X, y = mnist(args.data_dir)
    images = X[: args.n_images]
    fam = PixelAndFamily().fit(images)
    prepared = fam.prepare(images)
    planes, width = prepared["planes"], prepared["width"]
    rng = np.random.default_rng(0)
    # batches of 3-input features with shift 3, from a few features to the size of an oversampled draw
    pool = fam.draw({"numInputs": 3, "percentPos": 50, "shiftInvLen": 3, "scatter": 2.0}, 4000 * 5.0, rng)
    pool = PixelAndBatch.concat([pool] * 40)  # 160000 features: past the threshold
    sizes = [16, 128, 1024, 4000, 32000, 160000]
    print(f"pixel-AND kernel, {len(images)} images, numba threads {numba.get_num_threads()} "
          f"(layer setting {numba.config.THREADING_LAYER!r}), threshold {PARALLEL_MIN_WORD_OPS} word-ops")
    for label, n_comp in conditions(args.load):
        with competing(n_comp):
            yd = yardstick(X, y)
            print(f"[{label}] yardstick {1e3 * yd:.1f} ms; times below in yardsticks (x 1e-3)")
            print(f"  {'features':>8} {'word-ops':>10} {'serial':>9} {'parallel':>9} {'default':>9}")
            for n in sizes:
                b = pool.take(np.arange(n))
                run = {mode: partial(eval_pixel_and, planes, width, b.rows, b.cols, b.neg, b.k, b.shift, parallel=mode)
                       for mode in (False, True, None)}
                for f in run.values():
                    f()  # compile / load
                t = {mode: best_of(f, args.repeats) for mode, f in run.items()}
                w = word_ops(b.k, b.shift, planes.shape[2])
                print(f"  {n:>8} {w:>10} {1e3 * t[False] / yd:9.3f} {1e3 * t[True] / yd:9.3f} {1e3 * t[None] / yd:9.3f}",
                      flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
