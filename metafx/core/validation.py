"""Datasets and input validation.

Built-in datasets (registered as plugins, see :func:`load_dataset`):

``digits``
    scikit-learn's bundled 8x8 digits (1797 images, 10 classes), binarized:
    a pixel is 1 when its value (0-16) is ``>= threshold`` (default 8).  Needs
    no download; the default data of the command line.
``mnist``
    MNIST IDX files (gzipped or not) from ``data_dir`` or the directory in
    ``METAFX_MNIST_DIR``; binarized as ``value >= threshold`` (default 128 of 255).
"""

from __future__ import annotations

import gzip
import os
import struct
from pathlib import Path
from typing import Any

import numpy as np

from .exceptions import ValidationError

__all__ = [
    "load_dataset",
    "read_idx",
    "load_mnist",
    "load_digits_binary",
    "check_labels",
    "check_binary_images",
    "check_table",
    "split_indices",
    "MNIST_ENV",
]

MNIST_ENV = "METAFX_MNIST_DIR"


# --------------------------------------------------------------------------- validation
def check_labels(y: Any, n_samples: int | None = None, *, min_classes: int = 2, name: str = "y") -> np.ndarray:
    """Validate a label vector: 1-D, no NaN, at least ``min_classes`` classes."""
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        y = y.ravel()
    if y.ndim != 1:
        raise ValidationError(f"{name} must be 1-D (n_samples,), got shape {y.shape}")
    if n_samples is not None and y.shape[0] != n_samples:
        raise ValidationError(f"X has {n_samples} samples but {name} has {y.shape[0]} labels; they must match")
    if y.dtype.kind == "f" and np.isnan(y).any():
        raise ValidationError(f"{name} contains NaN at index {int(np.flatnonzero(np.isnan(y))[0])}")
    if y.dtype.kind == "O" and any(v is None for v in y):
        raise ValidationError(f"{name} contains None")
    n_classes = len(np.unique(y)) if y.size else 0
    if n_classes < min_classes:
        raise ValidationError(f"{name} has {n_classes} class(es); at least {min_classes} are needed")
    return y


def check_binary_images(
    X: Any, image_shape: tuple[int, int] | None = None, *, name: str = "X"
) -> np.ndarray:
    """Validate binary images: ``(n, H, W)``, or ``(n, H*W)`` with ``image_shape``.

    Returns a C-contiguous ``(n, H, W)`` uint8 array of 0/1.
    """
    X = np.asarray(X)
    if X.dtype.kind not in "biuf":
        raise ValidationError(f"{name} must be numeric 0/1 images, got dtype {X.dtype}")
    if X.ndim == 2:
        if image_shape is None:
            side = int(round(np.sqrt(X.shape[1])))
            if side * side != X.shape[1]:
                raise ValidationError(
                    f"{name} has shape {X.shape}: flat images of {X.shape[1]} pixels are not square; "
                    "pass image_shape=(H, W) or give X as (n_samples, H, W)"
                )
            image_shape = (side, side)
        h, w = image_shape
        if h * w != X.shape[1]:
            raise ValidationError(f"{name} has {X.shape[1]} pixels per sample but image_shape={image_shape} needs {h * w}")
        X = X.reshape(X.shape[0], h, w)
    elif X.ndim == 3:
        if image_shape is not None and tuple(image_shape) != X.shape[1:]:
            raise ValidationError(f"{name} has images of shape {X.shape[1:]} but image_shape={tuple(image_shape)}")
    else:
        raise ValidationError(f"{name} must be (n_samples, H, W) or (n_samples, H*W), got shape {X.shape}")
    if X.shape[0] == 0:
        raise ValidationError(f"{name} has no samples")
    if X.dtype.kind == "f" and np.isnan(X).any():
        raise ValidationError(f"{name} contains NaN; binary images must be 0/1")
    if X.dtype != bool:
        bad = (X != 0) & (X != 1)
        if bad.any():
            v = X[bad].flat[0]
            raise ValidationError(
                f"{name} is not binary (found value {v!r}); this family needs 0/1 images: "
                "binarize first, e.g. X >= 128 for 8-bit images"
            )
    return np.ascontiguousarray(X, dtype=np.uint8)


def check_table(X: Any, *, name: str = "X") -> np.ndarray:
    """Validate a numeric table ``(n_samples, n_features)`` without NaN or inf."""
    X = np.asarray(X)
    if X.ndim != 2:
        raise ValidationError(f"{name} must be 2-D (n_samples, n_features), got shape {X.shape}")
    if X.dtype.kind not in "biuf":
        raise ValidationError(f"{name} must be numeric, got dtype {X.dtype}")
    X = X.astype(np.float64, copy=False)
    if not np.isfinite(X).all():
        raise ValidationError(f"{name} contains NaN or infinite values")
    return X


def split_indices(n: int, n_train: int, n_test: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Disjoint random train and test indices (without replacement)."""
    if n_train < 1:
        raise ValidationError(f"n_train={n_train} must be at least 1")
    if n_test < 0:
        raise ValidationError(f"n_test={n_test} must be 0 or more")
    if n_train + n_test > n:
        raise ValidationError(f"n_train + n_test = {n_train + n_test} exceeds the {n} samples available")
    perm = np.random.default_rng(seed).permutation(n)
    return np.sort(perm[:n_train]), np.sort(perm[n_train : n_train + n_test])


# --------------------------------------------------------------------------- IDX / MNIST
def read_idx(path: str | os.PathLike[str]) -> np.ndarray:
    """Read an IDX file (``.gz`` or plain) as a uint8 array."""
    path = Path(path)
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rb") as fh:
        data = fh.read()
    if len(data) < 4:
        raise ValidationError(f"{path} is too short to be an IDX file")
    zero, dtype_code, ndim = struct.unpack(">HBB", data[:4])
    if zero != 0 or dtype_code != 0x08:
        raise ValidationError(f"{path} is not an unsigned-byte IDX file (magic {data[:4].hex()})")
    dims = struct.unpack(">" + "I" * ndim, data[4 : 4 + 4 * ndim])
    body = np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * ndim)
    if body.size != int(np.prod(dims)):
        raise ValidationError(f"{path} holds {body.size} values but its header says {dims}")
    return body.reshape(dims)


def _find(directory: Path, stem: str) -> Path:
    for cand in (directory / f"{stem}.gz", directory / stem, directory / stem.replace("-idx", ".idx")):
        if cand.exists():
            return cand
    raise ValidationError(f"MNIST file {stem}[.gz] not found in {directory}")


def mnist_dir(data_dir: str | os.PathLike[str] | None = None) -> Path:
    """The MNIST directory: ``data_dir``, else ``$METAFX_MNIST_DIR``."""
    d = data_dir if data_dir is not None else os.environ.get(MNIST_ENV)
    if not d:
        raise ValidationError(
            f"no MNIST directory: pass data_dir=... (--data-dir on the command line) or set {MNIST_ENV}"
        )
    p = Path(d).expanduser()
    if not p.is_dir():
        raise ValidationError(f"MNIST directory {str(p)!r} does not exist")
    return p


def load_mnist(
    data_dir: str | os.PathLike[str] | None = None, *, part: str = "t10k", threshold: int | None = 128
) -> tuple[np.ndarray, np.ndarray]:
    """MNIST images ``(n, 28, 28)`` and labels.

    ``part`` is the file prefix (``"t10k"`` or ``"train"``).  Images are
    binarized as ``value >= threshold``; ``threshold=None`` keeps gray levels.
    """
    if part not in ("t10k", "train"):
        raise ValidationError(f"part={part!r}; allowed: 't10k', 'train'")
    d = mnist_dir(data_dir)
    images = read_idx(_find(d, f"{part}-images-idx3-ubyte"))
    labels = read_idx(_find(d, f"{part}-labels-idx1-ubyte"))
    if images.ndim != 3 or labels.ndim != 1 or images.shape[0] != labels.shape[0]:
        raise ValidationError(f"MNIST files in {d} disagree: images {images.shape}, labels {labels.shape}")
    if threshold is None:
        return images, labels.astype(np.int64)
    if not 0 < threshold <= 255:
        raise ValidationError(f"threshold={threshold} must be in 1..255")
    return (images >= threshold).astype(np.uint8), labels.astype(np.int64)


def load_digits_binary(threshold: int | None = 8) -> tuple[np.ndarray, np.ndarray]:
    """scikit-learn's 8x8 digits ``(1797, 8, 8)``, binarized as ``value >= threshold`` (0-16)."""
    from sklearn.datasets import load_digits

    d = load_digits()
    images = d.images
    if threshold is None:
        return images, d.target.astype(np.int64)
    if not 0 < threshold <= 16:
        raise ValidationError(f"threshold={threshold} must be in 1..16")
    return (images >= threshold).astype(np.uint8), d.target.astype(np.int64)


def load_dataset(name: str, **params: Any) -> tuple[np.ndarray, np.ndarray]:
    """Load a registered dataset by name, e.g. ``load_dataset("mnist", data_dir=...)``.

    Examples
    --------
    >>> import metafx
    >>> X, y = metafx.load_dataset("digits")
    >>> X.shape, sorted(set(X.ravel().tolist()))
    ((1797, 8, 8), [0, 1])
    """
    from .plugins import get_registry

    cls = get_registry().get("dataset", name)
    return cls.create(params).load()
