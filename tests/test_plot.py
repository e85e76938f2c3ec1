"""metafx plot: PNG files of a result's trajectory and meta-feature path."""

from __future__ import annotations

import metafx
from metafx.cli import main


def test_plot_writes_pngs(digits, tmp_path, capsys):
    X, y = digits
    res = metafx.search(X[:300], y[:300], budget=40, steps=4, seed=0, progress=False)
    path = tmp_path / "r.json"
    res.to_json(path)
    assert main(["plot", str(path), "--out", str(tmp_path / "png")]) == 0
    out = capsys.readouterr().out
    for name in ("r_trajectory.png", "r_path.png"):
        f = tmp_path / "png" / name
        assert f.exists() and f.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and f.stat().st_size > 5000
        assert name in out


def test_plot_missing_file_is_clear_error(tmp_path, capsys):
    assert main(["plot", str(tmp_path / "missing.json")]) == 2
    assert "does not exist" in capsys.readouterr().err
