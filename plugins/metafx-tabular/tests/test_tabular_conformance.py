"""The plugin's components pass metafx's conformance suites (the same ones the built-ins run)."""

from __future__ import annotations

from typing import Any, ClassVar

from metafx.testing import DescriberConformance, EvaluatorConformance, FamilyConformance


class TestTabularFamily(FamilyConformance):
    family = "tabular"


class TestTabularFamilyWithTags(FamilyConformance):
    family = "tabular"
    family_params: ClassVar[dict[str, Any]] = {"column_tags": ["size", "size", "shape", None, "shape", "size"], "max_depth": 3}


class TestTabularFamilyUnaryOnly(FamilyConformance):
    family = "tabular"
    family_params: ClassVar[dict[str, Any]] = {"operators": ["log", "square", "threshold"]}


class TestOperatorCounts(DescriberConformance):
    describer = "tabular-ops"
    family = "tabular"


class TestInputColumns(DescriberConformance):
    describer = "tabular-inputs"
    family = "tabular"
    family_params: ClassVar[dict[str, Any]] = {"column_tags": {0: "a", 1: "b", 2: "a"}}


class TestCVLinearClassification(EvaluatorConformance):
    evaluator = "cv-linear"
    task = "classification"


class TestCVLinearRegression(EvaluatorConformance):
    evaluator = "cv-linear"
    task = "regression"
