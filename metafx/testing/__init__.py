"""The plugin author's kit: conformance test suites for metafx components.

Import this only from tests (it needs pytest).  See :mod:`metafx.testing.conformance`
and ``docs/plugins.md``.
"""

from __future__ import annotations

from .conformance import (
    DatasetConformance,
    DescriberConformance,
    EngineConformance,
    EvaluatorConformance,
    FamilyConformance,
    synthetic_data,
)

__all__ = [
    "FamilyConformance",
    "DescriberConformance",
    "EvaluatorConformance",
    "EngineConformance",
    "DatasetConformance",
    "synthetic_data",
]
