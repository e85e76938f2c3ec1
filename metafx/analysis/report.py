"""A saved result in a few lines: what was searched, what was found, what it cost (``metafx show``)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..core.exceptions import MetafxError
from ..hooks.manager import get_registry
from ..loop.result import SearchResult, describe_point, portfolio_words, reselect_words

__all__ = ["format_report", "result_report"]


def _summary_of(kind: str, name: str) -> str | None:
    try:
        return get_registry().get(kind, name).summary
    except MetafxError:
        return None


def _num(v: Any) -> Any:
    """A JSON-able number (non-finite as None)."""
    if isinstance(v, (float, np.floating)):
        return float(v) if math.isfinite(v) else None
    return v


def result_report(result: SearchResult, n_features: int = 10) -> dict[str, Any]:
    """The facts ``metafx show`` prints, as a JSON-able dict.

    ``features`` lists the first ``n_features`` chosen features (name and cost;
    names need the family's plugin, else only the specifications are known).
    """
    traj = result.trajectory
    q = np.array([r.quality for r in traj], dtype=np.float64)
    finite = q[np.isfinite(q)]
    best = next((r for r in traj if r.step == result.best_step), None)
    why: str | None
    try:
        names: list[str] | None = result.feature_names()
        _family, batch = result.feature_batch()
        costs = [float(c) for c in np.asarray(batch.costs, dtype=np.float64)]
    except MetafxError as e:
        names, costs, why = None, [], str(e)
    else:
        why = None
    features = [{"name": names[i] if names else None, "cost": costs[i] if costs else None,
                 "spec": result.features[i]} for i in range(min(n_features, result.n_features))]
    meta = result.metadata
    report: dict[str, Any] = {
        "family": result.family, "engine": result.engine, "evaluator": result.evaluator,
        "evaluator_summary": _summary_of("set-evaluator", result.evaluator),
        "quality_label": meta.get("quality_label") if isinstance(meta.get("quality_label"), str) else None,
        "budget": result.budget, "seed": result.seed, "n_samples": result.n_samples,
        "best_point": dict(result.best_point), "best_point_text": describe_point(result.space, result.best_point),
        "best_step": result.best_step,
        "best_step_kind": best.kind if best is not None else None,
        "best_step_text": portfolio_words(meta, result.best_step) if best is not None and best.kind == "portfolio"
        else None,
        "reselect_text": reselect_words(meta) or None,
        "best_quality": _num(result.best_quality),
        "columns_quality": _num(meta["columns_quality"]) if isinstance(meta.get("columns_quality"), (int, float))
        else None,
        "holdout_error": _num(result.holdout_error),
        "test_score": meta.get("test_score"),
        "n_features": result.n_features, "total_cost": result.total_cost,
        "features": features, "feature_names_error": why,
        "trajectory": {
            "steps": len(traj),
            "accepted": int(sum(bool(r.accepted) for r in traj)),
            "portfolio_steps": [r.step for r in traj if r.kind == "portfolio"],
            "first_quality": _num(float(q[0])) if len(q) else None,
            "best_quality": _num(float(finite.max())) if len(finite) else None,
            "median_quality": _num(float(np.median(finite))) if len(finite) else None,
            "last_quality": _num(float(q[-1])) if len(q) else None,
            "best_step_seconds": _num(best.seconds) if best is not None else None,
            "seconds": _num(meta.get("seconds", float(sum(r.seconds for r in traj)))),
        },
        "data": meta.get("data"),
        "input": _input_words(result),
        "warm_start": meta.get("warm_start"),
        "prior_observations": meta.get("prior_observations"),
        "interrupted": bool(meta.get("interrupted", False)),
        "stopped": meta.get("stopped"),
        "metafx_version": meta.get("metafx_version"),
    }
    return report


def _fmt_data(d: Any) -> str:
    if not isinstance(d, dict):
        return "not recorded"
    try:
        return _data_text(d)
    except (KeyError, TypeError, ValueError):  # a file edited by hand: show what it says
        return str(d)


def _data_text(d: dict[str, Any]) -> str:
    if "name" in d:
        src = f"registered dataset {d['name']!r}"
    else:
        src = f"{d.get('path')} ({d.get('format', '?')}"
        src += f", target column {d['target']!r}" if d.get("target") else ""
        src += f", {len(d['classes'])} classes" if d.get("classes") else ""
        src += ")"
    parts = [src, f"{d.get('n_train', '?')} training rows"]
    if d.get("test"):
        parts.append(f"{d.get('n_test', '?')} held out from {d['test']}")
    elif d.get("n_test"):
        parts.append(f"{d['n_test']} held out (split seed {d.get('split_seed', 0)})")
    if "threshold" in d:
        t = d["threshold"]
        parts.append("images already 0/1" if t is None else f"binarized at value >= {_g(t)}")
    return ", ".join(parts)


def _g(v: Any) -> str:
    """A number as ``:g`` formats it; anything else (a hand-edited file's string) as it is."""
    return f"{v:g}" if isinstance(v, (int, float)) and not isinstance(v, bool) else str(v)


def _input_words(result: SearchResult) -> str | None:
    """How the result binarizes new images (:attr:`SearchResult.input_rule`), in words; None for tables."""
    try:
        rule = result.input_rule
    except MetafxError:  # a damaged binarization field: the file reader refuses it before this
        return None
    return None if rule is None else rule.describe()


def format_report(r: dict[str, Any]) -> str:
    """``result_report`` as text for a terminal."""
    t = r["trajectory"]
    said = r.get("quality_label") or r["evaluator_summary"]  # what the search called its score, else the summary
    what = f" ({said}; higher is better)" if said else " (higher is better)"
    lines = [
        f"family {r['family']}, engine {r['engine']}, evaluator {r['evaluator']}, budget {r['budget']:g}, "
        f"seed {r['seed']}",
        f"data: {_fmt_data(r['data'])}",
        *([f"new images: {r['input']}"] if r.get("input") else []),
        (f"best set: step {r['best_step']} of {t['steps']}, "
         f"{r.get('best_step_text') or 'a portfolio step: the union of the best sets found before it'}"
         if r.get("best_step_kind") == "portfolio" else
         f"best point: {r['best_point_text']} (step {r['best_step']} of {t['steps']})"),
        "quality: " + ("none (no step drew features)" if r["best_quality"] is None else f"{r['best_quality']:.4f}")
        + f" = the search's score of the chosen set on the training data{what}",
    ]
    base = r.get("columns_quality")
    if base is not None and r["best_quality"] is not None:
        lines[-1] = lines[-1].replace("of the chosen set", "of the table's columns with the chosen set")
        lines.append(f"columns alone: {base:.4f} (the same score of the table's columns without the features: the "
                     f"features add {r['best_quality'] - base:+.4f}; `transform` computes the features, for use "
                     "beside the columns)")
    if r.get("reselect_text"):
        lines.append(r["reselect_text"])
    if r["holdout_error"] is not None:
        lines.append(f"held-out error: {100 * r['holdout_error']:.2f} % (linear SVM on the chosen features, held-out data)")
    ts = r.get("test_score")
    if isinstance(ts, dict) and ts.get("score") is not None:
        lines.append(f"held-out score: {ts['score']:.4f} ({ts.get('what', 'the evaluator on held-out rows')})")
    lines.append(f"features: {r['n_features']}, total cost {r['total_cost']:g} of budget {r['budget']:g}")
    for i, f in enumerate(r["features"]):
        name = f["name"] if f["name"] is not None else str(f["spec"])
        cost = "" if f["cost"] is None else f"  (cost {f['cost']:g})"
        lines.append(f"  {i:>3}  {name}{cost}")
    if r["n_features"] > len(r["features"]):
        lines.append(f"  ... {r['n_features'] - len(r['features'])} more (--features N shows more)")
    if r["feature_names_error"]:
        lines.append(f"  (feature names unavailable: {r['feature_names_error']})")
    q = [t["first_quality"], t["median_quality"], t["best_quality"], t["last_quality"]]
    if t["steps"]:
        qs = ", ".join("-" if v is None else f"{v:.4f}" for v in q)
        secs = "" if t["seconds"] is None else f", {t['seconds']:.1f} s"
        lines.append(f"trajectory: {t['steps']} steps, {t['accepted']} accepted (a new best or a tie); quality first, median, "
                     f"best, last: {qs}{secs}")
    if r["warm_start"]:
        prior = r.get("prior_observations")
        lines.append(f"warm start: {len(r['warm_start'])} point(s) of related tasks evaluated first"
                     + (f"; {prior} step(s) of their searches in the engine's model" if prior else ""))
    if r["interrupted"]:
        lines.append("interrupted: the search was stopped before its last step")
    if r["stopped"]:
        lines.append(f"stopped: {r['stopped']}")
    return "\n".join(lines)
