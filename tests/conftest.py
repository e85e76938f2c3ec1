"""Shared fixtures."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[1]


def mnist_dir() -> Path | None:
    """The MNIST directory: $METAFX_MNIST_DIR, else ../shared/data/mnist beside the checkout."""
    env = os.environ.get("METAFX_MNIST_DIR")
    for cand in ([Path(env)] if env else []) + [REPO.parent / "shared" / "data" / "mnist"]:
        if (cand / "t10k-images-idx3-ubyte.gz").exists() or (cand / "t10k-images-idx3-ubyte").exists():
            return cand
    return None


@pytest.fixture(scope="session")
def mnist_path() -> Path:
    d = mnist_dir()
    if d is None:
        pytest.skip("MNIST files not found: set METAFX_MNIST_DIR or place them in ../shared/data/mnist")
    return d


@pytest.fixture(scope="session")
def mnist(mnist_path):
    import metafx

    return metafx.load_dataset("mnist", data_dir=str(mnist_path))


@pytest.fixture(scope="session")
def digits():
    import metafx

    return metafx.load_dataset("digits")


@pytest.fixture
def rng():
    return np.random.default_rng(12345)
