"""The image defaults on the bundled 8 x 8 digits: today's against a candidate (RULE_DEFAULTS_IMAGES.md).

Per split seed: ``split_indices(1797, 900, 897, seed=s)``; each arm's ``metafx.search`` with ``seed=s`` then
``FeatureClassifier`` (C by 3-fold CV): ``A`` every default, ``B`` ``budget=16 per pixel (1024), steps=15`` and
``shift_copies=True``.  CPU seconds (search and final fit), features and test error; one JSON line per (seed, arm).

    NUMBA_NUM_THREADS=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python experiments/cnn48/digits_defaults.py \\
        --seeds 0 1 2 3 4 5 6 7 --out R/digits_defaults.jsonl
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np

ARMS = {"A": ({}, False), "B": ({"budget": 16 * 64, "steps": 15}, True)}


def main(argv=None) -> None:
    import metafx
    from metafx import FeatureClassifier
    from metafx.core.validation import split_indices

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=list(range(8)))
    ap.add_argument("--out", required=True)
    a = ap.parse_args(argv)
    X, y = metafx.load_dataset("digits")
    metafx.search(X[:200], y[:200], budget=100, steps=2, seed=0, progress=False)  # compile, not timed
    commit = os.popen("git rev-parse --short HEAD 2>/dev/null").read().strip() or None
    for s in a.seeds:
        tr, te = split_indices(len(y), 900, len(y) - 900, seed=s)
        for arm, (kw, shift) in ARMS.items():
            t = time.process_time()
            res = metafx.search(X[tr], y[tr], seed=s, progress=False, **kw)
            search_s = time.process_time() - t
            t = time.process_time()
            clf = FeatureClassifier(res, random_state=s, shift_copies=shift).fit(X[tr], y[tr])
            fit_s = time.process_time() - t
            rec = {"seed": s, "arm": arm, "commit": commit, "search_kwargs": kw, "shift_copies": shift,
                   "budget": res.budget, "steps": len(res.trajectory), "n_features": res.n_features,
                   "search_cpu_s": round(search_s, 3), "fit_cpu_s": round(fit_s, 3),
                   "test_error": float(np.mean(clf.predict(X[te]) != y[te]))}
            with open(a.out, "a") as fh:
                fh.write(json.dumps(rec) + "\n")
            print(json.dumps(rec), flush=True)


if __name__ == "__main__":
    main()
