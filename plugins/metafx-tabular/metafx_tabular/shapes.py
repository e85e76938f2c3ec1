"""Tree shapes of the ``tabular`` family's arithmetic expressions: which nestings of unary and binary
operators exist for an arity and a depth (what :meth:`metafx_tabular.TabularFamily.draw` fills with
operators and columns)."""

from __future__ import annotations

from functools import cache

__all__ = ["tree_shapes"]


# --------------------------------------------------------------------------- tree shapes
# A shape is an expression with placeholders: "L" (a column), ("U", child),
# ("B", left, right).  A unary node never sits directly on another unary node
# (log(square(x)) adds little).


def _shape_leaves(s) -> int:
    return 1 if s == "L" else sum(_shape_leaves(c) for c in s[1:])


def _shape_depth(s) -> int:
    return 0 if s == "L" else 1 + max(_shape_depth(c) for c in s[1:])


def _shape_ops(s) -> int:
    return 0 if s == "L" else 1 + sum(_shape_ops(c) for c in s[1:])


@cache
def tree_shapes(max_arity: int, max_depth: int, unary: bool, binary: bool) -> dict[tuple[str, int, int], tuple]:
    """Every shape by ``(root kind "U"/"B", arity, depth)``."""
    level: set = {"L"}
    for _ in range(max_depth):
        new = set(level)
        for s in level:
            if unary and (s == "L" or s[0] != "U"):
                new.add(("U", s))
            if binary:
                for t in level:
                    if _shape_leaves(s) + _shape_leaves(t) <= max_arity:
                        new.add(("B", s, t))
        level = new
    out: dict[tuple[str, int, int], list] = {}
    for s in level:
        if s != "L":
            out.setdefault((s[0], _shape_leaves(s), _shape_depth(s)), []).append(s)
    return {k: tuple(sorted(v, key=repr)) for k, v in out.items()}
