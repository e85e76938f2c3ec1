"""The evaluators' own cross-validation loop gives what scikit-learn's ``cross_val_score`` gives, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.impute import SimpleImputer
from sklearn.model_selection import RepeatedKFold, RepeatedStratifiedKFold, cross_val_score
from sklearn.pipeline import make_pipeline

from metafx_tabular import CVLinear, CVTree
from metafx_tabular.evaluator import _cross_val_scores, _splits


@pytest.mark.parametrize("task,n_classes", [("classification", 2), ("classification", 3), ("regression", 0)])
@pytest.mark.parametrize("cls", [CVLinear, CVTree])
@pytest.mark.parametrize("missing", [False, True])
def test_same_scores_as_cross_val_score(task, n_classes, cls, missing):
    rng = np.random.default_rng(7 + n_classes)
    n = 123  # odd size: unequal folds
    M = rng.normal(size=(n, 4))
    if task == "classification":
        y = rng.integers(0, n_classes, size=n)
        cv = RepeatedStratifiedKFold(n_splits=3, n_repeats=2, random_state=5)
        scoring = "neg_log_loss"
    else:
        y = M[:, 0] - M[:, 1] ** 2 + rng.normal(size=n)
        cv = RepeatedKFold(n_splits=3, n_repeats=2, random_state=5)
        scoring = "r2"
    model = cls(max_iter=20)._model(task, empty=False)
    if missing:
        M[rng.random(M.shape) < 0.1] = np.nan
        model = make_pipeline(SimpleImputer(strategy="mean", add_indicator=True, keep_empty_features=True), model)
    want = cross_val_score(model, M, y, cv=cv, scoring=scoring)
    got = _cross_val_scores(model, M, y, _splits(cv, y), scoring)
    assert np.array_equal(got, want)


def test_splits_are_remembered_per_seed_and_target():
    y = np.arange(40) % 2
    a = _splits(RepeatedStratifiedKFold(n_splits=4, n_repeats=2, random_state=1), y)
    assert a is _splits(RepeatedStratifiedKFold(n_splits=4, n_repeats=2, random_state=1), y)
    b = _splits(RepeatedStratifiedKFold(n_splits=4, n_repeats=2, random_state=2), y)
    assert len(a) == len(b) == 8 and not all(np.array_equal(p[0], q[0]) for p, q in zip(a, b, strict=True))
    c = _splits(RepeatedStratifiedKFold(n_splits=4, n_repeats=2, random_state=1), y[::-1].copy() * 3)
    assert c is not a


def test_a_failing_fit_scores_nan_with_a_warning_as_cross_val_score():
    from sklearn.base import BaseEstimator, ClassifierMixin

    class Fails(ClassifierMixin, BaseEstimator):
        def fit(self, X, y):
            raise RuntimeError("no")

    y = np.arange(30) % 2
    M = np.random.default_rng(0).normal(size=(30, 2))
    folds = _splits(RepeatedStratifiedKFold(n_splits=3, n_repeats=1, random_state=0), y)
    with pytest.warns(UserWarning, match="fit failed"):
        got = _cross_val_scores(Fails(), M, y, folds, "neg_log_loss")
    assert np.isnan(got).all() and got.shape == (3,)


def test_a_repeated_set_is_scored_once_with_the_same_score(monkeypatch):
    """The same (evaluator parameters, matrix, y, seed) is fitted once; anything else is fitted again."""
    import metafx_tabular.evaluator as ev_mod

    rng = np.random.default_rng(4)
    X = rng.normal(size=(90, 3))
    y = (X[:, 0] + rng.normal(size=90) > 0).astype(int)
    ev_mod._SCORES.clear()
    fits = []
    real = ev_mod._cross_val_scores
    monkeypatch.setattr(ev_mod, "_cross_val_scores", lambda *a, **k: fits.append(1) or real(*a, **k))
    for cls in (CVLinear, CVTree):
        first = cls().evaluate(X, y, random_state=0)
        n = len(fits)
        assert cls().evaluate(X.copy(), y.copy(), random_state=0) == first and len(fits) == n   # remembered
        ev_mod._SCORES.clear()
        assert cls().evaluate(X, y, random_state=0) == first and len(fits) == n + 1             # the same, fitted
        for other in (dict(random_state=1), dict(random_state=None)):                           # another split
            cls().evaluate(X, y, **other)
        cls(n_splits=4).evaluate(X, y, random_state=0)                                           # other parameters
        cls().evaluate(X, 1 - y, random_state=0)                                                 # another target
        X2 = X.copy()
        X2[0, 0] += 1e-9
        cls().evaluate(X2, y, random_state=0)                                                    # another matrix
        assert len(fits) == n + 6
    assert CVLinear().evaluate(X, y, random_state=0) != CVTree().evaluate(X, y, random_state=0)
