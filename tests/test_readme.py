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


def test_main_job_installs_the_users_way():
    """The main job installs what a user installs (no test extras, no plugin it does not use)."""
    install = _commands()[0].split("&&")[0].strip()
    assert install == "pip install .", install


def test_main_job_writes_where_the_repository_ignores_it(tmp_path):
    """The main job's result file (and the README's other `--out result.json`) is ignored by git."""
    import re
    import shutil
    import subprocess

    out = re.search(r"--out (\S+)", _commands()[0]).group(1)
    git = shutil.which("git")
    if git is None or not (REPO / ".git").exists():
        # no git here: read the rule itself (an anchored or plain pattern naming the file)
        rules = [r.strip() for r in (REPO / ".gitignore").read_text().splitlines()]
        assert f"/{out}" in rules or out in rules
        return
    done = subprocess.run([git, "-C", str(REPO), "check-ignore", "-q", "--no-index", out], check=False)
    assert done.returncode == 0, f"{out} (the README's main job writes it) is not ignored by .gitignore"


def test_ci_runs_the_readme_test_command():
    ci = [line.strip() for line in (REPO / ".ci" / "run").read_text().splitlines()]
    assert _commands()[1] in ci


# ------------------------------------------------------------------ the examples print what the README says they print
def _blocks(text: str, lang: str) -> list[str]:
    import re

    return re.findall(rf"```{lang}\n(.*?)```", text, flags=re.S)


def test_readme_is_short():
    assert len((REPO / "README.md").read_text().splitlines()) <= 150


def test_readme_python_example_prints_what_it_shows(tmp_path, monkeypatch, capsys):
    text = (REPO / "README.md").read_text()
    code, shown = _blocks(text, "python")[0], _blocks(text, "text")[0]
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "README.md", "exec"), {"__name__": "readme"})
    printed = capsys.readouterr().out
    assert printed.strip() == shown.strip(), "README.md's Python example prints something else now: update the README"


def test_readme_cli_example_prints_what_it_shows(tmp_path, monkeypatch, capsys):
    import re
    import shlex

    from metafx.cli import main

    text = (REPO / "README.md").read_text()
    command = re.search(r"^    (metafx search --data digits --engine .*)$", text, flags=re.M).group(1)
    shown = _blocks(text, "text")[1]
    monkeypatch.chdir(tmp_path)
    assert main([*shlex.split(command)[1:], "--no-progress"]) == 0
    printed = capsys.readouterr().out
    # the timing line differs from run to run; every other line must be the same
    strip = [line for line in printed.strip().splitlines() if not line.startswith("time:")]
    expect = [line for line in shown.strip().splitlines() if not line.startswith("time:")]
    assert strip == expect, "README.md's command-line example prints something else now: update the README"
    assert (tmp_path / "result.json").exists()
