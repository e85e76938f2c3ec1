"""Per-feature scorers of class labels: one quality number per column (higher is better).

``infogain``
    Mutual information (nats) between each discrete column and the label
    (thesis section 1.2.1); median binarization of continuous columns;
    optional pseudo-count; optional division by per-feature costs.
``relief`` / ``relief-f``
    Relief (thesis Alg 3) and Relief-F (nearest miss of every other class, averaged).
``simba``
    Simba (thesis Alg 2): stochastic gradient ascent on the leave-one-out
    margin evaluation function e(w), random restarts keeping the best e(w).
``r2w2``
    R2W2 (Weston et al. 2000; thesis section 3.5.4): gradient descent on the
    radius-margin bound ``R^2 W^2`` of an RBF SVM over per-feature scaling
    factors, with the "ridge" added to the kernel diagonal.

The scorers of a real-valued target (``corrcoef``, ``rgs``, ``sks``) are in
:mod:`metafx.default_plugins.regression_scorers`.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from .._kernels import margin as K
from .._kernels.relieff_k import relieff_k_weights
from .._kernels.scoring import class_masks, dense_binary_class_counts, mutual_info_from_counts, packed_class_counts
from ..core.base import FeatureScorer
from ..core.exceptions import ValidationError
from ..core.params import Interval, Options
from ..core.validation import check_costs, check_xy
from ..core.values import FeatureValues
from ..learn.arrays import binary_rows, dense_float, encode_labels, utility_code
from ..learn.radius_margin import r2w2_value_and_grad

__all__ = [
    "R2W2",
    "Infogain",
    "Relief",
    "ReliefF",
    "Simba",
    "categorical_infogain",
    "infogain_table",
    "instance_order",
    "median_binarize",
]


def raw_matrix(values: FeatureValues) -> np.ndarray:
    """The dense matrix in its own dtype (unpacked as uint8 for packed values)."""
    dense = getattr(values, "_dense", None)
    return dense if dense is not None else values.dense(np.uint8)


def median_binarize(X: np.ndarray) -> np.ndarray:
    """``X > median`` column by column (uint8), thesis section 4.3 footnote 2."""
    X = np.asarray(X, dtype=np.float64)
    if X.shape[0] == 0:
        return np.zeros(X.shape, dtype=np.uint8)
    return (X > np.median(X, axis=0)).astype(np.uint8)


def infogain_table(joint: np.ndarray, pseudo_count: float = 0.0) -> float:
    """Mutual information (nats) of a ``(n_values, n_classes)`` contingency table.

    ``pseudo_count`` is added to every cell before normalizing.
    """
    t = np.asarray(joint, dtype=np.float64) + pseudo_count
    total = t.sum()
    if total <= 0:
        return 0.0
    rows = t.sum(axis=1, keepdims=True)
    cols = t.sum(axis=0, keepdims=True)
    nz = t > 0
    outer = (rows * cols)[nz]
    val = t[nz]
    mi = float(np.sum(val / total * (np.log(val) - np.log(outer) + np.log(total))))
    return max(mi, 0.0)


def _is_binary(X: np.ndarray) -> bool:
    if X.dtype == bool:
        return True
    if X.dtype.kind == "u":
        return bool((X <= 1).all())
    return bool(((X == 0) | (X == 1)).all())


class Infogain(FeatureScorer):
    """Infogain: mutual information between each feature and the label, in nats.

    ``IG(f) = sum_ij P_ij ln(P_ij / (P_i. P_.j))`` over the empirical joint
    distribution of the feature's values ``i`` and the classes ``j``.  With
    ``pseudo_count=0`` (default) it equals
    ``sklearn.metrics.mutual_info_score(y, X[:, j])`` for every column.

    Parameters
    ----------
    pseudo_count : float, default 0
        Zero correction: added to the count of every cell (feature value x
        class) before normalizing.  The value alphabet is ``{0, 1}`` for
        binary columns and the observed values otherwise; the class alphabet
        is the labels present in ``y``.
    binarize : {"auto", "median", "none"}, default "auto"
        ``"auto"``: a column holding a non-integer value is replaced by
        ``x > median(x)``; integer columns are used as they are.  ``"median"``:
        every column is median-binarized.  ``"none"``: every distinct value is
        a category.
    binarize_target : {"auto", "median", "none"}, default "auto"
        The same for ``y`` (``"auto"`` binarizes a target holding non-integer
        values, the regression use of thesis section 4.3).
    costs : array of shape (n_features,), optional
        Positive per-feature costs; the score becomes ``IG / cost``
        (thesis section 5.3.2, "normalized" Infogain).

    Examples
    --------
    >>> import numpy as np, metafx
    >>> X = np.array([[0, 1], [0, 0], [1, 1], [1, 0]])
    >>> metafx.score_features(X, [0, 0, 1, 1], "infogain").round(4)
    array([0.6931, 0.    ])
    """

    name = "infogain"
    summary = "mutual information of each feature with the label (nats); optional pseudo-count, costs"

    def __init__(self, pseudo_count: float = 0.0, binarize: str = "auto", binarize_target: str = "auto",
                 costs: Any = None) -> None:
        self.pseudo_count = pseudo_count
        self.binarize = binarize
        self.binarize_target = binarize_target
        self.costs = costs

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "pseudo_count": [Interval("real", 0, None)],
        "binarize": [Options("auto", "median", "none")],
        "binarize_target": [Options("auto", "median", "none")],
        "costs": ["array-like", None],
    }

    def _target(self, y: np.ndarray) -> np.ndarray:
        mode = self.binarize_target
        if mode == "median" or (mode == "auto" and y.dtype.kind == "f" and np.any(y != np.round(y))):
            return median_binarize(y.reshape(-1, 1)).ravel()
        return y

    def score(self, X, y) -> np.ndarray:
        self.check_params()
        values, y = check_xy(X, y)
        costs = check_costs(self.costs, values.n_features)
        codes, n_classes = encode_labels(self._target(y))
        pseudo = float(self.pseudo_count)
        if values.n_features == 0:
            return np.zeros(0)
        if values.packed is not None:
            scores = self._binary_packed(values.packed, codes, n_classes, pseudo)
        else:
            scores = self._dense(raw_matrix(values), codes, n_classes, pseudo)
        return scores / costs if costs is not None else scores

    @staticmethod
    def _binary_packed(packed, codes, n_classes, pseudo):
        ones = packed_class_counts(packed, class_masks(codes, n_classes))
        return mutual_info_from_counts(ones, np.bincount(codes, minlength=n_classes), pseudo)

    @staticmethod
    def _binary_dense(X, codes, n_classes, pseudo):
        ones = dense_binary_class_counts(X, codes, n_classes)
        return mutual_info_from_counts(ones, np.bincount(codes, minlength=n_classes), pseudo)

    def _dense(self, X, codes, n_classes, pseudo):
        if self.binarize == "median":
            return self._binary_dense(median_binarize(X), codes, n_classes, pseudo)
        if self.binarize == "auto" and X.dtype.kind == "f":
            cont = np.any(X != np.round(X), axis=0)
            if cont.any():
                X = X.copy()
                X[:, cont] = median_binarize(X[:, cont])
        if _is_binary(X):
            return self._binary_dense(X, codes, n_classes, pseudo)
        return categorical_infogain(X, codes, n_classes, pseudo)


#: the most entries (rows x columns) of one block of :func:`categorical_infogain`'s columns, and the most cells
#: (columns x values x classes) of one block's tables
BLOCK_ENTRIES = 1 << 20
TABLE_CELLS = 1 << 22


def categorical_infogain(X: np.ndarray, codes: np.ndarray, n_classes: int, pseudo: float = 0.0) -> np.ndarray:
    """The mutual information (nats) of every column of ``X`` with the class ``codes`` (``0 .. n_classes - 1``), each
    distinct value a category: :func:`infogain_table` of each column's ``(values, classes)`` table, whose rows are
    the values ``{0, 1}`` for a 0/1 column and the column's distinct values otherwise (``np.unique``'s order).

    Blocks of columns at once (at most :data:`BLOCK_ENTRIES` entries): a block's columns are sorted together, their
    values ranked, and their tables counted by one ``bincount`` (``tests/test_scorers.py`` checks it against a loop
    of ``np.unique`` per column; the scores agree to rounding).  A column holding a NaN (``np.unique`` makes the NaNs
    one value), or with too many distinct values for a block's :data:`TABLE_CELLS`, is counted on its own."""
    X = np.asarray(X)
    m, n = X.shape
    out = np.zeros(n)
    block = max(1, BLOCK_ENTRIES // max(m, 1))
    for start in range(0, n if m else 0, block):
        out[start:start + block] = _block_infogain(X[:, start:start + block], codes, n_classes, pseudo)
    return out


def _block_infogain(X, codes, n_classes, pseudo):
    k = X.shape[1]
    inv, n_values = _value_codes(np.ascontiguousarray(X.T))
    binary = ((X == 0) | (X == 1)).all(axis=0)
    inv[:, binary] = X[:, binary].astype(np.int64)
    n_values = np.where(binary, 2, n_values)
    together = n_values * n_classes * k <= TABLE_CELLS
    if X.dtype.kind == "f":
        together &= ~np.isnan(X).any(axis=0)
    out = np.empty(k)
    for j in np.flatnonzero(~together):
        _, v = np.unique(X[:, j], return_inverse=True)
        v = np.asarray(v).ravel()
        joint = np.bincount(v * n_classes + codes, minlength=(int(v.max()) + 1) * n_classes)
        out[j] = infogain_table(joint.reshape(-1, n_classes), pseudo)
    cols = np.flatnonzero(together)
    if len(cols):
        out[cols] = _tables_infogain(inv[:, cols], n_values[cols], int(n_values[cols].max()), codes, n_classes,
                                     pseudo)
    return out


def _value_codes(XT):
    """``(inv, n_values)``: each row of ``XT`` (a column of the data) coded by the rank of its value among the row's
    distinct values (``np.unique``'s inverse), as an ``(m, k)`` array, and the number of distinct values per row.
    Rows of small integers are coded by counting (no sort); the others by sorting each row."""
    if XT.dtype == bool:
        XT = XT.view(np.uint8)
    k, m = XT.shape
    inv = np.empty((m, k), dtype=np.int64)
    n_values = np.zeros(k, dtype=np.int64)
    low = XT.min(axis=1)
    with np.errstate(invalid="ignore"):  # inf - inf: not a small span
        span = XT.max(axis=1).astype(np.float64) - low.astype(np.float64)  # no wrap-around of integer extremes
    small = (span <= 64) & np.all(XT == np.round(XT), axis=1) if XT.dtype.kind == "f" else (span <= 64)
    if XT.dtype.kind == "f":
        small &= ~np.isnan(XT).any(axis=1)
    rows = np.flatnonzero(small)
    if len(rows):
        shifted = (XT[rows] - low[rows, None]).astype(np.int64)  # 0 .. 64
        present = np.zeros((len(rows), 65), dtype=bool)
        present[np.repeat(np.arange(len(rows)), m), shifted.ravel()] = True
        remap = np.cumsum(present, axis=1) - 1
        inv[:, rows] = np.take_along_axis(remap, shifted, axis=1).T
        n_values[rows] = present.sum(axis=1)
    rows = np.flatnonzero(~small)
    if len(rows):
        order = np.argsort(XT[rows], axis=1, kind="stable")
        ranked = np.take_along_axis(XT[rows], order, axis=1)
        rank = np.zeros(ranked.shape, dtype=np.int64)
        np.cumsum(ranked[:, 1:] != ranked[:, :-1], axis=1, out=rank[:, 1:])
        coded = np.empty_like(rank)
        np.put_along_axis(coded, order, rank, axis=1)
        inv[:, rows] = coded.T
        n_values[rows] = rank[:, -1] + 1
    return inv, n_values


def _tables_infogain(inv, n_values, width, codes, n_classes, pseudo):
    """:func:`infogain_table` of the ``(n_values[j], n_classes)`` table of each column ``j`` of the value codes
    ``inv``, counted together in ``(k, width, n_classes)``, and computed with ``infogain_table``'s own operations in
    its order: each sum over the same elements in the same order (tables of one shape summed as rows of one array,
    the non-zero cells of tables with as many of them likewise), so every score is ``infogain_table``'s to the bit."""
    k = inv.shape[1]
    flat = (np.arange(k)[None, :] * width + inv) * n_classes + codes[:, None]
    t = np.bincount(flat.ravel(), minlength=k * width * n_classes).reshape(k, width, n_classes).astype(np.float64)
    t += pseudo * (np.arange(width)[None, :] < n_values[:, None])[:, :, None]
    total = np.empty(k)
    for nv in np.unique(n_values):  # the sum of each table's cells, as np.sum of the flat (n_values, n_classes) table
        g = np.flatnonzero(n_values == nv)
        total[g] = np.ascontiguousarray(t[g, :nv, :]).reshape(len(g), -1).sum(axis=1)
    rows = t.sum(axis=2, keepdims=True)
    cols = t.sum(axis=1, keepdims=True)
    nz = t > 0
    count = nz.reshape(k, -1).sum(axis=1)
    out = np.zeros(k)
    for c in np.unique(count[(count > 0) & (total > 0)]):  # tables with c non-zero cells, summed in row-major order
        g = np.flatnonzero((count == c) & (total > 0))
        mask = nz[g]
        val = t[g][mask].reshape(len(g), c)
        outer = np.broadcast_to(rows[g] * cols[g], mask.shape)[mask].reshape(len(g), c)
        tot = total[g][:, None]
        out[g] = np.sum(val / tot * (np.log(val) - np.log(outer) + np.log(tot)), axis=1)
    return np.maximum(out, 0.0)


# ------------------------------------------------------------------ Relief, Relief-F
def instance_order(m: int, n_iter: int | None, rng: np.random.Generator, *, permutations: bool) -> np.ndarray:
    """Instances visited: ``n_iter`` draws (with replacement, or as consecutive random permutations)."""
    if n_iter is None:
        n_iter = m
    if m == 0 or n_iter == 0:
        return np.zeros(0, dtype=np.int64)
    if not permutations:
        return rng.integers(0, m, size=n_iter).astype(np.int64)
    reps = -(-n_iter // m)
    return np.concatenate([rng.permutation(m) for _ in range(reps)])[:n_iter].astype(np.int64)


class Relief(FeatureScorer):
    """Relief (Kira & Rendell; thesis Algorithm 3).

    ``w_f = sum_x (x_f - nearmiss(x)_f)^2 - (x_f - nearhit(x)_f)^2`` over the
    visited instances, nearest hit and nearest miss (any other class) found
    with the plain Euclidean metric among the other instances (the lowest
    index wins ties).  An instance without a hit (single-member class) or a
    miss (one class) adds nothing.  Binary data use Hamming distances on
    packed bits (the same neighbours).

    Parameters
    ----------
    n_iter : int or None, default None
        ``None``: every instance once, in index order (deterministic).
        Otherwise ``n_iter`` instances drawn uniformly with replacement.
    random_state : int, default 0
        Seed of the draws when ``n_iter`` is given.

    Examples
    --------
    >>> import numpy as np, metafx
    >>> X = np.array([[0., 0.], [0., 1.], [1., 0.], [1., 1.]])
    >>> metafx.score_features(X, [0, 0, 1, 1], "relief")
    array([ 4., -4.])
    """

    name = "relief"
    summary = "Relief feature weights (nearest hit / nearest miss, thesis Alg 3)"

    def __init__(self, n_iter: int | None = None, random_state: int = 0) -> None:
        self.n_iter = n_iter
        self.random_state = random_state

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "n_iter": [Interval("int", 1, None), None],
        "random_state": [Interval("int", 0, None)],
    }

    def _queries(self, m: int) -> np.ndarray:
        if self.n_iter is None:
            return np.arange(m, dtype=np.int64)
        return instance_order(m, self.n_iter, np.random.default_rng(self.random_state), permutations=False)

    def _neighbours(self, values, codes, n_classes, queries):
        R = binary_rows(values)
        if R is not None:
            return K.nearest_by_class_packed(R, codes, n_classes, queries)
        X = dense_float(values)
        return K.nearest_by_class(X, codes, n_classes, np.ones(X.shape[1]), queries)

    def score(self, X, y) -> np.ndarray:
        self.check_params()
        values, y = check_xy(X, y)
        codes, n_classes = encode_labels(y)
        queries = self._queries(values.n_samples)
        if values.n_features == 0:
            return np.zeros(0)
        idx, dist = self._neighbours(values, codes, n_classes, queries)
        return self._weights(dense_float(values), codes, queries, idx, dist)

    @staticmethod
    def _weights(X, codes, queries, idx, dist):
        own = codes[queries]
        rows = np.arange(queries.shape[0])
        hit = idx[rows, own]
        other = dist.copy()
        other[rows, own] = np.inf
        # nearest miss over all other classes: smallest distance, then lowest index
        best = other.min(axis=1, keepdims=True) if other.shape[1] else np.full((len(rows), 1), np.inf)
        cand = np.where((other == best) & np.isfinite(other), idx, np.iinfo(np.int64).max)
        miss = cand.min(axis=1) if cand.shape[1] else np.full(len(rows), -1)
        miss = np.where(np.isfinite(best[:, 0]), miss, -1)
        return K.relief_weights(X, queries, hit, miss)


class ReliefF(Relief):
    """Relief-F: Relief whose miss term averages the nearest instances of *every* other class.

    ``w_f = sum_x [ mean_{c != y(x)} mean_{j in M_c(x)} (x_f - x_jf)^2 - mean_{j in H(x)} (x_f - x_jf)^2 ]``
    with ``H(x)`` the ``n_neighbors`` nearest hits and ``M_c(x)`` the ``n_neighbors``
    nearest instances of class ``c`` (Kononenko's k nearest hits and misses; fewer
    when a class has fewer members).  The average over classes is plain, as thesis
    section 3.5.3 describes it (no class-prior weighting).  With ``n_neighbors=1``
    (default) and two classes it equals ``relief``.

    Parameters
    ----------
    n_iter : int or None, default None
        As for ``relief``.
    random_state : int, default 0
    n_neighbors : int, default 1
        ``k``, the nearest hits and the nearest misses per other class.

    Examples
    --------
    >>> import numpy as np, metafx
    >>> X = np.array([[0., 0.], [0., 1.], [1., 0.], [1., 1.], [3., 3.], [3., 2.]])
    >>> metafx.score_features(X, [0, 0, 1, 1, 2, 2], "relief-f")
    array([28.,  4.])
    """

    name = "relief-f"
    summary = "Relief-F: k nearest hits and k nearest misses of every other class, averaged (n_neighbors=)"

    def __init__(self, n_iter: int | None = None, random_state: int = 0, n_neighbors: int = 1) -> None:
        super().__init__(n_iter=n_iter, random_state=random_state)
        self.n_neighbors = n_neighbors

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {"n_neighbors": [Interval("int", 1, None)]}

    def score(self, X, y) -> np.ndarray:
        self.check_params()
        if self.n_neighbors == 1:
            return super().score(X, y)

        values, y = check_xy(X, y)
        codes, n_classes = encode_labels(y)
        queries = self._queries(values.n_samples)
        if values.n_features == 0:
            return np.zeros(0)
        return relieff_k_weights(dense_float(values), codes, n_classes, queries, int(self.n_neighbors))

    @staticmethod
    def _weights(X, codes, queries, idx, dist):
        return K.relieff_weights(X, codes, queries, idx)


# ------------------------------------------------------------------ Simba
class Simba(FeatureScorer):
    """Simba (thesis Algorithm 2): margin-based feature weighting.

    Stochastic gradient ascent (step 1) on the leave-one-out margin evaluation
    function ``e(w) = sum_x u(theta_w(x))``, ``theta_w(x) = 1/2 (||x -
    nearmiss(x)||_w - ||x - nearhit(x)||_w)`` with nearest hit and miss
    re-found under ``||z||_w = sqrt(sum_i w_i^2 z_i^2)`` at every step.
    Each restart starts from ``w = 1`` and visits the instances in a fresh
    random permutation (``n_iter`` steps, consecutive permutations when
    ``n_iter > m``); the restart with the highest ``e(w / max|w|)`` is kept and
    ``w^2 / max(w^2)`` is returned; a constant column scores 0 (its weight
    never moves from 1, yet it separates nothing).  Where a nearest neighbour is at weighted
    distance 0 its term of the gradient is 0 (the limit of
    ``w_i z_i^2 / ||z||_w``).

    Parameters
    ----------
    n_iter : int or None, default None
        Steps T per restart; ``None``: one pass, T = m.
    utility : {"linear", "sigmoid"}, default "linear"
        ``u(t) = t`` or ``1 / (1 + exp(-beta t))`` (zero-one is not differentiable).
    beta : float, default 1.0
        Sigmoid slope (thesis: 0.01 on faces, 1 on Reuters; about one over
        the mean distance between instances).
    n_restarts : int, default 10
        Random starting points (the thesis used 10).
    random_state : int, default 0

    Attributes
    ----------
    evaluation_ : float
        ``e(w)`` of the kept restart (normalized ``max |w_i| = 1``).

    Examples
    --------
    >>> import numpy as np, metafx
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, (200, 4))
    >>> w = metafx.score_features(X, X[:, 0] > 0, "simba", n_restarts=2)
    >>> int(np.argmax(w)), float(w.max())
    (0, 1.0)
    """

    name = "simba"
    summary = "Simba margin-based feature weights (thesis Alg 2), restarts keep the best e(w)"

    def __init__(self, n_iter: int | None = None, utility: str = "linear", beta: float = 1.0,
                 n_restarts: int = 10, random_state: int = 0) -> None:
        self.n_iter = n_iter
        self.utility = utility
        self.beta = beta
        self.n_restarts = n_restarts
        self.random_state = random_state

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "n_iter": [Interval("int", 1, None), None],
        "utility": [Options("linear", "sigmoid")],
        "beta": [Interval("real", 0, None, closed="neither")],
        "n_restarts": [Interval("int", 1, None)],
        "random_state": [Interval("int", 0, None)],
    }

    def score(self, X, y) -> np.ndarray:
        self.check_params()
        values, y = check_xy(X, y)
        codes, _ = encode_labels(y)
        Xd = dense_float(values)
        m, n = Xd.shape
        if n == 0:
            self.evaluation_ = 0.0
            return np.zeros(0)
        code = utility_code(self.utility)
        rng = np.random.default_rng(self.random_state)
        best_e, best_v = -np.inf, None
        for _ in range(self.n_restarts):
            w = np.ones(n)
            K.simba_pass(Xd, codes, instance_order(m, self.n_iter, rng, permutations=True), w, code, self.beta)
            top = np.abs(w).max()
            v = w / top if top > 0 else w
            theta, valid = K.loo_margins(Xd, codes, v * v)
            e = float(K.utility(theta[valid], code, self.beta).sum())
            if e > best_e:
                best_e, best_v = e, v
        self.evaluation_ = best_e
        assert best_v is not None, f"no finite SIMBA utility in {self.n_restarts} restarts"
        return _zero_constant(best_v * best_v, Xd)


def _zero_constant(w2: np.ndarray, Xd: np.ndarray) -> np.ndarray:
    """``w2 / max(w2)`` over the non-constant columns, 0 for constant ones.

    A constant column adds nothing to any distance, so its gradient is 0 and
    its weight stays at the starting value 1 -- which would rank it first
    whenever the informative weights end below 1.  It cannot separate or
    predict anything: it scores 0 (as in ``corrcoef``), and the normalization
    uses the other columns only.
    """
    const = (Xd == Xd[:1]).all(axis=0) if Xd.shape[0] else np.ones(Xd.shape[1], bool)
    out = np.where(const, 0.0, w2)
    top = out.max() if out.size else 0.0
    return out / top if top > 0 else out


# ------------------------------------------------------------------ R2W2
class R2W2(FeatureScorer):
    """R2W2 (Weston et al. 2000; thesis section 3.5.4): radius-margin feature scaling for an RBF SVM.

    Minimizes ``R^2 W^2`` over scaling factors ``s`` (x -> s * x, elementwise):
    ``W^2 = sum_ij a_i a_j y_i y_j K_ij`` from the hard-margin SVM dual ``a`` and
    ``R^2 = max_b sum_i b_i K_ii - sum_ij b_i b_j K_ij`` over the simplex (radius of
    the smallest ball holding the data in feature space), with the RBF kernel
    ``K_ij = exp(-gamma ||s * (x_i - x_j)||^2) + ridge [i = j]`` ("ridge" trick for
    the non-separable case; the thesis' ``exp(-||x1 - x2|| / (2 sigma^2))`` with the
    square restored, ALGORITHMS.md A5; gamma = 1 / (2 sigma^2)).  After every step
    both quadratic programs are solved again and the gradient follows from the
    envelope theorem, ``dR^2W^2/ds_k = R^2 dW^2/ds_k + W^2 dR^2/ds_k``.

    Steps: from ``s = 1``, ``s <- max(s - eta * grad / max|grad|, 0)``; a step
    that does not lower ``R^2 W^2`` is undone and ``eta`` halved; stop after
    ``n_iter`` accepted steps or when ``eta < 1e-4``.  Returns ``s^2 / max(s^2)``.
    Binary classification only (as in the thesis).

    Parameters
    ----------
    gamma : float or "scale", default "scale"
        ``"scale"``: ``1 / (n_features * X.var())`` (scikit-learn's rule).
    ridge : float, default 0.1
        Added to the kernel diagonal (equivalent to a 2-norm soft margin with C = 1 / ridge).
    n_iter : int, default 20
    eta : float, default 0.2
        Initial step (in max-norm of the scaling factors).

    Attributes
    ----------
    objective_ : list of float
        ``R^2 W^2`` at the start and after every accepted step.
    scaling_ : ndarray
        The final ``s``.

    Examples
    --------
    >>> import numpy as np, metafx
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 5)); y = (X[:, 1] > 0).astype(int)
    >>> int(np.argmax(metafx.score_features(X, y, "r2w2", n_iter=5)))
    1
    """

    name = "r2w2"
    summary = "R2W2: radius-margin (R^2 W^2) gradient descent on RBF-SVM feature scalings (thesis 3.5.4)"

    def __init__(self, gamma: Any = "scale", ridge: float = 0.1, n_iter: int = 20, eta: float = 0.2) -> None:
        self.gamma = gamma
        self.ridge = ridge
        self.n_iter = n_iter
        self.eta = eta

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "gamma": [Interval("real", 0, None, closed="neither"), Options("scale")],
        "ridge": [Interval("real", 0, None, closed="neither")],
        "n_iter": [Interval("int", 0, None)],
        "eta": [Interval("real", 0, None, closed="neither")],
    }

    def score(self, X, y) -> np.ndarray:
        self.check_params()
        values, y = check_xy(X, y)
        codes, n_classes = encode_labels(y)
        if n_classes != 2:
            raise ValidationError(f"r2w2 is defined for two classes only (thesis 3.5.4); y has {n_classes}")
        Xd = dense_float(values)
        n = Xd.shape[1]
        if n == 0:
            self.objective_, self.scaling_ = [], np.zeros(0)
            return np.zeros(0)
        if self.gamma == "scale":
            var = float(Xd.var())
            gamma = 1.0 / (n * var) if var > 0 else 1.0
        else:
            gamma = float(self.gamma)
        self.gamma_ = gamma
        ysign = np.where(codes == 1, 1.0, -1.0)
        s = np.ones(n)
        val, grad, _, _ = r2w2_value_and_grad(Xd, ysign, s, gamma, float(self.ridge))
        self.objective_ = [val]
        eta = float(self.eta)
        steps = 0
        while steps < self.n_iter and eta >= 1e-4:
            top = float(np.abs(grad).max())
            if top == 0:
                break
            s_new = np.maximum(s - eta * grad / top, 0.0)
            v_new, g_new, _, _ = r2w2_value_and_grad(Xd, ysign, s_new, gamma, float(self.ridge))
            if v_new < val:
                s, val, grad = s_new, v_new, g_new
                self.objective_.append(val)
                steps += 1
            else:
                eta *= 0.5
        self.scaling_ = s
        s2 = s * s
        top = s2.max()
        return s2 / top if top > 0 else s2
