"""What the reliability tests share: running the command line in-process and reading its one-line errors."""

from __future__ import annotations

from pathlib import Path

from metafx.cli import main

REPO = Path(__file__).resolve().parents[1]
SMALL = ["search", "--n-train", "100", "--n-test", "30", "--steps", "2", "--budget", "20", "--no-progress"]


def run_cli(capsys, *argv):
    """``metafx ARGV`` in this process: (exit code, stdout, stderr)."""
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(code, err):
    """The one ``metafx: error:`` line of a refused command (exit 2, no traceback)."""
    assert code == 2, err
    lines = [ln for ln in err.splitlines() if ln.startswith("metafx: error:")]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]
