"""Plots of search results (matplotlib, Agg backend; PNG files)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Sequence

import numpy as np

from .loop.result import SearchResult

__all__ = ["plot_result"]


def _plt():
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    return plt


def plot_result(result: SearchResult | str | os.PathLike[str], out: str | os.PathLike[str] | None = None,
                dims: Sequence[str] | None = None) -> list[Path]:
    """Draw a search's trajectory and the path of its meta-feature point.

    Writes ``<out>/<stem>_trajectory.png`` (quality per step, best so far, and
    the budget spent so far) and ``<out>/<stem>_path.png`` (each meta-feature's
    value per step, accepted steps marked).  ``out`` defaults to the directory
    of the JSON file (or the current directory).  Returns the written paths.
    """
    stem = "result"
    if not isinstance(result, SearchResult):
        p = Path(result)
        stem = p.stem
        out = p.parent if out is None else out
        result = SearchResult.from_json(p)
    out = Path(out or ".")
    out.mkdir(parents=True, exist_ok=True)
    plt = _plt()
    traj = result.trajectory
    steps = np.array([r.step for r in traj])
    q = np.array([r.quality for r in traj])
    best = np.array([r.best_quality for r in traj])
    spent = np.cumsum([r.cost for r in traj])

    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot(steps, q, "o", ms=4, color="tab:blue", alpha=0.6, label="quality of the step")
    ax.plot(steps, best, "-", color="tab:red", label="best so far")
    ax.set_xlabel("step")
    ax.set_ylabel(f"quality ({result.evaluator})")
    ax2 = ax.twinx()
    ax2.plot(steps, spent, ":", color="gray", label="budget spent (cumulative)")
    ax2.set_ylabel("cumulative feature cost")
    h1, l1 = ax.get_legend_handles_labels()
    h2, l2 = ax2.get_legend_handles_labels()
    ax.legend(h1 + h2, l1 + l2, loc="lower right", fontsize=8)
    title = f"{result.engine} on {result.family}, budget {result.budget:g}"
    if result.test_error is not None:
        title += f", test error {100 * result.test_error:.2f} %"
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    p1 = out / f"{stem}_trajectory.png"
    fig.savefig(p1, dpi=110)
    plt.close(fig)

    names = list(dims or (traj[0].point.keys() if traj else []))
    fig, axes = plt.subplots(len(names), 1, figsize=(7, 1.6 * max(1, len(names))), sharex=True, squeeze=False)
    acc = np.array([r.accepted for r in traj])
    for ax, name in zip(axes[:, 0], names):
        v = np.array([float(r.point[name]) for r in traj])
        ax.plot(steps, v, "-", color="lightgray")
        ax.plot(steps[~acc], v[~acc], "o", ms=3, color="tab:gray", label="rejected")
        ax.plot(steps[acc], v[acc], "o", ms=4, color="tab:red", label="accepted (new best)")
        ax.set_ylabel(name, fontsize=8)
    axes[0, 0].legend(fontsize=7, loc="upper right")
    axes[-1, 0].set_xlabel("step")
    fig.suptitle("path of the meta-feature point", fontsize=10)
    fig.tight_layout()
    p2 = out / f"{stem}_path.png"
    fig.savefig(p2, dpi=110)
    plt.close(fig)
    return [p1, p2]
