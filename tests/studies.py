"""What a metafx study must look like to plain optuna (tests of the optuna study store)."""

from __future__ import annotations

from metafx.storage.study import ERROR_KEY, RETRY_KEY, STEP_KEY, SURPLUS_KEY


def step_of(trial, trials) -> int:
    """The step a trial computed: a retry's ``metafx:step``, else its number + 1 less the retries before it."""
    if STEP_KEY in trial.user_attrs:
        return int(trial.user_attrs[STEP_KEY])
    return trial.number + 1 - sum(STEP_KEY in t.user_attrs and t.number < trial.number for t in trials)


def check_study(trials, steps: int) -> dict[int, object]:
    """Steps ``1..steps`` complete, each once; every other trial failed for a reason it records or was
    retried by a complete trial at the same point; the complete trials by step."""
    complete = {}
    for t in trials:
        if t.state.name == "COMPLETE":
            s = step_of(t, trials)
            assert s not in complete, f"step {s} complete twice: trials {complete[s].number} and {t.number}"
            complete[s] = t
    assert sorted(complete) == list(range(1, steps + 1)), sorted(complete)
    retried = {int(t.user_attrs[RETRY_KEY]): t for t in complete.values() if RETRY_KEY in t.user_attrs}
    for t in trials:
        if t.state.name != "COMPLETE":
            assert t.state.name == "FAIL", (t.number, t.state)
            if t.user_attrs.get(SURPLUS_KEY) or ERROR_KEY in t.user_attrs:
                continue
            assert t.number in retried, f"trial {t.number} failed and was not retried"
            again = retried[t.number].params
            if t.params and set(t.params) >= set(again):  # it failed at a whole point: retried at that point
                assert again == t.params, (t.number, t.params, again)
            # a trial killed between two of its suggest_* calls holds part of a point: its retry draws a
            # point of its own (``StudyStore._retry_point``), which any complete trial has
    return complete
