"""The examples use metafx as a user does: only ``metafx`` and ``metafx.plugin`` (and what those expose as
attributes, such as ``metafx.quality_map``), never an internal module (``metafx.loop``, ``metafx.learn``, ...).
Examples are scripts, not a package, so import-linter cannot see them: their imports are read with ``ast``."""

from __future__ import annotations

import ast

import pytest
from conftest import REPO

ALLOWED = {"metafx", "metafx.plugin"}
EXAMPLES = sorted((REPO / "examples").glob("*.py"))
#: examples that still need a name no public module offers (what they import is listed by the test)
STILL_INTERNAL = {"guided_extraction_mnist.py", "potential_h_criterion.py"}


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
    if path.name in STILL_INTERNAL:
        assert bad, f"{path.name} imports only public modules now: take it off STILL_INTERNAL"
        pytest.xfail(f"{path.name} still imports {bad}")
    assert not bad, f"{path.name} imports internal modules: {bad}"


def test_the_reader_sees_internal_imports(tmp_path):
    f = tmp_path / "x.py"
    f.write_text("import metafx\nfrom metafx.plugin import hookimpl\ndef f():\n    from metafx.loop.api import search\n")
    assert metafx_imports(f) == ["metafx", "metafx.plugin", "metafx.loop.api"]
