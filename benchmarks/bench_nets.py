"""gamma-net construction: Algorithm 1 (brute force) against the net hierarchy ([C] section 2).

Uniform points in [0, 1]^d (L1 metric) and, as a high-dimensional case,
scikit-learn's digits (64 pixels scaled to [0, 1]).  For each case the script
prints n, d, gamma, both net sizes, both times (best of 2, after one warm-up
call that compiles the kernels) and the hierarchy's distance evaluations
against Algorithm 1's; every net is checked with ``is_gamma_net``.

    python benchmarks/bench_nets.py
"""

from __future__ import annotations

import time
from functools import partial

import numpy as np

from metafx._kernels.compression import brute_force_net, hierarchy_net
from metafx.learn import compression as cp


def best_of(f, k=2):
    t = []
    for _ in range(k):
        t0 = time.perf_counter()
        r = f()
        t.append(time.perf_counter() - t0)
    return r, min(t)


def main() -> None:
    rng = np.random.default_rng(0)
    from sklearn.datasets import load_digits

    digits = load_digits().data / 16.0
    cases = [("uniform", rng.random((n, d)), g) for n, d, g in
             [(20000, 2, 0.01), (20000, 2, 0.002), (20000, 3, 0.02), (20000, 5, 0.1), (10000, 8, 0.3)]]
    cases += [("digits", digits, g) for g in (4.0, 8.0)]
    hierarchy_net(cases[0][1][:50], 0.1, True)
    brute_force_net(cases[0][1][:50], 0.1, True)
    print("| data | n | d | gamma (L1) | net size brute / hierarchy | time brute | time hierarchy | "
          "distance evaluations brute (about) / hierarchy |")
    print("|---|---|---|---|---|---|---|---|")
    for name, X, g in cases:
        nb_, tb = best_of(partial(brute_force_net, X, g, True))
        (nh, st), th = best_of(partial(hierarchy_net, X, g, True))
        ok = cp.is_gamma_net(X, nb_, g, "l1") and cp.is_gamma_net(X, nh, g, "l1")
        assert ok
        approx_brute = X.shape[0] * nb_.size / 2
        print(f"| {name} | {X.shape[0]} | {X.shape[1]} | {g:g} | {nb_.size} / {nh.size} | {tb:.3f} s | {th:.3f} s | "
              f"{approx_brute:.3g} / {st[1]:.3g} |", flush=True)


if __name__ == "__main__":
    main()
