"""Drawing a point's features for the ``tabular`` family (:meth:`metafx_tabular.TabularFamily.draw`).

A draw makes candidates in batches, with array operations: each candidate's root operator (a mixed set),
tree shape, columns (an anchor by the rank weights, partners uniformly among the columns ranked no better,
in random order), inner operators and threshold quantiles are drawn for a whole batch at once.  The
candidates are then taken one by one, in the order drawn, by the rules of the family's docstring: a
candidate whose cost does not fit, a repeat (the same structure key), a feature constant on the training
rows or an affine copy of an input column, and a monotone function of one column when those are left out,
is a miss; drawing stops when the budget is used or after 30 misses in a row.  A candidate's structure
key is known before its values are built, so a repeat costs no computation.

What depends only on the data and the point (the columns a kind can read, a rank's column weights, a
column's quantiles, the projection of the point on the feasible shapes) is computed once per call.  A candidate
the screen built at ``fit`` (the same values: ``metafx_tabular.expressions.exact_key``) is taken from there with
its unit column, and whether it is redundant is kept for the fit.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from metafx.plugin import ValidationError

from .batch import TabularBatch
from .expressions import COMMUTATIVE, _level_codes, _structure, exact_key, expr_ops
from .metafeatures import arith_flags
from .operators import ARITH, OPERATORS, QUANTILES, operator
from .shapes import _shape_ops, tree_shapes

if TYPE_CHECKING:
    from .family import TabularFamily

__all__ = ["build", "draw_columns", "draw_point", "project"]

#: consecutive misses (repeats, constant features, copies of a column) after which a draw stops
MAX_MISSES = 30
#: most random numbers of one batch of candidates' column draws (candidates x columns)
BATCH_CELLS = 2_000_000


class _Call:
    """What one draw computes again and again for the same inputs, kept for the call."""

    def __init__(self, fam: TabularFamily) -> None:
        self.fam = fam
        self.rank = np.asarray(fam.column_rank, dtype=np.float64)
        self.eligible: dict[str, np.ndarray] = {}
        self.weights: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}
        self.projections: dict[int, tuple[str, tuple, int, int]] = {}
        self.quantiles: dict[tuple[int, float], dict[str, Any]] = {}
        self.unit: dict[int, tuple[np.ndarray, float] | None] = {}

    def kind(self, kind: str) -> np.ndarray:
        if kind not in self.eligible:
            self.eligible[kind] = self.fam._eligible(kind)
        return self.eligible[kind]

    def anchor_cdf(self, k: int, rank: float, tag: float | None, slots: tuple[str, ...],
                   typed: bool) -> tuple[np.ndarray, np.ndarray]:
        """The columns an anchor may be (``allowed``) and the cumulative distribution of the anchor over
        the columns: weights ``exp(-((column rank - rank) / rank_width)**2 / 2)`` on the allowed ones."""
        key = (k, rank, tag, slots, typed)
        if key not in self.weights:
            fam, r = self.fam, self.rank
            first = self.kind(slots[0]).copy()
            if typed and len(slots) == 2:  # the anchor must leave a partner (a column can be numeric and a category)
                second = self.kind(slots[1])
                if second.sum() == 1:
                    first &= ~second
            allowed = first
            if tag is not None:
                names = fam.tag_names()
                mask = np.array([t == names[int(tag)] for t in fam._tags()]) & first
                if mask.sum() >= (1 if typed else k):
                    allowed = mask
            w = (np.exp(-0.5 * ((r - rank) / float(fam.rank_width)) ** 2) + 1e-12) * allowed
            cdf = np.cumsum(w)
            self.weights[key] = (allowed, cdf / cdf[-1])
        return self.weights[key]


def project(fam: TabularFamily, u: Mapping[str, Any], i: int | None = None) -> tuple[str, tuple, int, int]:
    """The feasible ``(root op, shapes, arity, depth)`` nearest to point ``u`` (root operator ``i``
    when given).  Operators on categorical, datetime or missing-value columns sit on columns
    directly: depth 1, arity their number of arguments."""
    ops = fam.enabled_operators
    i = int(u["op"]) if i is None else int(i)
    root = ops[i]
    if root not in ARITH:
        n = OPERATORS[root].arity
        return root, (("U", "L"),) if n == 1 else (("B", "L", "L"),), n, 1
    # a binary arithmetic root is enabled only with two numeric columns (enabled_operators)
    _, unary, binary, n_num = arith_flags(fam)
    kind = "U" if OPERATORS[root].arity == 1 else "B"
    k = min(int(u["arity"]), n_num, int(fam.max_arity))
    if kind == "B":
        k = max(k, 2)
    shapes = tree_shapes(int(fam.max_arity), int(fam.max_depth), unary, binary)
    depths = sorted(dd for (kk, ak, dd) in shapes if kk == kind and ak == k)
    if not depths:  # e.g. a unary root over 2+ columns needs depth >= 2: change arity
        arities = sorted({ak for (kk, ak, _) in shapes if kk == kind}, key=lambda a: (abs(a - k), a))
        k = arities[0]
        depths = sorted(dd for (kk, ak, dd) in shapes if kk == kind and ak == k)
    depth = min(depths, key=lambda dd: (abs(dd - int(u["depth"])), dd))
    return root, shapes[(kind, k, depth)], k, depth


def _uniform_pick(keys: np.ndarray, mask: np.ndarray, n: int) -> np.ndarray:
    """Per row, ``n`` distinct columns drawn uniformly among those of ``mask`` (``keys``: uniform numbers,
    one per cell; the ``n`` smallest keys of a row's allowed cells are a uniform sample without replacement)."""
    if (mask.sum(axis=1) < n).any():
        raise ValidationError("a feature's arguments found too few distinct columns of the kinds they read")
    keys = np.where(mask, keys, 2.0)
    if n == 1:
        return np.argmin(keys, axis=1)[:, None]
    return np.argsort(keys, axis=1, kind="stable")[:, :n]


def draw_columns(fam: TabularFamily, m: int, k: int, rank: float, tag: float | None, rng: np.random.Generator,
                 slots: Sequence[str] | None = None, call: _Call | None = None) -> np.ndarray:
    """``m`` draws of ``k`` distinct columns, one row each: an anchor whose quality rank is near ``rank``,
    and partners drawn uniformly among the columns ranked no better than the anchor (among all others
    when too few are).

    ``slots`` gives the kind each argument needs (:attr:`Operator.kinds`), the anchor first; by
    default (arithmetic operators) every column is numeric and a row's columns come in random order."""
    call = call if call is not None else _Call(fam)
    typed = slots is not None
    kinds = tuple(slots) if slots is not None else ("numeric",) * k
    allowed, cdf = call.anchor_cdf(k, float(rank), tag, kinds, typed)
    r = call.rank
    d = r.size
    anchor = np.minimum(np.searchsorted(cdf, rng.random(m), side="right"), d - 1)
    rows = np.arange(m)
    if k == 1:
        return anchor[:, None]
    worse = r[None, :] >= r[anchor][:, None]  # ranked no better than the anchor
    if not typed:
        others = allowed[None, :] & worse
        others[rows, anchor] = False
        few = others.sum(axis=1) < k - 1
        if few.any():  # too few ranked no better: all the other allowed columns
            others[few] = allowed[None, :]
            others[few, anchor[few]] = False
        cols = np.column_stack([anchor, _uniform_pick(rng.random((m, d)), others, k - 1)])
        order = np.argsort(rng.random((m, k)), axis=1)
        return np.take_along_axis(cols, order, axis=1)
    cols = anchor[:, None]
    for kind in kinds[1:]:
        ok = np.repeat(call.kind(kind)[None, :], m, axis=0)
        ok[rows[:, None], cols] = False
        cand = ok & worse
        empty = ~cand.any(axis=1)
        cand[empty] = ok[empty]
        cols = np.column_stack([cols, _uniform_pick(rng.random((m, d)), cand, 1)])
    return cols


def _skeleton(fam: TabularFamily, shape: Any, root: str, cols: Sequence[int], node_u: np.ndarray,
              rng: np.random.Generator, root_consts: Mapping[str, Any] | None, ops: list[str]) -> dict:
    """The expression ``shape`` filled with operators and ``cols``, without the constants learned from the
    values (only those its structure key names: a threshold's quantile, a date part).  ``node_u``: two
    uniform numbers per operator node, in pre-order (its operator among the enabled ones of its arity,
    a threshold's quantile)."""
    ar = [o for o in ops if o in ARITH]
    unary = [o for o in ar if OPERATORS[o].arity == 1]
    binary = [o for o in ar if OPERATORS[o].arity == 2]
    leaves = iter(cols)
    slots = iter(OPERATORS[root].kinds if root not in ARITH else ())
    count = iter(range(node_u.size // 2))

    def rec(s: Any, op_name: str | None) -> dict:
        if s == "L":
            j = int(next(leaves))
            levels = fam._levels(j) if next(slots, "numeric") == "categorical" else None
            return {"col": j} if levels is None else {"col": j, "levels": list(levels)}
        i = next(count)
        is_root = op_name is not None
        if op_name is None:
            choice = unary if s[0] == "U" else binary
            op_name = choice[min(int(node_u[2 * i] * len(choice)), len(choice) - 1)]
        kids = [rec(c, None) for c in s[1:]]
        if op_name in COMMUTATIVE:  # the same values either way: one canonical order
            kids.sort(key=_structure)
        node: dict[str, Any] = {"op": op_name, "args": kids}
        if is_root and root_consts is not None:
            node["consts"] = dict(root_consts)
        elif op_name == "threshold":
            node["q"] = QUANTILES[min(int(node_u[2 * i + 1] * len(QUANTILES)), len(QUANTILES) - 1)]
        elif op_name == "date_part":  # its part is drawn among those that vary on the column
            node["consts"] = operator(op_name).fit([_leaf_values(fam, kids[0])], rng)
        return {**node, **node.get("consts", {})}  # the structure key reads a threshold's q, a date part

    return rec(shape, root)


def _leaf_values(fam: TabularFamily, leaf: Mapping[str, Any]) -> np.ndarray:
    col = fam._rows()[:, int(leaf["col"])]
    return _level_codes(col, leaf["levels"]) if "levels" in leaf else col


def _fill(fam: TabularFamily, node: Mapping[str, Any], rng: np.random.Generator,
          call: _Call | None) -> tuple[dict, np.ndarray]:
    """The skeleton ``node`` with every constant learned on the row sample (missing values are left out of
    every constant), and its values there: each non-0/1 node clipped to its training range (or winsorized at
    ``clip_quantile``) and standardized."""
    if "col" in node:
        return dict(node), _leaf_values(fam, node)
    op = operator(node["op"])
    kids = [_fill(fam, a, rng, call) for a in node["args"]]
    args = [v for _, v in kids]
    if "consts" in node:
        consts = dict(node["consts"])
    elif "q" in node:
        leaf = set(kids[0][0]) == {"col"}
        qkey = (int(kids[0][0]["col"]) if leaf else -1, float(node["q"]))
        if call is not None and leaf and qkey in call.quantiles:
            consts = dict(call.quantiles[qkey])
        else:
            consts = op._at(args[0], float(node["q"]))  # type: ignore[attr-defined]
            if call is not None and leaf:
                call.quantiles[qkey] = dict(consts)
    else:
        consts = op.fit(args, rng)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        v = op.apply(args, consts)
    out: dict[str, Any] = {"op": node["op"], "args": [e for e, _ in kids], **consts}
    if not op.binary_output:
        q = float(fam.clip_quantile)
        fin = v[~np.isnan(v)] if np.isnan(v).any() else v
        if not fin.size:
            lo, hi = 0.0, 0.0
        elif q == 0.0:  # the training range: clipping changes no training value
            lo, hi = float(fin.min()), float(fin.max())
        else:
            lo, hi = (float(t) for t in np.quantile(fin, [q, 1.0 - q]))
            v = np.clip(v, lo, hi)
            fin = np.clip(fin, lo, hi)
        c, sc = _mean_std(fin)
        sc = sc if sc > 1e-12 else 1.0
        out["range"], out["center"], out["scale"] = [lo, hi], c, sc
        v = (v - c) / sc
    return out, v


def _mean_std(x: np.ndarray) -> tuple[float, float]:
    """``x.mean()`` and ``x.std()`` (0 and 1 when empty), without their per-call overhead."""
    if not x.size:
        return 0.0, 1.0
    c = float(np.add.reduce(x)) / x.size
    d = x - c
    return c, math.sqrt(float(d @ d) / x.size)


def build(fam: TabularFamily, shape: Any, root: str, cols: Sequence[int], rng: np.random.Generator,
          root_consts: Mapping[str, Any] | None = None, ops: list[str] | None = None) -> tuple[dict, np.ndarray]:
    """Fill ``shape`` with operators (inner ones drawn uniformly) and ``cols``; learn every node's constants
    on the row sample (``root_consts``: the root's, given).  A numeric column in a categorical argument is a
    leaf with its ``levels``, read as their codes.  Returns the expression and its values on the row sample."""
    ops = fam.enabled_operators if ops is None else ops
    node_u = rng.random(2 * _shape_ops(shape))
    return _fill(fam, _skeleton(fam, shape, root, cols, node_u, rng, root_consts, ops), rng, None)


def _unit_column(call: _Call, j: int) -> tuple[np.ndarray, float] | None:
    """Column ``j`` of the row sample centred, and its standard deviation; None when it has missing values."""
    if j not in call.unit:
        c = call.fam._rows()[:, j]
        call.unit[j] = None if np.isnan(c).any() else (c - c.mean(), float(c.std()))
    return call.unit[j]


def redundant(fam: TabularFamily, values: np.ndarray, cols: Sequence[int], call: _Call | None = None) -> bool:
    """Constant on the training rows, or an affine copy of one of its numeric input columns
    (e.g. a threshold of a 0/1 column): such a feature adds nothing to a linear model.
    Rows where the feature or the column is missing are left out."""
    call = call if call is not None else _Call(fam)
    whole = not np.isnan(values).any()
    ok = np.ones(values.shape, dtype=bool) if whole else ~np.isnan(values)
    if (values.size if whole else ok.sum()) < 2 or not np.ptp(values if whole else values[ok]) > 1e-9:
        if whole or not ok.any():
            return True
        return False  # constant where present, missing elsewhere: a missing-value pattern, kept
    kinds = fam._kinds()
    if whole:
        mean, sa = _mean_std(values)
        a = values - mean
    for j in cols:
        if kinds[j] != "numeric":
            continue
        unit = _unit_column(call, int(j)) if whole else None
        if unit is not None:  # no missing value on either side: the correlation over all rows
            b, sb = unit
            if values.size >= 3 and sa > 0 and sb > 0 and abs(float(a @ b) / values.size / (sa * sb)) > 1 - 1e-9:
                return True
            continue
        c = fam._rows()[:, j]
        m = ok & ~np.isnan(c)
        if m.sum() < 3:
            continue
        x, y = values[m], c[m]
        sx, sy = x.std(), y.std()
        if sx > 0 and sy > 0 and abs(float(np.mean((x - x.mean()) * (y - y.mean())) / (sx * sy))) > 1 - 1e-9:
            return True
    return False


class _Batch:
    """A batch of drawn candidates: per candidate its root, shape, columns and node uniforms."""

    def __init__(self, fam: TabularFamily, u: Mapping[str, Any], fixed: tuple | None, m: int,
                 rng: np.random.Generator, call: _Call) -> None:
        ops = fam.enabled_operators
        roots = np.zeros(m, dtype=np.int64) if fixed is not None else rng.integers(len(ops), size=m)
        self.items: list[tuple[str, Any, Sequence[int]]] = [("", "L", ())] * m
        shapes_all = tree_shapes(int(fam.max_arity), int(fam.max_depth), True, True)
        width = 2 * max([_shape_ops(s) for group in shapes_all.values() for s in group] + [1])
        self.node_u = rng.random((m, width))
        for i in np.unique(roots):
            at = np.flatnonzero(roots == i)
            if fixed is not None:
                root, shapes, k, _ = fixed
            else:
                if int(i) not in call.projections:
                    call.projections[int(i)] = project(fam, u, int(i))
                root, shapes, k, _ = call.projections[int(i)]
            pick = rng.integers(len(shapes), size=at.size)
            slots = None if root in ARITH else OPERATORS[root].kinds
            cols = draw_columns(fam, at.size, k, u["rank"], u.get("tag"), rng, slots, call)
            for n, c in enumerate(at):
                self.items[int(c)] = (root, shapes[int(pick[n])], cols[n].tolist())


def draw_point(fam: TabularFamily, point: Mapping[str, Any], budget: float, rng: np.random.Generator,
               max_features: int | None) -> TabularBatch:
    """The features drawn at ``point`` (see the module docstring), then chosen as the family's settings say
    (the screened candidates: ``metafx_tabular.screen.screened_set``; ``oversample``)."""
    from .screen import relevance, screened_set

    u = fam.space().check_point(point)
    if fam._sample is None:
        raise ValidationError("drawing needs the training rows: call fit(X, y) on this family first")
    if fam._gate_closed:  # rescore_by="gate": no candidate adds to the evaluator's model of the columns
        return TabularBatch([])
    ops = fam.enabled_operators
    call = _Call(fam)
    mixed = bool(fam.mix) and int(u["op"]) == len(ops)
    fixed = None if mixed else project(fam, u)
    cheapest = 1 if fixed is None else min(_shape_ops(s) for s in fixed[1])
    limit = math.inf if max_features is None else int(max_features)
    exprs: list[dict] = []
    vals: list[np.ndarray] = []
    seen: set[str] = set()
    twins: list[int] = []  # per draw, the screened candidate with the same values (built at fit), or -1
    rejected: set[str] = set()  # keys of constant features, copies of a column, left-out monotone ones
    spent, misses = 0.0, 0
    f = float(fam.oversample)
    pool_budget = float(budget) * f
    batch: list = []
    batch_u = np.zeros((0, 0))
    at, size = 0, 64
    max_rows = max(BATCH_CELLS // max(int(fam.n_columns or 1), 1), 8)
    while len(exprs) < (limit if f == 1.0 else math.inf) and spent + cheapest <= pool_budget + 1e-9 \
            and misses < MAX_MISSES:
        if at == len(batch):  # a new batch, twice the last (most draws stop at a run of misses long before the budget)
            size = min(2 * size, 4096)
            m = int(min(max((pool_budget - spent) / cheapest + MAX_MISSES, 16), size, max_rows))
            cands = _Batch(fam, u, fixed, m, rng, call)
            batch, batch_u, at = cands.items, cands.node_u, 0
        root, shape, cols = batch[at]
        node_u = batch_u[at]
        at += 1
        if spent + _shape_ops(shape) > pool_budget + 1e-9:
            misses += 1
            continue
        skeleton = _skeleton(fam, shape, root, cols, node_u, rng, None, ops)
        key = _structure(skeleton)
        if key in seen or key in rejected:
            misses += 1
            continue
        twin = fam._screen_index.get(exact_key(skeleton), -1)
        if twin >= 0:  # built at fit: its values, and whether it is redundant, are known
            expr, values = fam._screened[twin]
            if twin not in fam._screen_redundant:
                fam._screen_redundant[twin] = redundant(fam, values, cols, call)
            bad = fam._screen_redundant[twin] or (fam._skip_monotone and bool(fam._screen_mono[twin]))
        else:
            expr, values = _fill(fam, skeleton, rng, call)
            bad = redundant(fam, values, cols, call) or (fam._skip_monotone and fam._monotone(expr))
        if bad:
            rejected.add(key)
            misses += 1
            continue
        seen.add(key)
        exprs.append(expr)
        vals.append(values)
        twins.append(twin)
        spent += _shape_ops(shape)
        misses = 0
    if fam._screened:
        return screened_set(fam, exprs, vals, seen, float(budget), limit, twins)
    if f == 1.0 or not exprs:
        return TabularBatch(exprs)
    # oversampled: keep the most relevant draws (per cost) that fit the budget
    costs = np.array([len(expr_ops(e)) for e in exprs], dtype=np.float64)
    order = np.argsort(-relevance(fam, np.column_stack(vals)) / costs, kind="stable")
    keep: list[int] = []
    total = 0.0
    for i in order:
        if len(keep) < limit and total + costs[i] <= float(budget) + 1e-9:
            keep.append(int(i))
            total += costs[i]
    return TabularBatch([exprs[i] for i in keep])
