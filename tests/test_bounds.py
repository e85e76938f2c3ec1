"""metafx.bounds against values worked out by hand (see each comment)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import metafx
from metafx.core.exceptions import ValidationError
from metafx.learn import bounds


def test_g_of_J_takes_the_smaller_of_both_lemmas():
    # J ln 2 = 20 * 0.693147 = 13.8629 ; ln(J |MF|) = ln(2000) = 7.6009
    assert bounds.g_mufasa(20, 100) == pytest.approx(7.600902459542082)
    # |MF| huge: 2^J wins
    assert bounds.g_mufasa(20, 1e12) == pytest.approx(13.862943611198906)
    assert bounds.g_mufasa(20) == pytest.approx(20 * math.log(2))
    # thesis 5.4.1: J = 50 and ln(J|MF|) ~ 11 means |MF| ~ 1200
    assert bounds.g_mufasa(50, 1200) == pytest.approx(11.0, abs=0.01)


def test_mufasa_bound_hand_computed():
    # m=1000, gamma=0.5, delta=0.1, d=4, J=20, |MF|=100:
    # capacity = 4 ln(34 e 1000/4) log2(578000) = 769.2897
    # confidence = ln(8/0.05) = 5.0752 ; g = 7.6009
    # gap = sqrt(2/1000 * 781.9658) = 1.250573
    b = bounds.mufasa_bound(1000, 0.5, 0.1, 4, 20, 100, train_error=0.05)
    assert b.terms["capacity d ln(34em/d) log(578m)"] == pytest.approx(769.289744129273)
    assert b.terms["confidence ln(8/(gamma delta))"] == pytest.approx(5.075173815233827)
    assert b.gap == pytest.approx(1.250572525209193)
    assert b.value == pytest.approx(1.300572525209193)
    assert b.vacuous
    # Theorem 5.1 minus g(J) is Theorem 5.2
    b2 = bounds.margin_bound(1000, 0.5, 0.1, 4)
    assert b2.gap == pytest.approx(math.sqrt(2 / 1000 * (769.289744129273 + 5.075173815233827)))
    assert math.isnan(b2.value) and b2.train_error is None


def test_margin_bound_shrinks_with_m_and_breaks_down_for_huge_d():
    gaps = [bounds.margin_bound(m, 1.0, 0.05, 10).gap for m in (10**3, 10**4, 10**5, 10**6)]
    assert all(a > b for a, b in itertools.pairwise(gaps))
    assert gaps[-1] < 0.1
    assert bounds.margin_bound(100, 1.0, 0.05, 1e6).gap == math.inf


def test_theorem_3_1_hand_computed():
    # m=1e6, |F|=2, N=50, gamma=0.5, R=1, delta=0.05: d = (64/0.5)^2 = 16384
    # gap = sqrt(2e-6 (d ln(34e 1e6/d) log2(578e6) + ln(8/0.025) + 3 ln 50)) = 2.870270
    b = bounds.nn_selection_bound(10**6, 2, 50, 0.5, 0.05)
    assert b.terms["d"] == 16384.0
    assert b.terms["selection (|F|+1) ln N"] == pytest.approx(3 * math.log(50))
    assert b.gap == pytest.approx(2.870269509199668)
    # |F| in the exponent: 200 features make d overflow -> vacuous, not an error
    assert bounds.nn_selection_bound(1000, 200, 500, 0.1, 0.05).gap == math.inf


def test_vc_bounds_hand_computed():
    # eq 5.6: d_c=21, N=30, n=3: C(30,3)=4060 -> (21 + log2 4060 + 1) log2 21 = 149.2829
    assert bounds.vc_direct_selection(21, 30, 3) == pytest.approx(149.28285187280775)
    # Theorem 5.3: d_s=5: (21 + 5 log2(e 30/5) + 1) log2 21 = 185.0847
    assert bounds.vc_meta_selection(21, 5, 30) == pytest.approx(185.08473526613474)
    # Lemma 5.4 with |H_fs| = 2^10
    assert bounds.vc_joint(16, 10) == pytest.approx(27 * 4)
    # worked case 2 of the thesis: k meta-features << n selected features => smaller bound
    n, k, N = 300, 4, 10**6
    assert bounds.vc_meta_selection(n + 1, k + 1, N) < bounds.vc_direct_selection(n + 1, N, n) / 10
    with pytest.raises(ValidationError, match="d_c"):
        bounds.vc_joint(5, 3)


def test_compression_bounds_hand_computed():
    # (i) n=1000, |S~|=10, delta=0.05: (10 ln 1000 + ln 1000 + ln 20)/990 = 0.0797788
    b = bounds.compression_bound(1000, 10, 0.05)
    assert b.value == pytest.approx(0.07977882862864394)
    # (ii) n=500, |S~|=20, eps=0.02, delta=0.1:
    # 0.02*500/480 + sqrt((20 ln 500 + 2 ln 500 + ln 10)/960) = 0.4013811
    b = bounds.compression_bound(500, 20, 0.1, eps=0.02)
    assert b.value == pytest.approx(0.401381133739595)
    assert b.train_error == 0.02
    assert bounds.compression_bound(100, 100, 0.1).gap == math.inf
    with pytest.raises(ValidationError, match="eps"):
        bounds.compression_bound(100, 5, 0.1, eps=0.1, consistent=True)


def test_condensed_nn_corollary_hand_computed():
    # gamma=0.3 -> ceil(1/0.3)=4 ; ddim=1.5 -> l = 4^2.5 = 32
    # n=5000, eps=0.01, delta=0.1: 0.01*5000/4968 + sqrt((32 ln 5000 + 2 ln 5000 + ln 10)/(2*4968)) = 0.1814608
    b = bounds.condensed_nn_bound(5000, 0.3, 1.5, 0.1, eps=0.01)
    assert b.terms["l"] == 32.0
    assert b.value == pytest.approx(0.18146081362742406)
    assert bounds.condensed_nn_bound(100, 0.01, 8, 0.1).gap == math.inf


def test_gaussian_calculator_matches_hand_values_and_table():
    # mu = (1, 0.5), m = 4: f(1) = 1/sqrt(1/4 + 1) = 0.894427 ; f(2) = 1.25/sqrt(2/4 + 1.25) = 0.944911
    f = bounds.gaussian_margin_f([0.5, 1.0], 4)  # sorted internally
    np.testing.assert_allclose(f, [0.894427191, 0.944911183], rtol=1e-8)
    r = bounds.optimal_n_features([1.0, 0.5], 4)
    assert r.n_opt == 2
    assert r.error == pytest.approx(0.5 * math.erfc(0.944911183 / math.sqrt(2)))
    assert r.bayes_error == pytest.approx(0.5 * math.erfc(math.sqrt(1.25) / math.sqrt(2)))
    # thesis chapter 2 examples (n <= 1000): n_opt grows like log2(m ln 2), sqrt(m), m
    j = np.arange(1, 1001)
    table = {  # (mu, m) -> (n_opt, error)
        ("exp", 16): (4, 0.195), ("exp", 225): (7, 0.163),
        ("1/j", 16): (4, 0.136), ("1/j", 100): (10, 0.114), ("1/j", 225): (15, 0.109),
        ("1/sqrt", 16): (31, 0.050), ("1/sqrt", 100): (154, 0.018),
    }
    mus = {"exp": 1 / np.sqrt(2.0 ** j), "1/j": 1 / j, "1/sqrt": 1 / np.sqrt(j)}
    for (name, m), (n_opt, err) in table.items():
        r = bounds.optimal_n_features(mus[name], m)
        assert (r.n_opt, round(r.error, 3)) == (n_opt, err), (name, m)
    # Trunk's example: mu_j = 1/sqrt(j), n = m features: < 5% at m = 20, ~1% at m = 300
    assert bounds.optimal_n_features(1 / np.sqrt(np.arange(1, 21)), 20).errors[-1] < 0.05
    assert bounds.optimal_n_features(1 / np.sqrt(np.arange(1, 301)), 300).errors[-1] < 0.0101


def test_bad_input_names_the_parameter():
    with pytest.raises(ValidationError, match="delta"):
        bounds.margin_bound(100, 1.0, 1.5, 3)
    with pytest.raises(ValidationError, match="gamma"):
        bounds.mufasa_bound(100, 0.0, 0.1, 3, 5)
    with pytest.raises(ValidationError, match="m="):
        bounds.margin_bound(0, 1.0, 0.1, 3)
    with pytest.raises(ValidationError, match="mu"):
        bounds.optimal_n_features([0.0, 0.0], 10)


def test_search_result_bound_uses_what_the_result_knows(digits):
    X, y = digits
    res = metafx.search(X[:300], y[:300] % 2, budget=20, steps=4, engine="mufasa", seed=0, progress=False)  # 2 classes
    b = res.bound(delta=0.05, gamma=0.5, train_error=0.1)
    # pixel-and has a continuous meta-feature (scatter): |MF| = inf -> g(J) = J ln 2
    assert res.metadata["space_size"] == math.inf
    assert b.terms["g(J)"] == pytest.approx(4 * math.log(2))
    assert b.terms["m"] == 300 and b.terms["d"] == res.n_features + 1
    ref = bounds.mufasa_bound(300, 0.5, 0.05, res.n_features + 1, 4, math.inf, train_error=0.1)
    assert b.value == pytest.approx(ref.value)
    # overrides, and a JSON round trip keeps what the bound needs
    b2 = metafx.SearchResult.from_json_text(res.to_json()).bound(gamma=0.5, space_size=2, fat_d=3)
    assert b2.terms["g(J)"] == pytest.approx(math.log(8))
    n = res.n_features
    assert b.terms["direct n ln(n 2^J)"] == pytest.approx(n * (math.log(n) + 4 * math.log(2)))


def test_search_bound_applies_only_where_theorem_5_1_holds(digits):
    """Theorem 5.1 counts (c + 1)^J outcomes of a search steered by the data only through accept/reject; it
    is refused where the data steer the search otherwise."""
    X, y = digits
    y = y % 2  # the theorem is for two classes
    kw = dict(budget=30, steps=4, seed=0, progress=False)
    plain = metafx.search(X[:300], y[:300], engine="mufasa", **kw)
    assert plain.bound().terms["g(J)"] == pytest.approx(4 * math.log(2))
    three = metafx.search(X[:300], y[:300], engine="mufasa", engine_params={"n_candidates": 3}, **kw)
    assert three.bound().terms["g(J)"] == pytest.approx(4 * math.log(4))
    rnd = metafx.search(X[:300], y[:300], engine="random", **kw)
    assert rnd.bound().terms["g(J)"] == pytest.approx(4 * math.log(2))
    for other in (dict(oversample=2), dict(engine="optuna"), dict(engine="ranked")):
        res = metafx.search(X[:300], y[:300], **{**kw, **other})
        with pytest.raises(metafx.MetafxError, match=r"Theorem 5.1 does not apply to this search"):
            res.bound()
