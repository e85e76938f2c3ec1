"""The ``tabular`` family's meta-feature space (:meth:`metafx_tabular.TabularFamily.space`), its start points,
and the description of drawn features: their meta-features and names."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from metafx.plugin import Dimension, MetaFeatureSpace

from .batch import TabularBatch
from .operators import ARITH, OPERATORS, operator
from .shapes import tree_shapes

if TYPE_CHECKING:
    from .family import TabularFamily


def arith_flags(fam: TabularFamily) -> tuple[list[str], bool, bool, int]:
    """The enabled arithmetic operators, whether unary / binary ones can be used, and the number of numeric columns."""
    ar = [o for o in fam.enabled_operators if o in ARITH]
    n_num = int(fam._eligible("numeric").sum())
    unary = any(OPERATORS[o].arity == 1 for o in ar)
    binary = any(OPERATORS[o].arity == 2 for o in ar) and n_num >= 2
    return ar, unary, binary, n_num


def space(fam: TabularFamily) -> MetaFeatureSpace:
    fam._need_fit()
    ops = fam.enabled_operators
    ar, unary, binary, n_num = arith_flags(fam)
    k_max = max([OPERATORS[o].arity for o in ops if o not in ARITH] or [1])
    if ar:
        shapes = tree_shapes(int(fam.max_arity), int(fam.max_depth), unary, binary)
        k_max = max(k_max, min(int(fam.max_arity), n_num, max(k for _, k, _ in shapes)))  # e.g. 2 at depth 1
    n_op = len(ops) + (1 if fam.mix else 0)
    op_desc = ", ".join(f"{i}={o}" for i, o in enumerate(ops)) + (f", {len(ops)}=any (a mixed set)" if fam.mix else "")
    op_start = ops.index("mul") if "mul" in ops else 0
    op_names = tuple(ops) + (("any (a mixed set)",) if fam.mix else ())
    dims = [
        Dimension("arity", "int", 1, k_max, step=1, default=min(2, k_max), description="number of input columns"),
        Dimension("depth", "int", 1, int(fam.max_depth), step=1, default=1, description="operator nesting depth"),
        # nominal_op: a move goes to any other operator; else to a neighbouring index
        Dimension("op", "categorical", choices=tuple(range(n_op)), default=op_start,
                  description="root operator: " + op_desc, labels=op_names) if fam.nominal_op else
        Dimension("op", "int", 0, n_op - 1, step=1, default=op_start, description="root operator: " + op_desc,
                  labels=op_names),
        Dimension("rank", "float", 0.0, 1.0, step=0.15, default=0.25,
                  description="quality rank of the best input column (0 = best)"),
    ]
    tags = fam.tag_names()
    if tags:
        dims.append(Dimension("tag", "int", 0, len(tags) - 1, step=1, default=0,
                              description="tag of the inputs: " + ", ".join(f"{i}={t}" for i, t in enumerate(tags)),
                              labels=tuple(str(t) for t in tags)))
    return MetaFeatureSpace(tuple(dims))


def group_starts(fam: TabularFamily) -> list[dict[str, Any]]:
    """Start points, one per operator group the table enables ("arith", "missing", "category",
    "date", in :data:`OPERATORS` order): the space's default point, then the same point with ``op``
    at the first enabled operator of each other group.  ``op`` is an index that a local search moves
    a step at a time, so from the default alone the operators of other groups can lie out of reach
    (docs/results/tabular.md, "Titanic"); ``TableExtractor(starts="groups")`` evaluates these first.
    A numeric table without missing values has one group: just the default point.  With
    ``mix``, on a table of several groups, the last point has ``op`` at "any" (a mixed set)."""
    base = space(fam).start(None)
    ops = fam.enabled_operators
    out = [dict(base)]
    seen = {OPERATORS[ops[int(base["op"])]].group} if int(base["op"]) < len(ops) else set()
    for i, o in enumerate(ops):
        g = OPERATORS[o].group
        if g not in seen:
            seen.add(g)
            out.append({**base, "op": i})
    if fam.mix and len(out) > 1:  # "any" (a mixed set), the last op value, is a group of its own
        out.append({**base, "op": len(ops)})
    return out


def describe(fam: TabularFamily, batch: TabularBatch) -> dict[str, np.ndarray]:
    ops = fam.enabled_operators
    rank = np.asarray(fam.column_rank if fam.column_rank is not None else [], dtype=np.float64)
    cols = batch.columns()
    out = {
        "arity": batch.arity,
        "depth": batch.depth,
        "op": np.array([ops.index(e["op"]) for e in batch.exprs], dtype=np.int64),
        "rank": np.array([float(rank[c].min()) for c in cols], dtype=np.float64),
    }
    names = fam.tag_names() if fam.n_columns is not None else []
    if names:
        tags = fam._tags()
        out["tag"] = np.array([_main_tag([tags[j] for j in c], names) for c in cols], dtype=np.int64)
    return out


def feature_names(fam: TabularFamily, batch: TabularBatch) -> list[str]:
    names = fam._names()

    def fmt(e) -> str:
        if "col" in e:
            return names[int(e["col"])]
        return operator(e["op"]).format([fmt(a) for a in e["args"]], e)

    return [fmt(e) for e in batch.exprs]


def _main_tag(tags: list[str], names: list[str]) -> int:
    """Index (in ``names``) of the most frequent tag among the inputs; -1 if none is tagged."""
    counts = {t: tags.count(t) for t in tags if t}
    if not counts:
        return -1
    best = max(sorted(counts), key=lambda t: counts[t])
    return names.index(best)
