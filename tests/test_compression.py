"""Sample-compression tools ([C]) against the references of tests/naive_bounds.py."""


import naive_bounds as nb
import numpy as np
import pytest

import metafx
from metafx._kernels.compression import ball_cover_counts, hierarchy_net
from metafx.learn import compression as cp


def _cases():
    rng = np.random.default_rng(0)
    out = []
    for n, d in [(1, 2), (2, 1), (7, 3), (33, 2), (101, 4), (257, 3)]:
        out.append(rng.random((n, d)))
    dup = rng.random((15, 2))
    out.append(np.repeat(dup, 3, axis=0)[rng.permutation(45)])      # every point three times
    out.append(np.zeros((9, 3)))                                     # one point, repeated
    out.append(np.r_[rng.normal(size=(40, 2)), 50 + rng.normal(size=(23, 2))])  # two far clusters
    return out


@pytest.mark.parametrize("metric", ["l1", "l2"])
def test_hierarchy_gives_valid_nets(metric):
    for X in _cases():
        diam = max((nb.dist(a, b, metric) for a in X for b in X), default=0.0)
        for g in [1e-3, 0.05, 0.2, 0.5, 0.99 * diam if diam else 1.0, 2 * diam + 1, diam if diam else 1.0]:
            net = cp.gamma_net(X, g, metric=metric)
            assert nb.is_gamma_net(X, list(net), g, metric), (X.shape, g)
            assert cp.is_gamma_net(X, net, g, metric)
            assert len(set(net.tolist())) == len(net)


@pytest.mark.parametrize("metric", ["l1", "l2"])
def test_brute_force_is_algorithm_1(metric):
    for X in _cases():
        for g in [0.05, 0.3, 1.0]:
            assert cp.gamma_net(X, g, metric, method="brute").tolist() == nb.brute_force_net(X, g, metric)


def test_is_gamma_net_rejects_bad_nets():
    X = np.arange(10.0)[:, None]
    assert cp.is_gamma_net(X, [0, 3, 6, 9], 3.0, "l2") is True
    assert cp.is_gamma_net(X, [0, 3, 6], 3.0, "l2") is False             # 9 is 3 from 6: not strictly covered
    assert cp.is_gamma_net(X, [0, 2, 4, 6, 8], 3.0, "l2") is False       # packing fails
    assert cp.is_gamma_net(X, [0, 4, 8], 2.0, "l2") is False              # covering fails (2 is not < 2)
    assert cp.is_gamma_net(X, [1, 4, 7], 2.0, "l2") is False             # 9 is 2 from 7
    assert cp.is_gamma_net(X, [1, 4, 7], 3.0, "l2") is True
    assert cp.is_gamma_net(X, [1, 1], 3.0, "l2") is False


def test_hierarchy_reports_stats_and_is_fast_on_low_dimension():
    X = np.random.default_rng(1).random((3000, 2))
    net, stats = hierarchy_net(X, 0.01, True)
    assert stats[0] >= 5
    assert cp.is_gamma_net(X, net, 0.01, "l1")
    # fewer distance evaluations than Algorithm 1's n |net| / 2 lower estimate
    assert stats[1] < 3000 * len(net) / 2


def test_doubling_counts_match_a_loop():
    rng = np.random.default_rng(2)
    X = rng.random((40, 2))
    centers, radii = np.array([0, 5, 39]), np.array([1.0, 0.5, 0.25, 0.1])
    got = ball_cover_counts(X, centers, radii, False)
    for a, c in enumerate(centers):
        for b, r in enumerate(radii):
            ball = [p for p in range(40) if nb.dist(X[c], X[p], "l2") <= r]
            assert got[a, b] == len(nb.brute_force_net(X[ball], r / 2, "l2"))


def test_doubling_dimension_grows_with_dimension():
    rng = np.random.default_rng(3)
    e = [cp.doubling_dimension(rng.random((800, d)), "l2", n_centers=32).ddim for d in (1, 2, 4)]
    assert e[0] < e[1] < e[2]
    line = np.c_[np.linspace(0, 1, 800), np.zeros(800), np.zeros(800)]     # a segment inside R^3
    assert cp.doubling_dimension(line, "l2").ddim <= e[0] + 1e-9


def test_min_vertex_cover_is_minimum():
    rng = np.random.default_rng(4)
    for _ in range(30):
        nl, nr = rng.integers(1, 6, 2)
        E = rng.random((nl, nr)) < 0.4
        r, c = np.nonzero(E)
        cover = cp.min_vertex_cover(nl, nr, r, c)
        assert all(cover[i] or cover[nl + j] for i, j in zip(r, c, strict=True))
        import itertools
        best = min(len(C) for k in range(nl + nr + 1) for C in itertools.combinations(range(nl + nr), k)
                   if all(i in C or nl + j in C for i, j in zip(r, c, strict=True)))
        assert cover.sum() == best


def test_srm_corollary1_is_the_minimum_over_gamma():
    rng = np.random.default_rng(5)
    X = rng.random((13, 2))
    y = (X[:, 0] + 0.4 * rng.random(13) > 0.7).astype(int)
    res = cp.srm_search(X, y, delta=0.1, metric="l1", objective="corollary1", ddim=0.5)
    diam = max(nb.dist(a, b, "l1") for a in X for b in X)
    assert res.diameter == pytest.approx(diam)
    eps_chosen = nb.min_vertex_cover_size(X, y, res.gamma * diam, "l1") / 13
    assert res.eps == pytest.approx(eps_chosen)
    assert res.bound.value == pytest.approx(nb.corollary1(13, eps_chosen, res.gamma, 0.5, 0.1), rel=1e-9)
    for g in np.linspace(0.01, 1.0, 300):
        eps = nb.min_vertex_cover_size(X, y, g * diam, "l1") / 13
        assert nb.corollary1(13, eps, g, 0.5, 0.1) >= res.bound.value - 1e-12
    # the witness has margin >= gamma and the net is consistent with it
    W = res.witness
    assert cp.sample_margin(X[W], y[W], "l1") >= res.gamma_abs
    assert (cp.nn_predict(X[res.net], y[res.net], X[W], "l1") == y[W]).all()


def test_srm_on_separable_data_keeps_everything():
    rng = np.random.default_rng(6)
    X = np.r_[rng.random((30, 2)), 3 + rng.random((31, 2))]
    y = np.r_[np.zeros(30), np.ones(31)]
    for obj in ("corollary1", "compression"):
        res = cp.srm_search(X, y, metric="l2", objective=obj, ddim=1.0)
        assert res.eps == 0 and res.witness.size == 61
        assert (cp.nn_predict(X[res.net], y[res.net], X, "l2") == y).all()
        assert res.compression_bound.train_error == 0


def test_srm_handles_conflicting_duplicates():
    X = np.r_[np.zeros((3, 2)), np.ones((4, 2))]
    y = np.array([0, 0, 1, 1, 1, 1, 0])
    res = cp.srm_search(X, y, objective="compression")
    assert res.eps == pytest.approx(2 / 7) and res.net.size == 2


@pytest.mark.parametrize("metric", ["l1", "l2"])
def test_condense_is_consistent(metric):
    rng = np.random.default_rng(7)
    X = rng.random((120, 3))
    y = rng.integers(0, 3, 120)
    c = cp.condense(X, y, metric=metric)
    assert set(c.pruned) <= set(c.net)
    for S in (c.net, c.pruned):
        assert (cp.nn_predict(X[S], y[S], X, metric) == y).all()
    assert c.gamma == pytest.approx(min(nb.dist(X[i], X[j], metric) for i in range(120) for j in range(120)
                                        if y[i] != y[j]))


def test_errors_name_the_problem():
    X = np.random.default_rng(0).random((10, 2))
    with pytest.raises(metafx.ValidationError, match="metric"):
        cp.gamma_net(X, 0.1, metric="cosine")
    with pytest.raises(metafx.ValidationError, match="gamma"):
        cp.gamma_net(X, 0.0)
    with pytest.raises(metafx.ValidationError, match="two labels"):
        cp.srm_search(X, np.arange(10) % 3)
    with pytest.raises(metafx.ValidationError, match="margin 0"):
        cp.condense(np.zeros((2, 1)), [0, 1])
    with pytest.raises(metafx.ValidationError, match="2 points"):
        cp.doubling_dimension(X[:1])
    with pytest.raises(metafx.ValidationError, match="ddim"):
        cp.srm_search(X, np.arange(10) % 2, ddim=-1.0)


def test_witness_matches_exhaustive_cover():
    rng = np.random.default_rng(8)
    X = np.round(rng.random((11, 2)), 1)          # rounding makes duplicates
    y = rng.integers(0, 2, 11)
    for g in (5e-324, 0.15, 0.4):
        W = cp.witness(X, y, g, "l1")
        assert 11 - W.size == nb.min_vertex_cover_size(X, y, g, "l1")
        assert cp.sample_margin(X[W], y[W], "l1") >= g


def test_hierarchy_gives_up_on_huge_neighbour_lists():
    X = np.random.default_rng(9).random((200, 6))
    net, stats = hierarchy_net(X, 0.05, True, max_pairs=10)
    assert net is None and stats[2] > 10
    assert cp.is_gamma_net(X, cp.gamma_net(X, 0.05, "l1"), 0.05, "l1")   # gamma_net still answers (brute force)
