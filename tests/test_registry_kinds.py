"""The registry's evaluator kinds: one kind per role, one shared namespace; "evaluator" is only the hook's kind."""

from __future__ import annotations

import json
import types
import warnings

import numpy as np
import pytest

import metafx
import metafx.plugin
from metafx.cli import main
from metafx.hooks.registry import EVALUATOR_KINDS, KINDS, Register, Registry, evaluator_kind
from metafx.plugin import FeatureScorer, FeatureSelector, SetEvaluator, get_registry, make_component
from metafx.testing import EvaluatorConformance

ROLE_BASES = {"set-evaluator": SetEvaluator, "scorer": FeatureScorer, "selector": FeatureSelector}


def _plugin(*classes, hook="metafx_register_evaluators"):
    mod = types.ModuleType(f"plugin_{'_'.join(c.__name__ for c in classes)}")

    def register_hook(register):
        for cls in classes:
            register(cls)

    register_hook.__name__ = hook
    setattr(mod, hook, metafx.plugin.hookimpl(register_hook))
    return mod


class _Scorer(FeatureScorer):
    name = "test-kinds-shared"

    def score(self, X, y):
        return np.zeros(np.asarray(X).shape[1])


class _SetEvaluator(SetEvaluator):
    name = "test-kinds-shared"

    def evaluate(self, X, y, *, random_state=None):
        return 0.0


class _Both(FeatureScorer, SetEvaluator):
    """A class of two roles (allowed, as before): filed under each."""

    name = "test-kinds-both"

    def score(self, X, y):
        return np.zeros(np.asarray(X).shape[1])

    def evaluate(self, X, y, *, random_state=None):
        return 0.0


# ------------------------------------------------------------------ each role kind holds its own base only
def test_each_role_kind_returns_only_its_base():
    reg = get_registry()
    seen: dict[str, str] = {}
    for kind in EVALUATOR_KINDS:
        names = reg.names(kind)
        assert names, kind
        for name in names:
            cls = reg.get(kind, name)
            assert issubclass(cls, ROLE_BASES[kind]), (kind, name)
            assert evaluator_kind(cls) == kind and reg.registration(kind, name).kind == kind
            assert name not in seen, f"{name!r} is both a {seen.get(name)} and a {kind}"
            seen[name] = kind
    assert {"cv-linear-svm", "margin"} <= set(reg.names("set-evaluator"))
    assert {"infogain", "relief"} <= set(reg.names("scorer")) and "infogain" not in reg.names("set-evaluator")
    assert {"gflip", "top-n"} <= set(reg.names("selector"))
    listed = [r for r in reg if r.kind in EVALUATOR_KINDS]
    assert sorted(r.name for r in listed) == sorted(seen)  # iteration gives each evaluator under its role
    assert all(r.kind in KINDS for r in reg)


def test_a_name_of_another_role_is_named_as_such():
    reg = get_registry()
    with pytest.raises(metafx.UnknownComponentError,
                       match="'infogain' is a per-feature scorer, not a set evaluator; registered set evaluators: "):
        reg.get("set-evaluator", "infogain")
    with pytest.raises(metafx.UnknownComponentError, match="'cv-linear-svm' is a set evaluator, not a selector"):
        reg.registration("selector", "cv-linear-svm")
    assert ("scorer", "infogain") in reg and ("set-evaluator", "infogain") not in reg
    with pytest.raises(metafx.UnknownComponentError, match=r"unknown per-feature scorer 'infogian'.*did you mean "
                                                           "'infogain'"):
        reg.get("scorer", "infogian")


def test_make_component_by_role_kind():
    assert isinstance(make_component("set-evaluator", "cv-linear-svm"), SetEvaluator)
    assert isinstance(make_component("scorer", "relief", {"n_iter": 5}), FeatureScorer)
    assert isinstance(make_component("selector", "top-n", {"n": 2}), FeatureSelector)
    with pytest.raises(metafx.ValidationError, match="'infogain' is a per-feature scorer, not a set evaluator"):
        make_component("set-evaluator", "infogain")
    scorer_cls = get_registry().get("scorer", "infogain")
    with pytest.raises(metafx.ValidationError, match="is a per-feature scorer, not a selector; registered selectors"):
        make_component("selector", scorer_cls)  # a class or an instance is checked against the kind too
    with pytest.raises(metafx.ValidationError, match="is a set evaluator, not a per-feature scorer"):
        make_component("scorer", make_component("set-evaluator", "margin"))
    with pytest.raises(metafx.ValidationError, match="not a FeatureFamily"):
        make_component("family", make_component("engine", "mufasa"))


# ------------------------------------------------------------------ the umbrella: a kind to register under only
def test_umbrella_kind_is_no_lookup_kind():
    reg = get_registry()
    for call in (lambda: reg.get("evaluator", "infogain"), lambda: reg.registration("evaluator", "gflip"),
                 lambda: make_component("evaluator", "cv-linear-svm"), lambda: reg.names("evaluator")):
        with pytest.raises(metafx.ValidationError, match=r"kind='evaluator' is not a component kind; .*an evaluator's "
                                                         "kind is its role: set-evaluator, scorer, selector"):
            call()
    assert ("evaluator", "margin") not in reg


def test_the_evaluator_lookup_of_any_role_does_not_warn():
    reg = get_registry()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert reg.evaluator("infogain").kind == "scorer"
        assert reg.evaluator("cv-linear-svm").kind == "set-evaluator"
        assert reg.evaluator("gflip").kind == "selector"
        with pytest.raises(metafx.UnknownComponentError, match=r"unknown evaluator 'infogian'.*did you mean 'infogain'"):
            reg.evaluator("infogian")


# ------------------------------------------------------------------ kinds that do not exist
@pytest.mark.parametrize("call", [
    lambda reg: reg.get("scorers", "infogain"),
    lambda reg: reg.registration("scorers", "infogain"),
    lambda reg: reg.names("scorers"),
    lambda reg: make_component("scorers", "infogain"),
])
def test_an_unknown_kind_lists_the_kinds(call):
    with pytest.raises(metafx.ValidationError) as e:
        call(get_registry())
    msg = str(e.value)
    assert "kind='scorers' is not a component kind; allowed: family, describer, set-evaluator, scorer, selector, " \
           "engine, dataset" in msg and "did you mean 'scorer'" in msg
    assert ("scorers", "infogain") not in get_registry()


# ------------------------------------------------------------------ registration
def test_registering_a_class_of_no_evaluator_base_is_refused():
    class NotAnEvaluator(metafx.plugin.Dataset):
        name = "test-kinds-dataset"

        def load(self):
            return np.zeros((2, 2)), np.zeros(2)

    with pytest.raises(metafx.ValidationError,
                       match="as an evaluator; an evaluator must be a subclass of FeatureScorer or SetEvaluator or "
                             "FeatureSelector"):
        metafx.plugin.register_plugin(_plugin(NotAnEvaluator), name="test-kinds-bad")
    assert ("dataset", "test-kinds-dataset") not in get_registry()
    reg = Registry()
    with pytest.raises(metafx.ValidationError, match="as a set-evaluator; a set-evaluator must be a subclass of "
                                                     "SetEvaluator"):
        Register(reg, "set-evaluator", "direct").add(_Scorer)
    with pytest.raises(metafx.ValidationError, match="kind='evaluators' is not a component kind"):
        reg.add("evaluators", _Scorer, "direct")


def test_the_roles_share_one_namespace():
    with pytest.raises(metafx.DuplicateComponentError,
                       match="two plugins register an evaluator named 'test-kinds-shared'"):
        metafx.plugin.register_plugin(_plugin(_Scorer, _SetEvaluator), name="test-kinds-dup")
    builtin_name = type("Info", (_SetEvaluator,), {"name": "infogain"})  # a set evaluator named as a scorer
    with pytest.raises(metafx.DuplicateComponentError, match="an evaluator named 'infogain'"):
        metafx.plugin.register_plugin(_plugin(builtin_name), name="test-kinds-dup2")
    assert get_registry().registration("scorer", "infogain").plugin.startswith("metafx.builtin")
    reg = Registry()
    reg.add("scorer", _Scorer, "direct")
    with pytest.raises(metafx.DuplicateComponentError):
        reg.add("set-evaluator", _SetEvaluator, "direct")


def test_a_class_of_two_roles_is_filed_under_both():
    mod = _plugin(_Both)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # registering through the hook's umbrella kind does not warn
        metafx.plugin.register_plugin(mod, name="test-kinds-both")
    try:
        reg = get_registry()
        assert reg.get("scorer", "test-kinds-both") is _Both and reg.get("set-evaluator", "test-kinds-both") is _Both
        assert ("selector", "test-kinds-both") not in reg
        assert reg.evaluator("test-kinds-both").cls is _Both
    finally:
        metafx.plugin.unregister_plugin(mod)


# ------------------------------------------------------------------ the conformance kit and the listing
class TestMarginByKind(EvaluatorConformance):
    evaluator = "margin"
    kind = "set-evaluator"


def test_conformance_kind_must_match_the_role():
    class Wrong(EvaluatorConformance):
        evaluator = "margin"
        kind = "scorer"

    with pytest.raises(metafx.UnknownComponentError, match="'margin' is a set evaluator, not a per-feature scorer"):
        Wrong()._make()

    class NoKind(EvaluatorConformance):
        evaluator = "margin"
        kind = "evaluator"

    with pytest.raises(metafx.ValidationError, match="kind='evaluator'; allowed: set-evaluator, scorer, selector"):
        NoKind()._make()


def test_plugins_lists_the_role_kinds(capsys):
    assert main(["plugins", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    kinds = {r["name"]: r["kind"] for r in rows}
    assert kinds["cv-linear-svm"] == "set-evaluator" and kinds["infogain"] == "scorer" and kinds["gflip"] == "selector"
    assert "evaluator" not in set(kinds.values())
    assert main(["plugins", "--kind", "scorer", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows and {r["kind"] for r in rows} == {"scorer"} and {r["role"] for r in rows} == {"per-feature scorer"}
    assert main(["plugins", "--kind", "selector"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("selectors:") and "gflip" in out and "infogain" not in out and "families" not in out
    with pytest.raises(SystemExit) as e:
        main(["plugins", "--kind", "evaluator"])
    assert e.value.code == 2
    assert "invalid choice: 'evaluator'" in capsys.readouterr().err
