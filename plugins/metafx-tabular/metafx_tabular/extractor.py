"""``TableExtractor``: :class:`metafx.MetaFeatureExtractor` for tables as users have them.

The ``tabular`` family reads pandas DataFrames with string / ``category``
columns, datetime columns and missing values (it sets ``accepts_frames =
True``, so ``MetaFeatureExtractor`` leaves their validation to the family,
which raises :class:`metafx.ValidationError` on what it cannot read).
``TableExtractor`` is ``MetaFeatureExtractor`` with defaults for tables
(``family="tabular"``, ``evaluator="cv-linear"``, a small budget)::

    from sklearn.pipeline import make_pipeline, make_union
    from metafx_tabular import TableExtractor

    fx = TableExtractor(budget=10, steps=30).set_output(transform="pandas")
    F = fx.fit(df, y).transform(df)          # a DataFrame: one column per feature, df's index

Output columns are named by the features (``"mean(age by sex)"``); missing
inputs give missing outputs (``family_params={"missing": "zero"}`` fills them).

By default (``confirm=True``) the search's best set is scored once more, with the
table's columns alone beside it, on a fresh split of the training rows (the
evaluator's own protocol, another seed).  The best of many noisy scores is
optimistic, so a set that only won the search's split by luck can be worse
than the columns alone; such a set is dropped and the extractor outputs no
features (``confirmation_`` says what was measured; ``result_`` keeps the
search as it ran).
"""

from __future__ import annotations

import copy
from typing import Any, Mapping

import numpy as np

from metafx import FeatureFamily, MetaFeatureExtractor, SearchResult, ValidationError, make_component

__all__ = ["TableExtractor"]


class TableExtractor(MetaFeatureExtractor):
    """Learn table features by a budgeted meta-feature search; DataFrames (categorical, datetime,
    missing values) in, features out.  Parameters as :class:`metafx.MetaFeatureExtractor`, and:

    Parameters
    ----------
    confirm : bool, default True
        Keep the search's best set only if, on a fresh split of the training rows (the evaluator's
        protocol with a seed derived from the search's), it scores higher than the table's columns
        alone; otherwise output no features.  Costs two more evaluations.
    starts : {"default", "groups"}, default "groups"
        ``"groups"``: the search's first steps evaluate one point per operator group the table
        enables (arithmetic, missing values, categories, dates: ``TabularFamily.group_starts``), and
        Mufasa goes on from the best of them, before any ``warm_start`` points; on a numeric table
        without missing values there is one group and the search is the same.  ``"default"``: the
        family's default point only.

    Attributes
    ----------
    confirmation_ : dict or None
        With ``confirm``: ``{"quality": ..., "columns_quality": ..., "kept": bool, "seed": ...}``, the
        set's and the columns' scores on the fresh split; None without ``confirm`` or when the search
        chose no feature.  When ``kept`` is False, ``features_`` is empty and ``transform`` returns
        ``(n_samples, 0)``; ``result_`` and ``best_point_`` still describe the search.
    """

    frames = True  # X (a DataFrame or an array with NaN) is validated by the family

    def __init__(
        self,
        family: Any = "tabular",
        budget: float = 12.0,
        steps: int = 30,
        engine: Any = "mufasa",
        evaluator: Any = "cv-linear",
        seed: int | None = 0,
        fixed: Mapping[str, Any] | None = None,
        family_params: Mapping[str, Any] | None = None,
        engine_params: Mapping[str, Any] | None = None,
        evaluator_params: Mapping[str, Any] | None = None,
        threshold: float | None = None,
        progress: bool = False,
        n_jobs: int = 1,
        warm_start: Any = None,
        oversample: float = 1.0,
        timeout: float | None = None,
        confirm: bool = True,
        starts: str = "groups",
    ) -> None:
        self.confirm = confirm
        self.starts = starts
        super().__init__(family=family, budget=budget, steps=steps, engine=engine, evaluator=evaluator, seed=seed,
                         fixed=fixed, family_params=family_params, engine_params=engine_params,
                         evaluator_params=evaluator_params, threshold=threshold, progress=progress, n_jobs=n_jobs,
                         warm_start=warm_start, oversample=oversample, timeout=timeout)

    def fit(self, X: Any, y: Any) -> TableExtractor:
        """Search, then (``confirm=True``) check the best set against the table's columns alone."""
        if not isinstance(self.confirm, (bool, np.bool_)):
            raise ValidationError(f"confirm={self.confirm!r} must be True or False")
        if self.starts not in ("default", "groups"):
            raise ValidationError(f"starts={self.starts!r}; allowed: 'default', 'groups'")
        yv = np.asarray(y)
        if yv.ndim == 2 and yv.shape[1] == 1:  # a column vector, as the search reads it
            yv = yv.ravel()
        self._group_starts = self._starts_of(X, yv) if self.starts == "groups" else []
        try:
            super().fit(X, y)
        finally:
            del self._group_starts
        self.confirmation_ = None
        if not self.confirm or not len(self._batch):
            return self
        Xv, _ = self._validate(X, reset=False)
        evaluator = make_component("evaluator", self.evaluator,
                                   None if self.evaluator_params is None else dict(self.evaluator_params))
        prepared = self.family_.prepare(Xv)
        # a seed of its own, derived from the search's: the same fit confirms on the same split
        seed = int(np.random.SeedSequence([int(self.result_.seed), 1]).generate_state(1)[0])
        q_set = float(evaluator.evaluate(self.family_.compute(prepared, self._batch), yv, random_state=seed))
        empty = self._batch.take([])
        q_cols = float(evaluator.evaluate(self.family_.compute(prepared, empty), yv, random_state=seed))
        kept = q_set > q_cols
        self.confirmation_ = {"quality": q_set, "columns_quality": q_cols, "kept": bool(kept), "seed": seed}
        if not kept:
            self._batch = empty
            self.features_ = []
            self.n_features_out_ = 0
        return self

    def _starts_of(self, X: Any, y: np.ndarray) -> list[dict[str, Any]]:
        """The family's ``group_starts`` on ``X`` (none when it has one group or is not a table family)."""
        built = isinstance(self.family, FeatureFamily)  # an instance: its own parameters
        family = make_component("family", copy.deepcopy(self.family) if built else self.family,
                                None if built or self.family_params is None else dict(self.family_params))
        if not hasattr(family, "group_starts"):
            return []
        family.fit(X, y)
        points = family.group_starts()
        return points if len(points) > 1 else []

    def _warm_start(self) -> Any:
        """The group starts (``starts="groups"``), then ``warm_start``'s points."""
        given = super()._warm_start()
        starts = list(getattr(self, "_group_starts", []))
        if not starts:
            return given
        if given is None:
            return starts
        return starts + ([given] if isinstance(given, (Mapping, SearchResult)) else list(given))
