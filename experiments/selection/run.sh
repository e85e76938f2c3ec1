#!/bin/sh
# The runs behind section 2 of docs/results/selection.md (chapter 4's synthetic regression), from the repository's
# root with metafx installed; `python experiments/records.py pack selection` folds what they write into
# experiments/selection/records.tar.xz.
set -e
OUT=experiments/selection
export NUMBA_NUM_THREADS=1 OMP_NUM_THREADS=1
python examples/regression_selection.py --out $OUT/regression --repeats 100 > $OUT/regression.txt
python examples/regression_selection.py --out $OUT/regression_rgs_k5_e1 --methods rgs --rgs-k 5 --rgs-epochs 1 \
    > $OUT/regression_rgs_k5_e1.txt
python examples/regression_selection.py --out $OUT/regression_rgs_k50_e1 --methods rgs --rgs-k 50 --rgs-epochs 1 \
    > $OUT/regression_rgs_k50_e1.txt
