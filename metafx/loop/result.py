"""The result of a search: best point, its features, the trajectory; JSON in and out."""

from __future__ import annotations

import importlib
import json
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from ..core.binarization import BINARY, InputRule
from ..core.exceptions import MetafxError, UnknownComponentError, ValidationError
from ..core.files import atomic_write_text, read_regular_file
from ..core.values import MetaFeatureSpace, StepRecord
from ..hooks.manager import get_registry
from ..hooks.registry import EVALUATOR_KINDS
from ..learn import bounds
from .result_json import FORMAT_VERSION, checksum, result_from_dict, strict

__all__ = ["FORMAT_VERSION", "SearchResult"]

#: the largest result file read (bytes); a result of a million features takes about 100 MB
MAX_RESULT_BYTES = 1 << 28


@dataclass
class SearchResult:
    """What a search returns: the best point, its features, and the trajectory.

    ``features`` is a list of JSON-able feature specifications of ``family``
    (for ``pixel-and``: ``{"family": "pixel-and", "inputs": [[row, col, negated], ...],
    "shift": a}``).  ``transform(X)`` computes them on new data.

    ``classifier`` (``None`` unless kept by :meth:`fit_classifier`, or by ``metafx search`` when it
    has test data) holds a fitted linear classifier on the features, as JSON-able lists:
    ``{"classes": [...], "coef": [[...], ...], "intercept": [...], "C": c}``.  Its decision is
    ``transform(X) @ coef.T + intercept`` (``coef``: one row of ``n_features`` weights per class,
    or one row for two classes, positive for ``classes[1]``); the predicted class is
    ``classes[argmax]`` (two classes: ``classes[1]`` where the decision is ``> 0``).
    :meth:`metafx.FeatureClassifier.from_result` makes it a scikit-learn classifier again.

    ``binarization`` (image families; ``None``: kept by no search before it) is how the training images
    were binarized, ``{"threshold": T, "range": [low, high], "seen": [min, max]}`` (``threshold`` null:
    they were 0/1): ``input_rule`` applies it to new images in :meth:`transform`,
    :class:`metafx.FeatureClassifier`, ``metafx transform`` / ``predict`` and the exports (see
    ``metafx.core.binarization``).
    """

    family: str
    family_params: dict[str, Any]
    engine: str
    evaluator: str
    budget: float
    seed: int | None
    best_point: dict[str, Any]
    best_quality: float
    best_step: int
    features: list[dict[str, Any]]
    total_cost: float
    trajectory: list[StepRecord]
    space: dict[str, Any] = field(default_factory=dict)
    engine_params: dict[str, Any] = field(default_factory=dict)
    evaluator_params: dict[str, Any] = field(default_factory=dict)
    n_samples: int = 0
    holdout_error: float | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    classifier: dict[str, Any] | None = None
    binarization: dict[str, Any] | None = None

    # ---------------------------------------------------------------- features
    @property
    def n_features(self) -> int:
        return len(self.features)

    @property
    def quality_label(self) -> str:
        """What ``best_quality`` and the trajectory's qualities are, in words (e.g. ``"CV accuracy, 2-fold
        linear SVM"``): the evaluator's :attr:`~metafx.plugin.SetEvaluator.quality_label`, recorded by the search."""
        label = self.metadata.get("quality_label") if isinstance(self.metadata, dict) else None
        return label if isinstance(label, str) and label else f"quality ({self.evaluator})"

    def get_family(self) -> Any:
        """A family instance able to compute ``features`` (from the registry).

        When the family is not registered (its plugin is not installed), the
        error names the distribution that provided it, as the result recorded
        it in ``metadata["plugins"]``.
        """
        try:
            cls = get_registry().get("family", self.family)
        except UnknownComponentError as e:
            raise UnknownComponentError(f"{e}{missing_plugin_hint(self.metadata, 'family', self.family)}") from None
        return cls(**self.family_params)

    def feature_batch(self) -> tuple[Any, Any]:
        """``features`` as the family's internal batch object."""
        cached = self.__dict__.get("_batch_cache")
        if cached is None or cached[0] is not self.features:
            fam = self.get_family()
            cached = (self.features, fam, fam.from_json(self.features))
            self.__dict__["_batch_cache"] = cached
        return cached[1], cached[2]

    @property
    def input_rule(self) -> InputRule | None:
        """How new images are binarized (an ``InputRule`` of ``metafx.core.binarization``): the stored
        ``binarization``; for a result that keeps none, the threshold ``metafx search`` recorded in
        ``metadata["data"]`` (results written before the field), else 0/1 images expected.  None for
        families that do not read images."""
        if self.binarization is not None:
            return InputRule.from_dict(self.binarization)
        try:
            cls = get_registry().get("family", self.family)
        except UnknownComponentError:
            return None
        if getattr(cls, "data_kind", None) != "binary-image":
            return None
        data = self.metadata.get("data") if isinstance(self.metadata, dict) else None
        t = data.get("threshold") if isinstance(data, dict) else None
        if isinstance(t, (int, float)) and not isinstance(t, bool) and math.isfinite(t):
            return InputRule.of_threshold(t)
        return BINARY

    def binarize(self, X: Any, name: str = "X") -> Any:
        """``X`` binarized by :attr:`input_rule` (uint8 0/1), or :class:`~metafx.ValidationError` naming
        ``name``, the values found and what the result expects; ``X`` unchanged for families that do not
        read images."""
        rule = self.input_rule
        return X if rule is None else rule.apply(X, name)

    def transform(self, X: np.ndarray) -> np.ndarray:
        """Compute the chosen features on ``X``: an ``(n_samples, n_features)`` 0/1 array.

        Images are binarized first by :attr:`input_rule` (0/1 images as they are; grey images by the
        threshold the search used, or refused when their values do not fit it)."""
        family, batch = self.feature_batch()
        return cast("np.ndarray", family.transform(self.binarize(X), batch))

    def feature_names(self) -> list[str]:
        family, batch = self.feature_batch()
        return cast("list[str]", family.feature_names(batch))

    @property
    def qualities(self) -> np.ndarray:
        return np.array([r.quality for r in self.trajectory])

    def fit_classifier(self, X: Any, y: Any, *, keep: bool = True, **params: Any) -> Any:
        """A :class:`metafx.FeatureClassifier` on these features, fitted on ``(X, y)``.

        ``params`` go to its constructor (``C=None``: chosen by CV on ``(X, y)``, ``Cs``,
        ``n_splits``, ``random_state``).  With ``keep`` (default) its weights are kept in
        :attr:`classifier`, so :meth:`to_json` saves them and
        :meth:`metafx.FeatureClassifier.from_result` gives the fitted classifier back.

        >>> import metafx
        >>> X, y = metafx.load_dataset("digits")
        >>> res = metafx.search(X[:400], y[:400], budget=60, steps=3, seed=0, progress=False)
        >>> clf = res.fit_classifier(X[:400], y[:400])
        >>> sorted(res.classifier)
        ['C', 'classes', 'coef', 'intercept']
        """
        # loaded on use, so that ``import metafx`` does not load scikit-learn
        classifier_module = importlib.import_module("metafx.learn.classifier")
        clf = classifier_module.FeatureClassifier(self, **params).fit(X, y)
        if keep:
            self.classifier = clf.to_dict()
        return clf

    # ---------------------------------------------------------------- JSON
    def to_dict(self) -> dict[str, Any]:
        d = {k: getattr(self, k) for k in self.__dataclass_fields__}
        d["trajectory"] = [r.to_dict() for r in self.trajectory]
        for key in ("classifier", "binarization"):  # files without them stay readable by metafx before the fields
            if d[key] is None:
                del d[key]
        d["format_version"] = FORMAT_VERSION
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> SearchResult:
        """A result from its :meth:`to_dict` form (or parsed JSON), every field checked.

        Raises :class:`~metafx.ValidationError` naming the field; nothing is
        coerced (``"false"`` is no boolean, ``1.7`` no coordinate).  A
        ``checksum`` (written by :meth:`to_json`) must match the content.
        """
        return cast("SearchResult", result_from_dict(cls, d))

    def to_json(self, path: str | os.PathLike[str] | None = None, indent: int | None = 1) -> str:
        """The result as strict JSON (returned; also written to ``path`` when given).

        Strict: non-finite numbers are written as ``null`` (``best_quality``
        ``null`` reads back as ``-inf``, ``metadata["space_size"]`` as ``inf``).
        The text carries a SHA-256 ``checksum`` of its content, checked on
        reading.  The file is written to a unique temporary file in the same
        directory, fsync-ed and renamed over ``path``: readers see the old file
        or the new one, never a torn one, and concurrent writers never share a
        temporary file.
        """
        d = strict(self.to_dict())
        d["checksum"] = checksum(d)
        text = json.dumps(d, indent=indent, allow_nan=False)
        if path is not None:
            atomic_write_text(path, text)
        return text

    @classmethod
    def from_json(cls, path: str | os.PathLike[str]) -> SearchResult:
        """Read the result file at ``path`` (written by :meth:`to_json`).

        ``path`` is always a path (a file named ``{run1}.json`` is a file);
        for JSON text use :meth:`from_json_text`.  Every problem (missing,
        unreadable, not UTF-8, not JSON, wrong fields) raises
        :class:`~metafx.ValidationError`.
        """
        if not isinstance(path, (str, os.PathLike)):
            raise ValidationError(f"path={path!r} must be the path of a result file (for JSON text use "
                                  "SearchResult.from_json_text)")
        p = os.fspath(path)
        if isinstance(p, bytes):
            p = os.fsdecode(p)
        shown = p if len(p) <= 200 else p[:200] + "..."
        hint = "; SearchResult.from_json takes a path (for JSON text use SearchResult.from_json_text)" \
            if p.lstrip().startswith(("{", "[")) else ""
        try:  # a regular file of bounded size: a FIFO or /dev/zero is refused, not waited on or read forever
            raw = read_regular_file(p, MAX_RESULT_BYTES, "result file", shown=shown)
        except FileNotFoundError:
            raise ValidationError(f"result file {shown!r} does not exist{hint}") from None
        except ValidationError as e:
            raise ValidationError(f"{e}{hint}") from None
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise ValidationError(f"result file {p!r} is not UTF-8 text ({e.reason} at byte {e.start})") from None
        return cls.from_json_text(text, source=f"result file {p!r}")

    @classmethod
    def from_json_text(cls, text: str, *, source: str = "result JSON") -> SearchResult:
        """Read a result from JSON text (what :meth:`to_json` returns)."""
        if not isinstance(text, str):
            raise ValidationError(f"text must be a str of JSON, got {type(text).__name__}")
        try:
            data = json.loads(text)
        except RecursionError:
            raise ValidationError(f"{source} is nested too deeply") from None
        except ValueError as e:
            raise ValidationError(f"{source} is not valid JSON: {e}") from None
        try:
            return cls.from_dict(data)
        except ValidationError as e:
            raise ValidationError(f"{source}: {e}") from None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SearchResult):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    def __repr__(self) -> str:
        """One line: what was searched and what was found (``summary()`` has more)."""
        test = "" if self.holdout_error is None else f", holdout_error={100 * self.holdout_error:.2f}%"
        return (f"SearchResult(engine={self.engine!r}, family={self.family!r}, evaluator={self.evaluator!r}, "
                f"budget={self.budget:g}, steps={len(self.trajectory)}, best_quality={self.best_quality:.4g} "
                f"at step {self.best_step}, n_features={self.n_features}, total_cost={self.total_cost:g}{test})")

    # ---------------------------------------------------------------- tables
    def trajectory_frame(self) -> Any:
        """The trajectory as a pandas DataFrame, one row per step (as optuna's ``trials_dataframe``).

        Columns: ``step``, ``quality``, ``best_quality`` (best so far),
        ``accepted``, ``n_features``, ``cost`` (of the step's feature set),
        ``seconds``, ``kind`` (``"point"``, or ``"portfolio"`` for a step that
        combined earlier sets: its ``point_`` columns are empty), one
        ``point_<name>`` column per meta-feature and
        ``seconds_<part>`` per timed part (draw, compute, evaluate).  Needs
        pandas (``pip install pandas``).

        Examples
        --------
        >>> import metafx
        >>> X, y = metafx.load_dataset("digits")
        >>> res = metafx.search(X[:300], y[:300], budget=20, steps=3, seed=0, progress=False)
        >>> df = res.trajectory_frame()
        >>> list(df.columns[:4]), len(df)
        (['step', 'quality', 'best_quality', 'accepted'], 3)
        """
        pd = _pandas("trajectory_frame")
        rows = []
        for r in self.trajectory:
            row: dict[str, Any] = {"step": r.step, "quality": r.quality, "best_quality": r.best_quality,
                                   "accepted": bool(r.accepted), "n_features": r.n_features, "cost": r.cost,
                                   "seconds": r.seconds, "kind": r.kind}
            row.update({f"point_{k}": v for k, v in r.point.items()})  # a portfolio step has none
            row.update({f"seconds_{k}": v for k, v in (r.timings or {}).items()})
            rows.append(row)
        cols = ["step", "quality", "best_quality", "accepted", "n_features", "cost", "seconds", "kind"]
        return pd.DataFrame(rows, columns=cols + [c for c in (rows[0] if rows else {}) if c not in cols])

    def feature_table(self, X: Any = None, y: Any = None, *, scorer: str = "infogain") -> Any:
        """The chosen features as a pandas DataFrame, one row per feature.

        Columns: ``name`` (readable description), ``cost``, the family's
        meta-features of each feature (``describe``), and, when training
        data ``X, y`` are given, the feature's score on them (``scorer``,
        default ``infogain``: the information gain of the feature about
        ``y``), with the rows sorted by it (best first).  The index is the
        feature's position in ``features`` (its column in ``transform``).
        Needs pandas.

        Examples
        --------
        >>> import metafx
        >>> X, y = metafx.load_dataset("digits")
        >>> res = metafx.search(X[:300], y[:300], budget=20, steps=3, seed=0, progress=False)
        >>> t = res.feature_table(X[:300], y[:300])
        >>> list(t.columns[:2]), "infogain" in t.columns, len(t) == res.n_features
        (['name', 'cost'], True, True)
        """
        pd = _pandas("feature_table")
        if (X is None) != (y is None):
            raise ValidationError("feature_table needs both X and y (the training data) or neither")
        family, batch = self.feature_batch()
        data: dict[str, Any] = {"name": family.feature_names(batch),
                                "cost": np.asarray(batch.costs, dtype=np.float64)}
        if len(batch):
            for k, v in family.describe(batch).items():
                data[k] = np.asarray(v)
        table = pd.DataFrame(data, index=pd.RangeIndex(len(batch), name="feature"))
        if X is not None:
            reg = get_registry()
            if ("scorer", scorer) not in reg and any((k, scorer) in reg for k in EVALUATOR_KINDS):
                raise ValidationError(f"scorer={scorer!r} is not a per-feature scorer; registered: "
                                      f"{', '.join(reg.names('scorer'))}")
            cls = reg.get("scorer", scorer)
            values = self.transform(X)
            y = np.asarray(y)
            if y.shape[0] != values.shape[0]:
                raise ValidationError(f"y has {y.shape[0]} labels but X has {values.shape[0]} samples")
            table[scorer] = np.asarray(cls.create().score(values, y), dtype=np.float64) if len(batch) else []
            table = table.sort_values(scorer, ascending=False, kind="stable")
        return table

    def summary(self) -> str:
        """A few lines a person reads: the search, the best step (a point, or what a portfolio step joined), its
        quality (and, where ``reselect`` kept another step than the best first score, why), the features."""
        best = f"best point: {describe_point(self.space, self.best_point)} (step {self.best_step})"
        if not self.best_point and any(r.step == self.best_step and r.kind == "portfolio" for r in self.trajectory):
            best = f"best set: step {self.best_step}, {portfolio_words(self.metadata, self.best_step)}"
        lines = [
            f"engine {self.engine}, family {self.family}, evaluator {self.evaluator}, budget {self.budget:g}",
            best,
            f"best {self.quality_label}: {self.best_quality:.4f}",
        ]
        base = self.metadata.get("columns_quality") if isinstance(self.metadata, dict) else None
        if isinstance(base, (int, float)) and math.isfinite(self.best_quality):
            lines.insert(3, f"  (the table's columns with the chosen features; the columns alone score {base:.4f}: "
                            f"the features add {self.best_quality - base:+.4f})")
        why = reselect_words(self.metadata)
        if why:
            lines.append(why)
        lines.append(f"features: {self.n_features}, total cost {self.total_cost:g}")
        if self.holdout_error is not None:
            lines.append(f"held-out error: {100 * self.holdout_error:.2f} % (linear SVM on the chosen features)")
        return "\n".join(lines)

    def _engine_class(self) -> Any:
        """The registered class of this result's engine, or None when it is not installed here."""
        try:
            return get_registry().get("engine", self.engine)
        except UnknownComponentError:
            return None

    def _bound_engine(self) -> Any:
        """The registered class of this result's engine; raises :class:`~metafx.MetafxError` saying why when
        Theorem 5.1 does not apply to the search (the engine's, the family's or the search's reason)."""
        engine = self._engine_class()
        if engine is None:
            engine_why = (f"engine {self.engine!r} is not installed here, so whether its search is covered is "
                          f"unknown{missing_plugin_hint(self.metadata, 'engine', self.engine)}")
        else:
            engine_why = engine.bound_obstacle(self.metadata)
        why = bounds.search_bound_obstacle(self.metadata, self.family_params, engine_why)
        if why:
            raise MetafxError(f"Theorem 5.1 does not apply to this search: {why}")
        return engine

    def bound(self, delta: float = 0.05, gamma: float = 1.0, *, train_error: float | None = None,
              fat_d: float | None = None, steps: int | None = None, space_size: float | None = None) -> Any:
        """Thesis Theorem 5.1 for this search (see :func:`metafx.bounds.mufasa_bound <metafx.learn.bounds.mufasa_bound>`).

        The theorem counts the feature sets a search can return through the
        data's only influence on it: accepting or rejecting the point of each
        step.  So it applies to ``mufasa`` (``(c + 1)^J`` outcomes with
        ``n_candidates = c``) and to ``random`` (one point per step), with the
        plain drawing (``oversample = 1``).  It does not apply, and this method
        raises :class:`~metafx.MetafxError` saying why, when the data steer the
        search otherwise: pruning inside a step (``oversample > 1``), a
        model-based proposer (``optuna``) or a data-ranked pool (``ranked``).

        It also raises for labels of more than two classes (the theorem is for
        labels +-1) and for ``location_prior="ink"`` (features drawn from a
        distribution fitted to the training images: the class of feature sets
        depends on the sample).

        Uses ``m = n_samples``, ``J = metadata["planned_steps"]`` (the steps
        the search was run with, also when a callback, a timeout or Ctrl-C
        stopped it sooner: the stopping rule may look at the data, and a
        search stopped at step j returns what the full search returns when
        every later step is rejected) and ``|MF| = metadata["space_size"]``
        (``inf`` for a continuous space); each can be overridden.  ``fat_d`` defaults to ``n_features + 1``, the
        pseudo-dimension of affine functions of the selected features, which
        bounds their fat-shattering dimension at every scale (right for a
        linear classifier).  ``train_error`` is the gamma-sensitive training
        error of the final classifier; without it the bound's ``value`` is
        ``nan`` and ``gap`` holds what it adds.  ``terms`` also reports
        ``n ln N`` with ``N = n 2^J``, the price of choosing the same features
        directly from ``n 2^J`` candidates (thesis section 5.4.1).

        Examples
        --------
        >>> import metafx
        >>> X, y = metafx.load_dataset("digits")
        >>> res = metafx.search(X[:300], y[:300] % 2, budget=20, steps=3, engine="mufasa", seed=0,
        ...                     progress=False)  # two classes
        >>> b = res.bound(delta=0.05, gamma=1.0)
        >>> b.terms["g(J)"] == 3 * math.log(2)
        True
        """
        c = self._bound_engine().bound_candidates(self.metadata)
        J = self.metadata.get("planned_steps") if steps is None else steps
        if J is None:
            raise MetafxError("the result does not record the steps its search was run with (written by an older "
                              f"metafx; {len(self.trajectory)} were finished): pass steps=J, the steps asked for")
        mf = space_size if space_size is not None else self.metadata.get("space_size")
        mf = math.inf if mf is None or (isinstance(mf, float) and math.isnan(mf)) else float(mf)
        d = self.n_features + 1 if fat_d is None else fat_d
        b = bounds.mufasa_bound(self.n_samples, gamma, delta, d, J, mf, train_error=train_error, n_candidates=c)
        n = max(self.n_features, 1)
        b.terms["direct n ln(n 2^J)"] = n * (math.log(n) + J * math.log(2.0))
        return b


def _pandas(what: str) -> Any:
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - pandas is in the test extra
        raise ImportError(f"SearchResult.{what}() returns a pandas DataFrame and needs pandas: "
                          "pip install pandas") from None
    return pd


def missing_plugin_hint(metadata: Mapping[str, Any], kind: str, name: str) -> str:
    """``"; it was provided by ... (pip install ...)"`` when ``metadata["plugins"]`` recorded ``name``."""
    rec = (metadata or {}).get("plugins", {}).get(kind)
    if not isinstance(rec, Mapping) or rec.get("name") != name:
        return ""
    dist = rec.get("distribution")
    if dist:
        return (f". This result was made with {kind} {name!r} from plugin {rec.get('plugin')!r} of the "
                f"distribution {dist!r}: install it (pip install {dist}) to use the result")
    return f". This result was made with {kind} {name!r} from plugin {rec.get('plugin')!r}"


def plugin_provenance(registry: Any, components: Mapping[str, str]) -> dict[str, dict[str, Any]]:
    """Which plugin and distribution provided each ``field -> name`` (stored in ``metadata["plugins"]``).

    The fields are the result's (``family``, ``engine``, ``evaluator``: a set evaluator).
    """
    out: dict[str, dict[str, Any]] = {}
    for field_name, name in components.items():
        kind = _FIELD_KINDS.get(field_name, field_name)
        if (kind, name) in registry:
            reg = registry.registration(kind, name)
            dist = reg.distribution or ("metafx" if reg.plugin.startswith("metafx.builtin") else None)
            out[field_name] = {"name": name, "plugin": reg.plugin, "distribution": dist}
    return out


#: the component kind of a result's field, where the two differ
_FIELD_KINDS = {"evaluator": "set-evaluator"}


def _steps_words(steps: list[int]) -> str:
    """``5``, ``5 and 11``, ``5, 11 and 35``."""
    words = [str(s) for s in steps]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def portfolio_words(metadata: Mapping[str, Any], step: int) -> str:
    """What the portfolio step ``step`` is, in words: ``the union of the sets of steps 5, 11 and 35`` (from the
    engine's ``metadata["portfolio_sources"]``; a general phrase for results written without it)."""
    sources = (metadata.get("portfolio_sources") or {}).get(str(step)) if isinstance(metadata, Mapping) else None
    if isinstance(sources, list) and sources and all(isinstance(s, int) for s in sources):
        return f"a portfolio step: the union of the sets of step{'s' if len(sources) > 1 else ''} {_steps_words(sources)}"
    if sources == "prior":
        return "a portfolio step: the union of sets drawn at the related tasks' best points (warm start)"
    return "a portfolio step: the union of the best sets found before it"


def reselect_words(metadata: Mapping[str, Any]) -> str:
    """Where ``reselect`` kept another step than the one of the best first score: which, and why (``""`` else)."""
    r = metadata.get("reselect") if isinstance(metadata, Mapping) else None
    if not isinstance(r, Mapping):
        return ""
    try:
        steps, first, second = list(r["steps"]), list(r["qualities"]), list(r["second_qualities"])
        chosen = r["chosen_step"]
        k = steps.index(chosen)
    except (KeyError, TypeError, ValueError):
        return ""
    if k == 0:
        return ""
    return (f"reselect: step {chosen} kept, not step {steps[0]} (best first score {first[0]:.4f}, then "
            f"{second[0]:.4f}): of the {len(steps)} best steps ({_steps_words(steps)}), scored again on a fresh split, "
            f"it has the best mean of two scores ({first[k]:.4f}, {second[k]:.4f})")


def describe_point(space: Mapping[str, Any] | None, point: Mapping[str, Any]) -> str:
    """``point`` as text, with the names a result's recorded ``space`` gives its values (``op=3 (mul)``)."""
    try:
        known = MetaFeatureSpace.from_dict(space) if space else MetaFeatureSpace(())
    except (KeyError, TypeError, ValueError, ValidationError):  # a space edited by hand, or of another version
        known = MetaFeatureSpace(())
    return known.describe(point)

