"""The package's imports point one way: no import cycle among the modules of metafx/, and no module imports
another inside a function (lazy imports are for optional third-party packages only)."""

from __future__ import annotations

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parents[1] / "metafx"


def _graph():
    mods = {}
    for p in PKG.rglob("*.py"):
        rel = p.relative_to(PKG.parent).with_suffix("")
        name = ".".join(rel.parts)
        mods[name[: -len(".__init__")] if name.endswith(".__init__") else name] = p
    edges, inner = {m: set() for m in mods}, []
    for m, p in mods.items():
        tree = ast.parse(p.read_text(encoding="utf-8"))
        is_pkg = p.name == "__init__.py"
        funcs = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        in_func = {id(x) for f in funcs for x in ast.walk(f)}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                base = m.split(".") if is_pkg else m.split(".")[:-1]
                if node.level:
                    base = base[: len(base) - (node.level - 1)]
                    full = ".".join(base + ([node.module] if node.module else []))
                else:
                    full = node.module or ""
                targets = [full] + [f"{full}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                continue
            hit = [t for t in targets if t in mods and t != "metafx" and t != m]
            if not hit:
                continue
            t = max(hit, key=len)
            edges[m].add(t)
            if id(node) in in_func:
                inner.append((m, t))
    return mods, edges, inner


def test_no_import_cycle():
    mods, edges, _ = _graph()
    state: dict[str, int] = {}

    def visit(v, path):
        state[v] = 1
        for w in edges[v]:
            if state.get(w) == 1:
                raise AssertionError(f"import cycle: {' -> '.join([*path, v, w])}")
            if w not in state:
                visit(w, [*path, v])
        state[v] = 2

    for m in mods:
        if m not in state:
            visit(m, [])


def test_no_intra_package_import_inside_a_function():
    _, _, inner = _graph()
    assert inner == [], f"imports inside functions: {inner}"


def test_the_core_never_imports_a_built_in_plugin():
    _, edges, _ = _graph()
    core = [m for m in edges if m.split(".")[1:2] and m.split(".")[1] in {"core", "hooks", "learn", "storage", "loop",
                                                                         "analysis"}]
    bad = [(m, t) for m in core for t in edges[m] if t.startswith("metafx.default_plugins")]
    assert bad == []
