"""A plugin distribution installed with pip is found through the ``metafx`` entry point.

A throwaway distribution (its own name, so it cannot already be installed) is
written to a temporary directory and pip-installed into a temporary virtual
environment that sees this environment's packages (metafx included).  In that
environment the registry lists the plugin's family with the distribution's
name, and ``METAFX_DISABLE_PLUGIN_AUTOLOAD=1`` hides it.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import textwrap
import venv
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
from metafx.default_plugins.pixel_families import PixelAndFamily


class PositiveAnd(PixelAndFamily):
    """pixel-and with positive inputs only."""

    name = "throwaway-positive-and"
    summary = "pixel-and restricted to positive inputs"

    def space(self):
        return super().space().with_fixed({"percentPos": 100})


@metafx.hookimpl
def metafx_register_families(register):
    register(PositiveAnd)
'''

PROBE = textwrap.dedent("""
    import json, metafx
    reg = metafx.get_registry()
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
def venv_python(tmp_path_factory) -> Path:
    if not _build_backend_available():
        pytest.skip("building without isolation needs setuptools >= 70.1 or the `wheel` package (pip install wheel)")
    root = tmp_path_factory.mktemp("plugin-install")
    src = root / "src"
    (src / PACKAGE).mkdir(parents=True)
    (src / "pyproject.toml").write_text(PYPROJECT)
    (src / PACKAGE / "__init__.py").write_text('"""A throwaway metafx plugin used by the test suite."""\n')
    (src / PACKAGE / "plugin.py").write_text(PLUGIN)
    env_dir = root / "venv"
    # without pip (fast); this environment's pip installs into it with --python
    venv.EnvBuilder(system_site_packages=True, with_pip=False).create(env_dir)
    py = env_dir / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(py), "install", "--no-deps", "--no-build-isolation",
         "--no-index", "--disable-pip-version-check", "-q", str(src)],
        capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return py


def _probe(py: Path, **env: str) -> dict:
    e = {k: v for k, v in os.environ.items() if k != "METAFX_DISABLE_PLUGIN_AUTOLOAD"}
    e.update(env)
    proc = subprocess.run([str(py), "-c", PROBE], capture_output=True, text=True, env=e, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_not_visible_in_this_environment():
    import metafx

    assert ("family", "throwaway-positive-and") not in metafx.get_registry()


def test_installed_plugin_is_found_through_its_entry_point(venv_python):
    out = _probe(venv_python)
    assert out["found"], out
    assert out["plugin"] == "throwaway"
    assert out["distribution"] == DIST
    assert out["module"] == f"{PACKAGE}.plugin"
    assert out["positive"]


def test_disable_autoload_hides_it(venv_python):
    out = _probe(venv_python, METAFX_DISABLE_PLUGIN_AUTOLOAD="1")
    assert out == {"found": False}
