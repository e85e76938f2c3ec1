"""Every engine on a plugin family written from the docs, beside the built-in families: the time of a search split
into the family's draw and compute, the engine's own work and the evaluation (metafx.testing.check_family_speed),
and the held-out error, all in one run.

Families: ``pixel-and`` (built in, compiled), ``window-or`` (examples/window_or_family.py: plain NumPy, 0/1 values
returned dense) and ``window-or-packed`` (the same file: the same values computed on bits, in NumPy) on MNIST
images, and ``tabular`` (the plugin) on a table (scikit-learn's breast-cancer table, 569 rows).  Ratios are the claim: the default engine's time over plain Mufasa's on the same family, budget and steps,
and the default engine's time on ``window-or`` over its time on ``pixel-and``.  ``--before REV`` also runs the
``tabular`` family of the plugin as it was at git revision ``REV`` (as ``tabular@REV``), in the same run, after
the current one on each partition: the draw share before and after a change of the family.

Each arm's row has its wall time and ``cpu``, the process's CPU time of the search (``time.process_time``; the runs
are single-threaded with ``NUMBA_NUM_THREADS=1``), which the load of other processes changes less.  ``--rotate``
runs the engines of partition ``P`` starting at the engine of index ``P mod len(--engines)`` (the partition's
number, not its place in ``--partitions``, so one process per partition rotates too): no arm always runs last.
Rows are written in the ``--engines`` order, each with ``position`` (0 = ran first) and the load average before
and after the partition's arms.

    python benchmarks/bench_plugin_family.py [--n-train 2000] [--budget 3000] [--steps 30] [--partitions 0]
        [--families pixel-and window-or tabular] [--engines guided mufasa guided:pool_rows=auto] [--out rows.json]
        [--before REV] [--rotate]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
from pathlib import Path

import numpy as np
from _yardstick import DEFAULT_MNIST, mnist

REPO = Path(__file__).resolve().parents[1]


def window_or_module():
    """``examples/window_or_family.py`` as the module ``window_or_family`` (the reference plugin families)."""
    spec = importlib.util.spec_from_file_location("window_or_family", REPO / "examples" / "window_or_family.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["window_or_family"] = mod
    spec.loader.exec_module(mod)
    return mod


def _tabular_before(rev: str):
    """The plugin's family class as it was at git revision ``rev`` (via benchmarks/bench_tabular_speed.py)."""
    import tempfile

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_tabular_speed import load_before

    return load_before(rev, Path(tempfile.mkdtemp(prefix="metafx_tabular_before_"))).TabularFamily


def _value(text: str):
    """An engine parameter's value: JSON (512, null, ...), else the string itself (auto)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def rotated(arms: list, partition: int, rotate: bool) -> list:
    """The arms in the order partition ``partition`` runs them: as given, or (``rotate``) starting at index
    ``partition mod len(arms)``."""
    if not rotate or not arms:
        return list(arms)
    k = partition % len(arms)
    return list(arms[k:]) + list(arms[:k])


def _load() -> float | None:
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:  # not available on this platform
        return None


def _error(res, X, y, Xte, yte) -> float:
    clf = res.fit_classifier(X, y, keep=False)
    return float(np.mean(clf.predict(Xte) != yte))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default=DEFAULT_MNIST)
    ap.add_argument("--n-train", type=int, default=2000)
    ap.add_argument("--budget", type=float, default=3000)
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--engines", nargs="+", default=["guided", "mufasa"],
                    help="engines, each optionally with parameters: guided:pool_rows=512, guided:pool_rows=auto")
    ap.add_argument("--partitions", nargs="+", type=int, default=[0], help="split seeds of the MNIST images")
    ap.add_argument("--families", nargs="+", default=["pixel-and", "window-or", "tabular"])
    ap.add_argument("--out", default=None, help="write the rows as JSON here")
    ap.add_argument("--before", default=None, help="git revision: also run the tabular family as it was there")
    ap.add_argument("--rotate", action="store_true",
                    help="partition P runs the engines starting at index P mod (number of engines)")
    args = ap.parse_args(argv)
    import metafx
    from metafx.core.validation import split_indices
    from metafx.testing import check_family_speed

    metafx.plugin.register_plugin(window_or_module(), name="window-or")
    arms = []
    for spec in args.engines:
        engine, _, rest = spec.partition(":")
        params = {k: _value(v) for k, v in (kv.split("=", 1) for kv in rest.split(",") if kv)} or None
        arms.append((spec, engine, params))
    rows = []
    if set(args.families) & {"pixel-and", "window-or", "window-or-packed"}:
        X, y = mnist(args.data_dir)
        metafx.search(X[:200], y[:200], budget=20, steps=2, seed=0, progress=False)  # compile the kernels
    runs = [(f, p) for p in args.partitions for f in args.families]
    if args.before and "tabular" in args.families:
        before = _tabular_before(args.before)
        runs = [r for p in args.partitions for f in args.families
                for r in ([(f, p), (f"tabular@{args.before}", p)] if f == "tabular" else [(f, p)])]
    for name, part in runs:
        if name.startswith("tabular@"):
            fam_class = before
            name = "tabular"
        else:
            fam_class = None
        if name != "tabular":
            tr, te = split_indices(len(y), args.n_train, args.n_train, part)
        if name == "tabular":
            from sklearn.datasets import load_breast_cancer

            Xt, yt = load_breast_cancer(return_X_y=True)
            split = np.random.default_rng(0).permutation(len(yt))
            a, b = split[:427], split[427:]
            data, budget = (Xt[a], yt[a], Xt[b], yt[b]), "auto"
        else:
            data, budget = (X[tr], y[tr], X[te], y[te]), args.budget
        fam = fam_class() if fam_class is not None else metafx.plugin.make_component("family", name, None)
        label = name if fam_class is None else f"tabular@{args.before}"
        order = rotated(arms, part, args.rotate)
        load = _load()
        report = check_family_speed(fam, data[0], data[1], budget=budget if budget != "auto" else 500,
                                    steps=args.steps, engines=order)
        load = [load, _load()]
        print(f"\n{label}: budget {budget}, {args.steps} steps, {len(data[1])} training samples, partition {part}, "
              f"arms in the order {[a[0] for a in order]}, load average {load[0]} before, {load[1]} after")
        print(report)
        position = {r["engine"]: i for i, r in enumerate(report.rows)}
        for r in sorted(report.rows, key=lambda r: args.engines.index(r["engine"])):
            res = r.pop("result")
            err = _error(res, data[0], data[1], data[2], data[3]) if name != "tabular" else None
            rows.append({"family": label, "partition": part, **r, "holdout_error": err, "n_features": res.n_features,
                         "position": position[r["engine"]], "load": load})
            print(f"  {r['engine']}: held-out error {'-' if err is None else f'{100 * err:.2f} %'}, "
                  f"{res.n_features} features, draw share {r['draw'] / r['wall']:.2f} "
                  f"(with compute {(r['draw'] + r['compute']) / r['wall']:.2f})")
        if "mufasa" in args.engines:
            for arm in args.engines:
                if arm != "mufasa":
                    print(f"  {arm} / mufasa: wall {report.ratio(arm):.2f}, cpu {report.ratio(arm, clock='cpu'):.2f}")
        arm = {(r["family"], r["engine"]): r for r in rows if r["partition"] == part}
        for fam in {"window-or", "window-or-packed"} & {label}:  # the family just run, beside pixel-and
            if ("pixel-and", "guided") in arm and (fam, "guided") in arm:
                a, b = arm[(fam, "guided")], arm[("pixel-and", "guided")]
                print(f"\nguided on {fam} / guided on pixel-and: wall {a['wall'] / b['wall']:.2f}, "
                      f"cpu {a['cpu'] / b['cpu']:.2f}")
    if args.out:
        Path(args.out).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
