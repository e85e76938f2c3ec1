"""The API reference lists every public name: it is generated from the modules' ``__all__`` (docs/_ext/apiref.py)."""

from __future__ import annotations

import importlib
import re
import sys

from conftest import REPO

sys.path.insert(0, str(REPO / "docs" / "_ext"))
import apiref


def _documented(text: str) -> set[str]:
    """Names a reference page documents: autosummary entries, hand-written pages and the links of shared names."""
    names = set(re.findall(r"^   (\w+)$", text, flags=re.M))                # autosummary entries
    names |= set(re.findall(r"^\* :(?:doc|py:data):`([\w.]+)", text, flags=re.M))
    names |= set(re.findall(r"^\* ``([\w.]+)``: :py:obj:", text, flags=re.M))
    return {n.rsplit(".", 1)[-1] for n in names}


def test_every_public_name_is_in_the_api_reference(tmp_path):
    apiref.write_pages(tmp_path)
    for module in ("metafx", "metafx.plugin", "metafx.testing", "metafx_tabular"):
        assert module in apiref.MODULES
        text = (tmp_path / f"{module}.rst").read_text()
        missing = set(importlib.import_module(module).__all__) - _documented(text)
        assert not missing, f"{module}: not in the API reference: {sorted(missing)}"


def test_shared_names_link_to_one_page(tmp_path):
    apiref.write_pages(tmp_path)
    text = (tmp_path / "metafx.plugin.rst").read_text()
    assert "* ``metafx.plugin.ValidationError``: :py:obj:`metafx.ValidationError`" in text
    # metafx.plugin's own names (not in metafx) get their own pages
    assert re.search(r"^   SearchProblem$", text, flags=re.M)


def test_modules_and_data_get_pages(tmp_path):
    apiref.write_pages(tmp_path)
    page = (tmp_path / "more" / "metafx.bounds.rst").read_text()
    assert ".. automodule:: metafx.learn.bounds" in page
    assert (tmp_path / "more" / "metafx.__version__.rst").exists()


def test_the_reference_is_in_the_site():
    index = (REPO / "docs" / "index.md").read_text()
    api = (REPO / "docs" / "api.md").read_text()
    assert re.search(r"^api$", index, flags=re.M)
    for module in apiref.MODULES:
        assert f"api/{module}" in api
