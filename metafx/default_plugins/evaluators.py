"""Built-in quality evaluators: per-feature scorers, set evaluators and selectors.

See ``docs/evaluators.md`` for each one and the reading of the source texts it implements.
"""

from __future__ import annotations

from ..hooks.spec import hookimpl
from . import regression_scorers, scorers, selectors, set_evaluators


@hookimpl
def metafx_register_evaluators(register):
    for cls in (
        scorers.Infogain,
        scorers.Relief,
        scorers.ReliefF,
        scorers.Simba,
        regression_scorers.Corrcoef,
        regression_scorers.RGS,
        regression_scorers.SKS,
        scorers.R2W2,
        selectors.TopN,
        selectors.GFlip,
        selectors.GFlipStable,
        set_evaluators.CVNearestNeighbor,
        set_evaluators.CVCondensed1NN,
        set_evaluators.CVAdaptiveNN,
        set_evaluators.CVPotential,
        set_evaluators.LOO1NN,
        set_evaluators.MarginEvaluator,
        set_evaluators.PotentialMargin,
    ):
        register(cls)
