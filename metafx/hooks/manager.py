"""The plugin manager: built-in plugins, entry points, and the registry.

Plugins are found in the entry-point group ``metafx`` unless the environment
variable ``METAFX_DISABLE_PLUGIN_AUTOLOAD`` is set to a true value (``1``,
``true``, ``yes``).  A plugin can also be added at run time with
:func:`register_plugin` (a module or any object with hook implementations).
"""

from __future__ import annotations

import importlib
import os
import threading

import pluggy

from . import spec as hookspecs
from .registry import Register, Registry

__all__ = [
    "BUILTIN_PLUGINS",
    "ENTRY_POINT_GROUP",
    "get_plugin_manager",
    "get_registry",
    "register_plugin",
    "unregister_plugin",
]

ENTRY_POINT_GROUP = "metafx"
#: the built-in plugins, loaded by dotted name before the entry points (the core never imports them)
BUILTIN_PLUGINS = (
    "metafx.default_plugins.families",
    "metafx.default_plugins.datasets",
    "metafx.default_plugins.svm_evaluator",
    "metafx.default_plugins.mufasa",
    "metafx.default_plugins.evaluators",
    "metafx.default_plugins.baselines",
    "metafx.default_plugins.guided",
    "metafx.default_plugins.optuna_engine",
    "metafx.default_plugins.local_families",
    "metafx.default_plugins.wrappers",
)
_lock = threading.RLock()
_pm: pluggy.PluginManager | None = None
_registry: Registry | None = None


def _autoload_disabled() -> bool:
    return os.environ.get("METAFX_DISABLE_PLUGIN_AUTOLOAD", "").strip().lower() in {"1", "true", "yes", "on"}


def get_plugin_manager() -> pluggy.PluginManager:
    """The process-wide plugin manager, created on first use."""
    global _pm
    with _lock:
        if _pm is None:
            pm = pluggy.PluginManager(hookspecs.PROJECT_NAME)
            pm.add_hookspecs(hookspecs)
            for dotted in BUILTIN_PLUGINS:
                pm.register(importlib.import_module(dotted), name=f"metafx.builtin:{dotted.rsplit('.', 1)[-1]}")
            if not _autoload_disabled():
                pm.load_setuptools_entrypoints(ENTRY_POINT_GROUP)
            _pm = pm
        return _pm


def _build_registry(pm: pluggy.PluginManager) -> Registry:
    dists: dict[int, str | None] = {}
    for plugin, dist in pm.list_plugin_distinfo():
        dists[id(plugin)] = getattr(dist, "project_name", None) or getattr(dist, "name", None)
    registry = Registry()
    for hook_name, kind in hookspecs.HOOK_KINDS.items():
        caller = getattr(pm.hook, hook_name)
        for impl in reversed(caller.get_hookimpls()):  # registration order
            plugin_name = impl.plugin_name
            dist_name = dists.get(id(impl.plugin))

            impl.function(register=Register(registry, kind, plugin_name, dist_name))
    return registry


def get_registry() -> Registry:
    """The registry of every component, built from the hooks on first use."""
    global _registry
    with _lock:
        if _registry is None:
            _registry = _build_registry(get_plugin_manager())
        return _registry


def register_plugin(plugin: object, name: str | None = None) -> str:
    """Register ``plugin`` (a module or object with ``@metafx.plugin.hookimpl`` functions).

    The registry is rebuilt on next use, so the plugin's components become
    available to :func:`metafx.search` and every lookup.  Returns the name under
    which the plugin was registered.
    """
    global _registry
    with _lock:
        pm = get_plugin_manager()
        registered = pm.register(plugin, name=name)
        _registry = None
        try:
            get_registry()
        except Exception:
            pm.unregister(plugin)
            _registry = None
            raise
        return registered or (name or str(plugin))


def unregister_plugin(plugin: object) -> None:
    """Remove a plugin added with :func:`register_plugin`."""
    global _registry
    with _lock:
        get_plugin_manager().unregister(plugin)
        _registry = None


def reset() -> None:
    """Forget the plugin manager and registry (they are rebuilt on next use)."""
    global _pm, _registry
    with _lock:
        _pm = None
        _registry = None
