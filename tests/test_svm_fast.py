"""``LiblinearOvR`` (the evaluator's per-fold fits) against ``LinearSVC`` itself: the same
coefficients bit for bit, with and without scikit-learn's per-fit checks."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
import sklearn
from sklearn.exceptions import ConvergenceWarning

from metafx.learn.svm import LiblinearOvR, linear_svc


def _design(rng, n, d, density):
    X = sp.random(n, d, density=density, format="csr", random_state=rng, data_rvs=lambda k: rng.random(k) + 0.5)
    X.indices = X.indices.astype(np.int32)
    X.indptr = X.indptr.astype(np.int32)
    return X


def _reference(X, y, C, tol, max_iter=2000):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        m = linear_svc(C, None, max_iter=max_iter, tol=tol, dual=True).fit(X, y)
    return m.coef_, m.intercept_, m.classes_


@pytest.mark.parametrize("n,d,n_classes,density", [(1, 3, 1, 0.5), (37, 5, 2, 0.3), (129, 70, 3, 0.1),
                                                     (200, 1, 10, 0.9), (65, 40, 4, 0.0)])
@pytest.mark.parametrize("tol", [0.1, 1e-3])
def test_same_coefficients_as_linear_svc(n, d, n_classes, density, tol):
    rng = np.random.default_rng(n * 7 + d)
    X = _design(rng, n, d, density)
    y = rng.integers(0, max(n_classes, 1), n) if n_classes > 1 else np.zeros(n, int)
    y[:n_classes] = np.arange(n_classes)[: min(n, n_classes)]
    if len(np.unique(y)) < 2:
        with pytest.raises(ValueError, match="at least 2 classes"):
            LiblinearOvR(y, 0.1, tol, 2000).fit(X)
        return
    coef, intercept, classes = _reference(X, y, 0.1, tol)
    fast = LiblinearOvR(y, 0.1, tol, 2000)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        c2, i2 = fast.fit(X)
        c3, _i3 = fast.fit(X)  # a second fit on the same object: same answer
    assert c2.shape == coef.shape and i2.shape == intercept.shape
    np.testing.assert_array_equal(c2, coef)
    np.testing.assert_array_equal(i2, intercept)
    np.testing.assert_array_equal(c3, coef)
    np.testing.assert_array_equal(fast.classes_, classes)


def test_string_labels_other_formats_and_skipped_checks():
    rng = np.random.default_rng(3)
    X = _design(rng, 90, 12, 0.25)
    y = np.array(["a", "b", "c"])[rng.integers(0, 3, 90)]
    coef, intercept, classes = _reference(X, y, 0.3, 0.1)
    fast = LiblinearOvR(y, 0.3, 0.1, 2000)
    np.testing.assert_array_equal(fast.fit(X)[0], coef)
    np.testing.assert_array_equal(fast.classes_, classes)
    # a dense or COO design: the same answer
    np.testing.assert_array_equal(fast.fit(X.toarray())[0], coef)
    np.testing.assert_array_equal(fast.fit(X.tocoo())[1], intercept)
    # scikit-learn's per-fit checks switched off, as the evaluator does: the same answer
    with sklearn.config_context(assume_finite=True, skip_parameter_validation=True):
        np.testing.assert_array_equal(fast.fit(X)[0], coef)


def test_convergence_warning_like_linear_svc():
    rng = np.random.default_rng(5)
    X = _design(rng, 150, 30, 0.4)
    y = rng.integers(0, 3, 150)
    with pytest.warns(ConvergenceWarning, match="failed to converge"):
        LiblinearOvR(y, 10.0, 1e-8, 2).fit(X)


def test_quiet(capfd):
    rng = np.random.default_rng(6)
    X = _design(rng, 60, 8, 0.3)
    linear_svc(0.1, None, dual=True).set_params(verbose=1).fit(X, rng.integers(0, 2, 60))  # switches liblinear on
    capfd.readouterr()
    LiblinearOvR(rng.integers(0, 2, 60), 0.1, 0.1, 2000).fit(X)
    assert capfd.readouterr().out == ""
