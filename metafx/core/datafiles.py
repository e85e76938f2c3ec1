"""Data files: IDX (MNIST) and scikit-learn's bundled digits, binarized.

The built-in datasets ``digits`` and ``mnist`` (see
:mod:`metafx.default_plugins.datasets`) read through these functions.
"""

from __future__ import annotations

import gzip
import math
import os
import struct
import zlib
from pathlib import Path
from typing import Protocol

import numpy as np

from .exceptions import ValidationError

__all__ = ["MNIST_ENV", "load_digits_binary", "load_mnist", "mnist_dir", "read_idx"]

MNIST_ENV = "METAFX_MNIST_DIR"


#: IDX element types (the third magic byte) and their big-endian dtypes
_IDX_TYPES = {0x08: ">u1", 0x09: ">i1", 0x0B: ">i2", 0x0C: ">i4", 0x0D: ">f4", 0x0E: ">f8"}
#: largest IDX body read (bytes): a corrupt header cannot make the reader allocate more
MAX_IDX_BYTES = 1 << 32


def read_idx(path: str | os.PathLike[str]) -> np.ndarray:
    """Read an IDX file (``.gz`` or plain) as a uint8 array.

    Every defect raises :class:`~metafx.ValidationError` naming the file: a
    missing or unreadable file, a damaged or truncated gzip stream (its CRC is
    checked), a short or wrong header, dimensions whose product overflows or
    exceeds :data:`MAX_IDX_BYTES`, a body longer or shorter than the header
    says.  Only unsigned-byte files (MNIST) are read.
    """
    path = Path(path)
    gz = path.suffix == ".gz"
    try:
        with (gzip.open(path, "rb") if gz else open(path, "rb")) as fh:
            return _read_idx_stream(fh, path)
    except FileNotFoundError:
        raise ValidationError(f"IDX file {str(path)!r} does not exist") from None
    except IsADirectoryError:
        raise ValidationError(f"IDX file {str(path)!r} is a directory") from None
    except (OSError, EOFError, zlib.error) as e:  # gzip.BadGzipFile is an OSError
        raise ValidationError(f"{path} cannot be read as {'gzip-compressed ' if gz else ''}IDX: {e}") from None


class _Reader(Protocol):
    def read(self, size: int = ..., /) -> bytes: ...


def _read_exactly(fh: _Reader, n: int) -> bytes:
    """Up to ``n`` bytes of ``fh`` (fewer only at its end)."""
    parts, got = [], 0
    while got < n:
        chunk = fh.read(min(n - got, 1 << 24))
        if not chunk:
            break
        parts.append(chunk)
        got += len(chunk)
    return b"".join(parts)


def _read_idx_stream(fh: _Reader, path: Path) -> np.ndarray:
    """The header first, then exactly the body it announces and one byte more (which must not exist): a
    damaged header is refused before anything else is read or decompressed."""
    magic = _read_exactly(fh, 4)
    if len(magic) < 4:
        raise ValidationError(f"{path} is too short to be an IDX file ({len(magic)} bytes)")
    zero, dtype_code, ndim = struct.unpack(">HBB", magic)
    if zero != 0 or dtype_code not in _IDX_TYPES or ndim == 0:
        raise ValidationError(f"{path} is not an IDX file (magic {magic.hex()})")
    if dtype_code != 0x08:
        raise ValidationError(f"{path} is not an unsigned-byte IDX file (magic {magic.hex()}); "
                              "only unsigned-byte (MNIST) files are read")
    raw_dims = _read_exactly(fh, 4 * ndim)
    if len(raw_dims) < 4 * ndim:
        raise ValidationError(f"{path}: its header announces {ndim} dimensions but the file has only "
                              f"{4 + len(raw_dims)} bytes")
    dims = struct.unpack(">" + "I" * ndim, raw_dims)
    size = math.prod(dims)  # Python integers: no overflow
    if size > MAX_IDX_BYTES:
        raise ValidationError(f"{path}: its header says {dims} ({size} values), more than the "
                              f"{MAX_IDX_BYTES} this reader accepts; the header is damaged")
    body = _read_exactly(fh, size)
    if len(body) < size:
        raise ValidationError(f"{path} holds {len(body)} values but its header says {dims} ({size} values)")
    if fh.read(1):  # reaching the end also checks a gzip stream's CRC and length
        raise ValidationError(f"{path} holds more than the {size} values its header says {dims}")
    return np.frombuffer(body, dtype=np.uint8).reshape(dims)


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


