"""G-flip + SVM-RBF on MADELON-like data (thesis section 3.7.5, a synthetic analogue).

The data are **synthetic**: scikit-learn's ``make_classification`` is Guyon's
MADELON generator (clusters on the vertices of a hypercube in the informative
dimensions, linear combinations of them as redundant features, the rest
Gaussian noise).  Per seed: ``--train`` + ``--test`` instances, 500 features of
which 5 informative and 15 redundant (20 relevant), 16 clusters per class (32
as in MADELON), ``flip_y=0.01``, ``class_sep`` (1.0: the hypercube of side 2 of
MADELON); rows and columns are shuffled and every column is standardized with the
training mean and standard deviation.

Selectors, each run on the training part:

* ``gflip``: the thesis' plain G-flip (linear utility), its own stopping;
  ``gflip-zero-one``: the same with the zero-one utility (fewer features, T section 3.9);
* ``gflip-stable``: the metafx variant (G-flip on 10 random halves, features
  chosen in >= 75 % of the runs);
* ``forward``: forward selection on 5-fold CV accuracy of 1-NN, stopping when
  no feature improves it;
* rankers, top ``--top`` columns (default 20, the true number of relevant
  features -- an oracle size, which favours them): ``simba`` (linear,
  ``--simba-restarts``), ``relief-f`` (k = 1 and k = 10), ``infogain`` (median
  binarized), ``r2w2`` (``--r2w2-iter`` steps);
* references: ``all`` features and the ``true`` relevant set.

Every feature set is scored by the balanced error (BER) on the test part of an
RBF SVM whose ``C`` in {1, 10} and ``gamma`` in {0.03, 0.1, 0.3, 1} / |F| are
chosen by 3-fold CV on the training part.  G-flip *succeeds* on a problem
when it chooses at most 30 features, at least 70 % of them relevant, and its
BER is within 0.03 of the true relevant set's.

Each finished (seed, method) is appended to ``<out>/runs.jsonl`` and skipped
when the script is run again; the table is printed from that file.

    python examples/madelon_like.py --out runs/madelon                 # 10 seeds
    python examples/madelon_like.py --out runs/madelon --seeds 0 1 2   # a subset (run several in parallel)
    python examples/madelon_like.py --out runs/madelon --report-only
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

import metafx

METHODS = ("all", "true", "gflip", "gflip-zero-one", "gflip-stable", "forward", "simba", "relief-f", "relief-f-k10",
           "infogain", "r2w2")


def madelon_like(seed: int, n_train: int, n_test: int, class_sep: float, n_features: int = 500):
    """Standardized train/test parts and the (shuffled) indices of the 20 relevant columns."""
    from sklearn.datasets import make_classification

    X, y = make_classification(n_samples=n_train + n_test, n_features=n_features, n_informative=5, n_redundant=15,
                               n_repeated=0, n_classes=2, n_clusters_per_class=16, flip_y=0.01,
                               class_sep=class_sep, hypercube=True, shuffle=False, random_state=seed)
    rng = np.random.default_rng(seed)
    perm = rng.permutation(n_features)
    rows = rng.permutation(X.shape[0])  # shuffle=False leaves the rows ordered by cluster
    X, y = X[rows][:, perm], y[rows]
    relevant = np.flatnonzero(perm < 20)
    Xtr, Xte = X[:n_train], X[n_train:]
    mu, sd = Xtr.mean(axis=0), Xtr.std(axis=0)
    sd[sd == 0] = 1.0
    return (Xtr - mu) / sd, y[:n_train], (Xte - mu) / sd, y[n_train:], relevant


def svm_ber(Xtr, ytr, Xte, yte, cols, seed: int) -> float:
    """Test balanced error of an RBF SVM with C and gamma chosen by 3-fold CV on the training part."""
    from sklearn.metrics import balanced_accuracy_score
    from sklearn.model_selection import GridSearchCV, StratifiedKFold
    from sklearn.svm import SVC

    cols = np.asarray(cols, dtype=int)
    if cols.size == 0:
        return 0.5
    grid = {"C": [1.0, 10.0], "gamma": [g / cols.size for g in (0.03, 0.1, 0.3, 1.0)]}
    gs = GridSearchCV(SVC(kernel="rbf"), grid, cv=StratifiedKFold(3, shuffle=True, random_state=seed),
                      scoring="balanced_accuracy")
    gs.fit(Xtr[:, cols], ytr)
    return float(1.0 - balanced_accuracy_score(yte, gs.predict(Xte[:, cols])))


def select(method: str, Xtr, ytr, relevant, seed: int, args) -> np.ndarray:
    n = Xtr.shape[1]
    if method == "all":
        return np.arange(n)
    if method == "true":
        return np.asarray(relevant)
    if method == "gflip":
        return metafx.select_features(Xtr, ytr, "gflip", random_state=seed)
    if method == "gflip-zero-one":
        return metafx.select_features(Xtr, ytr, "gflip", utility="zero-one", random_state=seed)
    if method == "gflip-stable":
        return metafx.select_features(Xtr, ytr, "gflip-stable", random_state=seed)
    if method == "forward":
        return metafx.select_features(Xtr, ytr, "forward", criterion="cv", cv=5, random_state=seed)
    top = args.top
    if method == "simba":
        return metafx.select_features(Xtr, ytr, "simba", n=top, n_restarts=args.simba_restarts, random_state=seed)
    if method == "relief-f":
        return metafx.select_features(Xtr, ytr, "relief-f", n=top)
    if method == "relief-f-k10":
        return metafx.select_features(Xtr, ytr, "relief-f", n=top, n_neighbors=10)
    if method == "infogain":
        return metafx.select_features(Xtr, ytr, "infogain", n=top, binarize="median")
    if method == "r2w2":
        return metafx.select_features(Xtr, ytr, "r2w2", n=top, n_iter=args.r2w2_iter)
    raise ValueError(method)


def success(row: dict, true_ber: float) -> bool:
    return row["n_selected"] <= 30 and row["share_relevant"] >= 0.7 and row["ber"] <= true_ber + 0.03


def report(rows: list[dict], methods) -> str:
    by = {}
    for r in rows:
        by.setdefault(r["method"], {})[r["seed"]] = r
    seeds = sorted(by.get("true", {}))
    lines = [f"seeds: {len(seeds)}",
             "| method | features chosen | share relevant | BER (test) | BER - BER(true) | seconds "
             "| success (<= 30 features, >= 70 % relevant, BER <= BER(true) + 0.03) |",
             "|---|---|---|---|---|---|---|"]

    def ms(v):
        v = np.asarray(v, dtype=float)
        return f"{v.mean():.3f} ± {v.std(ddof=1) if v.size > 1 else 0.0:.3f}"

    for meth in methods:
        rs = [by.get(meth, {}).get(s) for s in seeds]
        rs = [r for r in rs if r is not None]
        if not rs:
            continue
        tb = [by["true"][r["seed"]]["ber"] for r in rs]
        nsel = np.array([r["n_selected"] for r in rs], float)
        succ = sum(success(r, t) for r, t in zip(rs, tb, strict=True))
        lines.append(
            f"| {meth} | {nsel.mean():.1f} (min {nsel.min():.0f}, max {nsel.max():.0f}) | "
            f"{ms([r['share_relevant'] for r in rs])} | {ms([r['ber'] for r in rs])} | "
            f"{ms([r['ber'] - t for r, t in zip(rs, tb, strict=True)])} | {np.mean([r['seconds'] for r in rs]):.1f} | "
            f"{succ}/{len(rs)} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default="runs/madelon")
    p.add_argument("--seeds", type=int, nargs="+", default=list(range(10)))
    p.add_argument("--methods", nargs="+", default=list(METHODS), choices=METHODS)
    p.add_argument("--train", type=int, default=1000)
    p.add_argument("--test", type=int, default=1000)
    p.add_argument("--features", type=int, default=500)
    p.add_argument("--class-sep", type=float, default=1.0)
    p.add_argument("--top", type=int, default=20, help="columns taken from the rankers")
    p.add_argument("--simba-restarts", type=int, default=3)
    p.add_argument("--r2w2-iter", type=int, default=10)
    p.add_argument("--report-only", action="store_true")
    args = p.parse_args(argv)

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "runs.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []
    done = {(r["seed"], r["method"]) for r in rows}
    if not args.report_only:
        for seed in args.seeds:
            todo = [m for m in args.methods if (seed, m) not in done]
            if not todo:
                continue
            Xtr, ytr, Xte, yte, relevant = madelon_like(seed, args.train, args.test, args.class_sep, args.features)
            rel = set(relevant.tolist())
            for meth in todo:
                t0 = time.perf_counter()
                cols = np.asarray(select(meth, Xtr, ytr, relevant, seed, args), dtype=int)
                secs = time.perf_counter() - t0
                ber = svm_ber(Xtr, ytr, Xte, yte, cols, seed)
                row = {"seed": seed, "method": meth, "n_selected": int(cols.size),
                       "n_relevant": len(rel & set(cols.tolist())),
                       "share_relevant": float(len(rel & set(cols.tolist())) / max(cols.size, 1)),
                       "ber": ber, "seconds": secs, "features": sorted(cols.tolist()),
                       "setting": {"train": args.train, "test": args.test, "class_sep": args.class_sep,
                                   "features": args.features, "top": args.top}}
                rows.append(row)
                with path.open("a") as fh:
                    fh.write(json.dumps(row) + "\n")
                print(f"seed {seed} {meth:>13}: {row['n_selected']:3d} features, {row['n_relevant']:2d} relevant, "
                      f"BER {ber:.4f}, {secs:.1f} s", flush=True)
    table = report(rows, args.methods)
    print(table)
    (out / "table.md").write_text(table + "\n")
    return {"rows": rows, "table": table}


if __name__ == "__main__":
    main()
