"""Export a search result as a dependency-free C99 file or a pure-NumPy module.

The file holds the result's features and, with one, its linear classifier.  The features' code comes from the
family (:meth:`FeatureFamily.export_c <metafx.plugin.FeatureFamily.export_c>` and ``export_numpy``, returning a
:class:`~metafx.plugin.FamilyExport`): the pixel families (``pixel-and``, ``pixel-and-local``, ``pixels``) write
their ANDs of (negated) pixels OR-ed over shifts, the ``tabular`` plugin its numeric operators, and a plugin family
whatever it implements (``docs/plugins.md``, "Export").  :func:`to_c` writes a C99 file with no dependency beyond
the standard headers and no dynamic allocation; :func:`to_numpy` a Python module that needs NumPy only (neither
metafx nor numba).  Both take images as the result's rule (``SearchResult.input_rule``, see
``metafx.core.binarization``) does: 0/1 images as they are, grey images binarized at the threshold the search
used (or refused when their values do not fit it, or when the result keeps no threshold); and compute, from one
sample (an image, a table's row):

* the features, bit for bit those of the family's ``compute`` (for the image families, :meth:`SearchResult.transform
  <metafx.SearchResult.transform>`);
* with a linear classifier (``result.classifier`` when the result carries one,
  or the ``classifier`` argument), its decision and predicted class.

The decision of class row ``c`` is ``coef[c, j] * feature j`` added in increasing j starting from 0.0 (for 0/1
features: the weights of the features that are 1), then ``+ intercept[c]``, in IEEE-754 double: the operations of
metafx's ``FeatureClassifier.decision_function``, so the decisions are bit-identical to Python's and so are the
predictions, ties included (two classes: ``classes[1]`` when the decision is > 0, else ``classes[0]``; more
classes, one row each: the first largest decision wins, as ``numpy.argmax``).  Single precision (float) is not
used: its 24-bit significand moves decisions by up to ~1e-7 of the weights' size and changes predictions near ties.
(A dense BLAS product, as in ``LinearSVC.predict`` on a dense array, may add in another order; its decision can
then differ in the last bits, which changes a prediction only when the decision is within that rounding of a tie.)

Examples
--------
>>> import metafx
>>> from metafx.export import to_c, to_numpy
>>> X, y = metafx.load_dataset("digits")
>>> res = metafx.search(X[:300], y[:300], budget=20, steps=2, seed=0, progress=False)
>>> "int metafx_model_features(const uint8_t *image, uint8_t *out)" in to_c(res)
True
>>> "import numpy as np" in to_numpy(res)
True
"""

from __future__ import annotations

import inspect
import json
import keyword
import math
import os
import re
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..core import __version__
from ..core.base import FamilyExport, FeatureFamily
from ..core.binarization import BINARY, InputRule, binarize_input
from ..core.codegen import c_table, py_list
from ..core.exceptions import ValidationError
from ..core.files import atomic_write_text
from .many import bit_sliced, c_many, c_many_api

__all__ = ["FORMATS", "to_c", "to_numpy", "write"]

#: export formats, and the file suffix each is recognised by in :func:`write`
FORMATS = {"c": ".c", "numpy": ".py"}

_C_KEYWORDS = frozenset("""auto break case char const continue default do double else enum extern float for goto if
inline int long register restrict return short signed sizeof static struct switch typedef union unsigned void volatile
while _Bool _Complex _Imaginary""".split())


# ---------------------------------------------------------------------------------------------- model
@dataclass
class _Linear:
    classes: list[Any]
    coef: np.ndarray  # (rows, n) float64
    intercept: np.ndarray  # (rows,) float64

    @property
    def rows(self) -> int:
        return int(self.coef.shape[0])


@dataclass
class _Part:
    """What the result's family says of its features (its :class:`~metafx.plugin.FamilyExport`) and their
    names."""

    fx: FamilyExport
    n: int
    names: list[str]

    @property
    def in_c(self) -> str:
        return "uint8_t" if self.fx.input_type == "binary" else "double"

    @property
    def out_c(self) -> str:
        return "uint8_t" if self.fx.value_type == "binary" else "double"

    @property
    def arg(self) -> str:
        return "image" if len(self.fx.input_shape) == 2 else "x"


def _family_part(result: Any, to: str, name: str) -> _Part:
    """The family's code for the result's features (``to``: ``"c"`` or ``"numpy"``), or a clear error."""
    attr = "export_c" if to == "c" else "export_numpy"
    try:
        if getattr(type(result.get_family()), attr, None) in (None, getattr(FeatureFamily, attr)):
            raise NotImplementedError  # before the batch is built: a family that cannot export need not be fitted
        fam, batch = result.feature_batch()
        fx = getattr(fam, attr)(batch, name)
    except NotImplementedError:
        raise ValidationError(
            f"family {result.family!r} cannot be exported: it has no export_{to}(batch, prefix) method (a family "
            "that can say how its features compute implements export_c and export_numpy; docs/plugins.md, "
            "\"Export\")") from None
    if not isinstance(fx, FamilyExport):
        raise ValidationError(f"family {result.family!r}: export_{to} returned {type(fx).__name__}, not a "
                              "metafx.plugin.FamilyExport")
    n = len(batch)
    return _Part(fx, n, [str(v) for v in fam.feature_names(batch)] if n else [])


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
def _about(result: Any, part: _Part, lin: _Linear | None, source: str | None) -> list[str]:
    """The lines saying what the generated code computes and from which result."""
    pt = ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in result.best_point.items())
    try:
        checksum = json.loads(result.to_json(indent=None))["checksum"]
    except (TypeError, ValueError, KeyError):  # pragma: no cover - to_json always writes one
        checksum = "?"
    kind = "0/1" if part.fx.value_type == "binary" else "real-valued"
    lines = [
        f"The {part.n} {kind} features chosen by a metafx search"
        + (f" and the linear classifier fitted on them ({len(lin.classes)} classes)" if lin else "")
        + f", computed from {part.fx.about or f'{part.fx.n_inputs} input values'}",
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
        "The features are the values of SearchResult.transform, bit for bit.",
    ]
    if part.fx.input_type == "binary":
        lines += ["", f"Input: {_rule(result).describe()}; other images are refused, as Python refuses them."]
    if lin is not None:
        dec = ("one decision, class classes[1] when it is > 0, else classes[0]" if len(lin.classes) == 2 else
               "one decision per class (one-vs-rest), the first largest wins" if len(lin.classes) > 2 else
               "one decision; a single class is always predicted")
        term = "the weights in decision c of the features j that are 1" if part.fx.value_type == "binary" else \
            "weight(c, j) * feature j"
        lines += [
            "",
            f"Classifier: classes {lin.classes}; {dec}.",
            f"Decision c: {term}, added in increasing j",
            "starting from 0.0, then + its intercept, in IEEE-754 double: the operations of metafx's",
            "FeatureClassifier, so decisions and predictions are Python's, bit for bit, ties",
            "included.  (float would not do: its rounding changes predictions near ties.)",
        ]
    return [textwrap.fill(line, 110) if len(line) > 110 else line for line in lines]


def _rule(result: Any) -> InputRule:
    """How the result's images are binarized (``SearchResult.input_rule``; 0/1 images for an object without)."""
    rule = getattr(result, "input_rule", None)
    return rule if isinstance(rule, InputRule) else BINARY


def _byte_bounds(rule: InputRule) -> tuple[int, int, int]:
    """The rule on bytes: ``(threshold, low, high)`` with ``b >= threshold``, ``b >= low`` and ``b <= high`` for a
    byte ``b`` exactly when the rule's real-valued comparisons hold (a threshold above 255: no byte reaches it)."""
    assert rule.threshold is not None
    return (min(max(math.ceil(rule.threshold), 0), 256), min(max(math.ceil(rule.low), 0), 256),
            min(max(math.floor(rule.high), -1), 255))


def _c_input_rule(name: str, N: str, rule: InputRule) -> list[str]:
    """The defines and the C function that apply the result's rule to one image of bytes
    (:func:`metafx.core.binarization.binarize_input` on one image): the byte threshold for it (1 for an image of
    0/1 bytes, taken as it is; ``N_THRESHOLD`` for grey levels), or -1 where Python refuses the image."""
    o = [f"/* new images (the result's rule: {_comment_safe(rule.describe())}) */"]
    if rule.threshold is None:
        o += ["/* no threshold: the result was searched on 0/1 images; other images are refused (-1) */"]
    else:
        t, low, high = _byte_bounds(rule)
        o += [f"/* grey images: a pixel is 1 where its byte >= {N}_THRESHOLD (the search's threshold "
              f"{rule.threshold:g}); their bytes",
              f"   must lie in {N}_LOW .. {N}_HIGH (the range of its training images, [{rule.low:g}, {rule.high:g}]) */",
              f"#define {N}_THRESHOLD {t}",
              f"#define {N}_LOW {low}",
              f"#define {N}_HIGH {high}"]
    o += ["",
          f"/* the byte threshold of one image (a pixel is 1 where its byte >= it): 1 for 0/1 bytes, "
          f"{N}_THRESHOLD",
          "   for grey levels; -1 where Python refuses the image */",
          f"static int {name}_binarizer(const uint8_t *image)",
          "{",
          "    int i, grey = 0;  /* loops without an early exit, which compilers vectorize */",
          f"    for (i = 0; i < {N}_N_INPUTS; ++i)",
          "        grey |= image[i] > 1;",
          "    if (!grey)",
          "        return 1;"]
    if rule.threshold is None:
        return [*o, "    return -1;", "}"]
    _, low, high = _byte_bounds(rule)
    tests = ([f"image[i] < {N}_LOW"] if low > 0 else []) + ([f"image[i] > {N}_HIGH"] if high < 255 else [])
    if tests:
        o += ["    {",
              "        int out = 0;",
              f"        for (i = 0; i < {N}_N_INPUTS; ++i)",
              f"            out |= {' | '.join('(' + t + ')' for t in tests)};",
              "        if (out)",
              "            return -1;",
              "    }"]
    return [*o, f"    return {N}_THRESHOLD;", "}"]


def _comment_safe(text: str) -> str:
    return "".join(ch if 32 <= ord(ch) < 127 else "?" for ch in text).replace("*/", "* /")


# ---------------------------------------------------------------------------------------------- C


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
    """The C99 source computing ``result``'s features (and a linear classifier's decision) from one sample.

    Parameters
    ----------
    result : ~metafx.SearchResult
        A result of a family that can export its features (the pixel families, and any family with
        ``export_c`` / ``export_numpy``: :doc:`/plugins`, "Export"); others are refused with
        :class:`~metafx.ValidationError`.
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
        A C99 file with, for ``name = "m"`` and an image family::

            int m_features(const uint8_t *image, uint8_t *out);  /* out[m_N_FEATURES], 0/1 */
            int m_decision(const uint8_t *image, double *out);   /* out[m_N_DECISIONS] (with a classifier) */
            int m_predict(const uint8_t *image);                 /* index into m_classes (with a classifier) */

        ``image`` is ``H * W`` bytes, row-major: 0/1 (taken as it is), or grey
        levels binarized by the result's rule (``SearchResult.input_rule``: a
        pixel is 1 where its byte ``>= m_THRESHOLD``).  An image Python refuses
        (grey levels for a result searched on 0/1 images, bytes outside the
        range of the training images) is refused: each function returns -1 and
        writes nothing (else 0, or the class index).  A family of real-valued input (a table) takes ``const double *x`` (one row's
        ``m_N_INPUTS`` values); real-valued features are ``double``.  No dynamic allocation.
        The decision needs IEEE binary64 ``double`` without excess precision (checked at compile time:
        ``FLT_EVAL_METHOD == 0``, ``DBL_MANT_DIG == 53``, no ``-ffast-math``).
    """
    name = _check_name(name)
    part = _family_part(result, "c", name)
    lin = _linear(result, classifier, part.n)
    N = name.upper()
    o = _c_header(result, part, lin, name, source)
    o += ["", "/* ---- the family's features */", part.fx.code.rstrip("\n"), ""]
    if bit_sliced(part):
        o += [part.fx.code_many.rstrip("\n"), ""]
    if part.fx.input_type == "binary":  # images: by the result's rule, refused (-1) where Python refuses them
        o += _c_input_rule(name, N, _rule(result))
        o += ["",
              f"int {name}_features(const uint8_t *{part.arg}, {part.out_c} *out)",
              "{",
              f"    uint8_t b[{N}_N_INPUTS + 1];",
              "    int i;",
              f"    const int t = {name}_binarizer({part.arg});",
              "    if (t < 0)",
              "        return -1;",
              "    if (t == 1) {  /* 0/1 bytes: as they are */",
              f"        {name}_compute({part.arg}, out);",
              "        return 0;",
              "    }",
              f"    for (i = 0; i < {N}_N_INPUTS; ++i)",
              f"        b[i] = (uint8_t)({part.arg}[i] >= t);",
              f"    {name}_compute(b, out);",
              "    return 0;",
              "}"]
    else:
        o += [f"int {name}_features(const {part.in_c} *{part.arg}, {part.out_c} *out)",
              "{",
              f"    {name}_compute({part.arg}, out);",
              "    return 0;",
              "}"]
    if lin is not None:
        o += _c_classifier(name, N, part, lin)
    return "\n".join([*o, *c_many(name, N, part, lin)]) + "\n"


def _c_header(result: Any, part: _Part, lin: _Linear | None, name: str, source: str | None) -> list[str]:
    """The header comment, the includes, the compile-time checks and the sizes."""
    N = name.upper()
    fx = part.fx
    about = [_comment_safe(s) for s in _about(result, part, lin, source)]
    shape = " x ".join(str(v) for v in fx.input_shape)
    what = (f"{shape} bytes, row-major: 0/1, or grey levels binarized by the result's rule (see Input); each "
            "function returns -1 and writes nothing for an image the rule refuses, as Python refuses it"
            if fx.input_type == "binary" else f"{fx.n_inputs} doubles")
    o: list[str] = ["/* " + f"{name}.c: generated by metafx {__version__} (metafx export --to c); C99, no dependency.",
                    " *"]
    o += [(" * " + s).rstrip() for s in about]
    o += [" *",
          f" * API ({part.arg}: {what}):",
          f" *   int {name}_features(const {part.in_c} *{part.arg}, {part.out_c} *out);   0; out: {N}_N_FEATURES values"]
    if lin is not None:
        o += [f" *   int {name}_decision(const {part.in_c} *{part.arg}, double *out);    0; out: {N}_N_DECISIONS doubles",
              f" *   int {name}_predict(const {part.in_c} *{part.arg});                  class index: {name}_classes[i]"]
    o += c_many_api(name, part, lin)
    o += [" * No dynamic allocation.",
          f" * Build: cc -std=c99 -O2 -c {name}.c (or #include it in one of your C files); not with -ffast-math"
          + (" (and, for\n *   real-valued features, without contracting a * b + c into one fused operation:"
             " -std=c99 or\n *   -ffp-contract=off)." if fx.value_type == "real" else "."),
          " */",
          "#include <stdint.h>"]
    o += [f"#include <{h}>" for h in fx.includes if not (h == "float.h" and lin is not None)]
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
        if fx.value_type == "real":
            o += ["#if defined(__clang__)",
                  "#pragma STDC FP_CONTRACT OFF",
                  "#endif"]
    o += ["",
          f"#define {N}_N_INPUTS {fx.n_inputs}"]
    if len(fx.input_shape) == 2:
        o += [f"#define {N}_HEIGHT {fx.input_shape[0]}",
              f"#define {N}_WIDTH {fx.input_shape[1]}"]
    o += [f"#define {N}_N_FEATURES {part.n}"]
    if lin is not None:
        o += [f"#define {N}_N_CLASSES {len(lin.classes)}",
              f"#define {N}_N_DECISIONS {lin.rows}"]
    o += ["",
          f"int {name}_features(const {part.in_c} *{part.arg}, {part.out_c} *out);"]
    if lin is not None:
        o += [f"int {name}_decision(const {part.in_c} *{part.arg}, double *out);",
              f"int {name}_predict(const {part.in_c} *{part.arg});"]
    many = f"const {part.in_c} *{part.arg}s, long n"
    o += [f"int {name}_features_many({many}, {part.out_c} *out);"]
    if lin is not None:
        o += [f"int {name}_decision_many({many}, double *out);", f"int {name}_predict_many({many}, int *labels);"]
    return o


def _c_classifier(name: str, N: str, part: _Part, lin: _Linear) -> list[str]:
    """The classifier's C: its label and weight tables, ``NAME_decision`` and ``NAME_predict``."""
    x = part.arg
    return ([*_c_tables(name, N, part.n, lin), "", f"int {name}_decision(const {part.in_c} *{x}, double *out)", "{", *_c_decision_body(name, N, part), "}", "", f"int {name}_predict(const {part.in_c} *{x})", "{", *_c_predict_body(name, N, x, len(lin.classes)), "}"])


def _c_labels(classes: list[Any]) -> tuple[str, list[str]]:
    """The C type and the literals of the class labels (strings, binary64 or 64-bit integers)."""
    kind = _label_kind(classes[0])
    if kind == "str":
        return "const char *const", [_c_string(s) for s in classes]
    if kind == "float":
        return "const double", [float(v).hex() for v in classes]
    if any(not -(2**63) <= int(v) < 2**63 for v in classes):
        raise ValidationError(f"classes={classes!r}: C labels must fit in 64 bits")
    return "const long long", [f"{int(v)}LL" if int(v) != -(2**63) else "(-9223372036854775807LL - 1)"
                               for v in classes]


def _c_tables(name: str, N: str, n: int, lin: _Linear) -> list[str]:
    """The label table ``NAME_classes`` and the weights ``NAME_coef`` (if any feature) and ``NAME_intercept``."""
    ctype, labels = _c_labels(lin.classes)
    o = ["",
         f"/* class labels: {name}_predict returns an index into this table */",
         f"{ctype} {name}_classes[{N}_N_CLASSES] = {{",
         c_table(labels, per_line=8),
         "};",
         "/* weights (exact binary64 values, hexadecimal) */"]
    if n:
        o += [f"/* {name}_coef[j][c]: the weight of feature j in decision c */",
              f"static const double {name}_coef[{N}_N_FEATURES][{N}_N_DECISIONS] = {{"]
        for j in range(n):
            o += ["    {" + ", ".join(float(v).hex() for v in lin.coef[:, j]) + "},"]
        o += ["};"]
    return [*o, f"static const double {name}_intercept[{N}_N_DECISIONS] = {{", c_table([float(v).hex() for v in lin.intercept], per_line=4), "};"]


def _c_decision_body(name: str, N: str, part: _Part) -> list[str]:
    """The body of ``NAME_decision``: the intercepts plus the weights of the features, added in increasing j."""
    x = part.arg
    if not part.n:
        o = ["    int c;"]
        o += ([f"    if ({name}_binarizer({x}) < 0)", "        return -1;"] if part.fx.input_type == "binary"
              else [f"    (void){x};"])
        return [*o, f"    for (c = 0; c < {N}_N_DECISIONS; ++c)", f"        out[c] = 0.0 + {name}_intercept[c];", "    return 0;"]
    o = [f"    {part.out_c} v[{N}_N_FEATURES];",
         "    int c, j;",
         f"    if ({name}_features({x}, v) < 0)",
         "        return -1;",
         f"    for (c = 0; c < {N}_N_DECISIONS; ++c)",
         "        out[c] = 0.0;",
         "    /* each decision adds its terms in increasing j, as Python does */",
         f"    for (j = 0; j < {N}_N_FEATURES; ++j)"]
    if part.fx.value_type == "binary":
        o += ["        if (v[j])",
              f"            for (c = 0; c < {N}_N_DECISIONS; ++c)",
              f"                out[c] += {name}_coef[j][c];"]
    else:
        o += [f"        for (c = 0; c < {N}_N_DECISIONS; ++c) {{",
              f"            const double t = {name}_coef[j][c] * v[j];",
              "            out[c] = out[c] + t;",
              "        }"]
    return [*o, f"    for (c = 0; c < {N}_N_DECISIONS; ++c)", f"        out[c] = out[c] + {name}_intercept[c];", "    return 0;"]


def _c_predict_body(name: str, N: str, x: str, n_classes: int) -> list[str]:
    """The body of ``NAME_predict``: the index of the class decided (the sign of one decision for two)."""
    if n_classes == 1:
        return [f"    double d[{N}_N_DECISIONS];",
                f"    return {name}_decision({x}, d) < 0 ? -1 : 0;"]
    if n_classes == 2:
        return ["    double d[1];",
                f"    if ({name}_decision({x}, d) < 0)",
                "        return -1;",
                "    return d[0] > 0.0 ? 1 : 0;"]
    return [f"    double d[{N}_N_DECISIONS];",
            "    int c, best = 0;",
            f"    if ({name}_decision({x}, d) < 0)",
            "        return -1;",
            f"    for (c = 1; c < {N}_N_DECISIONS; ++c)",
            "        if (d[c] > d[best])",
            "            best = c;",
            "    return best;"]


# ---------------------------------------------------------------------------------------------- NumPy


_NUMPY_INPUTS = '''

def _inputs(x):
    """One sample per row: ``(n, N_INPUTS)`` (from ``(n,) + INPUT_SHAPE`` too), checked."""
    x = np.asarray(x)
    if x.ndim == 1 + len(INPUT_SHAPE) and x.shape[1:] == INPUT_SHAPE:
        x = x.reshape(x.shape[0], N_INPUTS)
    if x.ndim != 2 or x.shape[1] != N_INPUTS:
        shape = ", ".join(str(v) for v in INPUT_SHAPE)
        raise ValueError(f"x must be an array (n, {shape}) or (n, {N_INPUTS}), got shape {x.shape}")
    if x.dtype.kind not in "biuf":
        raise ValueError(f"x must be numeric, got dtype {x.dtype}")
    if INPUT_TYPE == "real":
        return x.astype(np.float64)
    # images: by the result's rule (THRESHOLD, LOW, HIGH), or ValueError where metafx refuses them
    return binarize_input(x, THRESHOLD, LOW, HIGH, "x", ValueError)


def features(x):
    """The features of the samples ``x``: ``(n, N_FEATURES)``, the values of metafx's ``SearchResult.transform``."""
    return np.asarray(_compute(_inputs(x)))
'''

_NUMPY_CLASSIFIER = '''

def decision_function(x):
    """The classifier's decision: ``(n,)`` for one or two classes, ``(n, N_CLASSES)`` for more.

    Row c: ``COEF[c, j] * feature j`` added in increasing j from 0.0 (for 0/1 features: the weights of the
    features that are 1), then ``+ INTERCEPT[c]`` (float64): bit for bit the decision of metafx's
    ``FeatureClassifier``."""
    f = features(x)
    n = f.shape[0]
    if VALUE_TYPE == "binary":
        i, j = np.nonzero(f)  # in row-major order: by sample, then increasing feature
        count = np.bincount(i, minlength=n)
        # idx[i, t]: the t-th feature that is 1 on sample i; N_FEATURES (a row of zero weights) after the last
        idx = np.full((n, int(count.max()) if n else 0), N_FEATURES, dtype=np.intp)
        idx[i, np.arange(i.size) - np.repeat(np.cumsum(count) - count, count)] = j
        w = np.concatenate([COEF.T, np.zeros((1, COEF.shape[0]))])
        acc = np.zeros((n, COEF.shape[0]), dtype=np.float64)
        for t in range(idx.shape[1]):
            acc += w[idx[:, t]]  # adding +0.0 after the last changes nothing: a sum from +0.0 is never -0.0
    else:
        f = f.astype(np.float64)
        acc = np.zeros((n, COEF.shape[0]), dtype=np.float64)
        for j in range(N_FEATURES):
            acc = acc + f[:, j:j + 1] * COEF[:, j]
    d = acc + INTERCEPT
    return d[:, 0] if COEF.shape[0] == 1 else d


def predict(x):
    """The class of every sample: for two classes ``CLASSES[1]`` where the decision is > 0, else ``CLASSES[0]``;
    for more, the class of the first largest decision."""
    d = decision_function(x)
    if len(CLASSES) == 1:
        return CLASSES[np.zeros(d.shape[0], dtype=np.intp)]
    if d.ndim == 1:
        return CLASSES[(d > 0).astype(np.intp)]
    return CLASSES[d.argmax(axis=1)]
'''


def to_numpy(result: Any, classifier: Any = None, name: str = "metafx_model", *, source: str | None = None) -> str:
    """The source of a Python module (NumPy only) computing ``result``'s features and classifier.

    Parameters are those of :func:`to_c`.  The module defines ``features(x)``
    (``(n, N_FEATURES)``, as ``result.transform``) and, with a classifier,
    ``decision_function(x)`` and ``predict(x)``, plus ``N_INPUTS``, ``INPUT_SHAPE``,
    ``FEATURE_NAMES``, ``CLASSES``, ``COEF``, ``INTERCEPT``.  ``x`` holds one sample per row:
    ``(n, H, W)`` or ``(n, H * W)`` arrays for an image family, 0/1 or grey levels binarized by
    the result's rule (``THRESHOLD``, ``LOW``, ``HIGH``; it carries the source of
    ``metafx.core.binarization.binarize_input``, and raises ``ValueError`` where metafx refuses
    the images), ``(n, N_INPUTS)`` numbers for a family of real-valued input.
    """
    name = _check_name(name)
    part = _family_part(result, "numpy", name)
    lin = _linear(result, classifier, part.n)
    about = "\n".join(_about(result, part, lin, source))
    values = ("0/1, or grey levels binarized by the result's rule (see Input)" if part.fx.input_type == "binary"
              else "numbers")
    doc = (f"{name}: generated by metafx {__version__} (metafx export --to numpy); needs NumPy only.\n\n{about}\n\n"
           "features(x) -> (n, N_FEATURES)"
           + ("; decision_function(x); predict(x)" if lin is not None else "")
           + f".\nx: (n,) + INPUT_SHAPE or (n, N_INPUTS), {values}.\n")
    doc = doc.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    o = [f'"""{doc}"""',
         "",
         "from __future__ import annotations",
         "",
         "import math",
         "",
         "import numpy as np",
         "",
         f"__all__ = {['features'] + (['decision_function', 'predict'] if lin is not None else [])!r}",
         "",
         f"N_INPUTS = {part.fx.n_inputs}",
         f"INPUT_SHAPE = {tuple(part.fx.input_shape)!r}",
         f"INPUT_TYPE = {part.fx.input_type!r}",
         f"VALUE_TYPE = {part.fx.value_type!r}",
         f"N_FEATURES = {part.n}",
         f"FEATURE_NAMES = [{py_list(part.names, 1)}]"]
    if lin is not None:
        coef_rows = "".join(f"    [{py_list(lin.coef[c].tolist(), 4, '        ')}    ],\n" for c in range(lin.rows))
        o += [f"CLASSES = np.array([{py_list(lin.classes, 8)}])",
              "# weights: one row for one or two classes (positive side CLASSES[1]), one per class for more",
              f"COEF = np.array([\n{coef_rows}], dtype=np.float64).reshape({lin.rows}, {part.n})",
              f"INTERCEPT = np.array([{py_list(lin.intercept.tolist(), 4)}], dtype=np.float64)",
              f"N_CLASSES = {len(lin.classes)}"]
    rule = _rule(result)
    o += ["# the result's input rule (metafx.core.binarization) for images: grey levels are binarized at value >=",
          "# THRESHOLD and must lie in [LOW, HIGH]; THRESHOLD None: 0/1 images only",
          f"THRESHOLD = {rule.threshold!r}",
          f"LOW = {rule.low!r}",
          f"HIGH = {rule.high!r}",
          "", "",
          "# metafx.core.binarization.binarize_input, as metafx applies it",
          inspect.getsource(binarize_input).rstrip()]
    o += ["", "", "# ---- the family's features", part.fx.code.rstrip("\n"), "", "", f"_compute = {name}_compute"]
    return "\n".join(o) + "\n" + _NUMPY_INPUTS + (_NUMPY_CLASSIFIER if lin is not None else "")


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
