"""The pixel-AND family's draw with the placement of its inputs and its acceptance test as one numba
pass, against NumPy doing both (the reference, measured in the same run on the same draws) and
against NumPy placement with the numba test (the code before the fused pass), in yardsticks.

Every point of a grid (numInputs x shiftInvLen x scatter, percentPos 50) is drawn at a budget
with two seeds, once with each variant; the draws must be identical (the script stops
otherwise).  Reports milliseconds and yardsticks per draw and the ratio reference / each variant.

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


def numpy_placement(test):
    """``place_and_accept`` with the placement in NumPy and ``test`` as the acceptance test."""

    def place(qr, qc, ur, uc, zr, zc, sigma, h, w, target, tol):
        pr = np.rint(qr[:, None] + ur + sigma * zr).astype(np.int64)
        pc = np.rint(qc[:, None] + uc + sigma * zc).astype(np.int64)
        return pr, pc, test(pr, pc, h, w, target, tol)

    return place


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
    from metafx._kernels.draws import accept_positions

    kernel = pixel_families.place_and_accept
    variants = {"numpy (reference)": numpy_placement(numpy_verdict),
                "numba test": numpy_placement(accept_positions),
                "numba placement and test": kernel}

    def run(place):
        pixel_families.place_and_accept = place
        digest, t0 = hashlib.md5(), time.perf_counter()
        try:
            for p in points:
                for seed in (0, 1):
                    b = fam.draw(p, args.budget, np.random.default_rng(seed))
                    digest.update(b.rows.tobytes() + b.cols.tobytes() + b.neg.tobytes())
        finally:
            pixel_families.place_and_accept = kernel
        return (time.perf_counter() - t0) / (2 * len(points)), digest.hexdigest()

    for place in variants.values():
        run(place)  # compile / load the kernels
    yd = yardstick(X, y)
    times = {k: [] for k in variants}
    for _ in range(args.rounds):
        digests = set()
        for name, place in variants.items():
            t, digest = run(place)
            times[name].append(t)
            digests.add(digest)
        if len(digests) != 1:
            raise SystemExit("the variants drew different features")
    print(f"pixel-AND draws: {len(points)} points x 2 seeds, budget {args.budget:g}, {args.n_train} MNIST images; "
          f"yardstick {yd:.3f} s; identical draws; medians of {args.rounds} rounds")
    med = {k: float(np.median(v)) for k, v in times.items()}
    for k, v in med.items():
        print(f"  {k:26s} {v * 1e3:7.2f} ms per draw  {v / yd:6.3f} yardsticks  "
              f"ratio reference / this {med['numpy (reference)'] / v:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
