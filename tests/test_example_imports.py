"""The examples use metafx as a user does: only ``metafx`` and ``metafx.plugin`` (and what those expose as
attributes, such as ``metafx.quality_map``), never an internal module (``metafx.loop``, ``metafx.learn``, ...).
Examples are scripts, not a package, so import-linter cannot see them: their imports are read with ``ast``."""

from __future__ import annotations

import ast

import pytest
from conftest import REPO

ALLOWED = {"metafx", "metafx.plugin"}
EXAMPLES = sorted((REPO / "examples").glob("*.py"))


def metafx_imports(path) -> list[str]:
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names if a.name.split(".")[0] == "metafx"]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0 \
                and node.module.split(".")[0] == "metafx":
            out.append(node.module)
    return out


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_an_example_imports_only_the_public_modules(path):
    bad = sorted(set(metafx_imports(path)) - ALLOWED)
    assert not bad, f"{path.name} imports internal modules: {bad}"


def test_the_reader_sees_internal_imports(tmp_path):
    f = tmp_path / "x.py"
    f.write_text("import metafx\nfrom metafx.plugin import hookimpl\ndef f():\n    from metafx.loop.api import search\n")
    assert metafx_imports(f) == ["metafx", "metafx.plugin", "metafx.loop.api"]


def test_the_mnist_example_draws_metafx_partitions(load_example):
    """examples/guided_extraction_mnist.py draws its partitions itself (no internal import): the same indices as
    the command line's split, so the stored protocol records are reproduced."""
    import numpy as np

    from metafx.core.validation import split_indices

    mod = load_example("guided_extraction_mnist")
    for n, n_train, n_test, seed in ((10000, 2000, 2000, 0), (10000, 2000, 2000, 29), (1797, 898, 899, 3), (5, 2, 0, 1)):
        for a, b in zip(mod.partition(n, n_train, n_test, seed), split_indices(n, n_train, n_test, seed), strict=True):
            np.testing.assert_array_equal(a, b)
