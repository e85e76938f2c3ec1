"""Categorical meta-features: a Dimension kind every engine can search."""

from __future__ import annotations

import json

import numpy as np
import pytest

import metafx
from metafx.plugin import Dimension, FeatureFamily, FeatureValues, MetaFeatureSpace, ValidationError


def test_dimension_checks_moves_and_round_trips():
    d = Dimension("op", "categorical", choices=("add", "mul", "max"), default="mul")
    assert d.start == "mul" and d.n_values == 3 and (d.low, d.high) == (0, 2)
    assert d.check("max") == "max"
    with pytest.raises(ValidationError, match=r"op='div' is not one of \['add', 'mul', 'max'\]"):
        d.check("div")
    rng = np.random.default_rng(0)
    assert {d.uniform(rng) for _ in range(50)} == {"add", "mul", "max"}
    assert all(d.move("add", rng) != "add" for _ in range(20))
    space = MetaFeatureSpace((d, Dimension("k", "int", 1, 3)))
    assert MetaFeatureSpace.from_dict(json.loads(json.dumps(space.to_dict()))) == space
    assert space.size == 9
    for bad in ({"choices": ()}, {"choices": ("a", "a")}, {"choices": ("a",), "default": "b"}):
        with pytest.raises(ValidationError):
            Dimension("x", "categorical", **bad)
    with pytest.raises(ValidationError, match="needs low and high"):
        Dimension("x", "int")


class Ops(FeatureFamily):
    """Feature = op(X[:, i], X[:, j]) for a categorical ``op``; cost 1."""

    name = "test-ops"
    data_kind = "table"

    def space(self):
        return MetaFeatureSpace((Dimension("op", "categorical", choices=("add", "mul", "max")),))

    def draw(self, point, budget, rng, max_features=None):
        n = int(budget) if max_features is None else min(int(budget), max_features)
        return {"op": [point["op"]] * n, "i": rng.integers(0, 4, n), "j": rng.integers(0, 4, n)}

    def concat(self, batches):
        return {k: np.concatenate([np.asarray(b[k]) for b in batches]) if batches else np.zeros(0)
                for k in ("op", "i", "j")}

    def prepare(self, X):
        return np.asarray(X, dtype=np.float64)

    def compute(self, prepared, batch):
        f = {"add": np.add, "mul": np.multiply, "max": np.maximum}
        cols = [f[o](prepared[:, i], prepared[:, j]) for o, i, j in zip(batch["op"], batch["i"], batch["j"], strict=True)]
        return FeatureValues.from_dense(np.column_stack(cols) if cols else np.zeros((len(prepared), 0)))

    def describe(self, batch):
        return {"op": np.asarray(batch["op"])}

    def to_json(self, batch):
        return [{"op": str(o), "i": int(i), "j": int(j)} for o, i, j in zip(batch["op"], batch["i"], batch["j"], strict=True)]

    def from_json(self, specs):
        return {"op": [s["op"] for s in specs], "i": np.array([s["i"] for s in specs]),
                "j": np.array([s["j"] for s in specs])}


class _Batch(dict):
    @property
    def costs(self):
        return np.ones(len(self["op"]))

    def __len__(self):
        return len(self["op"])

    def take(self, idx):
        return _Batch({k: np.asarray(v)[idx] for k, v in self.items()})


def _batched(fn):
    def wrapper(*a, **k):
        return _Batch(fn(*a, **k))
    return wrapper


Ops.draw = _batched(Ops.draw)
Ops.concat = _batched(Ops.concat)
Ops.from_json = _batched(Ops.from_json)


@pytest.mark.parametrize("engine", ["mufasa", "random", "optuna"])
def test_engines_search_a_categorical_meta_feature(engine):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(200, 4))
    y = (X[:, 0] * X[:, 1] > 0).astype(int)  # products carry the signal
    res = metafx.search(X, y, family=Ops(), engine=engine, budget=4, steps=8, seed=2, progress=False,
                        evaluator="cv-linear-svm")
    assert {t.point["op"] for t in res.trajectory} <= {"add", "mul", "max"}
    assert len({t.point["op"] for t in res.trajectory}) > 1
    again = metafx.SearchResult.from_json_text(res.to_json())
    assert again.best_point == res.best_point
