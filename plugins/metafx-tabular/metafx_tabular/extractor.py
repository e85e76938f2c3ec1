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
"""

from __future__ import annotations

from typing import Any, Mapping

from metafx import MetaFeatureExtractor

__all__ = ["TableExtractor"]


class TableExtractor(MetaFeatureExtractor):
    """Learn table features by a budgeted meta-feature search; DataFrames (categorical, datetime,
    missing values) in, features out.  Parameters as :class:`metafx.MetaFeatureExtractor`."""

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
    ) -> None:
        super().__init__(family=family, budget=budget, steps=steps, engine=engine, evaluator=evaluator, seed=seed,
                         fixed=fixed, family_params=family_params, engine_params=engine_params,
                         evaluator_params=evaluator_params, threshold=threshold, progress=progress, n_jobs=n_jobs,
                         warm_start=warm_start, oversample=oversample, timeout=timeout)
