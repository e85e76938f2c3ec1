"""The ``metafx`` command line.

``metafx plugins``                 list registered components and their plugins
``metafx search --data digits ...`` run a budgeted search, test it, write the result JSON

Bad input ends with one line on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import sys
import textwrap
from pathlib import Path
from typing import Any, Sequence

from .analysis.evaluation import test_error
from .core import __version__
from .core.base import FeatureFamily
from .core.exceptions import MetafxError, StorageError, ValidationError
from .core.validation import split_indices
from .distributed import ProblemSpec, run_search, run_worker
from .hooks.manager import get_registry
from .loop.api import DEFAULT_BUDGET, DEFAULT_ENGINE, DEFAULT_STEPS, resolve_budget, search
from .loop.components import load_dataset, make_component, role_of
from .loop.files import check_output_path, same_file, storage_file
from .loop.logs import LOG_LEVELS, log_level
from .loop.loop import SearchInterrupted
from .loop.result import SearchResult
from .plotting import plot_result

__all__ = ["main", "build_parser"]

DATA_DEFAULTS = {"digits": (1000, 797), "mnist": (2000, 2000)}


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
    sig = inspect.signature(cls.__init__)
    parts = [f"{q.name}={q.default!r}" for q in sig.parameters.values()
             if q.name != "self" and q.default is not inspect.Parameter.empty]
    return ", ".join(parts)


def _groups(reg: Any) -> list[tuple[str, str, list[Any]]]:
    """Registered components in display groups: (title, option, registrations); evaluators by role."""
    by_kind: dict[str, list[Any]] = {}
    for r in reg:
        key = r.kind
        if r.kind == "evaluator":
            key = {"set evaluator": "set-evaluator", "per-feature scorer": "scorer",
                   "selector": "selector"}.get(role_of(r.cls), "evaluator")
        by_kind.setdefault(key, []).append(r)
    spec = [("family", "families", "--family"), ("engine", "engines", "--engine"),
            ("set-evaluator", "set evaluators: score a feature set", "--evaluator"),
            ("scorer", "per-feature scorers: one score per feature", "--prune-by"),
            ("selector", "selectors: choose feature indices (Python: metafx.select_features)", ""),
            ("evaluator", "other evaluators", ""), ("describer", "describers: extra meta-features", ""),
            ("dataset", "datasets", "--data")]
    return [(title, opt, by_kind[key]) for key, title, opt in spec if by_kind.get(key)]


def _components_epilog() -> str:
    """The registered families, engines and evaluators with their defaults and providers."""
    try:
        reg = get_registry()
    except MetafxError as e:  # a broken plugin must not hide --help
        return f"(the registered components could not be listed: {e})"
    defaults = {"--family": "pixel-and", "--engine": "mufasa", "--evaluator": "cv-linear-svm",
                "--prune-by": "infogain", "--data": "digits"}
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


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="metafx", description="meta-feature-guided feature extraction")
    logs = argparse.ArgumentParser(add_help=False)
    logs.add_argument("--log-level", default="INFO", type=str.upper, choices=LOG_LEVELS,
                      help="messages of the metafx logger shown on stderr (default INFO: a line every 10 steps "
                           "when no progress bar is shown)")

    p.add_argument("--version", action="version", version=f"metafx {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    pl = sub.add_parser("plugins", help="list registered components by kind and the plugin providing each")
    pl.add_argument("--json", action="store_true", help="machine-readable output")

    s = sub.add_parser("search", help="run a budgeted meta-feature search", parents=[logs],
                       description=textwrap.fill(
                           "Run a budgeted meta-feature search on a registered dataset, test the chosen features "
                           "with a linear SVM on held-out samples, and write the result JSON (then `metafx plot` "
                           "draws it).", 100),
                       epilog=_components_epilog(), formatter_class=argparse.RawDescriptionHelpFormatter)
    d = s.add_argument_group("data")
    d.add_argument("--data", default="digits", help="registered dataset name (digits, mnist, ...); default digits")
    d.add_argument("--data-dir", default=None, help="directory of the dataset files (mnist; else $METAFX_MNIST_DIR)")
    d.add_argument("--n-train", type=int, default=None, help="training images (default: digits 1000, mnist 2000)")
    d.add_argument("--n-test", type=int, default=None, help="held-out test images (default: digits 797, mnist 2000; 0 = none)")
    d.add_argument("--split-seed", type=int, default=0, help="seed of the random train/test split")
    g = s.add_argument_group("search")
    g.add_argument("--family", default="pixel-and", help="feature family (default pixel-and; list below)")
    g.add_argument("--budget", type=_budget, default="auto",
                   help="total cost of the chosen features, or 'auto' (default): the family's default for the data "
                        f"(image families: a budget per pixel; others {DEFAULT_BUDGET:g})")
    g.add_argument("--steps", type=int, default=DEFAULT_STEPS, help=f"search steps J (default {DEFAULT_STEPS})")
    g.add_argument("--engine", default=DEFAULT_ENGINE,
                   help=f"search engine (default {DEFAULT_ENGINE}; mufasa is the thesis's Algorithm 6; list below)")
    g.add_argument("--evaluator", default="cv-linear-svm",
                   help="set evaluator: the search's quality (default cv-linear-svm; list below)")
    g.add_argument("--seed", "--random-state", dest="seed", type=int, default=0,
                   help="seed of the search and of the final classifier (default 0)")
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
    g.add_argument("--n-jobs", type=int, default=1,
                   help="worker processes evaluating candidates at once (-1: every CPU; default 1)")
    g.add_argument("--oversample", type=float, default=1.0,
                   help="draw this many times the budget at each point and keep the best features by --prune-by "
                        "score per cost (default 1: the thesis's plain drawing)")
    g.add_argument("--prune-by", default="infogain", help="per-feature scorer used with --oversample (default infogain)")
    g.add_argument("--reselect", type=int, default=None,
                   help="score the R best steps' sets again on a fresh split and keep the best mean of the two scores "
                        "(default: the engine's, 3 for guided, 1 (off) for the others)")
    g.add_argument("--n-workers", type=int, default=1,
                   help="engine optuna with --storage: processes on this machine (1: this one; k > 1: this one and "
                        "k-1 `metafx worker`s; 0: only create the study, wait for workers and collect)")
    g.add_argument("--sampler", default=None,
                   help="engine optuna: tpe (default), cmaes, gp, random or qmc (same as --engine-param sampler=...)")
    o = s.add_argument_group("output")
    o.add_argument("--out", default=None, help="write the result JSON here")
    o.add_argument("--final-c", default="cv", help="C of the final linear SVM, or 'cv' (default) to choose it on the training part")
    prog = o.add_mutually_exclusive_group()
    prog.add_argument("--progress", dest="progress", action="store_true", default=None,
                      help="always show the progress bar (default: on a terminal; elsewhere log lines)")
    prog.add_argument("--no-progress", dest="progress", action="store_false", help="never show the progress bar")
    w = sub.add_parser("worker", help="join a shared optuna search (created by metafx search --storage --study)",
                       parents=[logs])
    w.add_argument("--storage", required=True, help="the study's optuna storage URL or journal file")
    w.add_argument("--study", required=True, help="the study name")
    w.add_argument("--n-jobs", type=int, default=1, help="trials evaluated at once by this worker (processes)")
    w.add_argument("--data-dir", default=None, help="where the dataset files are on this machine")
    wprog = w.add_mutually_exclusive_group()
    wprog.add_argument("--progress", dest="progress", action="store_true", default=None)
    wprog.add_argument("--no-progress", dest="progress", action="store_false")
    pp = sub.add_parser("plot", help="draw a result's trajectory, meta-feature path and chosen features as PNG files",
                        parents=[logs])
    pp.add_argument("result", help="result JSON written by metafx search --out")
    pp.add_argument("--out", default=None, help="directory of the PNG files (default: beside the JSON)")
    pp.add_argument("--n-features", type=int, default=12,
                    help="features drawn in the feature picture: the best by infogain on the training data "
                         "(default 12)")
    pp.add_argument("--data-dir", default=None, help="where the result's dataset files are on this machine")
    return p


def _training_data(result: SearchResult, data_dir: str | None) -> tuple[Any, Any] | None:
    """The training part of the data a CLI search recorded in ``metadata["data"]``, or None."""
    d = result.metadata.get("data")
    if not isinstance(d, dict) or "name" not in d:
        return None
    params = {} if data_dir is None and "data_dir" not in d else {"data_dir": data_dir or d["data_dir"]}
    try:
        X, y = load_dataset(d["name"], **params)
        tr, _ = split_indices(len(y), int(d["n_train"]), int(d.get("n_test", 0)), int(d.get("split_seed", 0)))
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
            {"kind": r.kind, "role": role_of(r.cls) if r.kind == "evaluator" else r.kind, "name": r.name, "plugin": r.plugin, "distribution": r.distribution,
             "class": f"{r.cls.__module__}.{r.cls.__qualname__}", "summary": r.cls.summary}
            for r in reg
        ], indent=1))
        return 0
    for title, opt, regs in _groups(reg):
        name, _, note = title.partition(": ")
        print(f"{name}:{'  ' + note if note else ''}{f'  [{opt}]' if opt else ''}")
        for r in regs:
            print(f"  {r.name:<20} {r.source:<40} {r.cls.summary}")
    return 0


def _check_out(args: argparse.Namespace) -> None:
    """Refuse an unusable --out before any work (a missing directory, a directory, the storage itself)."""
    if not args.out:
        return
    check_output_path(args.out, "--out")
    sfile = storage_file(args.storage) if args.storage is not None else None
    if sfile is not None:
        for f in (sfile, f"{sfile}.lock"):
            if same_file(args.out, f):
                raise ValidationError(f"--out={args.out!r} is the search's storage {args.storage!r}: writing the "
                                      "result there would destroy it; give another --out")


def _interrupted(args: argparse.Namespace, e: SearchInterrupted) -> int:
    """Ctrl-C: keep what was found (written to --out, marked interrupted) and say how to go on."""
    result = getattr(e, "result", None)
    n = len(result.trajectory) if result is not None else 0
    msg = f"metafx: interrupted after {n} finished step(s)"
    if result is not None and n:
        msg += f", best {result.quality_label} so far {result.best_quality:.4f}"
    print(msg, file=sys.stderr)
    if args.out and result is not None:
        result.metadata["interrupted"] = True
        result.to_json(args.out)
        print(f"metafx: wrote the interrupted result (metadata.interrupted = true) to {args.out}", file=sys.stderr)
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


def _budget(text: str) -> float | str:
    """``--budget``: a number, or ``auto``."""
    if text.strip().lower() == "auto":
        return "auto"
    return float(text)


def _search(args: argparse.Namespace) -> int:
    import numpy as np

    data_params = {}
    if args.data_dir is not None:
        data_params["data_dir"] = args.data_dir
    X, y = load_dataset(args.data, **data_params)
    n_train_d, n_test_d = DATA_DEFAULTS.get(args.data, (len(y) // 2, len(y) - len(y) // 2))
    n_train = args.n_train if args.n_train is not None else n_train_d
    n_test = args.n_test if args.n_test is not None else n_test_d
    tr, te = split_indices(len(y), n_train, n_test, args.split_seed)
    final_c: float | str = args.final_c
    if final_c != "cv":
        try:
            final_c = float(final_c)
        except ValueError:
            raise ValidationError(f"--final-c={args.final_c!r} must be a number or 'cv'") from None
    print(f"data {args.data}: {n_train} training and {n_test} test samples of shape {X.shape[1:]} "
          f"(split seed {args.split_seed})", file=sys.stderr)
    if args.budget == "auto":
        fam = make_component("family", args.family, dict(args.family_param), base=FeatureFamily)
        args.budget = resolve_budget("auto", fam, fam.check_data(X[tr]))
        print(f"budget {args.budget:g} (--budget auto: the {args.family} family's default for this data)",
              file=sys.stderr)
    engine_params = dict(args.engine_param)
    if args.sampler is not None:
        engine_params["sampler"] = args.sampler
    if args.engine == "optuna" and args.storage is not None:  # a study workers can join
        result = _shared_search(args, X[tr], y[tr], n_train, n_test, engine_params, data_params)
    elif args.n_workers != 1:
        raise ValidationError(f"--n-workers={args.n_workers} needs --engine optuna and --storage")
    else:
        result = search(
            X[tr], y[tr], family=args.family, budget=args.budget, steps=args.steps, engine=args.engine,
            evaluator=args.evaluator, seed=args.seed, progress=args.progress, fixed=dict(args.fix),
            family_params=dict(args.family_param), engine_params=engine_params,
            evaluator_params=dict(args.evaluator_param), storage=args.storage, study_name=args.study, n_jobs=args.n_jobs,
            oversample=args.oversample, prune_by=args.prune_by, reselect=args.reselect,
        )
    if result.metadata.get("empty_result"):
        raise ValidationError(
            f"no step of the search drew a usable feature ({len(result.trajectory)} steps, budget {args.budget:g}): "
            "the result would be an empty feature set; nothing was written. Check --budget, --fix, "
            "--family-param and the data")
    result.metadata["data"] = {"name": args.data, "n_train": n_train, "n_test": n_test, "split_seed": args.split_seed,
                               **{k: str(v) for k, v in data_params.items()}}
    if n_test > 0 and result.n_features > 0:
        err, c = test_error(result, X[tr], y[tr], X[te], y[te], C=final_c, random_state=args.seed)
        result.test_error = err
        result.metadata["final_C"] = c
    print(result.summary())
    t = result.metadata.get("timings", {})
    if t:
        print("time: " + ", ".join(f"{k} {v:.2f} s" for k, v in t.items()))
    if args.out:
        result.to_json(args.out)
        print(f"wrote {args.out}")
    np.seterr(all="warn")
    return 0


def _shared_search(args: argparse.Namespace, X, y, n_train: int, n_test: int, engine_params: dict,
                   data_params: dict):
    if args.reselect not in (None, 1):
        raise ValidationError(f"--reselect={args.reselect} is not available with --n-workers (engine optuna keeps its "
                              f"steps in its storage); leave it out")
    spec = ProblemSpec(data=args.data, data_params=data_params, n_train=n_train, n_test=n_test,
                       split_seed=args.split_seed, family=args.family, family_params=dict(args.family_param),
                       fixed=dict(args.fix), budget=args.budget, steps=args.steps, seed=args.seed,
                       evaluator=args.evaluator, evaluator_params=dict(args.evaluator_param),
                       oversample=args.oversample, prune_by=args.prune_by,
                       engine_params=engine_params)
    study = args.study or f"metafx-{args.data}-{args.family}-b{args.budget:g}-s{args.seed}"
    print(f"study {study!r} ({args.n_workers} worker process(es) here)", file=sys.stderr)
    return run_search(spec, args.storage, study, n_workers=args.n_workers, n_jobs=args.n_jobs,
                      progress=args.progress, data=(X, y))


def cmd_worker(args: argparse.Namespace) -> int:
    data_params = {} if args.data_dir is None else {"data_dir": args.data_dir}
    result = run_worker(args.storage, args.study, n_jobs=args.n_jobs, progress=args.progress,
                        data_params=data_params)
    print(f"study {args.study!r} finished: {len(result.trajectory)} trials, best {result.quality_label} {result.best_quality:.4f}")
    return 0


COMMANDS = {"plugins": cmd_plugins, "search": cmd_search, "plot": cmd_plot, "worker": cmd_worker}


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        with log_level(getattr(args, "log_level", None) or "INFO"):
            code = COMMANDS[args.command](args)
            sys.stdout.flush()
            return code
    except MetafxError as e:
        print(f"metafx: error: {e}", file=sys.stderr)
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
