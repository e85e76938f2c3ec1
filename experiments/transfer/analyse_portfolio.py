"""The decision of experiments/transfer/RULE_PORTFOLIO.md (and of RULE_PRIOR_PORTFOLIO.md, which has the same
conditions) from its stored records.

    python experiments/transfer/analyse_portfolio.py      # reads records/portfolio_dev/{T,P2,P3}.json
    python experiments/transfer/analyse_portfolio.py --records prior_portfolio_dev --candidates K4 K8 \
        --parameter prior_portfolio                       # reads records/prior_portfolio_dev/{T,K4,K8}.json
    python experiments/transfer/analyse_portfolio.py --records honest_portfolios_dev --candidates Htrue \
        --parameter honest_portfolios --default False --gap --reach  # RULE_HONEST_PORTFOLIOS.md (seeds 318-321)
    python experiments/transfer/analyse_portfolio.py --records learned_prior_weight_dev --candidates Wlearned \
        --parameter prior_weight --default fixed --gap --reach     # RULE_LEARNED_PRIOR_WEIGHT.md (seeds 326-329)
    python experiments/transfer/analyse_portfolio.py --records prior_portfolio_larger_dev --candidates K16 K32 \
        --parameter prior_portfolio --default 8 --gap --reach   # RULE_PRIOR_PORTFOLIO_LARGER.md (seeds 342-349)
    python experiments/transfer/analyse_portfolio.py --records prior_mean_dev --candidates Mmap \
        --parameter prior_mean --default none --gap --reach      # RULE_PRIOR_MEAN.md (seeds 358-365)
    python experiments/transfer/analyse_portfolio.py --records final_choice_dev --candidates S5 --parameter reselect \
        --default 3 --gap --own-cold --reach                      # RULE_FINAL_CHOICE.md (seeds 374-381)
    python experiments/transfer/analyse_portfolio.py --records prior_portfolio_default --criteria D
                                                          # issue 31's criteria for one arm's own cold and warm runs

Per seed, the mean test error (%) over its 5 targets for every arm and J; d_s(C) = mean over J of (C - T); the
rule's four conditions; and issue 31's comparison (warm J = 10 against cold J = 50).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # experiments/records.py
import records

RECORDS = Path(__file__).resolve().parent / "records"
JS = (5, 10, 20, 50)


def per_seed(here: Path, arm: str) -> dict[int, dict[tuple[str, int], float]]:
    rec = json.loads(records.read_text(here / f"{arm}.json"))
    out = {}
    for seed, rows in rec["runs"].items():
        out[int(seed)] = {(a, J): 100 * float(np.mean([r["test_error"] for r in rows if r["arm"] == a and r["J"] == J]))
                          for a in ("cold", "warm") for J in JS}
    return out


def se(x: np.ndarray) -> float:
    return float(x.std(ddof=1) / np.sqrt(len(x)))


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", default="portfolio_dev", help="folder under records/ holding T.json and the arms")
    ap.add_argument("--candidates", nargs="+", default=["P2", "P3"], help="arms named <letter><value>")
    ap.add_argument("--parameter", default="prior_portfolio_every", help="the engine parameter the arms set")
    ap.add_argument("--criteria", metavar="ARM", help="only issue 31's criteria, for this arm's cold and warm runs")
    ap.add_argument("--reach", action="store_true", help="also the time each arm needs to reach the cold J = 50 error")
    ap.add_argument("--default", default="None", help="the parameter's value in the reference arm T (for the label)")
    ap.add_argument("--gap", action="store_true",
                    help="RULE_PRIOR_IN_PORTFOLIOS.md's condition 5: with C*, warm J = 10 - cold J = 50 at most 0")
    ap.add_argument("--own-cold", action="store_true",
                    help="RULE_FINAL_CHOICE.md: the candidates ran their own cold arms; condition 5 uses the "
                         "candidate's cold J = 50, and condition 6: its cold J = 50 not above T's by 2 se")
    ap.add_argument("--every-set", action="store_true",
                    help="the default engine's warm start against no warm start on every seed set with stored records")
    args = ap.parse_args(argv)
    if args.every_set:
        every_set()
        return
    if args.criteria:
        criteria(RECORDS / args.records, args.criteria)
        if args.reach:
            time_to_reach(RECORDS / args.records, args.criteria)
        return
    cands = list(args.candidates)
    data = {arm: per_seed(RECORDS / args.records, arm) for arm in ["T", *cands]}
    seeds = sorted(data["T"])
    print(f"seeds {seeds[0]}-{seeds[-1]} ({len(seeds)}); test error %, mean +- std over seeds\n")
    print("| arm | " + " | ".join(f"J = {J}" for J in JS) + " |")
    print("|---|" + "---|" * len(JS))
    rows = [("cold (no warm start)", "T", "cold"), (f"warm, `{args.parameter}={args.default}` (T, default)", "T", "warm")]
    rows += [(f"warm, `{args.parameter}={C[1:]}`", C, "warm") for C in cands]
    if args.own_cold:
        rows += [(f"cold, `{args.parameter}={C[1:]}`", C, "cold") for C in cands]
    for label, arm, a in rows:
        cells = [np.array([data[arm][s][(a, J)] for s in seeds]) for J in JS]
        print(f"| {label} | " + " | ".join(f"{c.mean():.2f} +- {c.std(ddof=1):.2f}" for c in cells) + " |")
    best, best_mean = None, np.inf
    for C in cands:
        d = np.array([np.mean([data[C][s][("warm", J)] - data["T"][s][("warm", J)] for J in JS]) for s in seeds])
        print(f"\n{C}: d_s = {', '.join(f'{v:+.3f}' for v in d)}; mean {d.mean():+.3f} (se {se(d):.3f}), "
              f"below 0 on {(d < 0).sum()} of {len(d)}")
        for J in JS:
            e = np.array([data[C][s][("warm", J)] - data["T"][s][("warm", J)] for s in seeds])
            print(f"  J = {J}: {C} - T {e.mean():+.3f} (se {se(e):.3f}), lower on {(e < 0).sum()} of {len(e)}")
        if d.mean() < best_mean:
            best, best_mean = C, d.mean()
    d = np.array([np.mean([data[best][s][("warm", J)] - data["T"][s][("warm", J)] for J in JS]) for s in seeds])
    e10 = np.array([data[best][s][("warm", 10)] - data["T"][s][("warm", 10)] for s in seeds])
    worse = [J for J in JS if (lambda e: e.mean() > 2 * se(e))(
        np.array([data[best][s][("warm", J)] - data["T"][s][("warm", J)] for s in seeds]))]
    need = 5 if len(seeds) == 8 else len(seeds) - 1  # 5 of 8 seeds; on fewer (RULE_PRIOR_IN_PORTFOLIOS.md) all but one
    checks = [bool(d.mean() < 0), bool((d < 0).sum() >= need), bool(e10.mean() < 0), not worse]
    cold_of = best if args.own_cold else "T"
    if args.gap:
        gap = np.array([data[best][s][("warm", 10)] - data[cold_of][s][("cold", 50)] for s in seeds])
        checks.append(bool(gap.mean() <= 0))
    if args.own_cold:
        c50 = np.array([data[best][s][("cold", 50)] - data["T"][s][("cold", 50)] for s in seeds])
        print(f"cold J = 50, {best} - T: {c50.mean():+.3f} (se {se(c50):.3f}), lower on {(c50 < 0).sum()} of "
              f"{len(c50)}")
        checks.append(bool(c50.mean() <= 2 * se(c50)))
    print(f"\nC* = {best}; conditions 1-{len(checks)} (2: below 0 on at least {need} of {len(seeds)} seeds): "
          f"{checks}; adopted: {all(checks)}")
    for arm in ["T", *cands]:
        g = np.array([data[arm][s][("warm", 10)] - data[arm if args.own_cold else "T"][s][("cold", 50)]
                      for s in seeds])
        print(f"warm J = 10 ({arm}) - cold J = 50: {g.mean():+.3f} (se {se(g):.3f}), at most 0 on {(g <= 0).sum()} "
              f"of {len(g)}")
    if args.reach:
        for arm in ["T", *cands]:
            time_to_reach(RECORDS / args.records, arm)


#: the seed sets whose records hold a default's warm arm (prior_portfolio=8; honest_portfolios=False before
#: RULE_HONEST_PORTFOLIOS.md, True since) beside its cold arm
SETS = (("0-15", "prior_portfolio_default", "D", "read by the diagnosis of RULE_PRIOR_PORTFOLIO.md"),
        ("108-115", "prior_portfolio_dev", "K8", "decided prior_portfolio=8"),
        ("300-307", "prior_features_dev", "T", "development seeds of RULE_PRIOR_FEATURES.md"),
        ("310-313", "prior_in_portfolios_dev", "T", "development seeds of RULE_PRIOR_IN_PORTFOLIOS.md"),
        ("314-317", "prior_in_portfolios_more", "T", "run beside RULE_PRIOR_IN_PORTFOLIOS.md, not deciding"),
        ("318-321", "honest_portfolios_dev", "T", "development seeds of RULE_HONEST_PORTFOLIOS.md, the default before"),
        ("318-321", "honest_portfolios_dev", "Htrue", "the same, honest_portfolios=True, the default since"),
        ("322-325", "honest_portfolios_more", "T", "run beside RULE_HONEST_PORTFOLIOS.md, not deciding, the default before"),
        ("322-325", "honest_portfolios_more", "Htrue", "the same, honest_portfolios=True, the default since"),
        ("326-329", "learned_prior_weight_dev", "T", "development seeds of RULE_LEARNED_PRIOR_WEIGHT.md, the default"),
        ("330-333", "learned_prior_weight_more", "T", "run beside RULE_LEARNED_PRIOR_WEIGHT.md, not deciding, the default"),
        ("334-341", "complement07_default", "T", "the default with the evaluator's complement=0.7, deciding nothing"),
        ("342-349", "prior_portfolio_larger_dev", "T", "development seeds of RULE_PRIOR_PORTFOLIO_LARGER.md, the default"),
        ("350-357", "prior_portfolio_larger_more", "T",
         "run beside RULE_PRIOR_PORTFOLIO_LARGER.md, not deciding, the default"),
        ("358-365", "prior_mean_dev", "T", "development seeds of RULE_PRIOR_MEAN.md, the default"),
        ("366-373", "prior_mean_more", "T", "run beside RULE_PRIOR_MEAN.md, not deciding, the default"),
        ("374-381", "final_choice_dev", "T", "development seeds of RULE_FINAL_CHOICE.md, the default"))


def every_set() -> None:
    """Issue 46's claims on every seed set: warm minus cold at each J, and warm J = 10 minus cold J = 50 (test error
    points; mean over seeds, its standard error, and on how many seeds warm is lower / at most)."""
    print("| seeds | J = 5: warm - cold | J = 10 | J = 20 | J = 50 | warm J = 10 - cold J = 50 |")
    print("|---|---|---|---|---|---|")
    for label, folder, arm, why in SETS:
        data = per_seed(RECORDS / folder, arm)
        seeds = sorted(data)
        cells = []
        for J in JS:
            d = np.array([data[s][("warm", J)] - data[s][("cold", J)] for s in seeds])
            cells.append(f"{d.mean():+.2f} ({se(d):.2f}), {(d < 0).sum()} of {len(d)}")
        g = np.array([data[s][("warm", 10)] - data[s][("cold", 50)] for s in seeds])
        cells.append(f"{g.mean():+.2f} ({se(g):.2f}), {(g <= 0).sum()} of {len(g)}")
        print(f"| {label} ({why}) | " + " | ".join(cells) + " |")


def seconds(run: dict) -> float:
    """A target search's seconds: its steps', plus reselect's where the run recorded them (from issue 46's
    RULE_FINAL_CHOICE.md on; before, reselect's few evaluations were not counted)."""
    return (run.get("seconds") or np.nan) + (run.get("reselect_seconds") or 0.0)


def time_to_reach(here: Path, arm: str, label: str = "") -> None:
    """Issue 46's user's view: per seed, the fewest steps J (of 5, 10, 20, 50) at which an arm's mean test error
    over the seed's targets is at most the cold arm's at J = 50, and the mean seconds of one target search of that
    J (the related tasks' own searches are not counted: they are run once, for the related tasks)."""
    rec = json.loads(records.read_text(here / f"{arm}.json"))
    print(f"\ntime to reach the cold J = 50 error{label} (arm {arm}; seconds per target search, one thread):\n")
    print("| seed | cold J = 50 error % | cold: J, seconds | warm: J, seconds |")
    print("|---|---|---|---|")
    reach: dict[str, list[float]] = {"cold": [], "warm": []}
    errors = per_seed(here, arm)
    for seed, rows in sorted(rec["runs"].items(), key=lambda t: int(t[0])):
        err = errors[int(seed)]
        sec = {(a, J): float(np.mean([seconds(r) for r in rows if r["arm"] == a and r["J"] == J]))
               for a in ("cold", "warm") for J in JS}
        cells = []
        for a in ("cold", "warm"):
            J = next((J for J in JS if err[(a, J)] <= err[("cold", 50)] + 1e-12), None)
            cells.append("not reached" if J is None else f"{J}, {sec[(a, J)]:.1f}")
            if J is not None:
                reach[a].append(sec[(a, J)])
        print(f"| {seed} | {err[('cold', 50)]:.2f} | {cells[0]} | {cells[1]} |")
    n = len(rec["runs"])
    mean_sec = {J: np.mean([np.mean([seconds(r) for r in rows if r["arm"] == "warm" and r["J"] == J])
                            for rows in rec["runs"].values()]) for J in JS}
    print("\nmean seconds of one warm target search (mean over seeds): "
          + ", ".join(f"J = {J}: {v:.2f}" for J, v in mean_sec.items()))
    print(f"\nreached on {len(reach['warm'])} of {n} seeds (warm); median seconds: cold "
          f"{np.median(reach['cold']):.1f}, warm {np.median(reach['warm']) if reach['warm'] else float('nan'):.1f}")


def criteria(here: Path, arm: str) -> None:
    """Issue 31's transfer criteria for one arm: warm J = 10 against cold J = 50, and warm against cold at every J;
    and whether its cold runs equal those stored with the issue's first report (``records/guided_points_s*.json``)."""
    data = per_seed(here, arm)
    seeds = sorted(data)
    print(f"arm {arm}, seeds {seeds[0]}-{seeds[-1]} ({len(seeds)}); test error %, mean +- std over seeds\n")
    print("| J | cold | warm | warm - cold: mean (se), seeds lower |")
    print("|---|---|---|---|")
    for J in JS:
        c = np.array([data[s][("cold", J)] for s in seeds])
        w = np.array([data[s][("warm", J)] for s in seeds])
        print(f"| {J} | {c.mean():.2f} +- {c.std(ddof=1):.2f} | {w.mean():.2f} +- {w.std(ddof=1):.2f} | "
              f"{(w - c).mean():+.3f} ({se(w - c):.3f}), {(w < c).sum()} of {len(seeds)} |")
    g = np.array([data[s][("warm", 10)] - data[s][("cold", 50)] for s in seeds])
    print(f"\nwarm J = 10 - cold J = 50: {g.mean():+.3f} (se {se(g):.3f}), at most 0 on {(g <= 0).sum()} of {len(g)}")
    rec = json.loads(records.read_text(here / f"{arm}.json"))
    same = have = 0
    for seed, rows in rec["runs"].items():
        stored = RECORDS / f"guided_points_s{seed}.json"
        if records.exists(stored):
            have += 1
            old = {r["key"]: r["test_error"] for r in json.loads(records.read_text(stored))["runs"] if r.get("arm") == "cold"}
            same += all(old.get(r["key"]) == r["test_error"] for r in rows if r["arm"] == "cold")
    if have:
        print(f"cold runs equal to the stored ones of records/guided_points_s*.json on {same} of {have} seeds")


if __name__ == "__main__":
    main()
