"""Probe (information only, spent partition): what limits the final linear model at 8000 training images.

One search at budget 12544, 25 steps, ``pool_rows=2000`` (the best setting of ``screen_settings.py`` at 8000
images), then on its fixed features: the training and test error of the final LinearSVC over C (the default grid
and below it), the fit on more shifted copies (5: one pixel up/down/left/right; 9: and the diagonals; 13: and two
pixels along the axes), and one-vs-one LinearSVCs on the 5 copies.  Prints one line per model; ``--out`` appends
them as JSON lines.

    NUMBA_NUM_THREADS=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python experiments/cnn48/probe_8000.py \\
        --partition 600 --out R/probe_8000.jsonl
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np

OFFSETS = {
    5: [(0, 0), (1, 0), (-1, 0), (0, 1), (0, -1)],
    9: [(0, 0), (1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1)],
    13: [(0, 0), (1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1), (2, 0), (-2, 0), (0, 2),
         (0, -2)],
}


def shifted(images: np.ndarray, offsets) -> np.ndarray:
    """``images`` (n, H, W) moved by each ``(dy, dx)`` (zeros shifted in), stacked: (len(offsets) n, H, W)."""
    n, H, W = images.shape
    out = np.zeros((len(offsets), n, H, W), dtype=images.dtype)
    for k, (dy, dx) in enumerate(offsets):
        out[k, :, max(dy, 0):H + min(dy, 0), max(dx, 0):W + min(dx, 0)] = \
            images[:, max(-dy, 0):H + min(-dy, 0), max(-dx, 0):W + min(-dx, 0)]
    return out.reshape(-1, H, W)


def main(argv=None) -> None:
    from sklearn.multiclass import OneVsOneClassifier
    from sklearn.svm import LinearSVC

    import metafx
    from metafx import FeatureClassifier
    from metafx.core.validation import split_indices
    from metafx.learn.svm import fit_linear_svm

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--partition", type=int, default=600)
    ap.add_argument("--n-train", type=int, default=8000)
    ap.add_argument("--data-dir", default=os.environ.get("METAFX_MNIST_DIR", "../shared/data/mnist"))
    ap.add_argument("--out", default=None)
    a = ap.parse_args(argv)
    X, y = metafx.load_dataset("mnist", data_dir=a.data_dir)
    p = a.partition
    tr, te = split_indices(len(y), a.n_train, 2000, seed=p)
    res = metafx.search(X[tr], y[tr], seed=p, progress=False, budget=12544, steps=25, engine_params={"pool_rows": 2000})
    fam, batch = res.feature_batch()
    images = np.asarray(res.binarize(X[tr]))
    test = fam.compute(fam.prepare(np.asarray(res.binarize(X[te]))), batch)

    def emit(model: str, C, train_error, test_error, seconds) -> None:
        rec = {"partition": p, "n_train": a.n_train, "n_features": res.n_features, "model": model, "C": C,
               "train_error": train_error, "test_error": test_error, "fit_cpu_s": round(seconds, 2)}
        print(json.dumps(rec), flush=True)
        if a.out:
            with open(a.out, "a") as fh:
                fh.write(json.dumps(rec) + "\n")

    for shift in (False, True):
        for C in (None, 0.01, 0.1, 1.0, 0.003, 0.001, 0.0003):
            if shift and C in (0.1, 1.0):
                continue
            t = time.process_time()
            clf = FeatureClassifier(res, C=C, random_state=p, shift_copies=shift).fit(X[tr], y[tr])
            emit(f"ovr{' 5 copies' if shift else ''}", clf.C_, float(np.mean(clf.predict(X[tr]) != y[tr])),
                 float(np.mean(clf.predict(X[te]) != y[te])), time.process_time() - t)
    for k in (9, 13):
        for C in (0.01, 0.003):
            t = time.process_time()
            values = fam.compute(fam.prepare(shifted(images, OFFSETS[k])), batch)
            model = fit_linear_svm(values, np.tile(y[tr], k), C=C, random_state=p)
            emit(f"ovr {k} copies", C, None, float(np.mean(model.predict(test) != y[te])), time.process_time() - t)
    dense = fam.compute(fam.prepare(shifted(images, OFFSETS[5])), batch).dense(np.float64)
    for C in (0.003, 0.01, 0.03):
        t = time.process_time()
        ovo = OneVsOneClassifier(LinearSVC(C=C, dual=True, max_iter=5000)).fit(dense, np.tile(y[tr], 5))
        emit("ovo 5 copies", C, None, float(np.mean(ovo.predict(test.dense(np.float64)) != y[te])),
             time.process_time() - t)


if __name__ == "__main__":
    main()
