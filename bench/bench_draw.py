"""The pixel-AND family's draw with its acceptance test as a numba pass, against the NumPy test it
replaced (the reference, measured in the same run on the same draws), in yardsticks.

Every point of a grid (numInputs x shiftInvLen x scatter, percentPos 50) is drawn at a budget
with two seeds, once with each acceptance test; the draws must be identical (the script stops
otherwise).  Reports milliseconds and yardsticks per draw and the ratio reference / numba.

    python bench/bench_draw.py [--budget 3000] [--n-train 2000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import hashlib
import time

import numpy as np
from _yardstick import DEFAULT_MNIST, mnist, yardstick


def numpy_verdict(rows, cols, h, w, target, tol):
    """The acceptance test as NumPy computed it (1 accept, 0 refuse), in the kernel's calling form."""
    from metafx.default_plugins.pixel_families import _scatter_of

    ok = ((rows >= 0) & (rows < h) & (cols >= 0) & (cols < w)).all(axis=1)
    ok &= np.abs(_scatter_of(rows, cols) - target) <= tol
    code = np.sort(rows * w + cols, axis=1)
    ok &= (np.diff(code, axis=1) != 0).all(axis=1)
    return ok.astype(np.int8)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default=DEFAULT_MNIST)
    ap.add_argument("--budget", type=float, default=3000)
    ap.add_argument("--n-train", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args(argv)
    from metafx.default_plugins import pixel_families
    from metafx.plugin import make_component

    X, y = mnist(args.data_dir)
    fam = make_component("family", "pixel-and").fit(X[: args.n_train])
    points = [dict(numInputs=k, percentPos=50, shiftInvLen=s, scatter=sc)
              for k in (2, 3, 5, 8) for s in (1, 3) for sc in (1.0, 2.4, 3.4)]
    kernel = pixel_families.accept_positions

    def run(test):
        pixel_families.accept_positions = test
        digest, t0 = hashlib.md5(), time.perf_counter()
        try:
            for p in points:
                for seed in (0, 1):
                    b = fam.draw(p, args.budget, np.random.default_rng(seed))
                    digest.update(b.rows.tobytes() + b.cols.tobytes() + b.neg.tobytes())
        finally:
            pixel_families.accept_positions = kernel
        return (time.perf_counter() - t0) / (2 * len(points)), digest.hexdigest()

    run(kernel)  # compile / load the kernel
    yd = yardstick(X, y)
    times = {"numpy (reference)": [], "numba": []}
    for _ in range(args.rounds):
        ref, d_ref = run(numpy_verdict)
        new, d_new = run(kernel)
        if d_ref != d_new:
            raise SystemExit("the two acceptance tests drew different features")
        times["numpy (reference)"].append(ref)
        times["numba"].append(new)
    print(f"pixel-AND draws: {len(points)} points x 2 seeds, budget {args.budget:g}, {args.n_train} MNIST images; "
          f"yardstick {yd:.3f} s; identical draws; medians of {args.rounds} rounds")
    med = {k: float(np.median(v)) for k, v in times.items()}
    for k, v in med.items():
        print(f"  {k:18s} {v * 1e3:7.2f} ms per draw  {v / yd:6.3f} yardsticks")
    print(f"  ratio reference / numba: {med['numpy (reference)'] / med['numba']:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
