"""Export a search result as a dependency-free C99 file or a pure-NumPy module.

The chosen features of the pixel families (``pixel-and``, ``pixel-and-local``,
``pixels``) are ANDs of (negated) pixels, OR-ed over shifts; a linear
classifier on them is one sum of weights per class.  :func:`to_c` writes them
as a C99 file with no dependency beyond ``<stdint.h>`` and ``<float.h>`` and no
dynamic allocation; :func:`to_numpy` as a Python module that needs NumPy only
(neither metafx nor numba).  Both compute, from binary images:

* the features, bit for bit those of :meth:`SearchResult.transform
  <metafx.SearchResult.transform>`;
* with a linear classifier (``result.classifier`` when the result carries one,
  or the ``classifier`` argument), its decision and predicted class.

The decision of class row ``c`` is ``sum of coef[c, j] over the features j
that are 1, added in increasing j starting from 0.0, then + intercept[c]``, in
IEEE-754 double: the operations of SciPy's sparse product and of metafx's
``FeatureClassifier.decision_function``, so the decisions are bit-identical to
Python's and so are the predictions, ties included (two classes: ``classes[1]``
when the decision is > 0, else ``classes[0]``; more classes, one row each: the
first largest decision wins, as ``numpy.argmax``).  Single precision (float)
is not used: its 24-bit significand moves decisions by up to ~1e-7 of the
weights' size and changes predictions near ties.  (A dense BLAS product, as in
``LinearSVC.predict`` on a dense array, may add in another order; its decision
can then differ in the last bits, which changes a prediction only when the
decision is within that rounding of a tie.)

Examples
--------
>>> import metafx
>>> from metafx.export import to_c, to_numpy
>>> X, y = metafx.load_dataset("digits")
>>> res = metafx.search(X[:300], y[:300], budget=20, steps=2, seed=0, progress=False)
>>> "void metafx_model_features(const uint8_t *image, uint8_t *out)" in to_c(res)
True
>>> "import numpy as np" in to_numpy(res)
True
"""

from __future__ import annotations

import json
import keyword
import math
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from .core import __version__
from .core.exceptions import ValidationError
from .loop.files import atomic_write_text

__all__ = ["SUPPORTED_FAMILIES", "FORMATS", "to_c", "to_numpy", "write"]

#: families whose features can be exported (ANDs of (negated) pixels, OR-ed over shifts)
SUPPORTED_FAMILIES = ("pixel-and", "pixel-and-local", "pixels")
#: export formats, and the file suffix each is recognised by in :func:`write`
FORMATS = {"c": ".c", "numpy": ".py"}

_C_KEYWORDS = frozenset("""auto break case char const continue default do double else enum extern float for goto if
inline int long register restrict return short signed sizeof static struct switch typedef union unsigned void volatile
while _Bool _Complex _Imaginary""".split())


# ---------------------------------------------------------------------------------------------- model
@dataclass
class _Features:
    height: int
    width: int
    first: np.ndarray  # (n + 1,) inputs of feature f are first[f] .. first[f + 1] - 1
    rows: np.ndarray  # (n_inputs,)
    cols: np.ndarray
    neg: np.ndarray  # bool
    shift: np.ndarray  # (n,) shift length a >= 1
    names: list[str]

    @property
    def n(self) -> int:
        return int(self.shift.shape[0])

    @property
    def pad(self) -> int:
        """Rows and columns of zeros below and right of the image that the shifts reach."""
        return int(self.shift.max()) - 1 if self.n else 0


@dataclass
class _Linear:
    classes: list[Any]
    coef: np.ndarray  # (rows, n) float64
    intercept: np.ndarray  # (rows,) float64

    @property
    def rows(self) -> int:
        return int(self.coef.shape[0])


def _features(result: Any) -> _Features:
    family = getattr(result, "family", None)
    if family not in SUPPORTED_FAMILIES:
        raise ValidationError(
            f"family {family!r} cannot be exported: export supports the pixel families "
            f"{', '.join(SUPPORTED_FAMILIES)} (features that are ANDs and ORs of the pixels of a binary image)")
    fam, batch = result.feature_batch()
    if fam.image_shape is None:
        raise ValidationError(f"the result's family_params={result.family_params!r} hold no image_shape; "
                              "export needs the image size (H, W)")
    h, w = (int(v) for v in fam.image_shape)
    n = len(batch)
    if family == "pixels":
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
    if n and not 1 <= shift.min() <= shift.max() <= 8:  # the C file holds an a x a window in 64 bits
        raise ValidationError(f"shift lengths {shift.min()}..{shift.max()}: export supports 1 to 8")
    first = np.concatenate([[0], np.cumsum(k)]).astype(np.int64)
    return _Features(h, w, first, rows, cols, neg, shift, list(fam.feature_names(batch)) if n else [])


def _linear(result: Any, classifier: Any, n_features: int) -> _Linear | None:
    """The classifier to export: ``classifier`` (a dict or a fitted estimator), else ``result.classifier``."""
    if classifier is False:
        return None
    what = "classifier"
    if classifier is None:
        classifier = getattr(result, "classifier", None)
        what = "result.classifier"
        if classifier is None:
            return None
    if isinstance(classifier, Mapping):
        missing = [k for k in ("classes", "coef") if k not in classifier]
        if missing:
            raise ValidationError(f"{what} lacks {missing}: it must be a dict with 'classes', 'coef' and "
                                  "'intercept' (or a fitted linear classifier with classes_, coef_, intercept_)")
        classes, coef, intercept = classifier["classes"], classifier["coef"], classifier.get("intercept", 0.0)
    elif hasattr(classifier, "coef_") and hasattr(classifier, "classes_"):
        classes, coef, intercept = classifier.classes_, classifier.coef_, getattr(classifier, "intercept_", 0.0)
    else:
        raise ValidationError(f"{what}={classifier!r} must be a dict {{'classes', 'coef', 'intercept'}} or a fitted "
                              "linear classifier (classes_, coef_, intercept_), or None / False for none")
    labels = np.asarray(classes).tolist() if isinstance(classes, np.ndarray) else classes
    if not isinstance(labels, (list, tuple)) or not labels:
        raise ValidationError(f"{what} classes={classes!r} must be a non-empty list of labels")
    labels = [v.item() if isinstance(v, np.generic) else v for v in labels]
    kinds = {_label_kind(v) for v in labels}
    if kinds == {"int", "float"}:
        labels, kinds = [float(v) for v in labels], {"float"}
    if None in kinds or len(kinds) > 1:
        raise ValidationError(f"{what} classes={labels!r} must all be integers, all numbers or all strings")
    if len(set(labels)) != len(labels):
        raise ValidationError(f"{what} classes={labels!r} has repeated labels")
    try:
        W = np.array(coef, dtype=np.float64)
        b = np.array(intercept, dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise ValidationError(f"{what} coef and intercept must be numbers: {e}") from None
    if W.ndim == 1:
        W = W[None, :]
    rows = 1 if len(labels) <= 2 else len(labels)
    if W.ndim != 2 or W.shape != (rows, n_features):
        raise ValidationError(
            f"{what} coef has shape {W.shape}; for {len(labels)} classes and the result's {n_features} features "
            f"it must be ({rows}, {n_features}) (one row for one or two classes, one per class for more)")
    b = np.broadcast_to(b, (rows,)).copy() if b.ndim == 0 or b.shape == (1,) else b
    if b.shape != (rows,):
        raise ValidationError(f"{what} intercept has shape {b.shape}; it must hold {rows} number(s)")
    if not (np.isfinite(W).all() and np.isfinite(b).all()):
        raise ValidationError(f"{what} coef and intercept must be finite numbers")
    return _Linear(list(labels), np.ascontiguousarray(W), b)


def _label_kind(v: Any) -> str | None:
    if isinstance(v, (bool, int)):
        return "int"
    if isinstance(v, float):
        return "float" if math.isfinite(v) else None
    if isinstance(v, str):
        return "str"
    return None


def _check_name(name: Any) -> str:
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,62}", name) \
            or name in _C_KEYWORDS or keyword.iskeyword(name):
        raise ValidationError(f"name={name!r} must be a C identifier (letters, digits and _, not starting with a "
                              "digit, at most 63 characters, not a keyword), e.g. 'metafx_model'")
    return name


# ---------------------------------------------------------------------------------------------- header text
def _about(result: Any, feats: _Features, lin: _Linear | None, source: str | None) -> list[str]:
    """The lines saying what the generated code computes and from which result."""
    pt = ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in result.best_point.items())
    try:
        checksum = json.loads(result.to_json(indent=None))["checksum"]
    except (TypeError, ValueError, KeyError):  # pragma: no cover - to_json always writes one
        checksum = "?"
    h, w = feats.height, feats.width
    lines = [
        f"The {feats.n} features chosen by a metafx search"
        + (f" and the linear classifier fitted on them ({len(lin.classes)} classes)" if lin else "")
        + f", computed from one binary image of {h} x {w} pixels.",
        "",
        "Result" + (f" {source}" if source else "") + f" (content {checksum}):",
        f"  family {result.family}, engine {result.engine}, evaluator {result.evaluator}, budget {result.budget:g}, "
        f"seed {result.seed}",
        f"  best point {pt or 'none (a portfolio step: the union of earlier sets)'}; "
        f"{getattr(result, 'quality_label', None) or 'quality'} {result.best_quality:.4g} "
        f"at step {result.best_step}; "
        f"{result.n_features} features of total cost {result.total_cost:g}"
        + ("" if result.holdout_error is None else f"; held-out error {100 * result.holdout_error:.2f} %"),
        "",
        "Feature f is 1 when, for some shift (dy, dx) in {0 .. a-1} x {0 .. a-1} (a = its shift length), every",
        "input (row, col, negated) of it has pixel(row + dy, col + dx) != negated, a pixel outside the image",
        "reading 0: the values of SearchResult.transform, bit for bit.",
    ]
    if lin is not None:
        dec = ("one decision, class classes[1] when it is > 0, else classes[0]" if len(lin.classes) == 2 else
               "one decision per class (one-vs-rest), the first largest wins" if len(lin.classes) > 2 else
               "one decision; a single class is always predicted")
        lines += [
            "",
            f"Classifier: classes {lin.classes}; {dec}.",
            "Decision c: the weights in decision c of the features j that are 1, added in increasing j",
            "starting from 0.0, then + its intercept, in IEEE-754 double: the operations of SciPy's sparse product",
            "and of metafx's FeatureClassifier, so decisions and predictions are Python's, bit for bit, ties",
            "included.  (float would not do: its rounding changes predictions near ties.)",
        ]
    return lines


def _comment_safe(text: str) -> str:
    return "".join(ch if 32 <= ord(ch) < 127 else "?" for ch in text).replace("*/", "* /")


# ---------------------------------------------------------------------------------------------- C
def _c_table(values: np.ndarray | list[str], per_line: int = 16, indent: str = "    ") -> str:
    items = [str(v) for v in values]
    return "\n".join(indent + ", ".join(items[i:i + per_line]) + "," for i in range(0, len(items), per_line))


def _c_string(s: str) -> str:
    out = []
    for byte in s.encode("utf-8"):
        ch = chr(byte)
        if ch in '"\\?':
            out.append("\\" + ch)
        elif 32 <= byte < 127:
            out.append(ch)
        else:
            out.append(f"\\{byte:03o}")
    return '"' + "".join(out) + '"'


def to_c(result: Any, classifier: Any = None, name: str = "metafx_model", *, source: str | None = None) -> str:
    """The C99 source computing ``result``'s features (and a linear classifier's decision) from one image.

    Parameters
    ----------
    result : ~metafx.SearchResult
        A result of a family in :data:`SUPPORTED_FAMILIES`; others are refused
        with :class:`~metafx.ValidationError`.
    classifier : dict, fitted estimator, None or False, default None
        The linear classifier on the features: a dict ``{"classes", "coef",
        "intercept"}`` (``coef``: one row of ``result.n_features`` weights for
        one or two classes, positive side ``classes[1]``; one row per class for
        more), or a fitted estimator with ``classes_``, ``coef_``,
        ``intercept_`` (e.g. ``LinearSVC`` fitted on ``result.transform(X)``).
        ``None`` (default): ``result.classifier`` when the result carries one,
        else none.  ``False``: none.
    name : str, default "metafx_model"
        Prefix of every name in the file (a C identifier).
    source : str, optional
        Where the result came from (e.g. its file), quoted in the header comment.

    Returns
    -------
    str
        A C99 file with, for ``name = "m"``::

            void m_features(const uint8_t *image, uint8_t *out);  /* out[m_N_FEATURES], 0/1 */
            void m_decision(const uint8_t *image, double *out);   /* out[m_N_DECISIONS] (with a classifier) */
            int  m_predict(const uint8_t *image);                 /* index into m_classes (with a classifier) */

        ``image`` is ``H * W`` bytes, row-major, 0 or 1 (any nonzero byte counts
        as 1).  No dynamic allocation; the stack holds the image as bits (8
        bytes per 64 pixels of a row, with ``a - 1`` more rows and columns
        for the largest shift length ``a``) and, for the decision, one byte
        per feature.  The decision needs IEEE
        binary64 ``double`` without excess precision (checked at compile time:
        ``FLT_EVAL_METHOD == 0``, ``DBL_MANT_DIG == 53``, no ``-ffast-math``).
    """
    name = _check_name(name)
    feats = _features(result)
    lin = _linear(result, classifier, feats.n)
    N = name.upper()
    h, w, n, p = feats.height, feats.width, feats.n, feats.pad
    ph, pw = h + p, w + p
    nw = -(-pw // 64)  # 64-bit words per row of the padded image
    words = ph * nw + 1  # one more: a read of an input's second word never leaves the array
    codes = ((feats.rows * nw + feats.cols // 64) << 7) | ((feats.cols % 64) << 1) | feats.neg.astype(np.int64)
    index_t = "uint16_t" if (codes.max() if codes.size else 0) <= 0xFFFF else "uint32_t"
    first_t = "uint16_t" if int(feats.first[-1]) <= 0xFFFF else "uint32_t"

    about = [_comment_safe(s) for s in _about(result, feats, lin, source)]
    o: list[str] = ["/* " + f"{name}.c: generated by metafx {__version__} (metafx export --to c); C99, no dependency.",
                    " *"]
    o += [(" * " + s).rstrip() for s in about]
    o += [" *",
          " * API (image: H x W bytes, row-major, 0 or 1; any nonzero byte counts as 1):",
          f" *   void {name}_features(const uint8_t *image, uint8_t *out);   out: {N}_N_FEATURES bytes, 0 or 1"]
    if lin is not None:
        o += [f" *   void {name}_decision(const uint8_t *image, double *out);    out: {N}_N_DECISIONS doubles",
              f" *   int  {name}_predict(const uint8_t *image);                  class index: {name}_classes[i]"]
    o += [f" * No dynamic allocation; stack: {8 * words} bytes (the image as bits)"
          + (f" + {n} (the features) for the decision." if lin is not None else "."),
          f" * Build: cc -std=c99 -O2 -c {name}.c (or #include it in one of your C files); not with -ffast-math.",
          " */",
          "#include <stdint.h>"]
    if lin is not None:
        o += ["#include <float.h>",
              "",
              "/* the decision is Python's bit for bit only in IEEE binary64 without excess precision */",
              "#if DBL_MANT_DIG != 53 || !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0",
              f'#error "{name}: the decision needs IEEE double (DBL_MANT_DIG 53) without excess precision '
              '(FLT_EVAL_METHOD 0; on 32-bit x86 compile with -msse2 -mfpmath=sse)"',
              "#endif",
              "#if defined(__FAST_MATH__)",
              f'#error "{name}: do not compile with -ffast-math: it reorders the additions of the decision"',
              "#endif"]
    o += ["",
          f"#define {N}_HEIGHT {h}",
          f"#define {N}_WIDTH {w}",
          f"#define {N}_N_FEATURES {n}"]
    if lin is not None:
        o += [f"#define {N}_N_CLASSES {len(lin.classes)}",
              f"#define {N}_N_DECISIONS {lin.rows}"]
    o += [f"/* the image as rows of bits: {N}_ROW_WORDS 64-bit words per row, bit c of a row is column c,",
          f"   zero beyond the image; {p} rows of zeros below it (largest shift length - 1) */",
          f"#define {N}_PADDED_HEIGHT {ph}",
          f"#define {N}_ROW_WORDS {nw}",
          "",
          f"void {name}_features(const uint8_t *image, uint8_t *out);"]
    if lin is not None:
        o += [f"void {name}_decision(const uint8_t *image, double *out);",
              f"int {name}_predict(const uint8_t *image);"]
    if n:
        o += ["",
              f"/* feature f: inputs {name}_first[f] .. {name}_first[f + 1] - 1 of {name}_input, shift length "
              f"{name}_shift[f] */",
              f"static const {first_t} {name}_first[{n + 1}] = {{",
              _c_table(feats.first),
              "};",
              f"static const uint8_t {name}_shift[{n}] = {{",
              _c_table(feats.shift, per_line=32),
              "};",
              f"/* input (row, col, negated): (row * {N}_ROW_WORDS + col / 64) << 7 | (col % 64) << 1 | negated; "
              "one line per feature */",
              f"static const {index_t} {name}_input[{len(codes)}] = {{"]
        for f in range(n):
            a, b = int(feats.first[f]), int(feats.first[f + 1])
            o.append(f"    {', '.join(str(int(c)) for c in codes[a:b])}, /* {f}: {_comment_safe(feats.names[f])} */")
        o += ["};"]
    o += ["",
          f"void {name}_features(const uint8_t *image, uint8_t *out)",
          "{"]
    if n:
        o += [f"    uint64_t bits[{N}_PADDED_HEIGHT * {N}_ROW_WORDS + 1];",
              "    int r, c, f;",
              f"    for (r = 0; r < {N}_PADDED_HEIGHT * {N}_ROW_WORDS + 1; ++r)",
              "        bits[r] = 0;",
              f"    for (r = 0; r < {N}_HEIGHT; ++r)",
              f"        for (c = 0; c < {N}_WIDTH; ++c)",
              f"            if (image[r * {N}_WIDTH + c])",
              f"                bits[r * {N}_ROW_WORDS + (c >> 6)] |= (uint64_t)1 << (c & 63);",
              "    /* feature f: the a x a window of each input (a bits from col of rows row .. row + a - 1, inverted",
              "       when negated), ANDed over its inputs; 1 when some bit (some shift) is left */",
              f"    for (f = 0; f < {N}_N_FEATURES; ++f) {{",
              f"        const {index_t} *in = {name}_input + {name}_first[f];",
              f"        const int k = (int)({name}_first[f + 1] - {name}_first[f]);",
              f"        const int a = {name}_shift[f];",
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
              f"                for (dy = 0; dy < a; ++dy, q += {N}_ROW_WORDS)",
              "                    window |= (((q[0] >> o) | ((q[1] << 1) << (63u - o))) & dx_mask) << (dy * a);",
              "                m &= window ^ ((uint64_t)0 - (e & 1u));",
              "            }",
              "            v = (uint8_t)(m != 0);",
              "        }",
              "        out[f] = v;",
              "    }"]
    else:
        o += ["    (void)image;", "    (void)out;"]
    o += ["}"]
    if lin is not None:
        o += _c_classifier(name, N, feats, lin)
    return "\n".join(o) + "\n"


def _c_classifier(name: str, N: str, feats: _Features, lin: _Linear) -> list[str]:
    n = feats.n
    kind = _label_kind(lin.classes[0])
    if kind == "str":
        ctype, labels = "const char *const", [_c_string(s) for s in lin.classes]
    elif kind == "float":
        ctype, labels = "const double", [float(v).hex() for v in lin.classes]
    else:
        if any(not -(2**63) <= int(v) < 2**63 for v in lin.classes):
            raise ValidationError(f"classes={lin.classes!r}: C labels must fit in 64 bits")
        ctype, labels = "const long long", [f"{int(v)}LL" if int(v) != -(2**63) else "(-9223372036854775807LL - 1)"
                                            for v in lin.classes]
    o = ["",
         f"/* class labels: {name}_predict returns an index into this table */",
         f"{ctype} {name}_classes[{N}_N_CLASSES] = {{",
         _c_table(labels, per_line=8),
         "};",
         "/* weights (exact binary64 values, hexadecimal) */"]
    if n:
        o += [f"/* {name}_coef[j][c]: the weight of feature j in decision c */",
              f"static const double {name}_coef[{N}_N_FEATURES][{N}_N_DECISIONS] = {{"]
        for j in range(n):
            o += ["    {" + ", ".join(float(v).hex() for v in lin.coef[:, j]) + "},"]
        o += ["};"]
    o += [f"static const double {name}_intercept[{N}_N_DECISIONS] = {{",
          _c_table([float(v).hex() for v in lin.intercept], per_line=4),
          "};",
          "",
          f"void {name}_decision(const uint8_t *image, double *out)",
          "{"]
    if n:
        o += [f"    uint8_t x[{N}_N_FEATURES];",
              "    int c, j;",
              f"    {name}_features(image, x);",
              f"    for (c = 0; c < {N}_N_DECISIONS; ++c)",
              "        out[c] = 0.0;",
              "    /* each decision adds its weights in increasing j, as Python does */",
              f"    for (j = 0; j < {N}_N_FEATURES; ++j)",
              "        if (x[j])",
              f"            for (c = 0; c < {N}_N_DECISIONS; ++c)",
              f"                out[c] += {name}_coef[j][c];",
              f"    for (c = 0; c < {N}_N_DECISIONS; ++c)",
              f"        out[c] = out[c] + {name}_intercept[c];"]
    else:
        o += ["    int c;",
              "    (void)image;",
              f"    for (c = 0; c < {N}_N_DECISIONS; ++c)",
              f"        out[c] = 0.0 + {name}_intercept[c];"]
    o += ["}",
          "",
          f"int {name}_predict(const uint8_t *image)",
          "{"]
    if len(lin.classes) == 1:
        o += ["    (void)image;", "    return 0;"]
    elif len(lin.classes) == 2:
        o += ["    double d[1];",
              f"    {name}_decision(image, d);",
              "    return d[0] > 0.0 ? 1 : 0;"]
    else:
        o += [f"    double d[{N}_N_DECISIONS];",
              "    int c, best = 0;",
              f"    {name}_decision(image, d);",
              f"    for (c = 1; c < {N}_N_DECISIONS; ++c)",
              "        if (d[c] > d[best])",
              "            best = c;",
              "    return best;"]
    o += ["}"]
    return o


# ---------------------------------------------------------------------------------------------- NumPy
def _py_list(values: Any, per_line: int = 16, indent: str = "    ") -> str:
    items = [repr(v) for v in values]
    if not items:
        return ""
    return "\n" + "\n".join(indent + ", ".join(items[i:i + per_line]) + "," for i in range(0, len(items), per_line)) \
        + "\n"


_NUMPY_BODY = '''

def _images(images):
    """``images`` as an ``(n, HEIGHT, WIDTH)`` bool array (0/1 values checked)."""
    x = np.asarray(images)
    if x.ndim == 2 and x.shape[1] == HEIGHT * WIDTH:
        x = x.reshape(x.shape[0], HEIGHT, WIDTH)
    if x.ndim != 3 or x.shape[1:] != (HEIGHT, WIDTH):
        raise ValueError(f"images must be an array (n, {HEIGHT}, {WIDTH}) or (n, {HEIGHT * WIDTH}) of 0/1, "
                         f"got shape {x.shape}")
    if x.dtype == bool:
        return x
    if x.dtype.kind not in "biuf":
        raise ValueError(f"images must be numeric 0/1 images, got dtype {x.dtype}")
    on = x != 0
    if np.any(on & (x != 1)):
        raise ValueError("images must be binary (0/1); binarize them as the search's images were (e.g. x >= 128)")
    return on


def _plan():
    """For each shift (dy, dx): the features whose shift length exceeds max(dy, dx), the positions of their
    inputs moved by (dy, dx) in the zero-padded image, the inputs' negation masks, and where each feature's inputs
    start."""
    pw = WIDTH + PAD
    pos = ROW * pw + COL
    plan = []
    a_max = int(SHIFT.max()) if SHIFT.size else 1
    for dy in range(a_max):
        for dx in range(a_max):
            sel = np.flatnonzero(SHIFT > max(dy, dx))
            if sel.size == 0:
                continue
            k = FIRST[sel + 1] - FIRST[sel]
            starts = np.concatenate([[0], np.cumsum(k)[:-1]]).astype(np.intp)
            idx = np.repeat(FIRST[sel] - starts, k) + np.arange(int(k.sum()))
            flip = np.where(NEG[idx], np.uint64(0xFFFFFFFFFFFFFFFF), np.uint64(0))[:, None]
            plan.append((sel, pos[idx] + dy * pw + dx, flip, starts))
    return plan


_PLAN = _plan()
_CHUNK = 8192  # images per pass: 128 words of 64 images


def features(images):
    """The features of binary images ``(n, HEIGHT, WIDTH)`` (or ``(n, HEIGHT * WIDTH)``): ``(n, N_FEATURES)`` uint8
    0/1, the values of metafx's ``SearchResult.transform``.

    Each padded pixel holds its value on 64 images per uint64 word; a feature is, for each shift, the AND of its
    inputs' words (a negated input XOR-ed with all ones), OR-ed over the shifts."""
    x = _images(images)
    n = x.shape[0]
    out = np.zeros((n, N_FEATURES), dtype=np.uint8)
    for lo in range(0, n, _CHUNK):
        xs = x[lo:lo + _CHUNK]
        m = xs.shape[0]
        words = -(-m // 64)
        pad = np.zeros((words * 64, HEIGHT + PAD, WIDTH + PAD), dtype=bool)
        pad[:m, :HEIGHT, :WIDTH] = xs
        # (pixels, words): bit i of word w of pixel q is pixel q of image 64 w + i
        planes = np.packbits(pad.reshape(words * 64, -1), axis=0, bitorder="little")
        planes = np.ascontiguousarray(planes.T).view(np.uint64)
        acc = np.zeros((N_FEATURES, words), dtype=np.uint64)
        for sel, pos, flip, starts in _PLAN:
            acc[sel] |= np.bitwise_and.reduceat(planes[pos] ^ flip, starts, axis=0)
        bits = np.unpackbits(acc.view(np.uint8), axis=1, bitorder="little")[:, :m]
        out[lo:lo + m] = bits.T
    return out
'''

_NUMPY_CLASSIFIER = '''

def decision_function(images):
    """The classifier's decision: ``(n,)`` for one or two classes, ``(n, N_CLASSES)`` for more.

    Row c: the weights ``COEF[c, j]`` of the features j that are 1, added in increasing j from 0.0, then
    ``+ INTERCEPT[c]`` (float64): bit for bit the decision of metafx's ``FeatureClassifier`` and of SciPy's sparse
    product ``csr_matrix(features) @ COEF.T + INTERCEPT``."""
    x = features(images)
    n = x.shape[0]
    i, j = np.nonzero(x)  # in row-major order: by image, then increasing feature
    count = np.bincount(i, minlength=n)
    # idx[i, t]: the t-th feature that is 1 on image i; N_FEATURES (a row of zero weights) after the last
    idx = np.full((n, int(count.max()) if n else 0), N_FEATURES, dtype=np.intp)
    idx[i, np.arange(i.size) - np.repeat(np.cumsum(count) - count, count)] = j
    w = np.concatenate([COEF.T, np.zeros((1, COEF.shape[0]))])
    acc = np.zeros((n, COEF.shape[0]), dtype=np.float64)
    for t in range(idx.shape[1]):
        acc += w[idx[:, t]]  # adding +0.0 after the last changes nothing: a sum from +0.0 is never -0.0
    d = acc + INTERCEPT
    return d[:, 0] if COEF.shape[0] == 1 else d


def predict(images):
    """The class of every image: for two classes ``CLASSES[1]`` where the decision is > 0, else ``CLASSES[0]``;
    for more, the class of the first largest decision."""
    d = decision_function(images)
    if len(CLASSES) == 1:
        return CLASSES[np.zeros(d.shape[0], dtype=np.intp)]
    if d.ndim == 1:
        return CLASSES[(d > 0).astype(np.intp)]
    return CLASSES[d.argmax(axis=1)]
'''


def to_numpy(result: Any, classifier: Any = None, name: str = "metafx_model", *, source: str | None = None) -> str:
    """The source of a Python module (NumPy only) computing ``result``'s features and classifier.

    Parameters are those of :func:`to_c`.  The module defines ``features(images)``
    (``(n, N_FEATURES)`` uint8, as ``result.transform``) and, with a classifier,
    ``decision_function(images)`` and ``predict(images)``, plus the tables
    ``SHIFT``, ``FIRST``, ``ROW``, ``COL``, ``NEG``, ``FEATURE_NAMES``, ``CLASSES``,
    ``COEF``, ``INTERCEPT``.  ``images`` are ``(n, H, W)`` or ``(n, H * W)``
    arrays of 0/1 (other values raise ``ValueError``).
    """
    name = _check_name(name)
    feats = _features(result)
    lin = _linear(result, classifier, feats.n)
    about = "\n".join(_about(result, feats, lin, source))
    doc = (f"{name}: generated by metafx {__version__} (metafx export --to numpy); needs NumPy only.\n\n{about}\n\n"
           "features(images) -> (n, N_FEATURES) uint8"
           + ("; decision_function(images); predict(images)" if lin is not None else "")
           + ".\nimages: (n, HEIGHT, WIDTH) or (n, HEIGHT * WIDTH), values 0/1.\n")
    doc = doc.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    o = [f'"""{doc}"""',
         "",
         "import numpy as np",
         "",
         f"__all__ = {['features'] + (['decision_function', 'predict'] if lin is not None else [])!r}",
         "",
         f"HEIGHT = {feats.height}",
         f"WIDTH = {feats.width}",
         f"N_FEATURES = {feats.n}",
         f"PAD = {feats.pad}  # zero rows and columns below and right of the image (largest shift length - 1)",
         "# feature f: inputs FIRST[f] .. FIRST[f + 1] - 1, shift length SHIFT[f]",
         f"SHIFT = np.array([{_py_list(feats.shift.tolist(), 32)}], dtype=np.intp)",
         f"FIRST = np.array([{_py_list(feats.first.tolist())}], dtype=np.intp)",
         "# input: pixel (ROW, COL), negated when NEG",
         f"ROW = np.array([{_py_list(feats.rows.tolist())}], dtype=np.intp)",
         f"COL = np.array([{_py_list(feats.cols.tolist())}], dtype=np.intp)",
         f"NEG = np.array([{_py_list([int(v) for v in feats.neg], 32)}], dtype=bool)",
         f"FEATURE_NAMES = [{_py_list(feats.names, 1)}]"]
    if lin is not None:
        coef_rows = "".join(f"    [{_py_list(lin.coef[c].tolist(), 4, '        ')}    ],\n" for c in range(lin.rows))
        o += [f"CLASSES = np.array([{_py_list(lin.classes, 8)}])",
              "# weights: one row for one or two classes (positive side CLASSES[1]), one per class for more",
              f"COEF = np.array([\n{coef_rows}], dtype=np.float64).reshape({lin.rows}, {feats.n})",
              f"INTERCEPT = np.array([{_py_list(lin.intercept.tolist(), 4)}], dtype=np.float64)",
              f"N_CLASSES = {len(lin.classes)}"]
    text = "\n".join(o) + "\n" + _NUMPY_BODY + (_NUMPY_CLASSIFIER if lin is not None else "")
    return text


# ---------------------------------------------------------------------------------------------- files
def write(result: Any, path: str | os.PathLike[str], to: str | None = None, classifier: Any = None,
          name: str = "metafx_model", *, source: str | None = None) -> Path:
    """Write :func:`to_c` (``to="c"``) or :func:`to_numpy` (``to="numpy"``) to ``path``; returns the path.

    ``to`` defaults to the suffix of ``path`` (``.c``: C, ``.py``: NumPy).  The
    file is replaced atomically (written beside it, then renamed).
    """
    if not isinstance(path, (str, os.PathLike)) or os.fspath(path) == "":
        raise ValidationError(f"path={path!r} must be a file path")
    p = Path(os.fspath(path))
    if to is None:
        by_suffix = {s: f for f, s in FORMATS.items()}
        to = by_suffix.get(p.suffix.lower())
        if to is None:
            raise ValidationError(f"cannot tell the format of {str(p)!r} from its suffix: give to='c' or "
                                  "to='numpy' (or a path ending in .c or .py)")
    if to not in FORMATS:
        raise ValidationError(f"to={to!r} is not an export format; allowed: {', '.join(FORMATS)}")
    text = (to_c if to == "c" else to_numpy)(result, classifier=classifier, name=name, source=source)
    if p.is_dir():
        raise ValidationError(f"path={str(p)!r} is a directory; give a file path such as "
                              f"{str(p / (name + FORMATS[to]))!r}")
    parent = p.resolve().parent
    if not parent.is_dir():
        raise ValidationError(f"path={str(p)!r}: directory {str(parent)!r} does not exist")
    atomic_write_text(p, text)
    return p
