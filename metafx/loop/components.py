"""Components from names: :func:`make_component` and :func:`load_dataset`."""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from ..core.base import Component
from ..core.exceptions import ValidationError
from ..hooks.manager import get_registry

__all__ = ["make_component", "load_dataset"]


def make_component(kind: str, spec: Any, params: Mapping[str, Any] | None = None, *,
                   base: type | None = None) -> Any:
    """An instance from a registered name, a component class or an instance (parameters checked).

    Examples
    --------
    >>> import metafx
    >>> metafx.make_component("engine", "mufasa", {"n_candidates": 2})
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
        raise ValidationError(f"{kind} {getattr(obj, 'name', obj)!r} is a {type(obj).__name__}, not a {base.__name__}")
    return obj


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
