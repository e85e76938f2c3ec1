"""benchmarks/bench_cnn_anchor.py's helpers: the shifted copies, the predict costs it reports, its option errors.

The CNN itself needs PyTorch (the ``bench-cnn`` extra, not installed by CI): the tests that need it skip.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_cnn_anchor.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_cnn_anchor", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def naive_shift(img: np.ndarray, dy: int, dx: int) -> np.ndarray:
    h, w = img.shape
    out = np.zeros_like(img)
    for r in range(h):
        for c in range(w):
            if 0 <= r - dy < h and 0 <= c - dx < w:
                out[r, c] = img[r - dy, c - dx]
    return out


@pytest.mark.parametrize("shape", [(3, 5, 7), (2, 1, 4), (1, 6, 6)])
def test_shifted_copies_against_a_loop(bench, shape):
    X = np.random.default_rng(sum(shape)).integers(0, 2, shape, dtype=np.uint8)
    S = bench.shifted_copies(X)
    n = len(X)
    assert S.shape == (5 * n, *shape[1:]) and S.dtype == X.dtype
    for k, (dy, dx) in enumerate([(0, 0), (1, 0), (-1, 0), (0, 1), (0, -1)]):
        for i in range(n):
            np.testing.assert_array_equal(S[k * n + i], naive_shift(X[i], dy, dx))


def test_logic_ops_counts_shifts_times_inputs(bench):
    from types import SimpleNamespace

    result = SimpleNamespace(features=[{"inputs": [[0, 0, False]] * 3, "shift": 2},
                                       {"inputs": [[1, 1, True]], "shift": 1},
                                       {"inputs": [[2, 2, False]] * 5, "shift": 5}])
    assert bench.logic_ops(result) == 3 * 4 + 1 + 5 * 25


def test_cnn_macs_count_the_layers(bench):
    # 24x24x32 outputs of a 5x5x1 kernel; 8x8x64 of a 5x5x32 one; 4*4*64 -> 256 -> 10
    assert bench.cnn_macs() == 24 * 24 * 32 * 25 + 8 * 8 * 64 * 32 * 25 + 1024 * 256 + 2560


def test_cnn_macs_match_the_network_torch_builds(bench):
    torch = pytest.importorskip("torch", reason="the CNN anchor needs PyTorch (pip install -e '.[bench-cnn]')")
    from torch import nn

    seen = []

    def hook(mod, inp, out):
        if isinstance(mod, nn.Conv2d):
            seen.append(out[0].numel() * mod.in_channels * mod.kernel_size[0] * mod.kernel_size[1])
        elif isinstance(mod, nn.Linear):
            seen.append(mod.in_features * mod.out_features)

    X = np.random.default_rng(0).integers(0, 2, (20, 28, 28), dtype=np.uint8)
    y = np.arange(20) % 10
    orig = nn.Sequential.__init__
    nets = []

    def capture(self, *mods):
        orig(self, *mods)
        nets.append(self)

    nn.Sequential.__init__ = capture
    try:
        pred, train, per_image = bench.fit_cnn(X, y, X[:3], seed=0, epochs=1)
    finally:
        nn.Sequential.__init__ = orig
    assert pred.shape == (3,) and set(pred) <= set(y) and train > 0 and per_image > 0
    for m in nets[0]:
        m.register_forward_hook(hook)
    with torch.no_grad():
        nets[0].eval()(torch.zeros(1, 1, 28, 28))
    assert sum(seen) == bench.cnn_macs()


@pytest.mark.parametrize("args, message", [
    (["--levers", "bagging"], "--levers: unknown lever 'bagging'"),
    (["--methods", "knn"], "--methods: unknown method 'knn'"),
    (["--n-train", "0"], "--n-train=0: must be a positive integer"),
    (["--n-train", "9000"], "more than the 10,000 images"),
    (["--curve", "steps=2.5"], "--curve: 'steps=2.5'; allowed"),
    (["--curve", "budget"], "--curve: 'budget'; allowed"),
    (["--curve", "budget=100,budget=200"], "each at most once"),
    (["--curve", "budget=100,shift"], "--curve: 'budget=100,shift'; allowed"),
    (["--curve", "shift-copies"], "the default search with shifted copies is --levers shift-copies"),
])
def test_bad_options_are_one_line_exit_2(args, message):
    p = subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True)
    assert p.returncode == 2 and message in p.stderr and "Traceback" not in p.stderr


@pytest.mark.parametrize("setting, kw, shift", [
    ("budget=12544", {"budget": 12544.0}, False),
    ("steps=25", {"steps": 25}, False),
    ("budget=12544,steps=25,shift-copies", {"budget": 12544.0, "steps": 25}, True),
    ("shift-copies,timeout=30", {"timeout": 30.0}, True),
])
def test_curve_settings_combine(bench, setting, kw, shift):
    assert bench.parse_setting(setting) == (kw, shift)


@pytest.mark.parametrize("setting", ["budget=1,shift-copies,shift-copies", "steps=0", "steps=25,", "budget=-1"])
def test_bad_curve_settings_are_refused(bench, setting):
    with pytest.raises(ValueError, match="--curve: "):
        bench.parse_setting(setting)
