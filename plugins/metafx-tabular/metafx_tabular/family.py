"""Feature family ``tabular``: small operator expressions over the columns of a table.

Tables may be pandas DataFrames with numeric, categorical and datetime
columns and missing values (``metafx_tabular.frame`` encodes them:
category codes, days since 1970, NaN).  Arithmetic operators read the numeric
columns; ``isna``, ``count``, ``pair_count``, the group-by operators and the
date operators read columns of their own kind directly (depth 1, see
``metafx_tabular.operators``).  What follows describes the arithmetic
features; the others follow the same drawing rules with their arguments'
kinds (the anchor column is the operator's first argument).

A feature is an expression tree whose leaves are 1 to 3 distinct columns
(divided by their training standard deviation, and centred on their mean
unless all their training values are positive: a positive quantity keeps its
origin, so that products, ratios and logarithms mean what they say) and whose
inner nodes are operators (``metafx_tabular.operators``): ``threshold``,
``log`` and ``square`` (unary), ``mul``, ``ratio`` and ``diff`` (binary).
Every inner node's output is clipped to the range it had on the training rows
(so a ratio or a product cannot explode on an unusual new row; ``clip_quantile``
winsorizes the training rows too) and standardized; thresholds stay 0/1.  Examples::

    mean radius * worst texture                 arity 2, depth 1, op mul
    log(worst area)                             arity 1, depth 1, op log
    [bmi - s5 > q70]                            arity 2, depth 2, op threshold
    (log(bmi) * bp) / s3                        arity 3, depth 3, op ratio

Meta-features (the search space) -- none needs the feature's values:

* ``arity``: number of input columns, 1..``max_arity`` (at most 2 at depth 1);
* ``depth``: operator nesting depth, 1..``max_depth``;
* ``op``: the root operator, an index into the enabled operators, a
  categorical dimension (``nominal_op``);
* ``rank``: quality rank of the best input column, 0 (the best column) to 1
  (the worst).  Each column's own rank is computed once in
  :meth:`TabularFamily.fit` from a cheap score of the column alone (ANOVA F
  for class labels, absolute correlation for a real target) -- a property of
  the inputs, not of the feature;
* ``tag`` (only when ``column_tags`` are given): the user's tag the inputs carry.

Drawing at a point: a tree shape with the point's arity, depth and root
operator kind is chosen uniformly among the possible ones, the other
operators are drawn uniformly, and the input columns are an *anchor* drawn
with weights ``exp(-((column rank - rank) / rank_width)**2 / 2)`` and partners
drawn uniformly among the columns ranked no better than the anchor (so a good
column meets columns of every quality, as in "area x smoothness"), all among
the columns carrying ``tag`` when at least ``arity`` of them do.  An
infeasible point (a binary root with arity 1, a depth the arity cannot have)
is moved to the nearest feasible one; :meth:`TabularFamily.describe` reports
the drawn features' actual meta-features.  Repeats, features constant on the
training rows and affine copies of an input column (a threshold or square of
a 0/1 column) are skipped; drawing stops when the budget is used or no new
feature turns up.

Candidate screen (``screen``, on by default): every depth-1 feature the table
allows is built once at :meth:`TabularFamily.fit` and scored alone; a point's
set is chosen from its own draws and these candidates together, by relevance,
above a noise floor, without near-copies, within the budget (see ``screen``).
The meta-features then matter beyond the first order (``max_depth`` > 1,
three columns) and in what a point's own draws add.

Cost model: a feature costs its number of operators (one pass over the data
each), so a budget of ``B`` buys ``B`` depth-1 features and fewer deeper ones.

Constants learned from data (column means and scales, each node's centring,
thresholds, log shifts) are stored in the feature specifications and the
family's parameters, so a result file recomputes its features on new rows
without the training data.
"""

from __future__ import annotations

import json
import math
from typing import Any, Mapping, Sequence

import numpy as np

from metafx.plugin import (
    Dimension,
    FamilyExport,
    FeatureFamily,
    FeatureValues,
    Interval,
    MetaFeatureSpace,
    Options,
    Satisfies,
    ValidationError,
)

from .batch import TableValues, TabularBatch
from .export import tabular_c, tabular_numpy
from .expressions import (
    COMMUTATIVE,
    MAX_ARITY,
    MAX_DEPTH,
    SYMMETRIC,
    _check_expr,
    _level_codes,
    _structure,
    expr_columns,
    expr_depth,
    expr_ops,
    monotone_in_one_column,
)
from .frame import (
    KINDS,
    EncodedTable,
    check_frame_names,
    encode,
    frame_names,
    infer_kinds,
    learn_categories,
    needs_encoding,
)
from .operators import ARITH, OPERATORS, QUANTILES, operator
from .shapes import _shape_ops, tree_shapes
from .tasks import column_scores, infer_task

# TabularBatch, TableValues (metafx_tabular.batch) and expr_columns, expr_depth, expr_ops
# (metafx_tabular.expressions) are also importable from here, where they were first defined
__all__ = ["TabularFamily", "TabularBatch", "TableValues", "expr_columns", "expr_depth", "expr_ops"]

#: categories of a column one-hot encoded in the design matrix (the most frequent ones)
MAX_ONEHOT = 20
#: candidates of the screen (and a point's draws) more correlated than this with a kept one are dropped
SCREEN_REDUNDANT = 0.95
#: family-wise level of the screen's floor: a candidate is kept only if its relevance is above what
#: noise reaches with this probability among all the candidates scored (Bonferroni)
SCREEN_ALPHA = 0.05
#: the relevance of a feature's ranks counts this much of that of its values: a model is given the values
RANK_WEIGHT = 0.9


def _residual_target(D: np.ndarray, y: np.ndarray, task: str) -> np.ndarray:
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


def _basis(D: np.ndarray) -> np.ndarray:
    """An orthonormal basis of the span of the centred columns of ``D`` (missing values at the column mean)."""
    D = np.array(D, dtype=np.float64)
    if D.size == 0:
        return np.zeros((D.shape[0], 0))
    with np.errstate(invalid="ignore"), __import__("warnings").catch_warnings():
        __import__("warnings").simplefilter("ignore", RuntimeWarning)
        mu = np.nan_to_num(np.nanmean(D, axis=0))
    D = np.where(np.isnan(D), mu[None, :], D)
    D = D - D.mean(axis=0)
    U, sv, _ = np.linalg.svd(D, full_matrices=False)
    return U[:, sv > 1e-8 * max(float(sv.max()) if sv.size else 0.0, 1e-300)]


def _score_matrix(X: np.ndarray, kinds: Sequence[str]) -> np.ndarray:
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


def _known_operators(value: Any) -> bool:
    """A non-empty list of operator names of :data:`OPERATORS` (the ``operators`` parameter)."""
    if isinstance(value, (str, bytes, Mapping)):
        return False
    names = list(value)
    return bool(names) and all(isinstance(o, str) and o in OPERATORS for o in names)


def _known_kinds(value: Any) -> bool:
    """A list of column kinds, or ``{column index or name: kind}`` (the ``column_kinds`` parameter)."""
    if isinstance(value, (str, bytes)):
        return False
    kinds = list(value.values()) if isinstance(value, Mapping) else list(value)
    return all(isinstance(k, str) and k in KINDS for k in kinds)


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


# --------------------------------------------------------------------------- the family
class TabularFamily(FeatureFamily[TabularBatch]):
    """Operator expressions over 1-3 columns of a numeric table (see the module docstring).

    Parameters
    ----------
    operators : list of str, optional
        The enabled operators, a subset of ``threshold, log, square, mul, ratio,
        diff`` (all when omitted).
    max_arity : int, default 3
        Most input columns per feature (1-3).
    max_depth : int, default 1
        Deepest operator nesting (1-3).  Depth 1 (one operator over one or two
        columns) is the default because on small tables a search over deeper
        features picks noise (measurements: docs/results/tabular.md, "Figures behind the
        plugin's defaults").
    rank_width : float, default 0.15
        Width of the anchor column's weights around the ``rank`` meta-feature.
    column_names : list of str, optional
        Names used in feature descriptions (``x0, x1, ...`` when omitted).
    column_tags : list or dict, optional
        A tag per column (``None``/``""`` for none), or ``{column index or name: tag}``;
        adds the ``tag`` meta-feature.
    task : {"auto", "classification", "regression"}, default "auto"
        How ``y`` is read when columns are ranked in :meth:`fit` (``auto``:
        see ``metafx_tabular.tasks.infer_task``).
    sample_size : int, default 2000
        Training rows kept to learn each drawn feature's constants.
    clip_quantile : float, default 0.0
        Every constructed column is clipped to its training rows' quantiles
        ``clip_quantile`` and ``1 - clip_quantile``: 0 clips new rows to the
        training range; e.g. 0.01 also winsorizes the training rows (with
        heavy-tailed columns; docs/results/tabular.md, "Figures behind the plugin's
        defaults", compares the two).
    column_kinds : list or dict, optional
        The kind of every column, ``"numeric"``, ``"categorical"`` or
        ``"datetime"`` (a list, or ``{column index or name: kind}`` for some);
        read from the dtypes when omitted (strings and pandas ``category``
        columns are categorical; see ``metafx_tabular.frame``).  Learned
        (the full list) by :meth:`fit`.
    max_levels : int, default 1000
        Most codes of a categorical column; the rarest categories beyond share
        the code ``"(other)"``.  Frequency encodings (``count``) keep the
        counts of every coded level; ``pair_count`` keeps the 50 most frequent
        of each column (the others share a row of its table).
    missing : {"propagate", "zero"}, default "propagate"
        What :meth:`transform` gives where a feature's input is missing: NaN
        (as scikit-learn's scalers do; boosted trees read it), or 0 (the
        training mean of a scaled feature).  The search always sees 0, and
        can pick the ``isna`` indicator of a column.
    mix : bool, default False
        Adds the value "any" to the ``op`` meta-feature: a set drawn there
        gives each feature its own root operator (uniform among the enabled
        ones), so the search can prefer a mixed set to a single-operator one.  On a
        table with several operator groups, :meth:`group_starts` starts there too.
        Off by default: the candidate screen (``screen``) mixes operators already.
    nominal_op : bool, default True
        The ``op`` meta-feature as a categorical dimension (its values stay the
        operators' indices): a search's move goes to any other operator, not
        to the next index, so no operator is out of reach.  False: an integer
        index moved to its neighbours.  Results: ``docs/results/tabular.md``.
    level_columns : int, default 20
        A numeric column with 2 to ``level_columns`` distinct training values
        can also be read as a category by ``count``, ``pair_count`` and the
        group-by operators (``count(rooms)``, ``mean(price by rooms)``); 0: never.
    screen : int, default 2000
        Most first-order candidates enumerated at :meth:`fit` (every operator
        over every column or pair of columns of the kinds it reads, a
        threshold at three quantiles, every varying date part; drawn at random
        beyond).  Each is scored alone (:meth:`relevance`); a point's set is
        then chosen from the point's own draws and these candidates together:
        best relevance per cost first, above a floor noise reaches with
        probability 5 % over all the candidates (Bonferroni), none more than
        0.95-correlated with one kept before, within the budget (the single
        most relevant when none is above the floor).  0: a point's own draws
        only (as ``oversample`` says).  Needs ``y`` at :meth:`fit`.
    rescore : int, default 8
        Before a search's first step, its own evaluator scores the ``rescore``
        most relevant screened candidates, and the most relevant one of every
        other root operator (above the floor), each with the table's columns,
        against the columns alone (:meth:`bind_evaluator`).  A point's set then
        takes these first, best gain first (each above the floor given those
        taken, no near-copy, within the budget), and never one whose gain is
        not positive; the screen's order goes on from there.  The proxy scores
        a feature's ranks as well as its values, the evaluator's model reads
        the values: on ``log(a) + b / c`` the proxy prefers ``c / a`` and the
        evaluator ``log(a)``.  0: the screen's order alone.  Results:
        ``docs/results/tabular.md``.
    drop_monotone : {False, "auto", True}, default False
        Leave out of the screened candidates, the rescored ones and a point's
        draws every feature that is a monotone function of one column
        (``[x > q50]``, ``log(x)``, ``x^2`` of a column of one sign,
        ``year(date)``; ``metafx_tabular.expressions.monotone_in_one_column``):
        a tree model reads such a feature as the column itself.  ``"auto"``:
        when the search's evaluator says its model reads them so (its
        ``reads_monotone_transforms`` is False, as ``cv-tree``'s; learned by
        :meth:`bind_evaluator`).  Not the default: on the plugin's dev tables
        it raised LightGBM's gain of the confirmed ``cv-tree`` sets but lowered
        that of the search's own sets on two tables (docs/results/tabular.md).
    rescore_by : {"auto", "evaluator", "residual", "gate"}, default "auto"
        How the shortlisted candidates are rescored (``rescore``).  ``"evaluator"``:
        by the search's evaluator, as above.  ``"residual"``: by what each adds,
        alone, to the evaluator's model of the table's columns -- small trees on
        the one candidate boosted from that model's out-of-fold prediction on the
        evaluator's folds, their gain in held-out loss
        (``metafx_tabular.rescore.residual_gains``, the first-order score of
        OpenFE); the shortlist then takes the ``rescore`` most relevant candidates
        and the most relevant of every other root operator whatever the screen's
        floor, and a point's set holds only the candidates of positive gain, best
        gain per cost first (no near-copy, within the budget): none when no
        candidate explains part of what the columns' model gets wrong.  For
        features meant for a boosted-tree model: it adds a feature only where one
        explains what the columns' trees miss.  ``"gate"``: the sets of
        ``"evaluator"``, unless no shortlisted candidate has a positive residual
        gain (computed as with ``"residual"``): then every set is empty.
        ``"auto"``: the evaluator's ``table_rescore`` (``"evaluator"`` for
        ``cv-linear`` and ``cv-tree``; neither ``"residual"`` nor ``"gate"`` was
        adopted for ``cv-tree``: docs/results/tabular.md).  A search whose sets
        are all empty logs that it drew no feature: the table's columns alone
        are its answer.  With ``rescore=0`` nothing is rescored and
        ``rescore_by`` has no effect.
    oversample : float, default 1
        ``f > 1`` draws ``f`` times the budget at a point and keeps the draws
        of highest :meth:`relevance` per cost that fit the budget: a
        deterministic pick among the point's features, so the picks recur
        across folds of the same data more often.
    n_columns, column_center, column_scale, column_rank, categories, column_missing, column_levels :
        Learned by :meth:`fit` (kept as parameters so a result file rebuilds
        the family without data).  ``column_levels``: the distinct (scaled)
        values of every numeric column with 2..20 of them, which the operators
        on categories can then read as categories (a leaf
        ``{"col": j, "levels": [...]}``); None for the other columns.

    Examples
    --------
    >>> import numpy as np
    >>> from metafx_tabular import TabularFamily
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(100, 4)); y = (X[:, 0] * X[:, 1] > 0).astype(int)
    >>> fam = TabularFamily(column_names=["a", "b", "c", "d"]).fit(X, y)
    >>> batch = fam.draw({"arity": 2, "depth": 1, "op": 3, "rank": 0.0}, 3, rng)
    >>> fam.feature_names(batch)[0]  # the candidates screened at fit, best first
    'a * b'
    >>> fam.transform(X, batch).shape[0]
    100
    """

    name = "tabular"
    data_kind = "table"
    #: reads pandas DataFrames with categorical, datetime and missing values itself (``check_data``):
    #: a transformer should hand it ``X`` unvalidated (see :class:`metafx_tabular.TableExtractor`)
    accepts_frames = True
    summary = "operator expressions (threshold, log, square, mul, ratio, diff) over 1-3 table columns"
    #: the set evaluator a front end (the ``metafx`` command line) uses when none is named: it scores
    #: class labels (log-loss) and real targets (R^2) alike
    default_evaluator = "cv-linear"

    def __init__(
        self,
        operators: Sequence[str] | None = None,
        max_arity: int = 3,
        max_depth: int = 1,
        rank_width: float = 0.15,
        column_names: Sequence[str] | None = None,
        column_tags: Sequence[str | None] | Mapping[Any, str] | None = None,
        task: str = "auto",
        sample_size: int = 2000,
        clip_quantile: float = 0.0,
        column_kinds: Sequence[str] | Mapping[Any, str] | None = None,
        max_levels: int = 1000,
        missing: str = "propagate",
        mix: bool = False,
        oversample: float = 1.0,
        nominal_op: bool = True,
        screen: int = 2000,
        level_columns: int = 20,
        rescore: int = 8,
        drop_monotone: bool | str = False,
        rescore_by: str = "auto",
        n_columns: int | None = None,
        column_center: Sequence[float] | None = None,
        column_scale: Sequence[float] | None = None,
        column_rank: Sequence[float] | None = None,
        categories: Sequence[Sequence[str] | None] | None = None,
        column_missing: Sequence[bool] | None = None,
        column_levels: Sequence[Sequence[float] | None] | None = None,
    ) -> None:
        self.operators = operators
        self.max_arity = max_arity
        self.max_depth = max_depth
        self.rank_width = rank_width
        self.column_names = column_names
        self.column_tags = column_tags
        self.task = task
        self.sample_size = sample_size
        self.clip_quantile = clip_quantile
        self.column_kinds = column_kinds
        self._given_kinds = column_kinds
        self.max_levels = max_levels
        self.missing = missing
        self.mix = mix
        self.oversample = oversample
        self.nominal_op = nominal_op
        self.screen = screen
        self.level_columns = level_columns
        self.rescore = rescore
        self.drop_monotone = drop_monotone
        self.rescore_by = rescore_by
        self.column_levels = column_levels
        self.n_columns = n_columns
        self.column_center = column_center
        self.column_scale = column_scale
        self.column_rank = column_rank
        self.categories = categories
        self.column_missing = column_missing
        self._sample: np.ndarray | None = None
        self._target: np.ndarray | None = None
        self._screened: list[tuple[dict, np.ndarray]] = []
        self._screen_rel: np.ndarray = np.zeros(0)
        self._screen_Z: np.ndarray = np.zeros((0, 0))
        self._screen_w: np.ndarray = np.zeros(0)
        self._screen_keys: list[str] = []
        self._design_basis: np.ndarray | None = None
        self._floor = 0.0
        self._rescored: dict[str, float] = {}  # structure key of a rescored candidate -> its gain (bind_evaluator)
        self._one_sign: np.ndarray | None = None  # per column: scaled training values all >= 0 or all <= 0
        self._residual_only = False  # a point's set: only the candidates of positive residual gain (rescore_by)
        self._gate_closed = False  # rescore_by="gate" and no candidate of positive residual gain: empty sets
        self._skip_monotone = False  # leave out monotone functions of one column (drop_monotone, bind_evaluator)
        self._screen_mono: np.ndarray = np.zeros(0, dtype=bool)

    # ------------------------------------------------------------------ parameters
    #: what each parameter accepts, checked by :meth:`check_params` (see :mod:`metafx.core.params`)
    _parameter_constraints = {
        "operators": [None, Satisfies(_known_operators, "a non-empty list of operator names among "
                                      + ", ".join(OPERATORS), invalid=[[], ["no-such-operator"], "mul"])],
        "max_arity": [Interval("int", 1, MAX_ARITY)],
        "max_depth": [Interval("int", 1, MAX_DEPTH)],
        "rank_width": [Interval("real", 0, None, closed="neither")],
        "column_names": [None, "array-like"],
        "column_tags": [None, "dict", "array-like"],
        "task": [Options("auto", "classification", "regression")],
        "sample_size": [Interval("int", 10, None)],
        "clip_quantile": [Interval("real", 0.0, 0.5, closed="left")],
        "column_kinds": [None, Satisfies(_known_kinds, "a list or {column index or name: kind} of kinds "
                                         "among " + ", ".join(KINDS), invalid=[["no-such-kind"], {0: "text"}, "numeric"])],
        "max_levels": [Interval("int", 2, None)],
        "missing": [Options("propagate", "zero")],
        "mix": ["boolean"],
        "oversample": [Interval("real", 1.0, 100.0)],
        "nominal_op": ["boolean"],
        "screen": [Interval("int", 0, None)],
        "rescore": [Interval("int", 0, None)],
        "drop_monotone": [Options("auto"), "boolean"],
        "rescore_by": [Options("auto", "evaluator", "residual", "gate")],
        "level_columns": [Interval("int", 0, None)],
        "n_columns": [None, Interval("int", 1, None)],
        "column_center": [None, "array-like"],
        "column_scale": [None, "array-like"],
        "column_rank": [None, "array-like"],
        "categories": [None, "array-like"],
        "column_missing": [None, "array-like"],
        "column_levels": [None, "array-like"],
    }

    def check_params(self) -> None:
        """The declared constraints (``_parameter_constraints``), then what ties the learned parameters together:
        with ``n_columns``, every per-column list has ``n_columns`` entries of the right kind."""
        super().check_params()
        if self.operators is not None:
            ops = [str(o) for o in self.operators]
            self.operators = [o for o in OPERATORS if o in ops]  # canonical order
        if self.n_columns is not None:
            d = int(self.n_columns)
            per_column: dict[str, list[float]] = {}
            for pname in ("column_center", "column_scale", "column_rank"):
                v = getattr(self, pname)
                if v is None or len(v) != d:
                    raise ValidationError(f"{pname} must list {d} values when n_columns={d} is given (call fit(X) instead)")
                per_column[pname] = [float(x) for x in v]
            self.column_center = per_column["column_center"]
            self.column_scale = per_column["column_scale"]
            self.column_rank = per_column["column_rank"]
            if min(self.column_scale) <= 0:
                raise ValidationError("column_scale values must be positive")
            kinds: Sequence[str] | Mapping[Any, str] = self.column_kinds if self.column_kinds is not None \
                else ["numeric"] * d
            if isinstance(kinds, Mapping) or len(kinds) != d or any(k not in KINDS for k in kinds):
                raise ValidationError(f"column_kinds must list {d} kinds ({', '.join(KINDS)}) when n_columns={d} is given")
            self.column_kinds = [str(k) for k in kinds]
            cats = self.categories if self.categories is not None else [None] * d
            if len(cats) != d or any((c is None) != (k != "categorical") for c, k in zip(cats, self.column_kinds)):
                raise ValidationError("categories must list the categories of every categorical column (None for the others)")
            self.categories = [None if c is None else [str(v) for v in c] for c in cats]
            miss = self.column_missing if self.column_missing is not None else [False] * d
            if len(miss) != d:
                raise ValidationError(f"column_missing must list {d} booleans when n_columns={d} is given")
            self.column_missing = [bool(v) for v in miss]
            levels = self.column_levels if self.column_levels is not None else [None] * d
            if len(levels) != d or any(lv is not None and (k != "numeric" or len(lv) < 2)
                                       for lv, k in zip(levels, self.column_kinds)):
                raise ValidationError(f"column_levels must list {d} entries: None, or the >= 2 sorted levels of a "
                                      "numeric column read as a category")
            self.column_levels = [None if lv is None else [float(v) for v in lv] for lv in levels]

    @property
    def enabled_operators(self) -> list[str]:
        """The enabled operators in :data:`OPERATORS` order (the ``op`` meta-feature indexes this list).

        Once the family has seen the table, operators whose arguments the table
        cannot supply are left out (``count`` without a categorical column,
        ``isna`` without missing values, ...); likewise a binary arithmetic
        operator (``mul``, ``ratio``, ``diff``) needs two numeric columns and
        ``max_arity >= 2``, a unary one a numeric column.  On a numeric table
        without missing values this is the six arithmetic operators.

        (A binary arithmetic operator kept on a table with one numeric column
        would be drawn as the nearest unary one: several ``op`` values giving
        the same features, a flat stretch of the space that kept the search
        away from the operators on other kinds of columns.)"""
        ops = list(self.operators) if self.operators is not None else list(OPERATORS)
        if self.n_columns is None:
            return ops
        kinds = self._kinds()
        n = {k: kinds.count(k) for k in KINDS}
        n["categorical"] = int(self._eligible("categorical").sum())
        n["missing"] = int(sum(self.column_missing or []))
        out = []
        for o in ops:
            op = OPERATORS[o]
            if o in ARITH:
                ok = n["numeric"] >= op.arity and int(self.max_arity) >= op.arity
            else:
                need = {k: op.kinds.count(k) for k in set(op.kinds)}
                ok = all(n[k] >= c for k, c in need.items())
                if ok and op.arity == 2:  # two distinct columns (a numeric column may also be read as a category)
                    p0, p1 = (np.flatnonzero(self._eligible(k)) for k in op.kinds)
                    ok = bool(np.union1d(p0, p1).size >= 2 and p0.size and p1.size)
            if ok:
                out.append(o)
        if not out:
            raise ValidationError(f"none of the operators {', '.join(ops)} applies to this table "
                                  f"(column kinds: {n}); enable others with operators=[...]")
        return out

    def _kinds(self) -> list[str]:
        d = self._need_fit()
        return list(self.column_kinds) if isinstance(self.column_kinds, (list, tuple)) else ["numeric"] * d

    def _eligible(self, kind: str) -> np.ndarray:
        """Columns an argument of ``kind`` can read ("missing": columns with missing values)."""
        cache = self.__dict__.get("_draw_cache")
        if cache is not None and ("eligible", kind) in cache:
            return cache[("eligible", kind)].copy()
        if kind == "missing":
            out = np.asarray(self.column_missing, dtype=bool)
        else:
            out = np.array([k == kind for k in self._kinds()], dtype=bool)
            if kind == "categorical" and self.column_levels is not None:
                out |= np.array([lv is not None for lv in self.column_levels], dtype=bool)
        if cache is not None:
            cache[("eligible", kind)] = out.copy()
        return out

    def _levels(self, j: int) -> Sequence[float] | None:
        """The levels of numeric column ``j`` when it can be read as a category (else None)."""
        if self._kinds()[j] != "numeric" or self.column_levels is None:
            return None
        return self.column_levels[j]

    def _need_fit(self) -> int:
        if self.n_columns is None:
            raise ValidationError("the tabular family has not seen the table yet: call fit(X, y) first")
        return int(self.n_columns)

    def _rows(self) -> np.ndarray:
        """The scaled row sample :meth:`fit` keeps (drawn features learn their constants on it)."""
        if self._sample is None:
            raise ValidationError("drawing needs the training rows: call fit(X, y) on this family first")
        return self._sample

    def _residual(self) -> np.ndarray:
        """What a linear model of the table leaves of the target on the row sample (:meth:`relevance`)."""
        if self._target is None:
            raise ValidationError("scoring features needs the target: call fit(X, y) with y on this family first")
        return self._target

    def _names(self) -> list[str]:
        d = self._need_fit()
        return list(self.column_names) if self.column_names is not None else [f"x{j}" for j in range(d)]

    def _tags(self) -> list[str]:
        """The tag of every column ("" for none), from ``column_tags``."""
        d = self._need_fit()
        tags = self.column_tags
        if tags is None:
            return [""] * d
        if isinstance(tags, Mapping):
            names = self._names()
            out = [""] * d
            for key, tag in tags.items():
                if isinstance(key, str) and key in names:
                    j = names.index(key)
                elif isinstance(key, (int, np.integer)) and 0 <= int(key) < d:
                    j = int(key)
                else:
                    raise ValidationError(f"column_tags key {key!r} is neither a column index (0..{d - 1}) nor a column name")
                out[j] = "" if tag is None else str(tag)
            return out
        if len(tags) != d:
            raise ValidationError(f"column_tags lists {len(tags)} tags but the table has {d} columns")
        return ["" if t is None else str(t) for t in tags]

    def tag_names(self) -> list[str]:
        """The distinct tags, sorted (the ``tag`` meta-feature indexes this list)."""
        return sorted({t for t in self._tags() if t})

    # ------------------------------------------------------------------ data
    def check_data(self, X: Any) -> EncodedTable:
        """The table encoded as floats (``metafx_tabular.frame``): numbers, category codes and
        days since 1970, NaN where a value is missing.

        Accepts a pandas DataFrame, an object array or a numeric array.  Before
        :meth:`fit` the columns' kinds and categories are read from ``X``; after
        it, ``X`` must have the fitted table's columns and is encoded the same way.
        Infinite values raise :class:`metafx.ValidationError`; missing values are allowed.
        """
        if not isinstance(X, EncodedTable):  # columns are matched by name: a frame must have the fitted names
            check_frame_names(X, self.column_names, "seen in fit" if self.n_columns is not None else "column_names")
        cats: Sequence[Sequence[str] | None]
        if isinstance(X, EncodedTable) and X.kinds is not None:
            arr = X
        elif self.n_columns is None:
            kinds = infer_kinds(X, self.column_kinds)
            cats = learn_categories(X, kinds, int(self.max_levels)) if needs_encoding(X) or "categorical" in kinds \
                else [None] * len(kinds)
            arr = EncodedTable.make(encode(X, kinds, cats), kinds, cats, frame_names(X))
        else:
            kinds, cats = self._kinds(), self.categories or [None] * int(self.n_columns)
            arr = EncodedTable.make(encode(X, kinds, cats), kinds, cats, frame_names(X) or self.column_names)
        if arr.ndim != 2:
            raise ValidationError(f"X must be 2-D (n_samples, n_features), got shape {arr.shape}")
        if arr.shape[0] == 0 or arr.shape[1] == 0:
            raise ValidationError(f"X has shape {arr.shape}; the tabular family needs at least one row and one column")
        if self.n_columns is not None and arr.shape[1] != int(self.n_columns):
            raise ValidationError(f"X has {arr.shape[1]} columns but the family was fitted on {self.n_columns}")
        if np.isinf(arr).any():
            j = int(np.flatnonzero(np.isinf(arr).any(axis=0))[0])
            raise ValidationError(f"X contains infinite values (column {j}); missing values (NaN) are allowed")
        return arr

    def fit(self, X: Any, y: Any = None) -> TabularFamily:
        """Learn the columns' kinds, categories, scale and quality rank from ``(X, y)``; keep a row sample for drawing."""
        self.check_params()
        self.n_columns = None  # a new table
        self.column_kinds = self._given_kinds  # a refit starts from the kinds the user gave, not learned ones
        self.categories = None
        X = self.check_data(X)
        kinds, cats = X.kinds, X.categories
        if self.column_names is None and X.names is not None:
            self.column_names = list(X.names)
        X = np.asarray(X)
        d = X.shape[1]
        if self.column_names is not None and len(self.column_names) != d:
            raise ValidationError(f"column_names lists {len(self.column_names)} names but X has {d} columns")
        num = np.array([k == "numeric" for k in kinds])
        miss = np.isnan(X)
        with np.errstate(invalid="ignore"), __import__("warnings").catch_warnings():
            __import__("warnings").simplefilter("ignore", RuntimeWarning)  # all-missing columns
            lo, mean, sd = np.nanmin(X, axis=0), np.nanmean(X, axis=0), np.nanstd(X, axis=0)
        # positive columns keep their origin (ratio scale): products, ratios and logs then mean
        # what they say (area x smoothness, log(proline)); other numeric columns are centred;
        # category codes and days are kept as they are
        center = np.where(num & ~(lo > 0), np.nan_to_num(mean), 0.0)
        scale = np.where(num & (sd > 1e-12), sd, 1.0)
        if y is None:
            rank = np.full(d, 0.5)  # unknown quality: every column in the middle
        else:
            y = np.asarray(y)
            if y.shape[0] != X.shape[0]:
                raise ValidationError(f"X has {X.shape[0]} rows but y has {y.shape[0]} values; they must match")
            task = infer_task(y) if self.task == "auto" else self.task
            score = column_scores(_score_matrix(X, kinds), y, task)
            order = np.argsort(-score, kind="stable")  # best first
            rank = np.empty(d)
            rank[order] = np.arange(d) / max(d - 1, 1)
        self.n_columns = d
        self.column_kinds = list(kinds)
        self.categories = [None if c is None else list(c) for c in cats]
        self.column_missing = miss.any(axis=0).tolist()
        levels: list[list[float] | None] = []
        for j in range(d):
            u = np.unique(X[~miss[:, j], j]) if num[j] else np.zeros(0)
            levels.append(((u - center[j]) / scale[j]).tolist() if 2 <= u.size <= int(self.level_columns) else None)
        self.column_levels = levels
        self.column_center = center.tolist()
        self.column_scale = scale.tolist()
        self.column_rank = rank.tolist()
        if self.column_names is not None:
            self.column_names = [str(n) for n in self.column_names]
        self.column_tags = self._tags() if self.column_tags is not None else None
        self.enabled_operators  # noqa: B018 - raises when no operator applies
        rows = np.random.default_rng(0).permutation(X.shape[0])[: int(self.sample_size)]
        self._sample = (X[np.sort(rows)] - center) / scale
        with np.errstate(invalid="ignore"), __import__("warnings").catch_warnings():
            __import__("warnings").simplefilter("ignore", RuntimeWarning)  # all-missing columns
            Xs = (X - center) / scale
            self._one_sign = (np.nanmin(Xs, axis=0) >= 0) | (np.nanmax(Xs, axis=0) <= 0)
        self._skip_monotone = self.drop_monotone is True
        self._design_basis = _basis(self.design(self._sample))
        self._target = None if y is None else _residual_target(self.design(self._sample), np.asarray(y)[np.sort(rows)],
                                                                 infer_task(y) if self.task == "auto" else self.task)
        self._screen_candidates()
        return self

    # ------------------------------------------------------------------ candidate screen
    def first_order(self) -> list[tuple[str, list[int], dict | None]]:
        """Every depth-1 candidate the table allows: ``(operator, columns, root constants)`` for each
        enabled operator over each (pair of) column(s) of the kinds it reads; a threshold at
        three quantiles, a date part for every part that varies (``root constants`` None: learned
        as in a draw)."""
        groups = self._first_order_groups()
        return [g.get(k) for g in groups for k in range(g.n)]

    def _first_order_groups(self) -> list[_Candidates]:
        """:meth:`first_order` as groups that are counted without being listed: a table of ``d``
        columns has about ``3 d^2`` pair candidates (300 million at 10,000 columns), of which the
        screen builds ``screen`` (2,000) drawn at random; listing them all took gigabytes."""
        self._need_fit()
        ops = self.enabled_operators
        num = np.flatnonzero(self._eligible("numeric")).astype(np.int64)
        groups: list[_Candidates] = []
        for o in ops:
            op = OPERATORS[o]
            if o in ARITH:
                pools = [num] * op.arity
                sym = o in SYMMETRIC
                strict = True  # arithmetic pairs over one pool: a < b when symmetric, a != b otherwise
            else:
                pools = [np.flatnonzero(self._eligible(k)).astype(np.int64) for k in op.kinds]
                sym = o in SYMMETRIC
                strict = False
            if len(pools) == 1:
                cols = [[int(j)] for j in pools[0]]
                if o in ("threshold", "date_part"):
                    listed = []
                    for c in cols:
                        variants = op.variants([self._rows()[:, c[0]]])
                        listed += [(o, c, v) for v in (variants if variants else [None])]
                else:
                    listed = [(o, c, None) for c in cols]
                groups.append(_Candidates.listed(listed))
            else:
                groups.append(_Candidates.pairs(o, pools[0], pools[1], sym, strict))
        return groups

    def _screen_candidates(self) -> None:
        """Enumerate the first-order candidates (at most ``screen`` of them, drawn at random beyond),
        build each on the row sample and score it alone (:meth:`relevance`)."""
        self._screened, self._screen_rel, self._floor, self._screen_keys = [], np.zeros(0), 0.0, []
        self._screen_mono = np.zeros(0, dtype=bool)
        self._rescored = {}
        if not int(self.screen) or self._target is None:
            return
        groups = self._first_order_groups()
        total = sum(g.n for g in groups)
        rng = np.random.default_rng(0)
        if total > int(self.screen):
            keep = np.sort(rng.choice(total, size=int(self.screen), replace=False))
            starts = np.cumsum([0] + [g.n for g in groups])
            at = np.searchsorted(starts, keep, side="right") - 1
            cands = [groups[int(g)].get(int(k - starts[g])) for g, k in zip(at, keep)]
        else:
            cands = [g.get(k) for g in groups for k in range(g.n)]
        seen: set[str] = set()
        ops = self.enabled_operators
        built, keys = [], []
        for o, cols, consts in cands:
            shape = ("U", "L") if len(cols) == 1 else ("B", "L", "L")
            expr, values = self._build(shape, o, cols, rng, root_consts=consts, ops=ops)
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
            with np.errstate(invalid="ignore"), __import__("warnings").catch_warnings():
                __import__("warnings").simplefilter("ignore", RuntimeWarning)
                spread = np.nanmax(V, axis=0) - np.nanmin(V, axis=0)
            ok = (spread > 1e-9) | (miss.any(axis=0) & ~miss.all(axis=0))
            self._screened = [b for b, k in zip(built, ok) if k]
            self._screen_keys = [key for key, k in zip(keys, ok) if k]
            V = V[:, ok]
            self._screen_rel = self.relevance(V)
            self._screen_mono = np.array([self._monotone(e) for e, _ in self._screened], dtype=bool)
            self._screen_Z, self._screen_w = self._unit_columns(V)
        self._floor = self._relevance_floor(max(len(self._screened), 1))

    def bind_evaluator(self, evaluator: Any, prepared: Any, y: Any, seed: int) -> None:
        """Score the screen's best candidates by the search's own ``evaluator`` (``rescore``): called once
        by a search after :meth:`fit` and :meth:`prepare` (``prepared``, ``y``: the training rows;
        ``seed``: the search's evaluation seed).  Without a screen or with ``rescore=0``, nothing.

        With ``drop_monotone="auto"``, also learns whether the evaluator's model reads a monotone function
        of one column as the column itself (``evaluator.reads_monotone_transforms`` False, as ``cv-tree``'s):
        then such features are left out of the candidates and draws from here on."""
        self._rescored = {}
        mode = str(getattr(evaluator, "table_rescore", "evaluator")) if self.rescore_by == "auto" else self.rescore_by
        if mode not in ("evaluator", "residual", "gate"):
            raise ValidationError(f"evaluator {getattr(evaluator, 'name', evaluator)!r} has table_rescore={mode!r} "
                                  "(read by rescore_by='auto'); allowed: 'evaluator', 'residual', 'gate'")
        self._residual_only = mode == "residual" and int(self.rescore) > 0
        self._gate_closed = False
        if self.drop_monotone == "auto":
            self._skip_monotone = not bool(getattr(evaluator, "reads_monotone_transforms", True))
        else:
            self._skip_monotone = self.drop_monotone is True
        if not int(self.rescore) or not self._screened:
            return
        from .rescore import rescore, shortlist

        exprs = [e for e, _ in self._screened]
        rel = np.where(self._screen_mono, -np.inf, self._screen_rel) if self._skip_monotone else self._screen_rel
        if self._residual_only or mode == "gate":
            idx = shortlist(np.where(np.isfinite(rel), rel, -np.inf), [str(e["op"]) for e in exprs], -np.inf,
                            int(self.rescore))
            idx = idx[np.isfinite(rel[idx])]
            residual = (self._residual_gains(evaluator, prepared, np.asarray(y), int(seed), exprs, idx)
                        if idx.size else np.zeros(0))
            if self._residual_only:
                self._rescored = {self._screen_keys[int(i)]: float(g) for i, g in zip(idx, residual)}
                return
            self._gate_closed = not bool(np.any(np.asarray(residual) > 0))
            if self._gate_closed:
                return
        idx = shortlist(rel, [str(e["op"]) for e in exprs], self._floor, int(self.rescore))
        if idx.size:
            gains = rescore(self, evaluator, prepared, np.asarray(y), int(seed), exprs, idx)
            self._rescored = {self._screen_keys[int(i)]: float(g) for i, g in zip(idx, gains)}

    def _residual_gains(self, evaluator: Any, prepared: Any, y: np.ndarray, seed: int, exprs: list[dict],
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
        task = infer_task(y) if self.task == "auto" else str(self.task)
        M = np.asarray(prepared.get("design", prepared["z"]), dtype=np.float64)
        n_splits = int(getattr(evaluator, "n_splits", 3))
        cv = (StratifiedKFold if task == "classification" else KFold)(n_splits=n_splits, shuffle=True,
                                                                        random_state=seed)
        folds = list(cv.split(np.zeros((y.shape[0], 1)), y))
        values = self._values(prepared, TabularBatch([exprs[int(i)] for i in idx]))
        return residual_gains((model_for(task, M, False), M), [values[:, j] for j in range(values.shape[1])],
                              y, task, folds)

    def offered(self) -> list[dict]:
        """The screened candidates a point's set may take (before the rescored gains and the forward
        selection decide): all of them, less the monotone functions of one column when they are left
        out (``drop_monotone``; for ``"auto"``, once :meth:`bind_evaluator` has told)."""
        return [e for (e, _), ok in zip(self._screened, self._offered_mask()) if ok]

    def _offered_mask(self) -> np.ndarray:
        if self._skip_monotone:
            return ~self._screen_mono
        return np.ones(len(self._screened), dtype=bool)

    def _monotone(self, e: Mapping[str, Any]) -> bool:
        """True when ``e`` is a monotone function of one column (see ``drop_monotone``)."""
        sign = self._one_sign if self._one_sign is not None else np.zeros(int(self.n_columns or 0), dtype=bool)
        return monotone_in_one_column(e, sign)

    def _relevance_floor(self, n_tests: int) -> float:
        """The relevance noise exceeds with probability ``SCREEN_ALPHA / n_tests``: the squared
        correlation with the residual target is about chi-square (one degree of freedom per class
        but one, one for a real target) over the number of sampled rows."""
        from scipy.stats import chi2

        R = self._residual()
        df = max(R.shape[1] - 1, 1) if R.shape[1] > 1 else 1
        return float(chi2.isf(SCREEN_ALPHA / n_tests, df)) / R.shape[0]

    def relevance(self, values: np.ndarray) -> np.ndarray:
        """A cheap score of features computed on the row sample (``(n_sample, n_features)``, NaN allowed):
        the squared partial correlation, given the table's columns, with what a linear model of them
        leaves unexplained of the target (summed over the one-hot classes), of the values or of their
        ranks (times ``RANK_WEIGHT``, 0.9: a model is given the values), whichever is larger (a
        heavy-tailed ratio correlates by its ranks).  0 without a
        target, and for a feature whose multiple correlation with the columns exceeds 0.95."""
        V = np.nan_to_num(np.asarray(values, dtype=np.float64).reshape(values.shape[0], -1), nan=0.0)
        if getattr(self, "_target", None) is None:
            return np.zeros(V.shape[1])
        from scipy.stats import rankdata

        return np.maximum(self._relevance(V), RANK_WEIGHT * self._relevance(rankdata(V, axis=0)))

    def _orthogonal(self, V: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``V`` centred, as unit columns, minus their part in the span of the table's columns (the
        design on the row sample), and what is left of each unit column's squared norm."""
        Vc = V - V.mean(axis=0)
        norm = np.sqrt((Vc**2).sum(axis=0))
        U = Vc / np.where(norm > 1e-12, norm, np.inf)[None, :]
        Q = getattr(self, "_design_basis", None)
        if Q is not None and Q.size:
            U = U - Q @ (Q.T @ U)
        return U, (U**2).sum(axis=0)

    def _relevance(self, V: np.ndarray) -> np.ndarray:
        """Squared partial correlation of every column of ``V`` with the residual target, given the
        table's columns; 0 for a column (nearly) in their span (multiple correlation > ``SCREEN_REDUNDANT``)."""
        R = self._residual()
        U, n2 = self._orthogonal(V)
        num = (U.T @ R) ** 2
        den = n2[:, None] * (R**2).sum(axis=0)[None, :]
        with np.errstate(divide="ignore", invalid="ignore"):
            out = np.where(den > 0, num / den, 0.0).sum(axis=1)
        return np.where(n2 > 1.0 - SCREEN_REDUNDANT**2, out, 0.0)

    def prepare(self, X: Any) -> dict[str, Any]:
        """The scaled table (what leaves read) and its design matrix (``TableValues.columns``)."""
        self._need_fit()
        X = np.asarray(self.check_data(X))
        Z = np.ascontiguousarray((X - np.asarray(self.column_center)) / np.asarray(self.column_scale))
        return {"z": Z, "n_samples": X.shape[0], "design": self.design(Z)}

    def design(self, Z: np.ndarray) -> np.ndarray:
        """The table as model inputs: numeric columns (scaled) and datetime columns (days) as they are,
        categorical columns one-hot (their ``max_onehot`` most frequent categories); NaN where missing.

        This is what evaluators score constructed features next to (``with_columns``)."""
        kinds = self._kinds()
        if all(k == "numeric" for k in kinds):
            return Z
        categories = self.categories or [None] * len(kinds)
        parts = []
        for j, k in enumerate(kinds):
            cats = categories[j]
            if k != "categorical" or cats is None:
                parts.append(Z[:, j : j + 1])
            else:
                L = min(len(cats), MAX_ONEHOT)
                parts.append((Z[:, j : j + 1] == np.arange(L)[None, :]).astype(np.float64))
        return np.hstack(parts)

    # ------------------------------------------------------------------ space
    def _arith_flags(self) -> tuple[list[str], bool, bool, int]:
        """The enabled arithmetic operators, whether unary / binary ones can be used, and the number of numeric columns."""
        ar = [o for o in self.enabled_operators if o in ARITH]
        n_num = int(self._eligible("numeric").sum())
        unary = any(OPERATORS[o].arity == 1 for o in ar)
        binary = any(OPERATORS[o].arity == 2 for o in ar) and n_num >= 2
        return ar, unary, binary, n_num

    def space(self) -> MetaFeatureSpace:
        self._need_fit()
        ops = self.enabled_operators
        ar, unary, binary, n_num = self._arith_flags()
        k_max = max([OPERATORS[o].arity for o in ops if o not in ARITH] or [1])
        if ar:
            shapes = tree_shapes(int(self.max_arity), int(self.max_depth), unary, binary)
            k_max = max(k_max, min(int(self.max_arity), n_num, max(k for _, k, _ in shapes)))  # e.g. 2 at depth 1
        n_op = len(ops) + (1 if self.mix else 0)
        op_desc = ", ".join(f"{i}={o}" for i, o in enumerate(ops)) + (f", {len(ops)}=any (a mixed set)" if self.mix else "")
        op_start = ops.index("mul") if "mul" in ops else 0
        op_names = tuple(ops) + (("any (a mixed set)",) if self.mix else ())
        dims = [
            Dimension("arity", "int", 1, k_max, step=1, default=min(2, k_max), description="number of input columns"),
            Dimension("depth", "int", 1, int(self.max_depth), step=1, default=1, description="operator nesting depth"),
            # nominal_op: a move goes to any other operator; else to a neighbouring index
            Dimension("op", "categorical", choices=tuple(range(n_op)), default=op_start,
                      description="root operator: " + op_desc, labels=op_names) if self.nominal_op else
            Dimension("op", "int", 0, n_op - 1, step=1, default=op_start, description="root operator: " + op_desc,
                      labels=op_names),
            Dimension("rank", "float", 0.0, 1.0, step=0.15, default=0.25,
                      description="quality rank of the best input column (0 = best)"),
        ]
        tags = self.tag_names()
        if tags:
            dims.append(Dimension("tag", "int", 0, len(tags) - 1, step=1, default=0,
                                  description="tag of the inputs: " + ", ".join(f"{i}={t}" for i, t in enumerate(tags)),
                                  labels=tuple(str(t) for t in tags)))
        return MetaFeatureSpace(tuple(dims))

    def min_cost(self) -> float:
        return 1.0

    def group_starts(self) -> list[dict[str, Any]]:
        """Start points, one per operator group the table enables ("arith", "missing", "category",
        "date", in :data:`OPERATORS` order): the space's default point, then the same point with ``op``
        at the first enabled operator of each other group.  ``op`` is an index that a local search moves
        a step at a time, so from the default alone the operators of other groups can lie out of reach
        (docs/results/tabular.md, "Titanic"); ``TableExtractor(starts="groups")`` evaluates these first.
        A numeric table without missing values has one group: just the default point.  With
        ``mix``, on a table of several groups, the last point has ``op`` at "any" (a mixed set)."""
        base = self.space().start(None)
        ops = self.enabled_operators
        out = [dict(base)]
        seen = {OPERATORS[ops[int(base["op"])]].group} if int(base["op"]) < len(ops) else set()
        for i, o in enumerate(ops):
            g = OPERATORS[o].group
            if g not in seen:
                seen.add(g)
                out.append({**base, "op": i})
        if self.mix and len(out) > 1:  # "any" (a mixed set), the last op value, is a group of its own
            out.append({**base, "op": len(ops)})
        return out

    # ------------------------------------------------------------------ drawing
    def _project(self, u: Mapping[str, Any], i: int | None = None) -> tuple[str, tuple, int, int]:
        """The feasible ``(root op, shapes, arity, depth)`` nearest to point ``u`` (root operator ``i``
        when given).  Operators on categorical, datetime or missing-value columns sit on columns
        directly: depth 1, arity their number of arguments."""
        ops = self.enabled_operators
        i = int(u["op"]) if i is None else int(i)
        root = ops[i]
        if root not in ARITH:
            n = OPERATORS[root].arity
            return root, (("U", "L"),) if n == 1 else (("B", "L", "L"),), n, 1
        # a binary arithmetic root is enabled only with two numeric columns (enabled_operators)
        ar, unary, binary, n_num = self._arith_flags()
        kind = "U" if OPERATORS[root].arity == 1 else "B"
        k = min(int(u["arity"]), n_num, int(self.max_arity))
        if kind == "B":
            k = max(k, 2)
        shapes = tree_shapes(int(self.max_arity), int(self.max_depth), unary, binary)
        depths = sorted(dd for (kk, ak, dd) in shapes if kk == kind and ak == k)
        if not depths:  # e.g. a unary root over 2+ columns needs depth >= 2: change arity
            arities = sorted({ak for (kk, ak, _) in shapes if kk == kind}, key=lambda a: (abs(a - k), a))
            k = arities[0]
            depths = sorted(dd for (kk, ak, dd) in shapes if kk == kind and ak == k)
        depth = min(depths, key=lambda dd: (abs(dd - int(u["depth"])), dd))
        return root, shapes[(kind, k, depth)], k, depth

    def _draw_columns(self, k: int, rank: float, tag: float | None, rng: np.random.Generator,
                      slots: Sequence[str] | None = None) -> list[int]:
        """``k`` distinct columns: an anchor whose quality rank is near ``rank``, and partners
        drawn uniformly among the columns ranked no better than the anchor (among all
        others when too few are).

        ``slots`` gives the kind each argument needs (:attr:`Operator.kinds`); by default
        (arithmetic operators) every column is numeric and the columns come in random order."""
        typed = slots is not None
        slots = list(slots) if slots is not None else ["numeric"] * k
        cache = self.__dict__.get("_draw_cache")
        key = ("columns", k, float(rank), tag, tuple(slots), typed)
        if cache is not None and key in cache:
            r, allowed, p = cache[key]
        else:
            r = np.asarray(self.column_rank, dtype=np.float64)
            first = self._eligible(slots[0])
            if typed and len(slots) == 2:  # the anchor must leave a partner (a column can be numeric and a category)
                second = self._eligible(slots[1])
                if second.sum() == 1:
                    first = first & ~second
            allowed = first
            if tag is not None:
                names = self.tag_names()
                mask = np.array([t == names[int(tag)] for t in self._tags()]) & first
                if mask.sum() >= (1 if typed else k):
                    allowed = mask
            w = (np.exp(-0.5 * ((r - float(rank)) / float(self.rank_width)) ** 2) + 1e-12) * allowed
            p = w / w.sum()
            if cache is not None:
                cache[key] = (r, allowed, p)
        anchor = int(rng.choice(r.size, p=p))
        if not typed:
            others = np.flatnonzero(allowed & (r >= r[anchor]))
            others = others[others != anchor]
            if others.size < k - 1:
                others = np.flatnonzero(allowed)
                others = others[others != anchor]
            cols = [anchor] + [int(j) for j in rng.choice(others, size=k - 1, replace=False)]
            return [cols[i] for i in rng.permutation(k)]
        cols = [anchor]
        for kind in slots[1:]:
            ok = self._eligible(kind)
            ok[cols] = False
            cand = np.flatnonzero(ok & (r >= r[anchor]))
            if cand.size == 0:
                cand = np.flatnonzero(ok)
            cols.append(int(rng.choice(cand)))
        return cols

    def _build(self, shape, root: str, cols: list[int], rng: np.random.Generator,
               root_consts: dict | None = None, ops: list[str] | None = None) -> tuple[dict, np.ndarray]:
        """Fill ``shape`` with operators and ``cols``; learn every node's constants on the row sample
        (missing values are left out of every constant; ``root_consts``: the root's, given).  A numeric
        column in a categorical argument is a leaf with its ``levels``, read as their codes."""
        ar = [o for o in (self.enabled_operators if ops is None else ops) if o in ARITH]
        unary = [o for o in ar if OPERATORS[o].arity == 1]
        binary = [o for o in ar if OPERATORS[o].arity == 2]
        leaves = iter(cols)
        slots = iter(OPERATORS[root].kinds if root not in ARITH else ())
        S = self._rows()

        def rec(s, op_name: str | None) -> tuple[dict, np.ndarray]:
            if s == "L":
                j = next(leaves)
                levels = self._levels(j) if next(slots, "numeric") == "categorical" else None
                if levels is not None:
                    return {"col": j, "levels": list(levels)}, _level_codes(S[:, j], levels)
                return {"col": j}, S[:, j]
            is_root = op_name is not None
            if op_name is None:
                op_name = str(rng.choice(unary if s[0] == "U" else binary))
            op = operator(op_name)
            kids = [rec(c, None) for c in s[1:]]
            if op_name in COMMUTATIVE:  # the same values either way: one canonical order
                kids.sort(key=lambda kid: _structure(kid[0]))
            args = [v for _, v in kids]
            cache = self.__dict__.get("_draw_cache")
            if op_name == "threshold" and cache is not None and not (is_root and root_consts is not None) \
                    and set(kids[0][0]) == {"col"}:
                # Threshold.fit on a column: the same generator call, the quantile computed once per column and q
                q = float(rng.choice(QUANTILES))
                qkey = ("quantile", int(kids[0][0]["col"]), q)
                if qkey not in cache:
                    cache[qkey] = op._at(args[0], q)  # type: ignore[attr-defined]
                consts = dict(cache[qkey])
            else:
                consts = dict(root_consts) if is_root and root_consts is not None else op.fit(args, rng)
            with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
                v = op.apply(args, consts)
            node = {"op": op_name, "args": [e for e, _ in kids], **consts}
            if not op.binary_output:
                # clip to the training rows' range (or winsorize at `clip_quantile`), then standardize
                q = float(self.clip_quantile)
                fin = v[~np.isnan(v)]
                if not fin.size:
                    lo, hi = 0.0, 0.0
                elif q == 0.0:
                    lo, hi = float(fin.min()), float(fin.max())
                else:
                    lo, hi = (float(t) for t in np.quantile(fin, [q, 1.0 - q]))
                v = np.clip(v, lo, hi)
                fin = np.clip(fin, lo, hi)
                c, sc = (float(fin.mean()), float(fin.std())) if fin.size else (0.0, 1.0)
                sc = sc if sc > 1e-12 else 1.0
                node["range"], node["center"], node["scale"] = [lo, hi], c, sc
                v = (v - c) / sc
            return node, v

        return rec(shape, root)

    def _redundant(self, values: np.ndarray, cols: list[int]) -> bool:
        """Constant on the training rows, or an affine copy of one of its numeric input columns
        (e.g. a threshold of a 0/1 column): such a feature adds nothing to a linear model.
        Rows where the feature or the column is missing are left out."""
        ok = ~np.isnan(values)
        if ok.sum() < 2 or not np.ptp(values[ok]) > 1e-9:
            if ok.all() or not ok.any():
                return True
            return False  # constant where present, missing elsewhere: a missing-value pattern, kept
        kinds = self._kinds()
        for j in cols:
            if kinds[j] != "numeric":
                continue
            c = self._rows()[:, j]
            m = ok & ~np.isnan(c)
            if m.sum() < 3:
                continue
            a, b = values[m], c[m]
            sa, sb = a.std(), b.std()
            if sa > 0 and sb > 0 and abs(float(np.mean((a - a.mean()) * (b - b.mean())) / (sa * sb))) > 1 - 1e-9:
                return True
        return False

    def draw(self, point: Mapping[str, Any], budget: float, rng: np.random.Generator,
             max_features: int | None = None) -> TabularBatch:
        # what a draw computes again and again for the same inputs (columns a kind can read, a rank's column
        # weights, a column's quantiles) is kept for the call: the same draws, in less time
        self.__dict__["_draw_cache"] = {}
        try:
            return self._draw(point, budget, rng, max_features)
        finally:
            self.__dict__.pop("_draw_cache", None)

    def _draw(self, point: Mapping[str, Any], budget: float, rng: np.random.Generator,
              max_features: int | None) -> TabularBatch:
        u = self.space().check_point(point)
        if self._sample is None:
            raise ValidationError("drawing needs the training rows: call fit(X, y) on this family first")
        if self._gate_closed:  # rescore_by="gate": no candidate adds to the evaluator's model of the columns
            return TabularBatch([])
        ops = self.enabled_operators
        mixed = bool(self.mix) and int(u["op"]) == len(ops)
        fixed = None if mixed else self._project(u)
        cheapest = 1 if fixed is None else min(_shape_ops(s) for s in fixed[1])
        limit = math.inf if max_features is None else int(max_features)
        exprs: list[dict] = []
        vals: list[np.ndarray] = []
        seen: set[str] = set()
        spent, misses = 0.0, 0
        f = float(self.oversample)
        pool_budget = float(budget) * f
        while len(exprs) < (limit if f == 1.0 else math.inf) and spent + cheapest <= pool_budget + 1e-9 and misses < 30:
            # a mixed set: every feature at its own root operator, drawn uniformly
            root, shapes, k, _ = fixed if fixed is not None else self._project(u, int(rng.integers(len(ops))))
            shape = shapes[int(rng.integers(len(shapes)))]
            if spent + _shape_ops(shape) > pool_budget + 1e-9:
                misses += 1
                continue
            slots = None if root in ARITH else OPERATORS[root].kinds
            cols = self._draw_columns(k, u["rank"], u.get("tag"), rng, slots)
            expr, values = self._build(shape, root, cols, rng, ops=ops)
            key = _structure(expr)
            if key in seen or self._redundant(values, cols) or (self._skip_monotone and self._monotone(expr)):
                misses += 1
                continue
            seen.add(key)
            exprs.append(expr)
            vals.append(values)
            spent += _shape_ops(shape)
            misses = 0
        if self._screened:
            return self._screened_set(exprs, vals, seen, float(budget), limit)
        if f == 1.0 or not exprs:
            return TabularBatch(exprs)
        # oversampled: keep the most relevant draws (per cost) that fit the budget
        costs = np.array([len(expr_ops(e)) for e in exprs], dtype=np.float64)
        order = np.argsort(-self.relevance(np.column_stack(vals)) / costs, kind="stable")
        keep: list[int] = []
        total = 0.0
        for i in order:
            if len(keep) < limit and total + costs[i] <= float(budget) + 1e-9:
                keep.append(int(i))
                total += costs[i]
        return TabularBatch([exprs[i] for i in keep])

    def _unit_columns(self, V: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Every feature of ``V`` (NaN at 0) as a centred unit vector, of its values or of its ranks,
        whichever correlates more with the residual target (:meth:`relevance`), minus its part in the
        span of the table's columns; zero when constant.  Also the weight of each (``RANK_WEIGHT`` for ranks)."""
        from scipy.stats import rankdata

        V = np.nan_to_num(np.asarray(V, dtype=np.float64), nan=0.0)
        ranks = rankdata(V, axis=0)
        by_rank = RANK_WEIGHT * self._relevance(ranks) > self._relevance(V)
        V = np.where(by_rank[None, :], ranks, V)
        return self._orthogonal(V)[0], np.where(by_rank, RANK_WEIGHT, 1.0)

    def _screened_set(self, exprs: list[dict], vals: list[np.ndarray], seen: set[str], budget: float,
                      limit: float) -> TabularBatch:
        """The point's draws merged with the screened first-order candidates, chosen by forward selection.

        First the candidates the search's evaluator rescored (:meth:`bind_evaluator`) with a positive
        gain, best gain per cost first, each taken while its relevance *given those kept* (its part
        orthogonal to them, against the residual target with their part removed) is above the floor;
        rescored candidates without a positive gain are never taken.  Then, at each step, the candidate
        of highest relevance per cost given those kept joins, while it is above the floor and the budget
        lasts.  A candidate whose multiple correlation with those kept exceeds ``SCREEN_REDUNDANT`` is
        never taken.  When none is above the floor, the single most relevant; when none can be taken at
        all, the point's own draws."""
        gains = self._rescored
        if self._residual_only:
            return self._residual_set(budget, limit)
        blocks = []  # (unit columns, weights, usable, expressions): the point's own draws, then the screened
        if vals:
            Zo, wo = self._unit_columns(np.column_stack(vals))
            # a draw the evaluator rescored is taken as the screened candidate (the same structure)
            own = np.array([not gains or _structure(e) not in gains for e in exprs], dtype=bool)
            blocks.append((Zo, wo, own, list(exprs)))
        blocks.append((self._screen_Z, self._screen_w,
                       np.array([(k not in seen or k in gains) and gains.get(k, 1.0) > 0.0 for k in self._screen_keys],
                                dtype=bool) & self._offered_mask(),
                       [e for e, _ in self._screened]))
        R = self._residual() - self._residual().mean(axis=0)
        state = []
        for Z, w, usable, ex in blocks:
            n2 = (Z**2).sum(axis=0)
            costs = np.array([len(expr_ops(e)) for e in ex], dtype=np.float64)
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
            ranked = sorted((-gains[k] / scr["costs"][i], i) for i, k in enumerate(self._screen_keys)
                            if gains.get(k, 0.0) > 0.0)
            for _, i in ranked:
                if len(chosen) >= limit:
                    break
                if relevance_given_kept(scr)[i] > self._floor:
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
            if rel_i <= self._floor and chosen:
                break
            take(state[best_b], i)
            if rel_i <= self._floor:  # none above the floor: the most relevant alone
                break
        if not chosen:  # every candidate (nearly) a copy of the columns: the point's own draws
            return TabularBatch(list(exprs))
        return TabularBatch(chosen)

    def _residual_set(self, budget: float, limit: float) -> TabularBatch:
        """``rescore_by="residual"``: the rescored candidates of positive gain, best gain per cost first,
        each while the budget lasts and none more than ``SCREEN_REDUNDANT``-correlated (multiple
        correlation) with those kept; empty when none has a positive gain."""
        gains = self._rescored
        costs = [float(len(expr_ops(e))) for e, _ in self._screened]
        offered = self._offered_mask()
        ranked = sorted((-gains[k] / costs[i], i) for i, k in enumerate(self._screen_keys)
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
            z = self._screen_Z[:, i].copy()  # a unit vector less its part in the span of the columns
            for q in Q:
                z -= (q @ z) * q
            left = float(z @ z)
            if left <= min_norm:
                continue
            Q.append(z / np.sqrt(left))
            chosen.append(self._screened[i][0])
            total += costs[i]
        return TabularBatch(chosen)

    def concat(self, batches: Sequence[TabularBatch]) -> TabularBatch:
        return TabularBatch([e for b in batches for e in b.exprs])

    # ------------------------------------------------------------------ values
    @staticmethod
    def _eval(e: Mapping[str, Any], Z: np.ndarray) -> np.ndarray:
        if "col" in e:
            if "levels" in e:
                return _level_codes(Z[:, int(e["col"])], e["levels"])
            return Z[:, int(e["col"])]
        op = operator(e["op"])
        v = op.apply([TabularFamily._eval(a, Z) for a in e["args"]], e)
        if "range" in e:
            v = np.clip(v, *e["range"])
        if "center" in e:
            v = (v - e["center"]) / e["scale"]
        return v

    def _values(self, prepared: Mapping[str, Any], batch: TabularBatch) -> np.ndarray:
        """The features' values, NaN where an input they need is missing."""
        Z = prepared["z"]
        out = np.empty((Z.shape[0], len(batch)), dtype=np.float64)
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            for i, e in enumerate(batch.exprs):
                out[:, i] = self._eval(e, Z)
        # values far outside the training range are clipped so a linear model never sees inf
        np.clip(out, -1e6, 1e6, out=out)
        return out

    def compute(self, prepared: Mapping[str, Any], batch: TabularBatch) -> FeatureValues:
        """Values for the search: finite, a missing value at 0 (the training mean of a scaled
        feature, "no" for a 0/1 one); ``columns`` holds :meth:`design` (NaN where missing)."""
        out = np.nan_to_num(self._values(prepared, batch), nan=0.0)
        return TableValues(dense=out, columns=prepared.get("design", prepared["z"]))

    def export_c(self, batch: TabularBatch, prefix: str) -> FamilyExport:
        """The features as C99 (``metafx export --to c``): numeric columns and the operators of
        ``metafx_tabular.export.EXPORTED_OPERATORS``; others are refused with an error naming them."""
        return tabular_c(self, batch, prefix)

    def export_numpy(self, batch: TabularBatch, prefix: str) -> FamilyExport:
        """The features as NumPy code (``metafx export --to numpy``), as :meth:`export_c`."""
        return tabular_numpy(self, batch, prefix)

    def transform(self, X: Any, batch: TabularBatch) -> np.ndarray:
        """Dense values of ``batch`` on ``X``: NaN where a feature's input is missing
        (``missing="propagate"``, the default, as scikit-learn's scalers do), or 0 (``missing="zero"``)."""
        vals = self._values(self.prepare(X), batch)
        return np.nan_to_num(vals, nan=0.0) if self.missing == "zero" else vals

    # ------------------------------------------------------------------ meta-features
    def describe(self, batch: TabularBatch) -> dict[str, np.ndarray]:
        ops = self.enabled_operators
        rank = np.asarray(self.column_rank if self.column_rank is not None else [], dtype=np.float64)
        cols = batch.columns()
        out = {
            "arity": batch.arity,
            "depth": batch.depth,
            "op": np.array([ops.index(e["op"]) for e in batch.exprs], dtype=np.int64),
            "rank": np.array([float(rank[c].min()) for c in cols], dtype=np.float64),
        }
        names = self.tag_names() if self.n_columns is not None else []
        if names:
            tags = self._tags()
            out["tag"] = np.array([_main_tag([tags[j] for j in c], names) for c in cols], dtype=np.int64)
        return out

    def feature_names(self, batch: TabularBatch) -> list[str]:
        names = self._names()

        def fmt(e) -> str:
            if "col" in e:
                return names[int(e["col"])]
            return operator(e["op"]).format([fmt(a) for a in e["args"]], e)

        return [fmt(e) for e in batch.exprs]

    # ------------------------------------------------------------------ JSON
    def to_json(self, batch: TabularBatch) -> list[dict[str, Any]]:
        return [{"family": self.name, "expr": json.loads(json.dumps(e))} for e in batch.exprs]

    def from_json(self, specs: Sequence[Mapping[str, Any]]) -> TabularBatch:
        d = self._need_fit()
        ops = self.enabled_operators
        exprs = []
        for i, s in enumerate(specs):
            if not isinstance(s, Mapping) or s.get("family", self.name) != self.name or "expr" not in s:
                raise ValidationError(f"feature {i} must be {{'family': 'tabular', 'expr': ...}}, got {s!r}")
            try:
                _check_expr(s["expr"], d, ops, self._kinds())
            except (KeyError, TypeError, ValueError) as exc:
                raise ValidationError(f"feature {i}: invalid expression ({exc})") from None
            exprs.append(json.loads(json.dumps(s["expr"])))
        return TabularBatch(exprs)


def _main_tag(tags: list[str], names: list[str]) -> int:
    """Index (in ``names``) of the most frequent tag among the inputs; -1 if none is tagged."""
    counts = {t: tags.count(t) for t in tags if t}
    if not counts:
        return -1
    best = max(sorted(counts), key=lambda t: counts[t])
    return names.index(best)
