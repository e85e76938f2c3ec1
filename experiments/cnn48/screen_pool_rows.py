"""Screen (information only, spent partitions): the guided engine's ``pool_rows`` at 8000 training images.

At 8000 training images the guided engine's redundancy filter takes most of a search's CPU time (56 % of the
default's, 85 % of budget 12544 with 25 steps, partition 600; ``profile_search.py``), and its cost grows with the
rows a pool is filtered on.  ``pool_rows=R`` ranks and filters every pool on a class-stratified sample of ``R`` rows.
Per partition and setting: the search's CPU seconds, its features, and the test error of ``FeatureClassifier``
(C by 3-fold CV; with ``shift-copies`` its final fit on the images and their one-pixel shifts). One JSON line each.

    NUMBA_NUM_THREADS=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python experiments/cnn48/screen_pool_rows.py \\
        --partitions 600 601 --out R/screen_pool_rows.jsonl
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np

SETTINGS = {
    "default": {},
    "pool_rows=2000": {"engine_params": {"pool_rows": 2000}},
    "budget=12544,steps=25": {"budget": 12544, "steps": 25},
    "budget=12544,steps=25,pool_rows=2000": {"budget": 12544, "steps": 25, "engine_params": {"pool_rows": 2000}},
}


def main(argv=None) -> None:
    import metafx
    from metafx import FeatureClassifier
    from metafx.core.validation import split_indices

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--partitions", type=int, nargs="+", default=[600, 601])
    ap.add_argument("--n-train", type=int, default=8000)
    ap.add_argument("--settings", nargs="+", default=list(SETTINGS), choices=list(SETTINGS))
    ap.add_argument("--data-dir", default=os.environ.get("METAFX_MNIST_DIR", "../shared/data/mnist"))
    ap.add_argument("--out", required=True)
    a = ap.parse_args(argv)
    X, y = metafx.load_dataset("mnist", data_dir=a.data_dir)
    metafx.search(X[:200], y[:200], budget=300, steps=2, seed=0, progress=False)  # compile, not timed
    for p in a.partitions:
        tr, te = split_indices(len(y), a.n_train, 2000, seed=p)
        for name in a.settings:
            t = time.process_time()
            res = metafx.search(X[tr], y[tr], seed=p, progress=False, **SETTINGS[name])
            search_s = time.process_time() - t
            rec = {"partition": p, "n_train": a.n_train, "setting": name, "search_cpu_s": round(search_s, 2),
                   "n_features": res.n_features}
            for shift in (False, True):
                t = time.process_time()
                clf = FeatureClassifier(res, shift_copies=shift).fit(X[tr], y[tr])
                key = "shift_copies" if shift else "plain"
                rec[f"{key}_fit_cpu_s"] = round(time.process_time() - t, 2)
                rec[f"{key}_test_error"] = float(np.mean(clf.predict(X[te]) != y[te]))
            with open(a.out, "a") as fh:
                fh.write(json.dumps(rec) + "\n")
            print(json.dumps(rec), flush=True)


if __name__ == "__main__":
    main()
