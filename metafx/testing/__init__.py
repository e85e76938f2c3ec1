"""The plugin author's kit: conformance test suites for metafx components.

Import this only from tests (it needs pytest).  See :mod:`metafx.testing.conformance`
and ``docs/plugins.md``.
"""

from __future__ import annotations

import pytest

# a failing check in a plugin's test run shows the values compared, not a bare AssertionError
pytest.register_assert_rewrite("metafx.testing.conformance")

from .conformance import (  # noqa: E402
    DatasetConformance,
    DescriberConformance,
    EngineConformance,
    EvaluatorConformance,
    FamilyConformance,
    check_declared_params,
    synthetic_data,
)

__all__ = [
    "FamilyConformance",
    "DescriberConformance",
    "EvaluatorConformance",
    "EngineConformance",
    "DatasetConformance",
    "synthetic_data",
    "check_declared_params",
]
