"""Sample compression for nearest neighbours (Gottlieb, Kontorovich & Nisnevitch 2014, "[C]").

:func:`gamma_net`
    A ``gamma``-net of a point set: Algorithm 1 (``method="brute"``, ``O(n |net|)``
    distance evaluations) or the net hierarchy of [C] section 2
    (``method="hierarchy"``, ``2^O(ddim) n log(1/gamma)``).
:func:`is_gamma_net`
    Checks the packing and covering properties.
:func:`doubling_dimension`
    An estimate of ``ddim(S)`` for Corollary 1 from greedy half-radius nets of sampled balls.
:func:`sample_margin`, :func:`condense`
    The margin ``gamma(S)`` and the consistent condensed set (Algorithm 1, then Algorithm 2).
:func:`srm_search`
    [C] Theorem 4: the search over ``(eps, gamma)`` of the bound ``R(eps, gamma)`` of Corollary 1,
    with the witness, its net and the bounds of the result.

Metrics: ``"l1"`` (the paper's experiments) and ``"l2"`` (Euclidean).  The
paper assumes ``diam(S) = 1``; here ``gamma`` is in the data's units unless a
function says *scaled* (divided by the diameter).

Examples
--------
>>> import numpy as np
>>> from metafx import compression as cp
>>> X = np.random.default_rng(0).random((300, 2))
>>> net = cp.gamma_net(X, 0.2, metric="l1")
>>> cp.is_gamma_net(X, net, 0.2, metric="l1")
True
>>> cp.is_gamma_net(X, cp.gamma_net(X, 0.2, metric="l1", method="brute"), 0.2, metric="l1")
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._kernels.compression import (
    ball_cover_counts,
    brute_force_net,
    cross_metric,
    diameter_metric,
    hierarchy_net,
    max_dist_from,
    nn_metric,
    pairwise_metric,
)
from .._kernels.neighbors import prune_net
from ..core.exceptions import ValidationError
from .bounds import compression_bound, condensed_nn_bound

__all__ = [
    "METRICS",
    "DoublingEstimate",
    "SRMResult",
    "condense",
    "doubling_dimension",
    "gamma_net",
    "is_gamma_net",
    "min_vertex_cover",
    "nn_predict",
    "sample_margin",
    "srm_search",
    "witness",
]

METRICS = ("l1", "l2")


def _metric(metric: Any) -> bool:
    if not isinstance(metric, str) or metric not in METRICS:
        raise ValidationError(f"metric={metric!r} is not known; choose one of {', '.join(map(repr, METRICS))}")
    return metric == "l1"


def _points(X: Any, name: str = "X") -> np.ndarray:
    arr = np.asarray(X)
    if arr.ndim != 2:
        raise ValidationError(f"{name} must be 2-D (n_points, n_features), got shape {arr.shape}")
    if arr.dtype.kind not in "biuf":
        raise ValidationError(f"{name} must be numeric, got dtype {arr.dtype}")
    arr = np.ascontiguousarray(arr, dtype=np.float64)
    if arr.size and not np.isfinite(arr).all():
        raise ValidationError(f"{name} holds a non-finite value")
    return arr


def _positive(name: str, v: Any, allow_inf: bool = False) -> float:
    ok = not isinstance(v, bool) and isinstance(v, (int, float, np.integer, np.floating))
    x = float(v) if ok else math.nan
    if not (x > 0 and (allow_inf or math.isfinite(x))):
        raise ValidationError(f"{name}={v!r} must be a {'' if allow_inf else 'finite '}number > 0")
    return x


def _labels(y: Any, n: int) -> tuple[np.ndarray, np.ndarray]:
    yy = np.asarray(y)
    if yy.ndim != 1 or yy.shape[0] != n:
        raise ValidationError(f"y must be 1-D with {n} labels, got shape {yy.shape}")
    classes, codes = np.unique(yy, return_inverse=True)
    return classes, codes.ravel().astype(np.int64)


# --------------------------------------------------------------------------- nets
def gamma_net(X: Any, gamma: float, metric: str = "l2", method: str = "hierarchy") -> np.ndarray:
    """A ``gamma``-net of the rows of ``X``: row indices.

    (i) packing: net points are pairwise ``>= gamma`` apart; (ii) covering:
    every row is strictly within ``gamma`` of a net point.

    ``method="brute"`` is Algorithm 1 of [C] (rows in index order; the result
    is in index order).  ``method="hierarchy"`` builds the nets of radii
    ``2R, R, R/2, ...`` down to ``gamma`` (``R`` = largest distance from row
    0), each containing the previous, and tests a row only against the
    children of its parent's neighbours (points of the previous level closer
    than 4 times its radius); the result is in insertion order (coarse levels
    first).  When a level's neighbour lists would exceed 5e7 entries (very
    high doubling dimension) it falls back to Algorithm 1.  Both give valid
    nets, generally not the same one.
    """
    l1 = _metric(metric)
    A = _points(X)
    g = _positive("gamma", gamma, allow_inf=True)
    if method not in ("hierarchy", "brute"):
        raise ValidationError(f"method={method!r} is not known; choose 'hierarchy' or 'brute'")
    if A.shape[0] == 0:
        return np.zeros(0, np.int64)
    if math.isinf(g):
        return np.zeros(1, np.int64)

    if method == "hierarchy":
        net, _ = hierarchy_net(A, g, l1)
        if net is not None:
            return net
    return brute_force_net(A, g, l1)


def is_gamma_net(X: Any, net: Any, gamma: float, metric: str = "l2") -> bool:
    """True when ``net`` (row indices) has the packing and covering properties at ``gamma``."""
    l1 = _metric(metric)
    A = _points(X)
    idx = np.asarray(net, dtype=np.int64).ravel()
    if A.shape[0] == 0:
        return idx.size == 0
    if idx.size == 0 or idx.min() < 0 or idx.max() >= A.shape[0] or np.unique(idx).size != idx.size:
        return False
    D = pairwise_metric(A[idx], l1)
    np.fill_diagonal(D, np.inf)
    if idx.size > 1 and D.min() < gamma:
        return False
    _, d = nn_metric(A[idx], A, l1)
    return bool((d < gamma).all())


# --------------------------------------------------------------------------- doubling dimension
@dataclass(frozen=True)
class DoublingEstimate:
    """Result of :func:`doubling_dimension`.

    ``ddim = log2(max count)``, the count being the size of a greedy
    ``r/2``-net of a ball ``B(c, r)`` of the sample; ``lower = ddim / 2`` is
    a certified lower bound of the sample's doubling dimension (a set of
    points pairwise ``>= r/2`` apart in a ball of radius ``r`` has at most
    ``lambda^2`` points).  ``counts[i, j]`` is the count for center ``i`` and
    radius ``radii[j]``.
    """

    ddim: float
    lower: float
    radii: np.ndarray
    centers: np.ndarray
    counts: np.ndarray = field(repr=False)
    per_radius: np.ndarray = field(repr=False)


def doubling_dimension(X: Any, metric: str = "l2", n_centers: int = 64, n_radii: int = 12,
                       random_state: Any = 0) -> DoublingEstimate:
    """Estimate the doubling dimension ``ddim(S) = log2 lambda`` of the rows of ``X`` ([C] section 1.1).

    ``lambda`` is the smallest number such that every ball of radius ``r`` is
    covered by ``lambda`` balls of radius ``r/2``.  For ``n_centers`` rows
    (all rows when there are fewer; else drawn with ``random_state``) and the
    radii ``diam * 2^-j``, ``j = 0 .. n_radii - 1`` (``diam`` = twice the
    largest distance from row 0, an upper bound of the diameter), the closed
    ball ``B(c, r)`` of the sample is covered greedily by balls of radius
    ``r/2`` centred at sample points; ``ddim = log2`` of the largest cover.

    The greedy cover is at least the smallest cover of that ball (so the
    estimate is not below what those balls show) and at most ``lambda^2``
    (so ``ddim / 2`` is a lower bound of the sample's ``ddim``).  Balls not
    sampled can only raise the true value.  The estimate is data-dependent,
    as Corollary 1 wants (``ddim(S)``, not of the ambient space).

    Examples
    --------
    >>> import numpy as np
    >>> t = np.linspace(0, 1, 400)[:, None]
    >>> e1 = doubling_dimension(t).ddim                                   # a segment
    >>> e2 = doubling_dimension(np.random.default_rng(0).random((400, 2))).ddim  # a square
    >>> 1 <= e1 < e2
    True
    """
    l1 = _metric(metric)
    A = _points(X)
    if A.shape[0] < 2:
        raise ValidationError(f"doubling_dimension needs at least 2 points, got {A.shape[0]}")
    nc = int(n_centers) if isinstance(n_centers, (int, np.integer)) and not isinstance(n_centers, bool) else -1
    nr = int(n_radii) if isinstance(n_radii, (int, np.integer)) and not isinstance(n_radii, bool) else -1
    if nc < 1:
        raise ValidationError(f"n_centers={n_centers!r} must be an integer >= 1")
    if nr < 1:
        raise ValidationError(f"n_radii={n_radii!r} must be an integer >= 1")
    diam = 2.0 * max_dist_from(A, 0, l1)
    if diam == 0:
        raise ValidationError("doubling_dimension needs at least 2 distinct points")
    rng = np.random.default_rng(random_state)
    centers = np.arange(A.shape[0]) if A.shape[0] <= nc else np.sort(rng.choice(A.shape[0], nc, replace=False))
    radii = diam * 2.0 ** -np.arange(nr, dtype=np.float64)
    counts = ball_cover_counts(A, centers, radii, l1)
    per_radius = np.log2(np.maximum(counts.max(axis=0), 1))
    dd = float(per_radius.max())
    return DoublingEstimate(dd, dd / 2.0, radii, centers, counts, per_radius)


# --------------------------------------------------------------------------- margin, condensing, 1-NN
def sample_margin(X: Any, y: Any, metric: str = "l2") -> float:
    """``gamma(S)``: smallest distance between two rows of different labels (``inf`` with one label)."""
    l1 = _metric(metric)
    A = _points(X)
    _, codes = _labels(y, A.shape[0])
    best = math.inf
    for c in np.unique(codes):
        inside, outside = A[codes == c], A[codes != c]
        if outside.shape[0]:
            best = min(best, float(nn_metric(outside, inside, l1)[1].min()))
    return best


def nn_predict(P: Any, labels: Any, Q: Any, metric: str = "l2") -> np.ndarray:
    """Labels of the nearest row of ``P`` (lowest index on ties) for each row of ``Q``."""
    l1 = _metric(metric)
    A, B = _points(P, "P"), _points(Q, "Q")
    if A.shape[0] == 0:
        raise ValidationError("nn_predict needs at least one prototype")
    if B.shape[1] != A.shape[1]:
        raise ValidationError(f"Q must have {A.shape[1]} columns, got {B.shape[1]}")
    lab = np.asarray(labels)
    if lab.shape[0] != A.shape[0]:
        raise ValidationError(f"labels must hold {A.shape[0]} entries, got {lab.shape[0]}")
    idx, _ = nn_metric(A, B, l1)
    return lab[idx]


@dataclass(frozen=True)
class Condensed:
    """Result of :func:`condense`: training indices of the net and of the pruned set."""

    net: np.ndarray
    pruned: np.ndarray
    gamma: float
    diameter: float


def condense(X: Any, y: Any, metric: str = "l2", gamma: float | None = None, prune: bool = True,
             method: str = "hierarchy") -> Condensed:
    """Consistent condensed set: a ``gamma``-net (Algorithm 1 / hierarchy), then Algorithm 2.

    ``gamma`` defaults to the sample margin (then the net is consistent with
    the sample: every row's nearest net point has its label).  Rows must not
    repeat with different labels (margin 0; :func:`srm_search` handles that
    case by removing a vertex cover).  Algorithm 2 ([C] section 4): for
    ``r = diam, diam/2, ...`` while ``r >= gamma``, each kept net point ``p``
    (net order) whose other-label net points are all ``>= 2r`` away removes
    the kept net points within ``r - gamma`` of it.  Several labels are
    allowed ("opposite" = any other label).
    """
    l1 = _metric(metric)
    A = _points(X)
    if A.shape[0] == 0:
        raise ValidationError("condense needs at least one point")
    _, codes = _labels(y, A.shape[0])
    g = sample_margin(A, codes, metric) if gamma is None else _positive("gamma", gamma, allow_inf=True)
    if g == 0:
        raise ValidationError("condense: two identical rows carry different labels (margin 0); remove one of "
                              "each such pair first (srm_search does so by a minimum vertex cover)")
    net = gamma_net(A, g, metric, method)
    diam = 2.0 * max_dist_from(A, 0, l1)  # upper bound of the diameter: the first radius of Algorithm 2
    alive = np.ones(net.shape[0], dtype=bool)
    if prune and net.shape[0] > 1 and math.isfinite(g):
        radii = []
        r = diam
        while r >= g and r > 0:
            radii.append(r)
            r /= 2.0
        if radii:
            alive = prune_net(pairwise_metric(A[net], l1), codes[net], np.array(radii), g)
    return Condensed(net, net[alive], g, diam)


# --------------------------------------------------------------------------- Theorem 4 (SRM)
def min_vertex_cover(n_left: int, n_right: int, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """Minimum vertex cover of a bipartite graph (Koenig's theorem from a maximum matching).

    Vertices ``0 .. n_left-1`` (left) and ``n_left .. n_left+n_right-1``
    (right); edges ``(rows[e], cols[e])`` with ``cols`` counted within the
    right side.  Returns a boolean mask over all vertices.
    """
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import maximum_bipartite_matching

    cover = np.zeros(n_left + n_right, dtype=bool)
    if rows.size == 0:
        return cover
    G = csr_matrix((np.ones(rows.size, dtype=np.int8), (rows, cols)), shape=(n_left, n_right))
    G.sum_duplicates()
    match_l = maximum_bipartite_matching(G, perm_type="column")  # right vertex matched to each left one
    match_r = np.full(n_right, -1, np.int64)
    ml = np.flatnonzero(match_l >= 0)
    match_r[match_l[ml]] = ml
    # Z: vertices reachable from unmatched left vertices by alternating paths
    visit_l = match_l < 0
    visit_r = np.zeros(n_right, dtype=bool)
    frontier = np.flatnonzero(visit_l)
    indptr, indices = G.indptr, G.indices
    while frontier.size:
        nb = np.unique(np.concatenate([indices[indptr[u]:indptr[u + 1]] for u in frontier]))
        nb = nb[~visit_r[nb]]
        visit_r[nb] = True
        back = match_r[nb]
        back = back[(back >= 0)]
        back = back[~visit_l[back]]
        visit_l[back] = True
        frontier = back
    cover[:n_left] = ~visit_l
    cover[n_left:] = visit_r
    return cover


def witness(X: Any, y: Any, gamma: float, metric: str = "l2") -> np.ndarray:
    """Indices of a largest subset with margin ``>= gamma`` (two labels): ``S`` minus a minimum vertex cover.

    The graph joins rows of different labels closer than ``gamma``; removing
    a minimum vertex cover (Koenig, :func:`min_vertex_cover`) leaves the
    witness ``S~`` of ``(eps, gamma)``-separability with the smallest
    ``eps = 1 - |S~| / n``.  A tiny ``gamma`` (e.g. ``5e-324``) removes only
    identical rows with different labels, as few as possible.
    """
    l1 = _metric(metric)
    A = _points(X)
    classes, codes = _labels(y, A.shape[0])
    g = _positive("gamma", gamma, allow_inf=True)
    if classes.size > 2:
        raise ValidationError(f"witness is for two labels, got {classes.size} (with more the graph is not "
                              "bipartite and a minimum vertex cover is NP-hard)")
    if classes.size < 2:
        return np.arange(A.shape[0])
    left, right = np.flatnonzero(codes == 0), np.flatnonzero(codes == 1)
    er, ec = np.nonzero(cross_metric(A[left], A[right], l1) < g)
    mask = min_vertex_cover(left.size, right.size, er, ec)
    removed = np.r_[left[mask[:left.size]], right[mask[left.size:]]]
    return np.setdiff1d(np.arange(A.shape[0]), removed)


@dataclass
class SRMResult:
    """Result of :func:`srm_search`.

    Attributes
    ----------
    eps, gamma : float
        The chosen pair (``gamma`` scaled: divided by the diameter); ``eps`` =
        fraction of the sample removed (a minimum vertex cover of the
        opposite-label pairs closer than ``gamma``).
    gamma_abs : float
        ``gamma`` in the data's units.
    witness : ndarray
        Indices of ``S~``: ``eps``-consistent with ``S``, margin ``>= gamma``.
    net : ndarray
        Indices of a ``gamma``-net of the witness (consistent with it).
    bound : ~metafx.learn.bounds.Bound
        The minimized objective at the chosen pair.
    compression_bound : ~metafx.learn.bounds.Bound
        [C] Theorem 3(ii) for the net actually built (size ``len(net)``,
        ``eps`` = its disagreement with the labels on ``S``); it holds for any
        subset of the sample, so it needs no ``ddim``.
    ddim : float or None
        The doubling dimension used in Corollary 1.
    candidates : list of dict
        Every pair tried: ``gamma``, ``eps``, ``l`` (or net size), ``bound``.
    """

    eps: float
    gamma: float
    gamma_abs: float
    witness: np.ndarray
    net: np.ndarray
    bound: Any
    compression_bound: Any
    ddim: float | None
    diameter: float
    candidates: list = field(default_factory=list)


def srm_search(X: Any, y: Any, delta: float = 0.05, metric: str = "l2", objective: str = "corollary1",
               ddim: float | None = None, n_gammas: int = 40, method: str = "hierarchy") -> SRMResult:
    """[C] Theorem 4: choose ``(eps, gamma)`` minimizing the bound, and return a witness and its net.

    ``R(eps, gamma)`` is the right-hand side of Corollary 1::

        R = eps n / (n - l) + sqrt((l ln n + 2 ln n + ln(1/delta)) / (2 (n - l))),   l = ceil(1/gamma)^(ddim + 1)

    (``gamma`` scaled to ``diam(S) = 1``).  For a given ``gamma`` the
    smallest ``eps`` is the size of a minimum vertex cover of the graph
    joining opposite labels closer than ``gamma``, over ``n``; removing the
    cover leaves a witness ``S~`` with margin ``>= gamma`` (two labels: the
    graph is bipartite and Koenig's theorem gives the cover from a maximum
    matching, in polynomial time).

    ``objective="corollary1"`` minimizes ``R`` exactly: ``R`` depends on
    ``gamma`` only through ``ceil(1/gamma)`` and ``eps`` does not decrease as
    ``gamma`` grows, so only ``gamma = 1/k``, ``k = 1, 2, ...`` (while
    ``l < n``) need be tried, each with an exact cover.  ``ddim`` defaults to
    :func:`doubling_dimension`'s estimate.  ``objective="compression"`` (a
    metafx variant) tries ``n_gammas`` values between the smallest nonzero
    opposite-label distance and the diameter (log-spaced) and minimizes
    Theorem 3(ii) for the net actually built on each witness; it needs no
    ``ddim``.

    Then a ``gamma``-net of the witness is built ([C]: "run the algorithm of
    Theorem 1 on S~"); ``compression_bound`` is Theorem 3(ii) for it.

    Raises ``ValidationError`` with more than two labels: the theorem is for
    binary labels (with more the conflict graph is not bipartite and a
    minimum vertex cover is NP-hard).
    """
    l1 = _metric(metric)
    A = _points(X)
    n = A.shape[0]
    if n < 3:
        raise ValidationError(f"srm_search needs at least 3 points, got {n}")
    classes, codes = _labels(y, n)
    if classes.size != 2:
        raise ValidationError(f"srm_search ([C] Theorem 4) is for two labels, got {classes.size}; run it per pair "
                              "of labels (one-vs-one), as the paper does for Covertype")
    if objective not in ("corollary1", "compression"):
        raise ValidationError(f"objective={objective!r} is not known; choose 'corollary1' or 'compression'")
    diam_bound = 2.0 * max_dist_from(A, 0, l1)
    if diam_bound == 0:
        raise ValidationError("srm_search needs at least 2 distinct points")
    left, right = np.flatnonzero(codes == 0), np.flatnonzero(codes == 1)
    diam = diameter_metric(A, l1)
    C = cross_metric(A[left], A[right], l1)
    order = np.argsort(C, axis=None, kind="stable")
    cd = C.ravel()[order]
    er, ec = np.unravel_index(order, C.shape)

    def cover_for(g_abs: float) -> np.ndarray:
        k = int(np.searchsorted(cd, g_abs, side="left"))  # pairs with distance < g_abs
        mask = min_vertex_cover(left.size, right.size, er[:k], ec[:k])
        removed = np.r_[left[mask[:left.size]], right[mask[left.size:]]]
        return np.setdiff1d(np.arange(n), removed)

    dl = float(delta)
    cands: list[dict] = []
    best = None
    if objective == "corollary1":
        if ddim is None:
            ddim = doubling_dimension(A, metric).ddim
        dd = float(ddim)
        if not (dd >= 0 and math.isfinite(dd)):
            raise ValidationError(f"ddim={ddim!r} must be a finite number >= 0")
        k = 1
        while True:
            g = 1.0 / k
            if (dd + 1.0) * math.log(k) >= math.log(n) and k > 1:
                break
            wit = cover_for(g * diam)
            eps = 1.0 - wit.size / n
            b = condensed_nn_bound(n, g, dd, dl, eps)
            cands.append({"gamma": g, "eps": eps, "l": b.terms.get("l", math.inf), "bound": b.value})
            if best is None or b.value < best[0].value:
                best = (b, g, wit, eps)
            k += 1
    else:
        pos_d = cd[cd > 0]
        lo = float(pos_d.min()) if pos_d.size else diam
        gs = np.unique(np.r_[np.geomspace(lo, diam, max(int(n_gammas), 2)), lo])
        for g_abs in gs:
            wit = cover_for(float(g_abs))
            net = wit[gamma_net(A[wit], float(g_abs), metric, method)]
            wrong = float(np.mean(codes[net][nn_metric(A[net], A, l1)[0]] != codes))
            b = compression_bound(n, max(1, net.size), dl, wrong, consistent=False)
            cands.append({"gamma": float(g_abs) / diam, "eps": 1.0 - wit.size / n, "net": int(net.size),
                          "bound": b.value})
            if best is None or b.value < best[0].value:
                best = (b, float(g_abs) / diam, wit, 1.0 - wit.size / n)
    assert best is not None  # at least one gamma is tried
    bnd, g, wit, eps = best
    g_abs = g * diam
    net = wit[gamma_net(A[wit], g_abs, metric, method)]
    wrong = float(np.mean(codes[net][nn_metric(A[net], A, l1)[0]] != codes))
    cb = compression_bound(n, max(1, net.size), dl, wrong, consistent=False)
    return SRMResult(eps, g, g_abs, wit, net, bnd, cb, None if objective == "compression" or ddim is None else float(ddim), diam,
                     cands)
