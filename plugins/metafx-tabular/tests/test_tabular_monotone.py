"""A tree evaluator's search leaves out monotone functions of one column (``TabularFamily(drop_monotone=...)``)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from metafx_tabular import CVLinear, CVTree, TabularFamily
from metafx_tabular.expressions import expr_columns, monotone_in_one_column


def _table(n=400, seed=0):
    """A positive column, a centred one, a non-negative count with zeros, a category, a date; y a product."""
    rng = np.random.default_rng(seed)
    pos = rng.lognormal(0, 1, size=n)
    cen = rng.normal(size=n)
    cnt = rng.poisson(2.0, size=n).astype(float)
    cat = rng.choice(["a", "b", "c"], size=n)
    day = pd.Timestamp("2001-01-01") + pd.to_timedelta(rng.integers(0, 3 * 365, size=n), unit="D")
    y = pos * cen + 0.5 * (cat == "b") + 0.3 * rng.normal(size=n)
    df = pd.DataFrame({"pos": pos, "cen": cen, "cnt": cnt, "cat": cat, "day": day})
    return df, y


def _reference(e, df):
    """Monotone in one column, written from the operators' definitions and the raw columns: a threshold or a
    log of a numeric column; a square of a column whose values are all > 0 (the family keeps such a column's
    origin; any other numeric column is centred, so its square is U-shaped); the year of a date."""
    op = e["op"]
    if op in ("threshold", "log"):
        return "levels" not in e["args"][0]
    if op == "square":
        return bool(df.iloc[:, e["args"][0]["col"]].min() > 0)
    if op == "date_part":
        return e["part"] == "year"
    return False


@pytest.mark.parametrize("seed", range(3))
def test_a_tree_evaluator_removes_exactly_the_monotone_candidates(seed):
    df, y = _table(seed=seed)
    fam = TabularFamily(drop_monotone="auto").fit(df, y)
    screened = [e for e, _ in fam._screened]
    mono = [e for e in screened if _reference(e, df)]
    ops = {e["op"] for e in mono}
    assert {"threshold", "log", "square", "date_part"} <= ops  # the table exercises every monotone kind
    assert {"square", "date_part"} <= {e["op"] for e in screened if not _reference(e, df)}  # and the exceptions
    assert fam.offered() == screened  # before an evaluator is bound: every candidate
    fam.bind_evaluator(CVLinear(), fam.prepare(df), y, 0)
    assert fam.offered() == screened  # a linear model keeps them
    fam.bind_evaluator(CVTree(), fam.prepare(df), y, 0)
    assert fam.offered() == [e for e in screened if not _reference(e, df)]
    assert not any(_reference(e, df) for e in fam.offered())
    assert fam.offered() and len(fam.offered()) < len(screened)


def test_the_square_of_a_centred_column_and_two_column_operators_stay():
    col, other = {"col": 0}, {"col": 1}
    assert not monotone_in_one_column({"op": "square", "args": [col]}, [False, False])
    assert monotone_in_one_column({"op": "square", "args": [col]}, [True, False])
    assert monotone_in_one_column({"op": "square", "args": [{"op": "threshold", "args": [col], "q": 0.5, "t": 0.0}]},
                                  [False, False])
    # a standardized log is centred: its square is not monotone
    assert not monotone_in_one_column({"op": "square", "args": [{"op": "log", "args": [col], "lo": 0.0}]},
                                      [True, True])
    assert monotone_in_one_column({"op": "log", "args": [{"op": "log", "args": [col], "lo": 0.0}]}, [False, False])
    for op in ("mul", "ratio", "diff"):
        assert not monotone_in_one_column({"op": op, "args": [col, other]}, [True, True])
    assert not monotone_in_one_column({"op": "log", "args": [{"op": "mul", "args": [col, other]}]}, [True, True])
    for op in ("isna", "count"):
        assert not monotone_in_one_column({"op": op, "args": [col]}, [True, True])
    assert not monotone_in_one_column({"op": "count", "args": [{"col": 0, "levels": [0.0, 1.0]}]}, [True])
    for op in ("group_mean", "group_dev", "group_rank"):
        assert not monotone_in_one_column({"op": op, "args": [col, other]}, [True, True])
    assert not monotone_in_one_column({"op": "date_part", "args": [col], "part": "weekday"}, [False])
    assert monotone_in_one_column({"op": "date_part", "args": [col], "part": "year"}, [False])


@pytest.mark.parametrize("evaluator,drop", [(CVTree(), True), (CVLinear(), False)])
def test_draws_under_a_tree_evaluator_hold_no_monotone_feature(evaluator, drop):
    df, y = _table(seed=1)
    fam = TabularFamily(screen=0, drop_monotone="auto").fit(df, y)  # a point's own draws alone
    fam.bind_evaluator(evaluator, fam.prepare(df), y, 0)
    rng = np.random.default_rng(0)
    ops = fam.enabled_operators
    found = 0
    for op in ("threshold", "log", "square"):
        for _ in range(5):
            b = fam.draw({"arity": 1, "depth": 1, "op": ops.index(op), "rank": float(rng.uniform())}, 4, rng)
            found += sum(_reference(e, df) for e in b.exprs)
            assert all(len(expr_columns(e)) == 1 for e in b.exprs)
    assert (found == 0) == drop


def test_drop_monotone_is_checked_and_can_be_forced():
    df, y = _table()
    with pytest.raises(Exception, match="drop_monotone"):
        TabularFamily(drop_monotone="always").fit(df, y)
    fam = TabularFamily().fit(df, y)  # the default: every candidate, whatever the evaluator
    assert fam.drop_monotone is False
    fam.bind_evaluator(CVTree(), fam.prepare(df), y, 0)
    assert fam.offered() == [e for e, _ in fam._screened]
    fam = TabularFamily(drop_monotone=True).fit(df, y)
    assert not any(_reference(e, df) for e in fam.offered())
    fam.bind_evaluator(CVLinear(), fam.prepare(df), y, 0)
    assert not any(_reference(e, df) for e in fam.offered())
    assert CVTree.reads_monotone_transforms is False and CVLinear.reads_monotone_transforms is True
