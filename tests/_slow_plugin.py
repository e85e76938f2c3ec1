"""A test plugin: ``slow-cv-linear-svm``, the ``cv-linear-svm`` evaluator made slower
(``METAFX_TEST_SLOW`` seconds per evaluation) so that several search workers
overlap in time."""

from __future__ import annotations

import os
import time

import metafx
import metafx.plugin
from metafx.default_plugins.svm_evaluator import CVLinearSVM


class SlowSVM(CVLinearSVM):
    name = "slow-cv-linear-svm"
    summary = "cv-linear-svm, slowed down (tests)"

    def evaluate(self, X, y, *, random_state=None):
        time.sleep(float(os.environ.get("METAFX_TEST_SLOW", "0.2")))
        return super().evaluate(X, y, random_state=random_state)


@metafx.plugin.hookimpl
def metafx_register_evaluators(register):
    register(SlowSVM)
