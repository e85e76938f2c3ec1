"""The documentation site: its landing page's example prints what the page shows, every page is listed once, the
strict cross-reference build is the one CI runs, and the inventories it links through are the ones kept beside it."""

from __future__ import annotations

import re

from conftest import REPO

DOCS = REPO / "docs"


def _blocks(text: str, lang: str) -> list[str]:
    return re.findall(rf"^```{lang}\n(.*?)^```", text, flags=re.S | re.M)


def _toctree_entries(text: str) -> list[str]:
    entries = []
    for body in re.findall(r"^```\{toctree\}\n(.*?)^```", text, flags=re.S | re.M):
        entries += [line.strip() for line in body.splitlines() if line.strip() and not line.startswith(":")]
    return entries


def test_landing_page_example_prints_what_it_shows(tmp_path, monkeypatch, capsys):
    text = (DOCS / "index.md").read_text()
    code, shown = _blocks(text, "python")[0], _blocks(text, "text")[1]  # text block 0: the install lines
    assert "pip install ." in _blocks(text, "text")[0]
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "docs/index.md", "exec"), {"__name__": "docs_index"})
    assert capsys.readouterr().out.strip() == shown.strip(), "docs/index.md's example prints something else now"


def test_landing_page_has_cards_to_the_guide_api_and_results():
    text = (DOCS / "index.md").read_text()
    links = re.findall(r"^:link: (\S+)$", text, flags=re.M)
    for target in ("getting_started", "guide/families", "api", "results/index"):
        assert target in links, target
        assert (DOCS / f"{target}.md").exists()


def test_every_results_page_is_listed_once():
    """The Results section lists each page once (a glob toctree beside the explicit one listed every page twice)."""
    index = (DOCS / "results" / "index.md").read_text()
    assert ":glob:" not in index
    entries = _toctree_entries(index)
    pages = sorted(p.stem for p in (DOCS / "results").glob("*.md") if p.stem != "index")
    assert sorted(entries) == pages, "docs/results/index.md's toctree must list every results page exactly once"


def test_every_page_is_listed_once_in_the_site():
    entries = _toctree_entries((DOCS / "index.md").read_text())
    assert len(entries) == len(set(entries))


def test_ci_builds_the_docs_strictly():
    ci = (REPO / ".ci" / "run").read_text()
    assert re.search(r"^python -m sphinx -n -W --keep-going .*-b html docs ", ci, flags=re.M)


def test_intersphinx_inventories_are_kept_beside_the_docs():
    """Every inventory docs/conf.py links through is a file in docs/_intersphinx (the build downloads nothing), and
    each is a Sphinx inventory that names the objects the docs link to."""
    import importlib.util
    import posixpath

    from sphinx.util.inventory import InventoryFile

    spec = importlib.util.spec_from_file_location("docs_conf", DOCS / "conf.py")
    conf = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(conf)
    assert conf.nitpicky
    expect = {"python": "os.PathLike", "sklearn": "sklearn.svm.LinearSVC"}
    for name, (url, inv) in conf.intersphinx_mapping.items():
        assert url.startswith("https://")
        path = DOCS / "_intersphinx" / inv.rsplit("/", 1)[-1]
        assert str(path) == inv and path.exists(), inv
        with open(path, "rb") as f:
            data = InventoryFile.load(f, url, posixpath.join)
        found = {n for typ, objs in data.items() if typ.startswith("py:") for n in objs}
        assert expect[name] in found, (name, expect[name])
