"""A reference plugin family written against ``metafx.plugin`` alone, in plain NumPy.

Feature ``i`` is the OR of ``k`` pixels drawn inside a ``w x w`` window of a binary image, the window placed
at random.  Two meta-features: ``numInputs`` (``k``, 1-8) and ``window`` (``w``, 2-8; a window holds at least
``k`` pixels).  A feature costs its number of inputs, ``k``.

It is written the way the plugin guide (``docs/plugins.md``) shows a family: values returned as a dense 0/1
array with ``FeatureValues.from_dense``, no numba, no bit packing.  The project keeps it to check that a
stranger's family gets what the built-in one gets:

* the speed benchmark (``benchmarks/bench_plugin_family.py``) runs every engine on it beside ``pixel-and``;
* ``metafx.testing.FamilyConformance``, ``check_family_speed`` and ``check_export`` run on it in the tests;
* it implements ``export_c`` and ``export_numpy`` (the family's part of ``metafx export``), so its results
  export to C and to NumPy like the built-in family's.

``window-or-packed`` (:class:`WindowOrPacked`, registered beside it) is the same family computed on bits, 64 images
per word, in plain NumPy too: the same values, a cheaper ``compute``.

Use it from Python::

    import metafx
    import window_or_family                        # this file, on sys.path
    metafx.plugin.register_plugin(window_or_family, name="window-or")
    result = metafx.search(X, y, family="window-or")

or from a distribution that declares the module as an entry point of the group ``metafx``
(``docs/plugins.md``, "How plugins are found").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from metafx.plugin import (
    Dimension,
    FamilyExport,
    FeatureFamily,
    FeatureValues,
    MetaFeatureSpace,
    ValidationError,
    check_binary_images,
    hookimpl,
)

#: the most inputs a feature has
MAX_K = 8


@dataclass
class Windows:
    """Feature ``i`` is ``OR_j image[rows[i, j], cols[i, j]]`` over its first ``k[i]`` inputs."""

    rows: np.ndarray  # (n, MAX_K) int64; unused inputs repeat the first
    cols: np.ndarray
    k: np.ndarray  # (n,) int64
    window: np.ndarray  # (n,) int64

    def __len__(self) -> int:
        return len(self.k)

    @property
    def costs(self) -> np.ndarray:
        return self.k.astype(np.float64)

    def take(self, idx) -> Windows:
        idx = np.asarray(idx, dtype=np.intp)
        return Windows(self.rows[idx], self.cols[idx], self.k[idx], self.window[idx])


def _empty() -> Windows:
    z = np.zeros((0, MAX_K), np.int64)
    return Windows(z, z.copy(), np.zeros(0, np.int64), np.zeros(0, np.int64))


class WindowOr(FeatureFamily):
    """OR of ``numInputs`` pixels inside a ``window x window`` square."""

    name = "window-or"
    summary = "OR of k pixels drawn inside a w x w window (reference plugin family, plain NumPy)"
    data_kind = "binary-image"

    def __init__(self, image_shape=None):
        self.image_shape = image_shape  # learned by fit when None

    def check_data(self, X):
        return check_binary_images(X, None if self.image_shape is None else tuple(self.image_shape))

    def fit(self, X, y=None):
        self.image_shape = list(self.check_data(X).shape[1:])
        return self

    def space(self):
        return MetaFeatureSpace((Dimension("numInputs", "int", 1, MAX_K, step=1, default=3),
                                 Dimension("window", "int", 2, 8, step=1, default=4)))

    def draw(self, point, budget, rng, max_features=None):
        p = self.space().check_point(point)
        k, w = int(p["numInputs"]), int(p["window"])
        h, wd = self.image_shape
        w = min(w, h, wd)
        k = min(k, w * w)
        n = int(budget // k) if max_features is None else min(int(budget // k), int(max_features))
        if n <= 0:
            return _empty()
        top = rng.integers(0, h - w + 1, n)
        left = rng.integers(0, wd - w + 1, n)
        # k distinct cells of the window per feature: the k smallest of w*w random keys
        cells = np.argsort(rng.random((n, w * w)), axis=1)[:, :k]
        rows = np.empty((n, MAX_K), np.int64)
        cols = np.empty((n, MAX_K), np.int64)
        rows[:, :k] = top[:, None] + cells // w
        cols[:, :k] = left[:, None] + cells % w
        rows[:, k:] = rows[:, :1]
        cols[:, k:] = cols[:, :1]
        return Windows(rows, cols, np.full(n, k, np.int64), np.full(n, w, np.int64))

    def concat(self, batches):
        batches = [b for b in batches if len(b)]
        if not batches:
            return _empty()
        return Windows(*(np.concatenate([getattr(b, f) for b in batches]) for f in ("rows", "cols", "k", "window")))

    def prepare(self, X):
        return self.check_data(X)

    def compute(self, prepared, batch):
        out = np.zeros((prepared.shape[0], len(batch)), dtype=np.uint8)
        for start in range(0, len(batch), 2048):  # bounded memory: n x 2048 x MAX_K bytes at a time
            part = slice(start, start + 2048)
            out[:, part] = prepared[:, batch.rows[part], batch.cols[part]].max(axis=2)
        return FeatureValues.from_dense(out)

    def describe(self, batch):
        return {"numInputs": batch.k, "window": batch.window}

    def to_json(self, batch):
        return [{"family": self.name, "rows": [int(v) for v in r[:k]], "cols": [int(v) for v in c[:k]],
                 "window": int(w)} for r, c, k, w in zip(batch.rows, batch.cols, batch.k, batch.window, strict=True)]

    def from_json(self, specs):
        out = []
        try:
            for s in specs:
                r, c = [int(v) for v in s["rows"]], [int(v) for v in s["cols"]]
                if not 1 <= len(r) == len(c) <= MAX_K:
                    raise ValueError(f"rows and cols must hold 1 to {MAX_K} pixels each")
                out.append((r + r[:1] * (MAX_K - len(r)), c + c[:1] * (MAX_K - len(c)), len(r), int(s["window"])))
        except (KeyError, TypeError, ValueError) as e:
            raise ValidationError(f"a window-or feature needs rows, cols and window ({e})") from None
        if not out:
            return _empty()
        rows, cols, k, w = zip(*out, strict=True)
        return Windows(np.array(rows, np.int64), np.array(cols, np.int64), np.array(k, np.int64),
                       np.array(w, np.int64))

    def feature_names(self, batch):
        return [" | ".join(f"p[{r},{c}]" for r, c in zip(rr[:k], cc[:k], strict=True))
                for rr, cc, k in zip(batch.rows, batch.cols, batch.k, strict=True)]

    # ------------------------------------------------------------------ export (metafx export --to c / numpy)
    def export_c(self, batch, prefix):
        """The features as C: ``prefix_compute(const uint8_t *image, uint8_t *out)``, 0/1 pixels in,
        0/1 features out, and ``prefix_compute64`` for 64 images at once (``metafx.plugin.FamilyExport``)."""
        h, w = (int(v) for v in self.image_shape)
        n = len(batch)
        first = np.concatenate([[0], np.cumsum(batch.k)])
        index = np.concatenate([batch.rows[i, :k] * w + batch.cols[i, :k]
                                for i, k in enumerate(batch.k)]) if n else np.zeros(0, np.int64)
        table = "uint16_t" if h * w <= 0xFFFF else "uint32_t"
        lines = []
        if n:
            lines += [f"static const uint32_t {prefix}_first[{n + 1}] = {{{', '.join(map(str, first))}}};",
                      f"static const {table} {prefix}_pixel[{len(index)}] = {{{', '.join(map(str, index))}}};"]
        lines += [f"static void {prefix}_compute(const uint8_t *image, uint8_t *out)", "{"]
        if n:
            lines += ["    uint32_t f, j;",
                      f"    for (f = 0; f < {n}u; ++f) {{",
                      "        uint8_t v = 0;",
                      f"        for (j = {prefix}_first[f]; j < {prefix}_first[f + 1]; ++j)",
                      f"            v |= image[{prefix}_pixel[j]];",
                      "        out[f] = v;",
                      "    }"]
        else:
            lines += ["    (void)image;", "    (void)out;"]
        lines += ["}"]
        # optional: the same for 64 images at once (bit s of in[i] is pixel i of image s), which the file's
        # *_many functions then use; an OR of words is the OR of 64 images' pixels
        many = [f"static void {prefix}_compute64(const uint64_t *in, uint64_t *out)", "{",
                "    uint32_t f, j;",
                f"    for (f = 0; f < {n}u; ++f) {{",
                "        uint64_t v = 0;",
                f"        for (j = {prefix}_first[f]; j < {prefix}_first[f + 1]; ++j)",
                f"            v |= in[{prefix}_pixel[j]];",
                "        out[f] = v;",
                "    }",
                "}"] if n else []
        return FamilyExport(code="\n".join(lines), n_inputs=h * w, input_type="binary",
                            value_type="binary", input_shape=(h, w),
                            about=f"OR of pixels of a {h} x {w} binary image, row-major",
                            code_many="\n".join(many))

    def export_numpy(self, batch, prefix):
        """The features as a NumPy function ``prefix_compute(X) -> (n, n_features) uint8`` of flat 0/1 images."""
        h, w = (int(v) for v in self.image_shape)
        index = [[int(r) * w + int(c) for r, c in zip(rr[:k], cc[:k], strict=True)]
                 for rr, cc, k in zip(batch.rows, batch.cols, batch.k, strict=True)]
        code = "\n".join([
            f"_{prefix}_PIXELS = {index!r}",
            "",
            "",
            f"def {prefix}_compute(X):",
            "    out = np.zeros((X.shape[0], len(_" + prefix + "_PIXELS)), dtype=np.uint8)",
            f"    for f, pixels in enumerate(_{prefix}_PIXELS):",
            "        out[:, f] = X[:, pixels].max(axis=1)",
            "    return out"])
        return FamilyExport(code=code, n_inputs=h * w, input_type="binary", value_type="binary",
                            input_shape=(h, w), about=f"OR of pixels of a {h} x {w} binary image, row-major")


class WindowOrPacked(WindowOr):
    """The same features as ``window-or``, computed on bits: 64 images per machine word (still plain NumPy).

    ``prepare`` packs each pixel's column of 0/1 values over the images into words, and ``compute`` ORs the words
    of a feature's pixels, returning ``FeatureValues(n_samples=m, packed=...)`` (the plugin guide, "Performance").
    The values are ``window-or``'s, bit for bit (``tests/test_plugin_family.py``), so a search takes the same
    steps; only the family's own ``compute`` is cheaper (``docs/results/speed.md``, "A plugin family's speed").
    """

    name = "window-or-packed"
    summary = "window-or computed on packed bits (reference plugin family, plain NumPy)"

    def prepare(self, X):
        X = self.check_data(X)
        m = X.shape[0]
        flat = X.reshape(m, -1).astype(bool)
        words = -(-m // 64)
        # bit i % 64 of word i // 64 holds image i: pad the images to whole words, then pack 8 per byte
        padded = np.zeros((64 * words, flat.shape[1]), bool)
        padded[:m] = flat
        bits = np.packbits(padded, axis=0, bitorder="little")  # (8 * words, pixels) bytes
        packed = np.ascontiguousarray(bits.T).view("<u8").astype(np.uint64, copy=False)  # (pixels, words)
        return {"images": X, "bits": packed}

    def compute(self, prepared, batch):
        m, (_, w) = prepared["images"].shape[0], self.image_shape
        out = np.zeros((len(batch), prepared["bits"].shape[1]), np.uint64)
        for start in range(0, len(batch), 4096):  # bounded memory: 4096 x MAX_K x words words at a time
            part = slice(start, start + 4096)
            pixel = batch.rows[part] * w + batch.cols[part]  # unused inputs repeat the first: an OR is unchanged
            out[part] = np.bitwise_or.reduce(prepared["bits"][pixel], axis=1)
        return FeatureValues(n_samples=m, packed=out)


@hookimpl
def metafx_register_families(register):
    register(WindowOr)
    register(WindowOrPacked)
