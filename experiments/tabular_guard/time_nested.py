"""The timing run of RULE_nested.md (its K chosen from it): TableExtractor fit seconds with confirm="holdout" and
confirm="nested" (K = 3; K = 5 linear only) on dev table SwissLabor's outer fold 0 training rows, one process; prints
fit seconds only (no result), so the rule was written without seeing any.

    python experiments/tabular_guard/time_nested.py > experiments/tabular_guard/timing_nested.log
"""
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_guard import load_dev
from sklearn.model_selection import StratifiedKFold

from metafx_tabular import TableExtractor

warnings.simplefilter("ignore")
X, y = load_dev("AER", "SwissLabor", "participation", "class", 2500)
tr, te = next(StratifiedKFold(n_splits=3, shuffle=True, random_state=0).split(np.zeros((len(y), 1)), y))
Xtr = X.iloc[tr].reset_index(drop=True)
for m in ("linear", "trees"):
    for conf, k in (("holdout", 3), ("nested", 3)) + ((("nested", 5),) if m == "linear" else ()):
        t0 = time.perf_counter()
        TableExtractor(model=m, seed=0, confirm=conf, confirm_folds=k).fit(Xtr, y[tr])
        print(m, conf, k, f"{time.perf_counter() - t0:.1f}s", flush=True)
