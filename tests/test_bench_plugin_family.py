"""benchmarks/bench_plugin_family.py: the rotated order of the engines (``--rotate``) and the rows it writes
(wall and CPU time, the place each arm ran in, the load).  No timing is asserted."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_plugin_family.py"


@pytest.fixture(scope="module")
def bench():
    sys.path.insert(0, str(SCRIPT.parent))  # its helper module _yardstick
    try:
        spec = importlib.util.spec_from_file_location("bench_plugin_family", SCRIPT)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    finally:
        sys.path.remove(str(SCRIPT.parent))
    return mod


def test_rotation_starts_at_the_partition_number_mod_the_arms(bench):
    arms = ["guided", "guided:pool_rows=auto", "mufasa"]
    assert bench.rotated(arms, 135, False) == arms
    assert bench.rotated(arms, 135, True) == arms  # 135 = 0 mod 3
    assert bench.rotated(arms, 136, True) == ["guided:pool_rows=auto", "mufasa", "guided"]
    assert bench.rotated(arms, 137, True) == ["mufasa", "guided", "guided:pool_rows=auto"]
    assert bench.rotated([], 5, True) == []
    # over as many consecutive partitions as there are arms, each arm runs last exactly once
    last = [bench.rotated(arms, p, True)[-1] for p in range(135, 138)]
    assert sorted(last) == sorted(arms)


def test_rotated_run_writes_cpu_time_and_the_order(tmp_path):
    out = tmp_path / "rows.json"
    env = {**os.environ, "NUMBA_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    run = subprocess.run([sys.executable, str(SCRIPT), "--families", "tabular", "--steps", "2", "--partitions", "1",
                          "--engines", "mufasa", "guided", "--rotate", "--out", str(out)],
                         capture_output=True, text=True, env=env, timeout=600)
    assert run.returncode == 0, run.stderr
    assert "arms in the order ['guided', 'mufasa']" in run.stdout  # partition 1: starts at index 1
    assert "guided / mufasa: wall " in run.stdout and ", cpu " in run.stdout
    rows = json.loads(out.read_text())
    assert [r["engine"] for r in rows] == ["mufasa", "guided"]  # written in the --engines order
    assert [r["position"] for r in rows] == [1, 0]
    for r in rows:
        assert r["cpu"] > 0 and r["wall"] > 0 and r["partition"] == 1 and len(r["load"]) == 2
