"""Theorems 3 and 4 of Teng, Chen & Dang (2011) against the references of tests/naive_bounds.py."""

import math

import naive_bounds as nb
import numpy as np
import pytest

import metafx
from metafx.learn import potential_bounds as pb


@pytest.mark.parametrize("m,K,seed", [(7, 2, 0), (13, 3, 1), (20, 4, 2), (2, 2, 3)])
def test_loo_margins_match_reference(m, K, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, 3))
    y = list(rng.integers(0, K, m))
    for sigma in (0.3, 1.0, 4.0):
        got = pb.pfr_loo_margins(X, y, sigma)
        ref = nb.loo_margins(X, y, lambda a, b, sigma=sigma: nb.psi_gaussian(a, b, sigma))
        np.testing.assert_allclose(got, ref, rtol=1e-10, atol=1e-13)
    got = pb.pfr_loo_margins(X, y, None, kernel="sinc", s=0.4)
    ref = nb.loo_margins(X, y, lambda a, b: nb.psi_sinc(a, b, 0.4))
    np.testing.assert_allclose(got, ref, rtol=1e-10, atol=1e-13)


def test_loo_margins_chunking_and_duplicates():
    rng = np.random.default_rng(5)
    X = np.repeat(rng.normal(size=(9, 2)), 3, axis=0)
    y = rng.integers(0, 3, 27)
    np.testing.assert_allclose(pb.pfr_loo_margins(X, y, 0.7, chunk=4), pb.pfr_loo_margins(X, y, 0.7), rtol=1e-12)


@pytest.mark.parametrize("alpha", [0.01, 0.1, 0.5, 2.0])
def test_theorem4_matches_reference(alpha):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(31, 2))
    y = list((X[:, 0] + 0.3 * rng.normal(size=31) > 0).astype(int))
    b = pb.pfr_margin_bound(X, y, sigma=0.8, alpha=alpha, delta=0.05)
    ref = nb.theorem4(nb.loo_margins(X, y, lambda a, c: nb.psi_gaussian(a, c, 0.8)), alpha, 0.05)
    assert b.value == pytest.approx(ref, rel=1e-12)
    assert b.terms["LOO error (1/l) sum I"] <= b.train_error


def test_theorem4_alpha_grid_is_a_union_bound():
    g = np.linspace(-0.1, 1.0, 101)   # the margins of the paper's Fig. 2(b)
    alphas = [0.05, 0.1, 0.2, 0.4, 0.8]
    b = pb.pfr_margin_bound_from_margins(g, alphas, 0.05)
    assert b.value == pytest.approx(min(nb.theorem4(g, a, 0.01) for a in alphas), rel=1e-12)
    assert "union bound" in b.name


def test_theorem3_formula_and_band_limited_monte_carlo():
    b = pb.pfr_bayes_bound(gap=0.3, n=500, n_classes=3, s=0.7, dim=2, density_cutoff=0.5)
    assert b.value == pytest.approx(nb.theorem3(0.3, 500, 3, 0.7, 2), rel=1e-12)
    assert pb.pfr_bayes_bound(gap=0.0, n=5, n_classes=2, s=1e-200, dim=3, density_cutoff=1e-200).value == 4.0
    # two classes with band-limited densities p_k(x) = sinc^2(x - c_k) (cut-off 1), priors 1/2, at x = 0.3
    rng = np.random.default_rng(0)

    def draw(n, c):
        out = []
        while len(out) < n:
            t = rng.standard_cauchy(4 * n) * math.sqrt(2) / math.pi
            keep = rng.random(t.size) < np.sinc(t) ** 2 * (2 + math.pi ** 2 * t ** 2) / 4
            out.extend((t[keep] + c).tolist())
        return np.array(out[:n])

    x, c = 0.3, (0.0, 1.5)
    Phi = 0.5 * np.sinc(x - np.array(c)) ** 2          # Phi_k(x) = P_k p_k(x)
    gap = pb.potential_gap(Phi)
    ell, reps, wrong = 120, 300, 0
    for _ in range(reps):
        z = rng.random(ell) < 0.5
        pts = np.where(z, draw(ell, c[1]), draw(ell, c[0]))
        psi = pb.sinc_potential([[x]], pts[:, None], 1.0)[0]
        phi = [psi[~z].sum() / ell, psi[z].sum() / ell]
        wrong += int(np.argmax(phi) != np.argmax(Phi))
    bound = pb.pfr_bayes_bound(gap, ell, 2, s=1.0, dim=1, density_cutoff=1.0).value
    assert bound < 1 and wrong / reps <= bound


@pytest.mark.parametrize("kwargs,words", [
    (dict(kernel="gaussian", density_cutoff=1.0), "sinc point potential"),
    (dict(density_cutoff=None), "band-limited"),
    (dict(density_cutoff=math.inf), "not band-limited"),
    (dict(density_cutoff=2.0), "exceeds s"),
])
def test_theorem3_refuses_outside_its_assumptions(kwargs, words):
    with pytest.raises(metafx.ValidationError, match=words):
        pb.pfr_bayes_bound(gap=0.2, n=100, n_classes=2, s=1.0, dim=1, **kwargs)


def test_theorem4_refuses_outside_its_assumptions():
    X, y = np.arange(6.0)[:, None], [0, 0, 0, 1, 1, 1]
    with pytest.raises(metafx.ValidationError, match="sinc"):
        pb.pfr_margin_bound(X, y, 1.0, 0.1, 0.05, kernel="sinc")
    with pytest.raises(metafx.ValidationError, match="unbounded"):
        pb.pfr_margin_bound(X, y, 1.0, 0.1, 0.05, kernel="hilbert")
    with pytest.raises(metafx.ValidationError, match=r"\[0, 1\]"):
        pb.pfr_margin_bound_from_margins([0.1, 0.2], 0.1, 0.05, psi_range=(-0.2, 1.0))
    with pytest.raises(metafx.ValidationError, match="outside"):
        pb.pfr_margin_bound_from_margins([0.1, 1.7], 0.1, 0.05)
    with pytest.raises(metafx.ValidationError, match="alpha"):
        pb.pfr_margin_bound(X, y, 1.0, 0.0, 0.05)
    with pytest.raises(metafx.ValidationError, match="delta"):
        pb.pfr_margin_bound(X, y, 1.0, 0.1, 1.5)
    with pytest.raises(metafx.ValidationError, match="sigma"):
        pb.pfr_margin_bound(X, y, -1.0, 0.1, 0.05)


def test_docstring_examples():
    import doctest

    from metafx.learn import compression

    for mod in (pb, compression):
        res = doctest.testmod(mod, optionflags=doctest.ELLIPSIS)
        assert res.attempted > 0 and res.failed == 0, mod.__name__
