"""Typed lookup of the components that plugins registered.

A :class:`Registry` is built by calling every registration hook once; it knows
each component's kind, class and the plugin (and distribution) it came from.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any, Generic, Iterator, Literal, TypeVar, overload

from ..core import base
from ..core.exceptions import DuplicateComponentError, UnknownComponentError, ValidationError

__all__ = ["Registry", "Registration", "Register", "KINDS"]

C = TypeVar("C", bound=type)

KINDS = ("family", "describer", "evaluator", "engine", "dataset")


@dataclass(frozen=True)
class Registration:
    """One registered component: its kind, name, class and where it came from."""

    kind: str
    name: str
    cls: type[base.Component]
    plugin: str
    distribution: str | None = None

    @property
    def source(self) -> str:
        if self.distribution:
            return f"{self.plugin} (distribution {self.distribution})"
        return self.plugin


def _expected_base(kind: str) -> tuple[type[base.Component], ...]:
    return {
        "family": (base.FeatureFamily,),
        "describer": (base.MetaFeatureDescriber,),
        "evaluator": (base.FeatureScorer, base.SetEvaluator, base.FeatureSelector),
        "engine": (base.SearchEngine,),
        "dataset": (base.Dataset,),
    }[kind]


class Registry:
    """Components by kind and name."""

    def __init__(self) -> None:
        self._items: dict[str, dict[str, Registration]] = {k: {} for k in KINDS}

    def add(self, kind: str, cls: type, plugin: str, distribution: str | None = None) -> None:
        """Add ``cls`` as a component of ``kind``; a duplicate name raises."""
        if kind not in self._items:
            raise ValidationError(f"kind={kind!r} is not a component kind; allowed: {', '.join(KINDS)}")
        bases = _expected_base(kind)
        if not isinstance(cls, type) or not issubclass(cls, bases):
            allowed = " or ".join(b.__name__ for b in bases)
            raise ValidationError(
                f"plugin {plugin!r} registered {cls!r} as a {kind}; a {kind} must be a subclass of {allowed}"
            )
        name = getattr(cls, "name", None)
        if not isinstance(name, str) or not name:
            raise ValidationError(
                f"plugin {plugin!r} registered {cls.__name__} without a class attribute `name` (a non-empty str)"
            )
        existing = self._items[kind].get(name)
        if existing is not None:
            raise DuplicateComponentError(
                f"two plugins register a {kind} named {name!r}: {existing.source} "
                f"({existing.cls.__module__}.{existing.cls.__qualname__}) and "
                f"{plugin}{f' (distribution {distribution})' if distribution else ''} "
                f"({cls.__module__}.{cls.__qualname__}); rename one or disable a plugin"
            )
        self._items[kind][name] = Registration(kind, name, cls, plugin, distribution)

    @overload
    def get(self, kind: Literal["family"], name: str) -> type[base.FeatureFamily]: ...
    @overload
    def get(self, kind: Literal["describer"], name: str) -> type[base.MetaFeatureDescriber]: ...
    @overload
    def get(self, kind: Literal["evaluator"], name: str) -> (
            type[base.FeatureScorer] | type[base.SetEvaluator] | type[base.FeatureSelector]): ...
    @overload
    def get(self, kind: Literal["engine"], name: str) -> type[base.SearchEngine]: ...
    @overload
    def get(self, kind: Literal["dataset"], name: str) -> type[base.Dataset]: ...
    @overload
    def get(self, kind: str, name: str) -> type[Any]: ...
    def get(self, kind: str, name: str) -> type[Any]:
        """The class registered as ``kind`` under ``name``."""
        return self.registration(kind, name).cls

    def registration(self, kind: str, name: str) -> Registration:
        items = self._items[kind]
        if name in items:
            return items[name]
        names = sorted(items)
        close = difflib.get_close_matches(str(name), names, n=1, cutoff=0.4)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise UnknownComponentError(
            f"unknown {kind} {name!r}; registered {kind}s: {', '.join(names) or '(none)'}{hint}"
        )

    def names(self, kind: str) -> list[str]:
        return sorted(self._items[kind])

    def __iter__(self) -> Iterator[Registration]:
        for kind in KINDS:
            for name in sorted(self._items[kind]):
                yield self._items[kind][name]

    def __contains__(self, key: tuple[str, str]) -> bool:
        kind, name = key
        return name in self._items.get(kind, {})


class Register(Generic[C]):
    """What a registration hook receives: adds component classes of one kind.

    ``register(cls)`` and ``register.add(cls)`` are the same; both return
    ``cls``, so either can decorate a class.  The class is checked at once
    (base class, ``name``, duplicates), and the error names the plugin.

    Examples
    --------
    >>> reg = Registry()
    >>> r = Register(reg, "dataset", "example-plugin")
    >>> r.kind, r.plugin
    ('dataset', 'example-plugin')
    """

    def __init__(self, registry: Registry, kind: str, plugin: str, distribution: str | None = None) -> None:
        self.registry = registry
        self.kind = kind
        self.plugin = plugin
        self.distribution = distribution

    def add(self, cls: C) -> C:
        """Register ``cls`` as a component of this hook's kind; returns ``cls``."""
        self.registry.add(self.kind, cls, self.plugin, self.distribution)
        return cls

    __call__ = add

    def __repr__(self) -> str:
        return f"Register(kind={self.kind!r}, plugin={self.plugin!r})"
