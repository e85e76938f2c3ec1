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

Modules: ``drawing`` (a point's draws), ``screen`` (the candidate screen, the relevance score and the
forward selection), ``metafeatures`` (the space, start points, described meta-features, names),
``values`` (computing features), ``params`` (the parameters' constraints), ``export`` (C and NumPy code).
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from metafx.plugin import (
    FamilyExport,
    FeatureFamily,
    FeatureValues,
    MetaFeatureSpace,
    ValidationError,
)

from . import metafeatures, screen
from .batch import TableValues, TabularBatch
from .drawing import draw_point
from .export import tabular_c, tabular_numpy
from .expressions import _check_expr, monotone_in_one_column
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
from .operators import ARITH, OPERATORS
from .params import PARAMETER_CONSTRAINTS, check_learned
from .tasks import column_scores, infer_task
from .values import batch_values, design_matrix

__all__ = ["TabularFamily"]


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
    #: the guided engine ranks its pools on every row (``FeatureFamily.pool_rows``): tables are small and the
    #: operators vectorized, so the pool's compute is not what a search waits for
    pool_rows = None
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
        self._screen_costs: np.ndarray = np.zeros(0)
        self._screen_index: dict[str, int] = {}  # exact key of a screened candidate -> its index
        self._screen_redundant: dict[int, bool] = {}
        self._screen_mono: np.ndarray = np.zeros(0, dtype=bool)

    # ------------------------------------------------------------------ parameters
    #: what each parameter accepts, checked by :meth:`check_params` (``metafx_tabular.params``)
    _parameter_constraints = PARAMETER_CONSTRAINTS

    def check_params(self) -> None:
        """The declared constraints (``_parameter_constraints``), then what ties the learned parameters together:
        with ``n_columns``, every per-column list has ``n_columns`` entries of the right kind."""
        super().check_params()
        check_learned(self)


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
        if kind == "missing":
            return np.asarray(self.column_missing, dtype=bool)
        out = np.array([k == kind for k in self._kinds()], dtype=bool)
        if kind == "categorical" and self.column_levels is not None:
            out |= np.array([lv is not None for lv in self.column_levels], dtype=bool)
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
        with np.errstate(invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # all-missing columns
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
            score = column_scores(screen.score_matrix(X, kinds), y, task)
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
        with np.errstate(invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # all-missing columns
            Xs = (X - center) / scale
            self._one_sign = (np.nanmin(Xs, axis=0) >= 0) | (np.nanmax(Xs, axis=0) <= 0)
        self._skip_monotone = self.drop_monotone is True
        self._design_basis = screen.basis(self.design(self._sample))
        self._target = None if y is None else screen.residual_target(self.design(self._sample), np.asarray(y)[np.sort(rows)],
                                                                 infer_task(y) if self.task == "auto" else self.task)
        screen.screen_candidates(self)
        return self

    # ------------------------------------------------------------------ candidate screen (metafx_tabular.screen)
    def first_order(self) -> list[tuple[str, list[int], dict | None]]:
        """Every depth-1 candidate the table allows: ``(operator, columns, root constants)`` for each
        enabled operator over each (pair of) column(s) of the kinds it reads; a threshold at
        three quantiles, a date part for every part that varies (``root constants`` None: learned
        as in a draw)."""
        groups = screen.first_order_groups(self)
        return [g.get(k) for g in groups for k in range(g.n)]

    def bind_evaluator(self, evaluator: Any, prepared: Any, y: Any, seed: int) -> None:
        """Score the screen's best candidates by the search's own ``evaluator`` (``rescore``): called once
        by a search after :meth:`fit` and :meth:`prepare` (``prepared``, ``y``: the training rows;
        ``seed``: the search's evaluation seed).  Without a screen or with ``rescore=0``, nothing.

        With ``drop_monotone="auto"``, also learns whether the evaluator's model reads a monotone function
        of one column as the column itself (``evaluator.reads_monotone_transforms`` False, as ``cv-tree``'s):
        then such features are left out of the candidates and draws from here on."""
        screen.bind_evaluator(self, evaluator, prepared, y, seed)

    def offered(self) -> list[dict]:
        """The screened candidates a point's set may take (before the rescored gains and the forward
        selection decide): all of them, less the monotone functions of one column when they are left
        out (``drop_monotone``; for ``"auto"``, once :meth:`bind_evaluator` has told)."""
        return [e for (e, _), ok in zip(self._screened, screen.offered_mask(self), strict=True) if ok]

    def _monotone(self, e: Mapping[str, Any]) -> bool:
        """True when ``e`` is a monotone function of one column (see ``drop_monotone``)."""
        sign = self._one_sign if self._one_sign is not None else np.zeros(int(self.n_columns or 0), dtype=bool)
        return monotone_in_one_column(e, sign)

    def relevance(self, values: np.ndarray) -> np.ndarray:
        """A cheap score of features computed on the row sample (``(n_sample, n_features)``, NaN allowed):
        the squared partial correlation, given the table's columns, with what a linear model of them
        leaves unexplained of the target (summed over the one-hot classes), of the values or of their
        ranks (times ``RANK_WEIGHT``, 0.9: a model is given the values), whichever is larger (a
        heavy-tailed ratio correlates by its ranks).  0 without a
        target, and for a feature whose multiple correlation with the columns exceeds 0.95
        (``metafx_tabular.screen.relevance``)."""
        return screen.relevance(self, values)

    def prepare(self, X: Any) -> dict[str, Any]:
        """The scaled table (what leaves read) and its design matrix (``TableValues.columns``)."""
        self._need_fit()
        X = np.asarray(self.check_data(X))
        Z = np.ascontiguousarray((X - np.asarray(self.column_center)) / np.asarray(self.column_scale))
        return {"z": Z, "n_samples": X.shape[0], "design": self.design(Z)}

    def design(self, Z: np.ndarray) -> np.ndarray:
        """The table as model inputs: numeric columns (scaled) and datetime columns (days) as they are,
        categorical columns one-hot (their ``MAX_ONEHOT`` most frequent categories); NaN where missing.

        This is what evaluators score constructed features next to (``with_columns``)."""
        return design_matrix(Z, self._kinds(), self.categories)

    # ------------------------------------------------------------------ space (metafx_tabular.metafeatures)
    def _arith_flags(self) -> tuple[list[str], bool, bool, int]:
        """The enabled arithmetic operators, whether unary / binary ones can be used, and the number of numeric columns."""
        return metafeatures.arith_flags(self)

    def space(self) -> MetaFeatureSpace:
        return metafeatures.space(self)

    def min_cost(self) -> float:
        return 1.0

    def group_starts(self) -> list[dict[str, Any]]:
        """Start points, one per operator group the table enables (``metafx_tabular.metafeatures.group_starts``)."""
        return metafeatures.group_starts(self)

    # ------------------------------------------------------------------ drawing (metafx_tabular.drawing)
    def draw(self, point: Mapping[str, Any], budget: float, rng: np.random.Generator,
             max_features: int | None = None) -> TabularBatch:
        return draw_point(self, point, budget, rng, max_features)


    def concat(self, batches: Sequence[TabularBatch]) -> TabularBatch:
        return TabularBatch([e for b in batches for e in b.exprs])

    # ------------------------------------------------------------------ values (metafx_tabular.values)
    def _values(self, prepared: Mapping[str, Any], batch: TabularBatch) -> np.ndarray:
        """The features' values, NaN where an input they need is missing."""
        return batch_values(prepared["z"], batch.exprs)

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

    # ------------------------------------------------------------------ meta-features (metafx_tabular.metafeatures)
    def describe(self, batch: TabularBatch) -> dict[str, np.ndarray]:
        return metafeatures.describe(self, batch)

    def feature_names(self, batch: TabularBatch) -> list[str]:
        return metafeatures.feature_names(self, batch)

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
