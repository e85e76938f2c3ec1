"""Commands that look at results and components: ``metafx show``, ``metafx plot`` and ``metafx plugins``."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from ..analysis.report import format_report, result_report
from ..core.exceptions import StorageError, ValidationError
from ..hooks.manager import get_registry
from ..hooks.registry import EVALUATOR_KINDS
from ..loop.components import role_of
from ..loop.result import SearchResult
from ..plotting import plot_result
from .data import _training_data
from .parser import _groups


def cmd_show(args: argparse.Namespace) -> int:
    if args.features < 0:
        raise ValidationError(f"--features={args.features} must be 0 or more")
    result = SearchResult.from_json(args.result)
    report = result_report(result, n_features=args.features)
    print(json.dumps(report, indent=1) if args.json else format_report(report))
    return 0


def cmd_plot(args: argparse.Namespace) -> int:
    if args.n_features < 1:
        raise ValidationError(f"--n-features={args.n_features} must be at least 1")
    if args.out is not None and os.path.exists(args.out) and not os.path.isdir(args.out):
        raise ValidationError(f"--out={args.out!r} is a file; give the directory for the PNG files")
    result = SearchResult.from_json(args.result)
    data = _training_data(result, args.data_dir)
    X, y = data if data is not None else (None, None)
    out = Path(args.out) if args.out is not None else Path(args.result).parent
    try:
        paths = plot_result(result, out, X=X, y=y, n_features=args.n_features, stem=Path(args.result).stem)
    except OSError as e:  # the PNG directory cannot be created or written
        raise StorageError(f"cannot write the plots: {e.strerror or e}"
                           + (f" ({e.filename!r})" if getattr(e, "filename", None) else "")) from None
    for path in paths:
        print(f"wrote {path}")
    if not any(p.name.endswith("_features.png") for p in paths):
        print(f"metafx: family {result.family!r} does not draw its features (FeatureFamily.plot_features); "
              "no feature picture", file=sys.stderr)
    return 0


def cmd_plugins(args: argparse.Namespace) -> int:
    reg = get_registry()
    if args.json:
        print(json.dumps([
            {"kind": r.kind, "role": role_of(r.cls) if r.kind in EVALUATOR_KINDS else r.kind, "name": r.name,
             "plugin": r.plugin, "distribution": r.distribution,
             "class": f"{r.cls.__module__}.{r.cls.__qualname__}", "summary": r.cls.summary}
            for r in reg if args.kind in (None, r.kind)
        ], indent=1))
        return 0
    for title, opt, regs in _groups(reg, args.kind):
        name, _, note = title.partition(": ")
        print(f"{name}:{'  ' + note if note else ''}{f'  [{opt}]' if opt else ''}")
        for r in regs:
            print(f"  {r.name:<20} {r.source:<40} {r.cls.summary}")
    return 0
