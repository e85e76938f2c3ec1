"""Helpers shared by the built-in search engines: evaluating a point whose
features may not exist, thread pools, and the problem signature that ties a
journal or an optuna study to one search."""

from __future__ import annotations

import hashlib
import json
import math
import os
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Iterable, Mapping, Sequence, TypeVar

import numpy as np

from ._search import Evaluation, SearchProblem
from .exceptions import ValidationError

__all__ = ["evaluate_drawn", "draw_or_empty", "resolve_n_jobs", "thread_map", "problem_signature",
           "signature_digest", "data_fingerprint"]

T = TypeVar("T")
R = TypeVar("R")


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
    t0 = time.perf_counter()
    batch = draw_or_empty(problem, draw)
    t1 = time.perf_counter()
    values = problem.family.compute(problem.prepared, batch)
    t2 = time.perf_counter()
    quality = float(problem.evaluator.evaluate(values, problem.y, random_state=problem.eval_seed))
    t3 = time.perf_counter()
    if not math.isfinite(quality):
        raise ValidationError(f"evaluator {problem.evaluator.name!r} returned quality {quality!r} at {dict(point)}")
    costs = np.asarray(batch.costs, dtype=np.float64)
    return Evaluation(dict(point), batch, quality, float(costs.sum()), len(batch),
                      {"draw": t1 - t0, "compute": t2 - t1, "evaluate": t3 - t2})


def resolve_n_jobs(n_jobs: int | None) -> int:
    """``n_jobs`` as a positive count (``-1``: all CPUs)."""
    if n_jobs is None:
        return 1
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, (int, np.integer)) or (n_jobs < 1 and n_jobs != -1):
        raise ValidationError(f"n_jobs={n_jobs!r} must be a positive integer or -1 (all CPUs)")
    if n_jobs == -1:
        return max(1, os.cpu_count() or 1)
    return int(n_jobs)


def thread_map(fn: Callable[[T], R], items: Sequence[T], n_jobs: int) -> list[R]:
    """``[fn(x) for x in items]`` on up to ``n_jobs`` threads, in order.

    Threads, not processes: the feature kernels (numba, ``nogil``) and
    liblinear release the GIL, and the prepared data is shared without copies.
    """
    items = list(items)
    if n_jobs <= 1 or len(items) <= 1:
        return [fn(x) for x in items]
    with ThreadPoolExecutor(max_workers=min(n_jobs, len(items))) as pool:
        return list(pool.map(fn, items))


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
