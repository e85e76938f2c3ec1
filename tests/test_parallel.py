"""n_jobs through joblib: a plain script without a main guard works and gives the result of n_jobs=1, and
another joblib backend (a Dask cluster) can be chosen with joblib.parallel_config."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import metafx

REPO = Path(__file__).resolve().parents[1]

UNGUARDED = textwrap.dedent("""
    import json, sys
    import metafx
    from metafx.plugin import SetEvaluator
    from metafx.learn.svm import as_values

    class Density(SetEvaluator):  # defined in the script itself: workers get it by value (cloudpickle)
        name = "script-density"

        def evaluate(self, X, y, *, random_state=None):
            return float(as_values(X).dense().mean()) if as_values(X).n_features else 0.0

    X, y = metafx.load_dataset("digits")
    out = {}
    for n_jobs in (1, 2):
        for engine, params in (("mufasa", {"n_candidates": 3}), ("random", {})):
            r = metafx.search(X[:300], y[:300], budget=30, steps=4, engine=engine, engine_params=params,
                              evaluator=Density(), seed=3, n_jobs=n_jobs, progress=False)
            out[f"{engine}-{n_jobs}"] = [r.features, [t.quality for t in r.trajectory]]
    print(json.dumps(out))
""")


def test_unguarded_script_with_two_processes_equals_one(tmp_path):
    script = tmp_path / "plain.py"
    script.write_text(UNGUARDED)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=300,
                          cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    for engine in ("mufasa", "random"):
        assert out[f"{engine}-1"] == out[f"{engine}-2"]


def test_a_dask_cluster_as_joblib_backend(digits):
    pytest.importorskip("distributed", reason="dask.distributed is not installed (pip install 'dask[distributed]')")
    import joblib
    from dask.distributed import Client, LocalCluster

    X, y = digits
    kw = dict(budget=40, steps=3, engine="mufasa", engine_params={"n_candidates": 3}, seed=1, progress=False)
    one = metafx.search(X[:300], y[:300], **kw)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster):
        with joblib.parallel_config(backend="dask"):
            two = metafx.search(X[:300], y[:300], n_jobs=2, **kw)
    assert [t.quality for t in two.trajectory] == [t.quality for t in one.trajectory]
    assert two.features == one.features
