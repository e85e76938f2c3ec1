"""The parser of the ``metafx`` command: one function per subcommand adds its options."""

from __future__ import annotations

import argparse
import inspect
import textwrap
from typing import Any

from ..core import __version__
from ..core.exceptions import MetafxError
from ..hooks.manager import get_registry
from ..hooks.registry import KINDS
from ..loop.api import DEFAULT_BUDGET, DEFAULT_ENGINE, DEFAULT_STEPS, search
from ..loop.logs import LOG_LEVELS
from .data import DEFAULT_TEST_SIZE
from .options import _BUDGET, _INT, _NUMBER, _STEPS, _final_c, _HelpFormatter, _kv, _Parser, _test_size, _threshold


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
    """The parser of ``metafx``: one subparser per command, each added by its own function below."""
    p = _Parser(prog="metafx", description="meta-feature-guided feature extraction: search a budgeted feature set "
                                           "on your data, inspect it, compute it on new data",
                epilog="Start with `metafx search --help`.")
    p.add_argument("--version", action="version", version=f"metafx {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    logs = _log_level_parent()
    _plugins_parser(sub)
    _search_parser(sub, logs)
    _show_parser(sub)
    _transform_parser(sub, logs)
    _predict_parser(sub, logs)
    _worker_parser(sub, logs)
    _plot_parser(sub, logs)
    _export_parser(sub)
    return p


def _log_level_parent() -> argparse.ArgumentParser:
    """``--log-level``, shared by the commands that log."""
    logs = _Parser(add_help=False)
    logs.add_argument("--log-level", default="INFO", type=str.upper, choices=LOG_LEVELS,
                      help="messages of the metafx logger shown on stderr (default INFO: a line every 10 steps "
                           "when no progress bar is shown)")
    return logs


def _plugins_parser(sub: Any) -> None:
    pl = sub.add_parser("plugins", help="list registered components by kind and the plugin providing each")
    pl.add_argument("--json", action="store_true", help="machine-readable output")
    pl.add_argument("--kind", choices=KINDS, default=None, help="list only the components of this kind")


def _search_parser(sub: Any, logs: argparse.ArgumentParser) -> None:
    s = sub.add_parser("search", help="run a budgeted meta-feature search on your data; write the result JSON",
                       parents=[logs], description=SEARCH_DESCRIPTION,
                       epilog=_components_epilog(), formatter_class=_HelpFormatter)
    _search_data_options(s.add_argument_group("data"))
    _search_options(s.add_argument_group("search"))
    _search_output_options(s.add_argument_group("output"))


def _search_data_options(d: Any) -> None:
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


def _search_options(g: Any) -> None:
    g.add_argument("--family", default=None,
                   help="feature family (default: tabular for a .csv/.tsv/.parquet table, else pixel-and, for "
                        "binary images; list below)")
    g.add_argument("--budget", type=_BUDGET, default="auto",
                   help="total cost of the chosen features, or 'auto' (default): the family's default for the data "
                        f"(images: 16 per pixel from 16 x 16 pixels, else 8; others {DEFAULT_BUDGET:g})")
    g.add_argument("--steps", type=_STEPS, default="auto",
                   help=f"search steps J, or 'auto' (default): the family's default (images from 16 x 16 pixels: 15; others "
                        f"{DEFAULT_STEPS})")
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


def _search_output_options(o: Any) -> None:
    o.add_argument("--out", default=None,
                   help="write the result JSON here (default: metafx-result-DATE-TIME.json in the current directory, "
                        "never overwriting an existing file; its name is printed)")
    o.add_argument("--final-c", type=_final_c, default="cv", help="C of the final linear SVM, or 'cv' (default) to choose it on the training part")
    prog = o.add_mutually_exclusive_group()
    prog.add_argument("--progress", dest="progress", action="store_true", default=None,
                      help="always show the progress bar (default: on a terminal; elsewhere log lines)")
    prog.add_argument("--no-progress", dest="progress", action="store_false", help="never show the progress bar")


def _show_parser(sub: Any) -> None:
    sh = sub.add_parser("show", help="a result in a few lines: point, quality, features, cost, trajectory",
                        description="Print a result JSON's summary: the data, the chosen meta-feature point, its "
                                    "quality and what the quality measures, the test, the features and their cost, "
                                    "and the trajectory in one line.")
    sh.add_argument("result", help="result JSON written by metafx search")
    sh.add_argument("--json", action="store_true", help="the same facts as JSON, for machines")
    sh.add_argument("--features", type=_INT, default=10, metavar="N", help="features listed (default 10)")


def _transform_parser(sub: Any, logs: argparse.ArgumentParser) -> None:
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


def _predict_parser(sub: Any, logs: argparse.ArgumentParser) -> None:
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


def _worker_parser(sub: Any, logs: argparse.ArgumentParser) -> None:
    w = sub.add_parser("worker", help="join a shared optuna search (created by metafx search --storage --study)",
                       parents=[logs])
    w.add_argument("--storage", required=True, help="the study's optuna storage URL or journal file")
    w.add_argument("--study", required=True, help="the study name")
    w.add_argument("--n-jobs", type=_INT, default=1, help="trials evaluated at once by this worker (processes)")
    w.add_argument("--data-dir", default=None, help="where the dataset files are on this machine")
    wprog = w.add_mutually_exclusive_group()
    wprog.add_argument("--progress", dest="progress", action="store_true", default=None)
    wprog.add_argument("--no-progress", dest="progress", action="store_false")


def _plot_parser(sub: Any, logs: argparse.ArgumentParser) -> None:
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
