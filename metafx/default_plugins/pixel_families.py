"""Built-in feature families on binary images: ``pixel-and`` and ``pixels``.

``pixel-and`` (thesis section 5.3.2).  A feature is a logical AND of 1 to 8
*inputs*, each a pixel or a negated pixel, made shift-invariant by OR-ing over
shifts.  With shift length ``a``::

    value(image) = OR over (dy, dx) in {0..a-1} x {0..a-1} of
                   AND over inputs (row, col, neg) of  pixel(row + dy, col + dx) XOR neg

A pixel outside the image reads as 0 (so a negated one reads as 1); ``a = 1``
means no shift.  Cost of a feature: ``0.5 * (1 + a**2)``.

Meta-features (the search space):

* ``numInputs`` K, 1..8;
* ``percentPos``, 0..100: percent of non-negated inputs; a feature drawn for
  ``percentPos = p`` has exactly ``round(K * p / 100)`` positive inputs;
* ``shiftInvLen`` a, 1..8;
* ``scatter``, 1..3.5: mean Euclidean distance (pixels) of the inputs from
  their centre of gravity; ignored when K = 1 (a single input has scatter 0).

Drawing for a point: each feature's K distinct positions are proposed around a
centre drawn uniformly in the drawing window (the whole image by default,
``window`` to restrict it), with offsets from an isotropic Gaussian whose
width makes the expected scatter equal to the target; a proposal is accepted
when its scatter is within ``scatter_tol`` of the target.  This approximates
the thesis's "uniform over the features that satisfy the meta-features"
(exact uniformity over that set is not needed by any algorithm here and would
make drawing much slower).  Features are drawn until the budget is used up.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from .._kernels.draws import negated_slots, propose_positions
from .._kernels.packing import pack_columns
from .._kernels.pixel_and import eval_pixel_and, make_planes
from ..core.base import FamilyExport, FeatureFamily, MetaFeatureDescriber
from ..core.exceptions import ValidationError
from ..core.params import Interval, Options, Satisfies
from ..core.validation import check_binary_images
from ..core.values import Dimension, FeatureValues, MetaFeatureSpace
from ..loop.checks import MAX_FEATURES_PER_SAMPLE
from .pixel_export import pixel_c, pixel_numpy

__all__ = ["LocationDescriber", "PixelAndBatch", "PixelAndFamily", "PixelBatch", "PixelsFamily", "RadiusDescriber"]

MAX_INPUTS = 8
MAX_SHIFT = 8


def pixel_and_cost(shift: np.ndarray | int) -> np.ndarray | float:
    return 0.5 * (1.0 + np.asarray(shift, dtype=np.float64) ** 2)


@dataclass
class PixelAndBatch:
    """Features of ``pixel-and``: ``(n, 8)`` input arrays; only the first ``k[i]`` slots are used."""

    rows: np.ndarray  # int16 (n, 8)
    cols: np.ndarray  # int16 (n, 8)
    neg: np.ndarray  # bool (n, 8)
    k: np.ndarray  # int8 (n,)
    shift: np.ndarray  # int8 (n,)

    @classmethod
    def empty(cls) -> PixelAndBatch:
        z = np.zeros((0, MAX_INPUTS), dtype=np.int16)
        return cls(z, z.copy(), np.zeros((0, MAX_INPUTS), bool), np.zeros(0, np.int8), np.zeros(0, np.int8))

    def __len__(self) -> int:
        return int(self.k.shape[0])

    @property
    def costs(self) -> np.ndarray:
        return np.asarray(pixel_and_cost(self.shift))

    def take(self, idx: Sequence[int] | np.ndarray) -> PixelAndBatch:
        i = np.asarray(idx, dtype=np.intp)
        return PixelAndBatch(self.rows[i], self.cols[i], self.neg[i], self.k[i], self.shift[i])

    @staticmethod
    def concat(batches: Sequence[PixelAndBatch]) -> PixelAndBatch:
        if not batches:
            return PixelAndBatch.empty()
        return PixelAndBatch(
            *(np.concatenate([getattr(b, f) for b in batches]) for f in ("rows", "cols", "neg", "k", "shift"))
        )

    def centres(self) -> np.ndarray:
        """Centre of gravity ``(row, col)`` of each feature's inputs."""
        mask = np.arange(MAX_INPUTS)[None, :] < self.k[:, None]
        kk = np.maximum(self.k, 1).astype(np.float64)
        r = (self.rows * mask).sum(1) / kk
        c = (self.cols * mask).sum(1) / kk
        return np.stack([r, c], axis=1)

    def scatter(self) -> np.ndarray:
        mask = np.arange(MAX_INPUTS)[None, :] < self.k[:, None]
        cog = self.centres()
        d = np.hypot(self.rows - cog[:, :1], self.cols - cog[:, 1:])
        return (d * mask).sum(1) / np.maximum(self.k, 1)


def _is_int(v: Any) -> bool:
    """A JSON integer (not a boolean, not a float such as 1.7 or 1.0)."""
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def _ints_at_least(values: Any, n: int, low: int) -> bool:
    """``values`` is a list or tuple of ``n`` integers, each ``>= low``."""
    return isinstance(values, (list, tuple, np.ndarray)) and len(values) == n and all(
        _is_int(v) and v >= low for v in values)


def _scatter_of(rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """Scatter of position sets ``(n, K)``."""
    r0 = rows.mean(axis=1, keepdims=True)
    c0 = cols.mean(axis=1, keepdims=True)
    return np.hypot(rows - r0, cols - c0).mean(axis=1)


#: ``budget="auto"`` on images smaller than :data:`LARGE_SIDE`: this much cost per pixel (8 x 8: 512), chosen by the
#: rule and the development runs of docs/results/defaults.md (docs/guide/budget.md says how the budget is chosen)
BUDGET_PER_PIXEL = 8
#: images whose smaller side has at least this many pixels get :data:`LARGE_BUDGET_PER_PIXEL`, :data:`LARGE_STEPS`
#: and a final model on shifted copies (``FeatureClassifier(shift_copies="auto")``), by
#: experiments/cnn48/RULE_DEFAULTS_IMAGES2.md (on 8 x 8 digits they did harm, RULE_DEFAULTS_IMAGES.md)
LARGE_SIDE = 16
LARGE_BUDGET_PER_PIXEL = 16
LARGE_STEPS = 15


def is_large_image(shape: Sequence[int] | None) -> bool:
    """Whether images of ``shape`` (H, W) get the defaults of large images (smaller side >= :data:`LARGE_SIDE`)."""
    return shape is not None and min(int(v) for v in shape) >= LARGE_SIDE


class _ImageFamily(FeatureFamily):
    data_kind = "binary-image"
    #: compiled, cheap compute: the guided engine ranks its pools on every row (experiments/guided/RULE_POOL_ROWS.md)
    pool_rows = None
    image_shape: Sequence[int] | None  # a constructor parameter of every image family

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "image_shape": [Satisfies(lambda v: _ints_at_least(v, 2, 1), "(H, W): two integers >= 1",
                                  invalid=[(0, 5), (28,), "ab", (2.5, 3)]), None],
    }

    def default_budget(self, X: np.ndarray) -> float:
        """``budget="auto"``: per pixel of the images ``X`` (n, H, W), :data:`BUDGET_PER_PIXEL` (8), and on images
        of at least :data:`LARGE_SIDE` (16) pixels a side :data:`LARGE_BUDGET_PER_PIXEL` (16) as long as it allows
        at most ``MAX_FEATURES_PER_SAMPLE`` (20) features per training image (the search's size check refuses
        more; 28 x 28 images get 12544 from 628 images on, ``20 n`` from 314 to 627, 6272 below)."""
        pixels = X.shape[1] * X.shape[2]
        budget = float(BUDGET_PER_PIXEL * pixels)
        if is_large_image(X.shape[1:3]):
            cap = MAX_FEATURES_PER_SAMPLE * self.min_cost() * X.shape[0]
            budget = max(budget, min(float(LARGE_BUDGET_PER_PIXEL * pixels), cap))
        return budget

    def default_shift_copies(self) -> bool:
        """``FeatureClassifier(shift_copies="auto")``: True for images of at least 16 x 16 pixels."""
        return is_large_image(self.image_shape)

    def default_steps(self, X: np.ndarray) -> int | None:
        """``steps="auto"``: :data:`LARGE_STEPS` (15) on images of at least 16 x 16 pixels, else the search's
        default (50)."""
        return LARGE_STEPS if is_large_image(X.shape[1:3]) else None

    def _need_shape(self) -> tuple[int, int]:
        if self.image_shape is None:
            raise ValidationError(
                f"family {self.name!r} has no image_shape yet: call fit(X) first or pass image_shape=(H, W)"
            )
        h, w = (int(v) for v in self.image_shape)
        return h, w

    def check_data(self, X: np.ndarray) -> np.ndarray:
        shp = None if self.image_shape is None else tuple(self.image_shape)
        return check_binary_images(X, shp)

    def check_params(self) -> None:
        super().check_params()
        if self.image_shape is not None:
            self.image_shape = [int(v) for v in self.image_shape]

    def fit(self, X: np.ndarray, y: np.ndarray | None = None) -> _ImageFamily:
        self.check_params()
        imgs = self.check_data(X)
        self.image_shape = [int(imgs.shape[1]), int(imgs.shape[2])]
        return self

    def export_c(self, batch: Any, prefix: str) -> FamilyExport:
        """The features as C99 (``metafx export --to c``): :mod:`metafx.default_plugins.pixel_export`."""
        return pixel_c(self, batch, prefix)

    def export_numpy(self, batch: Any, prefix: str) -> FamilyExport:
        """The features as NumPy code (``metafx export --to numpy``)."""
        return pixel_numpy(self, batch, prefix)


class PixelAndFamily(_ImageFamily):
    """Shift-invariant ANDs of (possibly negated) pixels; see the module docstring.

    Parameters
    ----------
    image_shape : (H, W), optional
        Learned by :meth:`fit` when omitted.
    scatter_tol : float, default 0.25
        Accepted distance (pixels) between a drawn feature's scatter and the target.
    window : (row0, row1, col0, col1), optional
        Inclusive pixel rectangle where the inputs' centres are drawn; the whole
        image when omitted.
    location_prior : {"uniform", "ink"}, default "uniform"
        Where feature centres are drawn.  ``"uniform"`` (the thesis): uniformly
        over the window.  ``"ink"``: in proportion to the variance ``p (1 - p)``
        of each pixel over the images given to :meth:`fit` (``p`` = share of
        images where it is on), smoothed by a Gaussian of 1 pixel, plus 1 % of
        the uniform density so that no position is impossible.  This uses the
        *unlabelled* training images only and spends less of the budget on
        features that are constant on the data (e.g. in MNIST's blank border).
    """

    name = "pixel-and"
    summary = "logical ANDs of 1-8 (negated) pixels, OR-ed over shifts (thesis 5.3.2)"

    def __init__(self, image_shape: Sequence[int] | None = None, scatter_tol: float = 0.25,
                 window: Sequence[int] | None = None, location_prior: str = "uniform") -> None:
        self.image_shape = image_shape
        self.scatter_tol = scatter_tol
        self.window = window
        self.location_prior = location_prior

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "scatter_tol": [Interval("real", 0, None, closed="neither")],
        "window": [Satisfies(lambda v: _ints_at_least(v, 4, 0), "(row0, row1, col0, col1): four integers >= 0",
                             invalid=[(0, 1, 2), (0, 1, 2, 3.5), (-1, 2, 0, 2), "abcd"]), None],
        "location_prior": [Options("uniform", "ink")],
    }

    def check_params(self) -> None:
        super().check_params()
        if self.window is not None:
            self.window = [int(v) for v in self.window]

    def fit(self, X: np.ndarray, y: np.ndarray | None = None) -> PixelAndFamily:
        super().fit(X, y)
        self._window()  # a window outside the image (or inverted) is refused here, before any search
        if self.location_prior == "ink":
            from scipy.ndimage import gaussian_filter

            p = self.check_data(X).mean(axis=0, dtype=np.float64)
            prior = gaussian_filter(p * (1 - p), 1.0, mode="constant")
            prior = prior / max(prior.sum(), 1e-300)
            self.prior_ = 0.99 * prior + 0.01 / prior.size
        return self

    # ------------------------------------------------------------------ space
    def space(self) -> MetaFeatureSpace:
        return MetaFeatureSpace((
            Dimension("numInputs", "int", 1, MAX_INPUTS, step=1, default=3, description="number of inputs K"),
            Dimension("percentPos", "int", 0, 100, step=20, default=50, description="percent of non-negated inputs"),
            Dimension("shiftInvLen", "int", 1, MAX_SHIFT, step=1, default=2, description="shift length a (a x a shifts)"),
            Dimension("scatter", "float", 1.0, 3.5, step=0.35, default=2.0,
                      description="mean distance of the inputs from their centre of gravity"),
        ))

    def min_cost(self) -> float:
        return 1.0

    # ------------------------------------------------------------------ draw
    def _window(self) -> tuple[int, int, int, int]:
        h, w = self._need_shape()
        if self.window is None:
            return 0, h - 1, 0, w - 1
        r0, r1, c0, c1 = self.window
        if not (0 <= r0 <= r1 < h and 0 <= c0 <= c1 < w):
            raise ValidationError(f"window={self.window} is not inside the {h}x{w} image")
        return r0, r1, c0, c1

    def draw(self, point: Mapping[str, Any], budget: float, rng: np.random.Generator,
             max_features: int | None = None) -> PixelAndBatch:
        u = self.space().check_point(point)
        K, a = int(u["numInputs"]), int(u["shiftInvLen"])
        cost = float(pixel_and_cost(a))
        n = int(math.floor(float(budget) / cost + 1e-9))
        if max_features is not None:
            n = min(n, int(max_features))
        if n <= 0:
            return PixelAndBatch.empty()
        h, w = self._need_shape()
        if K > h * w:
            raise ValidationError(f"numInputs={K} exceeds the {h * w} pixels of the image")
        n_pos = int(round(K * float(u["percentPos"]) / 100.0))
        rows, cols = self._positions(n, K, float(u["scatter"]), rng)
        # exactly n_pos positive inputs, at random slots: slot j negated when argsort(rng.random((n, K)))[j] >= n_pos
        neg = negated_slots(rng, n, K, n_pos, MAX_INPUTS)
        R = np.zeros((n, MAX_INPUTS), np.int16)
        C = np.zeros((n, MAX_INPUTS), np.int16)
        R[:, :K] = rows
        C[:, :K] = cols
        return PixelAndBatch(R, C, neg, np.full(n, K, np.int8), np.full(n, a, np.int8))

    def _centres(self, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """``n`` feature centres (continuous pixel coordinates) and their pixels."""
        r0, r1, c0, c1 = self._window()
        if self.location_prior == "uniform":
            pr = rng.integers(r0, r1 + 1, n)
            pc = rng.integers(c0, c1 + 1, n)
        else:
            if getattr(self, "prior_", None) is None:
                raise ValidationError("location_prior='ink' needs the images: call fit(X) before drawing")
            prior = np.zeros_like(self.prior_)
            prior[r0 : r1 + 1, c0 : c1 + 1] = self.prior_[r0 : r1 + 1, c0 : c1 + 1]
            q = rng.choice(prior.size, size=n, p=(prior / prior.sum()).ravel())
            pr, pc = np.divmod(q, prior.shape[1])
        return pr, pc

    def _positions(self, n: int, K: int, target: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        h, w = self._need_shape()
        if K == 1:
            pr, pc = self._centres(n, rng)
            return pr[:, None], pc[:, None]
        # Gaussian offsets with E[scatter] ~ sigma * sqrt(pi/2) * sqrt((K-1)/K)
        sigma = target / (math.sqrt(math.pi / 2) * math.sqrt((K - 1) / K))
        tol = float(self.scatter_tol)
        got_r, got_c, have = [], [], 0
        tries = 0
        while have < n:
            tries += 1
            if tries > 200:
                raise ValidationError(
                    f"cannot draw {K} distinct inputs with scatter {target:.3g} +- {tol} inside a {h}x{w} image; "
                    "raise scatter_tol or change the point"
                )
            batch = max(64, 3 * (n - have))
            qr, qc = self._centres(batch, rng)
            # jitters ur, uc (batch,), offsets zr, zc (batch, K) drawn in this order; inputs at
            # rint(centre + jitter + sigma * z), then: inside the image, distinct, scatter within tol of the
            # target (one numba pass over the accepted rows; NumPy decides the edge cases)
            pr, pc, verdict = propose_positions(rng, qr, qc, K, sigma, h, w, target, tol, n - have)
            edge = np.flatnonzero(verdict == 2)
            if edge.size:
                verdict[edge] = np.abs(_scatter_of(pr[edge], pc[edge]) - target) <= tol
            idx = np.flatnonzero(verdict == 1)[: n - have]
            got_r.append(pr[idx])
            got_c.append(pc[idx])
            have += idx.size
        return np.concatenate(got_r), np.concatenate(got_c)

    def concat(self, batches: Sequence[PixelAndBatch]) -> PixelAndBatch:
        return PixelAndBatch.concat(list(batches))

    # ------------------------------------------------------------------ compute
    def prepare(self, X: np.ndarray) -> dict[str, Any]:
        imgs = self.check_data(X)
        if self.image_shape is None:
            self.image_shape = [imgs.shape[1], imgs.shape[2]]
        return {"planes": make_planes(imgs), "n_samples": imgs.shape[0], "width": imgs.shape[2]}

    def compute(self, prepared: Mapping[str, Any], batch: PixelAndBatch) -> FeatureValues:
        packed = eval_pixel_and(prepared["planes"], prepared["width"], batch.rows, batch.cols, batch.neg,
                                batch.k, batch.shift)
        return FeatureValues(n_samples=prepared["n_samples"], packed=packed)

    # ------------------------------------------------------------------ describe / JSON
    def describe(self, batch: PixelAndBatch) -> dict[str, np.ndarray]:
        npos = ((~batch.neg) & (np.arange(MAX_INPUTS)[None, :] < batch.k[:, None])).sum(1)
        k = batch.k.astype(np.float64)
        return {
            "numInputs": batch.k.astype(np.int64),
            "percentPos": np.rint(100.0 * npos / np.maximum(k, 1)).astype(np.int64),
            "shiftInvLen": batch.shift.astype(np.int64),
            "scatter": batch.scatter(),
        }

    def centres(self, batch: PixelAndBatch) -> np.ndarray:
        """Centre ``(row, col)`` of the region a feature looks at (inputs' COG plus half the shift)."""
        return batch.centres() + (batch.shift.astype(np.float64)[:, None] - 1) / 2

    def to_json(self, batch: PixelAndBatch) -> list[dict[str, Any]]:
        out = []
        for i in range(len(batch)):
            k = int(batch.k[i])
            out.append({
                "family": self.name,
                "inputs": [[int(batch.rows[i, j]), int(batch.cols[i, j]), bool(batch.neg[i, j])] for j in range(k)],
                "shift": int(batch.shift[i]),
            })
        return out

    def from_json(self, specs: Sequence[Mapping[str, Any]]) -> PixelAndBatch:
        h, w = self._need_shape()
        n = len(specs)
        b = PixelAndBatch(np.zeros((n, MAX_INPUTS), np.int16), np.zeros((n, MAX_INPUTS), np.int16),
                          np.zeros((n, MAX_INPUTS), bool), np.zeros(n, np.int8), np.zeros(n, np.int8))
        for i, s in enumerate(specs):
            if not isinstance(s, Mapping):
                raise ValidationError(f"feature {i} must be a JSON object, got {s!r}")
            if s.get("family", self.name) != self.name:
                raise ValidationError(f"feature {i} is of family {s.get('family')!r}, not {self.name!r}")
            unknown = sorted(set(s) - {"family", "inputs", "shift"})
            if unknown:
                raise ValidationError(f"feature {i}: unknown fields {unknown}")
            inputs = s.get("inputs")
            a = s.get("shift", 1)
            if not isinstance(inputs, (list, tuple)) or not 1 <= len(inputs) <= MAX_INPUTS:
                raise ValidationError(f"feature {i}: 'inputs' must be a list of 1 to {MAX_INPUTS} [row, col, negated]")
            if not _is_int(a) or not 1 <= a <= MAX_SHIFT:
                raise ValidationError(f"feature {i}: shift={a!r} must be an integer in 1..{MAX_SHIFT}")
            for j, inp in enumerate(inputs):
                if not isinstance(inp, (list, tuple)) or len(inp) != 3:
                    raise ValidationError(f"feature {i}: input {inp!r} must be [row, col, negated]")
                r, c, ng = inp
                if not (_is_int(r) and _is_int(c)):
                    raise ValidationError(f"feature {i}: input {inp!r}: row and col must be integers")
                if not isinstance(ng, bool):
                    raise ValidationError(f"feature {i}: input {inp!r}: negated must be true or false")
                if not (0 <= r < h and 0 <= c < w):
                    raise ValidationError(f"feature {i}: input ({r}, {c}) is outside the {h}x{w} image")
                b.rows[i, j], b.cols[i, j], b.neg[i, j] = r, c, ng
            b.k[i] = len(inputs)
            b.shift[i] = a
        return b

    def feature_names(self, batch: PixelAndBatch) -> list[str]:
        names = []
        for i in range(len(batch)):
            lits = [("~" if batch.neg[i, j] else "") + f"p[{batch.rows[i, j]},{batch.cols[i, j]}]"
                    for j in range(int(batch.k[i]))]
            s = " & ".join(lits)
            a = int(batch.shift[i])
            names.append(s if a == 1 else f"({s}) shift {a}")
        return names

    def plot_features(self, batch: PixelAndBatch, ax: Any, background: np.ndarray | None = None) -> list[Any]:
        """Draw the features on the image grid: filled squares are inputs that must be 1, crossed squares
        inputs that must be 0 (negated), the dashed box is where the inputs reach under the ``a x a`` shifts
        (each input moves down and right by 0..a-1 pixels); ``background`` is drawn in gray (the mean image)."""
        from matplotlib.lines import Line2D
        from matplotlib.patches import Rectangle

        h, w = self._need_shape()
        img = np.zeros((h, w)) if background is None else np.asarray(background, dtype=np.float64)
        ax.imshow(img, cmap="Greys", vmin=0, vmax=max(1.0, float(img.max()) if img.size else 1.0),
                  interpolation="nearest")
        ax.set_xticks(np.arange(-0.5, w, 1), minor=True)
        ax.set_yticks(np.arange(-0.5, h, 1), minor=True)
        ax.grid(which="minor", color="0.85", lw=0.4)
        ax.tick_params(which="both", length=0, labelsize=6)
        ax.set_xticks([0, w - 1])
        ax.set_yticks([0, h - 1])
        size = max(20.0, 2400.0 / max(h, w) ** 1.3)
        for i in range(len(batch)):
            k, a = int(batch.k[i]), int(batch.shift[i])
            r, c, neg = batch.rows[i, :k], batch.cols[i, :k], batch.neg[i, :k].astype(bool)
            if a > 1:
                ax.add_patch(Rectangle((c.min() - 0.5, r.min() - 0.5), c.max() - c.min() + a, r.max() - r.min() + a,
                                       fill=False, ls="--", lw=1.0, ec="tab:orange"))
            ax.scatter(c[~neg], r[~neg], marker="s", s=size, c="tab:blue", edgecolors="white", linewidths=0.6,
                       zorder=3)
            ax.scatter(c[neg], r[neg], marker="s", s=size, facecolors="white", edgecolors="tab:red",
                       linewidths=1.2, zorder=3)
            ax.scatter(c[neg], r[neg], marker="x", s=size * 0.5, c="tab:red", linewidths=1.2, zorder=4)
        ax.set_xlim(-0.5, w - 0.5)
        ax.set_ylim(h - 0.5, -0.5)
        return [
            Line2D([], [], ls="", marker="s", ms=7, mfc="tab:blue", mec="white", label="input: pixel is 1"),
            Line2D([], [], ls="", marker="X", ms=7, mfc="tab:red", mec="tab:red", label="negated input: pixel is 0"),
            Line2D([], [], ls="--", color="tab:orange", label="reach of the a x a shifts (OR over shifts)"),
            Line2D([], [], ls="", marker="s", ms=7, mfc="0.55", mec="0.55", label="mean training image (gray)"),
        ]


@dataclass
class PixelBatch:
    """Raw pixels, by position."""

    rows: np.ndarray
    cols: np.ndarray

    def __len__(self) -> int:
        return int(self.rows.shape[0])

    @property
    def costs(self) -> np.ndarray:
        return np.ones(len(self))

    def take(self, idx: Sequence[int] | np.ndarray) -> PixelBatch:
        i = np.asarray(idx, dtype=np.intp)
        return PixelBatch(self.rows[i], self.cols[i])


class PixelsFamily(_ImageFamily):
    """The raw pixels of binary images, with meta-features ``x`` (column) and ``y`` (row).

    Each pixel costs 1.  A point ``(x, y)`` selects the pixels within ``radius``
    of it (nearest first, ties broken at random).  :meth:`all_features` lists
    every pixel (used by quality maps).
    """

    name = "pixels"
    summary = "raw pixels, described by their location (x, y) and r"

    def __init__(self, image_shape: Sequence[int] | None = None, radius: float = 2.0) -> None:
        self.image_shape = image_shape
        self.radius = radius

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {"radius": [Interval("real", 0, None, closed="neither")]}

    def space(self) -> MetaFeatureSpace:
        h, w = self._need_shape()
        return MetaFeatureSpace((
            Dimension("x", "float", 0.0, float(w - 1), step=max(1.0, w / 8)),
            Dimension("y", "float", 0.0, float(h - 1), step=max(1.0, h / 8)),
        ))

    def all_features(self) -> PixelBatch:
        h, w = self._need_shape()
        r, c = np.divmod(np.arange(h * w), w)
        return PixelBatch(r.astype(np.int16), c.astype(np.int16))

    def draw(self, point: Mapping[str, Any], budget: float, rng: np.random.Generator,
             max_features: int | None = None) -> PixelBatch:
        u = self.space().check_point(point)
        allf = self.all_features()
        d = np.hypot(allf.rows - u["y"], allf.cols - u["x"])
        cand = np.flatnonzero(d <= self.radius)
        cand = cand[np.lexsort((rng.random(cand.size), d[cand]))]
        n = int(math.floor(budget + 1e-9))
        if max_features is not None:
            n = min(n, max_features)
        return allf.take(cand[:n])

    def concat(self, batches: Sequence[PixelBatch]) -> PixelBatch:
        if not batches:
            return PixelBatch(np.zeros(0, np.int16), np.zeros(0, np.int16))
        return PixelBatch(np.concatenate([b.rows for b in batches]), np.concatenate([b.cols for b in batches]))

    def prepare(self, X: np.ndarray) -> dict[str, Any]:
        imgs = self.check_data(X)
        if self.image_shape is None:
            self.image_shape = [imgs.shape[1], imgs.shape[2]]
        return {"packed": pack_columns(imgs.reshape(imgs.shape[0], -1)), "n_samples": imgs.shape[0],
                "width": imgs.shape[2]}

    def compute(self, prepared: Mapping[str, Any], batch: PixelBatch) -> FeatureValues:
        idx = batch.rows.astype(np.int64) * prepared["width"] + batch.cols
        return FeatureValues(n_samples=prepared["n_samples"], packed=prepared["packed"][idx])

    def describe(self, batch: PixelBatch) -> dict[str, np.ndarray]:
        return {"x": batch.cols.astype(np.float64), "y": batch.rows.astype(np.float64)}

    def centres(self, batch: PixelBatch) -> np.ndarray:
        return np.stack([batch.rows, batch.cols], axis=1).astype(np.float64)

    def to_json(self, batch: PixelBatch) -> list[dict[str, Any]]:
        return [{"family": self.name, "row": int(r), "col": int(c)} for r, c in zip(batch.rows, batch.cols, strict=True)]

    def from_json(self, specs: Sequence[Mapping[str, Any]]) -> PixelBatch:
        h, w = self._need_shape()
        for i, s in enumerate(specs):
            if not isinstance(s, Mapping) or not _is_int(s.get("row")) or not _is_int(s.get("col")) \
                    or s.get("family", self.name) != self.name or set(s) - {"family", "row", "col"}:
                raise ValidationError(f"feature {i}: a pixel feature must be {{'row': int, 'col': int}}, got {s!r}")
            if not (0 <= s["row"] < h and 0 <= s["col"] < w):
                raise ValidationError(f"feature {i}: pixel ({s['row']}, {s['col']}) lies outside the {h}x{w} image")
        rows = np.array([s["row"] for s in specs], np.int64)
        cols = np.array([s["col"] for s in specs], np.int64)
        if rows.size and (rows.min() < 0 or rows.max() >= h or cols.min() < 0 or cols.max() >= w):
            raise ValidationError(f"a pixel feature lies outside the {h}x{w} image")
        return PixelBatch(rows.astype(np.int16), cols.astype(np.int16))

    def feature_names(self, batch: PixelBatch) -> list[str]:
        return [f"p[{r},{c}]" for r, c in zip(batch.rows, batch.cols, strict=True)]


class LocationDescriber(MetaFeatureDescriber):
    """``x`` (column) and ``y`` (row) of the centre of the region a feature looks at."""

    name = "location"
    summary = "x, y of a feature's centre of gravity"
    families = ("pixel-and", "pixels")
    columns = ("x", "y")

    def describe(self, family: Any, batch: Any) -> np.ndarray:  # an image family: centres(batch)
        c = family.centres(batch)
        return np.stack([c[:, 1], c[:, 0]], axis=1)


class RadiusDescriber(MetaFeatureDescriber):
    """``r``: distance of a feature's centre from the image centre ``((H-1)/2, (W-1)/2)``."""

    name = "r"
    summary = "distance of a feature's centre from the image centre"
    families = ("pixel-and", "pixels")
    columns = ("r",)

    def describe(self, family: Any, batch: Any) -> np.ndarray:  # an image family: image_shape, centres(batch)
        h, w = family.image_shape
        c = family.centres(batch)
        return np.hypot(c[:, 0] - (h - 1) / 2, c[:, 1] - (w - 1) / 2)[:, None]
