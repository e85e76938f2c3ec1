"""Screen (information only, spent partitions): search settings at a given training size, with their predict cost.

For each partition and each named setting (``NAME=JSON``, the JSON being ``metafx.search`` keywords, e.g.
``b18816='{"budget": 18816, "steps": 25, "engine_params": {"pool_rows": 2000}}'``): the search's CPU seconds, its
features, the bit operations of its features per image (``bench_cnn_anchor.logic_ops``), the word operations of
the C export's ``NAME_predict_many`` (``bench_cnn_anchor.sliced_ops``, an upper bound) and the CNN's multiply-adds
over them, and the test error and CPU seconds of ``FeatureClassifier`` (C by 3-fold CV), plain and with
``shift_copies=True``.  One JSON line per (partition, setting).  The CNN is not run here: compare with its records
on the same partitions (``bench_cnn_anchor.py``).

    NUMBA_NUM_THREADS=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python experiments/cnn48/screen_settings.py \\
        --partitions 600 601 --n-train 8000 --out R/screen.jsonl \\
        --setting b12544='{"budget": 12544, "steps": 25, "engine_params": {"pool_rows": 2000}}'
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))


def parse(setting: str) -> tuple[str, dict]:
    name, sep, text = setting.partition("=")
    if not sep or not name:
        raise SystemExit(f"--setting {setting!r}: expected NAME=JSON")
    try:
        kw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SystemExit(f"--setting {setting!r}: {exc}") from None
    if not isinstance(kw, dict):
        raise SystemExit(f"--setting {setting!r}: the JSON must be an object of metafx.search keywords")
    return name, kw


def main(argv=None) -> None:
    from bench_cnn_anchor import cnn_macs, logic_ops, sliced_ops

    import metafx
    from metafx import FeatureClassifier
    from metafx.core.validation import split_indices

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--partitions", type=int, nargs="+", required=True)
    ap.add_argument("--n-train", type=int, default=8000)
    ap.add_argument("--setting", action="append", required=True, help="NAME=JSON of metafx.search keywords")
    ap.add_argument("--no-shift", action="store_true", help="skip the fit with shifted copies")
    ap.add_argument("--data-dir", default=os.environ.get("METAFX_MNIST_DIR", "../shared/data/mnist"))
    ap.add_argument("--out", required=True)
    a = ap.parse_args(argv)
    settings = [parse(s) for s in a.setting]
    X, y = metafx.load_dataset("mnist", data_dir=a.data_dir)
    metafx.search(X[:200], y[:200], budget=300, steps=2, seed=0, progress=False)  # compile, not timed
    commit = os.popen("git rev-parse --short HEAD 2>/dev/null").read().strip() or None
    for p in a.partitions:
        tr, te = split_indices(len(y), a.n_train, 2000, seed=p)
        for name, kw in settings:
            t = time.process_time()
            res = metafx.search(X[tr], y[tr], seed=p, progress=False, **kw)
            search_s = time.process_time() - t
            logic = logic_ops(res)
            rec = {"partition": p, "n_train": a.n_train, "setting": name, "search_kwargs": kw, "commit": commit,
                   "search_cpu_s": round(search_s, 2), "n_features": res.n_features, "logic_ops_per_image": logic,
                   "steps": len(res.trajectory), "budget": res.budget}
            for shift in ((False,) if a.no_shift else (False, True)):
                t = time.process_time()
                clf = FeatureClassifier(res, random_state=p, shift_copies=shift).fit(X[tr], y[tr])
                key = "shift_copies" if shift else "plain"
                rec[f"{key}_fit_cpu_s"] = round(time.process_time() - t, 2)
                rec[f"{key}_test_error"] = float(np.mean(clf.predict(X[te]) != y[te]))
            macs = res.n_features * 10
            rec["cnn_macs_over_sliced_ops"] = round(cnn_macs() / sliced_ops(logic, macs), 1)
            with open(a.out, "a") as fh:
                fh.write(json.dumps(rec) + "\n")
            print(json.dumps(rec), flush=True)


if __name__ == "__main__":
    main()
