"""Feature selectors: return the indices of a feature subset.

``top-n``
    The ``n`` best columns by any registered per-feature scorer.
``gflip``
    G-flip (thesis Algorithm 1): greedy feature flips maximizing the
    leave-one-out margin evaluation function e(F).
``gflip-stable``
    G-flip on random subsamples, keeping the features most runs choose (a metafx variant).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from .._kernels import margin as K
from ..analysis.scoring import _lookup, scorer_names
from ..core.base import FeatureScorer, FeatureSelector
from ..core.exceptions import ValidationError
from ..core.params import InstanceOf, Interval, Options
from ..core.validation import check_xy
from ..learn.arrays import UTILITIES, dense_float, encode_labels, utility_code
from ..loop.components import make_component

__all__ = ["GFlip", "GFlipStable", "TopN", "rank_scores"]


def rank_scores(scores: np.ndarray) -> np.ndarray:
    """Column indices by decreasing score; ties keep the lower index first."""
    return np.argsort(-np.asarray(scores, dtype=np.float64), kind="stable")


class TopN(FeatureSelector):
    """The ``n`` best-scoring columns, best first.

    Parameters
    ----------
    scorer : str, default "infogain"
        A registered per-feature scorer.
    n : int or None, default None
        How many columns to return (``None``: all, ranked).  Ties are broken
        in favour of the lower column index.
    scorer_params : dict, optional
        Constructor parameters of the scorer.

    Examples
    --------
    >>> import numpy as np, metafx
    >>> X = np.array([[0, 1, 0], [0, 1, 1], [1, 0, 0], [1, 1, 1]])
    >>> metafx.select_features(X, [0, 0, 1, 1], "top-n", scorer="infogain", n=2)
    array([0, 1])
    """

    name = "top-n"
    summary = "the n best columns by a per-feature scorer (scorer=, n=)"

    def __init__(self, scorer: str = "infogain", n: int | None = None,
                 scorer_params: Mapping[str, Any] | None = None) -> None:
        self.scorer = scorer
        self.n = n
        self.scorer_params = scorer_params

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "scorer": [InstanceOf(str, "a scorer name"), InstanceOf(FeatureScorer, "a FeatureScorer")],
        "n": [Interval("int", 0, None), None],
        "scorer_params": [InstanceOf(Mapping, "a dict of scorer parameters"), None],
    }

    def check_params(self) -> None:
        super().check_params()
        self._scorer = self._make_scorer()  # a registered scorer, with its own parameters checked

    def _make_scorer(self) -> FeatureScorer:
        if isinstance(self.scorer, FeatureScorer):
            if self.scorer_params:
                raise ValidationError("scorer_params were given with an already constructed scorer")
            return self.scorer

        cls = _lookup(self.scorer, (FeatureScorer,), "per-feature scorer", scorer_names(), param="scorer")
        return make_component("scorer", cls, dict(self.scorer_params or {}))

    def select(self, X, y) -> np.ndarray:
        self.check_params()
        values, _ = check_xy(X, y, task=getattr(self._scorer, "task", "classification"))
        scores = self._scorer.score(X, y)
        order = rank_scores(scores)
        n = values.n_features if self.n is None else min(int(self.n), values.n_features)
        return order[:n].astype(np.intp)


class GFlip(FeatureSelector):
    """G-flip (thesis Algorithm 1): greedy feature flip on the margin evaluation function.

    ::

        F = {}
        for t = 1, 2, ...:
            for f in a random permutation of the features:
                e1 = e(F + {f}); e2 = e(F - {f})
                if e1 > e2: F = F + {f}  elif e2 > e1: F = F - {f}
            stop when a pass changes nothing

    ``e(F) = sum_x u(theta_F(x))`` is the leave-one-out margin evaluation
    (thesis eq. 3.2; see the ``margin`` set evaluator).  The ``m x m`` matrix
    of squared distances on ``F`` is kept and updated when a feature is added
    or removed, so evaluating a flip costs Theta(m^2) and a pass
    Theta(N m^2) (it is recomputed from scratch at the start of each pass
    so rounding cannot accumulate).  ``e`` never decreases, so the search
    ends at a local maximum; the number of features is chosen by the
    algorithm.  Memory: ``8 m^2`` bytes.

    Parameters
    ----------
    utility : {"linear", "zero-one", "sigmoid"}, default "linear"
    beta : float, default 1.0
        Sigmoid slope.
    max_passes : int, default 100
        Safety limit on the passes (the thesis saw convergence in < 20).
    random_state : int, default 0
        Seed of the permutations.

    Attributes
    ----------
    history_ : list of float
        ``e(F)`` at the start and after every pass (non-decreasing).
    n_passes_ : int
    converged_ : bool
        Whether the last pass changed nothing.

    Examples
    --------
    >>> import numpy as np, metafx
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(80, 6)); y = (X[:, 2] > 0).astype(int)
    >>> 2 in metafx.select_features(X, y, "gflip")
    True
    """

    name = "gflip"
    summary = "G-flip: greedy feature flips maximizing the LOO margin e(F) (thesis Alg 1)"

    def __init__(self, utility: str = "linear", beta: float = 1.0, max_passes: int = 100,
                 random_state: int = 0) -> None:
        self.utility = utility
        self.beta = beta
        self.max_passes = max_passes
        self.random_state = random_state

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "utility": [Options(UTILITIES)],
        "beta": [Interval("real", 0, None, closed="neither")],
        "max_passes": [Interval("int", 1, None)],
        "random_state": [Interval("int", 0, None)],
    }

    def select(self, X, y) -> np.ndarray:
        self.check_params()
        values, y = check_xy(X, y)
        codes, _ = encode_labels(y)
        Xd = dense_float(values)
        m, n = Xd.shape
        code = utility_code(self.utility)
        beta = float(self.beta)
        rng = np.random.default_rng(self.random_state)
        F = np.zeros(n, dtype=bool)
        D = np.zeros((m, m))
        e_cur = K.margin_sum_from_D(D, codes, code, beta)
        history = [e_cur]
        self.converged_ = n == 0
        self.n_passes_ = 0
        cols = [np.ascontiguousarray(Xd[:, f]) for f in range(n)]
        for t in range(self.max_passes if n else 0):
            perm = rng.permutation(n)
            if t > 0 and F.any():
                D = K.sq_distance_matrix(Xd[:, F])
                e_cur = K.margin_sum_from_D(D, codes, code, beta)
            changed = False
            for f in perm:
                x = cols[f]
                if F[f]:
                    e1, e2 = e_cur, K.gflip_toggle_value(D, x, -1.0, codes, code, beta)
                else:
                    e1, e2 = K.gflip_toggle_value(D, x, 1.0, codes, code, beta), e_cur
                if e1 > e2 and not F[f]:
                    K.toggle_feature(D, x, 1.0)
                    F[f] = True
                    e_cur = e1
                    changed = True
                elif e2 > e1 and F[f]:
                    K.toggle_feature(D, x, -1.0)
                    F[f] = False
                    e_cur = e2
                    changed = True
            history.append(e_cur)
            self.n_passes_ = t + 1
            if not changed:
                self.converged_ = True
                break
        self.history_ = history
        return np.flatnonzero(F).astype(np.intp)


# ------------------------------------------------------------------ G-flip on subsamples
class GFlipStable(FeatureSelector):
    """G-flip run on random subsamples, keeping the features chosen in most runs (a metafx variant).

    Not the thesis' plain G-flip (that is ``gflip``).  ``n_subsamples`` times:
    draw ``subsample * m`` instances without replacement (stratified by
    nothing, a plain random subset), run ``gflip`` on them with its own
    permutation seed; return the features chosen in at least ``threshold`` of
    the runs, most frequent first (ties: lower index).  A noise feature that
    raises the margin sum ``e(F)`` of one sample by chance is rarely raised on
    most of the others, while a relevant one is -- the stability-selection
    idea applied to G-flip's local maxima.  Cost: ``n_subsamples`` G-flip runs
    on ``subsample * m`` instances (about ``n_subsamples * subsample^2`` times
    one run on all of them).

    Parameters
    ----------
    utility, beta, max_passes
        As for ``gflip``.
    n_subsamples : int, default 10
    subsample : float in (0, 1], default 0.5
    threshold : float in (0, 1], default 0.75
    random_state : int, default 0

    Attributes
    ----------
    frequencies_ : ndarray
        Share of the runs that chose each feature.

    Examples
    --------
    >>> import numpy as np, metafx
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(120, 8)); y = (X[:, 5] > 0).astype(int)
    >>> int(metafx.select_features(X, y, "gflip-stable", n_subsamples=4)[0])
    5
    """

    name = "gflip-stable"
    summary = "G-flip on random subsamples; keeps features chosen in >= threshold of the runs (metafx variant)"

    def __init__(self, utility: str = "linear", beta: float = 1.0, max_passes: int = 100, n_subsamples: int = 10,
                 subsample: float = 0.5, threshold: float = 0.75, random_state: int = 0) -> None:
        self.utility = utility
        self.beta = beta
        self.max_passes = max_passes
        self.n_subsamples = n_subsamples
        self.subsample = subsample
        self.threshold = threshold
        self.random_state = random_state

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        **{k: GFlip._parameter_constraints[k] for k in ("utility", "beta", "max_passes", "random_state")},
        "n_subsamples": [Interval("int", 1, None)],
        "subsample": [Interval("real", 0, 1, closed="right")],
        "threshold": [Interval("real", 0, 1, closed="right")],
    }

    def select(self, X, y) -> np.ndarray:
        self.check_params()
        values, y = check_xy(X, y)
        Xd = dense_float(values)
        m, n = Xd.shape
        size = max(2, int(round(self.subsample * m))) if m >= 2 else m
        rng = np.random.default_rng(self.random_state)
        counts = np.zeros(n)
        for _r in range(self.n_subsamples):
            idx = np.sort(rng.permutation(m)[:size])
            seed = int(rng.integers(0, 2**31 - 1))
            g = GFlip(utility=self.utility, beta=self.beta, max_passes=self.max_passes, random_state=seed)
            counts[g.select(Xd[idx], y[idx])] += 1
        freq = counts / self.n_subsamples
        self.frequencies_ = freq
        order = np.argsort(-freq, kind="stable")
        keep = freq[order] >= self.threshold - 1e-12
        return order[keep].astype(np.intp)
