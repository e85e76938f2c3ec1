"""Direct access to the quality evaluators: :func:`score_features`, :func:`select_features`.

Both look the method up among the registered evaluators (built-in and plugin
ones, see ``docs/evaluators.md``) and pass ``**params`` to its constructor.
"""

from __future__ import annotations

from typing import Any, TypeVar

import numpy as np

from ..core.base import Component, FeatureScorer, FeatureSelector, SetEvaluator
from ..core.exceptions import UnknownComponentError, ValidationError
from ..hooks.manager import get_registry
from ..hooks.registry import EVALUATOR_KINDS

__all__ = ["score_features", "scorer_names", "select_features", "selector_names"]


def scorer_names() -> list[str]:
    """Names of the registered per-feature scorers."""
    return get_registry().names("scorer")


def selector_names() -> list[str]:
    """Names of the registered feature selectors."""
    return get_registry().names("selector")


def _kind(cls: type) -> str:
    for base, label in ((FeatureScorer, "per-feature scorer"), (FeatureSelector, "selector"),
                        (SetEvaluator, "set evaluator")):
        if issubclass(cls, base):
            return label
    return cls.__name__


C = TypeVar("C", bound=Component)


def _lookup(method: Any, bases: tuple[type[C], ...], what: str, allowed: list[str], param: str = "method") -> type[C]:
    if isinstance(method, type) and issubclass(method, bases):
        return method
    if not isinstance(method, str):
        raise ValidationError(f"{param}={method!r} must be the name of a registered {what}; registered: "
                              f"{', '.join(allowed) or '(none)'}")
    reg = get_registry()
    if not any((k, method) in reg for k in EVALUATOR_KINDS):
        raise UnknownComponentError(
            f"unknown {what} {param}={method!r}; registered: {', '.join(allowed) or '(none)'}")
    cls = reg.evaluator(method).cls
    if not issubclass(cls, bases):
        raise ValidationError(
            f"{param}={method!r} is a {_kind(cls)}, not a {what}; registered: {', '.join(allowed)}")
    return cls


def score_features(X: Any, y: Any, method: str | type = "infogain", **params: Any) -> np.ndarray:
    """One quality score per column of ``X`` (higher is better).

    Parameters
    ----------
    X : array of shape (n_samples, n_features) or ~metafx.plugin.FeatureValues
        Feature values (bit-packed binary values are used without unpacking
        where the scorer supports it).
    y : array of shape (n_samples,)
        Class labels (or a real target for ``corrcoef`` and ``rgs``).
    method : str or type, default "infogain"
        A registered per-feature scorer: ``infogain``, ``relief``, ``relief-f``,
        ``simba``, ``corrcoef``, ``rgs`` or one added by a plugin, or a
        :class:`~metafx.plugin.FeatureScorer` subclass.
    **params
        Constructor parameters of the scorer (e.g. ``pseudo_count=0.01``).

    Returns
    -------
    ndarray of shape (n_features,)

    Examples
    --------
    >>> import numpy as np, metafx
    >>> X = np.array([[0, 1], [0, 1], [1, 0], [1, 1]])
    >>> metafx.score_features(X, [0, 0, 1, 1]).round(3)
    array([0.693, 0.216])
    """
    cls = _lookup(method, (FeatureScorer,), "per-feature scorer", scorer_names())
    scorer = cls.create(params)
    return np.asarray(scorer.score(X, y), dtype=np.float64)


def select_features(X: Any, y: Any, method: str = "gflip", **params: Any) -> np.ndarray:
    """Column indices of a selected feature subset.

    ``method`` is a registered selector (``gflip``, ``top-n``) or a per-feature
    scorer name, which is a shortcut for ``top-n`` with that scorer: then
    ``n`` (default: all columns, ranked) is taken from ``params`` and the
    remaining parameters go to the scorer.

    Examples
    --------
    >>> import numpy as np, metafx
    >>> X = np.array([[0, 1, 0], [0, 1, 1], [1, 0, 0], [1, 1, 1]])
    >>> metafx.select_features(X, [0, 0, 1, 1], "infogain", n=1)
    array([0])
    """
    scorers = scorer_names()
    cls = _lookup(method, (FeatureSelector, FeatureScorer), "selector or scorer", selector_names() + scorers)
    if issubclass(cls, FeatureScorer):
        params = dict(params)
        n = params.pop("n", None)
        selector = _lookup("top-n", (FeatureSelector,), "selector", selector_names()).create(
            {"scorer": method, "n": n, "scorer_params": params})
    else:
        assert issubclass(cls, FeatureSelector)  # _lookup returns a selector or a scorer class
        selector = cls.create(params)
    return np.asarray(selector.select(X, y), dtype=np.intp)
