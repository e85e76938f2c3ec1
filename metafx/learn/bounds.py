"""Generalization bounds and the optimal number of features (Navot 2006; Gottlieb et al. 2014).

Every bound returns a :class:`Bound`: the bound itself (``value``), the
training-error term it starts from, the complexity ``gap`` added to it, and each
term of the formula by name, so that one can see what dominates.

Notation (as in the thesis): ``m`` training instances; ``gamma`` the margin;
``delta`` the confidence (the bound holds with probability ``1 - delta`` over the
draw of the training set); ``ln`` is the natural logarithm and ``log`` the
base-2 logarithm.  A bound above 1 says nothing (it is *vacuous*); the
functions return it anyway, or ``inf`` when the formula itself breaks down.

Contents
--------
:func:`margin_bound`
    Bartlett's fat-shattering margin bound (thesis Theorem 5.2), the common core.
:func:`mufasa_bound`
    Theorem 5.1: the bound after choosing features with Mufasa for ``J`` steps,
    with ``g(J) = min(J ln 2, ln(J |MF|))``.
:func:`nn_selection_bound`
    Theorem 3.1: 1-NN on a selected subset ``F`` of ``N`` features.
:func:`vc_meta_selection`, :func:`vc_direct_selection`, :func:`vc_joint`, :func:`log2_selection_class_size`
    Theorem 5.3, equation 5.6, Lemma 5.4 and Lemma 5.3: VC dimension of joint
    feature selection and classification.
:func:`compression_bound`, :func:`condensed_nn_bound`
    Sample-compression bounds for a condensed nearest-neighbour classifier
    (Gottlieb, Kontorovich and Nisnevitch 2014, Theorem 3 and Corollary 1).
:func:`optimal_n_features`
    Chapter 2: how many features to use for two spherical Gaussians
    (equation 2.7).

Examples
--------
>>> from metafx import bounds
>>> b = bounds.mufasa_bound(m=2000, gamma=1.0, delta=0.05, fat_d=10, steps=50, mf_size=1200)
>>> round(b.terms["g(J)"], 3)                  # ln(50 * 1200) < 50 ln 2
11.002
>>> b.train_error is None                      # only the gap is known
True
>>> bounds.optimal_n_features([1.0, 0.5], m=4).n_opt
2
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..core.exceptions import ValidationError
from ..core.params import Interval, Satisfies, check_value

__all__ = [
    "Bound",
    "GaussianFeatureCount",
    "compression_bound",
    "condensed_nn_bound",
    "direct_selection_term",
    "g_mufasa",
    "gaussian_margin_f",
    "log2_selection_class_size",
    "margin_bound",
    "mufasa_bound",
    "nn_selection_bound",
    "normal_cdf",
    "optimal_n_features",
    "search_bound_obstacle",
    "vc_direct_selection",
    "vc_joint",
    "vc_meta_selection",
]


# --------------------------------------------------------------------------- result type
@dataclass(frozen=True)
class Bound:
    """An upper bound on the generalization error, with its terms.

    Attributes
    ----------
    name : str
        Which result was applied (e.g. ``"Theorem 5.1 (Mufasa)"``).
    train_error : float or None
        The empirical term the bound starts from (the gamma-sensitive training
        error for margin bounds, the fraction of inconsistent points for
        compression bounds); ``None`` when it was not given.
    gap : float
        What the bound adds to ``train_error`` (``inf`` when vacuous).
    terms : dict
        Every term of the formula by name.
    """

    name: str
    train_error: float | None
    gap: float
    terms: dict[str, float] = field(default_factory=dict)

    @property
    def value(self) -> float:
        """``train_error + gap``; ``nan`` when ``train_error`` is unknown."""
        if self.train_error is None:
            return math.nan
        return float(self.train_error) + self.gap

    @property
    def vacuous(self) -> bool:
        """True when the bound cannot be below 1 (it then says nothing)."""
        return not self.gap < 1.0 or (self.train_error is not None and not self.value < 1.0)

    def __float__(self) -> float:
        return self.value

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "value": self.value, "train_error": self.train_error, "gap": self.gap,
                "terms": dict(self.terms)}

    def __str__(self) -> str:
        lines = [f"{self.name}: "
                 + (f"error <= {self.value:.4g}" if self.train_error is not None else f"error <= train error + {self.gap:.4g}")
                 + (" (vacuous)" if self.vacuous else "")]
        lines += [f"  {k} = {v:.6g}" for k, v in self.terms.items()]
        return "\n".join(lines)


# --------------------------------------------------------------------------- checks
#: any real number, infinities included (a count of values may be ``inf``)
_NUMBER = Satisfies(lambda v: isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_)), "a number")


def _pos_int(name: str, v: Any, low: int = 1) -> int:
    check_value(name, v, [Interval("int", low, None)])
    return int(v)


def _num(name: str, v: Any, low: float | None = None, *, strict: bool = False, note: str = "") -> float:
    """``v`` as a float: a real number (infinities included), ``>= low`` (``strict``: ``> low``) when given."""
    if low is None:
        check_value(name, v, [_NUMBER])
    else:
        above = Satisfies(lambda x: _NUMBER.accepts(x) and (x > low if strict else x >= low),
                          f"a number {'>' if strict else '>='} {low:g}{note}")
        check_value(name, v, [above])
    return float(v)


def _prob(name: str, v: Any, *, zero: bool = False, one: bool = False) -> float:
    closed = {(True, True): "both", (True, False): "left", (False, True): "right", (False, False): "neither"}
    check_value(name, v, [Interval("real", 0, 1, closed=closed[zero, one])])
    return float(v)


def _train_error(v: Any) -> float | None:
    return None if v is None else _prob("train_error", v, zero=True, one=True)


# --------------------------------------------------------------------------- Bartlett / Theorem 5.2
def _bartlett_terms(m: int, gamma: float, delta: float, d: float, extra: float) -> tuple[float, dict[str, float]]:
    capacity_log = math.log(34.0 * math.e * m / d)
    if capacity_log < 0:  # d > 34 e m: the formula breaks down (and would be vacuous anyway)
        capacity = math.inf
    else:
        capacity = d * capacity_log * math.log2(578.0 * m)
    confidence = math.log(8.0 / (gamma * delta))
    total = capacity + confidence + extra
    gap = math.sqrt(2.0 / m * total) if math.isfinite(total) else math.inf
    terms = {"m": float(m), "d": float(d), "capacity d ln(34em/d) log(578m)": capacity,
             "confidence ln(8/(gamma delta))": confidence}
    return gap, terms


def _margin_args(m: Any, gamma: Any, delta: Any, fat_d: Any) -> tuple[int, float, float, float]:
    m = _pos_int("m", m)
    gamma = _prob("gamma", gamma, one=True)
    delta = _prob("delta", delta)
    d = _num("fat_d", fat_d, 0, strict=True, note=" (the fat-shattering dimension at gamma/32)")
    return m, gamma, delta, d


def margin_bound(m: int, gamma: float, delta: float, fat_d: float, train_error: float | None = None) -> Bound:
    """Bartlett's margin bound (thesis Theorem 5.2).

    With probability ``1 - delta`` over a sample of ``m`` instances, every
    real-valued ``h`` of a class ``H`` and every ``gamma`` in (0, 1] satisfy::

        er_D(h) <= er_S^gamma(h) + sqrt( (2/m) (d ln(34 e m / d) log(578 m) + ln(8 / (gamma delta))) )

    Parameters
    ----------
    m : int
        Number of training instances.
    gamma : float in (0, 1]
        The margin.
    delta : float in (0, 1)
        Confidence parameter.
    fat_d : float
        ``d = fat_H(gamma / 32)``, the fat-shattering dimension of the class at
        scale ``gamma / 32`` (for affine functions on n features, ``n + 1``
        bounds it at every scale).
    train_error : float, optional
        ``er_S^gamma(h)``: the fraction of training instances with
        ``y h(s) < gamma``.

    Returns
    -------
    Bound
        ``terms``: ``capacity`` (``d ln(34em/d) log(578m)``), ``confidence``
        (``ln(8/(gamma delta))``).  ``gap = inf`` when ``d > 34 e m``.

    Examples
    --------
    >>> round(margin_bound(10000, 1.0, 0.05, 5).gap, 4)
    0.5229
    """
    m, gamma, delta, d = _margin_args(m, gamma, delta, fat_d)
    gap, terms = _bartlett_terms(m, gamma, delta, d, 0.0)
    return Bound("Theorem 5.2 (Bartlett margin bound)", _train_error(train_error), gap, terms)


# --------------------------------------------------------------------------- Theorem 5.1 (Mufasa)
def g_mufasa(steps: int, mf_size: float = math.inf, n_candidates: int = 1) -> float:
    """``g(J) = min(J ln 2, ln(J |MF|))`` of Theorem 5.1.

    ``J ln 2`` comes from Lemma 5.2 (``|H_fs| <= 2^J``: the tree of accept /
    reject outcomes), ``ln(J |MF|)`` from Lemma 5.1 (``|H_fs| <= J |MF|``: ``J``
    pre-drawn sets per meta-feature value).  ``mf_size`` is the number of
    distinct meta-feature values, ``inf`` for a continuous space.  With
    ``n_candidates = c`` points scored per step (the best one kept), each step
    has ``c + 1`` outcomes and ``J c`` sets are pre-drawn per value:
    ``g(J) = min(J ln(c + 1), ln(J c |MF|))``.

    >>> round(g_mufasa(50, 1200), 4), round(g_mufasa(10), 4), round(g_mufasa(10, n_candidates=3), 4)
    (11.0021, 6.9315, 13.8629)
    """
    J = _pos_int("steps", steps)
    c = _pos_int("n_candidates", n_candidates)
    mf = _num("mf_size", mf_size, 1, note=" (the number of meta-feature values; inf: a continuous space)")
    return min(J * math.log(c + 1.0), math.log(J) + math.log(c) + math.log(mf))


def direct_selection_term(n_selected: int, n_candidates: float) -> float:
    """``(n + 1) ln N``: the price of choosing ``n`` of ``N`` features directly.

    It replaces ``g(J)`` in the bound of direct selection (Theorem 3.1's union
    bound over all subsets: ``delta_F = delta / (N C(N, n))``).

    >>> round(direct_selection_term(2, 100), 4)
    13.8155
    """
    n = _pos_int("n_selected", n_selected, 0)
    N = _num("n_candidates", n_candidates, 1)
    return (n + 1) * math.log(N)


def search_bound_obstacle(metadata: Mapping[str, Any], family_params: Mapping[str, Any], engine_obstacle: str) -> str:
    """Why Theorem 5.1's count of hypotheses does not cover a search ('' when it does).

    ``metadata`` and ``family_params`` are the search result's; ``engine_obstacle`` is what the engine
    says about itself (:meth:`metafx.plugin.SearchEngine.bound_obstacle`).
    """
    oversample = float(metadata.get("oversample", 1.0) or 1.0)
    if oversample > 1:
        return (f"oversample={oversample:g} prunes each step's draw by a score measured on the training data, "
                "so the data steer the search inside a step, beyond accepting or rejecting its point")
    if engine_obstacle:
        return engine_obstacle
    if metadata.get("reselect"):
        r = metadata["reselect"].get("r")
        return (f"reselect chose among the {r} best steps by a second score on the training data, "
                "beyond accepting or rejecting one point per step")
    if family_params.get("location_prior") == "ink":
        return ("family_params location_prior='ink' draws the features from a distribution fitted to the "
                "training images, so the class of feature sets the search can return depends on the sample")
    k = metadata.get("n_classes")
    if k is None:
        return ("the result does not record how many classes its labels have (written by an older metafx); "
                "the theorem is for two classes")
    if k != 2:
        return f"the labels have {k} classes; the theorem is for two classes (labels +1 and -1)"
    return ""


def mufasa_bound(m: int, gamma: float, delta: float, fat_d: float, steps: int, mf_size: float = math.inf,
                 train_error: float | None = None, n_candidates: int = 1) -> Bound:
    """Thesis Theorem 5.1: the error bound after a Mufasa search of ``steps`` steps.

    With probability ``1 - delta``, for every classifier ``h_c`` of a
    real-valued class ``H_c`` trained on the features Mufasa chose, and every
    ``gamma`` in (0, 1]::

        er_D(h_c) <= er_S^gamma(h_c)
                     + sqrt( (2/m) (d ln(34 e m / d) log(578 m) + ln(8/(gamma delta)) + g(J)) )
        d = fat_{H_c}(gamma / 32),   g(J) = min(J ln 2, ln(J |MF|))

    The price of the feature search, ``g(J)``, depends neither on the number
    of selected features nor on the number of candidate features.

    Parameters
    ----------
    m, gamma, delta, fat_d, train_error
        As in :func:`margin_bound`.
    steps : int
        ``J``, the number of Mufasa steps.
    mf_size : float, default inf
        ``|MF|``, the number of distinct meta-feature values (``inf`` when a
        meta-feature is continuous).
    n_candidates : int, default 1
        Points scored per step, the best kept (see :func:`g_mufasa`).

    Returns
    -------
    Bound
        ``terms`` adds ``g(J)``, ``J ln 2`` and ``ln(J|MF|)``.

    Examples
    --------
    >>> b = mufasa_bound(2000, 0.5, 0.05, fat_d=3, steps=50, mf_size=1e20, train_error=0.1)
    >>> round(b.terms["g(J)"], 4) == round(50 * 0.6931471805599453, 4)
    True
    """
    m, gamma, delta, d = _margin_args(m, gamma, delta, fat_d)
    J = _pos_int("steps", steps)
    c = _pos_int("n_candidates", n_candidates)
    g = g_mufasa(J, mf_size, c)
    gap, terms = _bartlett_terms(m, gamma, delta, d, g)
    terms["g(J)"] = g
    terms["J ln 2"] = J * math.log(2.0)
    terms["ln(J|MF|)"] = math.log(J) + math.log(float(mf_size))
    if c > 1:
        terms["J ln(c+1)"] = J * math.log(c + 1.0)
    return Bound("Theorem 5.1 (Mufasa)", _train_error(train_error), gap, terms)


# --------------------------------------------------------------------------- Theorem 3.1 (1-NN)
def nn_selection_bound(m: int, n_selected: int, n_candidates: int, gamma: float, delta: float,
                       radius: float = 1.0, train_error: float | None = None) -> Bound:
    """Thesis Theorem 3.1: 1-NN using a selected subset ``F`` of ``N`` features.

    For a distribution supported on a ball of radius ``R``, with probability
    ``1 - delta``, for every feature set ``F`` and every ``gamma`` in (0, 1]::

        er_D(h) <= er_S^gamma(h)
                   + sqrt( (2/m) (d ln(34 e m / d) log(578 m) + ln(8/(gamma delta)) + (|F| + 1) ln N) )
        d = (64 R / gamma)^|F|

    ``er_S^gamma`` counts training points that are misclassified or have a
    sample margin below ``gamma``.  ``N`` enters only logarithmically, ``|F|``
    in the exponent of ``d``: the bound is vacuous unless ``|F|`` is small.

    Parameters
    ----------
    m : int
        Training instances.
    n_selected : int
        ``|F|``.
    n_candidates : int
        ``N``, the number of features selected from.
    gamma, delta, train_error
        As in :func:`margin_bound`.
    radius : float
        ``R``, radius of the ball holding the data (in the selected features).

    Examples
    --------
    >>> b = nn_selection_bound(10**6, 1, 10, gamma=1.0, delta=0.1)
    >>> b.terms["d"]
    64.0
    """
    m = _pos_int("m", m)
    k = _pos_int("n_selected", n_selected)
    N = _pos_int("n_candidates", n_candidates)
    if k > N:
        raise ValidationError(f"n_selected={k} exceeds n_candidates={N}")
    gamma = _prob("gamma", gamma, one=True)
    delta = _prob("delta", delta)
    R = _num("radius", radius, 0, strict=True)
    log_d = k * math.log(64.0 * R / gamma)
    d = (64.0 * R / gamma) ** k if log_d < 700 else math.inf
    selection = (k + 1) * math.log(N)
    if math.isinf(d):
        gap, terms = math.inf, {"m": float(m), "d": math.inf, "capacity d ln(34em/d) log(578m)": math.inf,
                                "confidence ln(8/(gamma delta))": math.log(8.0 / (gamma * delta))}
    else:
        gap, terms = _bartlett_terms(m, gamma, delta, d, selection)
    terms["selection (|F|+1) ln N"] = selection
    return Bound("Theorem 3.1 (1-NN after feature selection)", _train_error(train_error), gap, terms)


# --------------------------------------------------------------------------- VC bounds (section 5.4.2)
def log2_selection_class_size(d_s: float, n_candidates: float) -> float:
    """Lemma 5.3: ``log |H_fs| <= d_s log(e N / d_s)`` (base 2).

    ``H_fs`` selects feature ``f`` when ``h_s(u(f)) = 1`` for ``h_s`` in a
    class ``H_s`` of maps from meta-features to {0, 1} of VC dimension ``d_s``;
    by Sauer's lemma such maps split ``N`` features in at most
    ``(e N / d_s)^d_s`` ways.

    >>> round(log2_selection_class_size(3, 784), 4)
    28.4173
    """
    ds = _num("d_s", d_s)
    N = _num("n_candidates", n_candidates)
    if not ds > 0 or not N >= ds:
        raise ValidationError(f"need 0 < d_s <= n_candidates, got d_s={d_s!r}, n_candidates={n_candidates!r}")
    return ds * math.log2(math.e * N / ds)


def vc_joint(d_c: float, log2_hfs: float) -> float:
    """Lemma 5.4: ``VC(H_fs x H_c) <= (d_c + log|H_fs| + 1) log d_c`` (base 2), for ``d_c >= 11``.

    ``d_c`` is the VC dimension of the classifiers on the selected features,
    ``log2_hfs`` the base-2 logarithm of the number of selection hypotheses.

    >>> round(vc_joint(16, 10), 1)
    108.0
    """
    dc = _num("d_c", d_c, 11, note=" (Lemma 5.4: the classifiers' VC dimension)")
    lh = _num("log2_hfs", log2_hfs, 0)
    return (dc + lh + 1.0) * math.log2(dc)


def vc_meta_selection(d_c: float, d_s: float, n_candidates: float) -> float:
    """Theorem 5.3: ``VC(H_fs x H_c) <= (d_c + d_s log(e N / d_s) + 1) log d_c`` (base 2).

    Selection by a class of maps from meta-features to {0, 1} of VC dimension
    ``d_s`` (e.g. ``k + 1`` for a linear threshold of a ``k``-dimensional
    quality map), classification by a class of VC dimension ``d_c >= 11``
    (e.g. ``n + 1`` for linear classifiers on ``n`` features), ``N`` candidates.

    >>> round(vc_meta_selection(101, 3, 784), 2)
    868.35
    """
    return vc_joint(d_c, log2_selection_class_size(d_s, n_candidates))


def vc_direct_selection(d_c: float, n_candidates: int, n_selected: int) -> float:
    """Equation 5.6: ``(d_c + log C(N, n) + 1) log d_c``: any ``n`` of ``N`` features, no meta-features.

    >>> round(vc_direct_selection(101, 784, 100), 1) > vc_meta_selection(101, 3, 784)
    True
    """
    N = _pos_int("n_candidates", n_candidates)
    n = _pos_int("n_selected", n_selected, 0)
    if n > N:
        raise ValidationError(f"n_selected={n} exceeds n_candidates={N}")
    log2_binom = (math.lgamma(N + 1) - math.lgamma(n + 1) - math.lgamma(N - n + 1)) / math.log(2.0)
    return vc_joint(d_c, max(log2_binom, 0.0))


# --------------------------------------------------------------------------- sample compression ([C] section 3)
def compression_bound(n: int, compressed_size: int, delta: float, eps: float = 0.0,
                      consistent: bool | None = None) -> Bound:
    """Theorem 3 of Gottlieb, Kontorovich & Nisnevitch (2014): a condensed 1-NN as a compression scheme.

    ``S~`` is a subset of the ``n`` training points of size ``|S~|`` whose 1-NN
    classifier agrees with the 1-NN classifier of the whole sample on all but
    a fraction ``eps`` of the training points.  With probability ``1 - delta``:

    If consistent (``eps = 0``)::

        err <= (|S~| ln n + ln n + ln(1/delta)) / (n - |S~|)

    If ``eps``-consistent::

        err <= eps n / (n - |S~|) + sqrt( (|S~| ln n + 2 ln n + ln(1/delta)) / (2 (n - |S~|)) )

    Logarithms are natural (the source does not say; decision A26).

    Parameters
    ----------
    n : int
        Training points.
    compressed_size : int
        ``|S~|``.
    delta : float in (0, 1)
    eps : float in [0, 1]
        Fraction of training points on which ``S~`` disagrees.
    consistent : bool, optional
        Use (i) (needs ``eps = 0``) or (ii); default: (i) when ``eps == 0``.

    Returns
    -------
    Bound
        ``train_error = eps``; ``gap = inf`` when ``|S~| >= n``.

    Examples
    --------
    >>> round(compression_bound(1000, 10, 0.05).value, 4)
    0.0798
    """
    n = _pos_int("n", n, 2)
    s = _pos_int("compressed_size", compressed_size, 1)
    delta = _prob("delta", delta)
    eps = _prob("eps", eps, zero=True, one=True)
    if consistent is None:
        consistent = eps == 0.0
    if consistent and eps != 0.0:
        raise ValidationError(f"consistent=True needs eps=0, got eps={eps!r}")
    ln_n, conf = math.log(n), math.log(1.0 / delta)
    terms = {"n": float(n), "|S~|": float(s), "|S~| ln n": s * ln_n, "ln(1/delta)": conf}
    if s >= n:
        return Bound("Theorem 3 (sample compression)", eps, math.inf, terms)
    if consistent:
        gap = (s * ln_n + ln_n + conf) / (n - s)
        name = "Theorem 3(i) (consistent sample compression)"
    else:
        slack = eps * n / (n - s) - eps
        gap = slack + math.sqrt((s * ln_n + 2 * ln_n + conf) / (2.0 * (n - s)))
        terms["eps n/(n-|S~|)"] = eps * n / (n - s)
        name = "Theorem 3(ii) (eps-consistent sample compression)"
    return Bound(name, eps, gap, terms)


def condensed_nn_bound(n: int, gamma: float, ddim: float, delta: float, eps: float = 0.0) -> Bound:
    """Corollary 1 of Gottlieb, Kontorovich & Nisnevitch (2014): the bound for a (eps, gamma)-separable sample.

    If the sample (scaled to diameter 1) has an ``eps``-consistent subset with
    margin at least ``gamma`` (opposite labels at distance >= ``gamma``), its
    gamma-net has at most ``l = ceil(1/gamma)^(ddim + 1)`` points and, with
    probability ``1 - delta``::

        err <= eps n / (n - l) + sqrt( (l ln n + 2 ln n + ln(1/delta)) / (2 (n - l)) )

    ``ddim`` is the doubling dimension of the sample (``O(dimension)`` in a
    Euclidean space; for feature selection, measured on the selected features).

    Examples
    --------
    >>> condensed_nn_bound(10000, 0.5, 2, 0.05).terms["l"]
    8.0
    """
    g = _prob("gamma", gamma, one=True)
    dd = _num("ddim", ddim, 0)
    log_l = (dd + 1.0) * math.log(math.ceil(1.0 / g - 1e-12))
    n_i = _pos_int("n", n, 2)
    if log_l >= math.log(n_i):
        # the net may be as large as the sample: the bound says nothing
        eps_v = _prob("eps", eps, zero=True, one=True)
        return Bound("Corollary 1 (condensed nearest neighbour)", eps_v, math.inf,
                     {"n": float(n_i), "l": math.exp(min(log_l, 700.0))})
    ell = math.exp(log_l)
    base = compression_bound(n_i, max(1, math.ceil(ell - 1e-9)), delta, eps, consistent=False)
    terms = dict(base.terms)
    terms["l"] = float(round(ell, 9))
    return Bound("Corollary 1 (condensed nearest neighbour)", base.train_error, base.gap, terms)


# --------------------------------------------------------------------------- chapter 2
def normal_cdf(x: np.ndarray | float) -> np.ndarray | float:
    """Standard normal CDF ``Phi``."""
    from math import erfc, sqrt

    if np.ndim(x) == 0:
        return 0.5 * erfc(-float(x) / sqrt(2.0))
    return np.array([0.5 * erfc(-v / sqrt(2.0)) for v in np.asarray(x, dtype=np.float64).ravel()]).reshape(np.shape(x))


def _mu(mu: Sequence[float] | np.ndarray, sort: bool) -> np.ndarray:
    a = np.asarray(mu, dtype=np.float64).ravel()
    if a.size == 0:
        raise ValidationError("mu must hold at least one feature mean")
    if not np.isfinite(a).all():
        raise ValidationError("mu contains NaN or infinite values")
    if sort:
        a = a[np.argsort(-np.abs(a), kind="stable")]
    if a[0] == 0:
        raise ValidationError("mu must have at least one non-zero entry")
    return a


def gaussian_margin_f(mu: Sequence[float] | np.ndarray, m: float, sort: bool = True) -> np.ndarray:
    """Equation 2.7: ``f(n, m) = sum_{j<=n} mu_j^2 / sqrt(n/m + sum_{j<=n} mu_j^2)`` for n = 1..N.

    Two classes ``N(+mu, I)`` and ``N(-mu, I)`` with equal priors; the
    classifier ``sign(mu_hat_n . x_n)`` uses the first ``n`` features and the
    mean estimated from ``m`` instances; its expected error is about
    ``Phi(-f(n, m))``.  ``sort`` orders the features by ``|mu_j|`` first (the
    thesis assumes they are sorted).

    >>> np.round(gaussian_margin_f([1.0, 0.5], 4), 6).tolist()
    [0.894427, 0.944911]
    """
    a = _mu(mu, sort)
    mm = _num("m", m, 0, strict=True)
    s = np.cumsum(a * a)
    n = np.arange(1, a.size + 1, dtype=np.float64)
    return s / np.sqrt(n / mm + s)


@dataclass(frozen=True)
class GaussianFeatureCount:
    """Result of :func:`optimal_n_features`."""

    n_opt: int
    #: approximate error with ``n_opt`` features, ``Phi(-f(n_opt, m))``
    error: float
    #: approximate error ``Phi(-f(n, m))`` for n = 1..N
    errors: np.ndarray
    #: ``f(n, m)`` for n = 1..N
    f: np.ndarray
    #: error of the optimal classifier using all N features, ``Phi(-||mu||)``
    bayes_error: float


def optimal_n_features(mu: Sequence[float] | np.ndarray, m: float, sort: bool = True) -> GaussianFeatureCount:
    """Chapter 2 calculator: the best number of features for two spherical Gaussians.

    ``n_opt = argmax_n f(n, m)`` of equation 2.7 (see :func:`gaussian_margin_f`);
    adding a weak feature helps only while its ``mu_j^2`` outweighs the extra
    estimation noise ``1/m`` it brings.

    Parameters
    ----------
    mu : array
        Per-feature class-mean offsets ``mu_j`` (class +1 at ``+mu``, -1 at ``-mu``).
    m : float
        Number of training instances.
    sort : bool
        Sort features by ``|mu_j|`` (largest first) before counting.

    Examples
    --------
    >>> mu = 1 / np.sqrt(2.0 ** np.arange(1, 1001))
    >>> r = optimal_n_features(mu, 16)
    >>> r.n_opt, round(r.error, 3)
    (4, 0.195)
    """
    f = gaussian_margin_f(mu, m, sort)
    errors = np.asarray(normal_cdf(-f))
    k = int(np.argmax(f))
    a = _mu(mu, sort)
    return GaussianFeatureCount(k + 1, float(errors[k]), errors, f, float(normal_cdf(-math.sqrt(float(a @ a)))))
