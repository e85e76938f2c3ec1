"""The public entry points: :func:`search`, :func:`make_component`."""

from __future__ import annotations

import math
import secrets
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from .base import Component, FeatureFamily, SearchEngine, SetEvaluator
from .data import check_labels
from .exceptions import ValidationError
from .types import SearchResult

__all__ = ["search", "make_component"]


def make_component(kind: str, spec: Any, params: Mapping[str, Any] | None = None, *,
                   base: type | None = None) -> Any:
    """An instance from a registered name, a component class or an instance."""
    from .plugins import get_registry

    if isinstance(spec, Component):
        if params:
            raise ValidationError(f"{kind} parameters were given with an already constructed {kind} {spec!r}")
        obj = spec
    elif isinstance(spec, type) and issubclass(spec, Component):
        obj = spec.create(params)
    elif isinstance(spec, str):
        obj = get_registry().get(kind, spec).create(params)
    else:
        raise ValidationError(f"{kind}={spec!r} must be a registered name or a {kind} instance")
    if base is not None and not isinstance(obj, base):
        raise ValidationError(f"{kind} {getattr(obj, 'name', obj)!r} is a {type(obj).__name__}, not a {base.__name__}")
    return obj


def _check_int(name: str, value: Any, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise ValidationError(f"{name}={value!r} must be an integer >= {low}")
    return int(value)


def search(
    X: Any,
    y: Any,
    family: str | FeatureFamily = "pixel-and",
    budget: float = 1000.0,
    steps: int = 50,
    engine: str | SearchEngine = "mufasa",
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
    n_jobs: int = 1,
    oversample: float = 1.0,
    prune_by: str = "infogain",
) -> SearchResult:
    """Search a feature family's meta-feature space under a cost budget.

    Parameters
    ----------
    X : array
        Training data in the family's layout (binary images ``(n, H, W)`` for
        ``pixel-and``).
    y : array of shape (n,)
        Class labels.
    family, engine, evaluator : str or instance
        Registered names (see ``metafx plugins``) or constructed components.
    budget : float
        Total cost of the returned feature set (``pixel-and``: a feature with
        shift length ``a`` costs ``0.5 * (1 + a**2)``).
    steps : int
        Number of search steps (points evaluated).
    seed : int or None
        Makes the search reproducible; ``None`` draws one (stored in the result).
    callbacks : list of callables, optional
        Each is called as ``cb(state, record)`` after every step; returning
        ``False`` or calling ``state.stop()`` ends the search.
    progress : bool or None
        Progress bar; ``None`` shows it only on a terminal.
    fixed : dict, optional
        Meta-features held fixed, e.g. ``{"shiftInvLen": 1}``.
    family_params, engine_params, evaluator_params : dict, optional
        Constructor parameters of the named components.
    storage : str, optional
        Where finished steps are recorded so that a killed search resumes
        (engine-specific: a JSON-lines journal path for ``mufasa`` and
        ``random``; an optuna storage -- ``sqlite:///s.db``,
        ``postgresql://user:pw@host/db`` or a journal file ``*.log`` -- for
        ``optuna``; see ``docs/engines.md``).
    study_name : str, optional
        The optuna study inside ``storage`` (default: derived from the search).
    oversample : float, default 1
        ``f > 1`` draws ``f`` times the budget at each point and keeps the
        best features by ``prune_by`` score per cost (a per-feature scorer,
        default ``"infogain"``) until the budget is filled; 1 is the thesis's
        plain drawing.
    n_jobs : int
        Parallel evaluations per step, where the engine supports it
        (worker processes; ``mufasa`` with ``n_candidates > 1``, ``random``, ``optuna``).

    Returns
    -------
    SearchResult

    Examples
    --------
    >>> import metafx
    >>> X, y = metafx.load_dataset("digits")
    >>> res = metafx.search(X[:400], y[:400], budget=60, steps=3, seed=0, progress=False)
    >>> res.total_cost <= 60, res.transform(X[:5]).shape[0]
    (True, 5)
    """
    fam = make_component("family", family, family_params, base=FeatureFamily)
    ev = make_component("evaluator", evaluator, evaluator_params, base=SetEvaluator)
    eng = make_component("engine", engine, engine_params, base=SearchEngine)
    steps = _check_int("steps", steps, 1)
    if n_jobs != -1:
        _check_int("n_jobs", n_jobs, 1)
    if isinstance(budget, bool) or not isinstance(budget, (int, float, np.integer, np.floating)) \
            or not math.isfinite(float(budget)) or budget <= 0:
        raise ValidationError(f"budget={budget!r} must be a positive finite number")
    if seed is None:
        seed = secrets.randbelow(2**31)
    seed = _check_int("seed", seed, 0)
    X_checked = fam.check_data(X)
    y = check_labels(y, X_checked.shape[0])
    from ._search import SearchProblem

    problem = SearchProblem(fam, X_checked, y, ev, float(budget), fixed=fixed, eval_seed=seed,
                            oversample=oversample, prune_by=prune_by)
    return eng.run(problem, steps=steps, seed=seed, callbacks=list(callbacks or ()), progress=progress,
                   storage=storage, study_name=study_name, n_jobs=n_jobs)
