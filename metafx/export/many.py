"""The exported C file's entry points for many samples at once: ``NAME_features_many``, ``NAME_decision_many``
and ``NAME_predict_many``.

For a family whose export gives ``code_many`` (``PREFIX_compute64``: the pixel families), the images are
binarized into bit planes of 64 images (bit ``s`` of plane ``i`` is pixel ``i`` of image ``s``) and their
features computed 64 at a time; each image's decision then adds its features' weights in increasing feature
order from 0.0 and its intercept last, as ``NAME_decision`` and Python do, so the results are theirs bit for bit.
Other families' ``*_many`` call the one-sample functions in a loop.  For images, every image is checked against
the result's input rule before anything is written: one refused image makes the call return -1 and write nothing.
"""

from __future__ import annotations

from typing import Any

__all__ = ["bit_sliced", "c_many", "c_many_api"]

# the index of the lowest set bit of a 64-bit word (a de Bruijn sequence), in portable C99
_DEBRUIJN = 0x03F79D71B4CB0A89
_LOWEST = [0] * 64
for _i in range(64):
    _LOWEST[(((1 << _i) * _DEBRUIJN) & (2**64 - 1)) >> 58] = _i


def bit_sliced(part: Any) -> bool:
    """Whether the file computes the features of 64 samples per word: the family gave ``code_many``, and there
    are features to compute."""
    return bool(part.fx.code_many) and part.n > 0


def c_many_api(name: str, part: Any, lin: Any) -> list[str]:
    """The ``*_many`` lines of the header comment's API list."""
    x = f"const {part.in_c} *{part.arg}s, long n"
    o = [f" *   int {name}_features_many({x}, {part.out_c} *out);   the same for n samples one after the other"]
    if lin is not None:
        o += [f" *   int {name}_decision_many({x}, double *out);",
              f" *   int {name}_predict_many({x}, int *labels);"]
    fast = bit_sliced(part)
    o += [" *   (" + ("64 images at a time, bit-sliced: each 64-bit word holds one pixel or feature of 64 images; "
                      if fast else "") + "0, or -1 and nothing written when the rule refuses one of the samples)"]
    return o


def c_many(name: str, N: str, part: Any, lin: Any) -> list[str]:
    """The C of the ``*_many`` entry points (after the one-sample ones, whose tables they use)."""
    fast = bit_sliced(part)
    x = f"{part.arg}s"
    o = ["", "/* ---- many samples at once */"]
    if part.fx.input_type == "binary":
        o += [f"static int {name}_check_many(const uint8_t *{x}, long n)",
              "{",
              "    long s;",
              "    for (s = 0; s < n; ++s)",
              f"        if ({name}_binarizer({x} + s * {N}_N_INPUTS) < 0)",
              "            return -1;",
              "    return 0;",
              "}"]
    check = ([f"    if ({name}_check_many({x}, n) < 0)", "        return -1;"]
             if part.fx.input_type == "binary" else [])
    if fast:
        o += _block(name, N, x)
        o += ["",
              f"int {name}_features_many(const uint8_t *{x}, long n, uint8_t *out)",
              "{",
              f"    uint64_t v[{N}_N_FEATURES];",
              "    long lo;",
              "    int s, f;",
              *check,
              "    for (lo = 0; lo < n; lo += 64) {",
              "        const int m = n - lo < 64 ? (int)(n - lo) : 64;",
              f"        {name}_block({x}, lo, m, v);",
              "        for (s = 0; s < m; ++s)",
              f"            for (f = 0; f < {N}_N_FEATURES; ++f)",
              f"                out[(lo + s) * {N}_N_FEATURES + f] = (uint8_t)((v[f] >> s) & 1u);",
              "    }",
              "    return 0;",
              "}"]
    else:
        o += ["",
              f"int {name}_features_many(const {part.in_c} *{x}, long n, {part.out_c} *out)",
              "{",
              "    long s;",
              *check,
              "    for (s = 0; s < n; ++s)",
              f"        {name}_features({x} + s * {N}_N_INPUTS, out + s * {N}_N_FEATURES);",
              "    return 0;",
              "}"]
    if lin is None:
        return o
    return o + (_decide_fast(name, N, x, check, len(lin.classes)) if fast
                else _decide_loop(name, N, part, x, check))


def _block(name: str, N: str, x: str) -> list[str]:
    """``NAME_block``: images ``lo .. lo + m - 1`` (already checked) binarized into bit planes, their features."""
    return ["",
            "/* images lo .. lo + m - 1 (m <= 64, checked): bit s of planes[i] is pixel i of image lo + s after the",
            "   rule; v[f] gets feature f of the m images in its low m bits (the others 0) */",
            f"static void {name}_block(const uint8_t *{x}, long lo, int m, uint64_t *v)",
            "{",
            f"    uint64_t planes[{N}_N_INPUTS];",
            "    const uint64_t live = m == 64 ? ~(uint64_t)0 : ((uint64_t)1 << m) - 1;",
            "    int s, i;",
            f"    for (i = 0; i < {N}_N_INPUTS; ++i)",
            "        planes[i] = 0;",
            "    for (s = 0; s < m; ++s) {",
            f"        const uint8_t *one = {x} + (lo + s) * {N}_N_INPUTS;",
            f"        const int t = {name}_binarizer(one);",
            f"        for (i = 0; i < {N}_N_INPUTS; ++i)",
            "            planes[i] |= (uint64_t)(one[i] >= t) << s;",
            "    }",
            f"    {name}_compute64(planes, v);",
            f"    for (i = 0; i < {N}_N_FEATURES; ++i)",
            "        v[i] &= live;",
            "}"]


def _pick(name: str, N: str, n_classes: int) -> list[str]:
    """``NAME_pick``: the class index of one decision row, as ``NAME_predict`` decides it."""
    if n_classes == 1:
        body = ["    (void)d;", "    return 0;"]
    elif n_classes == 2:
        body = ["    return d[0] > 0.0 ? 1 : 0;"]
    else:
        body = ["    int c, best = 0;",
                f"    for (c = 1; c < {N}_N_DECISIONS; ++c)",
                "        if (d[c] > d[best])",
                "            best = c;",
                "    return best;"]
    return ["", f"static int {name}_pick(const double *d)", "{", *body, "}"]


def _decide_fast(name: str, N: str, x: str, check: list[str], n_classes: int) -> list[str]:
    """``NAME_decide64`` and the bit-sliced ``NAME_decision_many`` / ``NAME_predict_many``."""
    lowest = ", ".join(str(v) for v in _LOWEST)
    o = ["",
         "/* the index of the lowest set bit of w != 0 */",
         f"static const uint8_t {name}_lowest[64] = {{{lowest}}};",
         f"#define {N}_LOWEST(w) {name}_lowest[(((w) & ((uint64_t)0 - (w))) * (uint64_t)0x{_DEBRUIJN:016X}u) >> 58]",
         "",
         "/* the decisions of images lo .. lo + m - 1 (checked) into d[s * N_DECISIONS + c]: from 0.0, the weights of",
         "   the features each image has in increasing j, then the intercept, as NAME_decision adds them */",
         f"static void {name}_decide64(const uint8_t *{x}, long lo, int m, double *d)",
         "{",
         f"    uint64_t v[{N}_N_FEATURES];",
         "    int s, c, j;",
         f"    {name}_block({x}, lo, m, v);",
         f"    for (s = 0; s < m * {N}_N_DECISIONS; ++s)",
         "        d[s] = 0.0;",
         f"    for (j = 0; j < {N}_N_FEATURES; ++j) {{",
         "        uint64_t w = v[j];",
         "        while (w) {",
         f"            double *row = d + {N}_LOWEST(w) * {N}_N_DECISIONS;",
         f"            for (c = 0; c < {N}_N_DECISIONS; ++c)",
         f"                row[c] += {name}_coef[j][c];",
         "            w &= w - 1;",
         "        }",
         "    }",
         "    for (s = 0; s < m; ++s)",
         f"        for (c = 0; c < {N}_N_DECISIONS; ++c)",
         f"            d[s * {N}_N_DECISIONS + c] = d[s * {N}_N_DECISIONS + c] + {name}_intercept[c];",
         "}"]
    o += _pick(name, N, n_classes)
    o += ["",
          f"int {name}_decision_many(const uint8_t *{x}, long n, double *out)",
          "{",
          "    long lo;",
          *check,
          "    for (lo = 0; lo < n; lo += 64)",
          f"        {name}_decide64({x}, lo, n - lo < 64 ? (int)(n - lo) : 64, out + lo * {N}_N_DECISIONS);",
          "    return 0;",
          "}",
          "",
          f"int {name}_predict_many(const uint8_t *{x}, long n, int *labels)",
          "{",
          f"    double d[64 * {N}_N_DECISIONS];",
          "    long lo;",
          "    int s;",
          *check,
          "    for (lo = 0; lo < n; lo += 64) {",
          "        const int m = n - lo < 64 ? (int)(n - lo) : 64;",
          f"        {name}_decide64({x}, lo, m, d);",
          "        for (s = 0; s < m; ++s)",
          f"            labels[lo + s] = {name}_pick(d + s * {N}_N_DECISIONS);",
          "    }",
          "    return 0;",
          "}"]
    return o


def _decide_loop(name: str, N: str, part: Any, x: str, check: list[str]) -> list[str]:
    """``NAME_decision_many`` / ``NAME_predict_many`` as loops over the one-sample functions."""
    return ["",
            f"int {name}_decision_many(const {part.in_c} *{x}, long n, double *out)",
            "{",
            "    long s;",
            *check,
            "    for (s = 0; s < n; ++s)",
            f"        {name}_decision({x} + s * {N}_N_INPUTS, out + s * {N}_N_DECISIONS);",
            "    return 0;",
            "}",
            "",
            f"int {name}_predict_many(const {part.in_c} *{x}, long n, int *labels)",
            "{",
            "    long s;",
            *check,
            "    for (s = 0; s < n; ++s)",
            f"        labels[s] = {name}_predict({x} + s * {N}_N_INPUTS);",
            "    return 0;",
            "}"]
