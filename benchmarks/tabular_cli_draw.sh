#!/bin/bash
# `metafx search --data table.csv --target y --family tabular` on scikit-learn's breast-cancer table (569 rows),
# with the tabular plugin as it was at git revision REV (default f4db1ac) and as it is, alternately, in one run:
# prints each run's wall time and the search's own "time:" line (draw, compute, evaluate).
#     bash benchmarks/tabular_cli_draw.sh [REV]
set -e
rev=${1:-f4db1ac}
repo=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
python -c "
from sklearn.datasets import load_breast_cancer
d = load_breast_cancer(as_frame=True)
d.frame.rename(columns={'target': 'y'}).to_csv('$tmp/breast_cancer.csv', index=False)"
mkdir -p "$tmp/before"
git -C "$repo" archive "$rev" plugins/metafx-tabular/metafx_tabular | tar -x -C "$tmp/before"
echo "# bash benchmarks/tabular_cli_draw.sh $rev; commit $(git -C "$repo" rev-parse --short HEAD)"
for arm in before after after before; do
  if [ "$arm" = before ]; then pp="$tmp/before/plugins/metafx-tabular"; else pp=""; fi
  t0=$(date +%s.%N)
  line=$(PYTHONPATH="$pp" metafx search --data "$tmp/breast_cancer.csv" --target y --family tabular \
         --out "$tmp/$arm.json" 2>&1 | grep "^time:")
  t1=$(date +%s.%N)
  echo "$arm: wall $(python -c "print(f'{$t1 - $t0:.1f}')") s; $line"
done
rm -rf "$tmp"
