"""Built-in family ``pixel-and-local``: pixel-AND features with a location meta-feature.

Thesis section 5.6 compares two meta-features for Mufasa on the same AND
features: the feature's *location* (x, y) -- ``p(v|u)`` uniform over the
features inside a 4 x 4 window around the chosen location -- and the number of
inputs.  This family is ``pixel-and`` (same features, batches, kernels, cost
``0.5 (1 + a^2)`` and JSON) with two more meta-features:

* ``x``, ``y`` (integers): the window's location.  The window covers columns
  ``x - (s-1)//2 .. x + s//2`` and rows ``y - (s-1)//2 .. y + s//2`` for
  ``window_size = s`` (4: columns ``x-1 .. x+2``), and lies inside the image.

A feature drawn at a point has its ``numInputs`` inputs at distinct cells of
the window, chosen uniformly among the cell sets whose scatter is within
``scatter_tol`` of the point's ``scatter`` (rejection sampling; if the window
cannot hold that scatter for this number of inputs, the closest scatter found
in 30 rounds of 16 proposals is used).

``scatter`` is fixed (default 1.5 pixels; thesis decision A22) unless
``scatter=None``.  Meta-features listed in ``randomize`` are not searched:
they leave the space and are drawn uniformly *per feature* (``x, y``: a uniform
window; ``numInputs``, ``percentPos``, ``shiftInvLen``: a uniform value;
``scatter``: no constraint, the inputs are uniform cells of the window).  The
two arms of the thesis experiment are therefore::

    location : randomize=("numInputs", "percentPos"), fixed={"shiftInvLen": 1}  -> searches x, y
    numInputs: randomize=("x", "y", "percentPos"),    fixed={"shiftInvLen": 1}  -> searches numInputs

and random selection is ``randomize`` of every meta-feature (``draw_random``).

``describe`` adds ``x``, ``y``: the centre of gravity (column, row) of a
feature's inputs (for a 4-wide window drawn at ``x`` it averages ``x + 0.5``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from ..core.exceptions import ValidationError
from ..core.params import InstanceOf, Interval
from ..core.values import Dimension, MetaFeatureSpace
from ..hooks.spec import hookimpl
from .pixel_families import MAX_INPUTS, MAX_SHIFT, PixelAndBatch, PixelAndFamily, pixel_and_cost

__all__ = ["LOCAL_META_FEATURES", "PixelAndLocalFamily"]

#: meta-features of ``pixel-and-local``, in space order
LOCAL_META_FEATURES = ("numInputs", "percentPos", "shiftInvLen", "scatter", "x", "y")

_ROUNDS = 30
_PROPOSALS = 16


def _scatter_rows(r: np.ndarray, c: np.ndarray) -> np.ndarray:
    return np.hypot(r - r.mean(axis=-1, keepdims=True), c - c.mean(axis=-1, keepdims=True)).mean(axis=-1)


class PixelAndLocalFamily(PixelAndFamily):
    """``pixel-and`` features drawn inside a small window at a searched location (thesis 5.6).

    Parameters
    ----------
    image_shape : (H, W), optional
        Learned by :meth:`fit` when omitted.
    scatter_tol : float, default 0.25
        Accepted distance between a feature's scatter and the target.
    window_size : int, default 4
        Side of the square window holding a feature's inputs.
    scatter : float or None, default 1.5
        Fixed scatter of every feature; ``None`` makes ``scatter`` a searched
        meta-feature (range 1-3.5, as in ``pixel-and``).
    randomize : sequence of str, default ()
        Meta-features drawn uniformly per feature instead of searched (see the
        module docstring).

    Examples
    --------
    >>> import numpy as np
    >>> fam = PixelAndLocalFamily(image_shape=(28, 28), randomize=("numInputs", "percentPos"))
    >>> fam.space().names
    ['shiftInvLen', 'scatter', 'x', 'y']
    >>> b = fam.draw({"x": 10, "y": 5, "shiftInvLen": 1}, 20, np.random.default_rng(0))
    >>> len(b), int(b.cols[0, :b.k[0]].min()) >= 9, int(b.rows[0, :b.k[0]].max()) <= 7
    (20, True, True)
    """

    name = "pixel-and-local"
    summary = "pixel ANDs inside a 4x4 window at a location meta-feature (x, y) (thesis 5.6)"

    def __init__(self, image_shape: Sequence[int] | None = None, scatter_tol: float = 0.25,
                 window_size: int = 4, scatter: float | None = 1.5, randomize: Sequence[str] = ()) -> None:
        super().__init__(image_shape=image_shape, scatter_tol=scatter_tol, window=None)
        self.window_size = window_size
        self.scatter = scatter
        self.randomize = randomize

    #: the parameters of this family (``image_shape`` and ``scatter_tol``: as its base ``pixel-and`` declares them)
    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "window_size": [Interval("int", 1, None)],
        "scatter": [Interval("real", 0, 3.5), None],
        "randomize": [InstanceOf(str, "a meta-feature name"), "array-like"],
    }

    def check_params(self) -> None:
        super().check_params()
        randomize = [self.randomize] if isinstance(self.randomize, str) else list(self.randomize)
        bad = [r for r in randomize if r not in LOCAL_META_FEATURES]
        if bad:
            raise ValidationError(f"randomize={randomize!r}: unknown meta-feature(s) {bad}; "
                                  f"allowed: {', '.join(LOCAL_META_FEATURES)}")
        if self.scatter is not None and "scatter" in randomize:
            raise ValidationError("randomize contains 'scatter' but scatter is fixed: pass scatter=None")
        self.randomize = [r for r in LOCAL_META_FEATURES if r in randomize]
        if self.image_shape is not None:
            self._check_window_fits()

    # ------------------------------------------------------------------ geometry
    def _check_window_fits(self) -> None:
        h, w = self._need_shape()
        s = int(self.window_size)
        if s > h or s > w:
            raise ValidationError(f"window_size={s} does not fit in the {h}x{w} image")

    def _loc_range(self) -> tuple[tuple[int, int], tuple[int, int]]:
        h, w = self._need_shape()
        s = int(self.window_size)
        lo = (s - 1) // 2
        return (lo, w - 1 - s // 2), (lo, h - 1 - s // 2)

    def fit(self, X: np.ndarray, y: np.ndarray | None = None) -> PixelAndLocalFamily:
        super().fit(X, y)
        self._check_window_fits()
        return self

    # ------------------------------------------------------------------ space
    def space(self) -> MetaFeatureSpace:
        h, w = self._need_shape()
        (x0, x1), (y0, y1) = self._loc_range()
        base = {d.name: d for d in super().space().dimensions}
        base["x"] = Dimension("x", "int", x0, x1, step=max(1, round(w / 10)), default=(x0 + x1) // 2,
                              description=f"column of the {self.window_size}x{self.window_size} input window")
        base["y"] = Dimension("y", "int", y0, y1, step=max(1, round(h / 10)), default=(y0 + y1) // 2,
                              description=f"row of the {self.window_size}x{self.window_size} input window")
        dims = tuple(base[n] for n in LOCAL_META_FEATURES if n not in self.randomize)
        fixed = {"scatter": float(self.scatter)} if self.scatter is not None else {}
        if self.scatter is not None and not 1.0 <= self.scatter <= 3.5:
            # outside pixel-and's scatter range: widen the dimension to hold the fixed value
            dims = tuple(Dimension("scatter", "float", min(1.0, float(self.scatter)), 3.5, 0.35,
                                   description=d.description) if d.name == "scatter" else d for d in dims)
        return MetaFeatureSpace(dims, fixed)

    # ------------------------------------------------------------------ draw
    def draw(self, point: Mapping[str, Any], budget: float, rng: np.random.Generator,
             max_features: int | None = None) -> PixelAndBatch:
        u = self.space().check_point(point)
        s = int(self.window_size)
        (x0, x1), (y0, y1) = self._loc_range()
        budget = float(budget)
        # per-feature shift (and so cost) first: it decides how many features fit the budget
        if "shiftInvLen" in self.randomize:
            cap = int(math.floor(budget + 1e-9)) + 1
            if max_features is not None:
                cap = min(cap, int(max_features) + 1)
            a = rng.integers(1, MAX_SHIFT + 1, cap)
            n = int(np.searchsorted(np.cumsum(pixel_and_cost(a)), budget + 1e-9, side="right"))
            a = a[:n]
        else:
            a0 = int(u["shiftInvLen"])
            n = int(math.floor(budget / float(pixel_and_cost(a0)) + 1e-9))
            if max_features is not None:
                n = min(n, int(max_features))
            a = np.full(n, a0)
        if max_features is not None:
            n = min(n, int(max_features))
            a = a[:n]
        if n <= 0:
            return PixelAndBatch.empty()
        K = (rng.integers(1, MAX_INPUTS + 1, n) if "numInputs" in self.randomize
             else np.full(n, int(u["numInputs"])))
        if K.max() > s * s:
            raise ValidationError(f"numInputs={int(K.max())} does not fit in a {s}x{s} window "
                                  f"({s * s} cells); lower numInputs or raise window_size")
        pp = rng.integers(0, 101, n) if "percentPos" in self.randomize else np.full(n, int(u["percentPos"]))
        xs = rng.integers(x0, x1 + 1, n) if "x" in self.randomize else np.full(n, int(u["x"]))
        ys = rng.integers(y0, y1 + 1, n) if "y" in self.randomize else np.full(n, int(u["y"]))
        target = None if "scatter" in self.randomize else float(u["scatter"])

        R = np.zeros((n, MAX_INPUTS), np.int16)
        C = np.zeros((n, MAX_INPUTS), np.int16)
        neg = np.zeros((n, MAX_INPUTS), bool)
        for k in np.unique(K):
            idx = np.flatnonzero(K == k)
            cells = self._cells(int(k), idx.size, target, rng)  # (m, k) cell indices in the window
            dr, dc = np.divmod(cells, s)
            R[idx, :k] = ys[idx, None] - (s - 1) // 2 + dr
            C[idx, :k] = xs[idx, None] - (s - 1) // 2 + dc
            n_pos = np.rint(k * pp[idx] / 100.0).astype(np.int64)
            order = np.argsort(rng.random((idx.size, k)), axis=1)
            neg[idx, :k] = order >= n_pos[:, None]
        return PixelAndBatch(R, C, neg, K.astype(np.int8), a.astype(np.int8))

    def _cells(self, k: int, m: int, target: float | None, rng: np.random.Generator) -> np.ndarray:
        """``m`` sets of ``k`` distinct window cells, uniform among those with scatter near ``target``."""
        s = int(self.window_size)
        ncell = s * s

        def propose(count: int) -> np.ndarray:
            return np.argsort(rng.random((count, ncell)), axis=1)[:, :k]

        if target is None or k == 1:
            return propose(m)
        tol = float(self.scatter_tol)
        out = np.zeros((m, k), np.int64)
        best_err = np.full(m, np.inf)
        pending = np.arange(m)
        for _ in range(_ROUNDS):
            if pending.size == 0:
                break
            cand = propose(pending.size * _PROPOSALS).reshape(pending.size, _PROPOSALS, k)
            r, c = np.divmod(cand, s)
            err = np.abs(_scatter_rows(r.astype(np.float64), c.astype(np.float64)) - target)
            ok = err <= tol
            first_ok = np.where(ok.any(axis=1), ok.argmax(axis=1), -1)
            closest = err.argmin(axis=1)
            pick = np.where(first_ok >= 0, first_ok, closest)
            pick_err = err[np.arange(pending.size), pick]
            better = pick_err < best_err[pending]
            upd = pending[better]
            out[upd] = cand[np.flatnonzero(better), pick[better]]
            best_err[upd] = pick_err[better]
            pending = pending[best_err[pending] > tol]
        return out

    # ------------------------------------------------------------------ describe
    def describe(self, batch: PixelAndBatch) -> dict[str, np.ndarray]:
        d = super().describe(batch)
        cog = batch.centres()
        d["x"] = cog[:, 1]
        d["y"] = cog[:, 0]
        return d

    def min_cost(self) -> float:
        return 1.0


@hookimpl
def metafx_register_families(register):
    register(PixelAndLocalFamily)
