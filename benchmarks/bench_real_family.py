"""The default engine against plain Mufasa on a real-valued plugin family: the OR family's pixels summed.

``window-sum`` is ``examples/window_or_family.py``'s family with one change: a feature is the number of its ``k``
pixels that are on (0 .. k, float64 values returned with ``FeatureValues.from_dense``), not their OR.  It is
defined here, for this benchmark only (it does not export).  For each partition (2000 training and 2000 test MNIST
images, ``split_indices(10000, 2000, 2000, seed=p)``; partitions of one 10,000-image pool overlap), ``guided`` and
``mufasa`` search it (budget 3000, 30 steps, seed = p); each row gives the search's CPU seconds in this process and
the held-out error of ``fit_classifier`` on the test part.

    python benchmarks/bench_real_family.py [--partitions 100 101 102] [--out rows.json]
"""

from __future__ import annotations

import argparse
import json
import time
import types
from pathlib import Path

import numpy as np
from _yardstick import DEFAULT_MNIST, mnist
from bench_plugin_family import window_or_module


def register_window_sum():
    import metafx
    from metafx.plugin import FeatureValues, hookimpl

    base = window_or_module()

    class WindowSum(base.WindowOr):
        name = "window-sum"
        summary = "number of k pixels on inside a w x w window (benchmark only)"

        def compute(self, prepared, batch):
            out = np.zeros((prepared.shape[0], len(batch)))
            used = np.arange(base.MAX_K)[None, :] < batch.k[:, None]  # unused inputs repeat the first
            for start in range(0, len(batch), 2048):
                part = slice(start, start + 2048)
                out[:, part] = (prepared[:, batch.rows[part], batch.cols[part]] * used[part][None]).sum(axis=2)
            return FeatureValues.from_dense(out)

        def export_c(self, *args, **kwargs):  # the OR family's export would write ORs
            raise NotImplementedError("window-sum does not export")

        export_numpy = export_c

    plugin = types.ModuleType("window_sum_plugin")

    @hookimpl
    def metafx_register_families(register):
        register(WindowSum)

    plugin.metafx_register_families = metafx_register_families
    metafx.plugin.register_plugin(plugin, name="window-sum")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default=DEFAULT_MNIST)
    ap.add_argument("--partitions", type=int, nargs="+", default=[100, 101, 102])
    ap.add_argument("--budget", type=float, default=3000)
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--out", default=None, help="write the rows as JSON to this file")
    args = ap.parse_args(argv)

    import metafx
    from metafx.core.validation import split_indices

    register_window_sum()
    X, y = mnist(args.data_dir)
    metafx.search(X[:200], y[:200], family="window-sum", budget=300, steps=2, seed=0, progress=False)  # compile
    rows = []
    for p in args.partitions:
        tr, te = split_indices(len(y), 2000, 2000, seed=p)
        for engine in ("guided", "mufasa"):
            t0 = time.process_time()
            res = metafx.search(X[tr], y[tr], family="window-sum", engine=engine, budget=args.budget,
                                steps=args.steps, seed=p, progress=False)
            cpu = time.process_time() - t0
            err = float(np.mean(res.fit_classifier(X[tr], y[tr], random_state=p).predict(X[te]) != y[te]))
            rows.append({"partition": p, "engine": engine, "cpu": cpu, "holdout_error": err,
                         "n_features": res.n_features})
            print(f"partition {p} {engine}: {cpu:.1f} CPU s, held-out error {100 * err:.2f} %, "
                  f"{res.n_features} features", flush=True)
        print(f"partition {p} guided / mufasa: {rows[-2]['cpu'] / rows[-1]['cpu']:.2f}", flush=True)
    if args.out:
        Path(args.out).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
