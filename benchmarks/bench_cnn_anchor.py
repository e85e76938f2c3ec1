"""The small-CNN anchor (issue 48): metafx against a LeNet-like CNN, the RBF SVC and the linear SVM, same images.

For each MNIST partition p (binarized at 128; ``split_indices(10000, n_train, n_test, seed=p)``, every partition
drawn from the same 10,000 t10k images, so partitions overlap), in one process and one thread, this fits

* ``cnn``: two 5 x 5 convolutions (32 and 64 channels, no padding, ReLU, 2 x 2 max pooling after each), a
  256-unit dense layer with dropout 0.5, 10 outputs; Adam 1e-3, 30 epochs, batch 64 (PyTorch, the ``bench-cnn``
  extra); about 4.0 million multiply-adds per image;
* ``svm-rbf``: ``SVC(kernel="rbf", gamma="scale")``, C in {1, 10, 100} by 3-fold CV (as experiments/headline);
* ``svm-linear``: ``metafx.learn.svm.fit_linear_svm`` on the raw pixels (C by 3-fold CV);
* ``metafx``: ``metafx.search(X, y, seed=p)`` with every default, then ``FeatureClassifier`` (C by 3-fold CV);
  its C export's predict time per image (``metafx.export.to_c``, compiled with ``cc -O2``);
* the levers of ``experiments/cnn48/RULE.md`` on the same search result: ``shift`` (the final LinearSVC refitted
  on the training images and their copies shifted by one pixel in 4 directions, C as the default's CV chose),
  ``logistic`` (multinomial logistic regression, C by 3-fold CV) and ``shift-copies`` (the library's
  ``FeatureClassifier(shift_copies=True)``: ``shift`` with C by the CV on the images, its time counted);
* the curve: ``metafx`` searches at other ``--curve`` settings (``budget=B``, ``steps=S`` or ``timeout=T``, several
  joined by commas, and ``shift-copies`` for the final model ``FeatureClassifier(shift_copies=True)``, as in
  ``budget=12544,steps=25,shift-copies``; experiments/cnn48/RULE_COMBINED.md), each with its ``FeatureClassifier``.

Times are CPU seconds of this process (``time.process_time``; run with one thread everywhere:
NUMBA_NUM_THREADS=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1; torch is set to one thread), so that a shared
machine's waits do not count; every method of a partition runs in the same process, one after the other.
Predict cost: the CNN's multiply-adds per image (counted from its layers) and its measured CPU time per image
(batch of the test images); metafx's logic operations per image (sum over features of shifts x inputs), its
multiply-adds (features x classes) and its C export's CPU time per image.

Every finished (partition, n_train, method) is appended to ``--out`` (JSON lines) at once; a run started again
skips what is done. ``--report`` prints the tables and draws the figure from the records.

    python benchmarks/bench_cnn_anchor.py --partitions 500 501 502 503 --out experiments/cnn48/report_2000.jsonl
    python benchmarks/bench_cnn_anchor.py --report experiments/cnn48/report_2000.jsonl \
        --figure docs/figures/cnn_anchor_2000.png
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "experiments"))  # experiments/records.py
import records

CLOCK = time.process_time
DEFAULT_MNIST = os.environ.get("METAFX_MNIST_DIR", str(Path(__file__).resolve().parents[2] / "shared/data/mnist"))
METHODS = ("cnn", "svm-rbf", "svm-linear", "metafx")
LEVERS = ("shift", "logistic", "shift-copies")
DEFAULT_CURVE = ("budget=1568", "budget=3136", "steps=25", "budget=12544", "steps=100")


# --- the CNN ---------------------------------------------------------------------------------------------------

def cnn_macs(h: int = 28, w: int = 28, classes: int = 10) -> int:
    """Multiply-adds per image of the CNN below (convolutions and dense layers; pooling and ReLU not counted)."""
    h1, w1 = h - 4, w - 4
    m = h1 * w1 * 32 * 25
    h2, w2 = (h1 // 2) - 4, (w1 // 2) - 4
    m += h2 * w2 * 64 * 32 * 25
    flat = (h2 // 2) * (w2 // 2) * 64
    return m + flat * 256 + 256 * classes


def fit_cnn(Xtr, ytr, Xte, seed: int, epochs: int = 30, batch: int = 64):
    """Train the CNN; returns (predicted test labels, training CPU seconds, predict CPU seconds per test image)."""
    try:
        import torch
        from torch import nn
    except ImportError:
        sys.exit("the cnn method needs PyTorch: pip install -e '.[bench-cnn]' (torch==2.13.0, CPU)")
    torch.set_num_threads(1)
    torch.manual_seed(seed)
    classes = np.unique(ytr)
    h, w = Xtr.shape[1:]
    net = nn.Sequential(
        nn.Conv2d(1, 32, 5), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 5), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(((h - 4) // 2 - 4) // 2 * (((w - 4) // 2 - 4) // 2) * 64, 256), nn.ReLU(),
        nn.Dropout(0.5), nn.Linear(256, len(classes)))
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    A = torch.from_numpy(np.ascontiguousarray(Xtr, dtype=np.float32)[:, None])
    t = torch.from_numpy(np.searchsorted(classes, ytr).astype(np.int64))
    g = torch.Generator().manual_seed(seed)
    t0 = CLOCK()
    net.train()
    for _ in range(epochs):
        order = torch.randperm(len(A), generator=g)
        for i in range(0, len(A), batch):
            idx = order[i:i + batch]
            opt.zero_grad()
            loss_fn(net(A[idx]), t[idx]).backward()
            opt.step()
    train = CLOCK() - t0
    net.eval()
    B = torch.from_numpy(np.ascontiguousarray(Xte, dtype=np.float32)[:, None])
    best = float("inf")
    with torch.no_grad():
        for _ in range(3):
            t0 = CLOCK()
            out = torch.cat([net(B[i:i + 500]) for i in range(0, len(B), 500)])
            best = min(best, CLOCK() - t0)
    return classes[out.argmax(1).numpy()], train, best / len(B)


# --- metafx's predict cost ---------------------------------------------------------------------------------------

def logic_ops(result) -> int:
    """Bit operations per image of the features: per feature, shifts x inputs (ANDs of the inputs, OR over shifts)."""
    return int(sum(f["shift"] ** 2 * len(f["inputs"]) for f in result.features))


#: word operations per pixel and image of ``NAME_predict_many``'s binarization: the rule's check and the block's
#: binarizer each read it once (two OR-reductions over the image), and one compare-shift-or puts it in its bit plane
PIXEL_OPS = 5


def sliced_ops(logic: float, macs: float, n_inputs: int = 28 * 28) -> float:
    """Word operations per image of the C export's ``NAME_predict_many`` (64 images per 64-bit word): the
    features' ANDs and ORs over 64 images at once (``logic / 64``, ``logic`` as :func:`logic_ops` counts them),
    the binarization into bit planes (``PIXEL_OPS`` per pixel), and at most one addition per feature and class
    (``macs``; only the features that are 1 add): an upper bound."""
    return logic / 64 + PIXEL_OPS * n_inputs + macs


def c_time_per_image(result, clf, Xte, repeats: int = 3, many: bool = False) -> float | None:
    """CPU seconds per image of the C export's ``NAME_predict`` over the test images (best of ``repeats``), or
    of ``NAME_predict_many`` on all of them at once (``many``), after checking that it gives the classifier's
    classes; None without a C compiler."""
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if not cc:
        return None
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_export import build

    from metafx.export import to_c

    model = {"classes": clf.classes_.tolist(), "coef": np.asarray(clf.coef_).tolist(),
             "intercept": np.asarray(clf.intercept_).tolist()}
    Xte = np.ascontiguousarray(Xte, dtype=np.uint8)
    n = len(Xte)
    with tempfile.TemporaryDirectory() as tmp:
        lib, _ = build(to_c(result, model), Path(tmp), cc)
        pred = np.empty(n, np.intc)
        best = float("inf")
        for _ in range(repeats):
            t0 = CLOCK()
            (lib.predict_many if many else lib.predict_batch)(Xte.ctypes.data, n, pred.ctypes.data)
            best = min(best, CLOCK() - t0)
    if not np.array_equal(clf.classes_[pred], clf.predict(Xte)):
        raise AssertionError("the C export's classes differ from the classifier's")
    return best / n


def shifted_copies(X: np.ndarray) -> np.ndarray:
    """``X`` and its copies shifted by one pixel down, up, right and left (zeros shifted in): 5 x the images."""
    out = [X]
    for axis, step in ((1, 1), (1, -1), (2, 1), (2, -1)):
        S = np.roll(X, step, axis=axis)
        if axis == 1:
            S[:, 0 if step > 0 else -1, :] = 0
        else:
            S[:, :, 0 if step > 0 else -1] = 0
        out.append(S)
    return np.concatenate(out)


CURVE_KEYS = ("budget", "steps", "timeout")
SHIFT_TOKEN = "shift-copies"


def parse_setting(setting: str) -> tuple[dict, bool]:
    """A ``--curve`` setting as (``metafx.search`` keywords, whether the final model is fitted with
    ``shift_copies=True``): comma-separated ``budget=B``, ``steps=S``, ``timeout=T`` (each at most once) and
    ``shift-copies``; ValueError naming what is wrong."""
    kw: dict = {}
    shift = False
    tokens = setting.split(",")
    for token in tokens:
        if token == SHIFT_TOKEN and not shift:
            shift = True
            continue
        key, _, value = token.partition("=")
        try:
            ok = key in CURVE_KEYS and key not in kw and float(value) > 0 and (key != "steps" or value.isdigit())
        except ValueError:
            ok = False
        if not ok:
            raise ValueError(f"--curve: {setting!r}; allowed: budget=B, steps=S or timeout=T with B, T > 0 and S a "
                             f"positive integer, each at most once, and {SHIFT_TOKEN}, joined by commas")
        kw[key] = float(value) if key in ("budget", "timeout") else int(value)
    if not kw:  # shift-copies alone: the default search, already the lever of that name
        raise ValueError(f"--curve: {setting!r}; a setting needs budget=B, steps=S or timeout=T (the default search "
                         f"with shifted copies is --levers {SHIFT_TOKEN})")
    return kw, shift


# --- the run -----------------------------------------------------------------------------------------------------

def read_records(path: Path | str) -> list[dict]:
    """The records of ``path``: its plain file, else its member of its experiment's archive (experiments/records.py)."""
    path = Path(path)
    if path.exists():
        return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    try:
        return records.read_jsonl(path)
    except ValueError:  # outside experiments/: no archive to look in
        raise FileNotFoundError(f"no records at {path}") from None


def done_keys(out: Path) -> set:
    try:
        return {(r["partition"], r["n_train"], r["method"]) for r in read_records(out)}
    except FileNotFoundError:
        return set()


def run(args) -> None:
    import metafx
    from metafx import FeatureClassifier
    from metafx.core.validation import split_indices

    threads = {k: os.environ.get(k) for k in ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS")}
    if any(v != "1" for v in threads.values()):
        print(f"warning: {threads}: CPU times add up the threads; set each to 1", file=sys.stderr)
    if not Path(args.data_dir).is_dir():
        sys.exit(f"MNIST not found at {args.data_dir}; pass --data-dir or set METAFX_MNIST_DIR")
    X, y = metafx.load_dataset("mnist", data_dir=args.data_dir)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    done = done_keys(out)
    commit = os.popen("git rev-parse --short HEAD 2>/dev/null").read().strip() or None

    def append(rec: dict) -> None:
        rec = {"partition": p, "n_train": args.n_train, "n_test": args.n_test, "commit": commit, **rec}
        with open(out, "a") as fh:
            fh.write(json.dumps(rec) + "\n")
        extra = f", {rec['n_features']} features" if "n_features" in rec else ""
        print(f"partition {p} n_train {args.n_train} {rec['method']}: {100 * rec['test_error']:.2f} % "
              f"({rec['train_cpu_seconds']:.1f} CPU s{extra})", flush=True)

    # numba compiles (or loads from its disk cache) the kernels at the first search: not counted in any time below
    metafx.search(X[:200], y[:200], budget=300, steps=2, seed=0, progress=False)
    for p in args.partitions:
        tr, te = split_indices(len(y), args.n_train, args.n_test, seed=p)
        Xtr, ytr, Xte, yte = X[tr], y[tr], X[te], y[te]
        A = Xtr.reshape(len(tr), -1).astype(np.float64)
        B = Xte.reshape(len(te), -1).astype(np.float64)
        for method in args.methods:
            if (p, args.n_train, method) in done:
                continue
            wall = time.perf_counter()
            if method == "cnn":
                pred, train, per_image = fit_cnn(Xtr, ytr, Xte, seed=p, epochs=args.epochs)
                append({"method": "cnn", "test_error": float(np.mean(pred != yte)), "train_cpu_seconds": train,
                        "predict_cpu_seconds_per_image": per_image, "macs_per_image": cnn_macs(),
                        "epochs": args.epochs, "wall_seconds": time.perf_counter() - wall})
            elif method in ("svm-rbf", "svm-linear"):
                from sklearn.model_selection import GridSearchCV, StratifiedKFold
                from sklearn.svm import SVC

                from metafx.learn.svm import fit_linear_svm

                t0 = CLOCK()
                if method == "svm-rbf":
                    cv = StratifiedKFold(3, shuffle=True, random_state=p)
                    model = GridSearchCV(SVC(kernel="rbf", gamma="scale"), {"C": [1.0, 10.0, 100.0]}, cv=cv).fit(A, ytr)
                    params = {"C": float(model.best_params_["C"]),
                              "support_vectors": int(len(model.best_estimator_.support_))}
                else:
                    model = fit_linear_svm(A, ytr, random_state=p)
                    params = {"C": float(model[-1].C)}
                train = CLOCK() - t0
                t0 = CLOCK()
                pred = model.predict(B)
                per_image = (CLOCK() - t0) / len(B)
                append({"method": method, "test_error": float(np.mean(pred != yte)), "train_cpu_seconds": train,
                        "predict_cpu_seconds_per_image": per_image, "params": params,
                        "wall_seconds": time.perf_counter() - wall})
            elif method == "metafx":
                t0 = CLOCK()
                res = metafx.search(Xtr, ytr, seed=p, progress=False)
                t_search = CLOCK() - t0
                t0 = CLOCK()
                clf = FeatureClassifier(res, random_state=p).fit(Xtr, ytr)
                t_fit = CLOCK() - t0
                common = {"n_features": res.n_features, "logic_ops_per_image": logic_ops(res),
                          "macs_per_image": res.n_features * len(clf.classes_), "search_cpu_seconds": t_search,
                          "budget": res.budget, "steps": len(res.trajectory), "best_point": res.best_point}
                append({"method": "metafx", "test_error": float(np.mean(clf.predict(Xte) != yte)),
                        "train_cpu_seconds": t_search + t_fit, "final_fit_cpu_seconds": t_fit, "C": clf.C_,
                        "c_predict_cpu_seconds_per_image": c_time_per_image(res, clf, Xte), **common,
                        "c_many_predict_cpu_seconds_per_image": c_time_per_image(res, clf, Xte, many=True),

                        "wall_seconds": time.perf_counter() - wall})
                for lever in args.levers:
                    wall = time.perf_counter()
                    if lever == "shift":
                        t0 = CLOCK()
                        lclf = FeatureClassifier(res, C=clf.C_, random_state=p).fit(shifted_copies(Xtr),
                                                                                    np.tile(ytr, 5))
                        t_lever = CLOCK() - t0
                        err = float(np.mean(lclf.predict(Xte) != yte))
                        c_time = c_time_per_image(res, lclf, Xte)
                    elif lever == "shift-copies":  # the library's option: C by the CV on the images, timed
                        t0 = CLOCK()
                        lclf = FeatureClassifier(res, random_state=p, shift_copies=True).fit(Xtr, ytr)
                        t_lever = CLOCK() - t0
                        err = float(np.mean(lclf.predict(Xte) != yte))
                        c_time = c_time_per_image(res, lclf, Xte)
                    elif lever == "logistic":
                        from sklearn.linear_model import LogisticRegression
                        from sklearn.model_selection import GridSearchCV, StratifiedKFold

                        t0 = CLOCK()
                        F = res.transform(Xtr).astype(np.float64)
                        cv = StratifiedKFold(3, shuffle=True, random_state=p)
                        with warnings.catch_warnings():
                            warnings.simplefilter("ignore")
                            gs = GridSearchCV(LogisticRegression(max_iter=2000), {"C": [0.1, 0.3, 1.0, 3.0, 10.0]},
                                              cv=cv).fit(F, ytr)
                        t_lever = CLOCK() - t0
                        err = float(np.mean(gs.predict(res.transform(Xte).astype(np.float64)) != yte))
                        c_time = None  # same features and one weight per feature and class: the same C code's cost
                    else:
                        raise SystemExit(f"--levers: unknown lever {lever!r}; known: {', '.join(LEVERS)}")
                    append({"method": f"metafx+{lever}", "test_error": err, "train_cpu_seconds": t_search + t_lever,
                            "final_fit_cpu_seconds": t_lever, "c_predict_cpu_seconds_per_image": c_time, **common,
                            "wall_seconds": time.perf_counter() - wall})
            elif method.startswith("metafx:"):
                kw, shift = parse_setting(method.split(":", 1)[1])
                if "timeout" in kw and "steps" not in kw:  # the anytime search: as many steps as fit in the time
                    kw["steps"] = 1000
                t0 = CLOCK()
                res = metafx.search(Xtr, ytr, seed=p, progress=False, **kw)
                t_search = CLOCK() - t0
                t0 = CLOCK()
                clf = FeatureClassifier(res, random_state=p, shift_copies=shift).fit(Xtr, ytr)
                t_fit = CLOCK() - t0
                append({"method": method, "test_error": float(np.mean(clf.predict(Xte) != yte)),
                        "train_cpu_seconds": t_search + t_fit, "search_cpu_seconds": t_search,
                        "final_fit_cpu_seconds": t_fit, "n_features": res.n_features,
                        "logic_ops_per_image": logic_ops(res), "macs_per_image": res.n_features * len(clf.classes_),
                        "budget": res.budget, "steps": len(res.trajectory), "shift_copies": shift, "C": clf.C_,
                        "c_predict_cpu_seconds_per_image": c_time_per_image(res, clf, Xte),
                        "c_many_predict_cpu_seconds_per_image": c_time_per_image(res, clf, Xte, many=True),
                        "wall_seconds": time.perf_counter() - wall})
            else:
                raise SystemExit(f"--methods: unknown method {method!r}; known: {', '.join(METHODS)}")


# --- the report --------------------------------------------------------------------------------------------------

def report(paths: list[str], figure: str | None) -> None:
    recs = [r for path in paths for r in read_records(path)]
    for n_train in sorted({r["n_train"] for r in recs}):
        rs = [r for r in recs if r["n_train"] == n_train]
        parts = sorted({r["partition"] for r in rs})
        by: dict[str, dict[int, dict]] = {}
        for r in rs:
            by.setdefault(r["method"], {})[r["partition"]] = r
        print(f"\n{n_train} training images, partitions {', '.join(map(str, parts))}; mean (sd) over the partitions "
              "that have the method; CPU seconds; per-image predict cost")
        print("| method | partitions | test error % | train CPU s | / CNN train | features | logic ops | "
              "multiply-adds | predict CPU us / image | C export CPU us / image |")
        print("|" + "---|" * 10)
        cnn = by.get("cnn", {})

        def ms(v):
            v = np.asarray(v, float)
            return f"{v.mean():.2f} ({v.std(ddof=1):.2f})" if len(v) > 1 else f"{v.mean():.2f}"

        def setting(m):  # "metafx+lever" first, then "metafx:key=value[,...]" by its first key and value
            key, _, value = m.partition(":")[2].split(",")[0].partition("=")
            return (key, float(value) if value else 0.0, m)

        order = [m for m in METHODS if m in by] + sorted((m for m in by if m not in METHODS), key=setting)
        for m in order:
            ps = sorted(by[m])
            e = [100 * by[m][q]["test_error"] for q in ps]
            t = [by[m][q]["train_cpu_seconds"] for q in ps]
            ratio = [by[m][q]["train_cpu_seconds"] / cnn[q]["train_cpu_seconds"] for q in ps if q in cnn]
            nf = [by[m][q].get("n_features") for q in ps]
            lo = [by[m][q].get("logic_ops_per_image") for q in ps]
            ma = [by[m][q].get("macs_per_image") for q in ps]
            pr = [by[m][q].get("predict_cpu_seconds_per_image") for q in ps]
            cx = [by[m][q].get("c_predict_cpu_seconds_per_image") for q in ps]

            def mean(v, scale=1.0, fmt=".0f"):
                v = [x for x in v if x is not None]
                return format(scale * float(np.mean(v)), fmt) if v else "-"

            print(f"| {m} | {len(ps)} | {ms(e)} | {mean(t, fmt='.1f')} | {mean(ratio, fmt='.3f')} | {mean(nf)} | "
                  f"{mean(lo)} | {mean(ma)} | {mean(pr, 1e6, '.1f')} | {mean(cx, 1e6, '.2f')} |")
        base = by.get("metafx", {})
        for m in order:
            if m == "metafx" or not m.startswith("metafx"):
                continue
            ps = sorted(set(by[m]) & set(base))
            if len(ps) < 2:
                continue
            d = np.array([100 * (by[m][q]["test_error"] - base[q]["test_error"]) for q in ps])
            se = d.std(ddof=1) / np.sqrt(len(d))
            ratio = [by[m][q]["train_cpu_seconds"] / cnn[q]["train_cpu_seconds"] for q in ps if q in cnn]
            cost = np.mean([by[m][q].get("logic_ops_per_image", 0) + by[m][q].get("macs_per_image", 0) for q in ps])
            cost0 = np.mean([base[q].get("logic_ops_per_image", 0) + base[q].get("macs_per_image", 0) for q in ps])
            rule = (f"; rule: {'lower' if d.mean() < -2 * se else 'not lower'} by more than 2 se, "
                    f"median time / CNN's {np.median(ratio):.3f} ({'at most' if np.median(ratio) <= 0.2 else 'above'}"
                    f" 1/5), predict cost {cost / cost0:.2f} x the default's" if ratio else "")
            print(f"paired, {m} minus metafx (default): {d.mean():+.2f} points, se {se:.2f}, "
                  f"lower on {int((d < 0).sum())} of {len(d)}{rule}")
        for m in order:  # every other metafx setting against the CNN (the issue's bar: at most 0.3 points above)
            ps = sorted(set(by[m]) & set(cnn))
            if m == "metafx" or not m.startswith("metafx") or len(ps) < 2:
                continue
            d = np.array([100 * (by[m][q]["test_error"] - cnn[q]["test_error"]) for q in ps])
            print(f"to the cnn, {m} minus cnn: {d.mean():+.2f} points (se {d.std(ddof=1) / np.sqrt(len(d)):.2f}), "
                  f"within 0.3 points of it or below on {int((d <= 0.3).sum())} of {len(d)}")
        if "metafx" in by and "cnn" in by:
            ps = sorted(set(base) & set(cnn))
            d = np.array([100 * (base[q]["test_error"] - cnn[q]["test_error"]) for q in ps])
            se = d.std(ddof=1) / np.sqrt(len(d)) if len(d) > 1 else float("nan")
            print(f"paired, metafx (default) minus cnn: {d.mean():+.2f} points (se {se:.2f}) over {len(d)} "
                  f"partitions; training time / CNN's: median "
                  f"{np.median([base[q]['train_cpu_seconds'] / cnn[q]['train_cpu_seconds'] for q in ps]):.3f}")
            ops = np.mean([base[q]["logic_ops_per_image"] + base[q]["macs_per_image"] for q in ps])
            ct = [base[q].get("c_predict_cpu_seconds_per_image") for q in ps]
            tt = [cnn[q]["predict_cpu_seconds_per_image"] for q in ps]
            line = (f"predict cost, cnn over metafx (default): multiply-adds / (logic ops + multiply-adds) "
                    f"{cnn_macs() / ops:.0f}")
            if all(c is not None for c in ct):
                line += f"; CPU time per image, torch batch / C export {np.mean(tt) / np.mean(ct):.0f}"
            print(line)
            for m in order:
                if not m.startswith("metafx") or (m != "metafx" and not set(ps) <= set(by[m])):
                    continue
                cm = [by[m][q].get("c_many_predict_cpu_seconds_per_image") for q in ps]
                so = [sliced_ops(by[m][q]["logic_ops_per_image"], by[m][q]["macs_per_image"]) for q in ps]
                if all(c is not None for c in cm):
                    name = "metafx" if m == "metafx" else m
                    print(f"predict cost of the C export's NAME_predict_many (64 images per word), cnn over {name}: "
                          f"multiply-adds / word operations (an upper bound) {cnn_macs() / np.mean(so):.0f}; CPU "
                          f"time per image, torch batch / predict_many {np.mean(tt) / np.mean(cm):.0f} "
                          f"({1e6 * np.mean(cm):.2f} us against {1e6 * np.mean(tt):.0f} us)")
        if figure:
            draw(by, n_train, figure)


def short_label(method: str) -> str:
    """A metafx setting's short label on the figure: "default", "budget=12544", "budget=9408 + shift", ..."""
    if method == "metafx":
        return "default"
    setting = method.split(":", 1)[-1].removeprefix("metafx+")
    parts = [t for t in setting.split(",") if t != SHIFT_TOKEN]
    if not parts:
        return "shift"
    return ", ".join(parts) + (" + shift" if SHIFT_TOKEN in setting.split(",") else "")


def draw(by: dict, n_train: int, figure: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    curve = [m for m in by if m in ("metafx", "metafx+" + SHIFT_TOKEN) or m.startswith("metafx:")]
    pts = []
    for m in curve:
        ps = sorted(by[m])
        pts.append((np.mean([by[m][q]["train_cpu_seconds"] for q in ps]),
                    100 * np.mean([by[m][q]["test_error"] for q in ps]), m))
    for label, keep in (("metafx, budget (steps 50)", lambda m: m == "metafx" or (":budget=" in m and "," not in m)),
                        ("metafx, steps (budget auto)", lambda m: m == "metafx" or (":steps=" in m and "," not in m)),
                        ("metafx, timeout (budget auto)", lambda m: ":timeout=" in m and "," not in m),
                        ("metafx, shifted copies", lambda m: SHIFT_TOKEN in m)):
        sel = sorted((t, e) for t, e, m in pts if keep(m))
        if len(sel) > 1 or (sel and not keep("metafx")):  # not a series of the default alone
            ax.plot(*zip(*sel, strict=True), marker="o", label=label)
    for i, (t, e, m) in enumerate(sorted(pts)):  # labels of neighbours above and below their points in turn
        ax.annotate(short_label(m), (t, e), fontsize=7, xytext=(3, 3 if i % 2 == 0 else -9), textcoords="offset points")
    for m, marker in (("cnn", "*"), ("svm-rbf", "s"), ("svm-linear", "^"), ("metafx+shift", "D"),
                      ("metafx+logistic", "v")):
        if m in by:
            ps = sorted(by[m])
            ax.scatter(np.mean([by[m][q]["train_cpu_seconds"] for q in ps]),
                       100 * np.mean([by[m][q]["test_error"] for q in ps]), marker=marker, s=70, label=m, zorder=3)
    if "cnn" in by:  # the issue's time bar
        ax.axvline(np.mean([r["train_cpu_seconds"] for r in by["cnn"].values()]) / 5, color="grey", ls=":",
                   label="a fifth of the CNN's time")
    ax.set_xscale("log")
    from matplotlib.ticker import NullFormatter, ScalarFormatter

    ax.xaxis.set_major_formatter(ScalarFormatter())
    lo, hi = ax.get_xlim()  # within one decade the minor ticks carry the labels
    ax.xaxis.set_minor_formatter(ScalarFormatter() if hi / lo < 10 else NullFormatter())
    ax.set_xlabel("training CPU seconds (one thread; mean over the partitions)")
    ax.set_ylabel("test error % (mean over the partitions)")
    ax.set_title(f"MNIST, {n_train} training images: metafx's error against search time")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    Path(figure).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(figure, dpi=110)
    print(f"figure: {figure}")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default=DEFAULT_MNIST)
    ap.add_argument("--partitions", type=int, nargs="+", default=[500, 501, 502, 503])
    ap.add_argument("--n-train", type=int, default=2000)
    ap.add_argument("--n-test", type=int, default=2000)
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--methods", nargs="+", default=list(METHODS), help=f"of {', '.join(METHODS)}")
    ap.add_argument("--levers", nargs="*", default=list(LEVERS), help=f"of {', '.join(LEVERS)} (after metafx)")
    ap.add_argument("--curve", nargs="*", default=list(DEFAULT_CURVE),
                    help="further metafx searches: budget=B, steps=S or timeout=T (seconds; with steps=1000 unless "
                         "steps is given), several joined by commas, and shift-copies for a final model on shifted "
                         "copies (budget=12544,shift-copies); every other setting the default's")
    ap.add_argument("--out", default="experiments/cnn48/report_2000.jsonl")
    ap.add_argument("--report", nargs="+", metavar="JSONL", help="print the tables of these records and stop")
    ap.add_argument("--figure", help="with --report: draw the error-against-time figure into this PNG")
    args = ap.parse_args(argv)
    if args.report:
        report(args.report, args.figure)
        return
    for name, value in (("--n-train", args.n_train), ("--n-test", args.n_test), ("--epochs", args.epochs)):
        if value < 1:
            ap.error(f"{name}={value}: must be a positive integer")
    if args.n_train + args.n_test > 10000:
        ap.error(f"--n-train {args.n_train} + --n-test {args.n_test} is more than the 10,000 images")
    for lv in args.levers:
        if lv not in LEVERS:
            ap.error(f"--levers: unknown lever {lv!r}; known: {', '.join(LEVERS)}")
    for m in args.methods:
        if m not in METHODS:
            ap.error(f"--methods: unknown method {m!r}; known: {', '.join(METHODS)}")
    for c in args.curve:
        try:
            parse_setting(c)
        except ValueError as exc:
            ap.error(str(exc))
    args.methods = list(args.methods) + [f"metafx:{c}" for c in args.curve]
    run(args)


if __name__ == "__main__":
    main()
