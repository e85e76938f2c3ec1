"""MetaFeatureExtractor with the tabular family passes scikit-learn's estimator checks."""

from __future__ import annotations

from sklearn.utils.estimator_checks import parametrize_with_checks

from metafx import MetaFeatureExtractor


# Two-fold CV in the evaluator because some checks fit on 20-30 rows with three classes.
@parametrize_with_checks([
    MetaFeatureExtractor(family="tabular", evaluator="cv-linear", budget=4, steps=2,
                         evaluator_params={"n_splits": 2}),
])
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_table_extractor_refuses_mixed_labels_as_search_does():
    """One label rule (issue 45): labels mixing strings and numbers are refused before the search, as
    metafx.search refuses them, not turned into strings by NumPy."""
    import numpy as np
    import pandas as pd
    import pytest

    import metafx
    from metafx_tabular import TableExtractor

    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(40, 3)), columns=list("abc"))
    for y in ([1, "a"] * 20, pd.Series([1, "a"] * 20), np.array([1, "a"] * 20, dtype=object)):
        for starts in ("default", "groups"):
            with pytest.raises(metafx.ValidationError, match="mixes label types"):
                TableExtractor(budget=5, steps=2, progress=False, starts=starts).fit(X, y)
        with pytest.raises(metafx.ValidationError, match="mixes label types"):
            metafx.search(X, y, family="tabular", budget=5, steps=1, progress=False)
