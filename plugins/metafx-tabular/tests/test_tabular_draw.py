"""The tabular family's batched draw: the columns it draws follow the distribution the family's docstring states
(checked against the exact probabilities), and a repeat is skipped before its values are built."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.stats import chisquare

import metafx_tabular.drawing as drawing
from metafx_tabular import TabularFamily
from metafx_tabular.expressions import _structure


@pytest.fixture(scope="module")
def fam():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(200, 6))
    y = (X[:, 0] + 0.6 * X[:, 1] - 0.3 * X[:, 2] + 0.3 * rng.normal(size=200) > 0).astype(int)
    tags = ["a", "a", "b", "b", "b", "a"]
    return TabularFamily(column_tags=tags, rank_width=0.3).fit(X, y)


def exact_probabilities(fam, k: int, rank: float, tag: int | None) -> dict[tuple[int, ...], float]:
    """The probability of every ordered tuple of ``k`` columns by the family's rule, enumerated: an anchor with
    weights exp(-((r - rank) / rank_width)^2 / 2) among the allowed columns (those of ``tag`` when at least ``k``
    carry it), partners a uniform subset of the allowed columns ranked no better than the anchor (of all the
    other allowed ones when too few are), the ``k`` columns in a uniform random order."""
    r = np.asarray(fam.column_rank)
    d = r.size
    allowed = np.ones(d, dtype=bool)
    if tag is not None:
        mask = np.array([t == fam.tag_names()[tag] for t in fam._tags()])
        if mask.sum() >= k:
            allowed = mask
    w = (np.exp(-0.5 * ((r - rank) / fam.rank_width) ** 2) + 1e-12) * allowed
    p = w / w.sum()
    out: dict[tuple[int, ...], float] = {}
    for a in np.flatnonzero(allowed):
        others = [j for j in np.flatnonzero(allowed & (r >= r[a])) if j != a]
        if len(others) < k - 1:
            others = [j for j in np.flatnonzero(allowed) if j != a]
        subsets = list(itertools.combinations(others, k - 1))
        for sub in subsets:
            perms = list(itertools.permutations((int(a), *tuple(int(j) for j in sub))))
            for perm in perms:
                out[perm] = out.get(perm, 0.0) + p[a] / len(subsets) / len(perms)
    return out


def follows(cols: np.ndarray, probs: dict[tuple[int, ...], float]) -> bool:
    """Whether the drawn rows ``cols`` pass a chi-square test against ``probs`` (and hold no impossible row)."""
    n = len(cols)
    counts: dict[tuple[int, ...], int] = {}
    for row in map(tuple, cols.tolist()):
        counts[row] = counts.get(row, 0) + 1
    if not set(counts) <= set(probs):  # a row the rule cannot draw
        return False
    keys = [key for key in probs if probs[key] * n >= 5]  # the cells a chi-square test can read, the rest pooled
    observed = np.array([counts.get(key, 0) for key in keys] + [n - sum(counts.get(key, 0) for key in keys)])
    expected = np.array([probs[key] * n for key in keys] + [n - sum(probs[key] * n for key in keys)])
    keep = expected > 1e-9
    return bool(chisquare(observed[keep], expected[keep] * observed[keep].sum() / expected[keep].sum()).pvalue > 1e-4)


@pytest.mark.parametrize("k, rank, tag", [(1, 0.2, None), (2, 0.0, None), (2, 0.6, 1), (3, 0.4, None), (3, 1.0, 0)])
def test_the_batched_column_draw_follows_the_stated_distribution(fam, k, rank, tag):
    cols = drawing.draw_columns(fam, 40_000, k, rank, tag, np.random.default_rng(7))
    assert cols.shape == (40_000, k)
    assert all(len(set(row)) == k for row in cols.tolist())  # distinct columns
    assert follows(cols, exact_probabilities(fam, k, rank, tag))


def test_the_distribution_check_catches_a_wrong_rule(fam):
    """The check above can fail: partners drawn uniformly among all the other columns, not among those ranked
    no better than the anchor, are caught."""
    rng = np.random.default_rng(7)
    n, d = 40_000, len(fam.column_rank)
    anchors = drawing.draw_columns(fam, n, 1, 0.6, None, rng)[:, 0]
    partners = (anchors + rng.integers(1, d, size=n)) % d
    swap = rng.random(n) < 0.5
    cols = np.column_stack([np.where(swap, partners, anchors), np.where(swap, anchors, partners)])
    assert not follows(cols, exact_probabilities(fam, 2, 0.6, None))


def test_a_repeat_is_skipped_before_its_values_are_built(monkeypatch):
    built: list[str] = []
    fill = drawing._fill

    def counting_fill(f, node, rng, call):
        if call is not None and "col" not in node:  # a draw's candidate (at depth 1, no operator below the root)
            built.append(_structure(node))
        return fill(f, node, rng, call)

    monkeypatch.setattr(drawing, "_fill", counting_fill)
    fam2 = TabularFamily(rank_width=0.3, screen=0, max_depth=1)
    rng = np.random.default_rng(3)
    X = rng.normal(size=(200, 6))
    fam2.fit(X, (X[:, 0] > 0).astype(int))
    batch = fam2.draw({"arity": 2, "depth": 1, "op": 3, "rank": 0.0}, 40, np.random.default_rng(0))
    assert len(batch) > 5
    keys = [_structure(e) for e in batch.exprs]
    assert len(set(keys)) == len(keys)
    assert len(built) == len(set(built))  # each structure built once: the many repeats a 6-column table draws cost nothing


def test_draws_are_deterministic_for_a_seed(fam):
    point = {"arity": 2, "depth": 1, "op": 3, "rank": 0.3}
    a = fam.draw(point, 20, np.random.default_rng(5))
    b = fam.draw(point, 20, np.random.default_rng(5))
    assert a.exprs == b.exprs


def test_a_draw_with_a_screened_twin_takes_the_screens_unit_column(fam):
    """A draw with the values of a screened candidate is not built again: its values and unit column are the
    screen's, which are what building and scoring it alone give."""
    from metafx_tabular.expressions import exact_key
    from metafx_tabular.screen import own_unit_columns, unit_columns

    assert len(fam._screen_index) == len(fam._screened)  # the exact key tells every candidate apart
    idx = [3, 0, 7, 11]
    vals = [fam._screened[i][1] for i in idx]
    Z, w = own_unit_columns(fam, [*vals, vals[0] ** 2], [*idx, -1])
    Z_alone, w_alone = unit_columns(fam, np.column_stack([*vals, vals[0] ** 2]))
    np.testing.assert_allclose(Z, Z_alone, atol=1e-12)
    np.testing.assert_array_equal(w, w_alone)
    for i in idx:
        e = fam._screened[i][0]
        ops = [o for o in fam.enabled_operators]
        shape = ("U", "L") if len(e["args"]) == 1 else ("B", "L", "L")
        cols = [a["col"] for a in e["args"]]
        consts = {k: v for k, v in e.items() if k in ("q", "t", "part")} or None
        built, values = drawing.build(fam, shape, e["op"], cols, np.random.default_rng(0), root_consts=consts, ops=ops)
        assert exact_key(built) == exact_key(e)
        np.testing.assert_array_equal(values, fam._screened[i][1])
