"""Bounds for potential function rules (Teng, Chen & Dang 2011, Theorems 3 and 4).

The sample potential function classifier (their eqs. 8-9) is
``f_S(x) = argmax_k phi_k(x, S)``, ``phi_k(x, S) = (1/|S|) sum_{i: z_i = k} psi(x, x_i)``.
``metafx.neighbors.PotentialFunctionClassifier`` implements it with the
Gaussian potential; the model-selection criterion ``h`` (eq. 17) is the
``potential-margin`` evaluator.  This module adds the paper's two bounds, each
applied only where its assumptions hold; otherwise a
:class:`~metafx.ValidationError` names the assumption that fails.

:func:`pfr_bayes_bound`
    Theorem 3 (eq. 11): ``Pr[f_S(x) != f*(x)] <= 2 K exp(-l Gamma(x)^2 / (2 (2s)^(2d)))``.
    Needs the sinc potential of eq. 5 and class densities band-limited within
    the potential's cut-off ``s``; ``Gamma(x)`` is the population potential gap.
:func:`pfr_margin_bound`
    Theorem 4 (eq. 16) from a sample: LOO margins, margin shortages and
    ``(1/l) sum xi_i/alpha + 2/(l alpha) + (1 + 4/alpha) sqrt(ln(2/delta) / (2 l))``.
    Needs ``psi`` with values in [0, 1] (the Gaussian potential; not the sinc
    or the Hilbert potential).
:func:`pfr_margin_bound_from_margins`
    Theorem 4 from margins computed elsewhere (the caller states the range of ``psi``).
:func:`pfr_loo_margins`, :func:`potential_gap`, :func:`sinc_potential`, :func:`gaussian_potential`
    The pieces.

Examples
--------
>>> import numpy as np
>>> from metafx import potential_bounds as pb
>>> X = np.r_[np.zeros((30, 1)), np.ones((30, 1))]; y = [0] * 30 + [1] * 30
>>> b = pb.pfr_margin_bound(X, y, sigma=0.3, alpha=0.4, delta=0.05)
>>> round(b.train_error, 4), b.vacuous            # every LOO margin is above alpha; the gap still dominates
(0.0, True)
>>> pb.pfr_bayes_bound(gap=0.35, n=400, n_classes=2, s=1.0, dim=1, density_cutoff=1.0).value < 0.01
True
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..core.exceptions import ValidationError
from ..core.validation import check_xy
from .arrays import dense_float, encode_labels
from .bounds import Bound, _num, _pos_int, _prob

__all__ = [
    "KERNELS",
    "gaussian_potential",
    "pfr_bayes_bound",
    "pfr_loo_margins",
    "pfr_margin_bound",
    "pfr_margin_bound_from_margins",
    "potential_gap",
    "sinc_potential",
]

#: point potential functions known here and the interval holding their values
KERNELS = {
    "gaussian": "exp(-||x - y||^2 / sigma^2), values in (0, 1]",
    "sinc": "(2s)^d prod_i sinc(2s (x_i - y_i)) (eq. 5), values in [-(2s)^d * 0.2172, (2s)^d]",
    "hilbert": "1 / ||x - y|| (Hilbert rule), unbounded",
}


def _kernel(kernel: Any) -> str:
    if not isinstance(kernel, str) or kernel not in KERNELS:
        raise ValidationError(f"kernel={kernel!r} is not known; choose one of {', '.join(map(repr, KERNELS))}")
    return kernel


# --------------------------------------------------------------------------- potentials
def _sqdist(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    d = (A * A).sum(1)[:, None] + (B * B).sum(1)[None, :] - 2.0 * A @ B.T
    return np.maximum(d, 0.0)


def gaussian_potential(A: Any, B: Any, sigma: float) -> np.ndarray:
    """``psi(a, b) = exp(-||a - b||^2 / sigma^2)`` for every row pair: ``(len(A), len(B))``."""
    s = _num("sigma", sigma)
    if not (s > 0 and math.isfinite(s)):
        raise ValidationError(f"sigma={sigma!r} must be a finite number > 0")
    A = np.atleast_2d(np.asarray(A, dtype=np.float64))
    B = np.atleast_2d(np.asarray(B, dtype=np.float64))
    return np.exp(-_sqdist(A, B) / (s * s))


def sinc_potential(A: Any, B: Any, s: float) -> np.ndarray:
    """Eq. 5: ``psi(a, b) = (2s)^d prod_i sinc(2s (a_i - b_i))``, ``sinc(t) = sin(pi t) / (pi t)``.

    Its Fourier transform is 1 on the cube ``|omega_i| <= s`` and 0 outside.

    >>> float(sinc_potential([[0.0]], [[0.0]], 0.5)[0, 0])
    1.0
    """
    sv = _num("s", s)
    if not (sv > 0 and math.isfinite(sv)):
        raise ValidationError(f"s={s!r} must be a finite number > 0")
    A = np.atleast_2d(np.asarray(A, dtype=np.float64))
    B = np.atleast_2d(np.asarray(B, dtype=np.float64))
    if A.shape[1] != B.shape[1]:
        raise ValidationError(f"A and B must have the same number of columns, got {A.shape[1]} and {B.shape[1]}")
    out = np.full((A.shape[0], B.shape[0]), (2.0 * sv) ** A.shape[1])
    for f in range(A.shape[1]):
        out *= np.sinc(2.0 * sv * (A[:, f][:, None] - B[:, f][None, :]))
    return out


def potential_gap(class_potentials: Any) -> np.ndarray | float:
    """Eq. 10: largest minus second-largest entry along the last axis (0 with one class)."""
    P = np.asarray(class_potentials, dtype=np.float64)
    if P.ndim == 0 or P.shape[-1] == 0:
        raise ValidationError("class_potentials must hold at least one class potential (last axis)")
    if not np.isfinite(P).all():
        raise ValidationError("class_potentials holds a non-finite value")
    if P.shape[-1] == 1:
        g = np.zeros(P.shape[:-1])
    else:
        srt = np.sort(P, axis=-1)
        g = srt[..., -1] - srt[..., -2]
    return float(g) if np.ndim(g) == 0 else g


def _check_xy(X: Any, y: Any) -> tuple[np.ndarray, np.ndarray, int]:
    values, yy = check_xy(X, y)
    codes, k = encode_labels(yy)
    return dense_float(values), codes, k


def pfr_loo_margins(X: Any, y: Any, sigma: float, kernel: str = "gaussian", s: float | None = None,
                    chunk: int = 1024) -> np.ndarray:
    """Leave-one-out margins ``gamma(x_i, z_i, S(i))`` of eq. 12 (unnormalized).

    ``gamma = phi_{z_i}(x_i, S(i)) - phi_(K-1)(x_i, S(i))`` with
    ``phi_k(x, S(i)) = (1/(l-1)) sum_{j != i, z_j = k} psi(x, x_j)`` and
    ``phi_(K-1)`` the second-largest class potential (eq. 12 as the paper's
    text fixes it, ALGORITHMS.md 7.3).  ``kernel="gaussian"`` uses ``sigma``;
    ``kernel="sinc"`` uses ``s`` (``sigma`` is then ignored).

    Returns
    -------
    ndarray of shape (l,)
    """
    kernel = _kernel(kernel)
    if kernel == "hilbert":
        raise ValidationError("kernel='hilbert' is not supported by pfr_loo_margins (1/||x - y|| is infinite "
                              "for repeated points)")
    Xd, codes, k = _check_xy(X, y)
    m = Xd.shape[0]
    if m < 2:
        raise ValidationError(f"pfr_loo_margins needs at least 2 samples, got {m}")
    c = _pos_int("chunk", chunk)
    if kernel == "gaussian":
        _num("sigma", sigma)
    elif s is None:
        raise ValidationError("kernel='sinc' needs the cut-off s")
    onehot = np.zeros((m, k))
    onehot[np.arange(m), codes] = 1.0
    out = np.empty(m)
    for a in range(0, m, c):
        b = min(m, a + c)
        if kernel == "gaussian" or s is None:  # (a sinc kernel without s was refused above)
            Psi = gaussian_potential(Xd[a:b], Xd, sigma)
        else:
            Psi = sinc_potential(Xd[a:b], Xd, s)
        Psi[np.arange(b - a), np.arange(a, b)] = 0.0  # leave x_i out
        phi = Psi @ onehot / (m - 1)
        own = phi[np.arange(b - a), codes[a:b]]
        second = np.sort(phi, axis=1)[:, -2] if k >= 2 else np.zeros(b - a)
        out[a:b] = own - second
    return out


# --------------------------------------------------------------------------- Theorem 3
def pfr_bayes_bound(gap: float, n: int, n_classes: int, s: float, dim: int, *, kernel: str = "sinc",
                    density_cutoff: float | None = None) -> Bound:
    """Theorem 3 (eq. 11): how often the sample rule disagrees with the Bayes rule at one point ``x``.

    With ``l = n`` i.i.d. training points, ``K`` classes in ``R^d`` and the
    sinc potential of eq. 5 with cut-off ``s``::

        Pr_S[ f_S(x) != f*(x) ] <= 2 K exp( -l Gamma(x)^2 / (2 (2s)^(2d)) )

    ``Gamma(x)`` is the *population* potential gap (eq. 10); under the
    theorem's assumptions ``Phi_k(x) = P_k p_k(x)`` (proof of Theorem 2), so
    ``Gamma(x)`` is the gap between the two largest ``P_k p_k(x)``
    (:func:`potential_gap` computes it).  The formula is the paper's as
    printed; a Hoeffding step on the full range ``[-(2s)^d, (2s)^d]`` of the
    sinc potential would give an exponent 4 times smaller (docs/quality_map.md).

    Assumptions, checked where they can be (else ``ValidationError``):

    * ``kernel == "sinc"`` (eq. 5); the theorem says nothing about other potentials;
    * the class densities are band-limited: ``density_cutoff`` is a radius
      outside which the Fourier transform of every class density vanishes.  No
      sample can show this, so it must be stated; it must be ``<= s`` (the
      potential's transform is 1 on the cube ``|omega_i| <= s``);
    * ``x`` is a fixed point (not drawn with the sample).

    Returns
    -------
    ~metafx.learn.bounds.Bound
        ``value`` (= ``gap``, with ``train_error = 0``) is the probability bound,
        capped at nothing: values above 1 are vacuous.
    """
    if _kernel(kernel) != "sinc":
        raise ValidationError(f"Theorem 3 needs the sinc point potential of eq. 5 (kernel='sinc'), got kernel="
                              f"{kernel!r}: its proof uses Psi(omega) = 1 inside the band of the class densities")
    if density_cutoff is None:
        raise ValidationError("Theorem 3 assumes band-limited class densities: pass density_cutoff, a radius "
                              "outside which every class density's Fourier transform is 0 (a sample cannot show it)")
    sp = _num("density_cutoff", density_cutoff)
    if not sp > 0:
        raise ValidationError(f"density_cutoff={density_cutoff!r} must be > 0")
    if not math.isfinite(sp):
        raise ValidationError("density_cutoff=inf: the class densities are not band-limited, so Theorem 3 "
                              "does not apply (Gaussian densities, for instance, are not)")
    sv = _num("s", s)
    if not (sv > 0 and math.isfinite(sv)):
        raise ValidationError(f"s={s!r} must be a finite number > 0")
    if sp > sv:
        raise ValidationError(f"Theorem 3 needs the densities' band inside the potential's: density_cutoff={sp!r} "
                              f"exceeds s={sv!r}")
    g = _num("gap", gap)
    if not (g >= 0 and math.isfinite(g)):
        raise ValidationError(f"gap={gap!r} must be a finite number >= 0 (the potential gap Gamma(x))")
    ell = _pos_int("n", n)
    K = _pos_int("n_classes", n_classes, 2)
    d = _pos_int("dim", dim)
    log_scale = 2.0 * d * math.log(2.0 * sv)  # ln (2s)^(2d)
    if g == 0.0:
        expo = 0.0
    else:  # -l Gamma^2 / (2 (2s)^(2d)), in logs so that no factor overflows
        expo = -math.exp(min(math.log(ell) + 2.0 * math.log(g) - math.log(2.0) - log_scale, 700.0))
    value = 2.0 * K * math.exp(expo)
    terms = {"l": float(ell), "K": float(K), "Gamma(x)": g, "(2s)^(2d)": math.exp(min(log_scale, 700.0)),
             "exponent": expo}
    return Bound("Theorem 3 (Teng et al. 2011): Pr[f_S(x) != f*(x)]", 0.0, value, terms)


# --------------------------------------------------------------------------- Theorem 4
def _alphas(alpha: Any) -> list[float]:
    vals = [alpha] if np.ndim(alpha) == 0 else list(np.asarray(alpha, dtype=object).ravel())
    if not vals:
        raise ValidationError("alpha must be a number > 0 or a non-empty sequence of them")
    out = []
    for v in vals:
        a = _num("alpha", v)
        if not (a > 0 and math.isfinite(a)):
            raise ValidationError(f"alpha={v!r} must be a finite number > 0 (the desired margin)")
        out.append(a)
    return out


def _theorem4(gam: np.ndarray, alpha: float, delta: float) -> Bound:
    ell = gam.shape[0]
    xi_over_alpha = np.where(gam <= 0, 1.0, np.where(gam <= alpha, 1.0 - gam / alpha, 0.0))  # eq. 15
    emp = float(xi_over_alpha.mean())
    t2 = 2.0 / (ell * alpha)
    t3 = (1.0 + 4.0 / alpha) * math.sqrt(math.log(2.0 / delta) / (2.0 * ell))
    terms = {"l": float(ell), "alpha": alpha, "delta": delta, "LOO error (1/l) sum I": float((gam <= 0).mean()),
             "(1/l) sum xi_i/alpha": emp, "2/(l alpha)": t2, "(1+4/alpha) sqrt(ln(2/delta)/(2l))": t3}
    return Bound("Theorem 4 (Teng et al. 2011, eq. 16)", emp, t2 + t3, terms)


def pfr_margin_bound_from_margins(margins: Any, alpha: float | Sequence[float], delta: float,
                                  psi_range: tuple[float, float] = (0.0, 1.0)) -> Bound:
    """Theorem 4 (eq. 16) from leave-one-out margins ``gamma(x_i, z_i, S(i))`` computed elsewhere.

    With probability ``1 - delta`` over the i.i.d. sample, for a *fixed* desired margin ``alpha > 0``::

        Pr[z != f_S(x) | S] <= (1/l) sum_i xi_i/alpha + 2/(l alpha) + (1 + 4/alpha) sqrt(ln(2/delta) / (2 l))

    ``xi_i / alpha`` is 1 for ``gamma_i <= 0``, ``1 - gamma_i/alpha`` for
    ``0 < gamma_i <= alpha`` and 0 above (eq. 15).

    Parameters
    ----------
    margins : array of shape (l,)
        Unnormalized LOO margins (eq. 12) of a potential function rule.
    alpha : float or sequence of floats
        The desired margin.  A sequence of ``k`` values applies the bound to
        each with confidence ``delta / k`` and returns the smallest (a union
        bound; this choice over a grid is a metafx extension, the paper fixes
        ``alpha`` in advance).
    delta : float in (0, 1)
    psi_range : (low, high)
        Interval holding every value of the point potential used; the theorem
        needs it inside [0, 1] (its stability constants ``2/l``, ``2/(l-1)``
        use ``0 <= psi <= 1``).

    Raises
    ------
    ValidationError
        When ``psi_range`` is not inside [0, 1], or a margin lies outside
        ``[-1, 1]`` (impossible for such a ``psi``).
    """
    lo, hi = (_num("psi_range[0]", psi_range[0]), _num("psi_range[1]", psi_range[1])) \
        if isinstance(psi_range, (tuple, list)) and len(psi_range) == 2 else (None, None)
    if lo is None:
        raise ValidationError(f"psi_range={psi_range!r} must be a pair (low, high)")
    if lo < 0 or hi > 1 or lo > hi:
        raise ValidationError(f"Theorem 4 needs a point potential psi with values in [0, 1]; psi_range={psi_range!r} "
                              "is not inside it (rescale psi, or the theorem does not apply)")
    gam = np.asarray(margins, dtype=np.float64).ravel()
    if gam.size < 2:
        raise ValidationError(f"margins must hold at least 2 values, got {gam.size}")
    if not np.isfinite(gam).all():
        raise ValidationError("margins holds a non-finite value")
    if np.abs(gam).max() > 1.0 + 1e-12:
        raise ValidationError(f"a margin of {float(gam[np.argmax(np.abs(gam))])!r} lies outside [-1, 1], which no "
                              "potential with values in [0, 1] gives: Theorem 4's assumption psi in [0, 1] fails")
    dl = _prob("delta", delta)
    alphas = _alphas(alpha)
    k = len(alphas)
    best = min((_theorem4(gam, a, dl / k) for a in alphas), key=lambda b: b.value)
    if k == 1:
        return best
    terms = dict(best.terms)
    terms["grid size k (delta/k each)"] = float(k)
    return Bound(f"Theorem 4 (Teng et al. 2011, eq. 16), best of {k} alphas (union bound)", best.train_error,
                 best.gap, terms)


def pfr_margin_bound(X: Any, y: Any, sigma: float, alpha: float | Sequence[float], delta: float, *,
                     kernel: str = "gaussian") -> Bound:
    """Theorem 4 (eq. 16) for the Gaussian potential function rule trained on ``(X, y)``.

    Computes the LOO margins (:func:`pfr_loo_margins`) and applies
    :func:`pfr_margin_bound_from_margins`.  Assumptions:

    * ``psi`` maps into [0, 1]: true for ``kernel="gaussian"``; the sinc
      potential of eq. 5 (negative values, peak ``(2s)^d``) and the Hilbert
      potential (unbounded) raise ``ValidationError``;
    * ``alpha`` and ``sigma`` are fixed before seeing the sample (choosing
      ``sigma`` by the sample, e.g. by the h criterion, is outside the
      theorem; see docs/quality_map.md);
    * the sample is i.i.d. (not checkable).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 2)); y = (X[:, 0] > 0).astype(int)
    >>> b = pfr_margin_bound(X, y, sigma=0.5, alpha=0.05, delta=0.05)
    >>> b.terms["LOO error (1/l) sum I"] <= b.train_error <= 1
    True
    """
    kernel = _kernel(kernel)
    if kernel == "sinc":
        raise ValidationError("Theorem 4 needs a point potential psi with values in [0, 1]; the sinc potential "
                              "(eq. 5) takes negative values and peaks at (2s)^d, so kernel='sinc' does not qualify")
    if kernel == "hilbert":
        raise ValidationError("Theorem 4 needs a point potential psi with values in [0, 1]; the Hilbert potential "
                              "1/||x - y|| is unbounded, so kernel='hilbert' does not qualify")
    gam = pfr_loo_margins(X, y, sigma)
    return pfr_margin_bound_from_margins(gam, alpha, delta, psi_range=(0.0, 1.0))
