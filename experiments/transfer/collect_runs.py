"""Gather the target runs of ``examples/transfer_search.py`` (``<runs>/<ARM>_s<seed>/runs.jsonl``) for several
seeds into one record file, as ``records/*/<ARM>.json`` are stored.

    python experiments/transfer/collect_runs.py --runs runs --arm K4 --seeds 108 109 110 111 112 113 114 115 \
        --commit 0389d2b --command "python examples/transfer_search.py ..." --out records/prior_portfolio_dev/K4.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # experiments/records.py
import records


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", required=True, help="folder holding <ARM>_s<seed>/runs.jsonl")
    ap.add_argument("--arm", required=True)
    ap.add_argument("--seeds", type=int, nargs="+", required=True)
    ap.add_argument("--commit", required=True)
    ap.add_argument("--command", required=True)
    ap.add_argument("--note", default="")
    ap.add_argument("--out", required=True)
    a = ap.parse_args(argv)
    runs = {}
    for s in a.seeds:
        path = Path(a.runs) / f"{a.arm}_s{s}" / "runs.jsonl"
        rows = [json.loads(line) for line in records.read_text(path).splitlines() if line.strip()]
        runs[str(s)] = [r for r in rows if "target" in r]
        if len(runs[str(s)]) != 40:
            raise SystemExit(f"{path}: {len(runs[str(s)])} target runs, expected 40 (5 targets x 2 arms x 4 J)")
    rec = {"arm": a.arm, "seeds": a.seeds, "engine": "guided", "budget": 200, "commit": a.commit,
           "command": a.command, "note": a.note, "runs": runs}
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(json.dumps(rec, indent=1) + "\n")


if __name__ == "__main__":
    main()
