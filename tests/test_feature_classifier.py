"""metafx.FeatureClassifier: a result's features and a linear SVM as one scikit-learn classifier, equal to the
pipeline it replaces (features -> duplicate merger -> LinearSVC of metafx.learn.svm.fit_linear_svm)."""

from __future__ import annotations

import dataclasses
import json
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.utils.estimator_checks import check_estimator

import metafx
from metafx import SearchResult, ValidationError
from metafx.analysis.evaluation import holdout_error
from metafx.learn.classifier import FeatureClassifier
from metafx.learn.svm import fit_linear_svm


@pytest.fixture(scope="module")
def digits():
    return metafx.load_dataset("digits")


@pytest.fixture(scope="module")
def digits_result(digits):
    X, y = digits
    return metafx.search(X[:500], y[:500], budget=150, steps=4, seed=3, progress=False)


def _random_images(rng, n, shape=(7, 9)):
    return (rng.random((n, *shape)) < 0.35).astype(np.uint8)


def _pipeline(result, X, y, C="cv", random_state=0):
    """The model replaced: features as FeatureValues -> fit_linear_svm (merger, LinearSVC)."""
    family, batch = result.feature_batch()
    model = fit_linear_svm(family.compute(family.prepare(X), batch), y, C=C, random_state=random_state % 2**32)
    return lambda Z: family.compute(family.prepare(Z), batch), model


def _assert_same(result, Xtr, ytr, Xte, C=None, random_state=0):
    clf = FeatureClassifier(result, C=C, random_state=random_state).fit(Xtr, ytr)
    feats, model = _pipeline(result, Xtr, ytr, "cv" if C is None else C, random_state)
    V = feats(Xte)
    np.testing.assert_array_equal(clf.predict(Xte), model.predict(V))
    np.testing.assert_allclose(clf.decision_function(Xte), model.decision_function(V), rtol=0, atol=1e-9)
    assert clf.C_ == model[-1].C
    np.testing.assert_array_equal(clf.classes_, model[-1].classes_)
    # the documented decision: transform(X) @ coef_.T + intercept_, one column per feature of the result
    assert clf.coef_.shape == ((1 if len(clf.classes_) == 2 else len(clf.classes_)), result.n_features)
    dec = result.transform(Xte).astype(np.float64) @ clf.coef_.T + clf.intercept_
    np.testing.assert_allclose(dec.squeeze(1) if dec.shape[1] == 1 else dec, clf.decision_function(Xte),
                               rtol=0, atol=1e-9)
    return clf


def test_equal_to_the_pipeline_on_digits(digits, digits_result):
    X, y = digits
    clf = _assert_same(digits_result, X[:500], y[:500], X[500:1100])
    assert clf.score(X[500:1100], y[500:1100]) == pytest.approx(np.mean(clf.predict(X[500:1100]) == y[500:1100]))


def test_equal_with_binary_labels_and_fixed_c(digits, digits_result):
    X, y = digits
    yb = (y % 2 == 0).astype(np.int64) * 7 + 3  # labels 3 and 10
    clf = _assert_same(digits_result, X[:500], yb[:500], X[500:900])
    assert clf.coef_.shape[0] == 1 and clf.decision_function(X[:5]).shape == (5,)
    _assert_same(digits_result, X[:301], np.where(y[:301] < 5, "low", "high"), X[301:700], C=0.3, random_state=5)


@pytest.mark.parametrize("seed", [0, 1])
def test_equal_on_random_images_of_odd_size(seed):
    rng = np.random.default_rng(seed)
    X = _random_images(rng, 211)
    y = rng.integers(0, 3, 211) + (X[:, 3, 4] * 2)  # labels 0..4, partly learnable
    res = metafx.search(X[:151], y[:151], budget=80, steps=3, seed=seed, progress=False)
    assert res.n_features > 0
    _assert_same(res, X[:151], y[:151], X[151:], random_state=2**40 + seed)


def test_a_feature_set_with_duplicates(digits, digits_result):
    X, y = digits
    feats = digits_result.features
    dup = dataclasses.replace(digits_result, features=feats + feats[: len(feats) // 2] + feats[:3])
    family, batch = dup.feature_batch()
    _, _, counts = family.compute(family.prepare(X[:400]), batch).duplicate_groups()
    assert counts.max() >= 3 and len(counts) < dup.n_features
    clf = _assert_same(dup, X[:400], y[:400], X[400:800])
    # equal features share their merged weight: w_g / sqrt(k) each
    n = len(feats)
    np.testing.assert_allclose(clf.coef_[:, :3], clf.coef_[:, n + n // 2:], rtol=0, atol=1e-15)


def test_the_empty_feature_set_predicts_the_majority(digits, digits_result):
    X, y = digits
    empty = dataclasses.replace(digits_result, features=[])
    for labels in (y[:300], (y[:300] == 1).astype(int), (y[:300] != 1).astype(int)):
        clf = FeatureClassifier(empty).fit(X[:300], labels)
        vals, counts = np.unique(labels, return_counts=True)
        assert clf.coef_.shape[1] == 0
        assert (clf.predict(X[300:340]) == vals[np.argmax(counts)]).all()
        assert np.isnan(clf.C_)
    kept = empty.fit_classifier(X[:300], y[:300])
    back = SearchResult.from_json_text(empty.to_json())
    assert back.classifier["C"] is None
    np.testing.assert_array_equal(FeatureClassifier.from_result(back).predict(X[:9]), kept.predict(X[:9]))


def test_dense_valued_family():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(160, 6))
    y = (X[:, 0] + X[:, 1] * X[:, 2] > 0).astype(int)
    res = metafx.search(X[:120], y[:120], family="tabular", budget=40, steps=2, seed=0, progress=False)
    family, batch = res.feature_batch()
    values = family.compute(family.prepare(X[120:]), batch)
    if res.n_features == 0 or values.packed is not None:
        pytest.skip("the tabular search found no dense-valued features")
    _assert_same(res, X[:120], y[:120], X[120:])


def test_test_error_is_the_pipeline(digits, digits_result):
    X, y = digits
    feats, model = _pipeline(digits_result, X[:500], y[:500])
    err, c = holdout_error(digits_result, X[:500], y[:500], X[500:900], y[500:900])
    assert err == float(np.mean(model.predict(feats(X[500:900])) != y[500:900])) and c == model[-1].C


def test_scikit_learn_conventions(digits, digits_result):
    X, y = digits
    clf = FeatureClassifier(digits_result, C=0.1)
    assert clf.get_params() == {"result": digits_result, "C": 0.1, "Cs": None, "n_splits": 3, "random_state": 0,
                                "shift_copies": "auto"}
    with pytest.raises(NotFittedError):
        clf.predict(X[:3])
    twin = clone(clf)
    assert twin.get_params()["C"] == 0.1 and twin is not clf
    clf.fit(X[:300], y[:300])
    assert not hasattr(twin, "coef_")
    np.testing.assert_array_equal(twin.fit(X[:300], y[:300]).predict(X[300:400]), clf.predict(X[300:400]))
    assert clf.set_params(C=0.03).fit(X[:300], y[:300]).C_ == 0.03
    assert FeatureClassifier(digits_result, C=None, Cs=[0.3]).fit(X[:300], y[:300]).C_ == 0.3


@pytest.mark.parametrize("params, match", [
    ({"C": -1.0}, "C="), ({"C": "best"}, "C="), ({"n_splits": 1}, "n_splits"), ({"random_state": -2}, "random_state"),
    ({"Cs": [0.1, 0]}, "Cs"), ({"Cs": []}, "Cs"), ({"shift_copies": 1}, "shift_copies=1 must be True, False or 'auto'"),
])
def test_bad_parameters_name_themselves(digits, digits_result, params, match):
    X, y = digits
    with pytest.raises(ValidationError, match=match):
        FeatureClassifier(digits_result, **params).fit(X[:200], y[:200])


def test_bad_input():
    with pytest.raises(ValidationError, match="result="):
        FeatureClassifier(None).fit(np.zeros((4, 8, 8)), [0, 1, 0, 1])


def test_kept_with_the_result_through_json(tmp_path, digits, digits_result):
    X, y = digits
    res = dataclasses.replace(digits_result, classifier=None)
    assert "classifier" not in res.to_dict()  # files without one are those of metafx before the field
    clf = res.fit_classifier(X[:400], y[:400], random_state=1)
    c = res.classifier
    assert set(c) == {"classes", "coef", "intercept", "C"} and c["C"] == clf.C_
    assert np.array(c["coef"]).shape == (10, res.n_features) and len(c["intercept"]) == 10
    res.to_json(tmp_path / "r.json")
    back = SearchResult.from_json(tmp_path / "r.json")
    assert back == res and back.classifier == c
    again = FeatureClassifier.from_result(back)
    np.testing.assert_array_equal(again.predict(X[400:800]), clf.predict(X[400:800]))
    np.testing.assert_array_equal(again.decision_function(X[400:800]), clf.decision_function(X[400:800]))
    # binary: one row, positive for classes[1]
    yb = np.where(y[:400] == 3, "three", "other")
    clf2 = res.fit_classifier(X[:400], yb)
    assert res.classifier["classes"] == ["other", "three"] and len(res.classifier["coef"]) == 1
    dec = res.transform(X[400:500]) @ np.array(res.classifier["coef"]).T + res.classifier["intercept"]
    np.testing.assert_array_equal(np.where(dec[:, 0] > 0, "three", "other"), clf2.predict(X[400:500]))
    # keep=False leaves the result alone
    res.fit_classifier(X[:400], y[:400], keep=False)
    assert res.classifier["classes"] == ["other", "three"]
    with pytest.raises(ValidationError, match="fit_classifier"):
        FeatureClassifier.from_result(dataclasses.replace(res, classifier=None))


def test_old_files_load_and_the_reader_checks_the_field(digits, digits_result):
    X, y = digits
    res = dataclasses.replace(digits_result, classifier=None)
    d = json.loads(res.to_json())
    assert "classifier" not in d and SearchResult.from_json_text(json.dumps(d)).classifier is None
    res.fit_classifier(X[:300], y[:300])
    good = json.loads(res.to_json())
    good.pop("checksum")
    n = res.n_features
    assert SearchResult.from_dict(good).classifier == res.classifier

    def changed(**kw):
        d = json.loads(json.dumps(good))
        d["classifier"].update(kw)
        return d

    bad = [
        changed(coef=[[0.0] * (n + 1)] * 10), changed(coef=[[0.0] * n] * 9), changed(coef=[[None] * n] * 10),
        changed(intercept=[0.0] * 3), changed(intercept="x"), changed(C=-1), changed(C="cv"),
        changed(classes=[0]), changed(classes=list(range(9, -1, -1))), changed(classes=[0, 1, 1, 2, 3, 4, 5, 6, 7, 8]),
        changed(classes=[0, "1", 2, 3, 4, 5, 6, 7, 8, 9]), changed(extra=1), dict(good, classifier=[1, 2]),
        dict(good, classifier={k: v for k, v in good["classifier"].items() if k != "C"}),
    ]
    for d in bad:
        with pytest.raises(ValidationError, match="classifier="):
            SearchResult.from_dict(d)


def test_the_cli_keeps_the_final_model(tmp_path, capsys):
    from metafx.cli import main

    out = tmp_path / "res.json"
    assert main(["search", "--data", "digits", "--budget", "40", "--steps", "2", "--n-train", "300", "--n-test",
                 "200", "--no-progress", "--out", str(out)]) == 0
    res = SearchResult.from_json(out)
    _X, _y = metafx.load_dataset("digits")
    assert res.classifier is not None and res.classifier["C"] == res.metadata["final_C"]
    assert np.array(res.classifier["coef"]).shape == (10, res.n_features)
    assert 0 <= res.holdout_error <= 1


def test_lazy_export():
    assert metafx.FeatureClassifier is FeatureClassifier and "FeatureClassifier" in metafx.__all__


# scikit-learn's common checks feed generic 2-D arrays of their own widths (1 to 10 columns, sparse, NaN, negative,
# complex, object); a FeatureClassifier reads the raw data of its result's family, whose width and kind that result
# fixes (here pixel-and on 8 x 8 binary images).  So the checks that fit on such data cannot apply: each must fail
# with the family's refusal of the input (a metafx.ValidationError naming it) or, for the checks of error messages on
# bad input kinds, because the family's message is its own.  Every other check must pass.
_INPUT_KIND_CHECKS = {"check_positive_only_tag_during_fit", "check_complex_data", "check_estimators_empty_data_messages",
                      "check_estimators_nan_inf", "check_estimator_sparse_array", "check_estimator_sparse_matrix",
                      "check_estimator_sparse_tag", "check_fit2d_1feature", "check_fit2d_1sample"}
_MUST_PASS = {"check_no_attributes_set_in_init", "check_get_params_invariance", "check_set_params",
              "check_parameters_default_constructible", "check_classifiers_one_label",
              "check_classifiers_regression_target", "check_requires_y_none", "check_estimator_repr",
              "check_estimator_cloneable", "check_estimator_tags_renamed", "check_valid_tag_types",
              "check_mixin_order", "check_do_not_raise_errors_in_init_or_set_params"}


def test_scikit_learn_estimator_checks(digits_result):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = check_estimator(FeatureClassifier(digits_result, C=0.1), on_fail=None)
    status: dict[str, set] = {}
    for r in out:
        status.setdefault(r["check_name"], set()).add(r["status"])
        if r["status"] != "failed":
            continue
        e = r["exception"]
        refused = isinstance(e, ValidationError) and ("pixels per sample" in str(e) or "0/1 images" in str(e))
        assert refused or r["check_name"] in _INPUT_KIND_CHECKS, (r["check_name"], repr(e))
    missing = {c for c in _MUST_PASS if c in status and status[c] != {"passed"}}
    assert missing == set() and len(_MUST_PASS & set(status)) >= 10


def test_pickles_with_its_result(digits, digits_result):
    import pickle

    X, y = digits
    clf = FeatureClassifier(digits_result).fit(X[:300].reshape(300, -1), y[:300])
    assert clf.n_features_in_ == 64
    back = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(back.decision_function(X[300:400]), clf.decision_function(X[300:400]))


def _naive_shift(img, dy, dx):
    out = np.zeros_like(img)
    for r in range(img.shape[0]):
        for c in range(img.shape[1]):
            if 0 <= r - dy < img.shape[0] and 0 <= c - dx < img.shape[1]:
                out[r, c] = img[r - dy, c - dx]
    return out


@pytest.mark.parametrize("shape", [(3, 7, 9), (2, 1, 5), (4, 6, 1), (1, 2, 2)])
def test_shifted_copies_against_a_loop(shape):
    from metafx.learn.classifier import shifted_copies

    X = _random_images(np.random.default_rng(sum(shape)), shape[0], shape[1:])
    S = shifted_copies(X)
    assert S.shape == (5 * shape[0], *shape[1:]) and S.dtype == X.dtype
    for k, (dy, dx) in enumerate([(0, 0), (1, 0), (-1, 0), (0, 1), (0, -1)]):
        for i in range(shape[0]):
            np.testing.assert_array_equal(S[k * shape[0] + i], _naive_shift(X[i], dy, dx))


def test_shift_copies_fits_on_the_shifted_images_with_the_c_of_the_images(digits, digits_result):
    from metafx.learn.classifier import shifted_copies

    X, y = digits
    plain = FeatureClassifier(digits_result, random_state=2).fit(X[:300], y[:300])
    clf = FeatureClassifier(digits_result, random_state=2, shift_copies=True).fit(X[:300], y[:300])
    assert clf.C_ == plain.C_
    # the same as a fixed-C fit on the images and their copies, by hand
    twin = FeatureClassifier(digits_result, C=plain.C_, random_state=2).fit(shifted_copies(X[:300]), np.tile(y[:300], 5))
    np.testing.assert_allclose(clf.coef_, twin.coef_, rtol=0, atol=1e-12)
    np.testing.assert_allclose(clf.intercept_, twin.intercept_, rtol=0, atol=1e-12)
    assert clf.coef_.shape == plain.coef_.shape and not np.allclose(clf.coef_, plain.coef_)
    np.testing.assert_array_equal(clf.predict(X[300:400]), twin.predict(X[300:400]))


def test_shift_copies_take_flat_images_of_the_family_shape_and_refuse_others(digits, digits_result):
    X, y = digits
    images = FeatureClassifier(digits_result, shift_copies=True).fit(X[:200], y[:200])
    flat = FeatureClassifier(digits_result, shift_copies=True).fit(X[:200].reshape(200, -1), y[:200])
    np.testing.assert_array_equal(flat.coef_, images.coef_)
    with pytest.raises(ValidationError, match="60 pixels per sample but image_shape"):
        FeatureClassifier(digits_result, shift_copies=True).fit(X[:200].reshape(200, -1)[:, :60], y[:200])


def test_shift_copies_auto_follows_the_family(digits, digits_result):
    """"auto": on for the built-in image families from 16 x 16 pixels (RULE_DEFAULTS_IMAGES2.md), off on the 8 x 8
    digits and for a family without a ``default_shift_copies`` rule."""
    X, y = digits
    assert FeatureClassifier(digits_result).fit(X[:200], y[:200]).shift_copies_ is False
    family = digits_result.feature_batch()[0]
    assert family.default_shift_copies() is False
    assert type(family)(image_shape=(16, 16)).default_shift_copies() is True
    assert type(family)(image_shape=(28, 15)).default_shift_copies() is False
