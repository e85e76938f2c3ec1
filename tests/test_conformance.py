"""The conformance suites of metafx.testing, run on the built-in components."""

from __future__ import annotations

from metafx.testing import DescriberConformance, EngineConformance, EvaluatorConformance, FamilyConformance


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
