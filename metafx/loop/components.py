"""Components from names: :func:`make_component` and :func:`load_dataset`."""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from ..core.base import Component
from ..core.exceptions import ValidationError
from ..hooks.manager import get_registry

__all__ = ["make_component", "load_dataset", "role_of", "ROLES"]


def make_component(kind: str, spec: Any, params: Mapping[str, Any] | None = None, *,
                   base: type | None = None) -> Any:
    """An instance from a registered name, a component class or an instance (parameters checked).

    Examples
    --------
    >>> import metafx
    >>> metafx.plugin.make_component("engine", "mufasa", {"n_candidates": 2})
    Mufasa(start=None, n_candidates=2)
    """
    if isinstance(spec, Component):
        if params:
            raise ValidationError(f"{kind} parameters were given with an already constructed {kind} {spec!r}")
        obj = spec
        obj.check_params()
    elif isinstance(spec, type) and issubclass(spec, Component):
        obj = spec.create(params)
    elif isinstance(spec, str):
        obj = get_registry().get(kind, spec).create(params)
    else:
        raise ValidationError(f"{kind}={spec!r} must be a registered name or a {kind} instance")
    if base is not None and not isinstance(obj, base):
        raise ValidationError(f"{kind} {getattr(obj, 'name', obj)!r} is a {role_of(type(obj))}, not a "
                              f"{role_of(base)}{_others(kind, base)}")
    return obj


#: what each evaluator base class is called in messages and listings
ROLES = {"SetEvaluator": "set evaluator (scores a feature set: the search's --evaluator)",
         "FeatureScorer": "per-feature scorer (one score per feature: --prune-by, score_features)",
         "FeatureSelector": "selector (chooses feature indices: select_features)"}


def role_of(cls: type) -> str:
    """``"set evaluator"``, ``"per-feature scorer"``, ``"selector"``, or the class name."""
    for klass in cls.__mro__:
        if klass.__name__ in ROLES:
            return ROLES[klass.__name__].split(" (")[0]
    return cls.__name__


def _others(kind: str, base: type) -> str:
    names = [n for n in get_registry().names(kind) if issubclass(get_registry().get(kind, n), base)]
    return f"; registered {role_of(base)}s: {', '.join(names)}" if names else ""


def load_dataset(name: str, **params: Any) -> tuple[np.ndarray, np.ndarray]:
    """Load a registered dataset by name, e.g. ``load_dataset("mnist", data_dir=...)``.

    Examples
    --------
    >>> import metafx
    >>> X, y = metafx.load_dataset("digits")
    >>> X.shape, sorted(set(X.ravel().tolist()))
    ((1797, 8, 8), [0, 1])
    """
    return make_component("dataset", name, params).load()
