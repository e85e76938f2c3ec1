"""OpenFE's LightGBM score at the search's own k, only in the folds of stored records where the tree search's
set was not empty (elsewhere OpenFE's first 0 features are the raw columns, so no run is needed).

    python experiments/tabular_real/openfe_at_folds.py RECORD.json... --out OUT.json [--models tree linear]

Reads the records of ``bench_tabular_real.py`` (the default seed 0 and 5-fold outer splits); for every fold
where a search of ``--models`` (default: tree) had a set, fits OpenFE once as the benchmark does (``n_jobs=1``,
the fold's seed) and stores the model's test score with OpenFE's first k features, k the size of the search's
own set (before the confirmation) and the number the extractor output; folds without a set count OpenFE at
k = 0 (the raw columns).  A stopped run keeps its folds and resumes.  ``--summary OUT.json RECORD.json...`` prints per table metafx - OpenFE at the
search's k (positive = metafx better), mean +- std over all the table's folds (folds won / lost).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_tabular_real as b

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # experiments/records.py
import records


def search_k(f: dict, model: str) -> int:
    return len(f["names"].get(f"metafx-search-{model}") or f["names"].get(f"metafx-{model}") or [])


MODELS = {"tree": b.tree_model, "linear": b.linear_model}


def run(paths: list[Path], out: Path, models: list[str]) -> None:
    done: dict = json.loads(records.read_text(out)) if records.exists(out) else {}
    for p in paths:
        for r in json.loads(records.read_text(p))["results"]:
            todo = {f["fold"]: f for f in r["folds"]
                    if any(m in f["scores"] and search_k(f, m) > 0 and f"{r['table']}/{f['fold']}/{m}" not in done
                           for m in models)}
            if not todo:
                continue
            X, y, task = b.load_table(r["table"])
            repeats = max(todo) // 5 + 1
            for fo, X_tr, X_te, y_tr, y_te, R_tr, R_te in b.outer_folds(X, y, task, repeats, 0):
                if fo not in todo:
                    continue
                f = todo[fo]
                ms = [m for m in models if m in f["scores"] and search_k(f, m) > 0]
                with tempfile.TemporaryDirectory() as tmp:
                    O_tr, O_te, names, secs = b.openfe_features(X_tr, y_tr, X_te, task, max(search_k(f, m) for m in ms),
                                                                fo, tmp)
                for m in ms:
                    ks, kc = search_k(f, m), f["k"][m]
                    raw = b.score(task, MODELS[m](task), R_tr, y_tr, R_te, y_te)
                    assert abs(raw - f["scores"][m]["raw"]) < 1e-9, "not the record's fold"

                    def at(k: int, m: str = m, data=(task, R_tr, O_tr, y_tr, R_te, O_te, y_te)) -> float:
                        task, R_tr, O_tr, y_tr, R_te, O_te, y_te = data
                        k = min(k, O_tr.shape[1])
                        return b.score(task, MODELS[m](task), np.hstack([R_tr, O_tr[:, :k]]), y_tr,
                                       np.hstack([R_te, O_te[:, :k]]), y_te)

                    key = f"{r['table']}/{fo}/{m}"
                    done[key] = {"task": task, "raw": raw, "openfe_search_k": at(ks), "k_search": ks,
                                 "openfe_confirmed_k": at(kc), "k_confirmed": kc, "names": names[:ks],
                                 "seconds": secs}
                    print(f"{key}: k {ks}/{kc} raw {raw:.4f} openfe {done[key]['openfe_search_k']:.4f} "
                          f"({secs:.0f} s) {names[:ks]}", flush=True)
                out.write_text(json.dumps(done, indent=1))


def summary(out: Path, paths: list[Path], models: list[str]) -> None:
    done = json.loads(records.read_text(out))
    print("| table | model | folds | metafx - OpenFE at the search's k | metafx - OpenFE at the confirmed k | "
          "OpenFE at the search's k - raw |")
    print("|---|---|---|---|---|---|")
    rows: dict = {}  # (table, model) -> gains of every fold, across the records (repeats run separately)
    for p in paths:
        for r in json.loads(records.read_text(p))["results"]:
            sign = 1.0 if r["task"] == "regression" else -1.0
            for m in models:
                for f in r["folds"]:
                    if m not in f["scores"]:
                        continue
                    s = f["scores"][m]
                    o = done.get(f"{r['table']}/{f['fold']}/{m}")
                    if o is None and search_k(f, m) > 0:
                        continue  # not run (yet)
                    os_, oc = (o["openfe_search_k"], o["openfe_confirmed_k"]) if o else (s["raw"], s["raw"])
                    rows.setdefault((r["table"], m), []).append(
                        (sign * (s["metafx"] - os_), sign * (s["metafx"] - oc), sign * (os_ - s["raw"])))
    for (table, m), g in rows.items():
        v = np.array(g)
        cells = [f"{c.mean():+.4f} +- {c.std(ddof=1) if c.size > 1 else 0.0:.4f} ({int((c > 0).sum())}/{int((c < 0).sum())})"
                 for c in v.T]
        print(f"| {table} | {m} | {len(g)} | " + " | ".join(cells) + " |")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("records", type=Path, nargs="+")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--summary", action="store_true")
    ap.add_argument("--models", nargs="+", default=["tree"], choices=list(MODELS))
    a = ap.parse_args()
    if a.summary:
        summary(a.out, a.records, a.models)
    else:
        run(a.records, a.out, a.models)


if __name__ == "__main__":
    main()
