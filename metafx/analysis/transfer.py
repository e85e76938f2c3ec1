"""Inductive transfer of feature quality between related tasks (thesis section 5.5).

Several *source* tasks share one feature family (e.g. the 45 digit-pair tasks
of MNIST, all on the same pixels).  For a new task with no labelled instances
yet, predict how good each feature will be:

* **direct**: a feature's mean quality over the source tasks
  (:func:`transfer_direct`);
* **indirect**: regress the mean quality on the features' meta-features with a
  :class:`metafx.QualityMap` and predict from the meta-features
  (:func:`transfer_indirect`).  This transfers *which kind* of feature is good
  (pixels at some distance from the centre) rather than which feature.

The meta-features are selectable: the family's own (``x, y`` for ``pixels``),
``["r"]`` (distance from the image centre), or any describers / columns (see
:func:`metafx.quality_map.meta_feature_matrix <metafx.analysis.quality_map.meta_feature_matrix>`).

Example
-------
>>> import numpy as np, metafx
>>> X, y = metafx.load_dataset("digits")
>>> fam = metafx.plugin.get_registry().get("family", "pixels")().fit(X)
>>> tasks = [(X[(y == a) | (y == b)], y[(y == a) | (y == b)]) for a, b in [(0, 1), (2, 3), (0, 3)]]
>>> Q = source_qualities(fam, tasks)
>>> Q.shape
(3, 64)
>>> pred = transfer_quality(fam, tasks, method="indirect", meta_features=["r"])
>>> pred.shape
(64,)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..core.exceptions import ValidationError
from .quality_map import QualityMap, _family, _features, measure_qualities, meta_feature_matrix

__all__ = ["TRANSFER_METHODS", "source_qualities", "transfer_direct", "transfer_indirect", "transfer_quality"]

TRANSFER_METHODS = ("direct", "indirect")


def source_qualities(family: Any, sources: Sequence[tuple[Any, Any]], features: Any = None,
                     scorer: Any = "infogain", scorer_params: Mapping[str, Any] | None = None) -> np.ndarray:
    """Quality of every feature on every source task: an ``(n_sources, n_features)`` matrix.

    Parameters
    ----------
    family : ~metafx.plugin.FeatureFamily or str
        Shared by all tasks (fitted on the first task's data if needed).
    sources : sequence of (X, y)
        The labelled source tasks.
    features : batch, optional
        The features to score (default: all of the family's features).
    scorer, scorer_params
        The per-feature quality (default Infogain), as in :class:`metafx.QualityMap`.
    """
    sources = list(sources)
    if not sources:
        raise ValidationError("sources is empty: inductive transfer needs at least one source task (X, y)")
    for i, s in enumerate(sources):
        if not isinstance(s, (tuple, list)) or len(s) != 2:
            raise ValidationError(f"sources[{i}] must be a pair (X, y)")
    fam = _family(family)
    if getattr(fam, "image_shape", "n/a") is None:
        fam.fit(sources[0][0])
    batch = _features(fam, features)
    return np.stack([measure_qualities(fam, X, y, batch, scorer, scorer_params) for X, y in sources])


def _as_matrix(qualities: Any) -> np.ndarray:
    Q = np.asarray(qualities, dtype=np.float64)
    if Q.ndim == 1:
        Q = Q[None, :]
    if Q.ndim != 2 or Q.shape[0] < 1 or Q.shape[1] < 1:
        raise ValidationError(f"qualities must be (n_sources, n_features), got shape {np.shape(qualities)}")
    if not np.isfinite(Q).all():
        raise ValidationError("qualities contain NaN or infinite values")
    return Q


def transfer_direct(qualities: Any) -> np.ndarray:
    """Direct prediction: each feature's mean quality over the source tasks.

    >>> transfer_direct([[1.0, 0.0], [0.0, 0.0]]).tolist()
    [0.5, 0.0]
    """
    return _as_matrix(qualities).mean(axis=0)


def transfer_indirect(family: Any, qualities: Any, features: Any = None, meta_features: Any = None,
                      regressor: Any = None, domain: Sequence[Sequence[float]] | None = None,
                      predict_features: Any = None) -> np.ndarray:
    """Indirect prediction: a quality map fitted on the sources' mean quality.

    Parameters
    ----------
    family : ~metafx.plugin.FeatureFamily or str
    qualities : array (n_sources, n_features)
        From :func:`source_qualities`, for ``features``.
    features : batch, optional
        The features the qualities belong to (default: all the family's).
    meta_features, regressor, domain
        As in :class:`metafx.QualityMap` (default: the family's own
        meta-features and the RBF-grid ridge regression).
    predict_features : batch, optional
        Features whose quality to predict (default: ``features``); they need
        not have been measured on any source.

    Returns
    -------
    ndarray
        Predicted quality of ``predict_features`` on a new task.
    """
    Q = _as_matrix(qualities)
    fam = _family(family)
    batch = _features(fam, features)
    M, cols = meta_feature_matrix(fam, batch, meta_features)
    if M.shape[0] != Q.shape[1]:
        raise ValidationError(f"qualities has {Q.shape[1]} features but features has {M.shape[0]}")
    qm = QualityMap(regressor=regressor, meta_features=meta_features, domain=domain)
    qm.fit_meta(M, Q.mean(axis=0), columns=cols, family=fam)
    if predict_features is None:
        return qm.smooth()
    return qm.predict(predict_features)


def transfer_quality(family: Any, sources: Sequence[tuple[Any, Any]], features: Any = None,
                     method: str = "indirect", meta_features: Any = None, scorer: Any = "infogain",
                     scorer_params: Mapping[str, Any] | None = None, regressor: Any = None,
                     domain: Sequence[Sequence[float]] | None = None) -> np.ndarray:
    """Predict each feature's quality on a new task from labelled source tasks.

    Parameters
    ----------
    family : ~metafx.plugin.FeatureFamily or str
    sources : sequence of (X, y)
        Labelled source tasks over the same features.
    features : batch, optional
        Default: all of the family's features.
    method : {"indirect", "direct"}
        ``direct``: mean quality over the sources; ``indirect``: through a
        quality map on ``meta_features`` (thesis section 5.5).
    meta_features : sequence, optional
        E.g. ``None`` (the family's own: ``x, y`` for pixels) or ``["r"]``.
    scorer, scorer_params, regressor, domain
        As in :class:`metafx.QualityMap`.

    Returns
    -------
    ndarray (n_features,)
    """
    if method not in TRANSFER_METHODS:
        raise ValidationError(f"method={method!r}; allowed: {', '.join(TRANSFER_METHODS)}")
    fam = _family(family)
    Q = source_qualities(fam, sources, features, scorer, scorer_params)
    if method == "direct":
        return transfer_direct(Q)
    return transfer_indirect(fam, Q, features, meta_features, regressor, domain)
