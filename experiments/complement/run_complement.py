"""The decision runs of ``RULE.md``: ``cv-linear-svm``'s ``complement`` at 0.9 and at 0.7, on two families.

For each MNIST partition (``split_indices(10000, 2000, 2000, seed=p)``; partitions of one 10,000-image pool
overlap) and each arm, a search (``pixel-and`` with every default; ``window-or-packed`` from
``examples/window_or_family.py``, budget 3000, 30 steps) is timed in CPU seconds of this process, and its result's
``fit_classifier`` is scored on the test part.  One JSON line per run; ``--report`` applies the rule.

    python experiments/complement/run_complement.py --partitions 700 701 702 703 --out R/complement_a.jsonl
    python experiments/complement/run_complement.py --report R/complement_a.jsonl R/complement_b.jsonl

The decision's records: ``--report experiments/complement/complement_a.jsonl experiments/complement/complement_b.jsonl``
(read from ``experiments/complement/records.tar.xz``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
ARMS = (0.9, 0.7)
FAMILIES = {"pixel-and": {}, "window-or-packed": {"budget": 3000, "steps": 30}}


def run(partitions: list[int], out: Path, data_dir: str) -> None:
    import metafx
    from metafx.core.validation import split_indices

    sys.path.insert(0, str(REPO / "benchmarks"))
    from bench_plugin_family import window_or_module  # examples/window_or_family.py, loaded as the benchmark does

    metafx.plugin.register_plugin(window_or_module(), name="window-or")
    X, y = metafx.load_dataset("mnist", data_dir=data_dir)
    commit = os.popen(f"git -C {REPO} rev-parse --short HEAD 2>/dev/null").read().strip() or None
    metafx.search(X[:200], y[:200], budget=300, steps=2, seed=0, progress=False)  # compile outside the clocks
    for p in partitions:
        tr, te = split_indices(len(y), 2000, 2000, seed=p)
        arms = ARMS if p % 2 == 0 else ARMS[::-1]
        for family, params in FAMILIES.items():
            for comp in arms:
                t0 = time.process_time()
                res = metafx.search(X[tr], y[tr], family=family, seed=p, progress=False,
                                    evaluator_params={"complement": comp}, **params)
                cpu = time.process_time() - t0
                clf = res.fit_classifier(X[tr], y[tr], random_state=p)
                rec = {"partition": p, "family": family, "complement": comp, "commit": commit,
                       "search_cpu_seconds": cpu, "test_error": float(np.mean(clf.predict(X[te]) != y[te])),
                       "cv_quality": res.best_quality, "n_features": res.n_features}
                print(json.dumps(rec), flush=True)
                with open(out, "a") as fh:
                    fh.write(json.dumps(rec) + "\n")


def report(paths: list[str]) -> bool:
    sys.path.insert(0, str(REPO / "experiments"))
    from records import read_text  # the plain file, else its member of experiments/complement/records.tar.xz

    recs = [json.loads(line) for p in paths for line in read_text(p).splitlines() if line.strip()]
    by = {(r["partition"], r["family"], r["complement"]): r for r in recs}
    verdicts = []
    for family in FAMILIES:
        parts = sorted({p for p, f, _ in by if f == family and all((p, f, c) in by for c in ARMS)})
        d = np.array([100 * (by[p, family, 0.7]["test_error"] - by[p, family, 0.9]["test_error"]) for p in parts])
        r = np.array([by[p, family, 0.7]["search_cpu_seconds"] / by[p, family, 0.9]["search_cpu_seconds"]
                      for p in parts])
        se = d.std(ddof=1) / np.sqrt(len(d)) if len(d) > 1 else float("nan")
        e9 = np.mean([100 * by[p, family, 0.9]["test_error"] for p in parts])
        e7 = np.mean([100 * by[p, family, 0.7]["test_error"] for p in parts])
        print(f"{family}: {len(parts)} partitions {parts}; test error 0.9 {e9:.2f} %, 0.7 {e7:.2f} %; "
              f"d = {d.mean():+.3f} (se {se:.3f}, per partition {np.round(d, 2).tolist()}); "
              f"time ratio median {np.median(r):.2f} (range {r.min():.2f}-{r.max():.2f})")
        if family == "pixel-and":
            verdicts += [("1", d.mean() <= 0.10 and d.mean() <= 2 * se), ("4", np.median(r) <= 1.10)]
        else:
            verdicts += [("2", d.mean() <= 2 * se), ("3", np.median(r) <= 0.67)]
    for name, ok in sorted(verdicts):
        print(f"condition {name}: {'holds' if ok else 'fails'}")
    adopted = all(ok for _, ok in verdicts) and len(verdicts) == 4
    print("decision:", "complement=0.7 becomes the default" if adopted else "the default stays 0.9")
    return adopted


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--partitions", type=int, nargs="+", default=list(range(700, 708)))
    ap.add_argument("--out", type=Path, default=Path("complement.jsonl"))
    ap.add_argument("--data-dir", default=os.environ.get("METAFX_MNIST_DIR", str(REPO.parent / "shared/data/mnist")))
    ap.add_argument("--report", nargs="+", metavar="JSONL", help="apply the rule to these records and stop")
    args = ap.parse_args(argv)
    if args.report:
        report(args.report)
        return 0
    run(args.partitions, args.out, args.data_dir)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
