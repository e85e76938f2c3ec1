"""Components from names: :func:`make_component` and :func:`load_dataset`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

import numpy as np

from ..core.base import Component
from ..core.exceptions import ValidationError
from ..hooks.manager import get_registry
from ..hooks.registry import EVALUATOR, EVALUATOR_KINDS, evaluator_kind, expected_base

__all__ = ["ROLES", "load_dataset", "make_component", "role_of"]


def make_component(kind: str, spec: Any, params: Mapping[str, Any] | None = None, *,
                   base: type | None = None) -> Any:
    """An instance from a registered name, a component class or an instance (parameters checked).

    ``kind`` is one of ``"family"``, ``"describer"``, ``"set-evaluator"``,
    ``"scorer"``, ``"selector"``, ``"engine"``, ``"dataset"``; the instance must
    be of that kind's base class (and of ``base`` when given).

    Examples
    --------
    >>> import metafx
    >>> metafx.plugin.make_component("engine", "mufasa", {"n_candidates": 2})
    Mufasa(start=None, n_candidates=2)
    >>> metafx.plugin.make_component("scorer", "infogain", {"pseudo_count": 0.01}).pseudo_count
    0.01
    """
    kind_bases = expected_base(kind)  # an unknown kind raises, listing the kinds
    what = EVALUATOR if kind in EVALUATOR_KINDS else kind
    if isinstance(spec, Component):
        if params:
            raise ValidationError(f"{what} parameters were given with an already constructed {what} {spec!r}")
        obj = spec
        obj.check_params()
    elif isinstance(spec, type) and issubclass(spec, Component):
        obj = spec.create(params)
    elif isinstance(spec, str):
        reg = get_registry()
        if kind in EVALUATOR_KINDS and (kind, spec) not in reg and any((k, spec) in reg for k in EVALUATOR_KINDS):
            raise ValidationError(f"{what} {spec!r} is a {role_of(reg.evaluator(spec).cls)}, not a "
                                  f"{role_of(kind_bases[0])}{_others(kind_bases[0])}")
        cls = reg.get(kind, spec)
        obj = cls.create(params)
    else:
        raise ValidationError(f"{what}={spec!r} must be a registered name or a {what} instance")
    for wanted in (kind_bases, base):
        if wanted is not None and not isinstance(obj, wanted):
            want = wanted[0] if isinstance(wanted, tuple) and len(wanted) == 1 else wanted
            raise ValidationError(f"{what} {getattr(obj, 'name', obj)!r} is a {role_of(type(obj))}, not a "
                                  f"{_role_words(want)}{_others(want)}")
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


def _role_words(want: type | tuple[type, ...]) -> str:
    if isinstance(want, tuple):
        return " or ".join(role_of(b) for b in want)
    return role_of(want)


def _others(want: type | tuple[type, ...]) -> str:
    """``"; registered set evaluators: ..."`` for an evaluator base, else nothing."""
    kind = evaluator_kind(want) if isinstance(want, type) else None
    names = get_registry().names(kind) if kind is not None else []
    return f"; registered {_role_words(want)}s: {', '.join(names)}" if names else ""


def load_dataset(name: str, **params: Any) -> tuple[np.ndarray, np.ndarray]:
    """Load a registered dataset by name, e.g. ``load_dataset("mnist", data_dir=...)``.

    Examples
    --------
    >>> import metafx
    >>> X, y = metafx.load_dataset("digits")
    >>> X.shape, sorted(set(X.ravel().tolist()))
    ((1797, 8, 8), [0, 1])
    """
    return cast("tuple[np.ndarray, np.ndarray]", make_component("dataset", name, params).load())
