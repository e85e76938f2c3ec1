"""The screen's best candidates scored again by the search's own evaluator.

The candidate screen (``TabularFamily(screen=...)``) scores every first-order candidate by a cheap
proxy: its squared partial correlation with the residual target, of its values or of its ranks.  The
evaluator a search uses scores a *set* with a model of the values (``cv-linear``: a linear model of
the columns and the features), and the two can disagree: on a target ``log(a) + b / c`` the proxy can
rank ``c / a`` (by its ranks) above ``log(a)``, while a linear model of the values gains more from
``log(a)``.

:func:`rescore` takes a shortlist of the screened candidates (the ``top`` most relevant and the
most relevant of every root operator, all above the screen's noise floor), scores each with the
table's columns by the search's evaluator (its protocol and seed, so on the folds the search scores
sets on) and returns their gains over the columns alone.  The family then chooses a point's set
from these candidates first, best gain first (see ``TabularFamily._screened_set``), and drops a
shortlisted candidate whose gain is not positive.

:func:`residual_gains` scores candidates the other way (``TabularFamily(rescore_by="residual")``):
by what each explains, alone, of what the model of the table's columns gets wrong -- small trees on
the one candidate boosted from that model's out-of-fold prediction, as OpenFE scores its
first-order candidates.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from metafx.plugin import ValidationError

__all__ = ["rescore", "residual_gains", "shortlist"]


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


def _newton_boost(x: np.ndarray, F0: np.ndarray, Y: np.ndarray, task: str, rounds: int, learning_rate: float,
                  max_leaf_nodes: int, min_samples_leaf: int, x_new: np.ndarray, F0_new: np.ndarray) -> np.ndarray:
    """Boost ``rounds`` regression trees on the one column ``x`` from the raw prediction ``F0`` (rows x
    outputs: one for a real target or two classes, one per class beyond) and return the raw prediction
    on the rows ``x_new`` that start at ``F0_new``.  Each round fits, per output, a tree to the Newton
    step ``g / h`` with weights ``h`` (so its splits maximise ``(sum g)^2 / sum h`` and its leaves hold
    ``sum g / sum h``, as LightGBM's do without regularisation), scaled by ``learning_rate``.  ``Y``:
    the target (real) or the one-hot classes (a single column of 0/1 for two classes)."""
    from sklearn.tree import DecisionTreeRegressor

    A, B = x.reshape(-1, 1), x_new.reshape(-1, 1)
    F, G = F0.copy(), F0_new.copy()
    for _ in range(rounds):
        if task == "regression":
            P = F
            g, h = Y - P, np.ones_like(F)
        elif F.shape[1] == 1:
            P = 0.5 * (1.0 + np.tanh(0.5 * F))  # the logistic function, without overflow
            g, h = Y - P, P * (1.0 - P)
        else:
            E = np.exp(F - F.max(axis=1, keepdims=True))
            P = E / E.sum(axis=1, keepdims=True)
            g, h = Y - P, P * (1.0 - P)
        h = np.maximum(h, 1e-12)
        for c in range(F.shape[1]):
            tree = DecisionTreeRegressor(max_leaf_nodes=max_leaf_nodes, min_samples_leaf=min_samples_leaf,
                                         random_state=0)
            tree.fit(A, g[:, c] / h[:, c], sample_weight=h[:, c])
            F[:, c] += learning_rate * tree.predict(A)
            G[:, c] += learning_rate * tree.predict(B)
    return G


def _loss(F: np.ndarray, Y: np.ndarray, task: str) -> float:
    """Mean loss of the raw prediction ``F``: squared error (real target), log-loss (classes)."""
    if task == "regression":
        return float(np.mean((Y - F) ** 2))
    if F.shape[1] == 1:  # two classes: F the log-odds of the second
        return float(np.mean(np.logaddexp(0.0, F[:, 0]) - Y[:, 0] * F[:, 0]))
    m = F.max(axis=1, keepdims=True)
    lse = (m + np.log(np.exp(F - m).sum(axis=1, keepdims=True)))[:, 0]
    return float(np.mean(lse - (Y * F).sum(axis=1)))


def residual_gains(base: Any, columns: Sequence[np.ndarray], y: np.ndarray, task: str, folds: list,
                   rounds: int = 10, learning_rate: float = 0.1, max_leaf_nodes: int = 4,
                   min_samples_leaf: int = 20) -> np.ndarray:
    """What each of ``columns`` (1-D arrays, NaN where missing) adds to the raw-column model ``base``,
    scored alone on what that model misses (the first-order screen of OpenFE, Zhang et al. 2023).

    ``base`` is ``(model, M)``: a scikit-learn model (``decision_function`` for classes, ``predict``
    for a real target) and the matrix of the table's columns it reads; None (or ``M`` without
    columns): the training rows' mean or class frequencies.  It is fitted on the training rows of
    each ``(train, test)`` pair of ``folds`` (which must cover every row once as test rows), giving
    every row an out-of-fold raw prediction ``F0``.  Then,
    on each pair, trees on the one column are boosted from ``F0`` on the training rows
    (:func:`_newton_boost`) and scored on the test rows: the gain is the test loss from ``F0`` minus
    the test loss after boosting (log-loss for classes; squared error over the test rows' variance,
    an R^2, for a real target), averaged over the pairs.  Positive: the column explains part of what
    ``base`` gets wrong.  The trees: ``rounds`` rounds of at most ``max_leaf_nodes`` leaves of at
    least ``min_samples_leaf`` rows, shrunk by ``learning_rate``."""
    if isinstance(rounds, bool) or not isinstance(rounds, (int, np.integer)) or rounds < 1:
        raise ValidationError(f"rounds={rounds!r} must be an integer >= 1")
    if not (isinstance(learning_rate, (int, float, np.floating)) and 0 < float(learning_rate) <= 1):
        raise ValidationError(f"learning_rate={learning_rate!r} must be a number in (0, 1]")
    if isinstance(max_leaf_nodes, bool) or not isinstance(max_leaf_nodes, (int, np.integer)) or max_leaf_nodes < 2:
        raise ValidationError(f"max_leaf_nodes={max_leaf_nodes!r} must be an integer >= 2")
    if isinstance(min_samples_leaf, bool) or not isinstance(min_samples_leaf, (int, np.integer)) \
            or min_samples_leaf < 1:
        raise ValidationError(f"min_samples_leaf={min_samples_leaf!r} must be an integer >= 1")
    if task not in ("classification", "regression"):
        raise ValidationError(f"task={task!r}; allowed: 'classification', 'regression'")
    from sklearn.base import clone

    y = np.asarray(y)
    n = y.shape[0]
    if task == "regression":
        Y = y.astype(np.float64).reshape(-1, 1)
    else:
        labels = np.unique(y)
        if labels.size < 2:
            raise ValidationError(f"y holds {labels.size} class; residual gains need at least 2")
        Y = (y[:, None] == labels[None, :]).astype(np.float64)
        if labels.size == 2:
            Y = Y[:, 1:]
    covered = np.zeros(n, dtype=np.int64)
    for _, te in folds:
        covered[np.asarray(te)] += 1
    if not len(folds) or (covered != 1).any():
        raise ValidationError(f"folds must hold every one of the {n} rows exactly once as a test row")
    model, M = base if base is not None else (None, None)
    F0 = np.zeros((n, Y.shape[1]))
    for tr, te in folds:
        if model is None or M is None or M.shape[1] == 0:
            if task == "regression":
                F0[te] = Y[tr].mean(axis=0)
            else:
                p = np.clip(Y[tr].mean(axis=0), 1e-6, 1 - 1e-6)
                if Y.shape[1] == 1:
                    F0[te] = np.log(p / (1 - p))
                else:
                    F0[te] = np.log(p / p.sum())
            continue
        m = clone(model).fit(M[tr], y[tr])
        if task == "regression":
            F0[te] = np.asarray(m.predict(M[te]), dtype=np.float64).reshape(-1, 1)
        else:
            d = np.asarray(m.decision_function(M[te]), dtype=np.float64)
            F0[te] = d.reshape(-1, 1) if d.ndim == 1 else d
    gains = np.zeros(len(columns))
    for i, x in enumerate(columns):
        x = np.asarray(x, dtype=np.float64)
        if x.shape != (n,):
            raise ValidationError(f"columns[{i}] has shape {x.shape}; expected ({n},)")
        total = 0.0
        for tr, te in folds:
            G = _newton_boost(x[tr], F0[tr], Y[tr], task, int(rounds), float(learning_rate), int(max_leaf_nodes),
                              int(min_samples_leaf), x[te], F0[te])
            before, after = _loss(F0[te], Y[te], task), _loss(G, Y[te], task)
            if task == "regression":
                var = float(np.var(Y[te]))
                total += (before - after) / var if var > 0 else 0.0
            else:
                total += before - after
        gains[i] = total / len(folds)
    return gains
