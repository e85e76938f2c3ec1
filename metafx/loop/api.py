"""The public entry point :func:`search`."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

from ..core.base import FeatureFamily, SearchEngine, SetEvaluator
from ..core.exceptions import ValidationError
from ..core.validation import check_int, check_labels, check_n_jobs, check_number, check_seed
from ..storage.study import check_storage_options
from .components import make_component
from .logs import auto_progress, verbosity
from .loop import prior_observations, run_search, warm_start_points
from .problem import SearchProblem
from .result import SearchResult

__all__ = [
    "DEFAULT_BUDGET",
    "DEFAULT_ENGINE",
    "DEFAULT_STEPS",
    "check_warm_start",
    "resolve_budget",
    "resolve_seed",
    "resolve_steps",
    "search",
]

#: the budget of a search with ``budget="auto"`` when the family has no rule of its own
#: (image families: a budget per pixel, see :meth:`metafx.plugin.FeatureFamily.default_budget`)
DEFAULT_BUDGET = 500.0
#: the steps of a search with ``steps="auto"`` when the family has no rule of its own (images of at least 16 x 16
#: pixels: 15, see :meth:`metafx.plugin.FeatureFamily.default_steps`); ``"auto"`` is the default of every front end
#: (search, CLI, MetaFeatureExtractor)
DEFAULT_STEPS = 50
DEFAULT_ENGINE = "guided"


def search(
    X: Any,
    y: Any,
    family: str | FeatureFamily[Any] = "pixel-and",
    budget: float | str = "auto",
    steps: int | str = "auto",
    engine: str | SearchEngine = DEFAULT_ENGINE,
    evaluator: str | SetEvaluator = "cv-linear-svm",
    seed: int | None = 0,
    callbacks: Sequence[Callable[..., Any]] | None = None,
    progress: bool | None = None,
    *,
    fixed: Mapping[str, Any] | None = None,
    family_params: Mapping[str, Any] | None = None,
    engine_params: Mapping[str, Any] | None = None,
    evaluator_params: Mapping[str, Any] | None = None,
    storage: str | None = None,
    study_name: str | None = None,
    storage_options: Mapping[str, float] | None = None,
    n_jobs: int = 1,
    oversample: float = 1.0,
    prune_by: str = "infogain",
    timeout: float | None = None,
    warm_start: Any = None,
    verbose: bool | int = False,
    random_state: int | None = None,
    reselect: int | None = None,
    reselect_splits: int | None = None,
) -> SearchResult:
    """Search a feature family's meta-feature space under a cost budget.

    Parameters
    ----------
    X : array
        Training data in the family's layout (binary images ``(n, H, W)`` for
        ``pixel-and``).
    y : array of shape (n,)
        Class labels.
    family : str or ~metafx.plugin.FeatureFamily, default "pixel-and"
        The candidate features and their meta-features: a registered family
        name (``metafx plugins`` lists them; ``"pixel-and"``: ANDs of pixels
        OR-ed over shifts, ``"tabular"`` with the tabular plugin) or a
        constructed :class:`~metafx.plugin.FeatureFamily`.  Its constructor's
        parameters go in ``family_params``.  See :doc:`/guide/families`.
    budget : float or "auto", default "auto"
        Total cost of the returned feature set (``pixel-and``: a feature with
        shift length ``a`` costs ``0.5 * (1 + a**2)``).  ``"auto"``: the
        family's default for ``X`` -- for image families 16 per pixel on
        images of at least 16 x 16 pixels (12544 on 28 x 28 MNIST) and 8 per
        pixel on smaller ones (512 on the 8 x 8 digits), 500 otherwise; the result's
        ``budget`` holds the number used.  See :doc:`/guide/budget`.
    steps : int or "auto", default "auto"
        Number of search steps (points evaluated).  ``"auto"``: the family's
        default for ``X`` -- 15 for images of at least 16 x 16 pixels, 50
        otherwise (the result's ``trajectory`` holds the steps run).  The defaults are the same in
        the CLI and ``MetaFeatureExtractor``.
    engine : str or ~metafx.plugin.SearchEngine, default "guided"
        How the points are chosen: a registered engine name or a constructed
        :class:`~metafx.plugin.SearchEngine`; its parameters go in
        ``engine_params``.  ``"guided"`` (the default) is the engine that
        chose the best features per unit of search time on development data
        (:doc:`/results/defaults`); ``"mufasa"`` is the thesis's Algorithm 6;
        ``"random"`` and ``"optuna"`` are baselines.  See :doc:`/engines`.
    evaluator : str or ~metafx.plugin.SetEvaluator, default "cv-linear-svm"
        How the quality of a feature set is measured: a registered evaluator
        name or a constructed :class:`~metafx.plugin.SetEvaluator`; its
        parameters go in ``evaluator_params``.  The default is the 2-fold
        cross-validated accuracy of a linear SVM on the set's features.  See
        :doc:`/evaluators`.
    seed : int or None, default 0
        Makes the search reproducible; ``None`` draws one (stored in the
        result).  ``random_state=`` is accepted as another name for it.
    callbacks : list of callables, optional
        Each is called as ``cb(state, record)`` after every step; returning
        ``False`` or calling ``state.stop()`` ends the search.
    progress : bool or None, default None
        Progress bar (``tqdm.auto``); ``None`` shows it on a terminal and in
        a Jupyter notebook, and elsewhere leaves progress to the ``metafx``
        logger (see ``verbose``).
    fixed : dict, optional
        Meta-features held fixed, e.g. ``{"shiftInvLen": 1}``.
    family_params : dict, optional
        Constructor parameters of the family when ``family`` is a name.
    engine_params : dict, optional
        Constructor parameters of the engine when ``engine`` is a name (for
        example ``{"n_init": 5}`` for ``guided``; :doc:`/engines` lists them).
    evaluator_params : dict, optional
        Constructor parameters of the evaluator when ``evaluator`` is a name.
    storage : str, optional
        Where finished steps are recorded so that a killed search resumes:
        a JSON-lines journal path (``guided``, ``mufasa``, ``random``, ...)
        or, for engines whose steps are trials of an optuna study
        (``optuna``), an optuna storage -- ``sqlite:///s.db``,
        ``postgresql://user:pw@host/db`` or a journal file ``*.log``; see
        :doc:`/engines` and :doc:`/guide/resume`.
    study_name : str, optional
        The optuna study inside ``storage`` (default: derived from the search).
    storage_options : dict, optional
        The study's liveness settings, for engines whose steps are trials
        (``optuna``): ``heartbeat`` (seconds between two heartbeats of this
        process's running trials, default 30) and ``stale_after`` (seconds
        without a heartbeat after which the step of another machine's running
        trial is retried, default 600; processes on this machine are checked
        directly); ``heartbeat`` must be below ``stale_after``.  The process
        that creates a study records them in it, and workers that join it
        use them; they are not part of what the study must match.
    oversample : float, default 1
        ``f > 1`` draws ``f`` times the budget at each point and keeps the
        best features by ``prune_by`` score per cost (a per-feature scorer,
        default ``"infogain"``) until the budget is filled; 1 is the thesis's
        plain drawing.
    n_jobs : int
        Worker processes evaluating candidates at once (joblib; ``-1``: every
        CPU): the candidates of a step (``mufasa`` with ``n_candidates > 1``)
        or several steps whose proposals do not wait for each other
        (``random``, ``optuna``).  The result does not depend on ``n_jobs``
        except with optuna's model-based samplers, which then propose
        ``n_jobs`` points before seeing their results.
    timeout : float, optional
        Seconds after which no new step starts; the result holds the steps
        finished by then (``metadata["stopped"] == "timeout"``).
    warm_start : ~metafx.SearchResult, dict or list, optional
        Start from searches on related tasks with the same family (an
        extension of this project: the thesis's section 5.5 transfers the
        quality of features between tasks, see :func:`metafx.transfer_quality`,
        and never starts a search from another's): the results, or their best
        points.  ``mufasa`` and ``random`` evaluate the best points first (at
        most ``steps // 2``) and ``mufasa`` goes on from the best;
        ``optuna``'s first trials take them (as ``enqueue_trial``), so its
        sampler's model starts with them.  ``guided`` (the default) evaluates
        them first too, and every step of the given results joins its model of
        quality as a prior observation: its model proposes from the next step
        on.  A result of another family, another meta-feature space or other
        image sizes is refused: its point would mean something else here.
        See :doc:`/guide/transfer`.
    verbose : bool or int, default False
        Show the ``metafx`` logger's INFO lines on stderr during this search
        (a line every 10 steps when no bar is shown, and on resume) unless
        the application configured logging itself; see
        :func:`metafx.set_log_level` to switch them on for good.
    random_state : int, optional
        Another name for ``seed`` (scikit-learn's); give one of the two.
    reselect : int, optional
        The engine's default when not given (``guided``: 3; the others: 1).
        ``r > 1``: after the last step, the sets of the ``r`` best steps are
        scored once more by the evaluator on a fresh split (another seed,
        derived from ``seed``), and the result keeps the set with the best
        mean of its two scores instead of the best first score: the best of
        many noisy scores is optimistic.  ``best_step`` / ``best_quality``
        are then the chosen step's (its first score), and
        ``metadata["reselect"]`` holds the steps, both scores and the choice.
        Costs ``r`` evaluations; not when the steps live in an optuna study
        (``optuna``); :meth:`metafx.SearchResult.bound` refuses.
    reselect_splits : int, optional
        The engine's default when not given (1 for every bundled engine).
        ``k``: each of the ``r`` sets is scored on ``k`` fresh splits (seeds
        derived from ``seed``, the first the one of ``k = 1``) and the result
        keeps the best mean of its ``1 + k`` scores; costs ``r * k``
        evaluations.  ``metadata["reselect"]`` then also holds ``splits``,
        ``split_seeds`` and every fresh score (``fresh_qualities``;
        ``second_qualities`` is their mean per set).

    Returns
    -------
    ~metafx.SearchResult

    Examples
    --------
    >>> import metafx
    >>> X, y = metafx.load_dataset("digits")
    >>> res = metafx.search(X[:400], y[:400], budget=60, steps=3, seed=0, progress=False)
    >>> res.total_cost <= 60, res.transform(X[:5]).shape[0]
    (True, 5)
    """
    checked = _check_arguments(family, evaluator, engine, family_params, evaluator_params, engine_params,
                               steps=steps, n_jobs=n_jobs, seed=seed, random_state=random_state)
    check_storage_options(storage_options)  # before the data is read
    problem, warm, prior, steps = _build_problem(checked, X, y, budget, fixed=fixed, oversample=oversample,
                                                 prune_by=prune_by, warm_start=warm_start)
    with verbosity(verbose):
        return run_search(problem, checked.engine, steps=steps, seed=checked.seed,
                          callbacks=list(callbacks or ()), progress=auto_progress() if progress is None else progress,
                          storage=storage, study_name=study_name, n_jobs=checked.n_jobs, timeout=timeout,
                          warm_start=warm, reselect=reselect, prior=prior, storage_options=storage_options,
                          reselect_splits=reselect_splits)


class _Checked(NamedTuple):
    """A search's components, built, and its checked numbers."""

    family: FeatureFamily[Any]
    evaluator: SetEvaluator
    engine: SearchEngine
    steps: int | str  # "auto" until the data is read
    n_jobs: int
    seed: int


def _check_arguments(family: Any, evaluator: Any, engine: Any, family_params: Any, evaluator_params: Any,
                     engine_params: Any, *, steps: Any, n_jobs: Any, seed: Any, random_state: Any) -> _Checked:
    """The first phase of :func:`search`: build the components and check the numbers (in this order)."""
    seed = resolve_seed(seed, random_state, default=0)
    fam = make_component("family", family, family_params, base=FeatureFamily)
    ev = make_component("set-evaluator", evaluator, evaluator_params)
    eng = make_component("engine", engine, engine_params, base=SearchEngine)
    if not (isinstance(steps, str) and steps == "auto"):
        steps = resolve_steps(steps, fam, None)  # a number is checked before the data is read
    n_jobs = check_n_jobs(n_jobs)
    seed = check_seed(secrets.randbelow(2**31) if seed is None else seed)
    return _Checked(fam, ev, eng, steps, n_jobs, seed)


def _build_problem(checked: _Checked, X: Any, y: Any, budget: Any, *, fixed: Any, oversample: Any, prune_by: Any,
                   warm_start: Any) -> tuple[SearchProblem, list[Any], list[Any], int]:
    """The second phase of :func:`search`: the checked data, the budget, the problem, the warm-start points,
    the prior observations for an engine that takes them and the number of steps."""
    X_checked = checked.family.check_data(X)
    budget = resolve_budget(budget, checked.family, X_checked)
    steps = resolve_steps(checked.steps, checked.family, X_checked)
    y = check_labels(y, X_checked.shape[0])
    problem = SearchProblem(checked.family, X_checked, y, checked.evaluator, float(budget), fixed=fixed,
                            eval_seed=checked.seed % 2**32, oversample=oversample, prune_by=prune_by)
    check_warm_start(warm_start, problem.family, problem.space)
    warm = warm_start_points(warm_start, problem.space, limit=max(1, steps // 2))
    sets_of = problem.family if checked.engine.uses_prior_sets else None
    prior = prior_observations(warm_start, problem.space, sets_of) if checked.engine.uses_prior else []
    return problem, warm, prior, steps


def resolve_budget(budget: Any, family: FeatureFamily[Any], X: Any) -> float:
    """The number a search's ``budget`` stands for: itself, or with ``"auto"`` the family's default for ``X``.

    ``X`` is the family's checked data (:meth:`~metafx.plugin.FeatureFamily.check_data`); a family without a
    rule of its own (:meth:`~metafx.plugin.FeatureFamily.default_budget` returns ``None``) gets
    :data:`DEFAULT_BUDGET`.
    """
    if isinstance(budget, str):
        if budget != "auto":
            raise ValidationError(f"budget={budget!r} must be a positive number or 'auto' (the family's default "
                                  f"for the data: a budget per pixel for images, {DEFAULT_BUDGET:g} otherwise)")
        rule = family.default_budget(X)
        budget = DEFAULT_BUDGET if rule is None else rule
    check_number("budget", budget, low=0, strict=True)
    return float(budget)


def resolve_steps(steps: Any, family: FeatureFamily[Any], X: Any) -> int:
    """The number a search's ``steps`` stands for: itself, or with ``"auto"`` the family's default for ``X``
    (:meth:`~metafx.plugin.FeatureFamily.default_steps`; :data:`DEFAULT_STEPS` when it has none).  ``X`` is the
    family's checked data (``None`` only for a number)."""
    if isinstance(steps, str):
        if steps != "auto":
            raise ValidationError(f"steps={steps!r} must be an integer >= 1 or 'auto' (the family's default: 15 for "
                                  f"images of at least 16 x 16 pixels, {DEFAULT_STEPS} otherwise)")
        rule = family.default_steps(X)
        steps = DEFAULT_STEPS if rule is None else rule
    return check_int("steps", steps, 1)


def resolve_seed(seed: Any, random_state: Any, *, default: Any = 0,
                 names: tuple[str, str] = ("seed", "random_state")) -> Any:
    """The one seed given as ``seed`` or under its other name ``random_state`` (both only when equal).

    ``seed`` is the name in searches (as in optuna's samplers), ``random_state``
    on scikit-learn-style objects; each accepts the other.  A value equal to
    ``default`` counts as not given.
    """
    if random_state is None:
        return seed
    if seed != default and seed != random_state:
        raise ValidationError(f"{names[0]}={seed!r} and {names[1]}={random_state!r} are two names for the same "
                              f"seed; give one of them")
    return random_state


def _dims(dimensions: Sequence[Any]) -> dict[str, tuple[Any, ...]]:
    """What makes two spaces the same: each dimension's kind, range and choices (not its default or step)."""
    out: dict[str, tuple[Any, ...]] = {}
    name: Any
    low: Any
    high: Any
    for d in dimensions:
        if isinstance(d, Mapping):
            name, kind, low, high, choices = d.get("name"), d.get("kind"), d.get("low"), d.get("high"), \
                d.get("choices", ())
        else:
            name, kind, low, high, choices = d.name, d.kind, d.low, d.high, d.choices
        rng = tuple(choices) if kind == "categorical" else (float(low), float(high))
        out[name] = (kind, rng)
    return out


def check_warm_start(warm_start: Any, family: FeatureFamily[Any], space: Any) -> None:
    """Refuse warm-start results whose points mean something else in this search, with the reason.

    A :class:`SearchResult` must come from the same family, on images of the
    same size (``image_shape``), over the same meta-feature space (names,
    kinds, ranges and choices; fixed values may differ: the point takes this
    search's).  A point (dict) must name at least one of the space's
    meta-features.  Raises :class:`~metafx.ValidationError`.
    """
    if warm_start is None:
        return
    items = [warm_start] if isinstance(warm_start, (Mapping, SearchResult)) else list(warm_start)
    ours = _dims(space.dimensions)
    for i, item in enumerate(items):
        where = "warm_start" if len(items) == 1 else f"warm_start[{i}]"
        if isinstance(item, Mapping):
            if item and not set(item) & set(ours):
                raise ValidationError(f"{where} is the point {dict(item)!r}, which names none of this space's "
                                      f"meta-features ({', '.join(ours)}); it would start at the default point")
            continue
        if not isinstance(item, SearchResult):
            continue  # warm_start_points names what is wrong
        if item.family != family.name:
            raise ValidationError(f"{where} is a result of family {item.family!r} but this search's family is "
                                  f"{family.name!r}: its meta-feature point means nothing here; give results of "
                                  f"{family.name!r} searches")
        theirs_shape, our_shape = item.family_params.get("image_shape"), getattr(family, "image_shape", None)
        if theirs_shape is not None and our_shape is not None \
                and [int(v) for v in theirs_shape] != [int(v) for v in our_shape]:
            raise ValidationError(f"{where} was searched on images of {theirs_shape[0]} x {theirs_shape[1]} but "
                                  f"this search's are {our_shape[0]} x {our_shape[1]}: its point (positions, "
                                  "shift lengths, scatter) would mean other features here")
        dims = item.space.get("dimensions") if isinstance(item.space, Mapping) else None
        if not dims:
            continue  # a result file written before spaces were recorded
        try:
            theirs = _dims(dims)
        except (TypeError, ValueError, AttributeError):
            raise ValidationError(f"{where}: its recorded meta-feature space is malformed") from None
        if theirs != ours:
            diff = sorted(set(theirs) ^ set(ours))
            what = (f"meta-features {diff} are in one space only" if diff else
                    "; ".join(f"{n}: {_range_text(theirs[n])} there, {_range_text(ours[n])} here"
                              for n in ours if theirs[n] != ours[n]))
            raise ValidationError(f"{where} was searched over another meta-feature space ({what}); a warm start "
                                  "takes results of the same family over the same space")


def _range_text(dim: tuple[Any, ...]) -> str:
    kind, rng = dim
    if kind == "categorical":
        return f"choices {list(rng)}"
    lo, hi = (int(v) if float(v).is_integer() else v for v in rng)
    return f"{kind} {lo}..{hi}"
