"""Shared fixtures."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

import metafx

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


@pytest.fixture(scope="module")
def pairs(digits):
    """``pairs(a, b)``: the digits of classes ``a`` and ``b`` (a two-class task; related tasks for warm starts)."""
    X, y = digits

    def task(a, b):
        m = (y == a) | (y == b)
        return X[m], y[m]

    return task


@pytest.fixture(scope="module")
def sources(pairs):
    """Two short searches on related digit pairs, the warm start of the warm-start tests (n_init=2,
    portfolio_every=2: model steps and portfolio steps within 6 steps)."""
    return [metafx.search(*pairs(a, b), budget=30, steps=6, seed=s, progress=False,
                          engine_params={"n_init": 2, "portfolio_every": 2, "n_pool": 200})
            for s, (a, b) in enumerate([(2, 3), (4, 5)])]


@pytest.fixture(scope="module")
def digits120(digits):
    """The first 120 digits: small enough for searches of a few steps."""
    X, y = digits
    return X[:120], y[:120]


@pytest.fixture(scope="module")
def digits120_result(digits120):
    """A three-step search on :func:`digits120` (budget 20, seed 1)."""
    X, y = digits120
    return metafx.search(X, y, budget=20, steps=3, seed=1, progress=False)


@pytest.fixture(scope="session")
def wine_csv(tmp_path_factory) -> Path:
    """scikit-learn's wine table as a CSV file, its classes as strings in the column ``kind`` (skips without the
    ``tabular`` plugin, which reads tables)."""
    pytest.importorskip("metafx_tabular")
    from sklearn.datasets import load_wine

    df = load_wine(as_frame=True).frame
    df["kind"] = np.array(["barolo", "grignolino", "barbera"])[df.pop("target")]
    path = tmp_path_factory.mktemp("wine") / "wine.csv"
    df.to_csv(path, index=False)
    return path


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


@pytest.fixture(scope="session")
def load_example():
    """``load_example(name)``: the script ``examples/<name>.py`` as a module (its own folder importable)."""
    import importlib.util
    import sys

    def load(name: str):
        sys.path.insert(0, str(EXAMPLES))
        try:
            spec = importlib.util.spec_from_file_location(f"_example_{name}", EXAMPLES / f"{name}.py")
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
            return mod
        finally:
            sys.path.remove(str(EXAMPLES))

    return load



@pytest.fixture(autouse=True)
def _default_results_in_tmp(monkeypatch, tmp_path_factory):
    """`metafx search` without --out writes metafx-result-DATE-TIME.json into the working directory: in a test
    that has not moved to a temporary directory, into one (never into the checkout)."""
    import metafx.cli.search as cli

    original = cli._default_out
    base = str(tmp_path_factory.getbasetemp())

    def default_out(now=None):
        name = original(now)
        if os.path.abspath(name).startswith(base):
            return name
        return str(tmp_path_factory.mktemp("results") / os.path.basename(name))

    monkeypatch.setattr(cli, "_default_out", default_out)
