#!/usr/bin/env bash
# The declared lower bounds are true: install exactly the minimum version of every dependency that
# pyproject.toml bounds from below (into a fresh virtual environment) and run the fast tests.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${METAFX_MIN_VENV:-/tmp/metafx-min-venv}
rm -rf "$VENV"
python3 -m venv "$VENV"
# shellcheck disable=SC1091
source "$VENV/bin/activate"
python -m pip install -q --upgrade pip
python - > "$VENV/min-constraints.txt" <<'PY'
import re, tomllib
deps = tomllib.load(open("pyproject.toml", "rb"))["project"]["dependencies"]
for d in deps:
    m = re.match(r"^([A-Za-z0-9_.\-]+)\s*>=\s*([0-9][^,;\s]*)", d)
    if m:
        print(f"{m.group(1)}=={m.group(2)}")
PY
echo "min_versions.sh: $(tr '\n' ' ' < "$VENV/min-constraints.txt")"
pip install -q -c "$VENV/min-constraints.txt" -e . "pytest>=7"
python -m pip list --format=freeze | grep -iE "^(numpy|numba|scipy|scikit-learn|pluggy|optuna|tqdm|matplotlib|joblib|filelock)=="
# the fast tests that exercise every dependency: kernels (numba, numpy), evaluators (scikit-learn, scipy),
# the search loop and every engine (optuna, joblib, filelock), results and plots (matplotlib)
python -m pytest -q -p no:cacheprovider tests/test_kernels.py tests/test_search.py tests/test_saved_results.py \
    tests/test_engines.py tests/test_resume.py tests/test_sklearn.py tests/test_categorical.py tests/test_plot.py \
    -k "not sigkill"
