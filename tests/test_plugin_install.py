"""A plugin distribution installed with pip is found through the ``metafx`` entry point.

A throwaway distribution (its own name, so it cannot already be installed) is
written to a temporary directory and pip-installed with ``--target`` into a
temporary directory, built by *this* interpreter's setuptools (the test extra
pins one that needs no ``wheel``).  A fresh interpreter with that directory on
``PYTHONPATH`` then lists the plugin's family with the distribution's name, and
``METAFX_DISABLE_PLUGIN_AUTOLOAD=1`` hides it.

Nothing here depends on the *base* interpreter this environment was made from:
an earlier version built in a virtual environment that included the system
site packages, which saw the base interpreter's packages (an
old setuptools without ``wheel`` failed with ``invalid command 'bdist_wheel'``).
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

DIST = "metafx-throwaway-plugin"
PACKAGE = "metafx_throwaway_plugin"

PYPROJECT = f"""
[build-system]
requires = ["setuptools>=64"]
build-backend = "setuptools.build_meta"

[project]
name = "{DIST}"
version = "0.0.1"
dependencies = ["metafx"]

[project.entry-points.metafx]
throwaway = "{PACKAGE}.plugin"

[tool.setuptools]
packages = ["{PACKAGE}"]
"""

PLUGIN = '''
import metafx
import metafx.plugin
from metafx.default_plugins.pixel_families import PixelAndFamily


class PositiveAnd(PixelAndFamily):
    """pixel-and with positive inputs only."""

    name = "throwaway-positive-and"
    summary = "pixel-and restricted to positive inputs"

    def space(self):
        return super().space().with_fixed({"percentPos": 100})


@metafx.plugin.hookimpl
def metafx_register_families(register):
    register(PositiveAnd)
'''

PROBE = textwrap.dedent("""
    import json, metafx
    reg = metafx.plugin.get_registry()
    out = {"found": ("family", "throwaway-positive-and") in reg}
    if out["found"]:
        r = reg.registration("family", "throwaway-positive-and")
        out.update(plugin=r.plugin, distribution=r.distribution, module=r.cls.__module__)
        X, y = metafx.load_dataset("digits")
        res = metafx.search(X[:200], y[:200], family="throwaway-positive-and", budget=10, steps=1, progress=False)
        out["positive"] = all(not neg for f in res.features for _, _, neg in f["inputs"])
    print(json.dumps(out))
""")


def _build_backend_available() -> bool:
    # --no-build-isolation builds with this environment's setuptools, which needs
    # the `wheel` package before setuptools 70.1
    import setuptools

    major, minor = (int(p) for p in setuptools.__version__.split(".")[:2])
    return (major, minor) >= (70, 1) or importlib.util.find_spec("wheel") is not None


@pytest.fixture(scope="module")
def plugin_dir(tmp_path_factory) -> Path:
    if not _build_backend_available():
        msg = "building without isolation needs setuptools >= 70.1 or the `wheel` package (the test extra has them)"
        if os.environ.get("CI"):
            pytest.fail(msg)
        pytest.skip(msg)
    root = tmp_path_factory.mktemp("plugin-install")
    src = root / "src"
    (src / PACKAGE).mkdir(parents=True)
    (src / "pyproject.toml").write_text(PYPROJECT)
    (src / PACKAGE / "__init__.py").write_text('"""A throwaway metafx plugin used by the test suite."""\n')
    (src / PACKAGE / "plugin.py").write_text(PLUGIN)
    target = root / "site"
    # this interpreter's pip and setuptools only: no virtual environment, so nothing of a base interpreter
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--target", str(target), "--no-deps", "--no-build-isolation",
         "--no-index", "--disable-pip-version-check", "-q", str(src)],
        capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert list(target.glob(f"{PACKAGE}*.dist-info")), sorted(p.name for p in target.iterdir())
    return target


def _probe(target: Path, **env: str) -> dict:
    e = {k: v for k, v in os.environ.items() if k != "METAFX_DISABLE_PLUGIN_AUTOLOAD"}
    e["PYTHONPATH"] = os.pathsep.join([str(target)] + [p for p in e.get("PYTHONPATH", "").split(os.pathsep) if p])
    e.update(env)
    proc = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, env=e, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_not_visible_in_this_environment():
    import metafx

    assert ("family", "throwaway-positive-and") not in metafx.plugin.get_registry()


def test_installed_plugin_is_found_through_its_entry_point(plugin_dir):
    out = _probe(plugin_dir)
    assert out["found"], out
    assert out["plugin"] == "throwaway"
    assert out["distribution"] == DIST
    assert out["module"] == f"{PACKAGE}.plugin"
    assert out["positive"]


def test_disable_autoload_hides_it(plugin_dir):
    out = _probe(plugin_dir, METAFX_DISABLE_PLUGIN_AUTOLOAD="1")
    assert out == {"found": False}
