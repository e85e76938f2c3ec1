"""Shared plumbing of the quality-map examples: data, output files, plots.

Not an example itself; imported by ``quality_prediction.py``,
``inductive_transfer.py``, ``meta_feature_choice.py`` and ``smoothing.py``.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]


def default_out(name: str) -> Path:
    """Where an example writes by default: ``$METAFX_EXAMPLES_OUT/<name>`` or ``~/metafx-examples/<name>``."""
    return Path(os.environ.get("METAFX_EXAMPLES_OUT") or Path.home() / "metafx-examples") / name


def base_parser(description: str, name: str) -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default="mnist", choices=["mnist", "digits"],
                    help="mnist (28x28, needs the IDX files) or digits (scikit-learn's 8x8, no download)")
    ap.add_argument("--data-dir", default=os.environ.get("METAFX_MNIST_DIR", str(REPO.parent / "shared/data/mnist")),
                    help="directory of the MNIST IDX files (default $METAFX_MNIST_DIR or ../shared/data/mnist)")
    ap.add_argument("--out", default=str(default_out(name)),
                    help="output directory (default %(default)s; outside the source tree, $METAFX_EXAMPLES_OUT "
                         "moves it)")
    ap.add_argument("--seed", type=int, default=0)
    return ap


def load(args) -> tuple[np.ndarray, np.ndarray]:
    import metafx

    if args.data == "digits":
        return metafx.load_dataset("digits")
    return metafx.load_dataset("mnist", data_dir=args.data_dir)


def out_dir(args) -> Path:
    p = Path(args.out)
    p.mkdir(parents=True, exist_ok=True)
    return p


def write_csv(path: Path, rows: Iterable[Mapping[str, Any]]) -> None:
    rows = list(rows)
    if not rows:
        return
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in r.items()})


def write_json(path: Path, obj: Any) -> None:
    def conv(o):
        if isinstance(o, (np.floating, np.integer)):
            return o.item()
        if isinstance(o, np.ndarray):
            return o.tolist()
        raise TypeError(type(o))

    path.write_text(json.dumps(obj, indent=1, default=conv))


def pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def corr(a: np.ndarray, b: np.ndarray) -> float:
    """Pearson correlation; 0 when either side is constant."""
    a = np.asarray(a, float)
    b = np.asarray(b, float)
    if a.std() == 0 or b.std() == 0:
        return 0.0
    return float(np.corrcoef(a, b)[0, 1])


def one_nn_error(train: np.ndarray, y_train: np.ndarray, test: np.ndarray, y_test: np.ndarray) -> float:
    """Test error of 1-NN with Euclidean distance (Hamming on 0/1 features); ties go to the first training row.

    Squared distances come from one matrix product, ``|a|^2 + |b|^2 - 2 a.b``.
    """
    A = np.asarray(train, np.float32)
    B = np.asarray(test, np.float32)
    if A.shape[1] == 0:
        vals, counts = np.unique(y_train, return_counts=True)
        return float(np.mean(y_test != vals[np.argmax(counts)]))
    d = (A * A).sum(1)[None, :] - 2.0 * (B @ A.T)  # |b|^2 is constant per test row
    return float(np.mean(np.asarray(y_train)[np.argmin(d, axis=1)] != y_test))


class Timer:
    def __init__(self) -> None:
        self.t0 = time.perf_counter()

    @property
    def seconds(self) -> float:
        return time.perf_counter() - self.t0
