"""The Python examples of the documentation's guide pages run.

Every ```python block of a page runs, in order, in one namespace per page (as a reader would type them), in a
temporary directory.  A block whose first line is a comment starting with ``# not run`` says why it is not run
here (a Dask cluster, a database); the others must run.
"""

from __future__ import annotations

import re
import textwrap

import matplotlib
import pytest
from conftest import REPO

DOCS = REPO / "docs"
# the guide pages whose examples run (docs/plugins.md's run in tests/test_docs_plugins.py)
PAGES = ["getting_started.md", "guide/families.md", "guide/budget.md", "guide/transfer.md", "guide/sklearn.md",
         "guide/resume.md", "guide/cli.md", "engines.md", "evaluators.md", "quality_map.md"]


def python_blocks(text: str) -> list[str]:
    """The ```python blocks of a Markdown text, dedented (a block may sit inside a list item)."""
    return [textwrap.dedent(body) for _, body in
            re.findall(r"^( *)```python\n(.*?)^\1```", text, flags=re.S | re.M)]


def test_blocks_are_found():
    assert python_blocks("a\n```python\nx = 1\n```\n  ```python\n  y = 2\n  ```\n") == ["x = 1\n", "y = 2\n"]


def test_every_guide_page_is_listed():
    """A new guide page's examples are run too: every page of docs/guide is in PAGES."""
    assert {f"guide/{p.name}" for p in (DOCS / "guide").glob("*.md")} <= set(PAGES)


@pytest.mark.parametrize("page", PAGES)
def test_page_examples_run(page, tmp_path, monkeypatch):
    matplotlib.use("Agg")
    monkeypatch.chdir(tmp_path)
    blocks = [b for b in python_blocks((DOCS / page).read_text()) if not b.startswith("# not run")]
    namespace = {"__name__": f"docs_{page}"}
    for i, block in enumerate(blocks):
        try:
            exec(compile(block, f"docs/{page}, example {i + 1}", "exec"), namespace)
        except Exception as exc:  # name the block, not only the line
            raise AssertionError(f"docs/{page}, example {i + 1} fails: {exc!r}\n{block}") from exc
