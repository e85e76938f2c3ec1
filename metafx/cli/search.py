"""``metafx search`` (a budgeted search on the data, its held-out test, the result JSON; resumed from
``--storage``) and ``metafx worker`` (joins a shared optuna search)."""

from __future__ import annotations

import argparse
import inspect
import os
import re
import sys
import time
from pathlib import Path
from typing import Any

from ..core.base import FeatureFamily
from ..core.exceptions import MetafxError, UnknownComponentError, ValidationError
from ..core.files import check_output_path
from ..core.userdata import MANY_LEVELS, TABLE_SUFFIXES, looks_like_path
from ..distributed import ProblemSpec, run_shared_search, run_worker
from ..hooks.manager import get_registry
from ..loop.api import resolve_budget, resolve_steps, search
from ..loop.checks import check_fixed
from ..loop.components import make_component
from ..loop.loop import SearchInterrupted
from ..loop.result import SearchResult
from ..storage.files import check_not_an_input, same_file, storage_file
from ..storage.store import storage_kind
from ..storage.study import check_storage_options
from .data import (
    TABULAR_PLUGIN_HINT,
    _check_two_labels,
    _Data,
    _file_data,
    _is_image_family,
    _registered_data,
    family_class,
)
from .options import _cli_words


def cmd_search(args: argparse.Namespace) -> int:
    _check_out(args)
    try:
        return _search(args)
    except SearchInterrupted as e:
        return _interrupted(args, e)


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


def _default_out(now: float | None = None) -> str:
    """``metafx-result-YYYYmmdd-HHMMSS.json`` in the working directory, with -2, -3, ... if it exists."""
    stem = time.strftime("metafx-result-%Y%m%d-%H%M%S", time.localtime(now))
    name, k = f"{stem}.json", 1
    while os.path.exists(name):
        k += 1
        name = f"{stem}-{k}.json"
    return name


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
    if args.steps != "auto" and args.steps < 1:
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
        except Exception:  # any family's own error here only means: checked after the data
            space = None
        if space is not None:
            try:
                space.with_fixed(check_fixed(space, dict(args.fix)))
            except ValidationError as e:
                words = _cli_words(str(e))
                raise ValidationError(words if words.startswith("--fix") else f"--fix: {words}") from None


def _engine_params(args: argparse.Namespace) -> dict[str, Any]:
    """``--engine-param``s, and ``--sampler`` as the engine's ``sampler`` (refused by an engine without one)."""
    engine_params = dict(args.engine_param)
    if args.sampler is not None:
        eng = get_registry().get("engine", args.engine)
        if "sampler" not in inspect.signature(eng).parameters:
            raise ValidationError(f"--sampler {args.sampler} is a parameter of engine optuna, not of --engine "
                                  f"{args.engine}: add --engine optuna")
        engine_params["sampler"] = args.sampler
    return engine_params


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
    engine_params = _engine_params(args)
    evaluator = args.evaluator or getattr(cls, "default_evaluator", None) or "cv-linear-svm"
    _check_arguments(args, cls, from_file, evaluator, engine_params)
    data = _file_data(args, cls) if from_file else _registered_data(args)
    print(data.line, file=sys.stderr)
    if from_file:
        _check_two_labels(args, data.y_train, data.meta.get("classes"))
    if "auto" in (args.budget, args.steps):  # the family's defaults for this data (one family, one check)
        fam = make_component("family", args.family, dict(args.family_param), base=FeatureFamily)
        checked = fam.check_data(data.X_train)
        if args.budget == "auto":
            args.budget = resolve_budget("auto", fam, checked)
            print(f"budget {args.budget:g} (--budget auto: the {args.family} family's default for this data)",
                  file=sys.stderr)
        if args.steps == "auto":
            args.steps = resolve_steps("auto", fam, checked)
            print(f"steps {args.steps} (--steps auto: the {args.family} family's default)", file=sys.stderr)
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


def cmd_worker(args: argparse.Namespace) -> int:
    data_params = {} if args.data_dir is None else {"data_dir": args.data_dir}
    result = run_worker(args.storage, args.study, n_jobs=args.n_jobs, progress=args.progress,
                        data_params=data_params)
    print(f"study {args.study!r} finished: {len(result.trajectory)} trials, best {result.quality_label} {result.best_quality:.4f}")
    return 0
