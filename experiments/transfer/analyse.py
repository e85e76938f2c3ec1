"""The transfer protocol with the default engine (``guided``): three arms, the rule's decision, issue 31's criteria.

Reads the records ``experiments/transfer/records/guided_{points,trajectories}_s<seed>.json`` (each the runs of
``examples/transfer_search.py --engine guided --seed <seed>`` with the command and commit that made them; the
*cold* arm is in both, the same runs) and prints the tables of ``docs/results/transfer.md``; ``--json PATH``
also writes the numbers.  The rule: ``experiments/transfer/RULE.md``.

    python experiments/transfer/analyse.py
    python experiments/transfer/analyse.py --seeds 0 1 2 3 4 5 6 7       # the seeds the rule decides on
    python experiments/transfer/analyse.py --collect /tmp/runs --seeds 8 9   # store new records first
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # experiments/records.py
import records

HERE = Path(__file__).resolve().parent
RECORDS = HERE / "records"
JS = (5, 10, 20, 50)
ARMS = ("cold", "points", "trajectories")


def collect(root: Path, seeds: list[int], commits: dict[str, str]) -> None:
    """Store ``<root>/points_s<seed>`` and ``<root>/prior_s<seed>`` (their ``runs.jsonl``) as records."""
    RECORDS.mkdir(exist_ok=True)
    for arm, folder in (("points", "points"), ("trajectories", "prior")):
        for s in seeds:
            runs = [json.loads(line) for line in records.read_text(root / f"{folder}_s{s}" / "runs.jsonl").splitlines()]
            cmd = f"python examples/transfer_search.py --engine guided --seed {s} --out runs/{folder}_s{s}"
            note = ("cold arm and source searches: this commit's run (the trajectories arm reuses them: its "
                    "records of them are copies, the code of both commits computes them alike)")
            rec = {"arm": arm, "seed": s, "engine": "guided", "budget": 200, "commit": commits[arm],
                   "command": f"NUMBA_NUM_THREADS=1 {cmd}", "note": note if arm == "points" else
                   "source searches and cold arm copied from the points record of this seed (commit "
                   f"{commits['points']}), warm arm computed at commit {commits[arm]}", "runs": runs}
            (RECORDS / f"guided_{arm}_s{s}.json").write_text(json.dumps(rec, indent=0) + "\n")


def per_seed(field: str = "test_error", seeds: list[int] | None = None) -> dict[int, dict[tuple[str, int], float]]:
    """Per seed (all recorded, or ``seeds``): (arm, J) -> mean over the seed's targets of ``field`` (test error
    in %, or CV ``quality``)."""
    scale = 100 if field == "test_error" else 1
    out: dict[int, dict[tuple[str, int], float]] = {}
    for path in sorted(records.glob(RECORDS, "guided_trajectories_s*.json")):
        traj = json.loads(records.read_text(path))
        if seeds is not None and int(traj["seed"]) not in seeds:
            continue
        pts = json.loads(records.read_text(RECORDS / f"guided_points_s{traj['seed']}.json"))
        row: dict[tuple[str, int], float] = {}
        for arm, rec, key in (("cold", pts, "cold"), ("points", pts, "warm"), ("trajectories", traj, "warm")):
            for J in JS:
                errs = [r[field] for r in rec["runs"] if r.get("arm") == key and r.get("J") == J]
                assert len(errs) == 5, (path, arm, J, len(errs))
                row[(arm, J)] = scale * float(np.mean(errs))
        out[int(traj["seed"])] = row
    return out


def summarize(seeds: list[int] | None = None) -> dict:
    """The tables, the rule's decision and the issue's criteria over ``seeds`` (default: every recorded seed)."""
    data = per_seed(seeds=seeds)
    seeds = sorted(data)
    n = len(seeds)
    table = {f"{arm} J={J}": {"mean": float(np.mean([data[s][(arm, J)] for s in seeds])),
                              "std": float(np.std([data[s][(arm, J)] for s in seeds], ddof=1)),
                              "per_seed": [round(data[s][(arm, J)], 4) for s in seeds]}
             for arm in ARMS for J in JS}
    qual = per_seed("quality", seeds)
    quality = {f"{arm} J={J}": {"mean": float(np.mean([qual[s][(arm, J)] for s in seeds])),
                                "std": float(np.std([qual[s][(arm, J)] for s in seeds], ddof=1))}
               for arm in ARMS for J in JS}
    d = np.array([np.mean([data[s][("trajectories", J)] - data[s][("points", J)] for J in JS]) for s in seeds])
    se = float(d.std(ddof=1) / math.sqrt(n))
    decision = {"d_per_seed": [round(float(v), 4) for v in d], "mean_d": float(d.mean()), "se": se,
                "negative_seeds": int((d < 0).sum()), "seeds": n,
                "adopted": bool(d.mean() < 0 and (d < 0).sum() >= 5),
                "beyond_noise": bool(abs(d.mean()) > 2 * se)}
    criteria = {}
    for arm in ("points", "trajectories"):
        w10 = np.array([data[s][(arm, 10)] for s in seeds])
        c50 = np.array([data[s][("cold", 50)] for s in seeds])
        diff = w10 - c50
        every = {}
        for J in JS:
            dj = np.array([data[s][(arm, J)] - data[s][("cold", J)] for s in seeds])
            every[J] = {"mean": float(dj.mean()), "se": float(dj.std(ddof=1) / math.sqrt(n)),
                        "seeds_below": int((dj < 0).sum())}
        criteria[arm] = {"warm10_minus_cold50": float(diff.mean()), "se": float(diff.std(ddof=1) / math.sqrt(n)),
                         "seeds_at_most": int((diff <= 0).sum()), "warm_minus_cold": every,
                         "warm10_le_cold50": bool(diff.mean() <= 0),
                         "warm_below_cold_every_J": all(v["mean"] < 0 for v in every.values())}
    return {"seeds": seeds, "table": table, "quality": quality, "decision": decision, "criteria": criteria}


def markdown(s: dict) -> str:
    t, q = s["table"], s["quality"]
    lines = ["| J | no warm start | best points only | trajectories | CV quality: none / points / trajectories |",
             "|---|---|---|---|---|"]
    for J in JS:
        cells = [f"{t[f'{a} J={J}']['mean']:.2f} ± {t[f'{a} J={J}']['std']:.2f}" for a in ARMS]
        quals = " / ".join(f"{q[f'{a} J={J}']['mean']:.4f}" for a in ARMS)
        lines.append(f"| J = {J} | " + " | ".join(cells) + f" | {quals} |")
    lines += ["", "| J, arm | per seed " + ", ".join(map(str, s["seeds"])) + " |", "|---|---|"]
    for J in JS:
        for a in ARMS:
            lines.append(f"| {J}, {a} | " + ", ".join(f"{v:.2f}" for v in t[f"{a} J={J}"]["per_seed"]) + " |")
    dec = s["decision"]
    lines += ["", f"Rule: d_s (trajectories - points, mean over J) = {', '.join(f'{v:+.2f}' for v in dec['d_per_seed'])};"
              f" mean {dec['mean_d']:+.3f} ± {dec['se']:.3f} (SE); negative on {dec['negative_seeds']} of "
              f"{dec['seeds']} seeds: {'adopted' if dec['adopted'] else 'not adopted'}"
              f" ({'beyond' if dec['beyond_noise'] else 'within'} twice the SE)."]
    for arm, c in s["criteria"].items():
        every = "; ".join(f"J={J}: {v['mean']:+.2f} ± {v['se']:.2f}, lower on {v['seeds_below']}/{dec['seeds']}"
                          for J, v in c["warm_minus_cold"].items())
        lines.append(f"{arm}: warm J=10 - cold J=50 = {c['warm10_minus_cold50']:+.2f} ± {c['se']:.2f} (at most on "
                     f"{c['seeds_at_most']}/{dec['seeds']} seeds); warm - cold: {every}")
    return "\n".join(lines) + "\n"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--collect", type=Path, help="folder holding points_s<seed> and prior_s<seed> run folders")
    ap.add_argument("--seeds", type=int, nargs="+", help="default: every recorded seed")
    ap.add_argument("--commit-points", default="50141d6")
    ap.add_argument("--commit-trajectories", default="f0ceaba")
    ap.add_argument("--json", type=Path)
    a = ap.parse_args(argv)
    if a.collect:
        collect(a.collect, a.seeds, {"points": a.commit_points, "trajectories": a.commit_trajectories})
    s = summarize(a.seeds)
    print(markdown(s))
    if a.json:
        a.json.write_text(json.dumps(s, indent=1) + "\n")


if __name__ == "__main__":
    main()
