"""metafx and the bundled plugin use other libraries through their public names only: no module of
theirs imports a private module (a dotted path with a part starting with ``_``) of a third-party package."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted([*(ROOT / "metafx").rglob("*.py"), *(ROOT / "plugins").rglob("metafx_*/**/*.py")])
OWN = {"metafx", "metafx_tabular"}


def private_imports(source: str) -> list[str]:
    """The third-party modules ``source`` imports that have a private part (``sklearn.svm._liblinear``)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        for name in names:
            parts = name.split(".")
            if parts[0] not in OWN and parts[0] != "__future__" and any(p.startswith("_") for p in parts):
                found.append(name)
    return found


def test_the_check_finds_private_imports():
    src = "from sklearn.svm._liblinear import train_wrap\nimport optuna._imports\nfrom sklearn.svm import LinearSVC\n" \
          "from .._kernels import x\nfrom metafx._kernels import y\nfrom __future__ import annotations\n"
    assert private_imports(src) == ["sklearn.svm._liblinear", "optuna._imports"]


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_private_module_of_another_library(path):
    assert private_imports(path.read_text(encoding="utf-8")) == []
