"""How a result's images are binarized: one rule, kept in the result, used by every entry point.

A search of an image family reads 0/1 images.  The command line binarizes grey
images itself (a pixel is 1 where ``value >= threshold``); the result keeps
that rule (:class:`InputRule`, the result's ``binarization`` field) so that new
images are binarized the same way wherever they come in:
:meth:`SearchResult.transform <metafx.SearchResult.transform>`,
:class:`metafx.FeatureClassifier`, ``metafx transform``, ``metafx predict``
and the NumPy and C exports (:mod:`metafx.export`).

The rule, for new images ``X`` (:func:`binarize_input`, the one function every
entry point calls; the NumPy export carries its source):

1. ``X`` must hold numbers (bool, integers or floats), all finite.
2. Images that are already binary (bool, or every value 0 or 1) are taken as
   they are, whatever the threshold: they were binarized before.
3. Otherwise, with no threshold (the result was searched on 0/1 images), they
   are refused.
4. Otherwise their values must lie in the value range of the training images
   (``[0, 255]`` for grey bytes, ``[0, 1]`` for fractions, else the range seen),
   and values in ``[0, 1]`` against a wider range (floats in ``[0, 1]`` against
   grey levels 0-255) are refused: binarized at 128 every pixel would be 0.
5. Then a pixel is 1 where ``value >= threshold``.

A refusal raises one error naming the input, the values found and what was
expected.  Results written before the rule was kept: the threshold their
``metadata["data"]`` recorded (``metafx search`` wrote it), with the range of
its scale (``[0, 1]`` for a threshold up to 1, else ``[0, 255]``); without one
(a Python search, which reads 0/1 images), binary input is expected.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from .exceptions import ValidationError

__all__ = ["BINARY", "InputRule", "binarize_input"]


def binarize_input(X: Any, threshold: float | None, low: float, high: float, name: str,
                   error: type[Exception]) -> np.ndarray:
    """``X`` binarized by the rule ``(threshold, low, high)`` as uint8 0/1, or ``error(message)``.

    See the module docstring.  Pure NumPy (the NumPy export carries this function's source).
    """
    X = np.asarray(X)
    if X.dtype.kind not in "biuf":
        raise error(f"{name} must hold numbers (0/1 images or grey levels), got dtype {X.dtype}")
    if X.dtype == bool:
        return np.ascontiguousarray(X, dtype=np.uint8)
    if X.size == 0:
        return np.zeros(X.shape, dtype=np.uint8)
    if X.dtype.kind == "f" and not np.isfinite(X).all():
        raise error(f"{name} holds NaN or infinite values; expected finite numbers (0/1 images or grey levels)")
    on = X != 0
    if not np.any(on & (X != 1)):  # already binary: taken as it is
        return np.ascontiguousarray(on, dtype=np.uint8)
    lo, hi = X.min().item(), X.max().item()
    v = X[on & (X != 1)].flat[0].item()
    if threshold is None:
        t = "0.5" if X.dtype.kind == "f" and hi <= 1 else ("128" if hi > 16 else str(math.ceil(hi / 2)))
        raise error(f"{name} is not binary (found value {v!r}; values in [{lo:g}, {hi:g}]); the result was searched "
                    f"on 0/1 images and keeps no threshold: binarize them as its training images were (a pixel is 1 "
                    f"where value >= T, e.g. T = {t})")
    rule = f"grey levels in [{low:g}, {high:g}] binarized at value >= {threshold:g}"
    if lo < low or hi > high:
        raise error(f"{name} holds values in [{lo:g}, {hi:g}], outside the range of the images the result was "
                    f"searched on ({rule}); bring them to [{low:g}, {high:g}] first, or give 0/1 images")
    if hi <= 1 < high:
        raise error(f"{name} holds values in [{lo:g}, {hi:g}] (fractions of 1?) but the result was searched on {rule}: "
                    f"every pixel would be 0; scale them to [{low:g}, {high:g}] first (multiply them by {high:g}), "
                    "or give 0/1 images")
    return np.ascontiguousarray(X >= threshold, dtype=np.uint8)


@dataclass(frozen=True)
class InputRule:
    """How a result's training images were binarized (the result's ``binarization`` field).

    ``threshold``: a pixel is 1 where ``value >= threshold``; None: the training
    images were 0/1 and new images must be 0/1.  ``low``, ``high``: the value
    range new grey images must lie in (the scale of the training images).
    ``seen``: the smallest and largest value of the training images as read.
    """

    threshold: float | None
    low: float = 0.0
    high: float = 1.0
    seen: tuple[float, float] | None = None

    # ------------------------------------------------------------------ using it
    def apply(self, X: Any, name: str = "X") -> np.ndarray:
        """``X`` binarized by this rule (uint8 0/1), or :class:`~metafx.ValidationError` saying why not."""
        return binarize_input(X, self.threshold, self.low, self.high, name, ValidationError)

    def describe(self) -> str:
        """The rule in words, e.g. ``grey levels in [0, 255], a pixel is 1 where value >= 128``."""
        if self.threshold is None:
            return "0/1 images (taken as they are)"
        return (f"grey levels in [{self.low:g}, {self.high:g}], a pixel is 1 where value >= {self.threshold:g} "
                "(0/1 images taken as they are)")

    # ------------------------------------------------------------------ learning it
    @classmethod
    def of_training(cls, X: Any, threshold: float | None) -> InputRule:
        """The rule of training images ``X`` binarized at ``threshold`` (None: ``X`` was 0/1)."""
        X = np.asarray(X)
        seen = (float(X.min()), float(X.max())) if X.size else (0.0, 1.0)
        if threshold is None:
            return cls(None, 0.0, 1.0, seen)
        return cls(float(threshold), *scale_of(X, seen), seen)

    @classmethod
    def of_threshold(cls, threshold: float | None, value_range: tuple[float, float] | None = None) -> InputRule:
        """The rule of a threshold alone: ``value_range`` (default: ``[0, 1]`` for a threshold up to 1, else
        ``[0, 255]``, the scale of grey bytes)."""
        if threshold is None:
            return cls(None)
        t = float(threshold)
        low, high = value_range if value_range is not None else ((0.0, 1.0) if t <= 1 else (0.0, 255.0))
        return cls(t, float(low), float(high))

    # ------------------------------------------------------------------ JSON
    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"threshold": self.threshold, "range": [self.low, self.high]}
        if self.seen is not None:
            d["seen"] = list(self.seen)
        return d

    @classmethod
    def from_dict(cls, d: Any, what: str = "binarization") -> InputRule:
        """A rule from :meth:`to_dict`'s form, every key checked (``ValidationError`` naming it)."""
        def num(v: Any) -> bool:
            return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)

        if not isinstance(d, Mapping) or not set(d) <= {"threshold", "range", "seen"} or "threshold" not in d:
            raise ValidationError(f"{what}={d!r} must be null or a JSON object with 'threshold' (a number or null), "
                                  "'range' ([low, high]) and optionally 'seen' ([min, max])")
        t = d["threshold"]
        pair = d.get("range", [0.0, 1.0])
        seen = d.get("seen")
        for key, v in (("range", pair), ("seen", seen)):
            if v is not None and not (isinstance(v, list) and len(v) == 2 and all(num(x) for x in v) and v[0] <= v[1]):
                raise ValidationError(f"{what}[{key!r}]={v!r} must be [low, high], two finite numbers, low <= high")
        if t is not None and not num(t):
            raise ValidationError(f"{what}['threshold']={t!r} must be a finite number or null (0/1 images)")
        return cls(None if t is None else float(t), float(pair[0]), float(pair[1]),
                   None if seen is None else (float(seen[0]), float(seen[1])))


#: the rule of a result searched on 0/1 images (and of results that keep none)
BINARY = InputRule(None)


def scale_of(X: np.ndarray, seen: tuple[float, float]) -> tuple[float, float]:
    """The value range of grey images ``X`` (min and max ``seen``): ``[0, 1]`` for values in it; ``[0, 255]``
    for bytes (uint8) and for whole numbers in it reaching 128 (grey bytes); else the range seen (e.g. ``[0, 16]``
    for scikit-learn's digits)."""
    lo, hi = seen
    if lo >= 0 and hi <= 1:
        return 0.0, 1.0
    if X.dtype == np.uint8 or (lo >= 0 and 128 <= hi <= 255 and bool(np.all(X == np.round(X)))):
        return 0.0, 255.0
    return lo, hi
