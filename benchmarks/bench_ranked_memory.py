"""Memory and time of the ``ranked`` baseline (MF+Norm Infogain) at a large budget.

Runs the engine once on MNIST (or digits) and prints the pool size, the chunk
size, the bytes the whole pool's packed values would take, and the peak
resident memory of this process before and during the run (``ru_maxrss``),
next to the same figures for ``max_memory_mb`` large enough to hold the whole
pool at once (the reference, run in a fresh process).

    python benchmarks/bench_ranked_memory.py [--data mnist] [--n-train 2000] [--budget 12000]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time


def run(data: str, n_train: int, budget: float, max_mb: float) -> dict:
    import metafx

    X, y = metafx.load_dataset(data)
    X, y = X[:n_train], y[:n_train]
    metafx.search(X[:200], y[:200], budget=20, steps=1, engine="ranked", seed=0, progress=False)  # compile, warm up
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    t = time.perf_counter()
    res = metafx.search(X, y, budget=budget, steps=1, engine="ranked", seed=0, progress=False,
                        engine_params={"max_memory_mb": max_mb})
    secs = time.perf_counter() - t
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    words = (n_train + 63) // 64
    return {"pool": res.metadata["pool_size"], "chunk": res.metadata["chunk_features"],
            "pool_packed_mb": res.metadata["pool_size"] * words * 8 / 2**20,
            "rss_before_mb": before, "rss_peak_mb": peak, "seconds": secs, "quality": res.best_quality,
            "n_features": res.n_features}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="mnist" if os.environ.get("METAFX_MNIST_DIR") else "digits")
    ap.add_argument("--n-train", type=int, default=2000)
    ap.add_argument("--budget", type=float, default=12000)
    ap.add_argument("--max-mb", type=float, default=None, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.max_mb is not None:  # child run
        print(json.dumps(run(a.data, a.n_train, a.budget, a.max_mb)))
        return
    out = {}
    for label, mb in (("chunked (default 32 MB)", 32.0), ("whole pool at once", 1e6)):
        p = subprocess.run([sys.executable, __file__, "--data", a.data, "--n-train", str(a.n_train), "--budget",
                            str(a.budget), "--max-mb", str(mb)], capture_output=True, text=True, check=True)
        out[label] = json.loads(p.stdout.strip().splitlines()[-1])
    print(f"{a.data}, {a.n_train} samples, budget {a.budget:g} (pool budget {50 * a.budget:g})")
    for label, r in out.items():
        print(f"{label:<26} pool {r['pool']} features ({r['pool_packed_mb']:.1f} MB packed), chunk {r['chunk']}, "
              f"peak RSS growth {r['rss_peak_mb'] - r['rss_before_mb']:.1f} MB, {r['seconds']:.1f} s, "
              f"quality {r['quality']:.4f}")
    a_, b_ = out.values()
    assert a_["quality"] == b_["quality"], "chunking changed the result"


if __name__ == "__main__":
    main()
