"""The API reference, generated from the ``__all__`` of each public module at every build.

A name added to ``__all__`` gets its page without anyone editing the documentation; a name that cannot be imported
or documented fails the strict build.  ``tests/test_docs_api.py`` checks that every name is listed.
"""

from __future__ import annotations

import importlib
import inspect
import types
from pathlib import Path

# the public modules, in the order of the reference, with one line on who reads them
MODULES = {
    "metafx": "Searching, results, scoring and selection, the scikit-learn transformer, datasets and plots.",
    "metafx.plugin": "Everything a plugin author needs: base classes, the registry, the search loop, validators.",
    "metafx.testing": "Conformance test classes a plugin's test suite subclasses.",
    "metafx_tabular": "The tabular plugin (features from table columns), installed from ``plugins/metafx-tabular``.",
}


def kind(obj) -> str:
    """``module``, ``class``, ``function`` or ``data``: which autosummary template documents ``obj``."""
    if isinstance(obj, types.ModuleType):
        return "module"
    if inspect.isclass(obj):
        return "class"
    if callable(obj):
        return "function"
    return "data"


def public_names(module: str) -> list[str]:
    return list(importlib.import_module(module).__all__)


def owner(module: str, name: str) -> str | None:
    """The module of the reference that documents ``module.name`` when it is the same object (``metafx.plugin``
    re-exports many of ``metafx``'s names: they get one page, linked from both lists)."""
    obj = getattr(importlib.import_module(module), name)
    for other in MODULES:
        if other == module:
            return None
        mod = importlib.import_module(other)
        if name in mod.__all__ and getattr(mod, name) is obj:
            return other
    return None


def page(module: str) -> tuple[str, dict[str, str]]:
    """The reStructuredText of ``module``'s reference page, and the pages it writes itself (modules and data, by
    file name).  Classes and functions: one autosummary table per kind, each entry its own page."""
    title = f"``{module}``"
    lines = [f".. _api-{module}:", "", title, "=" * len(title), "", MODULES[module], "",
             f".. currentmodule:: {module}", ""]
    groups: dict[str, list[str]] = {"class": [], "function": [], "module": [], "data": []}
    shared: list[tuple[str, str]] = []
    mod = importlib.import_module(module)
    for name in public_names(module):
        first = owner(module, name)
        if first is not None:
            shared.append((name, first))
        else:
            groups[kind(getattr(mod, name))].append(name)
    extra: dict[str, str] = {}
    heads = {"class": "Classes", "function": "Functions", "module": "Modules", "data": "Data"}
    for k, names in groups.items():
        if not names:
            continue
        names = sorted(names, key=str.lower)
        lines += [heads[k], "-" * len(heads[k]), ""]
        if k in ("class", "function"):
            lines += [".. autosummary::", "   :toctree: generated", f"   :template: autosummary/{k}.rst", "",
                      *[f"   {n}" for n in names], ""]
            continue
        lines += [".. toctree::", "   :hidden:", "", *[f"   more/{module}.{n}" for n in names], ""]
        for n in names:
            obj = getattr(mod, n)
            full = f"{module}.{n}"
            head = f"``{full}``"
            if k == "module":
                summary = (inspect.getdoc(obj) or "").strip().split("\n\n")[0].replace("\n", " ")
                lines.append(f"* :doc:`{full} <more/{full}>`: {summary}")
                body = [head, "=" * len(head), ""]
                if obj.__name__ != full:
                    body += [f"The module ``{obj.__name__}``, imported as ``{full}``.", ""]
                body += [f".. automodule:: {obj.__name__}", "   :members:", ""]
            else:
                value = repr(obj) if not isinstance(obj, dict) else f"dict of {len(obj)}: {', '.join(map(str, obj))}"
                lines.append(f"* :py:data:`{full}`: ``{type(obj).__name__}``")
                body = [head, "=" * len(head), "", f".. py:data:: {full}", f"   :type: {type(obj).__name__}", "",
                        "   ::", "", f"      {value}", ""]
            extra[full] = "\n".join(body)
        lines.append("")
    if shared:
        head = "Shared with other modules"
        lines += [head, "-" * len(head), "",
                  "These names are the same objects as the ones documented on the linked pages.", ""]
        lines += [f"* ``{module}.{n}``: :py:obj:`{first}.{n}`" for n, first in shared]
        lines.append("")
    return "\n".join(lines), extra


def _write(path: Path, text: str) -> None:
    if not path.exists() or path.read_text() != text:  # unchanged files keep their time: no needless rebuild
        path.write_text(text)


def write_pages(outdir: Path) -> list[Path]:
    (outdir / "more").mkdir(parents=True, exist_ok=True)
    written = []
    for module in MODULES:
        text, extra = page(module)
        _write(outdir / f"{module}.rst", text)
        written.append(outdir / f"{module}.rst")
        for name, body in extra.items():
            _write(outdir / "more" / f"{name}.rst", body)
            written.append(outdir / "more" / f"{name}.rst")
    return written


def _generate(app, config) -> None:
    write_pages(Path(app.srcdir) / "api")


def setup(app):
    app.connect("config-inited", _generate)  # before the sources are listed and autosummary reads them
    return {"parallel_read_safe": True, "parallel_write_safe": True}
