"""The conformance suites of metafx.testing, run on the built-in components."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest

import metafx
import metafx.plugin
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
    kind = "set-evaluator"


class TestMufasa(EngineConformance):
    engine = "mufasa"


# per-feature scorers and selectors (regression scorers get a real-valued target)
class TestInfogain(EvaluatorConformance):
    evaluator = "infogain"
    kind = "scorer"


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
        return metafx.plugin.make_component("dataset", "mnist", {"data_dir": str(mnist_path)})


# wrapper selectors and baselines (wrappers.py, scorers.py, selectors.py)
class TestForward(EvaluatorConformance):
    evaluator = "forward"


class TestForwardSoftKNN(EvaluatorConformance):
    evaluator = "forward"
    evaluator_params: ClassVar[dict[str, Any]] = {"criterion": "soft-knn", "n_features_to_select": 3, "beta": 0.5}
    task = "regression"


class TestBackward(EvaluatorConformance):
    evaluator = "backward"


class TestSKS(EvaluatorConformance):
    evaluator = "sks"
    # 0/1 columns: every same-valued instance is a nearest neighbour, so k must average enough of them
    evaluator_params: ClassVar[dict[str, Any]] = {"k": 40, "beta": 0.5}


class TestR2W2(EvaluatorConformance):
    evaluator = "r2w2"
    evaluator_params: ClassVar[dict[str, Any]] = {"n_iter": 5}

    def make_data(self):
        from metafx.testing.search_conformance import _informative

        X, y, n_inf = _informative("classification")
        keep = y < 2  # R2W2 is defined for two classes; column 2 (class 2 against the rest) becomes noise
        return X[keep], y[keep], n_inf - 1


class TestReliefFK(EvaluatorConformance):
    evaluator = "relief-f"
    evaluator_params: ClassVar[dict[str, Any]] = {"n_neighbors": 5}


class TestGFlipStable(EvaluatorConformance):
    evaluator = "gflip-stable"
    evaluator_params: ClassVar[dict[str, Any]] = {"n_subsamples": 4}
