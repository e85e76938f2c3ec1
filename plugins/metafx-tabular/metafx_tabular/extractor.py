"""``TableExtractor``: :class:`metafx.MetaFeatureExtractor` for tables as users have them.

metafx's own ``MetaFeatureExtractor`` validates ``X`` the scikit-learn way
before the family sees it: numeric, finite.  That rejects what the
``tabular`` family reads -- pandas DataFrames with string / ``category``
columns, datetime columns and missing values.  ``TableExtractor`` is the same
transformer with that check left to the family (which raises
:class:`metafx.ValidationError` on what it cannot read) and with defaults for
tables (``family="tabular"``, ``evaluator="cv-linear"``, a small budget)::

    from sklearn.pipeline import make_pipeline, make_union
    from metafx_tabular import TableExtractor

    fx = TableExtractor(budget=10, steps=30).set_output(transform="pandas")
    F = fx.fit(df, y).transform(df)          # a DataFrame: one column per feature, df's index

Output columns are named by the features (``"mean(age by sex)"``); missing
inputs give missing outputs (``family_params={"missing": "zero"}`` fills them).
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from metafx import MetaFeatureExtractor, ValidationError

__all__ = ["TableExtractor"]


class TableExtractor(MetaFeatureExtractor):
    """Learn table features by a budgeted meta-feature search; DataFrames (categorical, datetime,
    missing values) in, features out.  Parameters as :class:`metafx.MetaFeatureExtractor`."""

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
    ) -> None:
        super().__init__(family=family, budget=budget, steps=steps, engine=engine, evaluator=evaluator, seed=seed,
                         fixed=fixed, family_params=family_params, engine_params=engine_params,
                         evaluator_params=evaluator_params, threshold=threshold, progress=progress, n_jobs=n_jobs)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        return tags

    def _validate(self, X: Any, y: Any = None, *, reset: bool) -> tuple[Any, Any]:
        """Record the columns (``n_features_in_``, ``feature_names_in_``); the family validates the values."""
        from sklearn.utils.validation import validate_data

        if self.threshold is not None:
            raise ValidationError(f"threshold={self.threshold!r} only applies to binary-image families; leave it None")
        if not hasattr(X, "iloc"):
            X = np.asarray(X) if not isinstance(X, np.ndarray) else X
            if X.ndim != 2:
                raise ValidationError(f"X must be 2-D (n_samples, n_features), got shape {X.shape}")
        validate_data(self, X, reset=reset, skip_check_array=True)
        if reset:
            from sklearn.utils.multiclass import type_of_target

            y = np.asarray(y)
            if y.ndim == 2 and y.shape[1] == 1:
                y = y.ravel()
            type_of_target(y, input_name="y", raise_unknown=True)
        return X, y
