"""Search engines mufasa (n_candidates), optuna, random and ranked on digits:
contracts, determinism across n_jobs, the baselines' definitions, bad input."""

from __future__ import annotations

import importlib.util
import math
from typing import Any, ClassVar

import naive
import numpy as np
import pytest

import metafx
import metafx.plugin
from metafx.loop.problem import step_rng
from metafx.plugin import run_search
from metafx.testing import EngineConformance


@pytest.fixture(scope="module")
def small(digits):
    X, y = digits
    return X[:400], y[:400]


def strip(res):
    return [(t.step, t.point, t.quality, t.n_features, t.cost) for t in res.trajectory]


# ----------------------------------------------------------------- contracts
class TestRandomEngine(EngineConformance):
    engine = "random"


class TestRandomFeatureMode(EngineConformance):
    engine = "random"
    engine_params: ClassVar[dict[str, Any]] = {"mode": "feature"}


class TestOptunaTPE(EngineConformance):
    engine = "optuna"
    deterministic_in_n_jobs = False  # TPE proposes n_jobs points before seeing their results

    def storage_for(self, tmp_path):
        return str(tmp_path / "study.log")


class TestOptunaQMC(EngineConformance):
    engine = "optuna"
    engine_params: ClassVar[dict[str, Any]] = {"sampler": "qmc"}
    # optuna 4.0's QMC sampler numbers its points by the trials already started, so a round of n_jobs trials
    # asked together gets other points than one-by-one (optuna 5 numbers them by trial: the same points)
    deterministic_in_n_jobs = False

    def storage_for(self, tmp_path):
        return f"sqlite:///{tmp_path}/study.db"


class TestMufasaCandidates(EngineConformance):
    engine = "mufasa"
    engine_params: ClassVar[dict[str, Any]] = {"n_candidates": 3}


class TestRanked(EngineConformance):
    engine = "ranked"

    def test_callbacks_and_stop(self, eng, problem):
        # one step whatever `steps` is: the callback sees it once
        calls = []
        res = run_search(problem, eng, steps=5, seed=1, callbacks=[lambda s, r: calls.append(r.step)],
                         progress=False)
        assert calls == [1] and len(res.trajectory) == 1


# ----------------------------------------------------------------- optuna
@pytest.mark.parametrize("sampler", ["tpe", "cmaes", "gp", "random", "qmc"])
def test_optuna_samplers_are_seeded(small, sampler):
    if sampler == "gp" and importlib.util.find_spec("torch") is None:
        with pytest.raises(metafx.ValidationError, match=r"sampler='gp' needs the 'torch' package.*pip install torch"):
            metafx.plugin.make_component("engine", "optuna", {"sampler": "gp"})
        pytest.skip("sampler gp needs torch (not installed); its clear error was checked instead")
    if sampler == "cmaes" and importlib.util.find_spec("cmaes") is None:
        pytest.skip("sampler cmaes needs the cmaes package (pip install cmaes)")
    X, y = small
    kw = dict(budget=50, steps=12, engine="optuna", engine_params={"sampler": sampler,
              **({"sampler_params": {"n_startup_trials": 4}} if sampler in ("tpe", "gp") else {})},
              progress=False, fixed={"percentPos": 50})
    a = metafx.search(X, y, seed=4, **kw)
    b = metafx.search(X, y, seed=4, **kw)
    c = metafx.search(X, y, seed=5, **kw)
    assert strip(a) == strip(b) and a.features == b.features
    assert [t.point for t in a.trajectory] != [t.point for t in c.trajectory]
    assert [t.step for t in a.trajectory] == list(range(1, 13))
    assert all(t.point["percentPos"] == 50 for t in a.trajectory)
    space = metafx.plugin.make_component("family", "pixel-and").fit(X).space()
    assert all(space.check_point(t.point) == t.point for t in a.trajectory)
    assert a.metadata["sampler"] == sampler
    # the best features are re-drawn from the seed and the trial number alone
    best = a.trajectory[a.best_step - 1]
    fam = metafx.plugin.make_component("family", "pixel-and").fit(X)
    redrawn = fam.draw(best.point, 50, step_rng(4, a.metadata["best_trial"] + 1, 1))
    assert fam.to_json(redrawn) == a.features


def test_optuna_points_follow_the_sampler(small):
    """After its start-up trials TPE concentrates near good points: its late points
    score better on average than random search's."""
    X, y = small
    kw = dict(budget=50, steps=24, engine="optuna", progress=False, seed=0)
    tpe = metafx.search(X, y, engine_params={"sampler_params": {"n_startup_trials": 6}}, **kw)
    rnd = metafx.search(X, y, engine_params={"sampler": "random"}, **kw)
    assert np.mean(tpe.qualities[12:]) > np.mean(rnd.qualities[12:])


def test_optuna_random_sampler_same_result_whatever_n_jobs(small):
    X, y = small
    kw = dict(budget=50, steps=8, engine="optuna", engine_params={"sampler": "random"}, seed=2, progress=False)
    one = metafx.search(X, y, n_jobs=1, **kw)
    two = metafx.search(X, y, n_jobs=2, **kw)  # two processes, trials overlapping in time
    assert strip(one) == strip(two) and one.features == two.features
    assert [t.step for t in two.trajectory] == list(range(1, 9))


def test_optuna_on_sqlite_same_search_as_in_memory(small, tmp_path):
    """TPE with its steps in an SQLite study proposes what it proposes with them in memory."""
    X, y = small
    kw = dict(budget=50, steps=14, engine="optuna", engine_params={"sampler_params": {"n_startup_trials": 4}},
              seed=5, progress=False)
    mem = metafx.search(X, y, **kw)
    db = metafx.search(X, y, storage=f"sqlite:///{tmp_path / 's.db'}", study_name="s", **kw)
    assert strip(db) == strip(mem) and db.features == mem.features


@pytest.mark.parametrize("where,n_jobs", [("sqlite", 1), ("sqlite", 2), ("postgresql", 1), ("postgresql", 2)])
def test_another_client_reads_what_a_search_wrote(small, tmp_path, where, n_jobs):
    """What a search wrote to its study is what plain optuna reads: trials 0..steps-1, complete, with the
    step's point as parameters and attributes, its quality as value, heartbeats while they ran."""
    optuna = pytest.importorskip("optuna")
    import uuid

    from metafx.plugin import SearchProblem, make_component
    from metafx.storage.study import BEAT_KEY

    url = _storage_url(where, tmp_path)
    name = f"cache-{uuid.uuid4().hex[:8]}"
    X, y = small

    def problem():
        return SearchProblem(make_component("family", "pixel-and"), X, y, make_component("set-evaluator", "cv-linear-svm"),
                             200.0, eval_seed=0)

    engine = make_component("engine", "optuna", {"sampler": "tpe"})
    res = run_search(problem(), engine, steps=10, seed=3, storage=url, study_name=name, n_jobs=n_jobs, progress=False,
                     storage_options={"heartbeat": 0.002})
    theirs = optuna.load_study(study_name=name, storage=url).get_trials(deepcopy=False)
    assert [t.number for t in theirs] == list(range(10)) and all(t.state.name == "COMPLETE" for t in theirs)
    for t, rec in zip(theirs, res.trajectory, strict=True):
        assert t.value == rec.quality and t.user_attrs["point"] == rec.point and t.user_attrs["quality"] == rec.quality
        assert {**t.params, **{k: v for k, v in rec.point.items() if k not in t.params}} == rec.point
    assert any(BEAT_KEY in t.user_attrs for t in theirs)  # the test saw heartbeats
    mem = run_search(problem(), make_component("engine", "optuna", {"sampler": "tpe"}), steps=10, seed=3,
                     n_jobs=n_jobs, progress=False)
    if n_jobs == 1:
        assert strip(res) == strip(mem) and res.features == mem.features
    if where == "postgresql":
        optuna.delete_study(study_name=name, storage=url)


def _storage_url(where: str, tmp_path) -> str:
    """An SQLite file or the test PostgreSQL server."""
    import os

    if where == "postgresql":
        url = os.environ.get("METAFX_TEST_POSTGRES_URL")
        if not url:
            pytest.skip("METAFX_TEST_POSTGRES_URL is not set (bash .ci/postgres.sh starts a server)")
        if not any(importlib.util.find_spec(m) is not None for m in ("psycopg", "psycopg2")):
            pytest.skip("no PostgreSQL driver installed (pip install 'psycopg[binary]')")
        return url
    return f"sqlite:///{tmp_path / 'w.db'}"


def test_mufasa_one_candidate_is_the_thesis_algorithm(small):
    X, y = small
    kw = dict(budget=40, steps=6, seed=9, engine="mufasa", progress=False)
    a = metafx.search(X, y, **kw)
    b = metafx.search(X, y, engine_params={"n_candidates": 1}, **kw)
    assert strip(a) == strip(b)
    # step j > 1 is a neighbour of the best point so far (every free dimension moved by at most its step)
    space = metafx.plugin.make_component("family", "pixel-and").fit(X).space()
    for rec in a.trajectory[1:]:
        u_best = [r for r in a.trajectory[: rec.step - 1] if r.accepted][-1].point
        for d in space.dimensions:
            limit = max(1, round(d.step)) if d.kind == "int" else 8 * d.step
            assert abs(rec.point[d.name] - u_best[d.name]) <= limit + 1e-9


def test_mufasa_candidates_same_result_whatever_n_jobs(small):
    X, y = small
    kw = dict(budget=40, steps=5, seed=3, engine="mufasa", progress=False, engine_params={"n_candidates": 3})
    one = metafx.search(X, y, n_jobs=1, **kw)
    two = metafx.search(X, y, n_jobs=2, **kw)
    assert strip(one) == strip(two) and one.features == two.features
    plain = metafx.search(X, y, budget=40, steps=5, seed=3, engine="mufasa", progress=False)
    # more candidates per step: at least as good a first step (u_0 is candidate 0 of step 1)
    assert one.trajectory[0].quality >= plain.trajectory[0].quality


def test_mufasa_bad_candidates():
    with pytest.raises(metafx.ValidationError, match="n_candidates=0 must be an integer >= 1"):
        metafx.plugin.make_component("engine", "mufasa", {"n_candidates": 0})


# ----------------------------------------------------------------- random (MF+Rand)
def test_random_engine_draws_uniform_points_independently(small):
    X, y = small
    res = metafx.search(X, y, budget=40, steps=6, engine="random", seed=8, progress=False)
    fam = metafx.plugin.make_component("family", "pixel-and").fit(X)
    space = fam.space()
    for rec in res.trajectory:
        assert rec.point == space.uniform(step_rng(8, rec.step, 0))
    par = metafx.search(X, y, budget=40, steps=6, engine="random", seed=8, progress=False, n_jobs=2)
    assert strip(par) == strip(res) and par.features == res.features
    q = res.qualities
    assert res.best_quality == q.max() and res.best_step == max(i + 1 for i, v in enumerate(q) if v == q.max())


def test_random_feature_mode_mixes_meta_features(small):
    X, y = small
    res = metafx.search(X, y, budget=60, steps=3, engine="random", engine_params={"mode": "feature"}, seed=1,
                        progress=False)
    fam, batch = res.feature_batch()
    d = fam.describe(batch)
    assert len(set(d["shiftInvLen"].tolist())) > 1 or len(set(d["numInputs"].tolist())) > 1
    with pytest.raises(metafx.ValidationError, match="mode='grid' is not allowed; choose one of 'point', 'feature'"):
        metafx.plugin.make_component("engine", "random", {"mode": "grid"})


# ----------------------------------------------------------------- ranked (MF+Norm Infogain)
def _reference_ranked(X, y, budget, seed, normalize=True, unique=True):
    """Independent re-statement: draw the pool, score every feature with the
    NumPy infogain, sort by infogain / cost (stable), take the fitting prefix."""
    fam = metafx.plugin.make_component("family", "pixel-and").fit(X)
    pool = fam.draw_random(50 * budget, step_rng(seed, 1, 1))
    specs = fam.to_json(pool)
    V = naive.pixel_and_features(X, specs)
    ig = np.array([naive.infogain(V[:, j], y) for j in range(V.shape[1])])
    cost = np.array([0.5 * (1 + s["shift"] ** 2) for s in specs])
    score = ig / cost if normalize else ig
    order = np.argsort(-score, kind="stable")
    chosen, spent, seen = [], 0.0, set()
    for i in order:
        key = V[:, i].tobytes()
        if unique and key in seen:  # a repeat of an earlier draw: out of the ranking
            continue
        seen.add(key)
        if spent + cost[i] > budget + 1e-9:
            break
        chosen.append(specs[i])
        spent += cost[i]
    return chosen, ig


@pytest.mark.parametrize("normalize", [True, False])
def test_ranked_takes_the_best_prefix_of_the_pool(digits, normalize):
    X, y = digits
    X, y = X[:200], y[:200]
    res = metafx.search(X, y, budget=30, steps=1, engine="ranked", engine_params={"normalize": normalize},
                        seed=6, progress=False)
    ref, _ = _reference_ranked(X, y, 30, 6, normalize)
    assert res.features == ref
    assert len(res.trajectory) == 1 and res.total_cost <= 30
    assert res.metadata["pool_budget"] == 1500


def test_ranked_drops_repeats_of_the_pool(digits):
    X, y = digits
    X, y = X[:200], y[:200]
    # one input, no shift: the 64 pixels and their negations, drawn many times over
    fixed = {"numInputs": 1, "shiftInvLen": 1}
    res = metafx.search(X, y, budget=60, steps=1, engine="ranked", fixed=fixed, seed=1, progress=False)
    raw = metafx.search(X, y, budget=60, steps=1, engine="ranked", fixed=fixed, seed=1, progress=False,
                        engine_params={"unique": False})
    fam, batch = res.feature_batch()
    V = fam.compute(fam.prepare(X), batch).dense(np.uint8)
    assert len({V[:, j].tobytes() for j in range(V.shape[1])}) == V.shape[1]
    fam, batch = raw.feature_batch()
    V = fam.compute(fam.prepare(X), batch).dense(np.uint8)
    assert len({V[:, j].tobytes() for j in range(V.shape[1])}) < V.shape[1]


def test_row_hashes_equal_values_equal_hashes(rng):
    A = (rng.random((131, 40)) < 0.3).astype(np.uint8)
    A[:, 7] = A[:, 3]
    A[:, 39] = A[:, 3]
    for v in (metafx.plugin.FeatureValues.from_dense(A), metafx.plugin.FeatureValues(n_samples=131, packed=naive.pack_columns(A))):
        h = v.row_hashes()
        keys = [A[:, j].tobytes() for j in range(40)]
        for i in range(40):
            for j in range(40):
                assert (h[i] == h[j]) == (keys[i] == keys[j])


def test_ranked_chunks_bound_memory_and_do_not_change_the_result(small, monkeypatch):
    X, y = small
    fam_cls = metafx.plugin.get_registry().get("family", "pixel-and")
    sizes = []
    orig = fam_cls.compute

    def spy(self, prepared, batch):
        sizes.append(len(batch))
        return orig(self, prepared, batch)

    monkeypatch.setattr(fam_cls, "compute", spy)
    big = metafx.search(X, y, budget=40, engine="ranked", seed=2, progress=False)
    n_pool = big.metadata["pool_size"]
    sizes.clear()
    tiny = metafx.search(X, y, budget=40, engine="ranked", seed=2, progress=False,
                         engine_params={"max_memory_mb": 0.02})
    eng = metafx.plugin.make_component("engine", "ranked", {"max_memory_mb": 0.02})
    chunk = eng.chunk_size(len(y))
    assert chunk * (8 * math.ceil(len(y) / 64) + len(y)) <= 0.02 * 2**20
    assert max(sizes[:-1]) <= chunk and sum(sizes[:-1]) == n_pool and len(sizes) > 3
    assert tiny.features == big.features and tiny.best_quality == big.best_quality


def test_ranked_at_budget_12000_on_2000_images_fits_64_mb():
    eng = metafx.plugin.make_component("engine", "ranked")
    chunk = eng.chunk_size(2000)
    assert chunk * 32 * 8 <= 64 * 2**20  # packed values of one chunk
    assert chunk * (32 * 8 + 2000) <= 64 * 2**20  # even if a scorer unpacks them to bytes


# ----------------------------------------------------------------- infeasible points
def test_points_without_features_are_refused_before_any_work(small):
    """Shift 8 (cost 32.5) does not fit a budget of 20: no point of the search can draw a feature, so the
    search refuses at once instead of returning an empty set as if it were a result."""
    X, y = small
    for engine in ("mufasa", "random", "optuna", "ranked"):
        with pytest.raises(metafx.ValidationError, match="no feature of family 'pixel-and' fits budget=20 with"):
            metafx.search(X, y, budget=20, steps=2, engine=engine, seed=0, fixed={"shiftInvLen": 8},
                          progress=False)


def test_an_empty_result_is_marked(small, caplog):
    """8 inputs with scatter 3.5 rarely fit an 8x8 image: the steps score the empty set (majority class), and
    the result says it holds no features instead of passing for a normal one."""
    X, y = small
    fixed = {"numInputs": 8, "scatter": 3.5, "percentPos": 50, "shiftInvLen": 1}
    for engine in ("mufasa", "random", "optuna"):
        res = metafx.search(X, y, budget=30, steps=2, engine=engine, seed=0, fixed=fixed, progress=False)
        assert all(t.n_features == 0 for t in res.trajectory)
        assert res.n_features == 0 and res.metadata["empty_result"] is True and res.metadata["empty_steps"] == 2
    assert "no step of the search drew a feature" in caplog.text


def test_infeasible_points_are_counted(small):
    """Where only some points cannot draw a feature, their steps score the empty set and are counted."""
    X, y = small
    res = metafx.search(X, y, budget=20, steps=8, engine="random", seed=0, progress=False)
    empty = sum(t.n_features == 0 for t in res.trajectory)
    assert empty > 0 and res.metadata["empty_steps"] == empty and res.n_features > 0


# ----------------------------------------------------------------- progress
@pytest.mark.parametrize("engine", ["mufasa", "optuna", "random", "ranked"])
def test_progress_bar_shows_best_quality_features_and_cost(small, capsys, engine):
    X, y = small
    metafx.search(X, y, budget=30, steps=2, engine=engine, seed=0, progress=True)
    err = capsys.readouterr().err
    assert "best=" in err and "features=" in err and "cost=" in err and "/30" in err
    metafx.search(X, y, budget=30, steps=2, engine=engine, seed=0, progress=None)  # not a terminal: no bar
    assert capsys.readouterr().err == ""


# ----------------------------------------------------------------- bad input
@pytest.mark.parametrize("engine", ["mufasa", "optuna", "random", "ranked"])
def test_budget_below_cheapest_feature_and_no_steps(small, engine):
    X, y = small
    with pytest.raises(metafx.ValidationError, match=r"budget=0.5 is below the cheapest feature's cost 1"):
        metafx.search(X, y, budget=0.5, steps=2, engine=engine, progress=False)
    for steps in (0, -1):
        with pytest.raises(metafx.ValidationError, match=f"steps={steps} must be an integer >= 1"):
            metafx.search(X, y, budget=30, steps=steps, engine=engine, progress=False)


def test_unknown_sampler_lists_the_allowed_ones():
    with pytest.raises(metafx.ValidationError,
                       match=r"sampler='nsga' is not allowed; choose one of 'tpe', 'cmaes', 'gp', 'random', 'qmc'"):
        metafx.plugin.make_component("engine", "optuna", {"sampler": "nsga"})
    with pytest.raises(metafx.ValidationError, match=r"sampler_params=.*not valid for sampler 'tpe'"):
        metafx.plugin.make_component("engine", "optuna", {"sampler_params": {"no_such_option": 1}})


def test_unreachable_storage_names_url_without_password(small):
    X, y = small
    url = "postgresql://alice:s3cr3t-pw@127.0.0.1:1/metafx"
    with pytest.raises(metafx.StorageError) as e:
        metafx.search(X, y, budget=30, steps=2, engine="optuna", storage=url, progress=False)
    msg = str(e.value)
    assert "postgresql://alice:***@127.0.0.1:1/metafx" in msg and "s3cr3t" not in msg
    with pytest.raises(metafx.StorageError, match=r"directory .* does not exist"):
        metafx.search(X, y, budget=30, steps=2, engine="optuna", storage="sqlite:////no/such/dir/x.db",
                      progress=False)


def test_stores_follow_whether_steps_are_trials(small, tmp_path):
    X, y = small
    with pytest.raises(metafx.ValidationError, match="is not a storage; use an optuna storage URL"):
        metafx.search(X, y, budget=30, steps=1, engine="optuna", storage=str(tmp_path / "plain"), progress=False)
    with pytest.raises(metafx.ValidationError, match="engine 'mufasa' records its steps in a JSON-lines journal"):
        metafx.search(X, y, budget=30, steps=1, engine="mufasa", storage=f"sqlite:///{tmp_path}/a.db", progress=False)
    with pytest.raises(metafx.ValidationError, match="omit study_name"):
        metafx.search(X, y, budget=30, steps=1, storage=str(tmp_path / "j.jsonl"), study_name="x", progress=False)


def test_parallel_evaluation_of_components_defined_in_a_function(small):
    """Worker processes receive components defined anywhere (cloudpickle), with the result of one process."""
    from metafx.default_plugins.svm_evaluator import CVLinearSVM

    class Local(CVLinearSVM):  # defined in a function: not importable by name
        name = "local-svm"

    X, y = small
    kw = dict(budget=30, steps=3, engine="random", progress=False, seed=1)
    two = metafx.search(X, y, evaluator=Local(), n_jobs=2, **kw)
    one = metafx.search(X, y, evaluator=Local(), n_jobs=1, **kw)
    assert strip(two) == strip(one) and two.features == one.features
    for bad in (0, -2, 1.5, True):
        with pytest.raises(metafx.ValidationError, match=f"n_jobs={bad!r} must be a positive integer or -1"):
            metafx.search(X, y, budget=30, steps=2, engine="random", n_jobs=bad, progress=False)


def test_mask_url_and_journal_paths():
    from metafx.storage.backends import journal_path, mask_url, scrub

    assert mask_url("postgresql+psycopg2://u:p%40ss@h:5/db") == "postgresql+psycopg2://u:***@h:5/db"
    assert mask_url("postgresql://u@h/db") == "postgresql://u@h/db"
    assert mask_url("sqlite:////tmp/x.db") == "sqlite:////tmp/x.db"
    assert scrub("failed for p@ss and p%40ss", "postgresql://u:p%40ss@h/db") == "failed for *** and ***"
    assert journal_path("journal:///tmp/a.log") == "/tmp/a.log"
    assert journal_path("journal://rel/a.log") == "rel/a.log"
    assert journal_path("runs/a.log") == "runs/a.log"
    assert journal_path("sqlite:///a.db") is None


def test_another_search_refuses_the_study(small, tmp_path):
    X, y = small
    url = f"sqlite:///{tmp_path}/s.db"
    metafx.search(X, y, budget=30, steps=2, engine="optuna", seed=1, storage=url, study_name="s", progress=False)
    with pytest.raises(metafx.StorageError, match=r"study 's' in .* belongs to a different search \(differs in: budget"):
        metafx.search(X, y, budget=31, steps=2, engine="optuna", seed=1, storage=url, study_name="s",
                      progress=False)
