"""The conformance suites of metafx.testing, run on the built-in components."""

from __future__ import annotations

import pytest

import metafx
from metafx.testing import (
    DatasetConformance,
    DescriberConformance,
    EngineConformance,
    EvaluatorConformance,
    FamilyConformance,
)


class TestPixelAnd(FamilyConformance):
    family = "pixel-and"


class TestPixels(FamilyConformance):
    family = "pixels"


class TestLocation(DescriberConformance):
    describer = "location"
    family = "pixel-and"


class TestLocationOnPixels(DescriberConformance):
    describer = "location"
    family = "pixels"


class TestRadius(DescriberConformance):
    describer = "r"
    family = "pixel-and"


class TestCVLinearSVM(EvaluatorConformance):
    evaluator = "cv-linear-svm"


class TestMufasa(EngineConformance):
    engine = "mufasa"


# per-feature scorers and selectors (regression scorers get a real-valued target)
class TestInfogain(EvaluatorConformance):
    evaluator = "infogain"


class TestRelief(EvaluatorConformance):
    evaluator = "relief"


class TestReliefF(EvaluatorConformance):
    evaluator = "relief-f"


class TestSimba(EvaluatorConformance):
    evaluator = "simba"


class TestCorrcoef(EvaluatorConformance):
    evaluator = "corrcoef"


class TestRGS(EvaluatorConformance):
    evaluator = "rgs"


class TestTopN(EvaluatorConformance):
    evaluator = "top-n"


class TestDigits(DatasetConformance):
    dataset = "digits"


class TestMnist(DatasetConformance):
    dataset = "mnist"

    @pytest.fixture
    def ds(self, mnist_path):  # skipped when the MNIST files are absent
        return metafx.make_component("dataset", "mnist", {"data_dir": str(mnist_path)})
