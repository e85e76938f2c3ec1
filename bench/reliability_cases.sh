#!/usr/bin/env bash
# The command-line cases of docs/reliability.md run as a user runs them (each in its own process):
# prints exit code, whether a traceback appeared, and the last line of stderr.  Usage: bash bench/reliability_cases.sh
set -u
cd "$(mktemp -d)"
S="python -m metafx.cli search --steps 2 --n-train 200 --n-test 50 --budget 20 --no-progress"
printf '{"a": 1}\n' > unrelated.log; printf 'x' > trunc.json; : > empty.json; echo '[]' > list.json; echo '{"family": 3}' > typed.json
printf '[]\n' > h1.jsonl; printf '1\n' > h2.jsonl; printf '"x"\n' > h3.jsonl; printf '\xff\xfe\n' > h4.jsonl
python -c "import gzip; open('trunc-idx3-ubyte.gz','wb').write(gzip.compress(b'\x00\x00\x08\x03'+b'\x00'*40)[:-5]); open('bad-idx3-ubyte.gz','wb').write(b'notgzip')"
cases=(
 "$S --seed 4294967296"
 "$S --seed 9223372036854775808"
 "$S --budget 1e12"
 "$S --budget 1e9"
 "$S --n-train 1000 --n-test 797 --budget 1e7"
 "$S --engine-param start=abc"
 "$S --evaluator-param C=[1]"
 "$S --storage /tmp"
 "$S --fix shiftInvLen=8"
 "$S --family-param window=[5,2,0,7]"
 "$S --family-param window=[0,9,0,7]"
 "$S --out /nonexistent/r.json"
 "$S --out /tmp"
 "$S --storage j.jsonl --out j.jsonl"
 "$S --engine optuna --storage s.db --out s.db"
 "$S --engine optuna --storage unrelated.log"
 "$S --storage h1.jsonl"
 "$S --storage h2.jsonl"
 "$S --storage h3.jsonl"
 "$S --storage h4.jsonl"
 "python -m metafx.cli plot trunc.json"
 "python -m metafx.cli plot empty.json"
 "python -m metafx.cli plot list.json"
 "python -m metafx.cli plot typed.json"
 "python -m metafx.cli plot missing.json"
 "python -m metafx.cli worker --storage nostudy.db --study x"
 "python -m metafx.cli worker --storage nostudy.log --study x"
 "python -c \"from metafx.core.datafiles import read_idx; read_idx('trunc-idx3-ubyte.gz')\""
 "python -c \"from metafx.core.datafiles import read_idx; read_idx('bad-idx3-ubyte.gz')\""
)
tb=0
for c in "${cases[@]}"; do
  eval "timeout 120 $c" > out.txt 2> err.txt; rc=$?
  if grep -q Traceback err.txt; then
    if grep -q "metafx.core.exceptions" err.txt; then kind="MetafxError"; else kind="RAW"; tb=$((tb+1)); fi
  else kind="line"; fi
  printf '%-4s %-12s %s | %s\n' "$rc" "$kind" "${c#python -m metafx.cli }" "$(grep -v '^data digits' err.txt | tail -1 | cut -c1-110)"
done
python -m metafx.cli plugins --json | head -1 > /dev/null; echo "plugins|head rc=${PIPESTATUS[0]}"
ls nostudy.* 2>/dev/null && echo "LEFTOVER FILES" || echo "no leftover storage files"
cat unrelated.log
echo "raw tracebacks: $tb of ${#cases[@]}"
