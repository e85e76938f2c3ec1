"""A user's own data files: image arrays, folders of images, tables; and feature files out.

What :func:`read_data` reads, by the kind of ``path``:

* ``.npy``: an array of images ``(n, H, W)`` (or ``(n, H, W, 1)``), or a 2-D
  array ``(n, d)`` (flat images or a numeric table); labels from ``labels``.
* ``.npz``: the same array under ``X`` (or ``x``, ``images``, ``data``, or
  the one array besides the labels), labels under ``y`` (or ``labels``,
  ``target``) unless ``labels`` is given.
* a folder with one sub-folder per class, each holding image files (PNG,
  JPEG, BMP, GIF, TIFF, PGM/PPM, WebP) of one size, read as grey levels
  0-255 (needs Pillow: ``pip install "metafx[images]"``); the labels are the
  sub-folders' names.  Without labels (``need_labels=False``) a folder of
  image files directly is read too.
* ``.csv``, ``.tsv``, ``.parquet`` / ``.pq``: a table (needs pandas, and
  pyarrow for Parquet: ``pip install "metafx[tabular]"``); the labels or
  targets are the column ``target``, the other columns are ``X``.

Images are returned as read (grey levels); :func:`binarize` makes them 0/1.
Every problem raises :class:`~metafx.ValidationError` naming the file and what
was expected.
"""

from __future__ import annotations

import math
import os
import zipfile
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import numpy as np

from .exceptions import ValidationError
from .files import atomic_file, check_regular_file, physical_memory

__all__ = [
    "ARRAY_SUFFIXES",
    "FEATURE_SUFFIXES",
    "IMAGE_SUFFIXES",
    "TABLE_SUFFIXES",
    "DataFile",
    "auto_threshold",
    "binarize",
    "looks_like_path",
    "read_data",
    "read_labels",
    "write_features",
]

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".gif", ".tif", ".tiff", ".pgm", ".ppm", ".pbm", ".webp")
#: a table's numeric target with more distinct values is described as a target, not as classes (the tabular
#: plugin's rule for regression)
MANY_LEVELS = 20
TABLE_SUFFIXES = {".csv": "csv", ".tsv": "tsv", ".parquet": "parquet", ".pq": "parquet"}
ARRAY_SUFFIXES = (".npy", ".npz")
#: what :func:`write_features` writes
FEATURE_SUFFIXES = (".npy", ".csv", ".parquet", ".pq")
_X_KEYS = ("X", "x", "images", "data")
_Y_KEYS = ("y", "labels", "target")

#: the words of messages that name a parameter: Python's by default; the command line passes its options
PYTHON_NAMES = {"labels": "labels=", "target": "target=", "threshold": "threshold=",
                "images": 'pip install "metafx[images]"', "tabular": 'pip install "metafx[tabular]"'}

EXPECTED = ("a .npy/.npz array of images (n, H, W), a folder of images with one sub-folder per class, "
            "or a .csv/.tsv/.parquet table")


@dataclass
class DataFile:
    """What :func:`read_data` read: ``X`` (an array, or a pandas DataFrame for tables), ``y`` or None."""

    path: str
    kind: str  # "images" (n, H, W), "array" (a 2-D array), or "table" (a DataFrame)
    format: str  # npy, npz, folder, csv, tsv, parquet
    X: Any
    y: np.ndarray | None
    classes: list[str] | None = None  # folder: the class names, label k is classes[k]
    files: list[str] | None = None  # folder: the image files, one per row of X (relative to path)
    target: str | None = None  # table: the target column
    columns: list[str] = field(default_factory=list)  # table: the columns of X

    @property
    def n(self) -> int:
        return int(self.X.shape[0])

    def describe(self) -> str:
        if self.kind == "images":
            what = f"{self.n} images of {self.X.shape[1]} x {self.X.shape[2]}"
        elif self.kind == "table":
            what = f"a table of {self.n} rows x {len(self.columns)} columns"
        else:
            what = f"an array of {self.n} x {self.X.shape[1]}"
        if self.y is None:
            return what
        y = np.asarray(self.y)
        if y.dtype.kind == "f" and not np.all(np.mod(y, 1) == 0):
            return what + ", a real-valued target"
        k = len(np.unique(y))
        if self.kind == "table" and y.dtype.kind in "iuf" and k > MANY_LEVELS:  # a price, a count: not classes
            return what + f", a numeric target of {k} values"
        return what + (f", {k} class{'es' if k != 1 else ''}" if k <= 1000 else "")

    def rows(self, idx: np.ndarray) -> Any:
        """The rows ``idx`` of ``X`` (a DataFrame keeps its columns, with a fresh index)."""
        if hasattr(self.X, "iloc"):
            return self.X.iloc[idx].reset_index(drop=True)
        return self.X[idx]


def looks_like_path(text: str) -> bool:
    """Whether ``--data TEXT`` names a file or folder rather than a registered dataset."""
    p = Path(text)
    return p.exists() or os.sep in text or "/" in text or p.suffix.lower() in (
        ARRAY_SUFFIXES + tuple(TABLE_SUFFIXES) + IMAGE_SUFFIXES)


def _import(module: str, what: str, extra: str, names: Mapping[str, str]) -> Any:
    try:
        return __import__(module, fromlist=["_"])
    except ImportError:
        raise ValidationError(f"reading {what} needs {module.split('.')[0]}, which is not installed: "
                              f"{names[extra]}") from None


def read_data(path: str | os.PathLike[str], *, labels: str | os.PathLike[str] | None = None,
              target: str | None = None, need_labels: bool = True,
              names: Mapping[str, str] = PYTHON_NAMES) -> DataFile:
    """Read the data at ``path`` by its kind (see the module docstring).

    ``labels``: a file of labels (``.npy``, or text with one label per line)
    for an array.  ``target``: the label column of a table.  With
    ``need_labels=False`` (features of new data) labels may be absent; a
    table's ``target`` column, when present, is still split off.
    ``names`` words the messages (the command line passes its options).
    """
    p = Path(path)
    if not p.exists():
        raise ValidationError(f"{str(p)!r} does not exist; expected {EXPECTED}")
    if p.is_dir():
        return _read_folder(p, need_labels, names)
    size = check_regular_file(p, "data file")  # a FIFO would block the reader, /dev/zero feed it without end
    suffix = p.suffix.lower()
    if suffix in TABLE_SUFFIXES:  # a table takes at least its file's size once read
        _check_memory(size, str(p), "of table")
    if suffix in ARRAY_SUFFIXES:
        if target is not None:
            raise ValidationError(f"{p}: {names['target']} names a column of a table; {p.name} is an array "
                                  f"(give its labels with {names['labels']})")
        return _read_array(p, labels, need_labels, names)
    if suffix in TABLE_SUFFIXES:
        if labels is not None:
            raise ValidationError(f"{p}: {names['labels']} is for arrays; a table's labels are one of its columns: "
                                  f"give {names['target']}COLUMN")
        return _read_table(p, TABLE_SUFFIXES[suffix], target, need_labels, names)
    if suffix in IMAGE_SUFFIXES:
        raise ValidationError(f"{p} is one image; expected a folder of images with one sub-folder per class "
                              f"(or {EXPECTED})")
    raise ValidationError(f"{p}: unknown kind of data file {suffix or '(no suffix)'!r}; expected {EXPECTED}")


# ---------------------------------------------------------------------------- arrays
def _npy_header(fh: Any, where: str, what: str) -> tuple[tuple[int, ...], np.dtype]:
    """The shape and dtype an ``.npy`` stream's header declares (the stream is left at the array's data)."""
    from numpy.lib import format as npy_format

    try:
        version = npy_format.read_magic(fh)
        read = npy_format.read_array_header_1_0 if version == (1, 0) else npy_format.read_array_header_2_0
        shape, _, dtype = read(fh)
    except (ValueError, EOFError, OSError, SyntaxError) as e:
        raise ValidationError(f"{where} cannot be read as {what}: {str(e).splitlines()[0] if str(e) else e!r}") \
            from None
    return tuple(int(n) for n in shape), np.dtype(dtype)


def _check_declared(shape: tuple[int, ...], dtype: np.dtype, body: int, where: str) -> int:
    """The bytes an array of ``shape`` and ``dtype`` takes, checked against the ``body`` bytes the file holds
    after its header (a lying header is refused before anything is allocated)."""
    need = math.prod(shape) * dtype.itemsize  # Python integers: no overflow
    if need > body:
        raise ValidationError(f"{where}: its header declares an array of shape {shape} ({dtype}, {need} bytes) "
                              f"but the file holds {body} bytes of data; the file is truncated or damaged")
    return need


def _check_memory(need: int, where: str, what: str = "of arrays") -> None:
    memory = physical_memory()
    if memory is not None and need > memory:
        raise ValidationError(f"{where} holds {need / 2**30:.3g} GiB {what}, more than this machine's "
                              f"{memory / 2**30:.3g} GiB of memory")


def _load_npy(p: Path, what: str) -> np.ndarray:
    size = check_regular_file(p, "data file" if "labels" not in what else "labels file")
    try:
        with open(p, "rb") as fh:
            head = fh.read(6)
            fh.seek(0)
            if head == b"\x93NUMPY":  # checked before np.load allocates what the header declares
                shape, dtype = _npy_header(fh, str(p), what)
                _check_memory(_check_declared(shape, dtype, size - fh.tell(), str(p)), str(p))
    except OSError as e:
        raise ValidationError(f"{p} cannot be read as {what}: {e.strerror or e}") from None
    try:
        arr = np.load(p, allow_pickle=False)
    except (OSError, ValueError, EOFError) as e:
        raise ValidationError(f"{p} cannot be read as {what}: {e}") from None
    if isinstance(arr, np.lib.npyio.NpzFile):
        arr.close()
        raise ValidationError(f"{p} is an .npz archive, not {what}; name it .npz")
    return cast("np.ndarray", arr)


def _check_npz(p: Path) -> None:
    """An ``.npz`` archive checked before its arrays are read: a regular file, a whole zip archive (a truncated
    one has no central directory), and every member's declared shape within its own size and, together, within
    the machine's memory."""
    check_regular_file(p, "data file")
    what = "an .npz archive of arrays"
    total = 0
    try:
        with zipfile.ZipFile(p) as zf:
            for info in zf.infolist():
                if not info.filename.endswith(".npy"):
                    continue
                with zf.open(info) as member:
                    shape, dtype = _npy_header(member, f"{p} (array {info.filename[:-4]!r})", what)
                    total += _check_declared(shape, dtype, info.file_size - member.tell(),
                                             f"{p} (array {info.filename[:-4]!r})")
    except ValidationError:
        raise
    except (OSError, EOFError, zipfile.BadZipFile, zlib.error) as e:
        raise ValidationError(f"{p} cannot be read as {what}: {e}; the archive is truncated or damaged") from None
    _check_memory(total, str(p))


def read_labels(path: str | os.PathLike[str], n: int | None = None, *, of: str = "X") -> np.ndarray:
    """Labels from ``.npy`` (1-D) or a text file of one label per line (integers when they all are)."""
    p = Path(path)
    if p.is_dir():
        raise ValidationError(f"labels file {str(p)!r} is a directory; expected a .npy or a text file")
    check_regular_file(p, "labels file")
    if p.suffix.lower() == ".npy":
        y = _load_npy(p, "a 1-D array of labels")
    else:
        try:
            lines = [s.strip() for s in p.read_text(encoding="utf-8").splitlines()]
        except (OSError, UnicodeDecodeError) as e:
            raise ValidationError(f"labels file {p} cannot be read as text (one label per line): {e}") from None
        lines = [s for s in lines if s]
        try:
            y = np.array([int(s) for s in lines], dtype=np.int64)
        except ValueError:
            y = np.array(lines, dtype=str)
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        y = y.ravel()
    if y.ndim != 1:
        raise ValidationError(f"labels file {p} holds an array of shape {y.shape}; expected one label per sample")
    if n is not None and y.shape[0] != n:
        raise ValidationError(f"labels file {p} holds {y.shape[0]} labels but {of} has {n} samples; they must match")
    return y


def _read_array(p: Path, labels: Any, need_labels: bool, names: Mapping[str, str]) -> DataFile:
    y = None
    if p.suffix.lower() == ".npz":
        _check_npz(p)
        try:
            with np.load(p, allow_pickle=False) as z:
                arrays = {k: z[k] for k in z.files}
        except (OSError, ValueError, EOFError, zipfile.BadZipFile, zlib.error) as e:
            raise ValidationError(f"{p} cannot be read as an .npz archive of arrays: {e}") from None
        xk = next((k for k in _X_KEYS if k in arrays), None)
        yk = next((k for k in _Y_KEYS if k in arrays), None)
        if xk is None:
            rest = [k for k in arrays if k != yk]
            if len(rest) != 1:
                raise ValidationError(f"{p} holds arrays {sorted(arrays) or '(none)'}; expected the images under "
                                      f"'X' and the labels under 'y'")
            xk = rest[0]
        X = arrays[xk]
        if yk is not None and labels is None:
            y = np.asarray(arrays[yk])
            if y.ndim != 1 or y.shape[0] != X.shape[0]:
                raise ValidationError(f"{p}: the labels {yk!r} have shape {y.shape} but {xk!r} has {X.shape[0]} "
                                      "samples; expected one label per sample")
    else:
        X = _load_npy(p, "an array of images (n, H, W)")
    if X.dtype.kind not in "biuf":
        raise ValidationError(f"{p} holds an array of dtype {X.dtype}; expected numbers (images (n, H, W) of grey "
                              "levels or 0/1)")
    if X.ndim == 4 and X.shape[-1] == 1:
        X = X[..., 0]
    if X.ndim == 4:
        raise ValidationError(f"{p} holds an array of shape {X.shape}: colour images? expected grey images "
                              "(n, H, W); convert them to grey first")
    if X.ndim not in (2, 3) or X.shape[0] == 0:
        raise ValidationError(f"{p} holds an array of shape {X.shape}; expected images (n, H, W) or a 2-D "
                              "array (n, d)")
    if X.dtype.kind == "f" and not np.isfinite(X).all():
        raise ValidationError(f"{p} holds NaN or infinite values; expected finite grey levels or 0/1")
    if labels is not None:
        y = read_labels(labels, X.shape[0], of=str(p))
    if y is None and need_labels:
        raise ValidationError(f"{p} has no labels: give {names['labels']}FILE (.npy or one label per line)"
                              + (" or save them in the .npz under 'y'" if p.suffix.lower() == ".npz"
                                 else " or an .npz holding X and y"))
    return DataFile(str(p), "images" if X.ndim == 3 else "array", p.suffix.lower()[1:], X, y)


# ---------------------------------------------------------------------------- folders of images
def _image_files(d: Path) -> list[Path]:
    """The image files of folder ``d`` (by suffix, hidden files left out); each must be a regular file (a FIFO
    or a link to a device named ``x.png`` is refused, not skipped nor read)."""
    files = sorted(f for f in d.iterdir() if f.suffix.lower() in IMAGE_SUFFIXES and not f.name.startswith(".")
                   and not f.is_dir())
    for f in files:
        check_regular_file(f, "image file")
    return files


#: Pillow's modes of 16-bit grey images (PNG, TIFF; "I" is how Pillow before 10 read 16-bit PNGs)
_WIDE_GREY = ("I;16", "I;16L", "I;16B", "I;16N", "I")


def _grey_levels(im: Any, f: Path) -> np.ndarray:
    """An image's grey levels 0-255 (uint8), read by its real depth: 8-bit images (grey, colour, palette,
    1-bit) as Pillow converts them to grey ("L"); 16-bit grey images scaled by 255 / 65535 (rounded: 65535
    is 255, 32768 is 128), never clipped; 32-bit integer values outside 0-65535 and floating-point images
    ("F") are refused, as no depth says where their white is."""
    if im.mode in _WIDE_GREY:
        a = np.asarray(im)
        if a.dtype.kind not in "iu":
            a = np.asarray(im, dtype=np.int64)
        lo, hi = int(a.min()), int(a.max())
        if lo < 0 or hi > 65535:
            raise ValidationError(f"{f} holds 32-bit grey values in [{lo}, {hi}]; expected 8-bit images or "
                                  "16-bit images (0-65535): convert it to 8 or 16 bits first")
        return np.rint(a.astype(np.float64) * (255.0 / 65535.0)).astype(np.uint8)
    if im.mode == "F":
        raise ValidationError(f"{f} is a floating-point image (mode F); expected 8-bit or 16-bit images: "
                              "convert it first")
    return np.asarray(im.convert("L"), dtype=np.uint8)


def _read_folder(p: Path, need_labels: bool, names: Mapping[str, str]) -> DataFile:
    classes = sorted(d.name for d in p.iterdir() if d.is_dir() and not d.name.startswith("."))
    loose = _image_files(p)
    if classes and loose:
        raise ValidationError(f"{p} holds both image files ({loose[0].name}, ...) and sub-folders ({classes[0]}, "
                              "...); expected one sub-folder per class holding its images")
    if not classes:
        if need_labels or not loose:
            raise ValidationError(f"{p} has no sub-folders{' (only images)' if loose else ''}; expected one "
                                  "sub-folder per class holding its images (e.g. cats/1.png, dogs/7.png)")
        files, y = loose, None
    else:
        files, labels = [], []
        for k, c in enumerate(classes):
            got = _image_files(p / c)
            if not got:
                raise ValidationError(f"{p / c} holds no image files ({', '.join(IMAGE_SUFFIXES)}); expected "
                                      f"the images of class {c!r}")
            files += got
            labels += [k] * len(got)
        y = np.array(labels, dtype=np.int64)
    Image = _import("PIL.Image", f"a folder of images ({p})", "images", names)
    first, images = None, []
    for f in files:
        try:
            with Image.open(f) as im:
                a = _grey_levels(im, f)
        except ValidationError:
            raise
        except (OSError, ValueError, Image.DecompressionBombError) as e:
            raise ValidationError(f"{f} cannot be read as an image: {e}") from None
        if first is None:
            first = (f, a.shape)
        elif a.shape != first[1]:
            raise ValidationError(f"{f} is {a.shape[1]} x {a.shape[0]} pixels but {first[0]} is {first[1][1]} x "
                                  f"{first[1][0]}; expected images of one size (resize them first)")
        images.append(a)
    return DataFile(str(p), "images", "folder", np.stack(images), y, classes=classes or None,
                    files=[str(f.relative_to(p)) for f in files])


# ---------------------------------------------------------------------------- tables
def _read_table(p: Path, fmt: str, target: str | None, need_labels: bool, names: Mapping[str, str]) -> DataFile:
    pd = _import("pandas", f"a table ({p})", "tabular", names)
    try:
        if fmt == "parquet":
            _import("pyarrow", f"a Parquet table ({p})", "tabular", names)
            df = pd.read_parquet(p)
        else:
            df = pd.read_csv(p, sep="\t" if fmt == "tsv" else ",")
    except ValidationError:
        raise
    except Exception as e:  # pandas' and pyarrow's parser errors have no common base class
        raise ValidationError(f"{p} cannot be read as a {fmt.upper()} table: {str(e).strip().splitlines()[0]}") \
            from None
    df.columns = [str(c) for c in df.columns]
    _check_unique_names(p, _raw_header(pd, p, fmt) if fmt != "parquet" else list(df.columns))
    if df.shape[0] == 0 or df.shape[1] == 0:
        raise ValidationError(f"{p} is an empty table ({df.shape[0]} rows x {df.shape[1]} columns); expected a "
                              "header line and one row per sample")
    cols = list(df.columns)
    y = None
    if target is not None:
        if target not in cols:
            shown = ", ".join(cols[:20]) + (", ..." if len(cols) > 20 else "")
            if need_labels:
                raise ValidationError(f"{p} has no column {target!r}; its columns: {shown}")
            target = None  # new data without the target column
        else:
            y = df[target].to_numpy()
            bad = pd.isna(df[target]).to_numpy()
            if need_labels and bad.any():
                raise ValidationError(f"{p}: the target column {target!r} is missing at row {int(np.flatnonzero(bad)[0])}"
                                      " (0-based, after the header); every row needs a target")
            df = df.drop(columns=[target])
    elif need_labels:
        shown = ", ".join(cols[:20]) + (", ..." if len(cols) > 20 else "")
        raise ValidationError(f"{p} is a table: name its label (target) column with {names['target']}COLUMN; "
                              f"its columns: {shown}")
    if df.shape[1] == 0:
        raise ValidationError(f"{p} has no column besides the target {target!r}")
    return DataFile(str(p), "table", fmt, df, y, target=target, columns=list(df.columns))


def _raw_header(pd: Any, p: Path, fmt: str) -> list[str]:
    """A CSV's header as written: pandas renames a repeated name (``y`` again becomes ``y.1``)."""
    try:
        head = pd.read_csv(p, sep="\t" if fmt == "tsv" else ",", header=None, nrows=1, dtype=str,
                           keep_default_na=False)
    except Exception:  # read above already: the whole table parsed
        return []
    return [str(c) for c in head.iloc[0].tolist()] if head.shape[0] else []


def _check_unique_names(p: Path, names: Sequence[str]) -> None:
    """The rule of the Python API (``X has repeated column names``): every column has its own name."""
    seen: set[str] = set()
    repeated = [n for n in names if n and (n in seen or seen.add(n))]  # type: ignore[func-returns-value]
    if repeated:
        raise ValidationError(f"{p} has repeated column names {sorted(set(repeated))[:10]} in its header; give "
                              "every column its own name")


# ---------------------------------------------------------------------------- binarization
def auto_threshold(X: np.ndarray, source: str = "X", names: Mapping[str, str] = PYTHON_NAMES) -> float | None:
    """The threshold the command line uses by default (``--threshold auto``).

    0/1 images: None (kept as they are).  Integer grey levels in 0-255: 128.
    Floats in [0, 1]: 0.5.  Anything else, or values that would all be 0 at
    that threshold (integers up to 16, say): an error asking for a threshold
    (e.g. half the largest value: 8 for scikit-learn's 0-16 digits).
    """
    X = np.asarray(X)
    if X.dtype == bool or not ((X != 0) & (X != 1)).any():
        return None
    lo, hi = X.min(), X.max()
    if X.dtype.kind in "iu" and lo >= 0 and hi <= 255 and hi >= 128:
        return 128.0
    if X.dtype.kind == "f" and lo >= 0 and hi <= 1 and hi >= 0.5:
        return 0.5
    half = hi / 2
    suggestion = f"{half:.3g}" if X.dtype.kind == "f" else f"{int(np.ceil(half))}"
    raise ValidationError(f"{source} holds values in [{lo:.6g}, {hi:.6g}]: not 0/1, and no default threshold "
                          f"fits them (128 for grey levels 0-255, 0.5 for values in [0, 1]): give {names['threshold']}T (a pixel is 1 where value >= T), e.g. "
                          f"{names['threshold']}{suggestion} (half the largest value)")


def binarize(X: np.ndarray, threshold: float | str | None = "auto", source: str = "X",
             names: Mapping[str, str] = PYTHON_NAMES) -> tuple[np.ndarray, float | None]:
    """``(X >= threshold)`` as uint8 0/1 and the threshold used (``"auto"``: :func:`auto_threshold`)."""
    if isinstance(threshold, str):
        if threshold != "auto":
            raise ValidationError(f"threshold={threshold!r} must be a number or 'auto'")
        threshold = auto_threshold(X, source, names)
    if threshold is None:
        return np.ascontiguousarray(np.asarray(X) != 0, dtype=np.uint8), None
    t = float(threshold)
    if not np.isfinite(t):
        raise ValidationError(f"threshold={threshold!r} must be a finite number")
    X = np.asarray(X)
    if X.size and X.dtype != bool:
        lo, hi = X.min().item(), X.max().item()
        if hi < t or lo >= t:  # one value for every pixel: nothing a search could tell apart
            raise ValidationError(f"{names['threshold']}{t:g}: {source} holds values in [{lo:g}, {hi:g}], so every "
                                  f"pixel would be {0 if hi < t else 1} (a pixel is 1 where value >= T); allowed: a "
                                  f"threshold above {lo:g} and at most {hi:g}, or auto")
    return np.ascontiguousarray(X >= t, dtype=np.uint8), t


# ---------------------------------------------------------------------------- output
def write_features(path: str | os.PathLike[str], F: np.ndarray, names: Sequence[str],
                   rows: Sequence[str] | None = None, row_label: str = "file") -> None:
    """Write features ``F (n, k)``: ``.npy`` (the array), ``.csv`` or ``.parquet`` (one column per feature,
    named ``names``, made unique; ``rows`` as a first column ``row_label`` when given)."""
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix not in FEATURE_SUFFIXES:
        raise ValidationError(f"{str(p)!r}: features are written as {', '.join(FEATURE_SUFFIXES)}; "
                              f"got {suffix or 'no suffix'!r}")
    if suffix == ".npy":
        with atomic_file(p) as fh:
            np.save(fh, F)
        return
    pd = _import("pandas", f"a {suffix[1:]} file", "tabular", PYTHON_NAMES)
    seen: dict[str, int] = {}
    cols = []
    for n in names:
        seen[n] = seen.get(n, 0) + 1
        cols.append(n if seen[n] == 1 else f"{n} #{seen[n]}")
    df = pd.DataFrame(F, columns=cols)
    if rows is not None:
        df.insert(0, row_label if row_label not in cols else f"{row_label}_", list(rows))
    if suffix != ".csv":
        _import("pyarrow", "a Parquet file", "tabular", PYTHON_NAMES)
    with atomic_file(p) as fh:  # beside and renamed: a kill or a full disk leaves the old file whole
        if suffix == ".csv":
            df.to_csv(fh, index=False, encoding="utf-8")
        else:
            df.to_parquet(fh, index=False)
