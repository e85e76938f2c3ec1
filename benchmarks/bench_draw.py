"""The pixel-AND family's draw (jitters and offsets drawn, placed and tested in one numba pass) against the same
draw spelt out in NumPy (tests/naive_guided.py, the reference), measured in the same run on the same draws, in
yardsticks.

Every point of a grid (numInputs x shiftInvLen x scatter, percentPos 50) is drawn at a budget with two seeds,
once with each; the draws must be identical (the script stops otherwise).  Reports milliseconds and yardsticks
per draw and the ratio reference / each.

    python benchmarks/bench_draw.py [--budget 3000] [--n-train 2000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from pathlib import Path

import numpy as np
from _yardstick import DEFAULT_MNIST, mnist, yardstick

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default=DEFAULT_MNIST)
    ap.add_argument("--budget", type=float, default=3000)
    ap.add_argument("--n-train", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args(argv)
    import naive_guided

    from metafx.plugin import make_component

    X, y = mnist(args.data_dir)
    fam = make_component("family", "pixel-and").fit(X[: args.n_train])
    points = [dict(numInputs=k, percentPos=50, shiftInvLen=s, scatter=sc)
              for k in (2, 3, 5, 8) for s in (1, 3) for sc in (1.7, 2.4, 3.4)]

    def family(p, rng):
        b = fam.draw(p, args.budget, rng)
        return b.rows, b.cols, b.neg

    def numpy(p, rng):
        return naive_guided.pixel_and_draw(fam, p, args.budget, rng)[:3]

    variants = {"numpy (reference)": numpy, "numba": family}

    def run(draw):
        digest, t0 = hashlib.md5(), time.perf_counter()
        for p in points:
            for seed in (0, 1):
                digest.update(b"".join(a.tobytes() for a in draw(p, np.random.default_rng(seed))))
        return (time.perf_counter() - t0) / (2 * len(points)), digest.hexdigest()

    run(family)  # compile / load the kernels
    yd = yardstick(X, y)
    times = {k: [] for k in variants}
    for _ in range(args.rounds):
        digests = set()
        for name, draw in variants.items():
            t, digest = run(draw)
            times[name].append(t)
            digests.add(digest)
        if len(digests) != 1:
            raise SystemExit("the variants drew different features")
    print(f"pixel-AND draws: {len(points)} points x 2 seeds, budget {args.budget:g}, {args.n_train} MNIST images; "
          f"yardstick {yd:.3f} s; identical draws; medians of {args.rounds} rounds")
    med = {k: float(np.median(v)) for k, v in times.items()}
    for k, v in med.items():
        print(f"  {k:20s} {v * 1e3:7.2f} ms per draw  {v / yd:6.3f} yardsticks  "
              f"ratio reference / this {med['numpy (reference)'] / v:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
