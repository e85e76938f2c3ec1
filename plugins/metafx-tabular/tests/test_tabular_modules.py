"""How the plugin's modules fit together: names moved out of ``family.py`` keep their old import path, and the
plugin imports only public names of ``metafx.plugin`` (plus the transformer ``TableExtractor`` extends)."""

from __future__ import annotations

import ast
from pathlib import Path

import metafx.plugin
import metafx_tabular
import metafx_tabular.family as family
from metafx_tabular import batch, expressions, shapes

#: names defined in family.py before it was split, importable from there still
MOVED = {
    expressions: ["MAX_ARITY", "MAX_DEPTH", "SYMMETRIC", "COMMUTATIVE", "expr_columns", "expr_depth", "expr_ops",
                  "_structure", "_check_expr", "_level_codes"],
    shapes: ["tree_shapes", "_shape_ops"],
    batch: ["TabularBatch", "TableValues"],
}
#: what the plugin takes from `metafx` itself: the user-facing transformer and its result (not in metafx.plugin)
FROM_METAFX = {"MetaFeatureExtractor", "SearchResult"}


def test_moved_names_keep_their_old_import_path():
    for module, names in MOVED.items():
        for name in names:
            assert getattr(family, name) is getattr(module, name), (module.__name__, name)
    assert set(family.__all__) == {"TabularFamily", "TabularBatch", "TableValues", "expr_columns", "expr_depth",
                                   "expr_ops"}
    assert family.TableValues.__module__ == "metafx_tabular.batch"


def test_the_plugin_imports_only_public_names_of_metafx_plugin():
    public = set(metafx.plugin.__all__)
    for path in sorted(Path(metafx_tabular.__file__).parent.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                assert all(a.name == "metafx.plugin" or not a.name.startswith("metafx")
                           or a.name.startswith("metafx_tabular") for a in node.names), (path.name, ast.dump(node))
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module \
                    and (node.module == "metafx" or node.module.startswith("metafx.")):
                names = {a.name for a in node.names}
                if node.module == "metafx.plugin":
                    assert names <= public, (path.name, sorted(names - public))
                else:
                    assert node.module == "metafx" and names <= FROM_METAFX, (path.name, node.module, sorted(names))
