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
