"""The pixel families' part of ``metafx export``: their features as C99 and as NumPy code.

A feature is the AND of (negated) pixels, OR-ed over the shifts ``(dy, dx)`` of ``{0..a-1}^2`` (``a`` its
shift length), a pixel outside the image reading 0.  The C code holds the image as rows of 64-bit words and
each input's ``a x a`` window in one word; the NumPy code holds each pixel's value on 64 images per word.
Both give the values of ``compute``, bit for bit (``tests/test_export.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.base import FamilyExport
from ..core.codegen import c_table, py_list
from ..core.exceptions import ValidationError


@dataclass
class PixelFeatures:
    """The features of a pixel family's batch as flat tables."""

    height: int
    width: int
    first: np.ndarray  # (n + 1,) inputs of feature f are first[f] .. first[f + 1] - 1
    rows: np.ndarray  # (n_inputs,)
    cols: np.ndarray
    neg: np.ndarray  # bool
    shift: np.ndarray  # (n,) shift length a >= 1

    @property
    def n(self) -> int:
        return int(self.shift.shape[0])

    @property
    def pad(self) -> int:
        """Rows and columns of zeros below and right of the image that the shifts reach."""
        return int(self.shift.max()) - 1 if self.n else 0


def pixel_features(family: Any, batch: Any) -> PixelFeatures:
    """The flat tables of ``batch`` (a ``pixel-and`` / ``pixel-and-local`` batch, or a ``pixels`` batch)."""
    if family.image_shape is None:
        raise ValidationError(f"the family's image_shape is None; export needs the image size (H, W) "
                              f"(family {family.name!r} not fitted)")
    h, w = (int(v) for v in family.image_shape)
    n = len(batch)
    if not hasattr(batch, "shift"):  # single pixels
        k = np.ones(n, np.int64)
        rows = np.asarray(batch.rows, np.int64)
        cols = np.asarray(batch.cols, np.int64)
        neg = np.zeros(n, bool)
        shift = np.ones(n, np.int64)
    else:
        k = np.asarray(batch.k, np.int64)
        used = np.arange(batch.rows.shape[1])[None, :] < k[:, None]
        rows = np.asarray(batch.rows, np.int64)[used]  # row-major: feature by feature, inputs in order
        cols = np.asarray(batch.cols, np.int64)[used]
        neg = np.asarray(batch.neg, bool)[used]
        shift = np.asarray(batch.shift, np.int64)
    if n and not 1 <= shift.min() <= shift.max() <= 8:  # the C code holds an a x a window in 64 bits
        raise ValidationError(f"shift lengths {shift.min()}..{shift.max()}: export supports 1 to 8")
    first = np.concatenate([[0], np.cumsum(k)]).astype(np.int64)
    return PixelFeatures(h, w, first, rows, cols, neg, shift)


ABOUT = ("Feature f is 1 when, for some shift (dy, dx) in {0 .. a-1} x {0 .. a-1} (a = its shift length), every "
         "input (row, col, negated) of it has pixel(row + dy, col + dx) != negated, a pixel outside the image "
         "reading 0.")




def pixel_c(family: Any, batch: Any, prefix: str) -> FamilyExport:
    """``FeatureFamily.export_c`` of the pixel families."""
    feats = pixel_features(family, batch)
    h, w, n = feats.height, feats.width, feats.n
    nw = -(-(w + feats.pad) // 64)  # 64-bit words per row of the padded image
    codes = ((feats.rows * nw + feats.cols // 64) << 7) | ((feats.cols % 64) << 1) | feats.neg.astype(np.int64)
    index_t = "uint16_t" if (codes.max() if codes.size else 0) <= 0xFFFF else "uint32_t"
    first_t = "uint16_t" if int(feats.first[-1]) <= 0xFFFF else "uint32_t"
    names = list(family.feature_names(batch)) if n else []
    o = _c_tables(prefix, feats, names, codes, index_t, first_t)
    o += ["",
          f"static void {prefix}_compute(const uint8_t *image, uint8_t *out)",
          "{"]
    o += _c_compute_body(prefix, feats, index_t)
    o += ["}"]
    return FamilyExport(code="\n".join(o), n_inputs=h * w, input_type="binary", value_type="binary",
                        input_shape=(h, w), about=f"one binary image of {h} x {w} pixels, row-major. " + ABOUT,
                        code_many=_c_compute64(prefix, feats) if n else "")


def _c_compute64(prefix: str, feats: PixelFeatures) -> str:
    """``PREFIX_compute64``: the features of 64 images at once, each padded pixel one word of 64 images' bits
    (as the NumPy export holds them): per shift, the AND of the inputs' words (a negated one inverted), OR-ed over
    the shifts.  Each feature's plain inputs come first, then its negated ones (the AND is the same)."""
    P = prefix.upper()
    h, w, p = feats.height, feats.width, feats.pad
    pw = w + p
    pos = feats.rows * pw + feats.cols
    owner = np.repeat(np.arange(feats.n), np.diff(feats.first))  # the feature of each input
    pos = pos[np.lexsort((feats.neg, owner))]  # per feature: its plain inputs first, then its negated ones
    n_plain = np.bincount(owner[~feats.neg], minlength=feats.n)
    pos_t = "uint16_t" if (pos.max() if pos.size else 0) <= 0xFFFF else "uint32_t"
    o = [f"/* 64 images at once: feature f's inputs as row * {P}_PADDED_WIDTH + col, its {prefix}_plain[f] plain",
         "   inputs first, then the negated ones */",
         f"#define {P}_PADDED_WIDTH {pw}",
         f"static const {pos_t} {prefix}_pos[{len(pos)}] = {{",
         c_table(pos),
         "};",
         f"static const uint8_t {prefix}_plain[{feats.n}] = {{",
         c_table(n_plain, per_line=32),
         "};",
         "",
         f"static void {prefix}_compute64(const uint64_t *in, uint64_t *out)",
         "{",
         f"    uint64_t pad[{P}_PADDED_HEIGHT * {P}_PADDED_WIDTH];",
         "    int r, c, f;",
         f"    for (r = 0; r < {P}_PADDED_HEIGHT * {P}_PADDED_WIDTH; ++r)",
         "        pad[r] = 0;",
         f"    for (r = 0; r < {h}; ++r)",
         f"        for (c = 0; c < {w}; ++c)",
         f"            pad[r * {P}_PADDED_WIDTH + c] = in[r * {w} + c];",
         "    /* feature f: for each shift (dy, dx), the AND of its inputs' words (a negated one inverted); OR-ed over",
         "       the shifts, stopping once every image has it */",
         f"    for (f = 0; f < {feats.n}; ++f) {{",
         f"        const {pos_t} *in_f = {prefix}_pos + {prefix}_first[f];",
         f"        const int k = (int)({prefix}_first[f + 1] - {prefix}_first[f]);",
         f"        const int kp = {prefix}_plain[f];",
         f"        const int a = {prefix}_shift[f];",
         "        uint64_t acc = 0;",
         "        int dy, dx, j;",
         "        for (dy = 0; dy < a && ~acc; ++dy)",
         "            for (dx = 0; dx < a && ~acc; ++dx) {",
         f"                const uint64_t *q = pad + dy * {P}_PADDED_WIDTH + dx;",
         "                uint64_t m = ~(uint64_t)0;",
         "                for (j = 0; j < kp; ++j)  /* no early exit: a loop of fixed length runs faster */",
         "                    m &= q[in_f[j]];",
         "                for (; j < k; ++j)",
         "                    m &= ~q[in_f[j]];",
         "                acc |= m;",
         "            }",
         "        out[f] = acc;",
         "    }",
         "}"]
    return "\n".join(o)


def _c_tables(prefix: str, feats: PixelFeatures, names: list[str], codes: np.ndarray, index_t: str,
              first_t: str) -> list[str]:
    """The padded image's size and the feature tables: each feature's first input, shift length and inputs."""
    P = prefix.upper()
    n, p = feats.n, feats.pad
    ph, nw = feats.height + p, -(-(feats.width + p) // 64)
    o = [f"/* the image as rows of bits: {P}_ROW_WORDS 64-bit words per row, bit c of a row is column c,",
         f"   zero beyond the image; {p} rows of zeros below it (largest shift length - 1) */",
         f"#define {P}_PADDED_HEIGHT {ph}",
         f"#define {P}_ROW_WORDS {nw}"]
    if n:
        o += [f"/* feature f: inputs {prefix}_first[f] .. {prefix}_first[f + 1] - 1 of {prefix}_input, shift length "
              f"{prefix}_shift[f] */",
              f"static const {first_t} {prefix}_first[{n + 1}] = {{",
              c_table(feats.first),
              "};",
              f"static const uint8_t {prefix}_shift[{n}] = {{",
              c_table(feats.shift, per_line=32),
              "};",
              f"/* input (row, col, negated): (row * {P}_ROW_WORDS + col / 64) << 7 | (col % 64) << 1 | negated; "
              "one line per feature */",
              f"static const {index_t} {prefix}_input[{len(codes)}] = {{"]
        for f in range(n):
            a, b = int(feats.first[f]), int(feats.first[f + 1])
            name = "".join(ch if 32 <= ord(ch) < 127 else "?" for ch in names[f]).replace("*/", "* /")
            o.append(f"    {', '.join(str(int(c)) for c in codes[a:b])}, /* {f}: {name} */")
        o += ["};"]
    return o


def _c_compute_body(prefix: str, feats: PixelFeatures, index_t: str) -> list[str]:
    """The body of ``PREFIX_compute``: the image into rows of bits, then each feature from its inputs' windows."""
    P = prefix.upper()
    h, w, n = feats.height, feats.width, feats.n
    if n:
        return [f"    uint64_t bits[{P}_PADDED_HEIGHT * {P}_ROW_WORDS + 1];",
                "    int r, c, f;",
                f"    for (r = 0; r < {P}_PADDED_HEIGHT * {P}_ROW_WORDS + 1; ++r)",
                "        bits[r] = 0;",
                f"    for (r = 0; r < {h}; ++r)",
                f"        for (c = 0; c < {w}; ++c)",
                f"            if (image[r * {w} + c])",
                f"                bits[r * {P}_ROW_WORDS + (c >> 6)] |= (uint64_t)1 << (c & 63);",
                "    /* feature f: the a x a window of each input (a bits from col of rows row .. row + a - 1, inverted",
                "       when negated), ANDed over its inputs; 1 when some bit (some shift) is left */",
                f"    for (f = 0; f < {n}; ++f) {{",
                f"        const {index_t} *in = {prefix}_input + {prefix}_first[f];",
                f"        const int k = (int)({prefix}_first[f + 1] - {prefix}_first[f]);",
                f"        const int a = {prefix}_shift[f];",
                "        int j;",
                "        uint8_t v;",
                "        if (a == 1) {",
                "            uint64_t m = 1;",
                "            for (j = 0; j < k; ++j) {",
                "                const uint32_t e = in[j];",
                "                const uint64_t *q = bits + (e >> 7);",
                "                const unsigned o = (e >> 1) & 63u;",
                "                m &= ((q[0] >> o) | ((q[1] << 1) << (63u - o))) ^ ((uint64_t)0 - (e & 1u));",
                "            }",
                "            v = (uint8_t)(m & 1u);",
                "        } else {",
                "            const uint64_t dx_mask = ((uint64_t)1 << a) - 1;",
                "            uint64_t m = a == 8 ? ~(uint64_t)0 : ((uint64_t)1 << (a * a)) - 1;",
                "            for (j = 0; j < k && m; ++j) {",
                "                const uint32_t e = in[j];",
                "                const uint64_t *q = bits + (e >> 7);",
                "                const unsigned o = (e >> 1) & 63u;",
                "                uint64_t window = 0;",
                "                int dy;",
                f"                for (dy = 0; dy < a; ++dy, q += {P}_ROW_WORDS)",
                "                    window |= (((q[0] >> o) | ((q[1] << 1) << (63u - o))) & dx_mask) << (dy * a);",
                "                m &= window ^ ((uint64_t)0 - (e & 1u));",
                "            }",
                "            v = (uint8_t)(m != 0);",
                "        }",
                "        out[f] = v;",
                "    }"]
    return ["    (void)image;", "    (void)out;"]


_NUMPY_BODY = '''

def _P_plan():
    """For each shift (dy, dx): the features whose shift length exceeds max(dy, dx), the positions of their
    inputs moved by (dy, dx) in the zero-padded image, the inputs' negation masks, and where each feature's inputs
    start."""
    pw = _P_WIDTH + _P_PAD
    pos = _P_ROW * pw + _P_COL
    plan = []
    a_max = int(_P_SHIFT.max()) if _P_SHIFT.size else 1
    for dy in range(a_max):
        for dx in range(a_max):
            sel = np.flatnonzero(_P_SHIFT > max(dy, dx))
            if sel.size == 0:
                continue
            k = _P_FIRST[sel + 1] - _P_FIRST[sel]
            starts = np.concatenate([[0], np.cumsum(k)[:-1]]).astype(np.intp)
            idx = np.repeat(_P_FIRST[sel] - starts, k) + np.arange(int(k.sum()))
            flip = np.where(_P_NEG[idx], np.uint64(0xFFFFFFFFFFFFFFFF), np.uint64(0))[:, None]
            plan.append((sel, pos[idx] + dy * pw + dx, flip, starts))
    return plan


_P_PLANS = _P_plan()
_P_CHUNK = 8192  # images per pass: 128 words of 64 images


def P_compute(x):
    """The features of flat 0/1 images ``(n, HEIGHT * WIDTH)``: ``(n, n_features)`` uint8.

    Each padded pixel holds its value on 64 images per uint64 word; a feature is, for each shift, the AND of its
    inputs' words (a negated input XOR-ed with all ones), OR-ed over the shifts."""
    x = x.reshape(x.shape[0], _P_HEIGHT, _P_WIDTH) != 0
    n = x.shape[0]
    nf = _P_SHIFT.shape[0]
    out = np.zeros((n, nf), dtype=np.uint8)
    for lo in range(0, n, _P_CHUNK):
        xs = x[lo:lo + _P_CHUNK]
        m = xs.shape[0]
        words = -(-m // 64)
        pad = np.zeros((words * 64, _P_HEIGHT + _P_PAD, _P_WIDTH + _P_PAD), dtype=bool)
        pad[:m, :_P_HEIGHT, :_P_WIDTH] = xs
        # (pixels, words): bit i of word w of pixel q is pixel q of image 64 w + i
        planes = np.packbits(pad.reshape(words * 64, -1), axis=0, bitorder="little")
        planes = np.ascontiguousarray(planes.T).view(np.uint64)
        acc = np.zeros((nf, words), dtype=np.uint64)
        for sel, pos, flip, starts in _P_PLANS:
            acc[sel] |= np.bitwise_and.reduceat(planes[pos] ^ flip, starts, axis=0)
        bits = np.unpackbits(acc.view(np.uint8), axis=1, bitorder="little")[:, :m]
        out[lo:lo + m] = bits.T
    return out
'''


def pixel_numpy(family: Any, batch: Any, prefix: str) -> FamilyExport:
    """``FeatureFamily.export_numpy`` of the pixel families."""
    feats = pixel_features(family, batch)
    P = f"_{prefix}"
    o = [f"{P}_HEIGHT = {feats.height}",
         f"{P}_WIDTH = {feats.width}",
         f"{P}_PAD = {feats.pad}  # zero rows and columns below and right of the image (largest shift length - 1)",
         "# feature f: inputs FIRST[f] .. FIRST[f + 1] - 1, shift length SHIFT[f]",
         f"{P}_SHIFT = np.array([{py_list(feats.shift.tolist(), 32)}], dtype=np.intp)",
         f"{P}_FIRST = np.array([{py_list(feats.first.tolist())}], dtype=np.intp)",
         "# input: pixel (ROW, COL), negated when NEG",
         f"{P}_ROW = np.array([{py_list(feats.rows.tolist())}], dtype=np.intp)",
         f"{P}_COL = np.array([{py_list(feats.cols.tolist())}], dtype=np.intp)",
         f"{P}_NEG = np.array([{py_list([int(v) for v in feats.neg], 32)}], dtype=bool)"]
    body = _NUMPY_BODY.replace("_P_", f"{P}_").replace("def P_compute", f"def {prefix}_compute")
    h, w = feats.height, feats.width
    return FamilyExport(code="\n".join(o) + "\n" + body, n_inputs=h * w, input_type="binary", value_type="binary",
                        input_shape=(h, w), about=f"one binary image of {h} x {w} pixels, row-major. " + ABOUT)
