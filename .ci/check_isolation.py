"""Fail when the CI environment can see anything of the interpreter it was made from.

Run with the CI virtual environment's python.  Every ``sys.path`` entry must be
inside the environment or be the base interpreter's standard library (never its
site-packages, a user site, or a ``PYTHONPATH`` entry); and no test or plugin may
build a virtual environment that sees the base interpreter's packages
(``system_site_packages=True`` / ``--system-site-packages``): such a test passes
or fails depending on what the base interpreter happens to have installed.
"""

from __future__ import annotations

import os
import re
import sys
import sysconfig
from pathlib import Path

root = Path(__file__).resolve().parent.parent
problems = []
if sys.prefix == sys.base_prefix:
    problems.append(f"not a virtual environment: sys.prefix={sys.prefix!r}")
allowed = [Path(sys.prefix).resolve()]
for key in ("stdlib", "platstdlib"):
    allowed.append(Path(sysconfig.get_paths(vars={"base": sys.base_prefix, "platbase": sys.base_prefix})[key]).resolve())
allowed.append(root)  # editable installs of this checkout
for entry in sys.path:
    if not entry:
        continue
    p = Path(entry).resolve()
    if p.name.endswith(".zip") or any(p == a or a in p.parents for a in allowed):
        if "site-packages" in p.parts and not str(p).startswith(str(Path(sys.prefix).resolve())):
            problems.append(f"sys.path entry {entry!r} is a site-packages directory outside the environment")
        continue
    problems.append(f"sys.path entry {entry!r} lies outside the environment and the standard library")
for var in ("PYTHONPATH", "PYTHONHOME", "PYTHONUSERBASE"):
    if os.environ.get(var):
        problems.append(f"${var} is set ({os.environ[var]!r})")
pattern = re.compile(r"system_site_packages\s*=\s*True|--system-site-packages")
for sub in ("tests", "plugins", "examples", "experiments", "benchmarks", "metafx"):
    for f in (root / sub).rglob("*.py"):
        for i, line in enumerate(f.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            if pattern.search(line):
                problems.append(f"{f.relative_to(root)}:{i}: a virtual environment that sees the base interpreter")
if problems:
    print("CI isolation check failed:\n  " + "\n  ".join(problems), file=sys.stderr)
    sys.exit(1)
print(f"CI isolation check passed ({len(sys.path)} sys.path entries, all inside {sys.prefix} or the stdlib)")
