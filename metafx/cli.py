"""The ``metafx`` command line.

``metafx plugins``                       list registered components and their plugins
``metafx search --data PATH|digits ...``  run a budgeted search, test it, write the result JSON
``metafx show RESULT``                    a result in a few lines (``--json`` for machines)
``metafx transform RESULT --data PATH``   the chosen features of new data (.npy, .csv, .parquet)
``metafx predict RESULT --data PATH``     the labels (and decision scores) of new data from the result's classifier
``metafx plot RESULT``                    draw a result as PNG files
``metafx worker``                         join a shared optuna search

Bad input ends with one line on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import inspect
import json
import math
import os
import re
import sys
import textwrap
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn, Sequence

from . import export
from .analysis.report import format_report, result_report
from .core import __version__
from .core.base import FeatureFamily
from .core.binarization import BINARY, InputRule
from .core.exceptions import MetafxError, StorageError, UnknownComponentError, ValidationError
from .core.files import atomic_write_text, check_output_path
from .core.userdata import (
    MANY_LEVELS,
    TABLE_SUFFIXES,
    DataFile,
    binarize,
    looks_like_path,
    read_data,
    write_features,
)
from .core.validation import split_indices
from .distributed import ProblemSpec, run_shared_search, run_worker
from .hooks.manager import get_registry
from .hooks.registry import EVALUATOR_KINDS, KINDS
from .learn.classifier import FeatureClassifier
from .loop.api import DEFAULT_BUDGET, DEFAULT_ENGINE, DEFAULT_STEPS, resolve_budget, search
from .loop.checks import check_fixed, data_record
from .loop.components import load_dataset, make_component, role_of
from .loop.logs import LOG_LEVELS, log_level
from .loop.loop import SearchInterrupted
from .loop.result import SearchResult
from .plotting import plot_result
from .storage.files import check_keeps_results, check_not_an_input, same_file, storage_file
from .storage.store import storage_kind
from .storage.study import check_storage_options

__all__ = ["main", "build_parser"]

DATA_DEFAULTS = {"digits": (1000, 797), "mnist": (2000, 2000)}
#: share of a data file's samples held out for the test when neither --test-size, --n-test nor --test is given
DEFAULT_TEST_SIZE = 0.25
#: the words of data-file messages (metafx.core.userdata) on the command line
CLI_NAMES = {"labels": "--labels ", "target": "--target ", "threshold": "--threshold ",
             "images": 'pip install "metafx[images]"', "tabular": 'pip install "metafx[tabular]"'}
TABULAR_PLUGIN_HINT = ("the tabular family comes with the metafx-tabular plugin: pip install ./plugins/metafx-tabular "
                       "(from a metafx checkout)")


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors: the option, the value and what is allowed, then where help is."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see `{self.prog} --help`)\n")


class _HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Option help wrapped at spaces only: file names such as metafx-result-DATE-TIME.json stay whole."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)


def _typed(kind: type, allowed: str):
    """An argparse type: ``kind(text)``, or an error naming the value and what is allowed."""
    def parse(text: str) -> Any:
        try:
            return kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {allowed}") from None
    parse.__name__ = kind.__name__
    return parse


_INT = _typed(int, "an integer")
_NUMBER = _typed(float, "a number")
def _BUDGET(text: str) -> float | str:
    """``--budget``: a number, or ``auto``."""
    return _above_0_or("auto", text, "allowed: a total feature cost above 0, e.g. 500, or auto")


def _final_c(text: str) -> float | str:
    """``--final-c``: a number above 0, or ``cv``."""
    return _above_0_or("cv", text, "allowed: the C of the final linear SVM, a number above 0 (e.g. 0.1), or cv")


def _above_0_or(word: str, text: str, allowed: str) -> float | str:
    """``word``, or a finite number above 0, read when the arguments are (before any data or search)."""
    if text.strip().lower() == word:
        return word
    value = _typed(float, f"a number or {word!r}; {allowed}")(text)
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number above 0; {allowed}")
    return value


def _threshold(text: str) -> float | str:
    if text == "auto":
        return text
    value = _typed(float, "a number or 'auto'")(text)
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number; allowed: a number (a pixel is 1 where "
                                         "value >= T) or auto")
    return value


def _test_size(text: str) -> float:
    v = _typed(float, "a number: a share in [0, 1) or a count of samples")(text)
    if v < 0 or (v >= 1 and v != int(v)):
        raise argparse.ArgumentTypeError(f"{text!r} must be a share in [0, 1) or a whole count of samples")
    return v


def _cli_words(message: str) -> str:
    """A Python-worded message in the command line's words (its options for the parameters named)."""
    message = re.sub(r"^(steps|budget|oversample|timeout|n_jobs|reselect|seed|split_seed|threshold)=",
                     lambda m: f"--{m[1].replace('_', '-')}=", message)
    message = re.sub(r"^fixed holds ", "--fix holds ", message)
    message = re.sub(r"^n_train \+ n_test = ", "--n-train + --n-test = ", message)
    message = re.sub(r"""family=(["'])([\w.-]+)\1""", r"--family \2", message)
    message = message.replace("pass image_shape=(H, W)", "give --family-param image_shape=[H,W]")
    for verb in ("raise", "lower"):
        message = message.replace(f"{verb} the budget", f"{verb} --budget")
    return message


def _kv(text: str) -> tuple[str, Any]:
    if "=" not in text:
        raise argparse.ArgumentTypeError(f"{text!r} is not NAME=VALUE")
    k, v = text.split("=", 1)
    if v in _PYTHON_WORDS:  # None / True / False as Python spells them, beside JSON's null / true / false
        return k.strip(), _PYTHON_WORDS[v]
    try:
        return k.strip(), json.loads(v)
    except json.JSONDecodeError:
        return k.strip(), v


_PYTHON_WORDS = {"None": None, "True": True, "False": False}


def _defaults_of(cls: type) -> str:
    """``"name=value, ..."`` of a component's constructor defaults (for help texts)."""
    sig = inspect.signature(cls)  # the class's __init__ without self (components define no __new__)
    parts = [f"{q.name}={q.default!r}" for q in sig.parameters.values()
             if q.name != "self" and q.default is not inspect.Parameter.empty]
    return ", ".join(parts)


def _groups(reg: Any, kind: str | None = None) -> list[tuple[str, str, list[Any]]]:
    """Registered components in display groups, one per kind: (title, option, registrations)."""
    by_kind: dict[str, list[Any]] = {}
    for r in reg:
        by_kind.setdefault(r.kind, []).append(r)
    spec = [("family", "families", "--family"), ("engine", "engines", "--engine"),
            ("set-evaluator", "set evaluators: score a feature set", "--evaluator"),
            ("scorer", "per-feature scorers: one score per feature", "--prune-by"),
            ("selector", "selectors: choose feature indices (Python: metafx.select_features)", ""),
            ("describer", "describers: extra meta-features", ""), ("dataset", "datasets", "--data")]
    return [(title, opt, by_kind[key]) for key, title, opt in spec if by_kind.get(key) and kind in (None, key)]


def _components_epilog() -> str:
    """The registered families, engines and evaluators with their defaults and providers."""
    try:
        reg = get_registry()
    except MetafxError as e:  # a broken plugin must not hide --help
        return f"(the registered components could not be listed: {e})"
    given = inspect.signature(search).parameters  # the defaults a search uses, so the stars cannot drift
    defaults = {"--family": given["family"].default, "--engine": DEFAULT_ENGINE,
                "--evaluator": given["evaluator"].default, "--prune-by": given["prune_by"].default,
                "--data": "digits"}
    lines = ["registered components (* = default; `metafx plugins` lists every kind):"]
    for title, opt, regs in _groups(reg):
        if opt not in ("--family", "--engine", "--evaluator", "--prune-by", "--data"):
            continue
        name, _, note = title.partition(": ")
        lines.append(f"  {name} [{opt}]{': ' + note if note else ''}")
        for r in regs:
            star = "*" if defaults.get(opt) == r.name else " "
            lines.append(f"   {star}{r.name:<18} {r.cls.summary}")
            params = _defaults_of(r.cls)
            provider = "built in" if r.plugin.startswith("metafx.builtin") else f"from {r.source}"
            lines += textwrap.wrap(f"{provider}{'; parameters: ' + params if params else ''}", 110,
                                   initial_indent=" " * 23, subsequent_indent=" " * 25)
    lines.append("Set a component's parameters with --family-param / --engine-param / --evaluator-param NAME=VALUE "
                 "(VALUE is read as JSON, e.g. 3, 0.5, true, null, [2, 3]; None, True and False work too; "
                 "anything else is a string).")
    return "\n".join(lines)


SEARCH_DESCRIPTION = """\
Run a budgeted meta-feature search on your data or a registered dataset, test the chosen features on held-out
samples, and write the result JSON (then `metafx show`, `metafx transform`, `metafx plot` read it).

Your data (--data PATH), by its kind:
  images.npy / images.npz   images (n, H, W); labels from --labels FILE or the array 'y' of the .npz
  FOLDER/                   one sub-folder per class holding its images (PNG, JPEG, ...; one size;
                            needs Pillow: pip install "metafx[images]")
  table.csv / table.parquet a table; --target COLUMN is the label; searched by the tabular family (the
                            metafx-tabular plugin; pandas and pyarrow: pip install "metafx[tabular]")
Grey images are binarized: a pixel is 1 where value >= --threshold (default auto: 0/1 images as they are,
grey levels 0-255 at 128, values in [0, 1] at 0.5; other ranges need --threshold). The result keeps this rule:
`metafx transform`, `metafx predict` and the exports binarize new images by it. Held-out data: --test PATH,
or --test-size (default 0.25 of a data file).

Examples:
  metafx search --data digits_png/ --budget 300 --out digits.json
  metafx search --data houses.csv --target price --budget 20 --out houses.json
  metafx show digits.json
  metafx transform digits.json --data new_png/ --out features.csv
  metafx predict digits.json --data new_png/ --out labels.csv"""


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="metafx", description="meta-feature-guided feature extraction: search a budgeted feature set "
                                           "on your data, inspect it, compute it on new data",
                epilog="Start with `metafx search --help`.")
    logs = _Parser(add_help=False)
    logs.add_argument("--log-level", default="INFO", type=str.upper, choices=LOG_LEVELS,
                      help="messages of the metafx logger shown on stderr (default INFO: a line every 10 steps "
                           "when no progress bar is shown)")

    p.add_argument("--version", action="version", version=f"metafx {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    pl = sub.add_parser("plugins", help="list registered components by kind and the plugin providing each")
    pl.add_argument("--json", action="store_true", help="machine-readable output")
    pl.add_argument("--kind", choices=KINDS, default=None, help="list only the components of this kind")

    s = sub.add_parser("search", help="run a budgeted meta-feature search on your data; write the result JSON",
                       parents=[logs], description=SEARCH_DESCRIPTION,
                       epilog=_components_epilog(), formatter_class=_HelpFormatter)
    d = s.add_argument_group("data")
    d.add_argument("--data", default="digits", metavar="PATH|NAME",
                   help="your data (a .npy/.npz array, a folder of class sub-folders of images, a .csv/.parquet "
                        "table) or a registered dataset name (digits, mnist, ...; a folder of that name: "
                        "./NAME); default digits")
    d.add_argument("--labels", default=None, metavar="FILE",
                   help="labels of a .npy/.npz array: a .npy or a text file with one label per line")
    d.add_argument("--target", default=None, metavar="COLUMN", help="the label (target) column of a table")
    d.add_argument("--threshold", type=_threshold, default=None, metavar="T|auto",
                   help="binarize grey images: a pixel is 1 where value >= T (default auto: 0/1 kept, 0-255 at 128, "
                        "[0, 1] at 0.5; registered datasets: their own, digits 8, mnist 128)")
    d.add_argument("--test", default=None, metavar="PATH", help="held-out data of the same kind as --data")
    d.add_argument("--test-labels", default=None, metavar="FILE", help="labels of a --test array")
    d.add_argument("--test-size", type=_test_size, default=None, metavar="F",
                   help=f"hold out this share (0 <= F < 1) or number (F >= 1) of the samples for the test "
                        f"(default {DEFAULT_TEST_SIZE:g} of a data file; 0 = no test)")
    d.add_argument("--data-dir", default=None, help="directory of the dataset files (mnist; else $METAFX_MNIST_DIR)")
    d.add_argument("--n-train", type=_INT, default=None,
                   help="training samples (default: the rest after the test; digits 1000, mnist 2000)")
    d.add_argument("--n-test", type=_INT, default=None,
                   help="held-out test samples (default: digits 797, mnist 2000; 0 = none)")
    d.add_argument("--split-seed", type=_INT, default=0, help="seed of the random train/test split")
    g = s.add_argument_group("search")
    g.add_argument("--family", default=None,
                   help="feature family (default: tabular for a .csv/.tsv/.parquet table, else pixel-and, for "
                        "binary images; list below)")
    g.add_argument("--budget", type=_BUDGET, default="auto",
                   help="total cost of the chosen features, or 'auto' (default): the family's default for the data "
                        f"(image families: 8 per pixel; others {DEFAULT_BUDGET:g})")
    g.add_argument("--steps", type=_INT, default=DEFAULT_STEPS, help=f"search steps J (default {DEFAULT_STEPS})")
    g.add_argument("--engine", default=DEFAULT_ENGINE,
                   help=f"search engine (default {DEFAULT_ENGINE}; mufasa is the thesis's Algorithm 6; list below)")
    g.add_argument("--evaluator", default=None,
                   help="set evaluator: the search's quality (default cv-linear-svm; the family's own where it "
                        "names one: cv-linear for tabular; list below)")
    g.add_argument("--seed", "--random-state", dest="seed", type=_INT, default=0,
                   help="seed of the search and of the final classifier (default 0)")
    g.add_argument("--warm-start", nargs="+", default=None, metavar="RESULT",
                   help="result JSON files of related tasks (same family, meta-feature space and image size): "
                        "their best points are evaluated first")
    g.add_argument("--fix", type=_kv, action="append", default=[], metavar="NAME=VALUE",
                   help="hold a meta-feature fixed, e.g. --fix shiftInvLen=1 (repeatable)")
    g.add_argument("--family-param", type=_kv, action="append", default=[], metavar="NAME=VALUE",
                   help="a parameter of the family (repeatable; parameters and defaults below)")
    g.add_argument("--engine-param", type=_kv, action="append", default=[], metavar="NAME=VALUE",
                   help="a parameter of the engine (repeatable)")
    g.add_argument("--evaluator-param", type=_kv, action="append", default=[], metavar="NAME=VALUE",
                   help="a parameter of the evaluator (repeatable)")
    g.add_argument("--storage", default=None, help="record finished steps here; rerun with the same arguments to resume")
    g.add_argument("--study", default=None, help="study name inside --storage (engines that use one)")
    g.add_argument("--storage-option", type=_kv, action="append", default=[], metavar="NAME=VALUE",
                   help="a study's heartbeat setting, for engines whose steps are optuna trials (repeatable): "
                        "heartbeat=SECONDS (default 30), stale_after=SECONDS (default 600)")
    g.add_argument("--n-jobs", type=_INT, default=1,
                   help="worker processes evaluating candidates at once (-1: every CPU; default 1)")
    g.add_argument("--timeout", type=_NUMBER, default=None,
                   help="seconds after which no new search step starts (the steps finished are kept)")
    g.add_argument("--oversample", type=_NUMBER, default=1.0,
                   help="draw this many times the budget at each point and keep the best features by --prune-by "
                        "score per cost (default 1: the thesis's plain drawing)")
    g.add_argument("--prune-by", default="infogain", help="per-feature scorer used with --oversample (default infogain)")
    g.add_argument("--reselect", type=_INT, default=None,
                   help="score the R best steps' sets again on a fresh split and keep the best mean of the two scores "
                        "(default: the engine's, 3 for guided, 1 (off) for the others)")
    g.add_argument("--n-workers", type=_INT, default=1,
                   help="engine optuna with --storage: processes on this machine (1: this one; k > 1: this one and "
                        "k-1 `metafx worker`s; 0: only create the study, wait for workers and collect)")
    g.add_argument("--sampler", default=None,
                   help="engine optuna: tpe (default), cmaes, gp, random or qmc (same as --engine-param sampler=...)")
    o = s.add_argument_group("output")
    o.add_argument("--out", default=None,
                   help="write the result JSON here (default: metafx-result-DATE-TIME.json in the current directory, "
                        "never overwriting an existing file; its name is printed)")
    o.add_argument("--final-c", type=_final_c, default="cv", help="C of the final linear SVM, or 'cv' (default) to choose it on the training part")
    prog = o.add_mutually_exclusive_group()
    prog.add_argument("--progress", dest="progress", action="store_true", default=None,
                      help="always show the progress bar (default: on a terminal; elsewhere log lines)")
    prog.add_argument("--no-progress", dest="progress", action="store_false", help="never show the progress bar")

    sh = sub.add_parser("show", help="a result in a few lines: point, quality, features, cost, trajectory",
                        description="Print a result JSON's summary: the data, the chosen meta-feature point, its "
                                    "quality and what the quality measures, the test, the features and their cost, "
                                    "and the trajectory in one line.")
    sh.add_argument("result", help="result JSON written by metafx search")
    sh.add_argument("--json", action="store_true", help="the same facts as JSON, for machines")
    sh.add_argument("--features", type=_INT, default=10, metavar="N", help="features listed (default 10)")

    tr = sub.add_parser("transform", help="compute a result's features on new data (.npy, .csv or .parquet out)",
                        description="Compute the chosen features of a result on new data of the kind it was "
                                    "searched on (images: .npy/.npz or a folder of images, with or without class "
                                    "sub-folders; tables: .csv/.parquet with the training columns; a target column "
                                    "is ignored). Rows stay in the input's order (a folder: sorted file paths, "
                                    "listed in the 'file' column of a CSV/Parquet output).",
                        parents=[logs])
    tr.add_argument("result", help="result JSON written by metafx search")
    tr.add_argument("--data", required=True, metavar="PATH", help="the new data")
    tr.add_argument("--out", required=True, metavar="FILE",
                    help="where the features go: FILE.npy (an n x k array), FILE.csv or FILE.parquet (one column "
                         "per feature, named by its description)")
    tr.add_argument("--threshold", type=_threshold, default=None, metavar="T|auto",
                    help="binarize grey images at value >= T (default: the threshold the search used, recorded in "
                         "the result)")

    pr = sub.add_parser("predict", help="the labels (and decision scores) of new data from a result's classifier",
                        description="Predict the class of every sample of new data of the kind the result was "
                                    "searched on, with the linear classifier the result keeps (result.classifier, "
                                    "kept by metafx search when it holds out test data): the labels of "
                                    "FeatureClassifier.from_result(result).predict. Images are binarized by the "
                                    "result's rule (see metafx show). Written as CSV: a 'file' column for a folder "
                                    "of images, 'label', and with --scores the decision scores.",
                        parents=[logs])
    pr.add_argument("result", help="result JSON written by metafx search")
    pr.add_argument("--data", required=True, metavar="PATH", help="the new data (as for metafx transform)")
    pr.add_argument("--out", default=None, metavar="FILE.csv", help="where the labels go (default: standard output)")
    pr.add_argument("--scores", action="store_true",
                    help="add the decision scores: one column 'score' for two classes (positive for the second "
                         "class), else one 'score_CLASS' per class")

    # `metafx export` (a result's features as dependency-free code) registers its parser here

    w = sub.add_parser("worker", help="join a shared optuna search (created by metafx search --storage --study)",
                       parents=[logs])
    w.add_argument("--storage", required=True, help="the study's optuna storage URL or journal file")
    w.add_argument("--study", required=True, help="the study name")
    w.add_argument("--n-jobs", type=_INT, default=1, help="trials evaluated at once by this worker (processes)")
    w.add_argument("--data-dir", default=None, help="where the dataset files are on this machine")
    wprog = w.add_mutually_exclusive_group()
    wprog.add_argument("--progress", dest="progress", action="store_true", default=None)
    wprog.add_argument("--no-progress", dest="progress", action="store_false")
    pp = sub.add_parser("plot", help="draw a result's trajectory, meta-feature path and chosen features as PNG files",
                        description="Draw a result JSON as PNG files: RESULT_trajectory.png (the quality of each "
                                    "step), RESULT_path.png (the path through meta-feature space) and, for image "
                                    "families, RESULT_features.png (the best features on the image grid).",
                        parents=[logs])
    pp.add_argument("result", help="result JSON written by metafx search --out")
    pp.add_argument("--out", default=None, help="directory of the PNG files (default: beside the JSON)")
    pp.add_argument("--n-features", type=_INT, default=12,
                    help="features drawn in the feature picture: the best by infogain on the training data "
                         "(default 12)")
    pp.add_argument("--data-dir", default=None, help="where the result's dataset files are on this machine")
    _export_parser(sub)
    return p


def _training_data(result: SearchResult, data_dir: str | None) -> tuple[Any, Any] | None:
    """The training part of the data a CLI search recorded in ``metadata["data"]``, or None."""
    d = data_record(result.metadata)
    if d is None:
        return None
    try:
        if "path" in d:
            data = read_data(d["path"], labels=d.get("labels"), target=d.get("target"), names=CLI_NAMES)
            X = data.X if "threshold" not in d else binarize(data.X, d["threshold"], data.path, CLI_NAMES)[0]
            if d.get("test"):
                return X, data.y
            tr, _ = split_indices(data.n, int(d["n_train"]), int(d.get("n_test", 0)), int(d.get("split_seed", 0)))
            assert data.y is not None  # read_data refuses data without labels unless need_labels=False
            return (X.iloc[tr] if hasattr(X, "iloc") else X[tr]), data.y[tr]
        params = {} if data_dir is None and "data_dir" not in d else {"data_dir": data_dir or d["data_dir"]}
        if isinstance(d.get("threshold"), (int, float)):
            params["threshold"] = d["threshold"]
        X, y = load_dataset(d["name"], **params)
        tr, _ = split_indices(len(y), d["n_train"], d["n_test"], d["split_seed"])
    except MetafxError as e:
        print(f"metafx: the training data could not be loaded ({e}); features are drawn without a mean image "
              "and in result order", file=sys.stderr)
        return None
    return X[tr], y[tr]


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


def _check_out(args: argparse.Namespace) -> None:
    """Refuse an unusable --out before any work (a missing directory, a directory, the storage itself)."""
    if args.out is None:
        return
    check_output_path(args.out, "--out")
    check_not_an_input(args.out, [("--data", args.data), ("--labels", args.labels), ("--test", args.test),
                                  ("--test-labels", args.test_labels)]
                       + [("--warm-start", f) for f in args.warm_start or []])
    sfile = storage_file(args.storage) if args.storage is not None else None
    if sfile is not None:
        for f in (sfile, f"{sfile}.lock"):
            if same_file(args.out, f):
                raise ValidationError(f"--out={args.out!r} is the search's storage {args.storage!r}: writing the "
                                      "result there would destroy it; give another --out")


def _interrupted(args: argparse.Namespace, e: SearchInterrupted) -> int:
    """Ctrl-C: keep what was found (written to --out or the default file, marked interrupted) and say how to
    go on."""
    result = getattr(e, "result", None)
    n = len(result.trajectory) if result is not None else 0
    msg = f"metafx: interrupted after {n} finished step(s)"
    if result is not None and n:
        msg += f", best {result.quality_label} so far {result.best_quality:.4f}"
    print(msg, file=sys.stderr)
    if result is not None and (n or args.out):
        out = args.out or _default_out()
        result.metadata["interrupted"] = True
        result.to_json(out)
        print(f"metafx: wrote the interrupted result (metadata.interrupted = true) to {out}", file=sys.stderr)
    if args.storage:
        print(f"metafx: to resume, run the same command again (finished steps are kept in {args.storage})",
              file=sys.stderr)
    else:
        print("metafx: nothing was journaled (no --storage), so a rerun starts over; give --storage FILE to make "
              "a search resumable", file=sys.stderr)
    return 130


def cmd_search(args: argparse.Namespace) -> int:
    _check_out(args)
    try:
        return _search(args)
    except SearchInterrupted as e:
        return _interrupted(args, e)


def family_class(name: str) -> type:
    """The registered family ``name`` (the tabular plugin's install line when it is missing)."""
    try:
        return get_registry().get("family", name)
    except UnknownComponentError as e:
        if name == "tabular":
            raise UnknownComponentError(f"{e}; {TABULAR_PLUGIN_HINT}") from None
        raise


def _is_image_family(cls: type) -> bool:
    return getattr(cls, "data_kind", "table") == "binary-image"


@dataclass
class _Data:
    """The training and held-out parts of the data of a search, and what ``metadata["data"]`` records."""

    X_train: Any
    y_train: Any
    X_test: Any = None
    y_test: Any = None
    meta: dict[str, Any] = field(default_factory=dict)
    line: str = ""
    params: dict[str, Any] = field(default_factory=dict)  # a registered dataset's parameters
    rule: InputRule | None = None  # how the images were binarized (image families), kept in the result

    @property
    def n_test(self) -> int:
        return 0 if self.y_test is None else len(self.y_test)


def _split_sizes(args: argparse.Namespace, n: int, default: tuple[int, int] | None) -> tuple[int, int]:
    """(n_train, n_test) from --n-train / --n-test / --test-size and the data's defaults."""
    if args.test_size is not None and args.n_test is not None:
        raise ValidationError(f"--test-size={args.test_size:g} and --n-test={args.n_test} both set the test; give one")
    if args.test_size is not None:
        n_test = int(round(args.test_size * n)) if args.test_size < 1 else int(args.test_size)
    elif args.n_test is not None:
        n_test = args.n_test
    else:
        n_test = default[1] if default else int(round(DEFAULT_TEST_SIZE * n))
    if args.n_train is not None:
        n_train = args.n_train
    elif default and args.test_size is None and args.n_test is None:
        n_train = default[0]
    else:
        n_train = n - n_test
    if n_train < 1:
        raise ValidationError(f"the test takes {n_test} of the {n} samples and leaves none to train on; "
                              "lower --test-size / --n-test")
    return n_train, n_test


def _registered_data(args: argparse.Namespace) -> _Data:
    for opt, v in (("--labels", args.labels), ("--target", args.target), ("--test", args.test),
                   ("--test-labels", args.test_labels)):
        if v is not None:
            raise ValidationError(f"{opt} is for data files; --data {args.data!r} is a registered dataset "
                                  "(for your data give --data PATH: a .npy/.npz array, a folder of images or a table)")
    data_params: dict[str, Any] = {}
    if args.data_dir is not None:
        data_params["data_dir"] = args.data_dir
    if args.threshold not in (None, "auto"):
        data_params["threshold"] = int(args.threshold) if float(args.threshold).is_integer() else args.threshold
    try:
        dataset = make_component("dataset", args.data, data_params)
    except UnknownComponentError as e:
        raise UnknownComponentError(f"--data {args.data!r} is no file or folder and {e}; for your own data give a "
                                    "path (a .npy/.npz array, a folder of images, a .csv/.parquet table)") from None
    X, y = load_dataset(args.data, **data_params)
    n_train, n_test = _split_sizes(args, len(y), DATA_DEFAULTS.get(args.data, (len(y) // 2, len(y) - len(y) // 2)))
    tr, te = split_indices(len(y), n_train, n_test, args.split_seed)
    meta = {"name": args.data, "n_train": n_train, "n_test": n_test, "split_seed": args.split_seed,
            **{k: str(v) for k, v in data_params.items()}}
    rule = BINARY
    if isinstance(getattr(dataset, "threshold", None), (int, float)):  # what `metafx transform` binarizes new images at
        meta["threshold"] = dataset.threshold
        rule = InputRule.of_threshold(dataset.threshold, getattr(dataset, "value_range", None))
    line = (f"data {args.data}: {n_train} training and {n_test} test samples of shape {X.shape[1:]} "
            f"(split seed {args.split_seed})")
    return _Data(X[tr], y[tr], X[te] if n_test else None, y[te] if n_test else None, meta, line, data_params, rule)


def _check_kind(data: DataFile, cls: type, family: str, what: str = "--data", *, of_result: bool = False) -> None:
    """Images for image families, tables for the others: a clear word before any work.

    ``of_result``: the family is a saved result's (``metafx transform``, which has no ``--family`` to advise)."""
    fam = f"the result's family {family}" if of_result else f"--family {family}"
    if _is_image_family(cls) and data.kind == "table":
        raise ValidationError(f"{what} {data.path} is a table ({data.n} rows x {len(data.columns)} columns) but "
                              f"{fam} reads binary images" +
                              ("; give images like those it was searched on" if of_result
                               else ": for tables use --family tabular"))
    if not _is_image_family(cls) and data.kind == "images":
        raise ValidationError(f"{what} {data.path} holds images ({data.n} of {data.X.shape[1]} x {data.X.shape[2]}) "
                              f"but {fam} reads tables" +
                              ("; give a table with the columns it was searched on" if of_result
                               else "; for images use an image family (pixel-and)"))


def _file_data(args: argparse.Namespace, cls: type) -> _Data:
    if args.data_dir is not None:
        raise ValidationError(f"--data-dir is for registered datasets (mnist); --data {args.data!r} is a path")
    data = read_data(args.data, labels=args.labels, target=args.target, names=CLI_NAMES)
    _check_kind(data, cls, args.family)
    test = None
    if args.test is not None:
        for opt, v in (("--test-size", args.test_size), ("--n-test", args.n_test), ("--n-train", args.n_train)):
            if v is not None:
                raise ValidationError(f"--test {args.test!r} is the held-out data; leave out {opt} (every sample of "
                                      "--data is trained on)")
        test = read_data(args.test, labels=args.test_labels, target=args.target, names=CLI_NAMES)
        _check_kind(test, cls, args.family, "--test")
        if data.kind != test.kind or (data.kind != "table" and data.X.shape[1:] != test.X.shape[1:]):
            raise ValidationError(f"--test {test.path} holds {test.describe()} but --data holds {data.describe()}; "
                                  "expected the same kind and size")
        if data.kind == "table" and list(test.columns) != list(data.columns):
            missing = [c for c in data.columns if c not in test.columns]
            if missing:
                raise ValidationError(f"--test {test.path} lacks the columns {missing[:10]} of --data")
            test.X = test.X[data.columns]
    elif args.test_labels is not None:
        raise ValidationError("--test-labels needs --test PATH (the held-out data they label)")
    meta: dict[str, Any] = {"path": os.path.abspath(data.path), "format": data.format, "kind": data.kind}
    for k, v in (("labels", args.labels), ("target", data.target), ("classes", data.classes),
                 ("columns", data.columns if data.kind == "table" else None)):
        if v is not None:
            meta[k] = os.path.abspath(str(v)) if k == "labels" else v
    X = data.X
    rule = None
    if _is_image_family(cls):
        try:
            X, t = binarize(X, "auto" if args.threshold is None else args.threshold, data.path, CLI_NAMES)
        except ValidationError as e:
            if data.kind == "array":  # a 2-D array: flat images, or a table
                raise ValidationError(f"{e}; if {data.path} is a table (samples x columns, not pixels), use "
                                      "--family tabular") from None
            raise
        meta["threshold"] = t
        rule = InputRule.of_training(data.X, t)  # kept in the result: new images are binarized by it
    if data.kind != "images":
        meta["image_shape"] = None
    if test is not None:
        Xte = test.X
        if rule is not None:  # the held-out images by the rule of the training images (0/1 ones as they are)
            Xte = rule.apply(Xte, f"--test {test.path}")
        meta.update({"n_train": data.n, "n_test": test.n, "test": os.path.abspath(test.path)})
        if args.test_labels is not None:
            meta["test_labels"] = os.path.abspath(args.test_labels)
        line = f"data {data.path}: {data.describe()}; test {test.path}: {test.describe()}"
        return _Data(X, data.y, Xte, test.y, meta, line, rule=rule)
    n_train, n_test = _split_sizes(args, data.n, None)
    tr, te = split_indices(data.n, n_train, n_test, args.split_seed)
    rows = (lambda idx: X.iloc[idx].reset_index(drop=True)) if hasattr(X, "iloc") else (lambda idx: X[idx])
    meta.update({"n_train": n_train, "n_test": n_test, "split_seed": args.split_seed})
    assert data.y is not None  # read_data refuses data without labels unless need_labels=False
    line = (f"data {data.path}: {data.describe()}; {n_train} training and {n_test} test samples "
            f"(split seed {args.split_seed})")
    return _Data(rows(tr), data.y[tr], rows(te) if n_test else None, data.y[te] if n_test else None, meta, line,
                 rule=rule)


def _default_out(now: float | None = None) -> str:
    """``metafx-result-YYYYmmdd-HHMMSS.json`` in the working directory, with -2, -3, ... if it exists."""
    stem = time.strftime("metafx-result-%Y%m%d-%H%M%S", time.localtime(now))
    name, k = f"{stem}.json", 1
    while os.path.exists(name):
        k += 1
        name = f"{stem}-{k}.json"
    return name


def _check_two_labels(args: argparse.Namespace, y: Any, classes: list[str] | None = None) -> None:
    """Training labels of one value: refused in the words of the option (or file) that gave them."""
    import numpy as np

    values = np.unique(np.asarray(y))
    if values.size >= 2:
        return
    if args.target is not None:
        src = f"--target {args.target!r} of {args.data}"
    elif args.labels is not None:
        src = f"--labels {args.labels}"
    elif os.path.isdir(args.data):
        name = classes[int(values[0])] if classes and values.size else "?"
        raise ValidationError(f"--data {args.data} has one class sub-folder with training images ({name!r}); a "
                              "search needs at least 2 classes")
    else:
        src = f"the labels 'y' of --data {args.data}"
    v = values[0].item() if values.size else None
    raise ValidationError(f"{src} has a single value ({v!r}) on all {len(y)} training samples; a search needs "
                          "labels of at least 2 classes (a real target: at least 2 distinct values)")


def _held_out(args: argparse.Namespace, result: SearchResult, data: _Data, final_c: float | str) -> None:
    """The test on the held-out part: the evaluator's own model when it offers one (``split_scores``, the
    tabular evaluators), else the error of a linear SVM on the chosen features (recorded as ``holdout_error``)."""
    import numpy as np

    ev = make_component("set-evaluator", result.evaluator, result.evaluator_params)
    if hasattr(ev, "split_scores") and not _is_image_family(family_class(result.family)):
        family, batch = result.feature_batch()
        if hasattr(data.X_train, "iloc"):
            import pandas as pd

            X_all = pd.concat([data.X_train, data.X_test], ignore_index=True)
        else:
            X_all = np.concatenate([data.X_train, data.X_test])
        y_all = np.concatenate([np.asarray(data.y_train), np.asarray(data.y_test)])
        n = len(data.y_train)
        values = family.compute(family.prepare(X_all), batch)
        split = [(np.arange(n), np.arange(n, len(y_all)))]
        score = float(ev.split_scores(values, y_all, split)[0])
        result.metadata["test_score"] = {
            "score": score, "n_test": data.n_test,
            "what": f"{result.evaluator}'s model fitted on the training rows, scored as above on the held-out rows; "
                    "higher is better"}
        if _is_classes(data.y_train):
            # a classification table: the accuracy of the same model beside its (log-loss) score, and the final
            # linear classifier kept for `metafx predict`
            if "scoring" in ev.get_params() and ev.get_params()["scoring"] != "accuracy":
                acc = make_component("set-evaluator", result.evaluator, {**result.evaluator_params, "scoring": "accuracy"})
                result.metadata["test_score"]["accuracy"] = float(acc.split_scores(values, y_all, split)[0])
            try:
                result.fit_classifier(data.X_train, data.y_train, C=None if final_c == "cv" else final_c,
                                      random_state=args.seed)
            except MetafxError as e:
                print(f"metafx: no classifier is kept for metafx predict ({_cli_words(str(e))})", file=sys.stderr)
        return
    # the final model (C by CV on the training part), kept in the result for prediction and export
    clf = result.fit_classifier(data.X_train, data.y_train, C=None if final_c == "cv" else final_c,
                                random_state=args.seed)
    result.holdout_error = float(np.mean(clf.predict(data.X_test) != np.asarray(data.y_test)))
    result.metadata["final_C"] = clf.C_


def _is_table_path(args: argparse.Namespace, from_file: bool) -> bool:
    return from_file and Path(args.data).suffix.lower() in TABLE_SUFFIXES


def _family_for(args: argparse.Namespace, from_file: bool) -> str:
    """``--family``, else the family the data call for: ``tabular`` for a table file, ``pixel-and`` else."""
    if args.family is not None:
        return args.family
    if _is_table_path(args, from_file):
        if ("family", "tabular") not in get_registry():
            raise ValidationError(f"--data {args.data} is a table, searched by the tabular family, which is not "
                                  f"installed: {TABULAR_PLUGIN_HINT}")
        print(f"family tabular (--data {args.data} is a table; --family chooses another)", file=sys.stderr)
        return "tabular"
    return "pixel-and"


def _check_arguments(args: argparse.Namespace, cls: type, from_file: bool, evaluator: str,
                     engine_params: dict[str, Any]) -> None:
    """Every argument that can be checked without the data, each refusal naming its option (before any data is
    read: a misspelt engine must not wait for a large folder of images)."""
    if args.steps < 1:
        raise ValidationError(f"--steps={args.steps} must be an integer >= 1 (the number of search steps)")
    if args.target is not None and from_file and not _is_table_path(args, from_file):
        labels = ("its class sub-folders" if os.path.isdir(args.data) else "--labels FILE (or the array 'y' of an .npz)")
        raise ValidationError(f"--target {args.target!r} names the label column of a table; --data {args.data} is "
                              f"not a table (.csv/.tsv/.parquet): its labels come from {labels}; leave out --target")
    image = _is_image_family(cls)
    if args.threshold is not None and not image:
        raise ValidationError(f"--threshold binarizes images; --family {args.family} reads tables: leave it out")
    if isinstance(args.threshold, float) and from_file and os.path.isdir(args.data) and not 0 < args.threshold <= 255:
        raise ValidationError(f"--threshold {args.threshold:g} is outside the grey levels of images read from a "
                              f"folder (0-255): every pixel would be {0 if args.threshold > 255 else 1}; allowed: a "
                              "number in (0, 255], or auto")
    try:
        eng = make_component("engine", args.engine, engine_params)
    except UnknownComponentError as e:
        raise UnknownComponentError(f"--engine {args.engine!r}: {e}") from None
    except ValidationError as e:
        raise ValidationError(f"--engine-param (engine {args.engine}): {_cli_words(str(e))}") from None
    _check_storage_option(args, eng.steps_are_trials)
    try:
        make_component("set-evaluator", evaluator, dict(args.evaluator_param))
    except UnknownComponentError as e:
        raise UnknownComponentError(f"--evaluator {evaluator!r}: {e}") from None
    except ValidationError as e:
        opt = "--evaluator" if (("set-evaluator", evaluator) not in get_registry()) else "--evaluator-param"
        raise ValidationError(f"{opt} (evaluator {evaluator}): {_cli_words(str(e))}") from None
    try:
        make_component("scorer", args.prune_by, None)
    except (UnknownComponentError, ValidationError) as e:
        raise ValidationError(f"--prune-by {args.prune_by!r}: {e}") from None
    try:
        family = make_component("family", args.family, dict(args.family_param), base=FeatureFamily)
    except ValidationError as e:
        raise ValidationError(f"--family-param (family {args.family}): {_cli_words(str(e))}") from None
    if args.fix:
        try:  # the family's space without data, where it has one (a table's family may need its columns first)
            space = family.space()
        except Exception:  # noqa: BLE001 - any family's own error here only means: checked after the data
            space = None
        if space is not None:
            try:
                space.with_fixed(check_fixed(space, dict(args.fix)))
            except ValidationError as e:
                words = _cli_words(str(e))
                raise ValidationError(words if words.startswith("--fix") else f"--fix: {words}") from None


def _is_classes(y: Any) -> bool:
    """Whether labels ``y`` are classes (as :meth:`DataFile.describe` tells them from a numeric target: text,
    whole numbers of at most ``MANY_LEVELS`` values), not a real-valued target."""
    import numpy as np

    y = np.asarray(y)
    if y.dtype.kind not in "biuf":
        return True
    if y.dtype.kind == "f" and not np.all(np.mod(y, 1) == 0):
        return False
    return len(np.unique(y)) <= MANY_LEVELS


def _search(args: argparse.Namespace) -> int:
    import numpy as np

    final_c: float | str = args.final_c  # "cv" or a number above 0 (checked by _final_c)
    from_file = looks_like_path(args.data) and not (  # a registered name wins over a folder of that name
        "/" not in args.data and os.sep not in args.data and args.data in get_registry().names("dataset"))
    args.family = _family_for(args, from_file)
    try:
        cls = family_class(args.family)
    except UnknownComponentError as e:
        raise UnknownComponentError(f"--family {args.family!r}: {e}") from None
    engine_params = dict(args.engine_param)
    if args.sampler is not None:
        eng = get_registry().get("engine", args.engine)
        if "sampler" not in inspect.signature(eng).parameters:
            raise ValidationError(f"--sampler {args.sampler} is a parameter of engine optuna, not of --engine "
                                  f"{args.engine}: add --engine optuna")
        engine_params["sampler"] = args.sampler
    evaluator = args.evaluator or getattr(cls, "default_evaluator", None) or "cv-linear-svm"
    _check_arguments(args, cls, from_file, evaluator, engine_params)
    data = _file_data(args, cls) if from_file else _registered_data(args)
    print(data.line, file=sys.stderr)
    if from_file:
        _check_two_labels(args, data.y_train, data.meta.get("classes"))
    if args.budget == "auto":
        fam = make_component("family", args.family, dict(args.family_param), base=FeatureFamily)
        args.budget = resolve_budget("auto", fam, fam.check_data(data.X_train))
        print(f"budget {args.budget:g} (--budget auto: the {args.family} family's default for this data)",
              file=sys.stderr)
    warm = [SearchResult.from_json(f) for f in args.warm_start] if args.warm_start else None
    if storage_kind(args.storage) == "study" and not from_file:  # a study workers can join
        if warm:
            raise ValidationError("--warm-start is not available with a study storage (a shared study); "
                                  "leave out --storage, or --warm-start")
        result = _shared_search(args, data.X_train, data.y_train, data.meta["n_train"], data.n_test, engine_params,
                                data.params, evaluator)
    elif args.n_workers != 1:
        raise ValidationError(f"--n-workers={args.n_workers} needs --storage with an optuna storage (a study) and a "
                              "registered dataset (workers load the data by its name)")
    else:
        result = _searched(args, warm, dict(
            X=data.X_train, y=data.y_train, family=args.family, budget=args.budget, steps=args.steps, engine=args.engine,
            evaluator=evaluator, seed=args.seed, progress=args.progress, fixed=dict(args.fix),
            family_params=dict(args.family_param), engine_params=engine_params,
            evaluator_params=dict(args.evaluator_param), storage=args.storage, study_name=args.study, n_jobs=args.n_jobs,
            storage_options=dict(args.storage_option) or None,
            oversample=args.oversample, prune_by=args.prune_by, reselect=args.reselect, warm_start=warm,
            timeout=args.timeout,
        ))
    if result.metadata.get("empty_result"):
        raise ValidationError(
            f"no step of the search drew a usable feature ({len(result.trajectory)} steps, budget {args.budget:g}): "
            "the result would be an empty feature set; nothing was written. Check --budget, --fix, "
            "--family-param and the data")
    result.metadata["data"] = data.meta
    if _is_image_family(cls) and data.rule is not None:
        result.binarization = data.rule.to_dict()  # new images are binarized by it (SearchResult.input_rule)
    if data.n_test > 0 and result.n_features > 0:
        try:
            _held_out(args, result, data, final_c)
        except MetafxError as e:  # the search is kept whatever the test says
            print(f"metafx: the held-out test could not be computed ({_cli_words(str(e))}); the result is written "
                  "without it", file=sys.stderr)
    print(result.summary())
    ts = result.metadata.get("test_score")
    if ts:
        print(f"held-out score: {ts['score']:.4f} ({ts['what']})")
        if ts.get("accuracy") is not None:
            print(f"held-out accuracy: {ts['accuracy']:.4f} (the same model's share of held-out rows classified "
                  "right)")
    t = result.metadata.get("timings", {})
    if t:
        print("time: " + ", ".join(f"{k} {v:.2f} s" for k, v in t.items()))
    out = args.out or _default_out()
    result.to_json(out)
    print(f"wrote {out}" + ("" if args.out else " (the default name; --out FILE chooses another)"))
    print(f"next: metafx show {out}   |   metafx transform {out} --data NEW --out features.csv", file=sys.stderr)
    np.seterr(all="warn")
    return 0


def _check_storage_option(args: argparse.Namespace, trials: bool) -> None:
    """--storage-option: a study's heartbeat settings, for an engine whose steps are trials of a study."""
    try:
        check_storage_options(dict(args.storage_option), "--storage-option")
    except ValidationError as e:
        raise ValidationError(str(e).replace("--storage-option: ", "--storage-option ", 1)) from None
    if args.storage_option and not trials:
        raise ValidationError(f"--storage-option sets a study's heartbeat; engine {args.engine!r} keeps its steps in a "
                              "journal file (--storage FILE.jsonl), which has none: leave it out")


def _searched(args: argparse.Namespace, warm: list[SearchResult] | None, kwargs: dict[str, Any]) -> SearchResult:
    """:func:`metafx.search`; a refused warm start is named by its file."""
    try:
        return search(**kwargs)
    except ValidationError as e:
        m = re.match(r"warm_start(?:\[(\d+)\])? ", str(e))
        if not warm or m is None:
            raise
        name = args.warm_start[int(m.group(1) or 0)]
        raise ValidationError(f"--warm-start {name} {str(e)[m.end():]}") from None


def _shared_search(args: argparse.Namespace, X, y, n_train: int, n_test: int, engine_params: dict,
                   data_params: dict, evaluator: str):
    if args.timeout is not None:
        raise ValidationError(f"--timeout={args.timeout:g} is not available with a shared study (--engine optuna "
                              "--storage); stop it with Ctrl-C, rerun to resume")
    if args.reselect not in (None, 1):
        raise ValidationError(f"--reselect={args.reselect} is not available with a study storage (the "
                              f"steps live in a shared study); leave it out")
    spec = ProblemSpec(data=args.data, data_params=data_params, n_train=n_train, n_test=n_test,
                       split_seed=args.split_seed, family=args.family, family_params=dict(args.family_param),
                       fixed=dict(args.fix), budget=args.budget, steps=args.steps, seed=args.seed,
                       evaluator=evaluator, evaluator_params=dict(args.evaluator_param),
                       oversample=args.oversample, prune_by=args.prune_by,
                       engine=args.engine, engine_params=engine_params)
    study = args.study or f"metafx-{args.data}-{args.family}-b{args.budget:g}-s{args.seed}"
    print(f"study {study!r} ({args.n_workers} worker process(es) here)", file=sys.stderr)
    return run_shared_search(spec, args.storage, study, n_workers=args.n_workers, n_jobs=args.n_jobs,
                             progress=args.progress, data=(X, y), storage_options=dict(args.storage_option) or None)


def cmd_show(args: argparse.Namespace) -> int:
    if args.features < 0:
        raise ValidationError(f"--features={args.features} must be 0 or more")
    result = SearchResult.from_json(args.result)
    report = result_report(result, n_features=args.features)
    print(json.dumps(report, indent=1) if args.json else format_report(report))
    return 0


def _new_data(args: argparse.Namespace, result: SearchResult) -> tuple[Any, DataFile]:
    """``--data`` of ``metafx transform`` / ``predict``, checked against the result and ready for its features:
    images binarized by the result's rule (or ``--threshold``), a table's columns in the training order."""
    cls = family_class(result.family)
    recorded = result.metadata.get("data")
    meta: dict[str, Any] = recorded if isinstance(recorded, dict) else {}
    # the target column the search read is split off a table, if there; other kinds of data have none
    target = meta.get("target") if Path(args.data).suffix.lower() in TABLE_SUFFIXES else None
    data = read_data(args.data, target=target, need_labels=False, names=CLI_NAMES)
    _check_kind(data, cls, result.family, of_result=True)
    X = data.X
    threshold = getattr(args, "threshold", None)
    if _is_image_family(cls):
        want = result.family_params.get("image_shape")
        if want is not None and data.kind == "images" and list(X.shape[1:]) != list(want):
            raise ValidationError(f"--data {data.path} holds images of {X.shape[1]} x {X.shape[2]} but the result's "
                                  f"features are for images of {want[0]} x {want[1]}")
        if threshold is not None:  # these images by the threshold given (0/1 images as they are)
            X, _ = binarize(X, threshold, data.path, CLI_NAMES)
        else:  # by the result's rule: the threshold and value range of its training images
            X = result.binarize(X, f"--data {data.path}")
    elif threshold is not None:
        raise ValidationError(f"--threshold binarizes images; the result's family {result.family} reads tables")
    elif data.kind == "table" and meta.get("columns"):
        missing = [c for c in meta["columns"] if c not in data.columns]
        if missing:
            raise ValidationError(f"--data {data.path} lacks the columns {missing[:10]} the result was searched on")
        X = X[meta["columns"]]
    return X, data


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


def cmd_worker(args: argparse.Namespace) -> int:
    data_params = {} if args.data_dir is None else {"data_dir": args.data_dir}
    result = run_worker(args.storage, args.study, n_jobs=args.n_jobs, progress=args.progress,
                        data_params=data_params)
    print(f"study {args.study!r} finished: {len(result.trajectory)} trials, best {result.quality_label} {result.best_quality:.4f}")
    return 0


#: subcommand -> handler (a new subcommand, e.g. `export`, adds its parser in build_parser and its handler here)
COMMANDS = {"plugins": cmd_plugins, "search": cmd_search, "show": cmd_show, "transform": cmd_transform,
            "predict": cmd_predict, "plot": cmd_plot, "worker": cmd_worker}


# ---------------------------------------------------------------------------------------------- metafx export
def _export_parser(sub: Any) -> None:
    e = sub.add_parser("export", help="write a result's features (and classifier) as a C99 file or a NumPy module",
                       description=textwrap.fill(
                           "Write the features chosen by a search of a pixel family (pixel-and, pixel-and-local, "
                           "pixels), and the linear classifier the result carries (result.classifier) if any, as a "
                           "dependency-free C99 file (--to c: NAME_features, NAME_decision, NAME_predict on one "
                           "binary H x W image) or a Python module needing NumPy only (--to numpy: features, "
                           "decision_function, predict). Both give transform's features and the classifier's "
                           "decisions bit for bit.", 100))
    e.add_argument("result", help="result JSON written by metafx search --out")
    e.add_argument("--to", choices=("c", "numpy"), default=None,
                   help="c or numpy (default: from the suffix of --out, .c or .py)")
    e.add_argument("--out", default=None, help="the file to write (default: standard output)")
    e.add_argument("--name", default="metafx_model",
                   help="prefix of the C names (a C identifier; default metafx_model)")


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


COMMANDS["export"] = cmd_export


def main(argv: Sequence[str] | None = None) -> int:
    try:
        # inside the guard: building the parser imports the plugins (a Ctrl-C there is one line too)
        args = build_parser().parse_args(argv)
        with log_level(getattr(args, "log_level", None) or "INFO"):
            code = COMMANDS[args.command](args)
            sys.stdout.flush()
            return code
    except MetafxError as e:
        print(f"metafx: error: {_cli_words(str(e))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("metafx: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader went away (`metafx plugins --json | head`): stop quietly, as a killed pipe writer would
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return 141


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
