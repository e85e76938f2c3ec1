"""README.md's two commands, and .ci/run running exactly the test one."""

from __future__ import annotations

from conftest import REPO


def _commands():
    lines = [line.strip() for line in (REPO / "README.md").read_text().splitlines()[:12]]
    return [line for line in lines if line.startswith("pip install")]


def test_readme_gives_two_commands_first():
    cmds = _commands()
    assert len(cmds) == 2
    assert "metafx search --data digits" in cmds[0]
    assert "pytest" in cmds[1]


def test_ci_runs_the_readme_test_command():
    ci = [line.strip() for line in (REPO / ".ci" / "run").read_text().splitlines()]
    assert _commands()[1] in ci
