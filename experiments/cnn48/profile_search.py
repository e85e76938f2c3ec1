"""Where a default-engine search spends its CPU time, by part (cProfile, CPU clock), on one MNIST partition.

    NUMBA_NUM_THREADS=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python experiments/cnn48/profile_search.py \\
        8000 600 > R/profile_8000_default.json
    python experiments/cnn48/profile_search.py 8000 600 '{"budget": 12544, "steps": 25}' > R/profile_8000_b12544.json

Arguments: training images, partition (``split_indices(10000, n, 2000, seed=partition)``), and optionally the keyword
arguments of ``metafx.search`` as JSON.  Prints one JSON object: the search's CPU seconds and, per part, the
cumulative CPU seconds of its function (parts can nest: the liblinear fits are inside the evaluator).
"""

from __future__ import annotations

import cProfile
import json
import os
import pstats
import sys
import time

import metafx
from metafx.core.validation import split_indices

PARTS = {"filter (_diverse)": "_diverse", "evaluator (fold_accuracies)": "fold_accuracies",
         "liblinear fits": "_fit_liblinear", "pixel-and compute": "eval_pixel_and",
         "draw positions": "propose_positions", "pool scoring": "_pool_order", "repeats": "first_of_repeats",
         "model proposals (ask)": "ask"}


def main(argv: list[str]) -> None:
    n, p = int(argv[0]), int(argv[1])
    kw = json.loads(argv[2]) if len(argv) > 2 else {}
    X, y = metafx.load_dataset("mnist", data_dir=os.environ.get("METAFX_MNIST_DIR", "../shared/data/mnist"))
    metafx.search(X[:200], y[:200], budget=300, steps=2, seed=0, progress=False)  # compile, not profiled
    tr, _te = split_indices(len(y), n, 2000, seed=p)
    prof = cProfile.Profile(time.process_time)
    t = time.process_time()
    prof.enable()
    res = metafx.search(X[tr], y[tr], seed=p, progress=False, **kw)
    prof.disable()
    total = time.process_time() - t
    stats = pstats.Stats(prof).stats  # type: ignore[attr-defined]
    parts = {label: sum(v[3] for k, v in stats.items() if k[2] == fn) for label, fn in PARTS.items()}
    print(json.dumps({"n_train": n, "partition": p, "kw": kw, "search_cpu_s": round(total, 2),
                      "n_features": res.n_features, "parts_cpu_s": {k: round(v, 2) for k, v in parts.items()},
                      "shares": {k: round(v / total, 3) for k, v in parts.items()}}))


if __name__ == "__main__":
    main(sys.argv[1:])
