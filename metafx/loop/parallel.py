"""Helpers shared by the built-in search engines: evaluating a point whose
features may not exist, evaluating in worker processes, and the problem
signature that ties a journal or an optuna study to one search."""

from __future__ import annotations

import hashlib
import json
import os
import time
from concurrent.futures import Future
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np

from ._search import Evaluation, SearchProblem
from .exceptions import ValidationError

__all__ = ["evaluate_drawn", "draw_or_empty", "resolve_n_jobs", "EvalPool", "evaluate_task", "draw_random_fixed",
           "problem_signature", "signature_digest", "data_fingerprint", "journal_path_for", "summary_point"]


def draw_or_empty(problem: SearchProblem, draw: Callable[[], Any]) -> Any:
    """``draw()``, or an empty batch when the family cannot draw at that point.

    A family raises :class:`~metafx.ValidationError` from ``draw`` when no
    feature matches a (valid) point, e.g. eight inputs with scatter 3.5 on an
    8x8 image.  Engines then score the empty set (chance level) so the search
    moves away from such points instead of stopping.
    """
    try:
        return draw()
    except ValidationError:
        return problem.family.concat([])


def evaluate_drawn(problem: SearchProblem, point: Mapping[str, Any], draw: Callable[[], Any]) -> Evaluation:
    """Like :meth:`SearchProblem.evaluate`, with the features made by ``draw()``
    (an empty set when the family cannot draw at ``point``)."""
    return problem.evaluate(point, None, draw=lambda: draw_or_empty(problem, draw))


def resolve_n_jobs(n_jobs: int | None) -> int:
    """``n_jobs`` as a positive count (``-1``: all CPUs)."""
    if n_jobs is None:
        return 1
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, (int, np.integer)) or (n_jobs < 1 and n_jobs != -1):
        raise ValidationError(f"n_jobs={n_jobs!r} must be a positive integer or -1 (all CPUs)")
    if n_jobs == -1:
        return max(1, os.cpu_count() or 1)
    return int(n_jobs)


# --------------------------------------------------------------------------- parallel evaluation
#: how a task draws its features: at its point, or from the whole family (fixed dimensions held)
AT_POINT, WHOLE_FAMILY = "point", "whole-family"

_WORKER_PROBLEM: SearchProblem | None = None


def draw_random_fixed(problem: Any, rng: np.random.Generator) -> Any:
    """Features from the whole family (each at its own uniform point, fixed
    dimensions held) filling ``problem.budget``; points where the family cannot
    draw are skipped."""
    space = problem.space
    fam = problem.family
    if not space.fixed:
        try:
            return fam.draw_random(problem.budget, rng)
        except ValidationError:
            pass  # a point where the family cannot draw: the loop below skips such points
    parts = []
    spent = 0.0
    min_cost = float(fam.min_cost())
    misses = 0
    while problem.budget - spent >= min_cost and misses < 1000:
        try:
            b = fam.draw(space.uniform(rng), problem.budget - spent, rng, max_features=1)
        except ValidationError:
            b = fam.concat([])
        if len(b) == 0:
            misses += 1
            continue
        parts.append(b)
        spent += float(np.sum(b.costs))
    return fam.concat(parts)


def evaluate_task(problem: SearchProblem, point: Mapping[str, Any], keys: Sequence[int],
                  how: str = AT_POINT) -> tuple[Evaluation, float]:
    """Draw (with ``step_rng(*keys)``), compute and score one set; returns it and the seconds it took."""
    from ._search import step_rng

    t0 = time.perf_counter()
    rng = step_rng(*keys)
    if how == AT_POINT:
        ev = evaluate_drawn(problem, point, lambda: problem.draw(point, rng))
    elif how == WHOLE_FAMILY:
        ev = evaluate_drawn(problem, point, lambda: draw_random_fixed(problem, rng))
    else:  # pragma: no cover - engines pass one of the two
        raise ValueError(how)
    return ev, time.perf_counter() - t0


def _init_worker(blob: bytes) -> None:
    global _WORKER_PROBLEM
    import pickle

    _WORKER_PROBLEM = pickle.loads(blob)


def _worker_task(task: tuple) -> tuple[Evaluation, float]:
    assert _WORKER_PROBLEM is not None
    return evaluate_task(_WORKER_PROBLEM, *task)


class EvalPool:
    """Evaluates tasks ``(point, keys, how)`` here (``n_jobs = 1``) or in ``n_jobs`` processes.

    Processes, not threads: liblinear (behind ``cv-linear-svm``) keeps its
    random generator in a global variable, so two fits on two threads disturb
    each other and the same set could score differently; separate processes
    keep every evaluation a pure function of its task.  Each process receives
    the problem (pickled) once, when it starts.
    """

    def __init__(self, problem: SearchProblem, n_jobs: int) -> None:
        self.problem = problem
        self.n_jobs = n_jobs
        self.executor = None
        if n_jobs > 1:
            import multiprocessing
            import pickle
            from concurrent.futures import ProcessPoolExecutor

            try:
                blob = pickle.dumps(problem)
            except Exception as e:
                raise ValidationError(
                    f"n_jobs={n_jobs} evaluates in separate processes, which needs a picklable family and "
                    f"evaluator (classes defined in importable modules): {e}; use n_jobs=1") from None
            ctx = multiprocessing.get_context("spawn")  # fork after numba/OpenMP threads is unsafe
            self.executor = ProcessPoolExecutor(n_jobs, mp_context=ctx, initializer=_init_worker, initargs=(blob,))

    def submit(self, task: tuple) -> Future:
        if self.executor is not None:
            return self.executor.submit(_worker_task, task)
        fut: Future = Future()
        try:
            fut.set_result(evaluate_task(self.problem, *task))
        except BaseException as e:  # reported through the future, as for processes
            fut.set_exception(e)
        return fut

    def map(self, tasks: Sequence[tuple]) -> list[tuple[Evaluation, float]]:
        return [f.result() for f in [self.submit(t) for t in tasks]]

    def close(self) -> None:
        if self.executor is not None:
            self.executor.shutdown(wait=True, cancel_futures=True)
            self.executor = None

    def __enter__(self) -> EvalPool:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def data_fingerprint(problem: SearchProblem) -> str:
    """A digest of the prepared data and labels (the same data gives the same digest)."""
    h = hashlib.sha256()
    prepared = problem.prepared
    values: Iterable[Any] = prepared.values() if isinstance(prepared, Mapping) else [prepared]
    for v in values:
        if isinstance(v, np.ndarray):
            h.update(str(v.shape).encode())
            h.update(np.ascontiguousarray(v).tobytes())
    h.update(np.ascontiguousarray(problem.y).tobytes())
    return h.hexdigest()[:16]


def problem_signature(engine: Any, problem: SearchProblem, seed: int, *,
                      exclude_params: Sequence[str] = ()) -> dict[str, Any]:
    """Everything that determines a search's steps (not its length ``steps``,
    so a finished search can be extended)."""
    from ._search import _jsonable

    params = {k: v for k, v in engine.get_params().items() if k not in exclude_params}
    return _jsonable({
        "engine": engine.name,
        "engine_params": params,
        "family": problem.family.name,
        "family_params": problem.family.get_params(),
        "evaluator": problem.evaluator.name,
        "evaluator_params": problem.evaluator.get_params(),
        "budget": problem.budget,
        "fixed": problem.space.fixed,
        "oversample": problem.oversample,
        "prune_by": problem.prune_by if problem.oversample > 1 else None,
        "seed": seed,
        "data": data_fingerprint(problem),
    })


def signature_digest(signature: Mapping[str, Any]) -> str:
    return hashlib.sha256(json.dumps(signature, sort_keys=True).encode()).hexdigest()[:12]


def journal_path_for(engine: str, storage: Any) -> str:
    """``storage`` as the path of a JSONL step journal (engines that keep one)."""
    if not isinstance(storage, (str, os.PathLike)):
        raise ValidationError(f"storage={storage!r} must be the path of a journal file for engine {engine!r}")
    s = os.fspath(storage)
    if "://" in s or s.startswith("journal:") or s.endswith((".db", ".sqlite", ".sqlite3", ".log")):
        raise ValidationError(
            f"storage={s!r} looks like an optuna storage; engine {engine!r} records its steps in a JSON-lines "
            "journal file: pass a path such as search.jsonl (optuna storages are used by engine 'optuna')")
    return s


def summary_point(problem: SearchProblem, batch: Any) -> dict[str, Any]:
    """A valid point that summarizes a set drawn from the whole family: the mean
    of each meta-feature over the set (rounded for integer dimensions, clipped
    to the range; fixed dimensions keep their value; the default when the
    family does not describe a dimension or the set is empty)."""
    space = problem.space
    described: Mapping[str, Any] = {}
    if len(batch):
        try:
            described = problem.family.describe(batch)
        except Exception:  # a family without a describe for this batch: defaults
            described = {}
    out: dict[str, Any] = {}
    for d in space.dimensions:
        if d.name in space.fixed:
            out[d.name] = space.fixed[d.name]
        elif d.name in described and len(batch):
            out[d.name] = d.clip(float(np.mean(np.asarray(described[d.name], dtype=np.float64))))
        else:
            out[d.name] = d.start
    return out
