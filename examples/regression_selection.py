"""Chapter 4's synthetic regression (thesis section 4.3, Figures 4.1 and 4.2), with analogue target functions.

The thesis gives its four target functions over R^50 only as plots; the
functions here are **analogues** chosen to have the properties the text
states (ALGORITHMS.md A10):

* (a) ``g = x1``                          -- monotonic, one relevant feature;
* (b) ``g = cos(pi x1)``                  -- non-monotonic (even: no correlation, no median information);
* (c) ``g = x1 + x2``                     -- two features, each alone highly correlated with g;
* (d) ``g = sin(pi x1) sin(pi x2)``       -- a smoothed parity / XOR: neither feature alone tells anything.

Training sets of ``m`` points uniform on [-1, 1]^50, Gaussian noise of variance
1/7 added to the training targets.  A selector *succeeds* on a repetition when
the relevant feature(s) get the top rank(s).  Selectors: ``infogain``
(median-binarized feature and target), ``corrcoef`` (|Pearson|), ``sks``
(each feature alone by the LOO soft k-NN fit, k = 5, beta = 0.05),
``fwdSel`` (``forward`` on the same criterion, as many steps as relevant
features), ``rgs`` (thesis Alg 4, ``--rgs-k`` neighbours (default 20), beta by the thesis'
rule, ``--rgs-epochs`` epochs (default 10)).

Figure 4.1(e, f): the soft k-NN estimate (k = 5, beta = 0.05) of target (b)
from the relevant feature alone and from it plus one irrelevant feature,
MSE on 2000 noise-free test points, mean over the repetitions.

    python examples/regression_selection.py --out runs/regression               # 100 repetitions
    python examples/regression_selection.py --out runs/regression --repeats 250 --sizes 20 40 60 80 100
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

import metafx

TARGETS = {
    "a": (lambda X: X[:, 0], (0,)),
    "b": (lambda X: np.cos(np.pi * X[:, 0]), (0,)),
    "c": (lambda X: X[:, 0] + X[:, 1], (0, 1)),
    "d": (lambda X: np.sin(np.pi * X[:, 0]) * np.sin(np.pi * X[:, 1]), (0, 1)),
}
METHODS = ("infogain", "corrcoef", "sks", "fwdSel", "rgs")
NOISE_VAR = 1.0 / 7.0


def draw(target: str, m: int, n_features: int, rng: np.random.Generator):
    f, rel = TARGETS[target]
    X = rng.uniform(-1.0, 1.0, (m, n_features))
    g = f(X) + rng.normal(0.0, np.sqrt(NOISE_VAR), m)
    return X, g, rel


def top_ranked(method: str, X, g, r: int, seed: int, args) -> set:
    if method == "fwdSel":
        sel = metafx.select_features(X, g, "forward", criterion="soft-knn", k=5, beta=0.05, n_features_to_select=r)
        return set(sel.tolist())
    if method == "infogain":
        s = metafx.score_features(X, g, "infogain", binarize="median", binarize_target="median")
    elif method == "corrcoef":
        s = metafx.score_features(X, g, "corrcoef")
    elif method == "sks":
        s = metafx.score_features(X, g, "sks", k=5, beta=0.05)
    elif method == "rgs":
        s = metafx.score_features(X, g, "rgs", k=args.rgs_k, n_iter=args.rgs_epochs * X.shape[0], random_state=seed)
    else:
        raise ValueError(method)
    return set(np.argsort(-np.asarray(s), kind="stable")[:r].tolist())


def soft_knn_test_mse(Xtr, gtr, Xte, gte, cols, k=5, beta=0.05) -> float:
    """MSE of the soft k-NN estimate (eq. 4.1) from the training set, on the test points."""
    d = np.zeros((Xte.shape[0], Xtr.shape[0]))
    for c in cols:
        d += (Xte[:, c][:, None] - Xtr[:, c][None, :]) ** 2
    nb = np.argsort(d, axis=1, kind="stable")[:, :k]
    dn = np.take_along_axis(d, nb, axis=1)
    w = np.exp(-(dn - dn[:, :1]) / beta)
    est = (w * gtr[nb]).sum(axis=1) / w.sum(axis=1)
    return float(np.mean((est - gte) ** 2))


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default="runs/regression")
    p.add_argument("--repeats", type=int, default=100)
    p.add_argument("--sizes", type=int, nargs="+", default=[20, 40, 60, 80, 100])
    p.add_argument("--targets", nargs="+", default=list(TARGETS), choices=list(TARGETS))
    p.add_argument("--methods", nargs="+", default=list(METHODS), choices=METHODS)
    p.add_argument("--features", type=int, default=50)
    p.add_argument("--rgs-k", type=int, default=20)
    p.add_argument("--rgs-epochs", type=int, default=10)
    p.add_argument("--fig41-m", type=int, default=100, help="training points for the Figure 4.1(e,f) check")
    args = p.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    t0 = time.perf_counter()
    # Figure 4.1 (e, f)
    fig41 = {}
    for noisy in (False, True):
        rel_only, with_irr = [], []
        for rep in range(args.repeats):
            rng = np.random.default_rng(10_000 + rep)
            X = rng.uniform(-1, 1, (args.fig41_m, 2))
            g = np.cos(np.pi * X[:, 0]) + (rng.normal(0, np.sqrt(NOISE_VAR), args.fig41_m) if noisy else 0.0)
            Xte = rng.uniform(-1, 1, (2000, 2))
            gte = np.cos(np.pi * Xte[:, 0])
            rel_only.append(soft_knn_test_mse(X, g, Xte, gte, [0]))
            with_irr.append(soft_knn_test_mse(X, g, Xte, gte, [0, 1]))
        fig41["noisy" if noisy else "noise-free"] = {"relevant_only": float(np.mean(rel_only)),
                                                     "relevant_plus_irrelevant": float(np.mean(with_irr))}

    # Figure 4.2
    success = {t: {meth: {} for meth in args.methods} for t in args.targets}
    for t in args.targets:
        for m in args.sizes:
            wins = {meth: 0 for meth in args.methods}
            for rep in range(args.repeats):
                rng = np.random.default_rng([ord(t), m, rep])
                X, g, rel = draw(t, m, args.features, rng)
                for meth in args.methods:
                    wins[meth] += top_ranked(meth, X, g, len(rel), rep, args) == set(rel)
            for meth in args.methods:
                success[t][meth][m] = wins[meth] / args.repeats
            print(f"target {t} m={m:4d}: " + "  ".join(f"{meth} {success[t][meth][m]:.2f}" for meth in args.methods),
                  flush=True)

    lines = [f"Figure 4.2 analogue: success rate over {args.repeats} repetitions (rgs k={args.rgs_k}, "
             f"{args.rgs_epochs} epoch(s))", ""]
    for t in args.targets:
        lines += [f"target ({t})", "", "| method | " + " | ".join(f"m={m}" for m in args.sizes) + " |",
                  "|---|" + "---|" * len(args.sizes)]
        for meth in args.methods:
            lines.append(f"| {meth} | " + " | ".join(f"{success[t][meth][m]:.2f}" for m in args.sizes) + " |")
        lines.append("")
    lines.append(f"Figure 4.1(e,f) analogue (m={args.fig41_m}, mean test MSE over {args.repeats} draws): "
                 + "; ".join(f"{k}: relevant only {v['relevant_only']:.4f}, plus one irrelevant "
                             f"{v['relevant_plus_irrelevant']:.4f}" for k, v in fig41.items()))
    table = "\n".join(lines)
    print(table)
    summary = {"success": success, "fig41": fig41, "repeats": args.repeats, "sizes": args.sizes,
               "rgs_k": args.rgs_k, "rgs_epochs": args.rgs_epochs, "seconds": time.perf_counter() - t0}
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    (out / "table.md").write_text(table + "\n")
    return summary


if __name__ == "__main__":
    main()
