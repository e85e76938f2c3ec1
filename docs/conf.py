"""Sphinx configuration of the metafx documentation (``python -m sphinx -n -W --keep-going -b html docs OUT``).

The build is strict (``-n``: every cross-reference must resolve, ``-W``: a warning fails it; CI runs it so).
References inside metafx resolve against its own pages.  References to other libraries resolve through the
intersphinx inventories kept in ``_intersphinx/`` (the build reaches no documentation site; where they came from:
``_intersphinx/README.md``); those of libraries whose inventory could not be had are ignored by the explicit
patterns of ``nitpick_ignore_regex`` below, each with its reason.
"""

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
    "sphinx.ext.intersphinx",
    "sphinx.ext.viewcode",  # a [source] link beside every documented object, to its highlighted module
    "sphinx_design",  # the landing page's cards
    "myst_parser",
    "apiref",
]

# -- cross-references -----------------------------------------------------------------------------------------------
nitpicky = True
# other projects' inventories, kept beside the docs (no download at build time): python 3.11's and scikit-learn
# 1.2's, from Debian's python3.11-doc and python-sklearn-doc packages (_intersphinx/README.md)
INVENTORIES = HERE / "_intersphinx"
intersphinx_mapping = {
    "python": ("https://docs.python.org/3.11/", str(INVENTORIES / "python-3.11.inv")),
    "sklearn": ("https://scikit-learn.org/1.2/", str(INVENTORIES / "scikit-learn-1.2.inv")),
}
# libraries whose inventory is not kept here (none could be had without a download): their names stay plain text
nitpick_ignore_regex = [
    (r"py:.*", r"(numpy|np)(\..+)?"),  # numpy: no packaged inventory on these machines
    (r"py:.*", r"(optuna|pandas|pd|matplotlib|scipy|joblib|pluggy|numba|dask|sqlalchemy)(\..+)?"),  # likewise
    # an array's shape in a parameter's type ("ndarray of shape (n_samples, n_features)"): napoleon splits it at its
    # commas, and no Python name holds a parenthesis or a bracket
    (r"py:class", r".*[()\[\]].*"),
    # a literal value in a type ('"table"'), never a name
    (r"py:class", r'".*"'),
    # type variables of generic signatures (FeatureFamily[BatchT], Register.add -> C): they have no page
    (r"py:(class|obj)", r"metafx\.(core\.base\.(BatchT|FamilyT|ComponentT)|hooks\.registry\.C)"),
    # pluggy's own docstrings of hookimpl and hookspec (the pluggy objects metafx.plugin re-exports)
    (r"py:(class|meth)", r"(PluginManager(\..+)?|_F)"),
    # "Returns: self" of scikit-learn's convention
    (r"py:class", r"self"),
    # internal classes that public signatures and base classes name, but that are not public (no page of their own)
    (r"py:class", r"(metafx\.core\.base\.Params|metafx\.core\.params\.Constraint|(metafx\.hooks\.registry\.)?Registry"
                  r"|metafx\.learn\.compression\.Condensed|metafx\.storage\.store\.StepStore|metafx_tabular\.frame\.EncodedTable"
                  r"|metafx\.core\.binarization\.InputRule)"),
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "**/.ipynb_checkpoints", "_intersphinx"]
templates_path = ["_templates"]

# MyST: headings get anchors for links like engines.md#resume-nothing-lost
myst_heading_anchors = 4
myst_enable_extensions = ["colon_fence", "deflist"]
suppress_warnings = ["myst.header"]  # research pages start at a level-2 heading after an included title

# numpydoc-style docstrings, read by napoleon
napoleon_google_docstring = False
napoleon_numpy_docstring = True
napoleon_use_rtype = False
napoleon_preprocess_types = True  # 'int, optional', 'default 1': not references
# the informal names of types in the docstrings, as references
napoleon_type_aliases = {
    "ndarray": "numpy.ndarray",
    "array": "numpy.ndarray",
    "arrays": "numpy.ndarray",
    "sequence": ":term:`python:sequence`",
    "callable": ":term:`python:callable`",
    "callables": ":term:`python:callable`",
    "floats": "float",
    "path-like": ":class:`os.PathLike`",
    "array-like": ":term:`sklearn:array-like`",
    "scikit-learn regressor": ":term:`scikit-learn regressor <sklearn:regressor>`",
    "fitted regressor": ":term:`fitted <sklearn:fitted>` :term:`sklearn:regressor`",
    "fitted estimator": ":term:`fitted <sklearn:fitted>` :term:`sklearn:estimator`",
    # metafx's own names, as a reader writes them in a type
    "FeatureScorer subclass": ":class:`~metafx.plugin.FeatureScorer` subclass",
    "batch": ":class:`batch <metafx.plugin.FeatureBatch>`",
    "specifications": ":class:`specifications <metafx.plugin.FeatureBatch>`",
}
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
# the repository: pyproject.toml's [project.urls] "Repository" when it names one; else the site's own index of the
# highlighted sources (sphinx.ext.viewcode), so the link never points to an address nobody wrote down
try:
    import tomllib

    _urls = tomllib.loads((ROOT / "pyproject.toml").read_text()).get("project", {}).get("urls", {})
except ModuleNotFoundError:  # Python 3.10: no tomllib, no repository address
    _urls = {}
html_context = {"repository_url": _urls.get("Repository", "")}
html_theme_options = {
    "navbar_end": ["theme-switcher", "navbar-icon-links", "repository-link"],  # _templates/repository-link.html
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
}
html_static_path: list[str] = []


def _skip_metadata_requests(app, what, name, obj, skip, options):
    """scikit-learn's generated ``set_*_request`` methods of an estimator: not metafx's API (their docstrings link
    scikit-learn's pages by labels no inventory here holds)."""
    if name.startswith("set_") and name.endswith("_request"):
        return True
    return None


def setup(app):
    app.connect("autodoc-skip-member", _skip_metadata_requests)
