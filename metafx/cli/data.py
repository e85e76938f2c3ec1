"""The data of the commands: a search's training and held-out parts (a data file or a registered dataset),
the new data of ``metafx transform`` / ``predict``, a result's training data for ``metafx plot``; each refusal
names its option."""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.binarization import BINARY, InputRule
from ..core.exceptions import MetafxError, UnknownComponentError, ValidationError
from ..core.userdata import TABLE_SUFFIXES, DataFile, binarize, read_data
from ..core.validation import split_indices
from ..hooks.manager import get_registry
from ..loop.checks import data_record
from ..loop.components import load_dataset, make_component
from ..loop.result import SearchResult

DATA_DEFAULTS = {"digits": (1000, 797), "mnist": (2000, 2000)}


DEFAULT_TEST_SIZE = 0.25


CLI_NAMES = {"labels": "--labels ", "target": "--target ", "threshold": "--threshold ",
             "images": 'pip install "metafx[images]"', "tabular": 'pip install "metafx[tabular]"'}


TABULAR_PLUGIN_HINT = ("the tabular family comes with the metafx-tabular plugin: pip install ./plugins/metafx-tabular "
                       "(from a metafx checkout)")


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
