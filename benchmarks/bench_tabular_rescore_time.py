"""Fit time of ``TableExtractor()`` with ``rescore=8`` (the default) against ``rescore=0``, measured
in the same run, alternating, on the planted-signal tables of ``experiments/tabular_planted/bench_tabular_planted.py``
(first fold's training rows); the ratio of the medians per table.  The evaluators' score cache is
emptied before every fit, so no fit reuses another's scores.

    python benchmarks/bench_tabular_rescore_time.py --seed 0 --repeats 3
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "experiments" / "tabular_planted"))


def main() -> None:
    from bench_tabular_planted import GENERATORS, make_table

    from metafx_tabular import TableExtractor
    from metafx_tabular import evaluator as ev_module

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--generators", nargs="+", default=list(GENERATORS), choices=GENERATORS)
    a = ap.parse_args()
    print("| generator | s, rescore=0 (median) | s, rescore=8 (median) | ratio |")
    print("|---|---|---|---|")
    ratios = []
    for g in a.generators:
        df, y, _ = make_table(g, a.seed)
        tr = np.random.default_rng(a.seed).permutation(len(y))[: int(0.8 * len(y))]
        times: dict[int, list[float]] = {0: [], 8: []}
        for _ in range(a.repeats):
            for r in (0, 8):
                ev_module._SCORES.clear()  # the plugin's own cache of set scores: every fit starts cold
                t0 = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    TableExtractor(seed=a.seed, family_params={"rescore": r}).fit(df.iloc[tr], y[tr])
                times[r].append(time.perf_counter() - t0)
        m0, m8 = float(np.median(times[0])), float(np.median(times[8]))
        ratios.append(m8 / m0)
        print(f"| {g} | {m0:.2f} | {m8:.2f} | {m8 / m0:.2f} |", flush=True)
    print(f"\ngeometric mean of the ratios: {float(np.exp(np.mean(np.log(ratios)))):.2f}")


if __name__ == "__main__":
    main()
