#!/usr/bin/env bash
# The command-line cases of docs/reliability.md run as a user runs them (each in its own process):
# prints exit code, whether a traceback appeared, and the last line of stderr.  Usage: bash experiments/reliability/reliability_cases.sh
# (python -m metafx_cli is the `metafx` command's entry point; the third sweep's cases follow the earlier ones)
set -u
cd "$(mktemp -d)"
M="python -m metafx_cli"
S="$M search --steps 2 --n-train 200 --n-test 50 --budget 20 --no-progress"
# the study of s.db below, with one page zeroed
Z="$M search --engine optuna --study st --n-train 100 --n-test 0 --budget 20 --steps 2 --engine-param sampler=random --no-progress --storage"
printf '{"a": 1}\n' > unrelated.log; printf 'x' > trunc.json; : > empty.json; echo '[]' > list.json; echo '{"family": 3}' > typed.json
printf '[]\n' > h1.jsonl; printf '1\n' > h2.jsonl; printf '"x"\n' > h3.jsonl; printf '\xff\xfe\n' > h4.jsonl
mkfifo ff
python - <<'EOF'
import gzip, json, sqlite3, struct
from metafx.distributed import ProblemSpec, create_study
import metafx
X, y = metafx.load_dataset("digits")
r = metafx.search(X[:100], y[:100], budget=20, steps=2, progress=False)
r.metadata["data"] = {"name": "digits", "n_train": 100, "n_test": 10, "split_seed": 0}
d = json.loads(r.to_json()); d.pop("checksum")
for k, v in (("n_train", "abc"), ("n_test", None), ("split_seed", -1)):
    e = json.loads(json.dumps(d)); e["metadata"]["data"][k] = v; json.dump(e, open(f"data_{k}.json", "w"))
e = json.loads(json.dumps(d)); e["family_params"]["image_shape"] = [60000, 60000]; del e["metadata"]["data"]
json.dump(e, open("huge_shape.json", "w"))
with gzip.open("one-idx3-ubyte.gz", "wb") as fh:  # a 1 x 1 image announced, 64 MiB of body
    fh.write(struct.pack(">HBBIII", 0, 8, 3, 1, 1, 1)); [fh.write(bytes(1 << 20)) for _ in range(64)]
spec = ProblemSpec(data="digits", n_train=100, n_test=0, budget=20, steps=2, engine_params={"sampler": "random"})
create_study("sqlite:///s.db", "st", spec)
c = sqlite3.connect("s.db"); c.execute("pragma wal_checkpoint(TRUNCATE)"); c.close()
raw = open("s.db", "rb").read()
for k, v in (("steps", "x"), ("budget", "abc"), ("family_params", "abc"), ("data_params", [1, 2]), ("fixed", [1])):
    a, b = sqlite3.connect("s.db"), sqlite3.connect(f"spec_{k}.db"); a.backup(b); a.close()
    (val,), = b.execute("select value_json from study_user_attributes where key='metafx:spec'").fetchall()
    sp = json.loads(val); sp[k] = v
    b.execute("update study_user_attributes set value_json=? where key='metafx:spec'", (json.dumps(sp),))
    b.commit(); b.close()
for page in (1, 10):
    z = bytearray(raw); z[page * 4096:(page + 1) * 4096] = bytes(4096); open(f"zero{page}.db", "wb").write(z)
EOF
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
 "$M plot trunc.json"
 "$M plot empty.json"
 "$M plot list.json"
 "$M plot typed.json"
 "$M plot missing.json"
 "$M worker --storage nostudy.db --study x"
 "$M worker --storage nostudy.log --study x"
 "python -c \"from metafx.core.datafiles import read_idx; read_idx('trunc-idx3-ubyte.gz')\""
 "python -c \"from metafx.core.datafiles import read_idx; read_idx('bad-idx3-ubyte.gz')\""
 "$S --out ''"
 "$S --fix numInputs=true"
 "$S --fix numInputs='\"3\"'"
 "$S --budget 1e6 --n-train 1000 --n-test 797"
 "$S --steps 100000 --timeout 2"
 "$S --split-seed -1"
 "$S --engine optuna --engine-param 'sampler_params={\"n_startup_trials\": \"x\"}'"
 "$Z sqlite:///zero1.db"
 "$Z sqlite:///zero10.db"
 "$M plot ff"
 "$M plot /dev/zero"
 "$M plot huge_shape.json"
 "$M plot data_n_train.json"
 "$M plot data_n_test.json"
 "$M plot data_split_seed.json"
 "$M worker --storage sqlite:///spec_steps.db --study st"
 "$M worker --storage sqlite:///spec_budget.db --study st"
 "$M worker --storage sqlite:///spec_family_params.db --study st"
 "$M worker --storage sqlite:///spec_data_params.db --study st"
 "$M worker --storage sqlite:///spec_fixed.db --study st"
 "env NUMBA_NUM_THREADS=0 $M plugins"
 "env NUMBA_NUM_THREADS=0 python -c 'import metafx'"
 "python -c \"from metafx.core.datafiles import read_idx; read_idx('one-idx3-ubyte.gz')\""
 "python -c \"import metafx; X, y = metafx.load_dataset('digits'); metafx.search(X[:100], [1 if i % 2 else 'a' for i in range(100)], budget=20, steps=1, progress=False)\""
)
tb=0; hang=0
for c in "${cases[@]}"; do
  eval "timeout 120 $c" > out.txt 2> err.txt; rc=$?
  [ "$rc" = 124 ] && hang=$((hang+1))
  if grep -q Traceback err.txt; then
    if grep -q "metafx.core.exceptions" err.txt; then kind="MetafxError"; else kind="RAW"; tb=$((tb+1)); fi
  else kind="line"; fi
  printf '%-4s %-12s %s | %s\n' "$rc" "$kind" "${c#"$M" }" "$(grep -v '^data digits' err.txt | tail -1 | cut -c1-110)"
done
$M plugins --json | head -1 > /dev/null; echo "plugins|head rc=${PIPESTATUS[0]}"
ls nostudy.* 2>/dev/null && echo "LEFTOVER FILES" || echo "no leftover storage files"
cat unrelated.log
echo "raw tracebacks: $tb of ${#cases[@]}; hangs (killed after 120 s): $hang"
