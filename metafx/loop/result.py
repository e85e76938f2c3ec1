"""The result of a search: best point, its features, the trajectory; JSON in and out."""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np

from ..core.exceptions import MetafxError, ValidationError
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
        """A family instance able to compute ``features`` (from the registry)."""
        cls = get_registry().get("family", self.family)
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
