"""The strict reader of result JSON: every field of a :class:`~metafx.SearchResult` checked, nothing coerced.

:meth:`SearchResult.from_dict` and :meth:`SearchResult.to_json` use it; the
functions take the result class as an argument, so this module does not
import :mod:`metafx.loop.result`.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from typing import Any, cast

from ..core.binarization import InputRule
from ..core.exceptions import MetafxError, UnknownComponentError, ValidationError
from ..core.values import StepRecord

#: the version of the result file format written and read
FORMAT_VERSION = 1

_REQUIRED = ("family", "family_params", "engine", "evaluator", "budget", "seed", "best_point", "best_quality",
             "best_step", "features", "total_cost", "trajectory")


def strict(v: Any) -> Any:
    """``v`` with every non-finite float replaced by ``None`` (strict JSON has no Infinity/NaN)."""
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if isinstance(v, dict):
        return {k: strict(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [strict(x) for x in v]
    return v


def checksum(d: Mapping[str, Any]) -> str:
    body = {k: v for k, v in d.items() if k != "checksum"}
    canon = json.dumps(strict(body), sort_keys=True, separators=(",", ":"), allow_nan=False, ensure_ascii=True)
    return "sha256:" + hashlib.sha256(canon.encode("utf-8")).hexdigest()


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _finite(v: Any) -> bool:
    return _is_num(v) and math.isfinite(v)


def result_from_dict(cls: Any, d: Any) -> Any:
    """An instance of ``cls`` (:class:`SearchResult`) from ``d``, every field checked (``ValidationError``).

    ``cls`` is untyped here: ``metafx.loop.result`` imports this module, so it cannot be imported back.
    """
    d = _opened(d, set(cls.__dataclass_fields__))
    _check_fields(d)
    d["trajectory"] = _records(d)
    _check_best(d)
    res = cls(**d)
    _check_features(res)
    return res


def _opened(d: Any, fields: set[str]) -> dict[str, Any]:
    """``d`` as a dict of the result's fields: the version and checksum checked and removed, old names renamed,
    no field unknown or missing."""
    if not isinstance(d, Mapping):
        raise ValidationError(f"a result must be a JSON object, got {type(d).__name__}")
    d = dict(d)
    version = d.pop("format_version", FORMAT_VERSION)
    if not _is_int(version) or version != FORMAT_VERSION:
        raise ValidationError(f"result format_version={version!r}; this metafx reads {FORMAT_VERSION}")
    if "checksum" in d:
        given = d.pop("checksum")
        body = dict(d, format_version=version)
        if not isinstance(given, str) or given != checksum(body):
            raise ValidationError(f"checksum={given!r} does not match the content (the file was changed or damaged)")
    if "test_error" in d:  # the name of holdout_error in files written before it was renamed
        if "holdout_error" in d:
            raise ValidationError("result JSON holds both test_error and holdout_error (the same field's old and "
                                  "new names); keep holdout_error")
        d["holdout_error"] = d.pop("test_error")
    extra = sorted(set(d) - fields)
    if extra:
        raise ValidationError(f"unknown fields in result JSON: {extra}")
    missing = [k for k in _REQUIRED if k not in d]
    if missing:
        raise ValidationError(f"fields missing from result JSON: {missing}")
    return cast("dict[str, Any]", d)


def _check_fields(d: dict[str, Any]) -> None:
    """Every field but the trajectory checked (strict JSON's null for -inf / inf read back)."""
    def need(ok: bool, name: str, what: str) -> None:
        if not ok:
            raise ValidationError(f"{name}={d[name]!r} must be {what}")

    for name in ("family", "engine", "evaluator"):
        need(isinstance(d[name], str) and d[name] != "", name, "a non-empty string")
    for name in ("family_params", "best_point", "space", "engine_params", "evaluator_params", "metadata"):
        if name in d:
            need(isinstance(d[name], dict), name, "a JSON object")
    need(_finite(d["budget"]) and d["budget"] > 0, "budget", "a finite number > 0")
    need(d["seed"] is None or (_is_int(d["seed"]) and 0 <= d["seed"] < 2**63), "seed", "null or an integer in [0, 2**63)")
    if d["best_quality"] is None:  # strict JSON's -inf: no step found anything
        d["best_quality"] = -math.inf
    need(_is_num(d["best_quality"]) and not math.isnan(d["best_quality"]) and d["best_quality"] != math.inf,
         "best_quality", "a number or null")
    need(_is_int(d["best_step"]) and d["best_step"] >= 0, "best_step", "an integer >= 0")
    need(_finite(d["total_cost"]) and d["total_cost"] >= 0, "total_cost", "a finite number >= 0")
    need(isinstance(d["features"], list) and all(isinstance(f, dict) for f in d["features"]),
         "features", "a list of JSON objects")
    need(all(isinstance(k, str) and (_finite(v) or isinstance(v, str)) for k, v in d["best_point"].items()),
         "best_point", "an object of meta-feature names and finite numbers or choices")
    if "n_samples" in d:
        need(_is_int(d["n_samples"]) and d["n_samples"] >= 0, "n_samples", "an integer >= 0")
    if d.get("holdout_error") is not None:
        need(_finite(d["holdout_error"]) and 0 <= d["holdout_error"] <= 1, "holdout_error",
             "null or a number in [0, 1]")
    if d.get("classifier") is not None:
        _check_classifier(d["classifier"], len(d["features"]))
    if d.get("binarization") is not None:
        InputRule.from_dict(d["binarization"])
    meta = d.get("metadata")
    if isinstance(meta, dict) and "space_size" in meta and meta["space_size"] is None:
        meta["space_size"] = math.inf  # strict JSON's inf: a continuous space
    need(isinstance(d["trajectory"], list), "trajectory", "a list of step records")


def _records(d: dict[str, Any]) -> list[StepRecord]:
    """The trajectory's step records, each checked, in increasing step order."""
    records = []
    for i, r in enumerate(d["trajectory"]):
        try:
            records.append(StepRecord.from_dict(r))
        except (ValidationError, TypeError) as e:
            raise ValidationError(f"trajectory[{i}]: {e}") from None
    for i in range(1, len(records)):
        if records[i].step <= records[i - 1].step:
            raise ValidationError(f"trajectory[{i}]: step {records[i].step} does not follow step {records[i - 1].step}")
    return records


def _check_best(d: dict[str, Any]) -> None:
    """``best_step`` and ``best_quality`` agree with the trajectory (and with ``metadata["reselect"]``)."""
    records = d["trajectory"]
    if not records:
        if d["features"] or d["best_step"] != 0:
            raise ValidationError("a result without steps can have no features and best_step 0")
        return
    best = max(r.quality for r in records)
    rec = {r.step: r for r in records}.get(d["best_step"])
    chosen = (d["metadata"] or {}).get("reselect") if isinstance(d["metadata"], dict) else None
    if isinstance(chosen, dict):  # reselect: one of the best steps, chosen on a second split
        if rec is None or rec.quality != d["best_quality"] or chosen.get("chosen_step") != d["best_step"] \
                or d["best_step"] not in (chosen.get("steps") or []):
            raise ValidationError(f"best_step={d['best_step']!r} and best_quality={d['best_quality']!r} disagree "
                                  f"with the trajectory and metadata['reselect']")
    elif rec is None or rec.quality != d["best_quality"] or d["best_quality"] != best:
        raise ValidationError(f"best_step={d['best_step']!r} and best_quality={d['best_quality']!r} disagree "
                              f"with the trajectory (its best quality is {best!r})")


def _check_features(res: Any) -> None:
    """The features can be read by their family (when its plugin is installed here)."""
    if not res.features:
        return
    try:
        res.feature_batch()
    except UnknownComponentError:
        pass  # a plugin family that is not installed here: checked when the features are used
    except MetafxError as e:
        raise ValidationError(f"features: {e}") from None
    except Exception as e:  # a family's own constructor on damaged family_params
        raise ValidationError(f"features of family {res.family!r} (family_params={res.family_params!r}) "
                              f"cannot be read: {type(e).__name__}: {e}") from None


def _check_classifier(c: Any, n_features: int) -> None:
    """Raise ``ValidationError`` unless ``c`` is a classifier field for ``n_features`` features."""
    def bad(what: str) -> ValidationError:
        shown = repr(c)
        return ValidationError(f"classifier={shown if len(shown) <= 200 else shown[:200] + '...'} must be {what}")

    keys = {"classes", "coef", "intercept", "C"}
    if not isinstance(c, dict) or set(c) != keys:
        raise bad(f"null or a JSON object with the keys {sorted(keys)}")
    classes = c["classes"]
    if not (isinstance(classes, list) and len(classes) >= 2 and (all(isinstance(v, str) for v in classes)
                                                              or all(_finite(v) for v in classes)
                                                              or all(isinstance(v, bool) for v in classes))):
        raise bad("an object whose 'classes' is a list of at least 2 labels, all strings, all booleans or all "
                  "finite numbers")
    if len(set(classes)) != len(classes) or sorted(classes) != classes:
        raise bad("an object whose 'classes' are distinct and sorted")
    rows = 1 if len(classes) == 2 else len(classes)
    coef = c["coef"]
    if not (isinstance(coef, list) and len(coef) == rows and all(
            isinstance(r, list) and len(r) == n_features and all(_finite(v) for v in r) for r in coef)):
        raise bad(f"an object whose 'coef' is {rows} list(s) of {n_features} finite numbers (one per feature)")
    if not (isinstance(c["intercept"], list) and len(c["intercept"]) == rows and all(_finite(v) for v in c["intercept"])):
        raise bad(f"an object whose 'intercept' is a list of {rows} finite number(s)")
    if c["C"] is not None and not (_finite(c["C"]) and c["C"] > 0):
        raise bad("an object whose 'C' is null or a finite number > 0")
