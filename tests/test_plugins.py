"""The plugin system: built-ins through hooks, third-party plugins, clear errors."""

from __future__ import annotations

import os
import subprocess
import sys
import types

import pytest

import metafx
import metafx.plugin
from metafx.default_plugins.pixel_families import PixelAndFamily
from metafx.hooks.manager import get_registry


def test_builtins_are_registered_through_hooks():
    reg = get_registry()
    for kind, name in [("family", "pixel-and"), ("family", "pixels"), ("describer", "location"),
                       ("describer", "r"), ("set-evaluator", "cv-linear-svm"), ("engine", "mufasa"),
                       ("dataset", "digits"), ("dataset", "mnist")]:
        assert (kind, name) in reg
        assert reg.registration(kind, name).plugin.startswith("metafx.builtin:")


def test_unknown_name_lists_registered_and_closest():
    with pytest.raises(metafx.UnknownComponentError) as e:
        get_registry().get("family", "pixel-adn")
    msg = str(e.value)
    assert "pixel-and" in msg and "pixels" in msg and "did you mean 'pixel-and'" in msg


@pytest.mark.parametrize("kind, name", [("engine", "nope"), ("family", "nope"), ("set-evaluator", "foo")])
def test_an_unrelated_name_gets_no_suggestion(kind, name):
    # 'nope' is as close to 'ranked' or 'pixels' as to anything: a guess would send the user the wrong way
    with pytest.raises(metafx.UnknownComponentError) as e:
        get_registry().get(kind, name)
    assert "did you mean" not in str(e.value) and "registered" in str(e.value)


class PlusFamily(PixelAndFamily):
    """An out-of-tree family: pixel-and restricted to positive inputs."""

    name = "test-positive-and"

    def space(self):
        return super().space().with_fixed({"percentPos": 100})


def _plugin_module(cls, hook="metafx_register_families"):
    mod = types.ModuleType(f"plugin_{cls.name.replace('-', '_')}")

    def register_hook(register):
        register(cls)

    register_hook.__name__ = hook
    setattr(mod, hook, metafx.plugin.hookimpl(register_hook))
    return mod


def test_out_of_tree_plugin_adds_a_family_search_can_use(digits):
    X, y = digits
    mod = _plugin_module(PlusFamily)
    metafx.plugin.register_plugin(mod, name="test-plugin")
    try:
        reg = get_registry()
        assert reg.registration("family", "test-positive-and").plugin == "test-plugin"
        res = metafx.search(X[:300], y[:300], family="test-positive-and", budget=40, steps=2, seed=1, progress=False)
        assert res.family == "test-positive-and"
        assert all(not neg for f in res.features for _, _, neg in f["inputs"])
        assert res.transform(X[:3]).shape == (3, res.n_features)
    finally:
        metafx.plugin.unregister_plugin(mod)
    assert ("family", "test-positive-and") not in get_registry()


def test_duplicate_names_fail_naming_both_plugins():
    class Dup(PixelAndFamily):
        name = "pixel-and"

    mod = _plugin_module(Dup)
    with pytest.raises(metafx.DuplicateComponentError) as e:
        metafx.plugin.register_plugin(mod, name="dup-plugin")
    msg = str(e.value)
    assert "metafx.builtin:families" in msg and "dup-plugin" in msg
    assert ("family", "pixel-and") in get_registry()  # the failed plugin was removed again


def test_register_rejects_wrong_base_and_missing_name():
    class NotAFamily:
        name = "x"

    with pytest.raises(metafx.ValidationError, match="subclass of FeatureFamily"):
        metafx.plugin.register_plugin(_plugin_module(type("N", (), {"name": "x"})), name="bad1")

    class NoName(PixelAndFamily):
        name = ""

    with pytest.raises(metafx.ValidationError, match="without a class attribute `name`"):
        metafx.plugin.register_plugin(_plugin_module(NoName), name="bad2")


def test_disable_autoload_env_skips_entry_points():
    code = (
        "import metafx.hooks.manager as p, importlib.metadata as md\n"
        "pm = p.get_plugin_manager()\n"
        "print(len(pm.list_plugin_distinfo()))\n"
    )
    env = dict(os.environ, METAFX_DISABLE_PLUGIN_AUTOLOAD="1")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "0"


def test_make_component_rejects_unknown_params():
    with pytest.raises(metafx.ValidationError, match=r"does not take parameter.*'Cee'.*allowed: n_splits, C"):
        metafx.plugin.make_component("set-evaluator", "cv-linear-svm", {"Cee": 1})
