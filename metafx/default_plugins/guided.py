"""Search engine ``guided``: a model of set quality over meta-feature points proposes the
next point, a point's set is drawn from a larger pool with a redundancy filter, and
portfolio steps combine the features of the best sets found so far.

Thesis background: Algorithm 6 (Mufasa) moves to a random neighbour of the best point;
section 5.2 (Algorithm 5, the quality map) learns quality as a smooth function of
meta-features.  This engine applies the second idea to whole sets: the qualities of the
steps so far, as a function of their meta-feature points, are smoothed by a Gaussian
process, and the next point maximizes the expected improvement over the best quality.

Schedule of step ``j`` (1-based)::

    j <= len(warm_start)               the warm-start points (related tasks), as ``random`` does
    j <= n_init                        a uniform point, drawn exactly as ``random`` draws it (not when
                                       the warm start holds results: their steps stand in for them)
    (j - n_init) % portfolio_every == 0
        and >= 2 point steps so far    a portfolio: the best ``k`` sets so far combined (see below)
    otherwise                          the point of largest expected improvement among ``n_pool``
                                       uniform points and neighbours of the best points

*Model* (where the thesis is silent, chosen here): free dimensions scaled to ``[0, 1]``
(categorical ones by their index), qualities standardized; a Gaussian process with a
Matern 5/2 kernel whose length scale and noise share are chosen from small grids by the
largest marginal likelihood; expected improvement over the best standardized quality
(plus ``xi``), divided by ``max(1, n / m) ** cost_power`` for the set size ``n`` that a
second Gaussian process (on ``log(1 + n)`` of the point steps' sizes) predicts and the
number of samples ``m``: sets wider than the data are discounted.  Only point steps train
the models (a portfolio has no single point).

*Transfer* (``warm_start=`` results of related tasks; this project's extension, not in the thesis,
whose section 5.5 transfers the quality of features, not searches): every point step of
those searches (its proposed point and quality, :meth:`observe_prior`) joins the quality model
as a prior observation.  Each related task's qualities are standardized within the task; this
search's by their own mean and a spread shrunk towards the related tasks' (``PRIOR_WEIGHT``
pseudo-steps), since a few steps measure it poorly.  The model is one smooth function of the
point shared by all tasks, plus a constant per task (variance ``TASK_OFFSET``) and extra noise
on the related tasks' rows (variance ``TASK_NOISE``); the size model uses this search's steps
only.  The model proposes from the first step after the warm-start points (no uniform steps),
and the portfolio steps count from there (every ``prior_portfolio_every`` steps, if set).
The first step after the warm-start points is a portfolio of the sets drawn, on this task's
data, at the ``prior_portfolio`` (8) best distinct points of the related tasks' steps (by their
standardized quality), each with a generator of its own.

*Draw at a point* (``pool_factor = F``): ``F * budget`` drawn at the point; repeats
(equal values on the training images, by a 64-bit hash) dropped; ranked by infogain per
cost; kept in that order when the feature fits what is left of the budget and its
absolute correlation with every feature kept so far is at most ``max_corr``.  With
``pool_factor=None`` the loop draws (``oversample`` of the search).

*Portfolio*: the ``k`` best point steps (by quality, earliest first on ties) are drawn
again with their own generators (the very sets that were scored); their features are
interleaved (each source's best first), repeats dropped, and the same filter fills the
budget.  The loop scores the set like any other and accepts it only if its quality is at
least the best so far, so the test images are never used.  ``k`` cycles through
``portfolio_sizes``.

The candidate of a portfolio step holds its sources (points and draw keys), so its draw
depends on nothing else: a resumed search (journal replay through ``ask``/``tell``)
re-draws it exactly.  Its record has no point (``kind="portfolio"``); a point step drawn by
the engine records the mean meta-features of its set as its point, and
``metadata["proposed_points"]`` keeps the proposed points.  Every random number of step ``j``
comes from generators seeded by ``(seed, j, ...)``: the search is a function of its seed.
``SearchResult.bound()`` refuses for this engine (the points are chosen by a model of the data).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from .._kernels.cmim import cmim_select
from .._kernels.diverse import dense_diverse_prefix, diverse_prefix
from ..core.base import Candidate, SearchEngine, declared_pool_rows
from ..core.exceptions import ValidationError
from ..core.params import Interval, Options, Satisfies
from ..core.values import PriorObservation, StepRecord
from ..hooks.spec import hookimpl
from ..learn import gp
from ..learn.gp import TARGET, _distances, _gp_posterior, expected_improvement, gp_posterior_tasks, learned_task_noises
from ..learn.rbf import RBFGridRegressor
from ..loop.components import make_component
from ..loop.problem import SearchProblem, draw_or_empty, step_rng
from .guided_honest import PORTFOLIO, PRIOR_SETS, HonestCheck, _stratified_rows, _take_rows
from .guided_values import _first_of_repeats, _joined, _packed_binary
from .scorers import encode_labels

__all__ = ["GuidedSearch"]

SELECTORS = ("filter", "cmim")
_MOVE = 0
_DRAW = 1
_PRIOR = 2
#: prior observations (warm start): variance of a task's constant, extra noise variance of a related task's
#: rows, and how many pseudo-steps of the related tasks' spread the search's own spread is shrunk towards
#: (the rule that made them the default: experiments/transfer/RULE.md)
TASK_OFFSET = 1.0
TASK_NOISE = 0.5
PRIOR_WEIGHT = 5


def _portfolio_sizes_ok(sizes: Any) -> bool:
    return isinstance(sizes, (list, tuple)) and bool(sizes) and all(
        not isinstance(k, bool) and isinstance(k, (int, np.integer)) and k >= 2 for k in sizes)


class GuidedSearch(SearchEngine):
    """Model-guided search with a redundancy-filtered draw and portfolio steps (see the module docstring).

    Parameters
    ----------
    n_init : int, default 10
        Uniform points before the model proposes (the points engine ``random`` visits).
    portfolio_every : int, default 5
        Every this many steps after ``n_init``, a portfolio step (0: never).
    prior_portfolio_every : int or None, default None
        With prior observations (a warm start holding results of related tasks, see ``observe_prior``), a
        portfolio step every this many steps after the warm-start points instead of every
        ``portfolio_every`` (0: never).  ``None``: ``portfolio_every``.  Without prior observations it has
        no effect.
    prior_portfolio : int or None, default 8
        With prior observations, the first step after the warm-start points is a portfolio of the sets
        drawn on this task's data at the ``prior_portfolio`` best distinct points of the related tasks'
        steps (ranked by their quality standardized within their task), filtered into the budget as a
        portfolio's union is.  ``None``: no such step.  Without prior observations it has no effect.
        How the default was chosen: docs/results/transfer.md.
    prior_features : bool, default False
        With prior observations, the related tasks' chosen sets themselves (the features of the warm-start
        results of this family with the same parameters) join that first portfolio step: each related task's
        set, ranked by infogain per cost on this task's data, is one more source of the portfolio's
        round-robin union.  How it was judged: docs/results/transfer.md.
    prior_in_portfolios : bool, default False
        With prior observations and a ``prior_portfolio`` step, every later portfolio step combines the sets
        of that step's sources (drawn at the related tasks' best points, the very sets it scored) after its
        own best sets, so a portfolio builds on what the first step after the warm start found instead of
        starting from the few point steps of a short search.  How it was judged: docs/results/transfer.md.
    honest_portfolios : bool, default True
        With prior observations, a portfolio step after the prior portfolio step is drawn only if an honest paired
        estimate puts it above the best set so far: both sets are rebuilt on each half of the training rows (pools
        ranked and filtered on that half alone) and scored by the evaluator on the other half; otherwise the step
        draws the best set again.  A portfolio's CV quality flatters it (its sets were selected on the rows it is
        scored on, then selected again); ``metadata["portfolio_checks"]`` holds the estimates.  Needs a
        ``pool_factor`` and ``feature_map=None`` (it has no effect with ``pool_factor=None`` or a ``feature_map``:
        the check rebuilds the engine's own pools).  The default since the rule
        ``experiments/transfer/RULE_HONEST_PORTFOLIOS.md`` (docs/results/transfer.md).
    prior_weight : {"fixed", "learned"}, default "fixed"
        With prior observations, the extra noise variance of each related task's rows in the quality model:
        ``"fixed"``, 0.5 for every task; ``"learned"``, chosen per task at every proposal from (0.5, 0.1, 2, 8) by how
        well that task's rows predict this search's own point steps (:func:`metafx.learn.gp.learned_task_noises`),
        so a misleading related task weighs little; ``metadata["prior_task_noises"]`` holds the choices.
    prior_mean : {"none", "map"}, default "none"
        With prior observations: ``"none"``, the related tasks' rows join the quality model beside this search's
        own (the module docstring); ``"map"``, their quality map (thesis section 5.5: the model's mean fitted on
        their rows alone, :func:`metafx.learn.gp.quality_map`) is the prior mean of the quality model, and this
        search's own point steps model the residual, what this task adds to the map
        (:func:`metafx.learn.gp.gp_posterior_map`).  The related rows then enter through the map only, not as rows
        as well: kept beside it they would count twice, and where they are dense they would pull the residual to
        zero, so this task's own steps could not correct the map where the related tasks measured most.
        With ``prior_weight="learned"`` the map is fitted with the learned noises.  How it was judged:
        docs/results/transfer.md.
    portfolio_sizes : sequence of int, default (2, 3, 4, 6, 8)
        Numbers of best sets combined by successive portfolio steps (cycled); how the default was
        chosen: docs/results/guided_engine.md.
    n_pool : int, default 2000
        Uniform points among which the model chooses (plus 100 neighbours of each of the 5 best points).
    xi : float, default 0.01
        Exploration margin of the expected improvement (in standard deviations of the qualities).
    pool_factor : float or None, default 16
        A point's set is chosen from ``pool_factor * budget`` drawn at the point: by infogain per
        cost, repeats dropped, keeping a feature only if its correlation with every feature kept
        so far is at most ``max_corr``.  ``None``: the loop's draw (``oversample`` of the search).
    pool_rows : int, "auto" or None, default "auto"
        Rank and filter a point's pool on this many training rows (a class-stratified sample drawn once per
        search) instead of all of them; the chosen set is then computed on every row as usual.  It cuts the
        family's compute of the pool by ``n_samples / pool_rows``, which matters for a family whose
        ``compute`` costs as much as an evaluation (``docs/plugins.md``, "Performance"); the ranking is
        noisier.  ``None``: every row.  ``"auto"``: what the family declares (its class attribute
        :attr:`~metafx.plugin.FeatureFamily.pool_rows`: ``None`` for the built-in families and ``tabular``,
        512 for a family that declares nothing), and every row with ``pool_factor=None`` or a
        ``feature_map``.  An int needs ``pool_factor`` and no ``feature_map``.  The default since the rule
        ``experiments/guided/RULE_POOL_ROWS_AUTO2.md`` (the built-in families search as with ``None``).
    max_corr : float, default 0.5
        Largest absolute correlation (phi coefficient for binary features) between two kept features.
    selector : {"filter", "cmim"}, default "filter"
        How a pool's features are chosen.  ``"filter"``: infogain per cost, best first, kept while
        weakly correlated (``max_corr``).  ``"cmim"``: conditional infomax per cost (Fleuret 2004): the
        next feature kept maximizes ``min(I(Y; X), min over kept s of I(Y; X | X_s)) / cost``, so a
        feature whose class information the kept ones already carry waits, however weakly correlated;
        binary features only, slower (``max_corr`` is not used).
    cost_power : float, default 1
        The model proposes the point of largest ``EI / max(1, n / m) ** cost_power``, where ``n`` is
        the number of features its set is predicted to hold (a second Gaussian process, on the
        logarithm of the point steps' set sizes) and ``m`` the number of samples: sets wider than
        the data are discounted by how much wider they are (a linear model gains little from the
        extra columns, and scoring them costs in proportion).  The sizes, not the seconds, keep the
        search reproducible.  Sets of at most ``m`` features are not affected, so neither are
        searches whose budget buys at most ``m`` features.  0: expected improvement alone (results
        of both: docs/results/guided_engine.md).
    feature_map : int or None, default None
        ``R``: bias half of a point's pool by thesis Algorithm 5 (the quality map at feature level).
        The first half of the pool is drawn as usual, computed and scored (infogain per cost); a ridge
        regression over a 7 x 7 grid of Gaussians (std 3 pixels on 28 x 28 images) on the features'
        centres is fitted to those scores (thesis 5.2, footnote 3); the second half is the best-predicted
        ``1/R`` of ``R`` times as many drawn features, chosen before their values are computed.  The map
        is fitted inside the step, so a step's set stays a function of its point and its generator.
        Needs ``pool_factor`` and a family with ``centres(batch)`` (``pixel-and``, ``pixels``).
        ``None``: off (results: docs/results/guided_engine.md).

    Examples
    --------
    >>> import metafx
    >>> X, y = metafx.load_dataset("digits")
    >>> r = metafx.search(X[:300], y[:300], budget=40, steps=4, engine="guided",
    ...                   engine_params={"n_init": 2, "portfolio_every": 2}, seed=0, progress=False)
    >>> len(r.trajectory), r.total_cost <= 40
    (4, True)
    """

    name = "guided"
    summary = "Gaussian-process expected improvement over points, redundancy-filtered draws, portfolio steps"
    #: the 3 best steps' sets are scored again on a fresh split at the end (search's ``reselect``; how it was
    #: chosen: docs/results/guided_engine.md)
    reselect = 3
    #: the steps of warm-start results join the quality model (:meth:`observe_prior`)
    uses_prior = True
    #: without prior observations these change nothing, so a search without them leaves them out of its signature
    prior_params = ("prior_portfolio_every", "prior_portfolio", "prior_features", "prior_in_portfolios",
                    "honest_portfolios", "prior_weight", "prior_mean")
    #: the related tasks' chosen sets come with the prior (``prior_features`` uses them)
    uses_prior_sets = True

    def __init__(self, n_init: int = 10, portfolio_every: int = 5, portfolio_sizes: Sequence[int] = (2, 3, 4, 6, 8),
                 n_pool: int = 2000, xi: float = 0.01, pool_factor: float | None = 16.0,
                 max_corr: float = 0.5, cost_power: float = 1.0, selector: str = "filter",
                 feature_map: int | None = None, prior_portfolio_every: int | None = None,
                 prior_portfolio: int | None = 8, pool_rows: int | str | None = "auto",
                 prior_features: bool = False, prior_in_portfolios: bool = False,
                 honest_portfolios: bool = True, prior_weight: str = "fixed", prior_mean: str = "none") -> None:
        self.n_init = n_init
        self.portfolio_every = portfolio_every
        self.portfolio_sizes = portfolio_sizes
        self.n_pool = n_pool
        self.xi = xi
        self.pool_factor = pool_factor
        self.max_corr = max_corr
        self.cost_power = cost_power
        self.selector = selector
        self.feature_map = feature_map
        self.prior_portfolio_every = prior_portfolio_every
        self.prior_portfolio = prior_portfolio
        self.pool_rows = pool_rows
        self.prior_features = prior_features
        self.prior_in_portfolios = prior_in_portfolios
        self.honest_portfolios = honest_portfolios
        self.prior_weight = prior_weight
        self.prior_mean = prior_mean

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "n_init": [Interval("int", 1, None)],
        "portfolio_every": [Interval("int", 0, None)],
        "portfolio_sizes": [Satisfies(_portfolio_sizes_ok, "a non-empty list of integers >= 2 (how many of the "
                                      "best sets a portfolio step combines)", invalid=[[1], [], "23", [2, 2.5]])],
        "n_pool": [Interval("int", 1, None)],
        "xi": [Interval("real", 0, None)],
        "pool_factor": [Interval("real", 1, 1000), None],
        "max_corr": [Interval("real", 0, 1, closed="right")],
        "cost_power": [Interval("real", 0, 10)],
        "selector": [Options(SELECTORS)],
        "feature_map": [Interval("int", 2, 64), None],
        "prior_portfolio_every": [Interval("int", 0, None), None],
        "prior_portfolio": [Interval("int", 2, 64), None],
        "pool_rows": [Interval("int", 16, None), Options("auto"), None],
        "prior_features": ["boolean"],
        "prior_in_portfolios": ["boolean"],
        "honest_portfolios": ["boolean"],
        "prior_weight": [Options(("fixed", "learned"))],
        "prior_mean": [Options(("none", "map"))],
    }

    def check_params(self) -> None:
        super().check_params()
        if self.feature_map is not None and self.pool_factor is None:
            raise ValidationError(f"feature_map={self.feature_map} biases the engine's own pool; it needs a "
                                  "pool_factor (got None, the loop's draw)")
        if self.pool_rows not in (None, "auto") and (self.pool_factor is None or self.feature_map is not None):
            raise ValidationError(f"pool_rows={self.pool_rows} ranks the engine's own pool on a sample of rows; it "
                                  "needs a pool_factor and feature_map=None")

    def setup(self, problem, seed: int) -> None:
        super().setup(problem, seed)
        self.points_: list[tuple[int, dict[str, Any], float]] = []  # (step, proposed point, quality) of point steps
        self.sizes_: list[int] = []  # the number of features of each point step's set (as points_)
        self.proposed_: dict[int, dict[str, Any] | None] = {}  # None: a portfolio step
        self.n_portfolios_ = 0
        self.portfolio_sources_: dict[int, list[int] | str] = {}  # step -> the steps whose sets it combines
        self.scorer_ = make_component("scorer", "infogain", None)
        self.codes_ = encode_labels(problem.y)[0] if self.selector == "cmim" else None
        self.sets_: dict[Any, Any] = {}  # sets drawn in this search, by (generator keys, point): portfolios reuse them
        self.prior_rows_ = np.empty((0, len(problem.space.free)))  # prior observations' points as rows of codes
        self.prior_points_: list[dict[str, Any]] = []  # and as points
        self.prior_z_ = np.empty(0)  # their qualities, standardized within their task
        self.prior_task_ = np.empty(0, dtype=np.intp)
        self.prior_var_ = 0.0  # the mean within-task variance of their qualities
        self.prior_sets_: list[list[dict[str, Any]]] = []  # the related tasks' chosen sets (family JSON form)
        self.prior_sources_: list[dict[str, Any]] = []  # the prior portfolio step's sources (prior_in_portfolios)
        self.candidates_: dict[int, Candidate] = {}  # step -> what it drew; and its quality once told
        self.qualities_: dict[int, float] = {}
        self.honest_: HonestCheck | None = None  # honest_portfolios: the halves and the sets rebuilt on them
        self.checks_: dict[str, dict[str, Any]] = {}
        self.task_noises_: list[dict[int, float]] = []  # prior_weight="learned": each proposal's task -> noise
        self.rows_ = None  # pool_rows: the sample of rows the pools are ranked on, its data and labels
        self.pool_rows_ = self._pool_rows(problem.family)
        if self.pool_rows_ is not None and problem.n_samples > self.pool_rows_:
            rows = _stratified_rows(problem.y, self.pool_rows_, seed)
            self.rows_ = (problem.family.prepare(_take_rows(problem.X, rows)), problem.y[rows])
        if self.feature_map is not None and not callable(getattr(problem.family, "centres", None)):
            raise ValidationError(f"feature_map={self.feature_map} needs a family whose features have centres "
                                  f"(a centres(batch) method, as pixel-and and pixels have); "
                                  f"family {problem.family.name!r} has none: leave feature_map=None")

    def _pool_rows(self, family: Any) -> int | None:
        """The rows a pool is ranked on: ``pool_rows``, or with ``"auto"`` what ``family`` declares (None: all)."""
        if self.pool_rows != "auto":
            return None if self.pool_rows is None else int(self.pool_rows)
        if self.pool_factor is None or self.feature_map is not None:
            return None  # the loop draws, or the quality map needs every row's scores
        return declared_pool_rows(family)

    def observe_prior(self, observations: Sequence[PriorObservation]) -> None:
        """Steps of related tasks' searches (point, quality, task) that join the quality model (module docstring)."""
        obs = [o for o in observations if o.features is None]
        self.prior_sets_ = [list(o.features) for o in observations if o.features]
        task = np.array([int(o.task) for o in obs], dtype=np.intp)
        q = np.array([float(o.quality) for o in obs], dtype=np.float64)
        z = np.zeros(len(obs))
        variances = []
        for t in np.unique(task):
            m = task == t
            sd = float(q[m].std())
            variances.append(sd * sd)
            z[m] = (q[m] - q[m].mean()) / sd if sd > 0 else 0.0
        self.prior_rows_ = self._encode([o.point for o in obs])
        self.prior_points_ = [dict(o.point) for o in obs]
        self.prior_z_, self.prior_task_ = z, task
        self.prior_var_ = float(np.mean(variances)) if variances else 0.0

    # ------------------------------------------------------------------ proposals
    def _init_steps(self) -> int:
        """Steps before the model proposes: the warm-start points, and the uniform ones unless there is a prior."""
        return len(self.warm_start_) if len(self.prior_z_) else max(self.n_init, len(self.warm_start_))

    def _portfolio_every(self) -> int:
        """Steps between portfolio steps: ``prior_portfolio_every`` when there is a prior (and it is set)."""
        if len(self.prior_z_) and self.prior_portfolio_every is not None:
            return int(self.prior_portfolio_every)
        return int(self.portfolio_every)

    def _is_portfolio(self, step: int) -> bool:
        init = self._init_steps()
        every = self._portfolio_every()
        if step <= init or every == 0:
            return False
        start = init if len(self.prior_z_) else self.n_init
        return (step - start) % every == 0 and len(self.points_) >= 2

    def _is_prior_portfolio(self, step: int) -> bool:
        wanted = self.prior_portfolio is not None or self._uses_prior_sets()
        return wanted and len(self.prior_z_) > 0 and step == self._init_steps() + 1

    def _uses_prior_sets(self) -> bool:
        return bool(self.prior_features) and len(self.prior_sets_) > 0

    def ask(self, step: int) -> Candidate:
        candidate = self._ask(step)
        if candidate.kind == "portfolio" and self.portfolio_sources_.get(step) != "prior" and self._checks_portfolios():
            candidate = self._checked(step, candidate)
        self.candidates_[step] = candidate
        return candidate

    def _checks_portfolios(self) -> bool:
        own_pools = self.pool_factor is not None and self.feature_map is None  # the check rebuilds the engine's pools
        return bool(self.honest_portfolios) and own_pools and len(self.prior_z_) > 0 and bool(self.qualities_)

    def _checked(self, step: int, candidate: Candidate) -> Candidate:
        """``honest_portfolios``: the portfolio, or the best set so far when the honest estimate ranks it higher."""
        incumbent = max(self.qualities_, key=lambda s: (self.qualities_[s], s))  # ties: the later step, as the loop
        if self.honest_ is None:
            self.honest_ = HonestCheck(self.problem_, self.seed_)
        chosen, self.checks_[str(step)] = self.honest_.choose(self, step, candidate, incumbent,
                                                              self.candidates_[incumbent])
        if chosen is not candidate:
            self.portfolio_sources_[step] = self.portfolio_sources_.get(incumbent, [incumbent])
        return chosen

    def _ask(self, step: int) -> Candidate:
        if step <= len(self.warm_start_):
            point = dict(self.warm_start_[step - 1])
        elif self._is_prior_portfolio(step):
            self.proposed_[step] = None
            return self._prior_portfolio(step)
        elif step <= self._init_steps() or len(self.points_) < (1 if len(self.prior_z_) else 2):
            point = self.problem_.space.uniform(step_rng(self.seed_, step, _MOVE))
        elif self._is_portfolio(step):
            self.proposed_[step] = None
            return self._portfolio(step)
        else:
            point = self._propose(step)
        self.proposed_[step] = point
        keys = (self.seed_, step, _DRAW)
        if self.pool_factor is None:
            return Candidate(point, keys=keys)
        return Candidate(dict(point), how="engine", keys=keys)

    def _encode(self, points: Sequence[dict[str, Any]]) -> np.ndarray:
        """Points as rows of their free dimensions' codes (:meth:`Dimension.code`)."""
        free = self.problem_.space.free
        return np.array([[d.code(p[d.name]) for d in free] for p in points], dtype=np.float64).reshape(
            len(points), len(free))

    def _scaled(self, raw: np.ndarray) -> np.ndarray:
        """Rows of codes (see :meth:`_encode`) scaled to ``[0, 1]`` per dimension (the model's inputs)."""
        free = self.problem_.space.free
        if not free:
            return np.zeros((len(raw), 1), dtype=np.float64)
        low = np.array([float(d.low) for d in free])
        span = np.array([float(d.high - d.low) or 1.0 for d in free])
        return (raw - low) / span

    def _decode(self, row: np.ndarray) -> dict[str, Any]:
        space = self.problem_.space
        codes = dict(zip((d.name for d in space.free), row, strict=True))
        return {d.name: space.fixed[d.name] if d.name in space.fixed else d.from_code(codes[d.name])
                for d in space.dimensions}

    def _uniform_rows(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """``n`` uniform points as rows of codes: each free dimension drawn for all points at once."""
        free = self.problem_.space.free
        return np.column_stack([d.uniform_codes(rng, n) for d in free]) if free else np.empty((n, 0))

    def _neighbour_rows(self, row: np.ndarray, rng: np.random.Generator, n: int) -> np.ndarray:
        """``n`` neighbours of a row of codes: every free dimension moves (:meth:`Dimension.move_codes`)."""
        free = self.problem_.space.free
        return np.column_stack([d.move_codes(row[j], rng, n) for j, d in enumerate(free)]) if free else np.empty((n, 0))

    def _propose(self, step: int) -> dict[str, Any]:
        """The point of largest expected improvement among ``n_pool`` uniform points and 100
        neighbours of each of the 5 best points (points already evaluated left out)."""
        rng = step_rng(self.seed_, step, _MOVE)
        seen = self._encode([p for _, p, _ in self.points_])
        q = np.array([v for _, _, v in self.points_])
        pool = [self._uniform_rows(rng, self.n_pool)]
        pool += [self._neighbour_rows(seen[i], rng, 100) for i in np.argsort(-q, kind="stable")[:5]]
        P = np.concatenate(pool)
        new = ~(P[:, None, :] == seen[None, :, :]).all(axis=2).any(axis=1)
        if new.any():
            P = P[new]
        return self._decode(P[int(np.argmax(self._acquisition(seen, q, P)))])

    def _acquisition(self, seen: np.ndarray, q: np.ndarray, P: np.ndarray) -> np.ndarray:
        """The value of proposing each row of ``P`` given the point steps' rows ``seen`` and qualities
        ``q``: expected improvement, divided by ``max(1, n / m) ** cost_power`` (see the class)."""
        Xs, Ps = self._scaled(seen), self._scaled(P)
        D, Dq = _distances(Xs, Xs), _distances(Ps, Xs)  # both models are on the same rows
        if len(self.prior_z_):
            mean, sd, z = self._prior_posterior(Xs, np.asarray(q, dtype=np.float64), Ps)
        else:
            mean, sd = _gp_posterior(D, np.asarray(q, dtype=np.float64), Dq)
            z = (q - q.mean()) / (q.std() if q.std() > 0 else 1.0)
        assert sd is not None  # sd=True
        ei = expected_improvement(mean, sd, float(z.max()), self.xi)
        if self.cost_power > 0:
            wide = np.maximum(self._predicted_sizes(D, Dq) / self.problem_.n_samples, 1.0)
            ei = ei / wide ** float(self.cost_power)
        return ei

    def _prior_posterior(self, Xs: np.ndarray, q: np.ndarray, Ps: np.ndarray) -> tuple[Any, Any, np.ndarray]:
        """The quality model with prior observations (module docstring): mean and standard deviation at the
        scaled query rows ``Ps``, and this search's standardized qualities ``q`` (rows ``Xs``)."""
        var = (len(q) * float(q.var()) + PRIOR_WEIGHT * self.prior_var_) / (len(q) + PRIOR_WEIGHT)
        z = (q - q.mean()) / (np.sqrt(var) if var > 0 else 1.0)
        rows = np.concatenate([self._scaled(self.prior_rows_), Xs])
        task, zz = np.concatenate([self.prior_task_, np.full(len(q), TARGET, dtype=np.intp)]), np.concatenate([self.prior_z_, z])
        D, noise = _distances(rows, rows), np.full(len(task), TASK_NOISE)
        if self.prior_weight == "learned":
            self.task_noises_.append(learned_task_noises(D, zz, task, offset=TASK_OFFSET))
            noise = np.array([self.task_noises_[-1].get(int(t), TASK_NOISE) for t in task])
        if self.prior_mean == "map":  # the related rows enter through their quality map only (the class docstring)
            p = len(self.prior_z_)
            return (*gp.gp_posterior_map(rows[:p], self.prior_z_, self.prior_task_, Xs, z, Ps, offset=TASK_OFFSET,
                                         task_noise=noise[:p]), z)
        mean, sd = gp_posterior_tasks(D, zz, task, _distances(Ps, rows), offset=TASK_OFFSET, task_noise=noise)
        return mean, sd, z

    def _predicted_sizes(self, D: np.ndarray, Dq: np.ndarray) -> np.ndarray:
        """Predicted numbers of features (at least 1) of the sets at the query rows, from a Gaussian
        process on ``log(1 + n)`` of the point steps so far (sizes :attr:`sizes_`); ``D`` and ``Dq``
        are the distances among the point steps' scaled rows and from the query rows to them."""
        logs = np.log1p(np.asarray(self.sizes_, dtype=np.float64))
        mean, _ = _gp_posterior(D, logs, Dq, sd=False)
        sd = float(logs.std())
        return np.maximum(np.expm1(float(logs.mean()) + mean * (sd if sd > 0 else 1.0)), 1.0)

    def _portfolio(self, step: int) -> Candidate:
        k = int(self.portfolio_sizes[self.n_portfolios_ % len(self.portfolio_sizes)])
        self.n_portfolios_ += 1
        order = sorted(self.points_, key=lambda t: (-t[2], t[0]))[:k]
        self.portfolio_sources_[step] = sorted(s for s, _, _ in order)
        sources = [{"point": dict(p), "keys": [self.seed_, s, _DRAW]} for s, p, _ in order]
        if self.prior_in_portfolios:
            sources += [dict(s) for s in self.prior_sources_]
        return Candidate({PORTFOLIO: sources}, how="engine", keys=(self.seed_, step, _DRAW), kind="portfolio")

    def _prior_portfolio(self, step: int) -> Candidate:
        """A portfolio of sets drawn at the best distinct points of the prior (related tasks' steps), with the
        related tasks' chosen sets (``prior_features``)."""
        chosen: list[dict[str, Any]] = []
        seen: set[str] = set()
        ranked = np.argsort(-self.prior_z_, kind="stable") if self.prior_portfolio is not None else np.empty(0, np.intp)
        for i in ranked:
            prior_point = self.prior_points_[int(i)]
            key = repr(sorted(prior_point.items()))
            if key not in seen:
                seen.add(key)
                chosen.append(prior_point)
            if len(chosen) == self.prior_portfolio:
                break
        sources = [{"point": dict(p), "keys": [self.seed_, step, _PRIOR, i]} for i, p in enumerate(chosen)]
        self.prior_sources_ = [dict(s) for s in sources]
        self.portfolio_sources_[step] = "prior"
        point: dict[str, Any] = {PORTFOLIO: sources}
        if self._uses_prior_sets():
            point[PRIOR_SETS] = len(self.prior_sets_)
        return Candidate(point, how="engine", keys=(self.seed_, step, _DRAW), kind="portfolio")

    def tell(self, record: StepRecord) -> None:
        self.qualities_[record.step] = float(record.quality)
        point = self.proposed_.get(record.step, record.point)
        if point is not None:
            self.points_.append((record.step, dict(point), float(record.quality)))
            self.sizes_.append(int(record.n_features))

    # ------------------------------------------------------------------ drawing
    def draw(self, problem: SearchProblem, candidate: Candidate, rng: np.random.Generator) -> Any:
        """A point's redundancy-filtered set, or a portfolio (sources' sets interleaved, then filtered)."""
        if PORTFOLIO not in candidate.point:
            return self._remember(candidate.point, candidate.keys, lambda: self.point_set(problem, candidate.point, rng))
        sets = [draw_or_empty(problem, functools.partial(self.source_set, problem, s["point"], s["keys"]))
                for s in candidate.point[PORTFOLIO]]
        if candidate.point.get(PRIOR_SETS):
            sets += [self.ranked_prior_set(problem, specs) for specs in self.prior_sets_]
        return self.union(problem, sets)

    def union(self, problem: SearchProblem, sets: Sequence[Any], prepared: Any = None) -> Any:
        """The sets interleaved (each one's best first), repeats dropped, filtered into the budget; the values
        computed on ``prepared`` (None: the search's training rows)."""
        fam = problem.family
        sets = [b for b in sets if len(b)]
        if not sets:
            return fam.concat([])
        union = fam.concat(sets)
        offsets = np.cumsum([0] + [len(b) for b in sets])
        longest = max(len(b) for b in sets)
        order = np.array([offsets[s] + r for r in range(longest) for s in range(len(sets)) if r < len(sets[s])],
                         dtype=np.intp)  # round-robin: each source's best first
        values = fam.compute(problem.prepared if prepared is None else prepared, union)
        keep = _first_of_repeats(values)
        return union.take(self._filter(values, union.costs, order[keep[order]], problem.budget))

    def ranked_prior_set(self, problem: SearchProblem, specs: Sequence[Mapping[str, Any]],
                         rows: tuple[Any, np.ndarray] | None = None) -> Any:
        """A related task's chosen set (``prior_features``), ranked by infogain per cost on this task's data
        (``rows``: its prepared data and labels; None: the search's training rows)."""
        fam = problem.family
        batch = fam.from_json(specs)
        if len(batch) == 0:
            return batch
        prepared, y = (problem.prepared, problem.y) if rows is None else rows
        values = fam.compute(prepared, batch)
        costs = np.asarray(batch.costs, dtype=np.float64)
        return batch.take(self._pool_order(y, values, costs, np.arange(len(batch))))

    def source_set(self, problem: SearchProblem, point: Mapping[str, Any], keys: Sequence[int]) -> Any:
        """The set a point step drew with generator keys ``keys`` (this engine's draw, or the loop's with
        ``pool_factor=None``); a set this engine drew earlier in this search is reused, not drawn again
        (the draw is a function of the point and the keys)."""
        if self.pool_factor is None:
            return problem.draw(point, step_rng(*keys))
        return self._remember(point, keys, lambda: self.point_set(problem, point, step_rng(*keys)))

    def _remember(self, point: Mapping[str, Any], keys: Sequence[int] | None, make: Any) -> Any:
        cache = self.__dict__.setdefault("sets_", {})
        key = (tuple(int(k) for k in keys or ()), repr(sorted(point.items())))
        if keys is None or key not in cache:
            batch = make()
            if keys is None:
                return batch
            cache[key] = batch
        return cache[key]

    def point_set(self, problem: SearchProblem, point: Mapping[str, Any], rng: np.random.Generator) -> Any:
        """``pool_factor * budget`` drawn at ``point`` (half of it by the quality map with ``feature_map``),
        ranked by infogain per cost, repeats dropped, kept while weakly correlated with the features kept
        before (best first)."""
        assert self.pool_factor is not None  # with pool_factor=None the loop draws (no how="engine" candidate)
        if self.feature_map is not None:
            pool, values = self.mapped_pool(problem, point, rng)
        else:
            pool = problem.family.draw(point, problem.budget * float(self.pool_factor), rng)
            prepared = problem.prepared if self.rows_ is None else self.rows_[0]
            values = problem.family.compute(prepared, pool) if len(pool) else None
        if len(pool) == 0:
            return pool
        costs = np.asarray(pool.costs, dtype=np.float64)
        y = problem.y if self.rows_ is None else self.rows_[1]
        order = self._pool_order(y, values, costs, np.flatnonzero(_first_of_repeats(values)))
        return pool.take(self._filter(values, costs, order, problem.budget))

    def mapped_pool(self, problem: SearchProblem, point: Mapping[str, Any], rng: np.random.Generator) -> tuple[Any, Any]:
        """A pool of ``pool_factor * budget`` whose second half is chosen by the quality map (``feature_map``),
        with its values: half drawn and computed as usual, Algorithm 5 fitted on their infogain per cost
        against their centres, then the best-predicted ``1/R`` of ``R`` times as many drawn features."""
        # an image family with centres(batch) (check_params refuses feature_map without pool_factor)
        fam: Any = problem.family
        assert self.pool_factor is not None and self.feature_map is not None
        half = problem.budget * float(self.pool_factor) / 2.0
        first = fam.draw(point, half, rng)
        if len(first) == 0:
            return first, None
        values = fam.compute(problem.prepared, first)
        specs = fam.draw(point, half * self.feature_map, rng)
        n_second = min(len(first), len(specs))
        if n_second == 0:
            return first, values
        quality = (np.asarray(self.scorer_.score(values, problem.y), dtype=np.float64)
                   / np.asarray(first.costs, dtype=np.float64))
        h, w = fam.image_shape
        qmap = RBFGridRegressor(domain=[(-0.5, h - 0.5), (-0.5, w - 0.5)]).fit(fam.centres(first), quality)
        predicted = qmap.predict(fam.centres(specs))
        second = specs.take(np.sort(np.argsort(-predicted, kind="stable")[:n_second]))
        return fam.concat([first, second]), _joined(values, fam.compute(problem.prepared, second))

    def _pool_order(self, y: np.ndarray, values: Any, costs: np.ndarray, first: np.ndarray) -> np.ndarray:
        """The order in which the filter takes a pool's features: ``first`` (the features that repeat no
        earlier one) by infogain (on labels ``y``) per cost, best first, ties in draw order."""
        score = np.asarray(self.scorer_.score(values, y), dtype=np.float64) / costs
        return first[np.argsort(-score[first], kind="stable")]

    def _filter(self, values: Any, costs: Any, order: np.ndarray, budget: float) -> np.ndarray:
        costs = np.asarray(costs, dtype=np.float64)
        if self.selector == "cmim":
            assert self.codes_ is not None  # setup encodes the labels for cmim
            return cmim_select(_packed_binary(values), values.n_samples, self.codes_, order, costs, budget)
        if values.packed is not None:
            return diverse_prefix(values.packed, values.n_samples, order, costs, budget, self.max_corr)
        return dense_diverse_prefix(values.dense(np.float64), order, costs, budget, self.max_corr)

    def metadata(self) -> dict[str, Any]:
        meta: dict[str, Any] = {"n_init": self.n_init, "portfolio_every": self.portfolio_every,
                                "pool_factor": self.pool_factor, "max_corr": self.max_corr,
                                "cost_power": self.cost_power, "selector": self.selector,
                                "feature_map": self.feature_map, "pool_rows": self.pool_rows,
                                # the sample's size asked for when the pools were ranked on a sample; None: every row
                                "pool_rows_used": self.pool_rows_ if self.__dict__.get("rows_") is not None else None,
                                "prior_portfolio_every": self.prior_portfolio_every,
                                "prior_portfolio": self.prior_portfolio, "prior_features": self.prior_features,
                                "prior_in_portfolios": self.prior_in_portfolios,
                                "honest_portfolios": self.honest_portfolios, "prior_weight": self.prior_weight,
                                "prior_mean": self.prior_mean,
                                "portfolio_steps": sorted(s for s, p in self.proposed_.items() if p is None),
                                "proposed_points": [self.proposed_[s] for s in sorted(self.proposed_)],
                                # what each portfolio step combined (SearchResult.summary names it): the steps
                                # whose sets it joins, or "prior" (sets drawn at the related tasks' best points)
                                "portfolio_sources": {str(s): v for s, v in sorted(self.portfolio_sources_.items())}}
        if self.warm_start_:
            meta["warm_start"] = self.warm_start_
        if len(self.prior_z_):
            meta["prior_observations"] = len(self.prior_z_)
        if self.checks_:  # honest_portfolios: per portfolio step, the estimates compared and the set drawn
            meta["portfolio_checks"] = dict(self.checks_)
        if self.task_noises_:  # prior_weight="learned": per proposal, each related task's extra noise variance
            meta["prior_task_noises"] = [{str(t): v for t, v in d.items()} for d in self.task_noises_]
        return meta


@hookimpl
def metafx_register_search_engines(register):
    register(GuidedSearch)
