"""Guided feature extraction on MNIST: the thesis's Figures 5.3 and 5.4, and beyond.

Protocol (thesis section 5.3.2): MNIST binarized at 128; for each partition p
(seed p), 2000 training and 2000 test images drawn at random without overlap
(``--data digits``: half of the 1797 images each, unless ``--n-train``/``--n-test`` say otherwise);
for every budget and engine a 50-step search on the training images (quality:
2-fold CV of a linear SVM), then a linear SVM (C chosen by CV on the training
part only) trained on the chosen features and tested on the test images.  SVM
baselines on the raw binary pixels: linear, and polynomial kernels of degree 1-4.

Results go to ``--out`` (default ``~/metafx-examples/guided_<data>``, outside the
source tree).  Every finished run is appended to ``<out>/runs.jsonl`` at once: a killed run
started again with the same ``--out`` skips what is done.  At the end the script
writes ``summary.csv``/``summary.md``, ``paired.csv``/``paired.md`` (Mufasa against each
other engine, paired over partitions: mean difference, wins, Wilcoxon p), ``fig_error_vs_budget.png`` (Figure 5.3) and
``fig_metafeatures_vs_budget.png`` (Figure 5.4).

    python examples/guided_extraction_mnist.py                       # the whole protocol
    python examples/guided_extraction_mnist.py --partitions 0 1 2 --budgets 500 3000 --engines mufasa random
    python examples/guided_extraction_mnist.py --report-only        # redraw figures from runs.jsonl

A method is an engine name, optionally with engine parameters (``guided:n_init=50:portfolio_every=0``)
and ``+oF``: the same engine drawing
``F`` times the budget at each point and keeping the best features by infogain
per cost (``metafx.search(..., oversample=F)``), e.g. ``mufasa+o4``, and ``+rR``: the ``R`` best steps' sets
scored again on a fresh split, the best mean of the two scores kept (``metafx.search(..., reselect=R)``;
without it the engine's default: 3 for ``guided``, 1 for the others), e.g. ``guided+r1``.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import time
import warnings
from collections import defaultdict
from pathlib import Path

import numpy as np

BUDGETS = [250, 500, 1000, 2000, 3000, 6000, 12000]
ENGINES = ["mufasa+o4", "optuna+o4", "random+o4", "ranked", "mufasa", "random"]
DIMS = ["numInputs", "percentPos", "shiftInvLen", "scatter"]
#: the raw-pixel linear SVM's C, chosen by 3-fold CV (metafx's evaluator grid)
LINEAR_CS = (0.01, 0.03, 0.1, 0.3, 1.0)


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    here = Path(__file__).resolve().parents[1]
    ap.add_argument("--data", default="mnist", choices=["mnist", "digits"])
    ap.add_argument("--data-dir", default=os.environ.get("METAFX_MNIST_DIR", str(here.parent / "shared/data/mnist")))
    ap.add_argument("--partitions", type=int, nargs="+", default=list(range(10)))
    ap.add_argument("--budgets", type=float, nargs="+", default=BUDGETS)
    ap.add_argument("--engines", nargs="+", default=ENGINES, help="methods: engine[+oF] (see above)")
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--n-train", type=int, default=None,
                    help="training images per partition (default 2000, at most half of the data)")
    ap.add_argument("--n-test", type=int, default=None,
                    help="test images per partition (default 2000, at most what the training part leaves)")
    ap.add_argument("--no-svm-baselines", action="store_true", help="skip the raw-pixel SVM baselines")
    ap.add_argument("--out", default=None,
                    help="output directory (default ~/metafx-examples/guided_<data>, or $METAFX_EXAMPLES_OUT/...)")
    ap.add_argument("--report-only", action="store_true")
    ap.add_argument("--reference", default="mufasa+o4", help="method compared (paired) with every other one")
    ap.add_argument("--evaluator-params", type=json.loads, default=None,
                    help='JSON parameters of the search quality, e.g. \'{"design": "merge", "tol": 0.001, "complement": false}\'')
    args = ap.parse_args(argv)
    if args.out is None:
        args.out = str(default_out(f"guided_{args.data}"))
    return args


def default_out(name: str) -> Path:
    """Where results go by default: outside the source tree (``$METAFX_EXAMPLES_OUT`` or ``~/metafx-examples``)."""
    return Path(os.environ.get("METAFX_EXAMPLES_OUT") or Path.home() / "metafx-examples") / name


def split_sizes(n: int, n_train: int | None, n_test: int | None) -> tuple[int, int]:
    """The protocol's 2000 + 2000 images, shrunk to fit ``n`` samples (digits has 1797): half each at most."""
    tr = n_train if n_train is not None else min(2000, n // 2)
    te = n_test if n_test is not None else min(2000, n - tr)
    if tr + te > n:
        raise SystemExit(f"--n-train {tr} + --n-test {te} = {tr + te} exceeds the {n} images of the data")
    return tr, te


def partition(n: int, n_train: int, n_test: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Partition ``seed`` of the protocol: a random permutation of the ``n`` images by
    ``numpy.random.default_rng(seed)``, its first ``n_train`` for training and the next ``n_test`` for testing (each
    sorted) -- the rule of ``metafx search --split-seed``, so the stored records' partitions are drawn again."""
    perm = np.random.default_rng(seed).permutation(n)
    return np.sort(perm[:n_train]), np.sort(perm[n_train:n_train + n_test])


def parse_method(method: str) -> tuple[str, float, int | None]:
    """``"mufasa+o4"`` -> ``("mufasa", 4.0, None)``; ``"guided+r1"`` -> ``("guided", 1.0, 1)``;
    ``"ranked"`` -> ``("ranked", 1.0, None)`` (None: the engine's own ``reselect``)."""
    engine, *suffixes = method.split("+")
    oversample, reselect = 1.0, None
    for suffix in suffixes:
        if suffix[:1] == "o":
            oversample = float(suffix[1:])
        elif suffix[:1] == "r":
            reselect = int(suffix[1:])
        else:
            raise SystemExit(f"method {method!r}: unknown suffix '+{suffix}'; known: +oF (oversample), +rR (reselect)")
    return engine, oversample, reselect


def parse_engine(engine: str) -> tuple[str, dict]:
    """``"guided:n_init=50:portfolio_every=0"`` -> ``("guided", {"n_init": 50, "portfolio_every": 0})``:
    engine parameters after the name (values read as JSON, else kept as text)."""
    name, *pairs = engine.split(":")
    params = {}
    for pair in pairs:
        key, _, value = pair.partition("=")
        try:
            params[key] = json.loads(value)
        except ValueError:
            params[key] = value
    return name, params


def load(args):
    import metafx

    if args.data == "digits":
        return metafx.load_dataset("digits")
    return metafx.load_dataset("mnist", data_dir=args.data_dir)


def done_keys(path: Path) -> set:
    keys = set()
    if path.exists():
        for line in path.read_text().splitlines():
            try:
                r = json.loads(line)
            except ValueError:
                continue  # torn last line
            keys.add((r["partition"], r["method"], r.get("budget")))
    return keys


def append(path: Path, rec: dict) -> None:
    with open(path, "a") as fh:
        fh.write(json.dumps(rec) + "\n")
        fh.flush()
        os.fsync(fh.fileno())


def svm_baselines(Xtr, ytr, Xte, yte, seed):
    """Raw-pixel SVMs: linear (C by 3-fold CV) and polynomial kernels of degree 1-4 (C by 3-fold CV)."""
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.model_selection import GridSearchCV, StratifiedKFold
    from sklearn.svm import SVC, LinearSVC

    A = Xtr.reshape(len(Xtr), -1).astype(np.float64)
    B = Xte.reshape(len(Xte), -1).astype(np.float64)
    out = {}
    cv = StratifiedKFold(3, shuffle=True, random_state=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        gs = GridSearchCV(LinearSVC(max_iter=5000), {"C": list(LINEAR_CS)}, cv=cv).fit(A, ytr)
    out["svm-linear"] = float(np.mean(gs.predict(B) != yte))
    for d in (1, 2, 3, 4):
        gs = GridSearchCV(SVC(kernel="poly", degree=d, coef0=1.0, gamma="scale"), {"C": [0.1, 1.0, 10.0]}, cv=cv)
        gs.fit(A, ytr)
        out[f"svm-poly{d}"] = float(np.mean(gs.predict(B) != yte))
    return out


def run(args) -> None:
    import metafx
    from metafx import holdout_error

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    runs = out / "runs.jsonl"
    done = done_keys(runs)
    X, y = load(args)
    reg = metafx.plugin.get_registry()
    for e in args.engines:
        reg.get("engine", parse_engine(parse_method(e)[0])[0])  # unknown engine: clear error before any work
    total = len(args.partitions) * len(args.budgets) * len(args.engines)
    n_train, n_test = split_sizes(len(y), args.n_train, args.n_test)
    print(f"{args.data}: {n_train} training and {n_test} test images per partition; writing to {out}", flush=True)
    data = {"data": args.data, "n_train": n_train, "n_test": n_test}
    k = 0
    for p in args.partitions:
        tr, te = partition(len(y), n_train, n_test, seed=p)
        if not args.no_svm_baselines and (p, "svm-poly4", None) not in done:
            t = time.perf_counter()
            for name, err in svm_baselines(X[tr], y[tr], X[te], y[te], p).items():
                append(runs, {"partition": p, "method": name, "budget": None, "test_error": err,
                              "seconds": time.perf_counter() - t, **data})
            print(f"partition {p}: SVM baselines done in {time.perf_counter() - t:.1f} s", flush=True)
        for b in args.budgets:
            for e in args.engines:
                k += 1
                if (p, e, b) in done:
                    continue
                t = time.perf_counter()
                engine, oversample, reselect = parse_method(e)
                engine, engine_params = parse_engine(engine)
                res = metafx.search(X[tr], y[tr], family="pixel-and", budget=b, steps=args.steps, engine=engine,
                                    engine_params=engine_params or None, seed=p, progress=False, oversample=oversample,
                                    evaluator_params=args.evaluator_params, reselect=reselect)
                t_search = time.perf_counter() - t
                err, c = holdout_error(res, X[tr], y[tr], X[te], y[te], random_state=p)
                rec = {"partition": p, "method": e, "budget": b, "test_error": err, "cv_quality": res.best_quality,
                       "best_point": res.best_point, "n_features": res.n_features, "total_cost": res.total_cost,
                       "final_C": c, "seconds": time.perf_counter() - t, "search_seconds": t_search,
                       "timings": res.metadata.get("timings", {}), **data}
                append(runs, rec)
                print(f"[{k}/{total}] partition {p} budget {b:g} {e}: test error {100 * err:.2f} % "
                      f"(cv {res.best_quality:.4f}, {res.n_features} features, {t_search:.1f} s)", flush=True)


def data_label(recs: list, args) -> str:
    """``"MNIST, 2000 training / 2000 test images"`` from the records (older records: ``--data``)."""
    r = next((r for r in recs if "data" in r), None)
    name = (r["data"] if r else args.data)
    name = {"mnist": "MNIST", "digits": "scikit-learn digits (8x8)"}.get(name, name)
    return f"{name}, {r['n_train']} training / {r['n_test']} test images" if r else name


def report(args) -> None:
    out = Path(args.out)
    recs = [json.loads(line) for line in (out / "runs.jsonl").read_text().splitlines() if line.strip()]
    by = defaultdict(list)
    for r in recs:
        by[(r["method"], r["budget"])].append(r)
    # summary table
    rows = []
    for (method, budget), rs in sorted(by.items(), key=lambda kv: (str(kv[0][0]), kv[0][1] or 0)):
        e = np.array([r["test_error"] for r in rs])
        rows.append({"method": method, "budget": budget, "n": len(e), "mean_error": e.mean(), "std_error": e.std(ddof=0),
                     "mean_search_seconds": np.mean([r.get("search_seconds", np.nan) for r in rs])})
    with open(out / "summary.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    # the same as a Markdown table: methods x budgets, "mean +- std (n)" in percent
    methods = [m for m in ENGINES if any(k[0] == m for k in by)] + sorted(
        {k[0] for k in by if k[1] is not None and k[0] not in ENGINES})
    bud = sorted({k[1] for k in by if k[1] is not None})
    md = ["| method | " + " | ".join(f"{b:g}" for b in bud) + " |", "|---|" + "---|" * len(bud)]
    for m in methods:
        cells = []
        for b in bud:
            rs = by.get((m, b), [])
            e = 100 * np.array([r["test_error"] for r in rs])
            cells.append(f"{e.mean():.2f} ± {e.std():.2f} ({len(e)})" if len(e) else "")
        md.append(f"| {m} | " + " | ".join(cells) + " |")
    raw = sorted(k[0] for k in by if k[1] is None)
    if raw:
        md += ["", "| raw-pixel baseline (no budget) | test error % (n) |", "|---|---|"]
        for name in raw:
            e = 100 * np.array([r["test_error"] for r in by[(name, None)]])
            md.append(f"| {name} | {e.mean():.2f} ± {e.std():.2f} ({len(e)}) |")
    (out / "summary.md").write_text("\n".join(md) + "\n")
    # paired comparison of mufasa against the other engines
    from scipy.stats import wilcoxon

    paired = []
    budgets = sorted({r["budget"] for r in recs if r["budget"] is not None})
    ref = args.reference
    others = sorted({r["method"] for r in recs if r["budget"] is not None} - {ref})
    for b in budgets:
        mu = {r["partition"]: r["test_error"] for r in by.get((ref, b), [])}
        for o in others:
            ot = {r["partition"]: r["test_error"] for r in by.get((o, b), [])}
            common = sorted(set(mu) & set(ot))
            if not common:
                continue
            d = np.array([mu[p] - ot[p] for p in common])
            pval = float(wilcoxon(d).pvalue) if len(common) >= 5 and np.any(d != 0) else float("nan")
            paired.append({"budget": b, "reference": ref, "other": o, "n": len(common), "mean_diff": d.mean(),
                           "reference_wins": int((d < 0).sum()), "ties": int((d == 0).sum()), "wilcoxon_p": pval})
    if paired:
        with open(out / "paired.csv", "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=list(paired[0]))
            w.writeheader()
            w.writerows(paired)
        # Markdown: reference minus other, in points, with wins/n and the Wilcoxon p
        cell = {(r["other"], r["budget"]): r for r in paired}
        pm = [f"| {ref} minus | " + " | ".join(f"{b:g}" for b in budgets) + " |", "|---|" + "---|" * len(budgets)]
        for o in others:
            cs = []
            for b in budgets:
                r = cell.get((o, b))
                cs.append("" if r is None else f"{100 * r['mean_diff']:+.2f} ({r['reference_wins']}/{r['n']}, "
                          f"p={r['wilcoxon_p']:.2g})")
            pm.append(f"| {o} | " + " | ".join(cs) + " |")
        (out / "paired.md").write_text("\n".join(pm) + "\n")
    # figures
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for method in [m for m in ENGINES if any(k[0] == m for k in by)]:
        bs = [b for b in budgets if (method, b) in by]
        mean = [np.mean([r["test_error"] for r in by[(method, b)]]) * 100 for b in bs]
        std = [np.std([r["test_error"] for r in by[(method, b)]]) * 100 for b in bs]
        n_runs = sorted({len(by[(method, b)]) for b in bs})
        n_txt = str(n_runs[0]) if len(n_runs) == 1 else f"{n_runs[0]}-{n_runs[-1]}"
        ax.errorbar(bs, mean, yerr=std, marker="o", capsize=3, label=f"{method} ({n_txt} partitions)")
    styles = {"svm-linear": ":", "svm-poly2": "--", "svm-poly3": "-."}
    for name, ls in styles.items():
        if (name, None) in by:
            v = np.mean([r["test_error"] for r in by[(name, None)]]) * 100
            ax.axhline(v, ls=ls, color="gray", label=f"{name} (raw pixels) {v:.1f} %")
    ax.set_xscale("log")
    ax.set_xlabel("budget (total feature cost)")
    ax.set_ylabel("test error (%)")
    ax.set_title(f"{data_label(recs, args)}: linear SVM on the chosen features (mean +- std over partitions)",
                 fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "fig_error_vs_budget.png", dpi=110)
    plt.close(fig)

    mufasa = [r for r in recs if r["method"] == ref]
    if mufasa:
        fig, axes = plt.subplots(1, 4, figsize=(13, 3.3))
        for ax, dim in zip(axes, DIMS, strict=True):
            bs = sorted({r["budget"] for r in mufasa})
            # a best set found by a portfolio step has no point (best_point is empty): those runs are left out
            vals = [[r["best_point"][dim] for r in mufasa if r["budget"] == b and dim in r["best_point"]] for b in bs]
            bs, vals = [b for b, v in zip(bs, vals, strict=True) if v], [v for v in vals if v]
            if not bs:
                ax.set_title(f"{dim} (no best set had a point)")
                continue
            med = [np.median(v) for v in vals]
            lo = [np.percentile(v, 5) for v in vals]
            hi = [np.percentile(v, 95) for v in vals]
            ax.plot(bs, med, "o-")
            ax.fill_between(bs, lo, hi, alpha=0.25, label="range of 90 % of runs")
            ax.set_xscale("log")
            ax.set_title(dim)
            ax.set_xlabel("budget")
        axes[0].legend(fontsize=8)
        fig.suptitle(f"{data_label(recs, args)}, {ref}: chosen meta-feature values against the budget "
                     "(median, 5-95 % range)", fontsize=10)
        fig.tight_layout()
        fig.savefig(out / "fig_metafeatures_vs_budget.png", dpi=110)
        plt.close(fig)
    for r in rows:
        b = "" if r["budget"] is None else f"{r['budget']:g}"
        print(f"{r['method']:<12} {b:>6}  n={r['n']:<3} error {100 * r['mean_error']:.2f} +- {100 * r['std_error']:.2f} %")
    for r in paired:
        print(f"budget {r['budget']:>6g}: {ref} - {r['other']:<10} {100 * r['mean_diff']:+.2f} pts, "
              f"wins {r['reference_wins']}/{r['n']}, Wilcoxon p = {r['wilcoxon_p']:.3g}")


def main(argv=None) -> int:
    args = parse_args(argv)
    warnings.filterwarnings("ignore", category=UserWarning)
    if not args.report_only:
        run(args)
    report(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
