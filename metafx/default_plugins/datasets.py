"""Built-in datasets: ``digits`` (bundled with scikit-learn) and ``mnist`` (IDX files)."""

from __future__ import annotations

import os
from typing import Any, ClassVar

import numpy as np

from ..core.base import Dataset
from ..core.datafiles import load_digits_binary, load_mnist
from ..core.params import InstanceOf, Interval, Options
from ..hooks.spec import hookimpl


class DigitsDataset(Dataset):
    """scikit-learn's 1797 8x8 digits, binarized as ``value >= threshold`` (0-16, default 8)."""

    name = "digits"
    summary = "scikit-learn's bundled 8x8 digits, binarized (no download)"

    #: the grey levels before binarization: a result searched on them binarizes new images of this range
    value_range = (0.0, 16.0)

    def __init__(self, threshold: int = 8) -> None:
        self.threshold = threshold

    #: ``None``: the grey levels 0-16 as they are
    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {"threshold": [Interval("real", 0, 16, closed="right"), None]}

    def load(self) -> tuple[np.ndarray, np.ndarray]:
        return load_digits_binary(self.threshold)


class MnistDataset(Dataset):
    """MNIST from IDX files in ``data_dir`` or ``$METAFX_MNIST_DIR``, binarized as ``value >= threshold``."""

    name = "mnist"
    summary = "MNIST IDX files from data_dir or $METAFX_MNIST_DIR, binarized at 128"

    #: the grey levels before binarization: a result searched on them binarizes new images of this range
    value_range = (0.0, 255.0)

    def __init__(self, data_dir: Any = None, part: str = "t10k", threshold: int = 128) -> None:
        self.data_dir = data_dir
        self.part = part
        self.threshold = threshold

    #: ``threshold=None``: the grey levels 0-255 as they are
    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "data_dir": [InstanceOf((str, os.PathLike), "a directory (str or path)"), None],
        "part": [Options("t10k", "train")],
        "threshold": [Interval("real", 0, 255, closed="right"), None],
    }

    def load(self) -> tuple[np.ndarray, np.ndarray]:
        return load_mnist(self.data_dir, part=self.part, threshold=self.threshold)


@hookimpl
def metafx_register_datasets(register):
    register(DigitsDataset)
    register(MnistDataset)
