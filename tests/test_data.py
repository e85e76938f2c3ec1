"""Dataset loaders and input validation."""

from __future__ import annotations

import gzip

import numpy as np
import pytest

import metafx
from metafx.core.datafiles import read_idx
from metafx.core.validation import check_labels, split_indices


def test_digits_is_binary_8x8(digits):
    X, y = digits
    assert X.shape == (1797, 8, 8) and X.dtype == np.uint8
    assert set(np.unique(X)) == {0, 1} and len(np.unique(y)) == 10


def _write_idx(path, arr, gz):
    header = bytes([0, 0, 0x08, arr.ndim]) + b"".join(int(d).to_bytes(4, "big") for d in arr.shape)
    data = header + arr.astype(np.uint8).tobytes()
    if gz:
        with gzip.open(path, "wb") as fh:
            fh.write(data)
    else:
        path.write_bytes(data)


@pytest.mark.parametrize("gz", [True, False])
def test_mnist_loader_reads_idx_and_binarizes(tmp_path, gz, monkeypatch):
    imgs = np.arange(3 * 28 * 28).reshape(3, 28, 28) % 256
    labels = np.array([4, 2, 9])
    suffix = ".gz" if gz else ""
    _write_idx(tmp_path / f"t10k-images-idx3-ubyte{suffix}", imgs, gz)
    _write_idx(tmp_path / f"t10k-labels-idx1-ubyte{suffix}", labels, gz)
    X, y = metafx.load_dataset("mnist", data_dir=str(tmp_path))
    np.testing.assert_array_equal(X, (imgs >= 128).astype(np.uint8))
    np.testing.assert_array_equal(y, labels)
    monkeypatch.setenv("METAFX_MNIST_DIR", str(tmp_path))
    X2, _ = metafx.load_dataset("mnist", threshold=200)
    np.testing.assert_array_equal(X2, (imgs >= 200).astype(np.uint8))


def test_mnist_missing_dir_is_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.delenv("METAFX_MNIST_DIR", raising=False)
    with pytest.raises(metafx.ValidationError, match="METAFX_MNIST_DIR"):
        metafx.load_dataset("mnist")
    with pytest.raises(metafx.ValidationError, match="does not exist"):
        metafx.load_dataset("mnist", data_dir=str(tmp_path / "nope"))
    with pytest.raises(metafx.ValidationError, match="not found"):
        metafx.load_dataset("mnist", data_dir=str(tmp_path))


def test_real_mnist(mnist):
    X, y = mnist
    assert X.shape == (10000, 28, 28)
    np.testing.assert_array_equal(np.bincount(y), [980, 1135, 1032, 1010, 982, 892, 958, 1028, 974, 1009])


def test_read_idx_rejects_garbage(tmp_path):
    p = tmp_path / "x"
    p.write_bytes(b"\x01\x02\x03\x04rest")
    with pytest.raises(metafx.ValidationError, match="IDX"):
        read_idx(p)


def test_label_validation():
    with pytest.raises(metafx.ValidationError, match="1 class"):
        check_labels([1, 1, 1])
    with pytest.raises(metafx.ValidationError, match="3 samples but y has 2"):
        check_labels([0, 1], 3)
    with pytest.raises(metafx.ValidationError, match="NaN"):
        check_labels([0.0, np.nan, 1.0])
    with pytest.raises(metafx.ValidationError, match="1-D"):
        check_labels(np.zeros((2, 2)))


def test_split_indices_disjoint_and_validated():
    tr, te = split_indices(100, 60, 30, seed=1)
    assert len(set(tr) & set(te)) == 0 and len(tr) == 60 and len(te) == 30
    with pytest.raises(metafx.ValidationError, match="exceeds"):
        split_indices(10, 8, 8, 0)
