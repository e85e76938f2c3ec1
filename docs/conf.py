"""Sphinx configuration of the metafx documentation (``python -m sphinx -W --keep-going -b html docs OUT``)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE / "_ext"))
# the sources, not an installed copy, are documented; the tabular plugin lives in its own distribution
for p in (ROOT / "plugins" / "metafx-tabular", ROOT):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))
os.environ.setdefault("MPLBACKEND", "Agg")

import metafx  # noqa: E402

project = "metafx"
author = "the metafx authors"
copyright = "the metafx authors"
release = metafx.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.napoleon",
    "myst_parser",
    "apiref",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "**/.ipynb_checkpoints"]
templates_path = ["_templates"]

# MyST: headings get anchors for links like engines.md#resume-nothing-lost
myst_heading_anchors = 4
myst_enable_extensions = ["colon_fence", "deflist"]
suppress_warnings = ["myst.header"]  # research pages start at a level-2 heading after an included title

# numpydoc-style docstrings, read by napoleon
napoleon_google_docstring = False
napoleon_numpy_docstring = True
napoleon_use_rtype = False
napoleon_use_ivar = True  # dataclass fields: documented once, by autodoc
autosummary_generate = True
autosummary_imported_members = True
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_typehints_format = "short"
autodoc_default_options = {"undoc-members": False}
add_module_names = False

html_theme = "pydata_sphinx_theme"
html_title = f"metafx {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
}
html_static_path: list[str] = []
