"""The command line's argparse pieces: one-line errors, typed option values, and messages in the
command line's words (its options for the parameters a Python message names)."""

from __future__ import annotations

import argparse
import json
import math
import re
import textwrap
from typing import Any, NoReturn


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors: the option, the value and what is allowed, then where help is."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see `{self.prog} --help`)\n")


class _HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Option help wrapped at spaces only: file names such as metafx-result-DATE-TIME.json stay whole."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)


def _typed(kind: type, allowed: str):
    """An argparse type: ``kind(text)``, or an error naming the value and what is allowed."""
    def parse(text: str) -> Any:
        try:
            return kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {allowed}") from None
    parse.__name__ = kind.__name__
    return parse


_INT = _typed(int, "an integer")


_NUMBER = _typed(float, "a number")


def _BUDGET(text: str) -> float | str:
    """``--budget``: a number, or ``auto``."""
    return _above_0_or("auto", text, "allowed: a total feature cost above 0, e.g. 500, or auto")


def _STEPS(text: str) -> int | str:
    """``--steps``: an integer, or ``auto``."""
    if text.strip().lower() == "auto":
        return "auto"
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer or auto") from None


def _final_c(text: str) -> float | str:
    """``--final-c``: a number above 0, or ``cv``."""
    return _above_0_or("cv", text, "allowed: the C of the final linear SVM, a number above 0 (e.g. 0.1), or cv")


def _above_0_or(word: str, text: str, allowed: str) -> float | str:
    """``word``, or a finite number above 0, read when the arguments are (before any data or search)."""
    if text.strip().lower() == word:
        return word
    value = _typed(float, f"a number or {word!r}; {allowed}")(text)
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number above 0; {allowed}")
    return value


def _threshold(text: str) -> float | str:
    if text == "auto":
        return text
    value = _typed(float, "a number or 'auto'")(text)
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number; allowed: a number (a pixel is 1 where "
                                         "value >= T) or auto")
    return value


def _test_size(text: str) -> float:
    v = _typed(float, "a number: a share in [0, 1) or a count of samples")(text)
    if v < 0 or (v >= 1 and v != int(v)):
        raise argparse.ArgumentTypeError(f"{text!r} must be a share in [0, 1) or a whole count of samples")
    return v


def _cli_words(message: str) -> str:
    """A Python-worded message in the command line's words (its options for the parameters named)."""
    message = re.sub(r"^(steps|budget|oversample|timeout|n_jobs|reselect|seed|split_seed|threshold)=",
                     lambda m: f"--{m[1].replace('_', '-')}=", message)
    message = re.sub(r"^fixed holds ", "--fix holds ", message)
    message = re.sub(r"^n_train \+ n_test = ", "--n-train + --n-test = ", message)
    message = re.sub(r"""family=(["'])([\w.-]+)\1""", r"--family \2", message)
    message = message.replace("pass image_shape=(H, W)", "give --family-param image_shape=[H,W]")
    for verb in ("raise", "lower"):
        message = message.replace(f"{verb} the budget", f"{verb} --budget")
    return message


def _kv(text: str) -> tuple[str, Any]:
    if "=" not in text:
        raise argparse.ArgumentTypeError(f"{text!r} is not NAME=VALUE")
    k, v = text.split("=", 1)
    if v in _PYTHON_WORDS:  # None / True / False as Python spells them, beside JSON's null / true / false
        return k.strip(), _PYTHON_WORDS[v]
    try:
        return k.strip(), json.loads(v)
    except json.JSONDecodeError:
        return k.strip(), v


_PYTHON_WORDS = {"None": None, "True": True, "False": False}
