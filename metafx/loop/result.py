"""The result of a search: best point, its features, the trajectory; JSON in and out."""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np

from ..core.base import FeatureScorer
from ..core.exceptions import MetafxError, UnknownComponentError, ValidationError
from ..core.values import StepRecord
from ..hooks.manager import get_registry
from ..learn import bounds

__all__ = ["SearchResult", "FORMAT_VERSION"]

FORMAT_VERSION = 1


@dataclass
class SearchResult:
    """What a search returns: the best point, its features, and the trajectory.

    ``features`` is a list of JSON-able feature specifications of ``family``
    (for ``pixel-and``: ``{"family": "pixel-and", "inputs": [[row, col, negated], ...],
    "shift": a}``).  ``transform(X)`` computes them on new data.
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
    test_error: float | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    # ---------------------------------------------------------------- features
    @property
    def n_features(self) -> int:
        return len(self.features)

    def get_family(self):
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

    def feature_batch(self):
        """``features`` as the family's internal batch object."""
        cached = self.__dict__.get("_batch_cache")
        if cached is None or cached[0] is not self.features:
            fam = self.get_family()
            cached = (self.features, fam, fam.from_json(self.features))
            self.__dict__["_batch_cache"] = cached
        return cached[1], cached[2]

    def transform(self, X: np.ndarray) -> np.ndarray:
        """Compute the chosen features on ``X``: an ``(n_samples, n_features)`` 0/1 array."""
        family, batch = self.feature_batch()
        return family.transform(X, batch)

    def feature_names(self) -> list[str]:
        family, batch = self.feature_batch()
        return family.feature_names(batch)

    @property
    def qualities(self) -> np.ndarray:
        return np.array([r.quality for r in self.trajectory])

    # ---------------------------------------------------------------- JSON
    def to_dict(self) -> dict[str, Any]:
        d = {k: getattr(self, k) for k in self.__dataclass_fields__}
        d["trajectory"] = [r.to_dict() for r in self.trajectory]
        d["format_version"] = FORMAT_VERSION
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> SearchResult:
        d = dict(d)
        version = d.pop("format_version", FORMAT_VERSION)
        if version != FORMAT_VERSION:
            raise ValidationError(f"result format_version={version!r}; this metafx reads {FORMAT_VERSION}")
        d["trajectory"] = [StepRecord.from_dict(r) for r in d["trajectory"]]
        known = set(cls.__dataclass_fields__)
        extra = set(d) - known
        if extra:
            raise ValidationError(f"unknown fields in result JSON: {sorted(extra)}")
        return cls(**d)

    def to_json(self, path: str | os.PathLike[str] | None = None, indent: int | None = 1) -> str:
        """Write the result as JSON to ``path`` (and return the text)."""
        text = json.dumps(self.to_dict(), indent=indent, allow_nan=True)
        if path is not None:
            tmp = f"{os.fspath(path)}.tmp"
            with open(tmp, "w", encoding="utf-8") as fh:
                fh.write(text)
            os.replace(tmp, path)
        return text

    @classmethod
    def from_json(cls, path_or_text: str | os.PathLike[str]) -> SearchResult:
        """Read a result written by :meth:`to_json` (a path, or the JSON text)."""
        s = os.fspath(path_or_text)
        if s.lstrip().startswith("{"):
            data = json.loads(s)
        else:
            try:
                with open(s, encoding="utf-8") as fh:
                    data = json.load(fh)
            except FileNotFoundError:
                raise ValidationError(f"result file {s!r} does not exist") from None
        return cls.from_dict(data)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SearchResult):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    def __repr__(self) -> str:
        """One line: what was searched and what was found (``summary()`` has more)."""
        test = "" if self.test_error is None else f", test_error={100 * self.test_error:.2f}%"
        return (f"SearchResult(engine={self.engine!r}, family={self.family!r}, evaluator={self.evaluator!r}, "
                f"budget={self.budget:g}, steps={len(self.trajectory)}, best_quality={self.best_quality:.4g} "
                f"at step {self.best_step}, n_features={self.n_features}, total_cost={self.total_cost:g}{test})")

    # ---------------------------------------------------------------- tables
    def trajectory_frame(self):
        """The trajectory as a pandas DataFrame, one row per step (as optuna's ``trials_dataframe``).

        Columns: ``step``, ``quality``, ``best_quality`` (best so far),
        ``accepted``, ``n_features``, ``cost`` (of the step's feature set),
        ``seconds``, one ``point_<name>`` column per meta-feature and
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
                                   "seconds": r.seconds}
            row.update({f"point_{k}": v for k, v in r.point.items()})
            row.update({f"seconds_{k}": v for k, v in (r.timings or {}).items()})
            rows.append(row)
        cols = ["step", "quality", "best_quality", "accepted", "n_features", "cost", "seconds"]
        return pd.DataFrame(rows, columns=cols + [c for c in (rows[0] if rows else {}) if c not in cols])

    def feature_table(self, X: Any = None, y: Any = None, *, scorer: str = "infogain"):
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
            cls = get_registry().get("evaluator", scorer)
            if not issubclass(cls, FeatureScorer):
                raise ValidationError(f"scorer={scorer!r} is not a per-feature scorer; registered: "
                                      f"{', '.join(n for n in get_registry().names('evaluator') if issubclass(get_registry().get('evaluator', n), FeatureScorer))}")
            values = self.transform(X)
            y = np.asarray(y)
            if y.shape[0] != values.shape[0]:
                raise ValidationError(f"y has {y.shape[0]} labels but X has {values.shape[0]} samples")
            table[scorer] = np.asarray(cls.create().score(values, y), dtype=np.float64) if len(batch) else []
            table = table.sort_values(scorer, ascending=False, kind="stable")
        return table

    def summary(self) -> str:
        pt = ", ".join(f"{k}={v:.3g}" if isinstance(v, float) else f"{k}={v}" for k, v in self.best_point.items())
        lines = [
            f"engine {self.engine}, family {self.family}, evaluator {self.evaluator}, budget {self.budget:g}",
            f"best point: {pt} (step {self.best_step})",
            f"best quality: {self.best_quality:.4f}",
            f"features: {self.n_features}, total cost {self.total_cost:g}",
        ]
        if self.test_error is not None:
            lines.append(f"test error: {100 * self.test_error:.2f} %")
        return "\n".join(lines)

    def _bound_does_not_apply(self) -> str:
        """Why Theorem 5.1's count of hypotheses does not cover this search ('' when it does)."""
        oversample = float(self.metadata.get("oversample", 1.0) or 1.0)
        if oversample > 1:
            return (f"oversample={oversample:g} prunes each step's draw by a score measured on the training data, "
                    "so the data steer the search inside a step, beyond accepting or rejecting its point")
        if self.engine not in ("mufasa", "random"):
            return (f"engine {self.engine!r} chooses its points from the data (a model of quality, or a ranked pool), "
                    "not only by accepting or rejecting one point per step")
        if self.engine == "random" and self.metadata.get("mode") == "feature":
            return "engine 'random' in mode 'feature' has no meta-feature point per step"
        return ""

    def bound(self, delta: float = 0.05, gamma: float = 1.0, *, train_error: float | None = None,
              fat_d: float | None = None, steps: int | None = None, space_size: float | None = None):
        """Thesis Theorem 5.1 for this search (see :func:`metafx.bounds.mufasa_bound`).

        The theorem counts the feature sets a search can return through the
        data's only influence on it: accepting or rejecting the point of each
        step.  So it applies to ``mufasa`` (``(c + 1)^J`` outcomes with
        ``n_candidates = c``) and to ``random`` (one point per step), with the
        plain drawing (``oversample = 1``).  It does not apply, and this method
        raises :class:`~metafx.MetafxError` saying why, when the data steer the
        search otherwise: pruning inside a step (``oversample > 1``), a
        model-based proposer (``optuna``) or a data-ranked pool (``ranked``).

        Uses ``m = n_samples``, ``J = len(trajectory)`` and
        ``|MF| = metadata["space_size"]`` (``inf`` for a continuous space);
        each can be overridden.  ``fat_d`` defaults to ``n_features + 1``, the
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
        >>> res = metafx.search(X[:300], y[:300], budget=20, steps=3, seed=0, progress=False)
        >>> b = res.bound(delta=0.05, gamma=1.0)
        >>> b.terms["g(J)"] == 3 * math.log(2)
        True
        """
        why = self._bound_does_not_apply()
        if why:
            raise MetafxError(f"Theorem 5.1 does not apply to this search: {why}")
        c = int(self.metadata.get("n_candidates", 1)) if self.engine == "mufasa" else 1
        J = len(self.trajectory) if steps is None else steps
        mf = space_size if space_size is not None else self.metadata.get("space_size")
        mf = math.inf if mf is None or (isinstance(mf, float) and math.isnan(mf)) else float(mf)
        d = self.n_features + 1 if fat_d is None else fat_d
        b = bounds.mufasa_bound(self.n_samples, gamma, delta, d, J, mf, train_error=train_error, n_candidates=c)
        n = max(self.n_features, 1)
        b.terms["direct n ln(n 2^J)"] = n * (math.log(n) + J * math.log(2.0))
        return b


def _pandas(what: str):
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
    """Which plugin and distribution provided each ``kind -> name`` (stored in ``metadata["plugins"]``)."""
    out: dict[str, dict[str, Any]] = {}
    for kind, name in components.items():
        if (kind, name) in registry:
            reg = registry.registration(kind, name)
            dist = reg.distribution or ("metafx" if reg.plugin.startswith("metafx.builtin") else None)
            out[kind] = {"name": name, "plugin": reg.plugin, "distribution": dist}
    return out
