"""Commands that use a result on new data: ``metafx transform`` (its features), ``metafx predict`` (its
classifier's labels) and ``metafx export`` (C99 or NumPy code)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .. import export
from ..core.exceptions import ValidationError
from ..core.files import atomic_write_text, check_output_path
from ..core.userdata import write_features
from ..learn.classifier import FeatureClassifier
from ..loop.result import SearchResult
from ..storage.files import check_keeps_results, check_not_an_input
from .data import _new_data


def cmd_transform(args: argparse.Namespace) -> int:
    out = check_output_path(args.out, "--out")
    if Path(out).suffix.lower() not in (".npy", ".csv", ".parquet", ".pq"):
        raise ValidationError(f"--out {args.out!r}: features are written as FILE.npy, FILE.csv or FILE.parquet")
    check_not_an_input(out, [("RESULT", args.result), ("--data", args.data)])
    check_keeps_results(out, "features")
    result = SearchResult.from_json(args.result)
    X, data = _new_data(args, result)
    F = result.transform(X)
    write_features(out, F, result.feature_names(), rows=data.files)
    print(f"wrote {out}: {F.shape[0]} rows x {F.shape[1]} features of {data.path}")
    return 0


def predictions_csv(labels: Any, scores: Any = None, classes: Sequence[Any] = (), files: Sequence[str] | None = None) \
        -> str:
    """The text of ``metafx predict``'s CSV: ``file`` (a folder's images), ``label``, and the decision scores
    (``score`` for two classes, ``score_CLASS`` per class for more)."""
    import csv
    import io

    import numpy as np

    head = (["file"] if files is not None else []) + ["label"]
    S = None if scores is None else np.asarray(scores, dtype=np.float64)
    if S is not None:
        head += ["score"] if S.ndim == 1 else [f"score_{c}" for c in classes]
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(head)
    for i, label in enumerate(labels):
        row = ([files[i]] if files is not None else []) + [label]
        if S is not None:
            row += [repr(float(v)) for v in np.atleast_1d(S[i])]
        w.writerow(row)
    return buf.getvalue()


def cmd_predict(args: argparse.Namespace) -> int:
    import numpy as np

    out = None
    if args.out is not None:
        out = check_output_path(args.out, "--out")
        if Path(out).suffix.lower() != ".csv":
            raise ValidationError(f"--out {args.out!r}: labels are written as FILE.csv (or to standard output without "
                                  "--out)")
        check_not_an_input(out, [("RESULT", args.result), ("--data", args.data)])
        check_keeps_results(out, "labels")
    result = SearchResult.from_json(args.result)
    if result.classifier is None:
        raise ValidationError(f"{args.result} keeps no classifier (result.classifier): metafx search keeps one when it "
                              "holds out test data (--test-size above 0, or --test); in Python, "
                              "result.fit_classifier(X, y) then result.to_json(path)")
    X, data = _new_data(args, result)
    clf = FeatureClassifier.from_result(result)
    labels = clf.predict(X)
    scores = clf.decision_function(X) if args.scores else None
    names = (result.metadata.get("data") or {}).get("classes") if isinstance(result.metadata, dict) else None
    if isinstance(names, list) and all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) and 0 <= int(v) < len(names)
                                       for v in clf.classes_):
        # a folder's classes are the sub-folders' names (label k is names[k])
        shown = [names[int(v)] for v in labels]
        classes = [names[int(v)] for v in clf.classes_]
    else:
        shown = [v.item() if hasattr(v, "item") else v for v in labels]
        classes = [v.item() if hasattr(v, "item") else v for v in clf.classes_]
    text = predictions_csv(shown, scores, classes, data.files)
    if out is None:
        sys.stdout.write(text)
    else:
        atomic_write_text(out, text)
        print(f"wrote {out}: {len(shown)} labels of {data.path}" + (" with decision scores" if args.scores else ""))
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    result = SearchResult.from_json(args.result)
    source = Path(args.result).name
    if args.to is None and (args.out is None or Path(args.out).suffix.lower() not in (".c", ".py")):
        where = "without --out" if args.out is None else f"--out={args.out!r}: cannot tell the format from its suffix"
        raise ValidationError(f"{where}; give --to c or --to numpy")
    if args.out is None:
        sys.stdout.write((export.to_c if args.to == "c" else export.to_numpy)(result, name=args.name, source=source))
    else:
        check_output_path(args.out, "--out")
        check_not_an_input(args.out, [("RESULT", args.result)])
        check_keeps_results(args.out, "C source" if args.to == "c" or args.out.lower().endswith(".c") else "a module")
        path = export.write(result, args.out, to=args.to, name=args.name, source=source)
        clf = getattr(result, "classifier", None)
        print(f"wrote {path} ({result.n_features} features"
              + (f", linear classifier of {len(clf['classes'])} classes)" if clf else ")"))
    if getattr(result, "classifier", None) is None:
        print("metafx: the result carries no classifier (result.classifier): the export computes the features only",
              file=sys.stderr)
    return 0
