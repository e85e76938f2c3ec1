"""Worker processes end with their parent: the loky backend gets the watch as its initializer, found
through joblib's public backend registry (no private joblib module)."""

from __future__ import annotations

import os

import joblib
import joblib.parallel

from metafx.loop.lifeline import loky_backend, watch_parent


def test_loky_backend_gets_the_parent_watch():
    backend = loky_backend()
    assert type(backend) is joblib.parallel.BACKENDS["loky"]
    assert backend.backend_kwargs["initializer"] is watch_parent
    assert backend.backend_kwargs["initargs"] == (os.getpid(),)


def test_another_active_backend_is_kept():
    with joblib.parallel_config(backend="threading"):
        assert loky_backend() is None


def test_a_joblib_without_a_loky_backend_keeps_the_active_one(monkeypatch):
    monkeypatch.setattr(joblib.parallel, "BACKENDS", {k: v for k, v in joblib.parallel.BACKENDS.items()
                                                      if k != "loky"})
    assert loky_backend() is None


def test_a_joblib_without_the_backend_registry_keeps_the_active_one(monkeypatch):
    monkeypatch.delattr(joblib.parallel, "BACKENDS")
    assert loky_backend() is None
