"""The ``tabular`` family's candidate screen and its cheap relevance score.

At :meth:`metafx_tabular.TabularFamily.fit` every depth-1 candidate the table allows (at most ``screen`` of
them, drawn at random beyond) is built on the row sample and scored alone (:func:`relevance`); a point's set
is then chosen from the point's own draws and these candidates together by forward selection
(:func:`screened_set`).  :func:`bind_evaluator` lets the search's evaluator rescore the best candidates first.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from metafx.plugin import ValidationError

from .batch import TabularBatch
from .drawing import build
from .expressions import SYMMETRIC, _structure, exact_key, expr_ops
from .operators import ARITH, OPERATORS
from .tasks import infer_task

if TYPE_CHECKING:
    from .family import TabularFamily

#: candidates of the screen (and a point's draws) more correlated than this with a kept one are dropped
SCREEN_REDUNDANT = 0.95
#: a candidate whose multiple correlation with the table's columns exceeds this is scored as a copy of them
#: (relevance 0).  The square or the log of a positive column (an age kept on its ratio scale) correlates 0.95-0.999
#: with it and is cut here, though its curvature is what a linear model of the columns misses; 0.999 was judged by
#: experiments/tabular_guard/RULE_copy_cut.md and not adopted (the dev tables' verdicts did not change: the search
#: then ranks SwissLabor's ``age^2`` 3rd-6th but does not take it), so the cut stays at SCREEN_REDUNDANT's 0.95
SCREEN_COPY = 0.95
#: family-wise level of the screen's floor: a candidate is kept only if its relevance is above what
#: noise reaches with this probability among all the candidates scored (Bonferroni)
SCREEN_ALPHA = 0.05
#: the relevance of a feature's ranks counts this much of that of its values: a model is given the values
RANK_WEIGHT = 0.9


def residual_target(D: np.ndarray, y: np.ndarray, task: str) -> np.ndarray:
    """What a ridge fit of ``y`` (one-hot classes) on the design ``D`` (missing at the column mean)
    leaves unexplained, on the same rows: the target the ``relevance`` of a new feature is measured against."""
    D = np.array(D, dtype=np.float64)
    mu = np.nanmean(np.where(np.isnan(D), np.nan, D), axis=0) if D.size else np.zeros(D.shape[1])
    D = np.where(np.isnan(D), np.nan_to_num(mu)[None, :], D)
    sd = D.std(axis=0)
    D = (D - D.mean(axis=0)) / np.where(sd > 1e-12, sd, 1.0)
    if task == "classification":
        classes = np.unique(y)
        Y = (y[:, None] == classes[None, :]).astype(np.float64)
    else:
        Y = np.asarray(y, dtype=np.float64)[:, None]
    Y = Y - Y.mean(axis=0)
    lam = 1e-3 * len(D)
    if D.shape[1] > D.shape[0]:  # wider than long: the same fit through the n x n kernel (D D' + lam I)
        K = D @ D.T
        return Y - K @ np.linalg.solve(K + lam * np.eye(D.shape[0]), Y)
    A = D.T @ D + lam * np.eye(D.shape[1])
    return Y - D @ np.linalg.solve(A, D.T @ Y)


def basis(D: np.ndarray) -> np.ndarray:
    """An orthonormal basis of the span of the centred columns of ``D`` (missing values at the column mean)."""
    D = np.array(D, dtype=np.float64)
    if D.size == 0:
        return np.zeros((D.shape[0], 0))
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        mu = np.nan_to_num(np.nanmean(D, axis=0))
    D = np.where(np.isnan(D), mu[None, :], D)
    D = D - D.mean(axis=0)
    U, sv, _ = np.linalg.svd(D, full_matrices=False)
    return U[:, sv > 1e-8 * max(float(sv.max()) if sv.size else 0.0, 1e-300)]


def score_matrix(X: np.ndarray, kinds: Sequence[str]) -> np.ndarray:
    """A numeric stand-in of every column for the cheap per-column score: numbers and days with
    missing values at the column mean; categories by their frequency (frequency encoding)."""
    M = np.array(X, dtype=np.float64)
    for j, k in enumerate(kinds):
        c = M[:, j]
        miss = np.isnan(c)
        if k == "categorical":
            codes = np.where(miss, -1, c).astype(np.int64)
            _, inv, cnt = np.unique(codes, return_inverse=True, return_counts=True)
            M[:, j] = cnt[inv] / c.size
        elif miss.any():
            M[:, j] = np.where(miss, np.nanmean(c) if (~miss).any() else 0.0, c)
    return M



class _Candidates:
    """A group of first-order candidates, counted without being listed: ``n`` and ``get(k)``, the ``k``-th
    in the order :meth:`TabularFamily.first_order` lists them."""

    def __init__(self, n: int, get: Any) -> None:
        self.n = int(n)
        self.get = get

    @classmethod
    def listed(cls, items: list) -> _Candidates:
        return cls(len(items), items.__getitem__)

    @classmethod
    def pairs(cls, op: str, first: np.ndarray, second: np.ndarray, symmetric: bool, one_pool: bool) -> _Candidates:
        """Pairs ``[a, b]``, ``a`` in ``first`` and ``b`` in ``second`` in their order, ``a != b``; symmetric
        operators count each pair once: over one pool (arithmetic) ``a`` before ``b``; over two pools
        ``a < b``, or ``b`` outside the first pool."""
        in_first = np.isin(second, first)

        def valid(a: int) -> np.ndarray:  # two pools: the b that pair with a
            ok = second != a
            return ok & ((second > a) | ~in_first) if symmetric else ok

        if one_pool:  # closed forms: m (m - 1) / 2 or m (m - 1) pairs
            m = first.size
            counts = np.arange(m - 1, -1, -1, dtype=np.int64) if symmetric else np.full(m, max(m - 1, 0), np.int64)
        else:
            counts = np.array([int(valid(int(a)).sum()) for a in first], dtype=np.int64)
        ends = np.cumsum(counts)

        def get(k: int) -> tuple[str, list[int], None]:
            i = int(np.searchsorted(ends, k, side="right"))
            r = k - (int(ends[i - 1]) if i else 0)
            a = int(first[i])
            if one_pool:
                j = i + 1 + r if symmetric else (r if r < i else r + 1)
                return op, [a, int(second[j])], None
            return op, [a, int(second[np.flatnonzero(valid(a))[r]])], None

        return cls(int(ends[-1]) if ends.size else 0, get)


def first_order_groups(fam: TabularFamily) -> list[_Candidates]:
    """:meth:`first_order` as groups that are counted without being listed: a table of ``d``
    columns has about ``3 d^2`` pair candidates (300 million at 10,000 columns), of which the
    screen builds ``screen`` (2,000) drawn at random; listing them all took gigabytes."""
    fam._need_fit()
    ops = fam.enabled_operators
    num = np.flatnonzero(fam._eligible("numeric")).astype(np.int64)
    groups: list[_Candidates] = []
    for o in ops:
        op = OPERATORS[o]
        if o in ARITH:
            pools = [num] * op.arity
            sym = o in SYMMETRIC
            strict = True  # arithmetic pairs over one pool: a < b when symmetric, a != b otherwise
        else:
            pools = [np.flatnonzero(fam._eligible(k)).astype(np.int64) for k in op.kinds]
            sym = o in SYMMETRIC
            strict = False
        if len(pools) == 1:
            cols = [[int(j)] for j in pools[0]]
            if o in ("threshold", "date_part"):
                listed = []
                for c in cols:
                    variants = op.variants([fam._rows()[:, c[0]]])
                    listed += [(o, c, v) for v in (variants if variants else [None])]
            else:
                listed = [(o, c, None) for c in cols]
            groups.append(_Candidates.listed(listed))
        else:
            groups.append(_Candidates.pairs(o, pools[0], pools[1], sym, strict))
    return groups


def screen_candidates(fam: TabularFamily) -> None:
    """Enumerate the first-order candidates (at most ``screen`` of them, drawn at random beyond),
    build each on the row sample and score it alone (:meth:`relevance`)."""
    fam._screened, fam._screen_rel, fam._floor, fam._screen_keys = [], np.zeros(0), 0.0, []
    fam._screen_mono = np.zeros(0, dtype=bool)
    fam._screen_costs = np.zeros(0)
    fam._screen_index = {}
    fam._screen_redundant = {}  # index of a screened candidate a draw met -> whether it is redundant (a draw's test)
    fam._rescored = {}
    if not int(fam.screen) or fam._target is None:
        return
    groups = first_order_groups(fam)
    total = sum(g.n for g in groups)
    rng = np.random.default_rng(0)
    if total > int(fam.screen):
        keep = np.sort(rng.choice(total, size=int(fam.screen), replace=False))
        starts = np.cumsum([0] + [g.n for g in groups])
        at = np.searchsorted(starts, keep, side="right") - 1
        cands = [groups[int(g)].get(int(k - starts[g])) for g, k in zip(at, keep, strict=True)]
    else:
        cands = [g.get(k) for g in groups for k in range(g.n)]
    seen: set[str] = set()
    ops = fam.enabled_operators
    built, keys = [], []
    for o, cols, consts in cands:
        shape = ("U", "L") if len(cols) == 1 else ("B", "L", "L")
        expr, values = build(fam, shape, o, cols, rng, root_consts=consts, ops=ops)
        key = _structure(expr)
        if key in seen:
            continue
        seen.add(key)
        built.append((expr, values))
        keys.append(key)
    if built:
        # constant on the training rows (where present, with no missing value): nothing to learn.  Copies of a
        # column need no check of their own: their relevance is 0 and the forward selection never takes them
        V = np.column_stack([v for _, v in built])
        miss = np.isnan(V)
        with np.errstate(invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            spread = np.nanmax(V, axis=0) - np.nanmin(V, axis=0)
        ok = (spread > 1e-9) | (miss.any(axis=0) & ~miss.all(axis=0))
        fam._screened = [b for b, k in zip(built, ok, strict=True) if k]
        fam._screen_keys = [key for key, k in zip(keys, ok, strict=True) if k]
        # a point's draw with the same values as a screened candidate takes its values and unit column from here
        fam._screen_index = {exact_key(e): i for i, (e, _) in enumerate(fam._screened)}
        V = V[:, ok]
        fam._screen_rel = relevance(fam, V)
        fam._screen_mono = np.array([fam._monotone(e) for e, _ in fam._screened], dtype=bool)
        fam._screen_Z, fam._screen_w = unit_columns(fam, V)
        fam._screen_costs = np.array([len(expr_ops(e)) for e, _ in fam._screened], dtype=np.float64)
    fam._floor = relevance_floor(fam, max(len(fam._screened), 1))


def bind_evaluator(fam: TabularFamily, evaluator: Any, prepared: Any, y: Any, seed: int) -> None:
    """Score the screen's best candidates by the search's own ``evaluator`` (``rescore``): called once
    by a search after :meth:`fit` and :meth:`prepare` (``prepared``, ``y``: the training rows;
    ``seed``: the search's evaluation seed).  Without a screen or with ``rescore=0``, nothing.

    With ``drop_monotone="auto"``, also learns whether the evaluator's model reads a monotone function
    of one column as the column itself (``evaluator.reads_monotone_transforms`` False, as ``cv-tree``'s):
    then such features are left out of the candidates and draws from here on."""
    fam._rescored = {}
    mode = str(getattr(evaluator, "table_rescore", "evaluator")) if fam.rescore_by == "auto" else fam.rescore_by
    if mode not in ("evaluator", "residual", "gate"):
        raise ValidationError(f"evaluator {getattr(evaluator, 'name', evaluator)!r} has table_rescore={mode!r} "
                              "(read by rescore_by='auto'); allowed: 'evaluator', 'residual', 'gate'")
    fam._residual_only = mode == "residual" and int(fam.rescore) > 0
    fam._gate_closed = False
    if fam.drop_monotone == "auto":
        fam._skip_monotone = not bool(getattr(evaluator, "reads_monotone_transforms", True))
    else:
        fam._skip_monotone = fam.drop_monotone is True
    if not int(fam.rescore) or not fam._screened:
        return
    from .rescore import rescore, shortlist

    exprs = [e for e, _ in fam._screened]
    rel = np.where(fam._screen_mono, -np.inf, fam._screen_rel) if fam._skip_monotone else fam._screen_rel
    if fam._residual_only or mode == "gate":
        idx = shortlist(np.where(np.isfinite(rel), rel, -np.inf), [str(e["op"]) for e in exprs], -np.inf,
                        int(fam.rescore))
        idx = idx[np.isfinite(rel[idx])]
        residual = (_residual_gains(fam, evaluator, prepared, np.asarray(y), int(seed), exprs, idx)
                    if idx.size else np.zeros(0))
        if fam._residual_only:
            fam._rescored = {fam._screen_keys[int(i)]: float(g) for i, g in zip(idx, residual, strict=True)}
            return
        fam._gate_closed = not bool(np.any(np.asarray(residual) > 0))
        if fam._gate_closed:
            return
    idx = shortlist(rel, [str(e["op"]) for e in exprs], fam._floor, int(fam.rescore))
    if idx.size:
        gains = rescore(fam, evaluator, prepared, np.asarray(y), int(seed), exprs, idx)
        fam._rescored = {fam._screen_keys[int(i)]: float(g) for i, g in zip(idx, gains, strict=True)}


def _residual_gains(fam: TabularFamily, evaluator: Any, prepared: Any, y: np.ndarray, seed: int, exprs: list[dict],
                    idx: np.ndarray) -> np.ndarray:
    """``rescore_by="residual"``: ``metafx_tabular.rescore.residual_gains`` of the candidates
    ``exprs[i]`` (``i`` in ``idx``) over the evaluator's model of the table's columns, on the
    evaluator's folds (``n_splits``, shuffled with ``seed``; stratified for class labels)."""
    from sklearn.model_selection import KFold, StratifiedKFold

    from .rescore import residual_gains

    model_for = getattr(evaluator, "_model_for", None)
    if model_for is None:
        raise ValidationError(f"rescore_by='residual' needs an evaluator with a model of the table's columns "
                              f"(cv-tree, cv-linear); {getattr(evaluator, 'name', evaluator)!r} has none")
    task = infer_task(y) if fam.task == "auto" else str(fam.task)
    M = np.asarray(prepared.get("design", prepared["z"]), dtype=np.float64)
    n_splits = int(getattr(evaluator, "n_splits", 3))
    cv = (StratifiedKFold if task == "classification" else KFold)(n_splits=n_splits, shuffle=True,
                                                                    random_state=seed)
    folds = list(cv.split(np.zeros((y.shape[0], 1)), y))
    values = fam._values(prepared, TabularBatch([exprs[int(i)] for i in idx]))
    return residual_gains((model_for(task, M, False), M), [values[:, j] for j in range(values.shape[1])],
                          y, task, folds)


def offered_mask(fam: TabularFamily) -> np.ndarray:
    if fam._skip_monotone:
        return ~fam._screen_mono
    return np.ones(len(fam._screened), dtype=bool)


def relevance_floor(fam: TabularFamily, n_tests: int) -> float:
    """The relevance noise exceeds with probability ``SCREEN_ALPHA / n_tests``: the squared
    correlation with the residual target is about chi-square (one degree of freedom per class
    but one, one for a real target) over the number of sampled rows."""
    from scipy.stats import chi2

    R = fam._residual()
    df = max(R.shape[1] - 1, 1) if R.shape[1] > 1 else 1
    return float(chi2.isf(SCREEN_ALPHA / n_tests, df)) / R.shape[0]


def column_ranks(V: np.ndarray) -> np.ndarray:
    """The ranks of every column's values, 1 to ``n``, ties at their average rank: ``scipy.stats.rankdata(V,
    axis=0)`` for finite values, computed for all the columns at once (rankdata ranks them one at a time)."""
    V = np.asarray(V, dtype=np.float64)
    n = V.shape[0]
    if V.size == 0:
        return np.zeros(V.shape)
    order = np.argsort(V, axis=0, kind="stable")
    s = np.take_along_axis(V, order, axis=0)
    idx = np.arange(n)[:, None]
    new = np.ones(V.shape, dtype=bool)
    new[1:] = s[1:] != s[:-1]  # the first of a run of ties
    last = np.ones(V.shape, dtype=bool)
    last[:-1] = new[1:]  # the last of a run of ties
    start = np.maximum.accumulate(np.where(new, idx, 0), axis=0)
    end = np.minimum.accumulate(np.where(last, idx, n - 1)[::-1], axis=0)[::-1]
    out = np.empty(V.shape)
    np.put_along_axis(out, order, (start + end) / 2.0 + 1.0, axis=0)
    return out


def relevance(fam: TabularFamily, values: np.ndarray) -> np.ndarray:
    """A cheap score of features computed on the row sample (``(n_sample, n_features)``, NaN allowed):
    the squared partial correlation, given the table's columns, with what a linear model of them
    leaves unexplained of the target (summed over the one-hot classes), of the values or of their
    ranks (times ``RANK_WEIGHT``, 0.9: a model is given the values), whichever is larger (a
    heavy-tailed ratio correlates by its ranks).  0 without a
    target, and for a feature whose multiple correlation with the columns exceeds ``SCREEN_COPY`` (0.95)."""
    V = np.nan_to_num(np.asarray(values, dtype=np.float64).reshape(values.shape[0], -1), nan=0.0)
    if getattr(fam, "_target", None) is None:
        return np.zeros(V.shape[1])
    return np.maximum(partial_relevance(fam, V), RANK_WEIGHT * partial_relevance(fam, column_ranks(V)))


def orthogonal(fam: TabularFamily, V: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``V`` centred, as unit columns, minus their part in the span of the table's columns (the
    design on the row sample), and what is left of each unit column's squared norm."""
    Vc = V - V.mean(axis=0)
    norm = np.sqrt((Vc**2).sum(axis=0))
    U = Vc / np.where(norm > 1e-12, norm, np.inf)[None, :]
    Q = getattr(fam, "_design_basis", None)
    if Q is not None and Q.size:
        U = U - Q @ (Q.T @ U)
    return U, (U**2).sum(axis=0)


def partial_relevance(fam: TabularFamily, V: np.ndarray) -> np.ndarray:
    """Squared partial correlation of every column of ``V`` with the residual target, given the
    table's columns; 0 for a column (nearly) in their span (multiple correlation > ``SCREEN_COPY``)."""
    R = fam._residual()
    U, n2 = orthogonal(fam, V)
    num = (U.T @ R) ** 2
    den = n2[:, None] * (R**2).sum(axis=0)[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(den > 0, num / den, 0.0).sum(axis=1)
    return np.where(n2 > 1.0 - SCREEN_COPY**2, out, 0.0)


def unit_columns(fam: TabularFamily, V: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every feature of ``V`` (NaN at 0) as a centred unit vector, of its values or of its ranks,
    whichever correlates more with the residual target (:meth:`relevance`), minus its part in the
    span of the table's columns; zero when constant.  Also the weight of each (``RANK_WEIGHT`` for ranks)."""
    V = np.nan_to_num(np.asarray(V, dtype=np.float64), nan=0.0)
    ranks = column_ranks(V)
    by_rank = RANK_WEIGHT * partial_relevance(fam, ranks) > partial_relevance(fam, V)
    V = np.where(by_rank[None, :], ranks, V)
    return orthogonal(fam, V)[0], np.where(by_rank, RANK_WEIGHT, 1.0)


def own_unit_columns(fam: TabularFamily, vals: list[np.ndarray],
                     screened: Sequence[int] | None) -> tuple[np.ndarray, np.ndarray]:
    """:func:`unit_columns` of a point's draws, those with a screened twin (``screened[i] >= 0``) taken from
    the screen (the same values give the same unit column: each column's is computed alone)."""
    at = np.asarray(screened if screened is not None else [-1] * len(vals), dtype=np.int64)
    Z = np.empty((vals[0].shape[0], len(vals)))
    w = np.empty(len(vals))
    twin = at >= 0
    Z[:, twin], w[twin] = fam._screen_Z[:, at[twin]], fam._screen_w[at[twin]]
    if (~twin).any():
        Z[:, ~twin], w[~twin] = unit_columns(fam, np.column_stack([v for v, t in zip(vals, twin, strict=True) if not t]))
    return Z, w


def screened_set(fam: TabularFamily, exprs: list[dict], vals: list[np.ndarray], seen: set[str], budget: float,
                 limit: float, screened: Sequence[int] | None = None) -> TabularBatch:
    """The point's draws merged with the screened first-order candidates, chosen by forward selection.

    First the candidates the search's evaluator rescored (:meth:`bind_evaluator`) with a positive
    gain, best gain per cost first, each taken while its relevance *given those kept* (its part
    orthogonal to them, against the residual target with their part removed) is above the floor;
    rescored candidates without a positive gain are never taken.  Then, at each step, the candidate
    of highest relevance per cost given those kept joins, while it is above the floor and the budget
    lasts.  A candidate whose multiple correlation with those kept exceeds ``SCREEN_REDUNDANT`` is
    never taken.  When none is above the floor, the single most relevant; when none can be taken at
    all, the point's own draws.  ``screened``: per draw, the index of the screened candidate with the same
    values (its unit column is taken from the screen), or -1."""
    gains = fam._rescored
    if fam._residual_only:
        return residual_set(fam, budget, limit)
    blocks = []  # (unit columns, weights, usable, expressions, costs): the point's own draws, then the screened
    if vals:
        Zo, wo = own_unit_columns(fam, vals, screened)
        # a draw the evaluator rescored is taken as the screened candidate (the same structure)
        own = np.array([not gains or _structure(e) not in gains for e in exprs], dtype=bool)
        blocks.append((Zo, wo, own, list(exprs), np.array([len(expr_ops(e)) for e in exprs], dtype=np.float64)))
    blocks.append((fam._screen_Z, fam._screen_w,
                   np.array([(k not in seen or k in gains) and gains.get(k, 1.0) > 0.0 for k in fam._screen_keys],
                            dtype=bool) & offered_mask(fam),
                   [e for e, _ in fam._screened], fam._screen_costs))
    R = fam._residual() - fam._residual().mean(axis=0)
    state = []
    for Z, w, usable, ex, costs in blocks:
        n2 = (Z**2).sum(axis=0)
        state.append({"Z": Z, "w": w, "ok": usable & (n2 > 0.0), "ex": ex, "costs": costs,
                      "ZR": Z.T @ R, "n2": n2.copy()})
    Q: list[np.ndarray] = []
    chosen: list[dict] = []
    acc: dict[str, Any] = {"QR": np.zeros((0, R.shape[1])), "total": 0.0}
    min_norm = 1.0 - SCREEN_REDUNDANT**2  # what is left of a unit vector this correlated with those kept

    def relevance_given_kept(st: dict) -> np.ndarray:
        # the current residual target is R - Q Q'R; a candidate's part orthogonal to those kept has
        # squared norm n2 and inner product ZR with it (both updated as candidates are kept)
        r2 = (R**2).sum(axis=0) - (acc["QR"] ** 2).sum(axis=0)
        ok = st["ok"] & (st["n2"] > min_norm) & (acc["total"] + st["costs"] <= budget + 1e-9)
        with np.errstate(divide="ignore", invalid="ignore"):
            rel = st["w"] * (st["ZR"] ** 2 / (st["n2"][:, None] * np.where(r2 > 1e-300, r2, np.inf)[None, :])
                             ).sum(axis=1)
        return np.where(ok, rel, -np.inf)

    def take(st: dict, i: int) -> None:
        z = st["Z"][:, i] - (np.column_stack(Q) @ np.array([q @ st["Z"][:, i] for q in Q]) if Q else 0.0)
        q = z / np.sqrt(max(float(z @ z), 1e-300))
        Q.append(q)
        acc["QR"] = np.vstack([acc["QR"], q @ R])
        for s2 in state:
            a = q @ s2["Z"]
            s2["n2"] -= a**2
            s2["ZR"] -= np.outer(a, q @ R)
        st["ok"][i] = False
        chosen.append(st["ex"][i])
        acc["total"] += st["costs"][i]

    if gains:  # the evaluator's choice first
        scr = state[-1]
        ranked = sorted((-gains[k] / scr["costs"][i], i) for i, k in enumerate(fam._screen_keys)
                        if gains.get(k, 0.0) > 0.0)
        for _, i in ranked:
            if len(chosen) >= limit:
                break
            if relevance_given_kept(scr)[i] > fam._floor:
                take(scr, i)
    while len(chosen) < limit:
        best, best_b = (-np.inf, -1, 0.0), -1
        for b, st in enumerate(state):
            rel = relevance_given_kept(st)
            if not np.isfinite(rel).any():
                continue
            i = int(np.argmax(rel / st["costs"]))
            if rel[i] / st["costs"][i] > best[0]:
                best, best_b = (rel[i] / st["costs"][i], i, float(rel[i])), b
        if best_b < 0:
            break
        _, i, rel_i = best
        if rel_i <= fam._floor and chosen:
            break
        take(state[best_b], i)
        if rel_i <= fam._floor:  # none above the floor: the most relevant alone
            break
    if not chosen:  # every candidate (nearly) a copy of the columns: the point's own draws
        return TabularBatch(list(exprs))
    return TabularBatch(chosen)


def residual_set(fam: TabularFamily, budget: float, limit: float) -> TabularBatch:
    """``rescore_by="residual"``: the rescored candidates of positive gain, best gain per cost first,
    each while the budget lasts and none more than ``SCREEN_REDUNDANT``-correlated (multiple
    correlation) with those kept; empty when none has a positive gain."""
    gains = fam._rescored
    costs = [float(len(expr_ops(e))) for e, _ in fam._screened]
    offered = offered_mask(fam)
    ranked = sorted((-gains[k] / costs[i], i) for i, k in enumerate(fam._screen_keys)
                    if gains.get(k, 0.0) > 0.0 and offered[i])
    Q: list[np.ndarray] = []
    chosen: list[dict] = []
    total = 0.0
    min_norm = 1.0 - SCREEN_REDUNDANT**2
    for _, i in ranked:
        if len(chosen) >= limit:
            break
        if total + costs[i] > budget + 1e-9:
            continue
        z = fam._screen_Z[:, i].copy()  # a unit vector less its part in the span of the columns
        for q in Q:
            z -= (q @ z) * q
        left = float(z @ z)
        if left <= min_norm:
            continue
        Q.append(z / np.sqrt(left))
        chosen.append(fam._screened[i][0])
        total += costs[i]
    return TabularBatch(chosen)

