"""What a practitioner would use instead: raw-pixel classifiers on the MNIST partitions of the protocol.

The same partitions as ``examples/guided_extraction_mnist.py`` (MNIST binarized at 128; partition p: 2000 training
and 2000 test images drawn with ``split_indices(n, 2000, 2000, seed=p)`` from the 10,000 images the dataset loads),
and on each, three classifiers on the raw binary pixels, hyper-parameters by 3-fold CV on the training part only:

* ``svm-linear``: a linear SVM (``metafx.learn.svm.fit_linear_svm``, as the example's baseline);
* ``svm-poly3``: ``SVC(kernel="poly", degree=3, coef0=1, gamma="scale")``, C in {0.1, 1, 10} (the example's);
* ``svm-rbf``: ``SVC(kernel="rbf", gamma="scale")``, C in {1, 10, 100}.

Every finished (partition, method) is appended to ``--out`` at once; a run started again skips what is done.

    python experiments/headline/mnist_baselines.py --partitions 10 11 ... 29 \
        --out experiments/headline/mnist_baselines.jsonl
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # experiments/records.py
import records


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default=os.environ.get("METAFX_MNIST_DIR"))
    ap.add_argument("--partitions", type=int, nargs="+", default=list(range(10, 30)))
    ap.add_argument("--methods", nargs="+", default=["svm-linear", "svm-poly3", "svm-rbf"])
    ap.add_argument("--out", default="experiments/headline/mnist_baselines.jsonl")
    args = ap.parse_args(argv)

    from sklearn.model_selection import GridSearchCV, StratifiedKFold
    from sklearn.svm import SVC

    import metafx
    from metafx.core.validation import split_indices
    from metafx.learn.svm import fit_linear_svm

    out = Path(args.out)
    done = set()
    if records.exists(out):
        for line in records.read_text(out).splitlines():
            r = json.loads(line)
            done.add((r["partition"], r["method"]))
    X, y = metafx.load_dataset("mnist", data_dir=args.data_dir)
    for p in args.partitions:
        tr, te = split_indices(len(y), 2000, 2000, seed=p)
        A = X[tr].reshape(len(tr), -1).astype(np.float64)
        B = X[te].reshape(len(te), -1).astype(np.float64)
        for method in args.methods:
            if (p, method) in done:
                continue
            t = time.perf_counter()
            cv = StratifiedKFold(3, shuffle=True, random_state=p)
            if method == "svm-linear":
                model, params = fit_linear_svm(A, y[tr], random_state=p), {}
            elif method == "svm-poly3":
                gs = GridSearchCV(SVC(kernel="poly", degree=3, coef0=1.0, gamma="scale"), {"C": [0.1, 1.0, 10.0]}, cv=cv)
                model, params = gs.fit(A, y[tr]), None
            elif method == "svm-rbf":
                gs = GridSearchCV(SVC(kernel="rbf", gamma="scale"), {"C": [1.0, 10.0, 100.0]}, cv=cv)
                model, params = gs.fit(A, y[tr]), None
            else:
                raise SystemExit(f"--methods: unknown method {method!r}; known: svm-linear, svm-poly3, svm-rbf")
            if params is None:
                params = {k: float(v) for k, v in model.best_params_.items()}
            err = float(np.mean(model.predict(B) != y[te]))
            rec = {"partition": p, "method": method, "test_error": err, "params": params,
                   "seconds": time.perf_counter() - t, "data": "mnist", "n_train": 2000, "n_test": 2000}
            with open(out, "a") as fh:
                fh.write(json.dumps(rec) + "\n")
            print(f"partition {p} {method}: {100 * err:.2f} % ({rec['seconds']:.1f} s)", flush=True)


if __name__ == "__main__":
    main()
