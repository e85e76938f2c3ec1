"""How the plugin's modules fit together: every name has one import path, no module is over 700 lines, and the
plugin imports only public names of ``metafx.plugin`` (plus the transformer ``TableExtractor`` extends)."""

from __future__ import annotations

import ast
from pathlib import Path

import metafx.plugin
import metafx_tabular
import metafx_tabular.family as family
from metafx_tabular import batch, drawing, expressions, metafeatures, params, screen, shapes, values

#: the modules family.py was split into, and names each defines (imported from there: family.py exports only
#: TabularFamily)
MODULES = {
    expressions: ["MAX_ARITY", "MAX_DEPTH", "SYMMETRIC", "COMMUTATIVE", "expr_columns", "expr_depth", "expr_ops",
                  "_structure", "_check_expr", "_level_codes"],
    shapes: ["tree_shapes", "_shape_ops"],
    batch: ["TabularBatch", "TableValues"],
    drawing: ["draw_point", "build", "project", "draw_columns"],
    screen: ["relevance", "screened_set", "SCREEN_REDUNDANT", "RANK_WEIGHT", "_Candidates"],
    metafeatures: ["space", "describe", "feature_names", "group_starts"],
    values: ["batch_values", "design_matrix", "MAX_ONEHOT"],
    params: ["PARAMETER_CONSTRAINTS", "check_learned"],
}
#: what the plugin takes from `metafx` itself: the user-facing transformer and its result (not in metafx.plugin)
FROM_METAFX = {"MetaFeatureExtractor", "SearchResult"}
#: most lines of a module of the plugin (a room a person can hold)
MAX_LINES = 700


def test_every_name_has_one_import_path():
    for module, names in MODULES.items():
        for name in names:
            obj = getattr(module, name)
            assert getattr(obj, "__module__", module.__name__) == module.__name__, (module.__name__, name)
    assert family.__all__ == ["TabularFamily"]
    assert metafx_tabular.TabularFamily is family.TabularFamily
    assert metafx_tabular.TabularBatch is batch.TabularBatch


def test_no_module_of_the_plugin_is_too_long_to_hold():
    for path in sorted(Path(metafx_tabular.__file__).parent.glob("*.py")):
        assert len(path.read_text().splitlines()) < MAX_LINES, path.name


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
