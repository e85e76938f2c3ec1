"""The plugin author's kit: conformance test suites for metafx components.

Import this only from tests (it needs pytest).  See :mod:`metafx.testing.conformance`
(families, describers), :mod:`metafx.testing.search_conformance` (evaluators, engines, datasets) and
``docs/plugins.md``.
"""

from __future__ import annotations

import pytest

# a failing check in a plugin's test run shows the values compared, not a bare AssertionError
pytest.register_assert_rewrite("metafx.testing.conformance", "metafx.testing.search_conformance",
    "metafx.testing.export_check")

from .conformance import DescriberConformance, FamilyConformance, check_declared_params, synthetic_data  # noqa: E402
from .export_check import SpeedReport, check_export, check_family_speed  # noqa: E402
from .search_conformance import DatasetConformance, EngineConformance, EvaluatorConformance  # noqa: E402

__all__ = [
    "DatasetConformance",
    "DescriberConformance",
    "EngineConformance",
    "EvaluatorConformance",
    "FamilyConformance",
    "SpeedReport",
    "check_declared_params",
    "check_export",
    "check_family_speed",
    "synthetic_data",
]
