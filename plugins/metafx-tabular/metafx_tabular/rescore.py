"""The screen's best candidates scored again by the search's own evaluator.

The candidate screen (``TabularFamily(screen=...)``) scores every first-order candidate by a cheap
proxy: its squared partial correlation with the residual target, of its values or of its ranks.  The
evaluator a search uses scores a *set* with a model of the values (``cv-linear``: a linear model of
the columns and the features), and the two can disagree: on a target ``log(a) + b / c`` the proxy puts
``c / a`` (by its ranks) above ``log(a)``, while a linear model of the values gains 0.22 R^2 from
``log(a)`` and 0.11 from ``c / a``.

:func:`rescore` takes a shortlist of the screened candidates (the ``top`` most relevant and the
most relevant of every root operator, all above the screen's noise floor), scores each with the
table's columns by the search's evaluator (its protocol and seed, so on the folds the search scores
sets on) and returns their gains over the columns alone.  The family then chooses a point's set
from these candidates first, best gain first (see ``TabularFamily._screened_set``), and drops a
shortlisted candidate whose gain is not positive.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["shortlist", "rescore"]


def shortlist(relevance: np.ndarray, roots: list[str], floor: float, top: int) -> np.ndarray:
    """Indices of the candidates to rescore: the ``top`` of highest ``relevance`` and the most relevant
    candidate of every root operator in ``roots`` (one per candidate), all above ``floor``; most relevant
    first, each once.

    >>> shortlist(np.array([0.5, 0.4, 0.3, 0.2, 0.0]), ["ratio", "ratio", "ratio", "log", "log"], 0.1, 2).tolist()
    [0, 1, 3]
    """
    rel = np.asarray(relevance, dtype=np.float64)
    if len(roots) != rel.size:
        raise ValueError(f"relevance has {rel.size} values but roots lists {len(roots)} operators")
    order = [int(i) for i in np.argsort(-rel, kind="stable") if rel[i] > floor]
    picked = order[: max(int(top), 0)]
    seen_ops = {roots[i] for i in picked}
    for i in order[len(picked):]:
        if roots[i] not in seen_ops:
            seen_ops.add(roots[i])
            picked.append(i)
    return np.array(sorted(picked, key=lambda i: (-rel[i], i)), dtype=np.int64)


def rescore(family: Any, evaluator: Any, prepared: Any, y: np.ndarray, seed: int,
            candidates: list[dict], indices: np.ndarray) -> np.ndarray:
    """The gain of each candidate ``candidates[i]`` (``i`` in ``indices``) over the table's columns alone:
    ``evaluator.evaluate`` of the columns with that one feature, minus that of the columns, both with
    ``random_state=seed``.  A failed score (NaN, an error of the model) counts as no gain (``-inf``)."""
    batch_of = type(family.from_json([]))
    base = float(evaluator.evaluate(family.compute(prepared, batch_of([])), y, random_state=seed))
    gains = np.full(len(indices), -np.inf)
    for k, i in enumerate(indices):
        values = family.compute(prepared, batch_of([candidates[int(i)]]))
        try:
            q = float(evaluator.evaluate(values, y, random_state=seed))
        except (ValueError, ArithmeticError, np.linalg.LinAlgError):
            continue
        if np.isfinite(q) and np.isfinite(base):
            gains[k] = q - base
    return gains
