"""Speed of the packed pixel-AND kernel against a straightforward NumPy implementation.

600 ``pixel-and`` features (numInputs 3, shiftInvLen 3) on 2000 binarized MNIST images,
both measured in this run, as ratios to the yardstick (one ``LinearSVC(C=0.1, dual=False)``
fit on 2000 x 784 MNIST pixels) measured in the same condition: idle, and next to one
competing busy process (``--load``).  Also prints how close the kernel comes to the word-operation
count ``k * a^2 * ceil(m / 64)`` per feature at one word operation per cycle (the clock
rate is read from /proc/cpuinfo when available, else 3 GHz is assumed).

    python benchmarks/bench_pixel_and.py [--data-dir ../shared/data/mnist] [--repeats 20] [--load both]
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np
from _yardstick import best_of, competing, conditions, yardstick


def numpy_reference(images: np.ndarray, specs) -> np.ndarray:
    """Dense NumPy: per feature, OR over shifts of the AND of (negated) shifted pixel planes."""
    m, h, w = images.shape
    pad = np.zeros((m, h + 8, w + 8), dtype=bool)
    pad[:, :h, :w] = images.astype(bool)
    out = np.empty((m, len(specs)), dtype=bool)
    for f, s in enumerate(specs):
        a = s["shift"]
        acc_or = np.zeros(m, dtype=bool)
        for dy in range(a):
            for dx in range(a):
                acc = np.ones(m, dtype=bool)
                for r, c, neg in s["inputs"]:
                    v = pad[:, r + dy, c + dx]
                    acc &= ~v if neg else v
                acc_or |= acc
        out[:, f] = acc_or
    return out


def cpu_hz() -> float:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("cpu mhz"):
                return float(line.split(":")[1]) * 1e6
    except OSError:
        pass
    return 3e9


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default=os.environ.get("METAFX_MNIST_DIR", str(Path(__file__).resolve().parents[2] / "shared/data/mnist")))
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--threads", type=int, default=None, help="numba threads (default: all cores)")
    ap.add_argument("--load", default="idle", choices=["both", "idle", "loaded"])
    args = ap.parse_args(argv)
    import metafx
    from metafx.default_plugins.pixel_families import PixelAndFamily

    if not Path(args.data_dir).is_dir():
        print(f"MNIST not found at {args.data_dir}; pass --data-dir", file=sys.stderr)
        return 1
    if args.threads:
        import numba

        numba.set_num_threads(args.threads)
    X, y = metafx.load_dataset("mnist", data_dir=args.data_dir)
    images = X[:2000]
    m = images.shape[0]
    fam = PixelAndFamily().fit(images)
    batch = fam.draw({"numInputs": 3, "percentPos": 50, "shiftInvLen": 3, "scatter": 2.0}, 600 * 5.0,
                     np.random.default_rng(0))
    assert len(batch) == 600
    specs = fam.to_json(batch)
    prepared = fam.prepare(images)
    fam.compute(prepared, batch)  # compile / load from cache
    same = np.array_equal(fam.compute(prepared, batch).dense(np.uint8).astype(bool), numpy_reference(images, specs))
    words = (m + 63) // 64
    word_ops = 600 * 3 * 9 * words
    ideal = word_ops / cpu_hz()
    import numba

    print(f"600 pixel-and features (k=3, a=3) on {m} MNIST images; numba threads {numba.get_num_threads()}")
    print(f"  identical values:          {same}")
    print(f"  word operations:           {word_ops} (= 600 * 3 * 9 * {words})")
    for label, n_comp in conditions(args.load):
        with competing(n_comp):
            yd = yardstick(X, y)
            t_kernel = best_of(lambda: fam.compute(prepared, batch), args.repeats)
            t_numpy = best_of(lambda: numpy_reference(images, specs), max(1, args.repeats // 10))
        print(f"[{label}] yardstick {1e3 * yd:.1f} ms")
        print(f"  NumPy reference:           {1e3 * t_numpy / yd:9.3f} thousandths of a yardstick")
        print(f"  packed numba kernel:       {1e3 * t_kernel / yd:9.4f} thousandths of a yardstick")
        print(f"  speed-up:                  {t_numpy / t_kernel:9.1f} x")
        print(f"  at 1 word-op/cycle ({cpu_hz() / 1e9:.2f} GHz): kernel is {t_kernel / ideal:.1f} x that")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
