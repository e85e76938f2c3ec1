"""Typed lookup of the components that plugins registered.

A ``Registry`` is built by calling every registration hook once; it knows
each component's kind, class and the plugin (and distribution) it came from.

The kinds are ``"family"``, ``"describer"``, the three roles of a quality
evaluator -- ``"set-evaluator"`` (:class:`~metafx.plugin.SetEvaluator`),
``"scorer"`` (:class:`~metafx.plugin.FeatureScorer`) and ``"selector"``
(:class:`~metafx.plugin.FeatureSelector`) -- ``"engine"`` and ``"dataset"``.
The three evaluator roles are registered through one hook and share one
namespace: a name belongs to one role only.  ``"evaluator"`` is the hook's
umbrella: registering under it files a class under its role; names are looked
up under a role (:meth:`Registry.evaluator` finds one of any role).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar, overload

from ..core import base
from ..core.exceptions import DuplicateComponentError, UnknownComponentError, ValidationError

__all__ = [
    "EVALUATOR",
    "EVALUATOR_KINDS",
    "KINDS",
    "Register",
    "Registration",
    "Registry",
    "evaluator_kind",
    "expected_base",
]

C = TypeVar("C", bound=type)

#: the roles of a quality evaluator, each a kind of its own (one shared namespace)
EVALUATOR_KINDS = ("set-evaluator", "scorer", "selector")
#: every component kind, in listing order
KINDS = ("family", "describer", *EVALUATOR_KINDS, "engine", "dataset")
#: the umbrella of the three evaluator roles: the kind of the hook ``metafx_register_evaluators`` (a kind to
#: register under, not to look names up under)
EVALUATOR = "evaluator"

_BASES: dict[str, tuple[type[base.Component], ...]] = {
    "family": (base.FeatureFamily,),
    "describer": (base.MetaFeatureDescriber,),
    "set-evaluator": (base.SetEvaluator,),
    "scorer": (base.FeatureScorer,),
    "selector": (base.FeatureSelector,),
    "engine": (base.SearchEngine,),
    "dataset": (base.Dataset,),
    EVALUATOR: (base.FeatureScorer, base.SetEvaluator, base.FeatureSelector),
}

#: what messages call each kind (singular, plural)
_WORDS = {"family": ("family", "families"), "set-evaluator": ("set evaluator", "set evaluators"),
          "scorer": ("per-feature scorer", "per-feature scorers")}


def _word(kind: str, plural: bool = False) -> str:
    one, many = _WORDS.get(kind, (kind, f"{kind}s"))
    return many if plural else one


def _check_kind(kind: Any, *, umbrella: bool = False) -> None:
    if kind in KINDS or (umbrella and kind == EVALUATOR):
        return
    close = difflib.get_close_matches(str(kind), list(KINDS), n=1, cutoff=0.5)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    if kind == EVALUATOR:
        hint = f"; an evaluator's kind is its role: {', '.join(EVALUATOR_KINDS)}"
    raise ValidationError(f"kind={kind!r} is not a component kind; allowed: {', '.join(KINDS)}{hint}")


def _unknown(what: str, name: str, names: list[str], plural: str) -> str:
    close = difflib.get_close_matches(str(name), names, n=1, cutoff=0.5)  # 0.4: "nope" -> "ranked"
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return f"unknown {what} {name!r}; registered {plural}: {', '.join(names) or '(none)'}{hint}"



def evaluator_kind(cls: type) -> str | None:
    """The evaluator role kind of ``cls`` (``"set-evaluator"``, ``"scorer"``, ``"selector"``), else None."""
    for kind in EVALUATOR_KINDS:
        if isinstance(cls, type) and issubclass(cls, _BASES[kind]):
            return kind
    return None


@dataclass(frozen=True)
class Registration:
    """One registered component: its kind, name, class and where it came from.

    ``kind`` is one of :data:`KINDS`; an evaluator's is its role (``"set-evaluator"``, ``"scorer"`` or
    ``"selector"``), whichever hook registered it.
    """

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


def expected_base(kind: str) -> tuple[type[base.Component], ...]:
    """The base classes a component of ``kind`` subclasses (an unknown kind raises, listing the kinds)."""
    _check_kind(kind)
    return _BASES[kind]


class Registry:
    """Components by kind and name."""

    def __init__(self) -> None:
        self._items: dict[str, dict[str, Registration]] = {k: {} for k in KINDS}

    def add(self, kind: str, cls: type, plugin: str, distribution: str | None = None) -> None:
        """Add ``cls`` as a component of ``kind``; a duplicate name raises.

        ``kind="evaluator"`` (the kind of the hook ``metafx_register_evaluators``) files the class under its
        role: ``"set-evaluator"``, ``"scorer"`` or ``"selector"`` (under each role whose base it subclasses).
        """
        _check_kind(kind, umbrella=True)
        bases = _BASES[kind]
        if not isinstance(cls, type) or not issubclass(cls, bases):
            allowed = " or ".join(b.__name__ for b in bases)
            a = "an" if kind[0] in "aeiou" else "a"
            raise ValidationError(
                f"plugin {plugin!r} registered {cls!r} as {a} {kind}; {a} {kind} must be a subclass of {allowed}"
            )
        name = getattr(cls, "name", None)
        if not isinstance(name, str) or not name:
            raise ValidationError(
                f"plugin {plugin!r} registered {cls.__name__} without a class attribute `name` (a non-empty str)"
            )
        shared = kind == EVALUATOR or kind in EVALUATOR_KINDS  # the evaluator roles share one namespace
        kinds = [k for k in EVALUATOR_KINDS if issubclass(cls, _BASES[k])] if kind == EVALUATOR else [kind]
        for k in (EVALUATOR_KINDS if shared else (kind,)):
            existing = self._items[k].get(name)
            if existing is not None:
                what = "an evaluator" if shared else f"a {kind}"
                raise DuplicateComponentError(
                    f"two plugins register {what} named {name!r}: {existing.source} "
                    f"({existing.cls.__module__}.{existing.cls.__qualname__}) and "
                    f"{plugin}{f' (distribution {distribution})' if distribution else ''} "
                    f"({cls.__module__}.{cls.__qualname__}); rename one or disable a plugin"
                )
        for k in kinds:
            self._items[k][name] = Registration(k, name, cls, plugin, distribution)

    @overload
    def get(self, kind: Literal["family"], name: str) -> type[base.FeatureFamily[Any]]: ...
    @overload
    def get(self, kind: Literal["describer"], name: str) -> type[base.MetaFeatureDescriber[Any]]: ...
    @overload
    def get(self, kind: Literal["set-evaluator"], name: str) -> type[base.SetEvaluator]: ...
    @overload
    def get(self, kind: Literal["scorer"], name: str) -> type[base.FeatureScorer]: ...
    @overload
    def get(self, kind: Literal["selector"], name: str) -> type[base.FeatureSelector]: ...
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
        """The :class:`Registration` of ``name`` among the components of ``kind``."""
        _check_kind(kind)
        if name in self._items[kind]:
            return self._items[kind][name]
        other = next((k for k in EVALUATOR_KINDS if name in self._items[k]), None) if kind in EVALUATOR_KINDS else None
        if other is not None:
            raise UnknownComponentError(f"{name!r} is a {_word(other)}, not a {_word(kind)}; registered "
                                        f"{_word(kind, True)}: {', '.join(self.names(kind)) or '(none)'}")
        raise UnknownComponentError(_unknown(_word(kind), name, self.names(kind), _word(kind, True)))

    def evaluator(self, name: str) -> Registration:
        """The quality evaluator registered under ``name``, of whichever role (set evaluator, scorer, selector).

        The evaluator roles share one namespace, so there is at most one; its ``kind`` says the role.
        """
        for kind in EVALUATOR_KINDS:
            if name in self._items[kind]:
                return self._items[kind][name]
        names = sorted({n for k in EVALUATOR_KINDS for n in self._items[k]})
        raise UnknownComponentError(_unknown("evaluator", name, names, "evaluators (set evaluators, per-feature "
                                                                       "scorers and selectors)"))

    def names(self, kind: str) -> list[str]:
        """The sorted names registered as ``kind``."""
        _check_kind(kind)
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
    The register of ``metafx_register_evaluators`` has the kind ``"evaluator"``
    and files each class under its role (``"set-evaluator"``, ``"scorer"`` or
    ``"selector"``).

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
