"""How many of the redundancy filter's pair tests a bound from the counts alone could skip (a screen; nothing in
metafx uses it).

The filter of ``guided`` (``metafx._kernels.diverse``) keeps a feature while its phi coefficient with every kept
feature is at most ``max_corr``.  With ``na`` and ``nb`` ones among ``m`` samples, ``n11`` (the samples where both
are 1) lies in ``[max(0, na + nb - m), min(na, nb)]``, so ``|phi|`` has a bound from the counts alone; a pair whose
bound is below ``max_corr`` passes without its popcount.  This script runs the default search (budget 3000, 50
steps, 2000 MNIST training images of ``--partition``), records every filter call, replays each with a counting
twin of the filter, and prints the share of pair tests the bound would skip.

    python experiments/guided/probe_filter_bound.py --partition 100
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import numba
import numpy as np

import metafx
import metafx.default_plugins.guided as guided
from metafx._kernels.packing import _popcount64, popcount_rows
from metafx.core.validation import split_indices


@numba.njit(cache=False)
def _count(packed, ones, order, costs, budget, max_corr, m):
    nc, spent, W, fm = 0, 0.0, packed.shape[1], float(m)
    kept = np.empty(order.shape[0], np.int64)
    pairs, skippable = 0, 0
    below = max_corr * max_corr * (1 - 1e-9)
    for t in range(order.shape[0]):
        i = order[t]
        if spent + costs[i] > budget:
            continue
        na = ones[i]
        if na == 0 or na == m:
            continue
        fa = float(na)
        va = fa * (fm - fa)
        ok = True
        for q in range(nc):
            s = kept[nc - 1 - q]
            nb = float(ones[s])
            vb = nb * (fm - nb)
            pairs += 1
            hi = fm * min(fa, nb) - fa * nb
            lo = fm * max(0.0, fa + nb - fm) - fa * nb
            if max(hi * hi, lo * lo) < below * va * vb:
                skippable += 1
                continue
            n11 = 0
            for w in range(W):
                n11 += _popcount64(packed[i, w] & packed[s, w])
            num = fm * n11 - fa * nb
            if num * num > max_corr * max_corr * va * vb:
                ok = False
                break
        if ok:
            kept[nc] = i
            nc += 1
            spent += costs[i]
    return pairs, skippable


def main(argv=None) -> None:
    here = Path(__file__).resolve().parents[2]
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default=os.environ.get("METAFX_MNIST_DIR", str(here.parent / "shared/data/mnist")))
    ap.add_argument("--partition", type=int, default=100)
    args = ap.parse_args(argv)
    calls = []
    original = guided.diverse_prefix

    def recording(packed, m, order, costs, budget, max_corr):
        calls.append((np.ascontiguousarray(packed, dtype=np.uint64), m, np.asarray(order, dtype=np.int64),
                      np.asarray(costs, dtype=np.float64), float(budget), float(max_corr)))
        return original(packed, m, order, costs, budget, max_corr)

    guided.diverse_prefix = recording
    try:
        X, y = metafx.load_dataset("mnist", data_dir=args.data_dir)
        tr = split_indices(len(X), 2000, 2000, seed=args.partition)[0]
        metafx.search(X[tr], y[tr], budget=3000, steps=50, seed=args.partition, progress=False)
    finally:
        guided.diverse_prefix = original
    pairs = skippable = 0
    for packed, m, order, costs, budget, max_corr in calls:
        p, s = _count(packed, popcount_rows(packed), order, costs, budget * (1 + 1e-12), max_corr, m)
        pairs, skippable = pairs + p, skippable + s
    print(f"{len(calls)} filter calls, {pairs} pair tests, {skippable} skippable by the count bound "
          f"({skippable / max(pairs, 1):.1%})")


if __name__ == "__main__":
    main()
