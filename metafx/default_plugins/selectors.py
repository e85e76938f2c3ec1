"""Feature selectors: return the indices of a feature subset.

``top-n``
    The ``n`` best columns by any registered per-feature scorer.
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from ..base import FeatureScorer, FeatureSelector
from ..exceptions import ValidationError
from .evaluator_utils import check_int, check_xy

__all__ = ["TopN", "rank_scores"]


def rank_scores(scores: np.ndarray) -> np.ndarray:
    """Column indices by decreasing score; ties keep the lower index first."""
    return np.argsort(-np.asarray(scores, dtype=np.float64), kind="stable")


class TopN(FeatureSelector):
    """The ``n`` best-scoring columns, best first.

    Parameters
    ----------
    scorer : str, default "infogain"
        A registered per-feature scorer.
    n : int or None, default None
        How many columns to return (``None``: all, ranked).  Ties are broken
        in favour of the lower column index.
    scorer_params : dict, optional
        Constructor parameters of the scorer.

    Examples
    --------
    >>> import numpy as np, metafx
    >>> X = np.array([[0, 1, 0], [0, 1, 1], [1, 0, 0], [1, 1, 1]])
    >>> metafx.select_features(X, [0, 0, 1, 1], "top-n", scorer="infogain", n=2)
    array([0, 1])
    """

    name = "top-n"
    summary = "the n best columns by a per-feature scorer (scorer=, n=)"

    def __init__(self, scorer: str = "infogain", n: int | None = None,
                 scorer_params: Mapping[str, Any] | None = None) -> None:
        self.scorer = scorer
        self.n = n
        self.scorer_params = scorer_params
        check_int("n", n, 0, allow_none=True)
        if scorer_params is not None and not isinstance(scorer_params, Mapping):
            raise ValidationError(f"scorer_params={scorer_params!r} must be a dict of scorer parameters or None")
        self._scorer = self._make_scorer()

    def _make_scorer(self) -> FeatureScorer:
        from .._api import make_component

        if isinstance(self.scorer, FeatureScorer):
            if self.scorer_params:
                raise ValidationError("scorer_params were given with an already constructed scorer")
            return self.scorer
        from ..scoring import _lookup, scorer_names

        cls = _lookup(self.scorer, (FeatureScorer,), "per-feature scorer", scorer_names())
        return make_component("evaluator", cls, dict(self.scorer_params or {}), base=FeatureScorer)

    def select(self, X, y) -> np.ndarray:
        values, _ = check_xy(X, y, task=getattr(self._scorer, "task", "classification"))
        scores = self._scorer.score(X, y)
        order = rank_scores(scores)
        n = values.n_features if self.n is None else min(int(self.n), values.n_features)
        return order[:n].astype(np.intp)
