#!/bin/sh
# The runs behind docs/results/bounds.md, from the repository's root with metafx installed (and statsmodels for
# anes96 and fair); each writes its records into experiments/bounds/, which `python experiments/records.py pack
# bounds` folds into experiments/bounds/records.tar.xz.
set -e
OUT=experiments/bounds
export NUMBA_NUM_THREADS=1 OMP_NUM_THREADS=1
python examples/potential_theorem3_mc.py > $OUT/theorem3_mc.txt
python examples/potential_h_criterion.py --statsmodels --out $OUT/potential_h > $OUT/potential_h.txt
python examples/potential_h_criterion.py --statsmodels --potentials raw --scaling none --out $OUT/potential_h_raw \
    > $OUT/potential_h_raw.txt
python examples/sample_compression.py --statsmodels --out $OUT/sample_compression > $OUT/sample_compression.txt
