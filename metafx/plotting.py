"""Pictures of search results; every function returns a matplotlib Figure.

* :func:`plot_trajectory` -- the quality of each step and the best so far;
* :func:`plot_path` -- each meta-feature's value per step, accepted steps marked;
* :func:`plot_features` -- the chosen features drawn by their family (for the
  pixel families: inputs and shift reach on the image grid over the mean image);
* :func:`plot_result` -- all of them written as PNG files (what ``metafx plot`` does).

>>> import metafx
>>> from metafx.plotting import plot_trajectory
>>> X, y = metafx.load_dataset("digits")
>>> res = metafx.search(X[:300], y[:300], budget=20, steps=3, seed=0, progress=False)
>>> fig = plot_trajectory(res)
>>> type(fig).__name__
'Figure'

Figures are made without pyplot's global state (``matplotlib.figure.Figure``),
so they are never shown by accident and need no backend; in a notebook they
display as the cell's value, and ``fig.savefig(path)`` writes them.
"""

from __future__ import annotations

import io
import math
import os
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .core.base import FeatureFamily
from .core.exceptions import ValidationError
from .core.files import atomic_write_bytes
from .loop.result import SearchResult

__all__ = ["MAX_DRAWN_PIXELS", "close_figure", "plot_features", "plot_path", "plot_result", "plot_trajectory"]

#: the largest image (H * W pixels) whose features are drawn -- a damaged ``image_shape`` must not make a
#: picture allocate gigabytes (2048 x 2048; MNIST is 28 x 28)
MAX_DRAWN_PIXELS = 1 << 22


def _figure(figsize: tuple[float, float]):
    from matplotlib.figure import Figure

    return Figure(figsize=figsize, layout="constrained")


def close_figure(fig: Any) -> None:
    """Release a figure (figures made here are not registered with pyplot; kept for symmetry)."""
    fig.clear()


def _as_result(result: SearchResult | str | os.PathLike[str]) -> SearchResult:
    return result if isinstance(result, SearchResult) else SearchResult.from_json(result)


def _integer_axis(axis: Any) -> None:
    from matplotlib.ticker import MaxNLocator

    axis.set_major_locator(MaxNLocator(integer=True))


def _title(result: SearchResult) -> str:
    data = result.metadata.get("data") if isinstance(result.metadata, dict) else None
    on = f" on {data['name']} ({data.get('n_train', result.n_samples)} training samples)" \
        if isinstance(data, dict) and "name" in data else f" ({result.n_samples} training samples)"
    title = f"{result.engine}, {result.family}{on}, budget {result.budget:g}"
    if result.holdout_error is not None:
        title += f"; held-out error {100 * result.holdout_error:.2f} %"
    return title


def plot_trajectory(result: SearchResult | str | os.PathLike[str], ax: Any = None):
    """Quality per step (points) and the best quality so far (a step line).

    ``ax``: draw into this matplotlib Axes instead of a new figure.  A search of
    one step (the ``ranked`` engine) is drawn as its one point with the number.
    Returns the Figure.
    """
    result = _as_result(result)
    fig = _figure((7, 4)) if ax is None else ax.figure
    ax = fig.add_subplot() if ax is None else ax
    traj = result.trajectory
    steps = np.array([r.step for r in traj])
    q = np.array([r.quality for r in traj])
    best = np.array([r.best_quality for r in traj])
    acc = np.array([r.accepted for r in traj], dtype=bool)
    ax.set_xlabel("step")
    ax.set_ylabel(result.quality_label)
    ax.set_title(_title(result), fontsize=9)
    if len(traj) == 0:
        ax.text(0.5, 0.5, "no step recorded", ha="center", va="center", transform=ax.transAxes)
        return fig
    if len(traj) == 1:
        ax.plot(steps, q, "o", ms=9, color="tab:red", label="the one step")
        ax.annotate(f"quality {q[0]:.4f}\n{traj[0].n_features} features, cost {traj[0].cost:g}",
                    (steps[0], q[0]), textcoords="offset points", xytext=(12, 0), va="center", fontsize=9)
        ax.set_xlim(steps[0] - 1, steps[0] + 2)
        pad = max(0.02, 0.05 * abs(q[0]))
        ax.set_ylim(q[0] - pad, q[0] + pad)
        ax.text(0.02, 0.03, f"engine {result.engine!r} evaluates one feature set: no search path to show",
                transform=ax.transAxes, fontsize=8, color="gray")
    else:
        ax.step(steps, best, where="post", color="tab:red", lw=1.8, label="best so far")
        ax.plot(steps[~acc], q[~acc], "o", ms=4, color="tab:blue", alpha=0.6, label="step (not better)")
        ax.plot(steps[acc], q[acc], "o", ms=5, color="tab:red", label="step (new best)")
        pf = np.array([r.kind == "portfolio" for r in traj], dtype=bool)
        if pf.any():  # steps that combined earlier sets: ringed, they have no meta-feature point of their own
            ax.plot(steps[pf], q[pf], "D", ms=8, mfc="none", color="black", label="portfolio step")
    _integer_axis(ax.xaxis)
    ax.grid(alpha=0.3)
    # below the axes: a legend there hides no point
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.15), ncol=3, fontsize=8, frameon=False)
    return fig


def plot_path(result: SearchResult | str | os.PathLike[str], dims: Sequence[str] | None = None):
    """Each meta-feature's value per step (one panel each), new-best steps marked.

    Integer meta-features get integer ticks; each panel spans the dimension's
    range (from ``result.space``) so the path is seen against what was
    allowed.  Fixed meta-features are listed in the title.  Returns the Figure.
    """
    result = _as_result(result)
    # portfolio steps combine earlier sets and have no meta-feature point: the path shows the point steps
    traj = [r for r in result.trajectory if r.kind != "portfolio"]
    left_out = len(result.trajectory) - len(traj)
    space = {d["name"]: d for d in result.space.get("dimensions", [])} if result.space else {}
    fixed = dict(result.space.get("fixed", {})) if result.space else {}
    names = list(dims) if dims is not None else [n for n in (traj[0].point if traj else {}) if n not in fixed]
    unknown = [n for n in names if traj and n not in traj[0].point]
    if unknown:
        raise ValidationError(f"dims={unknown!r} are not meta-features of this result; allowed: "
                              f"{', '.join(traj[0].point)}")
    fig = _figure((7, 0.5 + 1.5 * max(1, len(names))))
    axes = fig.subplots(max(1, len(names)), 1, sharex=True, squeeze=False)[:, 0]
    steps = np.array([r.step for r in traj])
    acc = np.array([r.accepted for r in traj], dtype=bool)
    for ax, name in zip(axes, names, strict=False):  # no name: one empty axis, nothing drawn
        v = np.array([float(r.point[name]) for r in traj])
        dim = space.get(name, {})
        if len(traj) > 1:
            ax.plot(steps, v, "-", color="lightgray", lw=1)
        if (~acc).any():
            ax.plot(steps[~acc], v[~acc], "o", ms=3, color="tab:blue", alpha=0.7, label="step (not better)")
        ax.plot(steps[acc], v[acc], "o", ms=5, color="tab:red", label="step (new best)")
        best = result.best_point.get(name)
        if best is not None and len(traj) > 1:
            ax.axhline(float(best), color="tab:red", lw=0.8, ls=":", label="best point")
        lo, hi = dim.get("low"), dim.get("high")
        if lo is not None and hi is not None:
            pad = 0.06 * (hi - lo) or 0.5
            ax.set_ylim(lo - pad, hi + pad)
        if dim.get("kind") == "int" or (not dim and np.all(v == np.round(v))):
            step = dim.get("step") or 1
            if lo is not None and hi is not None and (hi - lo) / step <= 12:
                from matplotlib.ticker import MultipleLocator

                ax.yaxis.set_major_locator(MultipleLocator(step))
            else:
                _integer_axis(ax.yaxis)
        ax.set_ylabel(name, fontsize=8)
        ax.grid(alpha=0.3)
    _integer_axis(axes[-1].xaxis)
    if len(traj) == 1:
        axes[-1].set_xlim(steps[0] - 1, steps[0] + 1)
    axes[-1].set_xlabel("step")
    title = "meta-feature point per step"
    if fixed:
        title += " (fixed: " + ", ".join(f"{k}={v}" for k, v in fixed.items()) + ")"
    if left_out:
        title += f"; {left_out} portfolio step(s), which have no point, left out"
    axes[0].set_title(title, fontsize=9)
    handles, labels = axes[-1].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=3, fontsize=8, frameon=False)
    return fig


def plot_features(result: SearchResult | str | os.PathLike[str], X: Any = None, y: Any = None, *, n: int = 12,
                  ncols: int = 4, scorer: str = "infogain"):
    """The chosen features drawn by their family, one panel each.

    With training data ``X, y`` the panels show the ``n`` best features by
    ``scorer`` (default infogain) over the mean image of ``X``; without them,
    the first ``n`` features on an empty grid.  The drawing is the family's
    :meth:`~metafx.plugin.FeatureFamily.plot_features` (for ``pixel-and``: filled
    squares are inputs that must be 1, crossed ones inputs that must be 0,
    and the dashed box is where the inputs reach under the ``a x a`` shifts).
    Returns the Figure.
    """
    result = _as_result(result)
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValidationError(f"n={n!r} must be a positive integer (features drawn)")
    family, batch = result.feature_batch()
    shape = getattr(family, "image_shape", None)
    if isinstance(shape, (list, tuple)) and len(shape) == 2 and all(isinstance(v, (int, np.integer)) for v in shape) \
            and int(shape[0]) * int(shape[1]) > MAX_DRAWN_PIXELS:
        raise ValidationError(f"image_shape={list(shape)} ({int(shape[0]) * int(shape[1])} pixels) is too large to "
                              f"draw; at most {MAX_DRAWN_PIXELS} pixels (the result's family_params may be damaged)")
    if type(family).plot_features is FeatureFamily.plot_features:
        family.plot_features(batch, None)  # raises NotImplementedError naming the family
    background = None
    order = np.arange(len(batch))
    scores = None
    if X is not None:
        table = result.feature_table(X, y, scorer=scorer)
        order = table.index.to_numpy()
        scores = table[scorer].to_numpy()
        Xc = family.check_data(X)
        if Xc.ndim == 3:
            background = np.asarray(Xc, dtype=np.float64).mean(axis=0)
    order = order[:n]
    names = family.feature_names(batch)
    k = len(order)
    cols = max(1, min(ncols, k))
    rows = max(1, math.ceil(k / cols))
    fig = _figure((2.3 * cols, 2.5 * rows + 0.9))
    axes = fig.subplots(rows, cols, squeeze=False)
    handles: list[Any] = []
    for i, ax in enumerate(axes.ravel()):
        if i >= k:
            ax.set_axis_off()
            continue
        j = int(order[i])
        got = family.plot_features(batch.take([j]), ax, background=background) or []
        known = {h.get_label() for h in handles}
        handles += [h for h in got if h.get_label() not in known]
        label = textwrap.shorten(names[j], 90, placeholder=" ...")
        lines = textwrap.wrap(label, 34, break_long_words=False)
        if len(lines) > 1 and len(lines[-1]) <= 8:  # no orphan word ("shift" / "2")
            lines[-2:] = [f"{lines[-2]} {lines[-1]}"]
        label = "\n".join(lines[:3])
        if scores is not None:
            label += f"\n{scorer} {scores[i]:.3f}"
        ax.set_title(label, fontsize=7)
    if k == 0:
        axes[0, 0].text(0.5, 0.5, "the result holds no features", ha="center", va="center")
    what = f"the {k} best of {len(batch)} features by {scorer} on the training data" if scores is not None \
        else f"{k} of the {len(batch)} chosen features (no training data given: not ranked, no mean image)"
    fig.suptitle(f"{what}\n{_title(result)}", fontsize=9)
    if handles:
        fig.legend(handles=handles, loc="outside lower center", ncol=len(handles), fontsize=7, frameon=False)
    return fig


def plot_result(result: SearchResult | str | os.PathLike[str], out: str | os.PathLike[str] | None = None,
                dims: Sequence[str] | None = None, *, X: Any = None, y: Any = None, n_features: int = 12,
                stem: str | None = None, dpi: int = 110) -> list[Path]:
    """Write the pictures of a result as PNG files; returns their paths.

    ``<out>/<stem>_trajectory.png`` (:func:`~metafx.plotting.plot_trajectory`),
    ``<out>/<stem>_path.png`` (:func:`~metafx.plotting.plot_path`) and, when the family draws its
    features, ``<out>/<stem>_features.png`` (:func:`~metafx.plotting.plot_features` with
    ``X, y``).  ``out`` defaults to the directory of the JSON file (or the
    current directory); ``stem`` to the JSON file's name (or ``"result"``).
    Each file is written whole to a temporary file and renamed into place, so
    a kill or a full disk leaves the previous picture, never a torn one
    (:class:`~metafx.StorageError` says what failed).
    """
    if not isinstance(result, SearchResult):
        p = Path(result)
        stem = stem or p.stem
        out = p.parent if out is None else out
        result = SearchResult.from_json(p)
    stem = stem or "result"
    out = Path(out or ".")
    out.mkdir(parents=True, exist_ok=True)
    figs = [("trajectory", plot_trajectory(result)), ("path", plot_path(result, dims))]
    try:
        figs.append(("features", plot_features(result, X, y, n=n_features)))
    except NotImplementedError:
        pass  # a family that does not draw its features
    paths = []
    for name, fig in figs:
        path = out / f"{stem}_{name}.png"
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=dpi)
        close_figure(fig)
        atomic_write_bytes(path, buf.getvalue())
        paths.append(path)
    return paths
