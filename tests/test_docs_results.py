"""The README's headline numbers and the results pages' tables are the ones their stored records give.

The records are read from the experiments' archives and the tables computed by the experiments' own scripts, run
as commands (``experiments/records.py cat``, ``experiments/tables.py --json``, ``experiments/transfer/analyse.py
--json``): no test imports ``experiments/``."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from functools import cache

import numpy as np
from conftest import REPO


def _run(*args: str) -> str:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, check=True, cwd=REPO).stdout


@cache
def _record(member: str) -> str:
    """A stored record, ``<experiment>/<path>``, from its experiment's archive."""
    return _run(str(REPO / "experiments" / "records.py"), "cat", member)


def _jsonl(member: str) -> list[dict]:
    return [json.loads(line) for line in _record(member).splitlines() if line.strip()]


def _stats(errors, ddof: int = 1) -> tuple[float, float, int]:
    a = 100 * np.asarray(errors, dtype=float)
    return float(a.mean()), float(a.std(ddof=ddof)) if len(a) > 1 else 0.0, len(a)


@cache
def _tables() -> dict:
    return json.loads(_run(str(REPO / "experiments" / "tables.py"), "--json"))


def _transfer_summary(tmp_path, seeds: list[int] | None = None) -> dict:
    out = tmp_path / f"summary_{len(seeds or [])}.json"
    _run(str(REPO / "experiments" / "transfer" / "analyse.py"), "--json", str(out),
         *(["--seeds", *map(str, seeds)] if seeds else []))
    return json.loads(out.read_text())


PROTOCOL = "guided/protocol_s19_portfolio8.jsonl"
WIDE = "guided/wide_sample_10_29.jsonl"


def _row(text: str, label: str) -> str:
    m = re.search(rf"^\| {re.escape(label)} \| (.*?) \|$", text, flags=re.M)
    assert m, f"no table row {label!r}"
    return m.group(1)


def test_readme_headline_table_is_its_records():
    readme = (REPO / "README.md").read_text()
    page = (REPO / "docs" / "results" / "headline.md").read_text()
    rows = _tables()["headline"]
    for label, method in _tables()["headline_rows"]:
        mean, std, n = rows[method]
        assert n == 20, f"{method}: {n} partitions in the records, the table says 20"
        shown = f"{mean:.2f} ± {std:.2f}"
        assert _row(readme, label).strip("*") == shown, f"README.md, {label}: the records give {shown}"
        assert shown in _row(page, label), f"docs/results/headline.md, {label}: the records give {shown}"


def test_transfer_table_is_its_records():
    page = (REPO / "docs" / "results" / "transfer.md").read_text()
    t = {(k.split()[0], int(k.split()[1])): v for k, v in _tables()["transfer"].items()}
    for J in (5, 10, 20, 50):
        cold, warm = t[("cold", J)], t[("warm", J)]
        assert cold["n"] == warm["n"] == 4
        row = _row(page, str(J)).split(" | ")
        assert row[0] == f"{cold['mean']:.2f} ± {cold['std']:.2f}"
        assert row[1] == f"{warm['mean']:.2f} ± {warm['std']:.2f}"
        assert row[2] == ", ".join(f"{x:.2f}" for x in cold["per_seed"])
        assert row[3] == ", ".join(f"{x:.2f}" for x in warm["per_seed"])
    # the sentences about seeds count what the records say
    per = {J: [w < c for w, c in zip(t[("warm", J)]["per_seed"], t[("cold", J)]["per_seed"], strict=True)] for J in (5, 10, 20, 50)}
    assert [sum(per[J]) for J in (5, 10, 20, 50)] == [4, 4, 3, 2]
    beats = sum(w <= c for w, c in zip(t[("warm", 10)]["per_seed"], t[("cold", 50)]["per_seed"], strict=True))
    assert beats == 2 and "lower on 2 of 4 seeds" in page


def test_guided_protocol_rows_are_their_records():
    """The MNIST page's rows of `guided`, its former default and `random+o4` (partitions 0-9, 7 budgets) are the
    stored protocol records' mean ± std, and every table row of the page has such a record."""
    page = (REPO / "docs" / "results" / "mnist.md").read_text()
    methods = ["random+o4", "guided", "guided:portfolio_sizes=[2,3,4]"]
    for method in methods:
        recs = [r for r in _jsonl(PROTOCOL) if r["method"] == method]
        cells = _row(page, method).split(" | ")
        assert len(cells) == 7
        for cell, budget in zip(cells, (250, 500, 1000, 2000, 3000, 6000, 12000), strict=True):
            mean, std, n = _stats([r["test_error"] for r in recs if r["budget"] == budget], ddof=0)
            assert cell == f"{mean:.2f} ± {std:.2f} ({n})", f"{method}, budget {budget}"
    # a row of means whose records are not stored (the page's earlier tables) is not on the page
    rows = re.findall(r"^\| ([^|]+?) \| \d+\.\d\d ± ", page, flags=re.M)
    assert set(rows) <= set(methods), sorted(set(rows) - set(methods))


def test_the_stated_partition_overlap():
    """"about 89 % of the protocol's test images are test images of some development partition" (docs/results)."""
    import numpy as np

    from metafx.core.validation import split_indices

    dev = np.unique(np.concatenate([split_indices(10000, 2000, 2000, seed=p)[1] for p in range(100, 110)]))
    share = np.mean([np.isin(split_indices(10000, 2000, 2000, seed=p)[1], dev).mean() for p in range(10)])
    assert round(100 * share) == 89
    assert "about 89 % of the protocol's test images" in (REPO / "docs" / "results" / "mnist.md").read_text()


def test_transfer_guided_table_is_its_records(tmp_path):
    """docs/results/transfer.md's default-engine table and the rule's decision are what the stored records give."""
    page = (REPO / "docs" / "results" / "transfer.md").read_text()
    s = _transfer_summary(tmp_path)
    assert len(s["seeds"]) >= 8
    for J in (5, 10, 20, 50):
        cells = _row(page, f"J = {J}").split(" | ")
        for cell, arm in zip(cells, ("cold", "points", "trajectories"), strict=False):
            t = s["table"][f"{arm} J={J}"]
            assert cell == f"{t['mean']:.2f} ± {t['std']:.2f}", (J, arm)
    rule = _transfer_summary(tmp_path, list(range(8)))["decision"]
    assert rule["adopted"] and rule["negative_seeds"] == 6
    assert f"{rule['mean_d']:+.2f} ± {rule['se']:.2f}" in page


def test_transfer_every_set_and_prior_in_portfolios_tables_are_their_records():
    """docs/results/transfer.md: the default's warm start on every seed set, and the table of the rule
    RULE_PRIOR_IN_PORTFOLIOS.md (dev seeds 310-313, and the seeds 314-317 run beside it), as
    experiments/transfer/analyse_portfolio.py prints them from the stored records."""
    page = (REPO / "docs" / "results" / "transfer.md").read_text().replace("`", "")  # the script prints no code marks
    script = str(REPO / "experiments" / "transfer" / "analyse_portfolio.py")
    outputs = [_run(script, "--every-set")]
    for folder in ("prior_in_portfolios_dev", "prior_in_portfolios_more"):
        outputs.append(_run(script, "--records", folder, "--candidates", "Ctrue", "--parameter", "prior_in_portfolios",
                            "--default", "False", "--gap"))
    rows = [line for out in outputs for line in out.splitlines() if line.startswith("| ") and "---" not in line]
    assert any(line.startswith("| 310-313") for line in rows) and any(line.startswith("| 314-317") for line in rows)
    for line in rows:
        if line.startswith(("| seeds |", "| arm |")):
            continue
        if line.startswith(("| cold", "| warm")):  # the rule's table: the page names the arms in words
            line = " | " + line.split(" | ", 1)[1].replace("+-", "±")
        assert line in page, f"docs/results/transfer.md lacks the records' row {line!r}"


def test_thirty_partition_means_and_the_targets():
    """docs/results/mnist.md: `guided` over partitions 0-29 (the protocol's records and the wide sample's), the mean
    and standard error at 3000 and 12000, and the words on the targets (4.7 % and 2.9 %) that those numbers allow."""
    import numpy as np

    page = " ".join((REPO / "docs" / "results" / "mnist.md").read_text().split())  # one space between words
    recs = [r for r in _jsonl(PROTOCOL) + _jsonl(WIDE) if r["method"] == "guided"]
    said = {}
    for budget, target in ((3000, 4.7), (12000, 2.9)):
        errors = 100 * np.array([r["test_error"] for r in recs if r["budget"] == budget])
        assert len(errors) == 30 and sorted({r["partition"] for r in recs if r["budget"] == budget}) == list(range(30))
        mean, se = errors.mean(), errors.std(ddof=1) / np.sqrt(len(errors))
        said[budget] = f"{mean:.2f} % at {budget}" + (f" (standard error {se:.2f})")
        assert said[budget] in page, said[budget]
        said[budget] = abs(mean - target) <= 2 * se     # within the noise of the target
    assert said[3000] and "level with the target of 4.7 %" in page and "within the noise" in page
    assert not said[12000] and "so the 12000 gap is real" in page


def test_tabular_readme_shows_every_held_out_set():
    """plugins/metafx-tabular/README.md: the folds (of 5) in which each planted quantity was produced, on both
    held-out sets of seeds (10-14, which failed for two kinds, and 20-24), are what the stored records give."""
    import json

    readme = (REPO / "plugins" / "metafx-tabular" / "README.md").read_text()
    rows = {"group_dev": "`price - mean(price by city)`", "isna": "`isna(income)`", "ratio": "`debt / income`",
            "product": "`x1 * x2`", "weekday": "`weekday(date)`", "frequency": "`count(merchant)`",
            "log_ratio": "`log(a)` and `b / c`"}

    def produced(files):
        runs = [r for f in files for r in json.loads(_record(f"tabular_planted/{f}"))["runs"]]
        return {g: [sum(all(f["produced"]) for f in r["folds"]) for r in sorted(runs, key=lambda r: r["seed"])
                    if r["generator"] == g] for g in rows}

    first, second = produced(["heldout.json", "heldout_12_14.json"]), produced(["heldout_20_21.json",
                                                                                 "heldout_22_24.json"])
    for g, label in rows.items():
        cells = _row(readme, label).split(" | ")
        assert cells[1].replace("**", "") == " / ".join(map(str, first[g])), (g, first[g])
        assert len(second[g]) == 5 and cells[2] == ("5 each" if set(second[g]) == {5} else str(second[g])), g


def test_picture_figures_are_its_record():
    """docs/results/picture.md and the README: the search behind the feature picture, as its stored output says."""
    record = _record("picture/search_output.txt")
    assert "best point: numInputs=5, percentPos=48, shiftInvLen=3, scatter=2.42 (step 33)" in record
    assert "features: 600, total cost 3000" in record and "held-out error: 5.35 %" in record
    page = " ".join((REPO / "docs" / "results" / "picture.md").read_text().split())
    assert ("numInputs 5, percentPos 48, shiftInvLen 3, scatter 2.42 (step 33), 600 features, test error 5.35 %"
            in page)
    assert "(Test error 5.35 % on 2000 held-out images;" in (REPO / "README.md").read_text()


# ------------------------------------------------------------------ speed figures and their benchmark records


def _mufasa_row(record: str) -> str:
    """The speed page's table row of one ``bench_mufasa.py`` record: yardsticks, the split, the peak memory."""
    text = _record("benchmarks/" + record)
    n = re.search(r"budget 3000, 50 steps, (\d+) MNIST images", text).group(1)
    search = re.search(r"^  search +([\d.]+) yardsticks", text, flags=re.M).group(1)
    parts = [re.search(rf"^  {name} +[\d.]+ yardsticks +([\d.]+ %)", text, flags=re.M).group(1)
             for name in ("drawing features", "computing features", r"classifier \(CV SVM\)", "other")]
    peak = re.search(r"peak memory (\d+ MB)", text).group(1)
    return f"| {n} | {search} | " + " | ".join(parts) + f" | {peak} | `experiments/benchmarks/{record}` |"


def test_speed_page_is_its_records():
    page = (REPO / "docs" / "results" / "speed.md").read_text()
    for record in ("mufasa_2000.txt", "mufasa_8000.txt"):
        assert _mufasa_row(record) in page, _mufasa_row(record)
    # every row of the search table names its record
    rows = re.findall(r"^\| \d+ \| .*$", page, flags=re.M)
    assert rows and all("experiments/benchmarks/" in row for row in rows)


def test_plugin_family_speed_is_its_record():
    """The plugin-family table of the speed page is the benchmark's stored rows."""
    import json

    page = (REPO / "docs" / "results" / "speed.md").read_text()
    rows = json.loads(_record("benchmarks/" + "plugin_family_window_or.json"))
    assert len(rows) == 9
    for r in rows:
        cells = f"| {r['partition']} | "
        line = next(line for line in page.splitlines() if line.startswith(cells) and (
            r["engine"].split(":")[0] in line and (("pool_rows" in line) == ("pool_rows" in r["engine"]))))
        assert f"| {r['wall']:.1f} | {r['compute']:.1f} | {r['evaluate']:.1f} | {100 * r['holdout_error']:.2f} |" in line


def test_quiet_plugin_family_run_is_its_record():
    """The speed page's quieter run (pixel-and beside window-or) is the benchmark's stored rows."""
    page = (REPO / "docs" / "results" / "speed.md").read_text()
    rows = json.loads(_record("benchmarks/plugin_family_quiet.json"))
    assert len(rows) == 12
    for r in rows:
        assert (f"| {r['partition']} | {r['family']} | {r['engine']} | {r['wall']:.1f} | {r['compute']:.1f} | "
                f"{r['evaluate']:.1f} | {100 * r['holdout_error']:.2f} |") in page


def test_tabular_draw_speed_is_its_record():
    """The tabular family's draw-share table of the speed page is the benchmark's stored rows (the family before
    and after its draw was batched, in one run)."""
    import json

    page = (REPO / "docs" / "results" / "speed.md").read_text()
    rows = json.loads(_record("benchmarks/" + "plugin_family_tabular.json"))
    assert {r["family"] for r in rows} == {"tabular", "tabular@f4db1ac"} and len(rows) == 4
    for r in rows:
        line = next(line for line in page.splitlines() if line.startswith(f"| `{r['family']}` | {r['engine']} |"))
        assert (f"| {r['wall']:.1f} | {r['draw']:.1f} | {r['compute']:.1f} | {r['evaluate']:.1f} | "
                f"{r['draw'] / r['wall']:.2f} |") in line, line


def test_tabular_cli_draw_is_its_record():
    """The speed page's command-line table (the tabular family before and after its batched draw) is the record."""
    page = (REPO / "docs" / "results" / "speed.md").read_text()
    runs = _record("benchmarks/" + "tabular_cli_draw.txt").splitlines()[1:]
    assert len(runs) == 4
    for order, run in zip(("1st", "2nd", "3rd", "4th"), runs, strict=True):
        wall = float(re.search(r"wall ([\d.]+) s", run).group(1))
        d, c, e = (float(x) for x in re.search(r"draw ([\d.]+) s, compute ([\d.]+) s, evaluate ([\d.]+) s", run).groups())
        plugin = "f4db1ac (before)" if run.startswith("before") else "this change"
        assert (f"| {order} | {plugin} | {wall:.1f} | {d:.2f} | {c:.2f} | {e:.2f} | {d / wall:.2f} | "
                f"{d / (d + c + e):.2f} |") in page, run


def test_prediction_speed_is_its_record():
    text = _record("benchmarks/" + "classifier_predict.txt")
    t, p, pr, f, fr = re.search(r"transform +([\d.]+) .*\npipeline +([\d.]+) +([\d.]+)\nFeatureClassifier +([\d.]+) +"
                                r"([\d.]+)", text).groups()
    ratio = re.search(r"pipeline / FeatureClassifier: ([\d.]+)", text).group(1)
    page = (REPO / "docs" / "results" / "evaluation_speed.md").read_text()
    assert f"| {t} | 1.00 |" in page and f"| {p} | {pr} |" in page and f"| {f} | {fr} |" in page
    assert f"Pipeline / FeatureClassifier {ratio};" in page


def test_export_speed_is_its_record():
    text = _record("benchmarks/" + "export.txt")
    rows = [line for line in text.splitlines() if re.match(r"^\| a=\d ", line)]
    assert len(rows) == 4
    page = (REPO / "docs" / "results" / "export.md").read_text()
    for row in rows:
        assert row in page, row


def test_optuna_pages_are_their_records():
    """docs/results/optuna_storage.md: the storage table and the heartbeat times are what the stored output says."""
    page = (REPO / "docs" / "results" / "optuna_storage.md").read_text()
    text = _record("benchmarks/" + "optuna_storage.txt")
    for name, label in (("memory", "memory"), ("sqlite", "SQLite")):
        cells = re.search(rf"^{name} +(.*)$", text, flags=re.M).group(1).split()
        assert f"| {label} | " + " | ".join(cells) + " |" in page, name
    beat = _record("optuna_heartbeat/heartbeat_runs.txt")
    times = re.findall(r"trial 0: FAIL at .*, finished ([\d.]+) s after the kill", beat)
    assert len(times) == 3 and f"{times[0]}, {times[1]} and {times[2]} s after the kill" in " ".join(page.split())


def test_net_timings_are_their_record():
    """docs/results/bounds.md: the net hierarchy's table is the rows bench_nets.py printed."""
    rows = [line for line in _record("benchmarks/" + "nets.txt").splitlines() if re.match(r"^\| (uniform|digits) ", line)]
    page = (REPO / "docs" / "results" / "bounds.md").read_text()
    assert len(rows) == 7 and all(row in page for row in rows)


def test_cnn_anchor_page_is_its_records():
    """docs/results/cnn_anchor.md: the anchor tables are what bench_cnn_anchor.py --report prints from the records."""
    page = (REPO / "docs" / "results" / "cnn_anchor.md").read_text()
    for member in ("report_2000.jsonl report_2000_b.jsonl", "dev_2000.jsonl dev_2000_b.jsonl", "report_8000.jsonl"):
        paths = [str(REPO / "experiments" / "cnn48" / m) for m in member.split()]
        text = _run(str(REPO / "benchmarks" / "bench_cnn_anchor.py"), "--report", *paths)
        rows = [line for line in text.splitlines() if line.startswith("| ") and not line.startswith("| method")]
        lines = [line for line in text.splitlines() if line.startswith(("paired, ", "predict cost, "))]
        assert rows and lines
        for line in rows + lines:
            assert line in page, line


# ------------------------------------------------------------------ bounds.md: the potential-function experiments
def _bounds_page() -> str:
    return (REPO / "docs" / "results" / "bounds.md").read_text()


def test_theorem3_table_is_its_record():
    rows = [line for line in _record("bounds/theorem3_mc.txt").splitlines() if re.match(r"^\| 0\.\d ", line)]
    assert len(rows) == 8 and all(row in _bounds_page() for row in rows)


H_LABELS = {"iris": "iris", "wine": "wine", "breast_cancer": "breast_cancer", "digits": "digits",
            "anes96": "anes96 (statsmodels)", "fair": "fair (statsmodels)"}


def test_h_criterion_tables_are_their_records():
    """The main variant's table is the rows the script printed; the raw variant's columns and the text's
    counts (h better than LOO on 2 of 6, better than the default sigma on 4 of 6, Theorem 4's smallest value) are
    what the summaries give."""
    page = _bounds_page()
    text = " ".join(page.split())
    for line in _record("bounds/potential_h.txt").splitlines():  # the table's rows, each with its seconds after it
        name, rest = line.split(" | ", 1)
        assert f"| {H_LABELS[name[2:]]} | " + rest.rsplit(" (", 1)[0] in page, line
    main = json.loads(_record("bounds/potential_h/summary.json"))["datasets"]
    assert list(main) == list(H_LABELS)
    assert sum(d["n_B"] > d["n_W"] for d in main.values()) == 2 and "h is better on **2 of 6**" in text
    assert sum(d["h_vs_default"][0] > d["h_vs_default"][2] for d in main.values()) == 4
    assert "the h criterion is better on 4 of 6 sets in the main variant" in text
    assert all(d["sigma_h_median"] == 0.03 for d in main.values()) and "(median h-sigma 0.03)" in text
    runs = [r for d in main.values() for r in d["runs"]]
    assert all(r["thm4_alpha"] == 0.8 for r in runs) and min(r["thm4_best_bound"] for r in runs) > 1
    low = min(main, key=lambda k: main[k]["thm4_bound_min"])
    assert low == "fair" and f"smallest value {main[low]['thm4_bound_min']:.3f}, on fair" in text
    raw = json.loads(_record("bounds/potential_h_raw/summary.json"))["datasets"]
    for name, d in raw.items():
        cells = [d["n_B"], d["n_E"], d["n_W"],
                 " / ".join(f"{100 * d[k]:.2f}" for k in ("err_loo_mean", "err_h_mean", "err_default_mean")) + " %",
                 "/".join(map(str, d["h_vs_default"])), f"{d['sigma_loo_median']:g} / {d['sigma_h_median']:g}"]
        assert f"| {name} | " + " | ".join(map(str, cells)) + " |" in page, name


# ------------------------------------------------------------------ tabular.md: every record it names is stored
def test_every_record_the_tabular_page_names_is_stored():
    """docs/results/tabular.md and its development log (experiments/tabular_real/LOG.md) name their records by path
    (``experiments/<folder>/<name>``) or by file name in backticks: each is a member of one of the tabular experiments' archives or a file of their folders."""
    page = (REPO / "docs" / "results" / "tabular.md").read_text()
    page += (REPO / "experiments" / "tabular_real" / "LOG.md").read_text()  # the page's development log, moved out
    folders = ("tabular_real", "tabular_planted", "tabular_guard")
    stored = {}
    for folder in folders:
        names = _run(str(REPO / "experiments" / "records.py"), "list", folder).split()
        names += [p.relative_to(REPO / "experiments" / folder).as_posix()
                  for p in (REPO / "experiments" / folder).rglob("*") if p.is_file()]
        stored[folder] = set(names)
    cited = set(re.findall(r"experiments/([a-z_]+)/([A-Za-z0-9_./-]+\.(?:json|jsonl|log|txt|md))", page))
    assert len(cited) >= 40
    missing = [f"{f}/{n}" for f, n in cited if n not in stored.get(f, ())]
    assert not missing, missing
    every = {n.rsplit("/", 1)[-1] for names in stored.values() for n in names}
    bare = set(re.findall(r"`([A-Za-z0-9_./-]+\.(?:json|jsonl|log))`", page))
    missing = sorted(b for b in bare if not b.startswith("_") and b.rsplit("/", 1)[-1] not in every)  # `_r3.json`: a suffix
    assert len(bare) >= 30 and not missing, missing


def test_guard_tables_are_their_records():
    """docs/results/tabular.md, issue 43: the dev tables' pairs and the counts per model are what
    ``bench_guard.py --summary`` prints from the stored records, and the noise table's counts are theirs."""
    E = REPO / "experiments" / "tabular_guard"
    out = _run(str(E / "bench_guard.py"), "--summary", str(E / "dev.json"), str(E / "noise.json"))
    page = (REPO / "docs" / "results" / "tabular.md").read_text()
    rows = [line for line in out.splitlines() if line.startswith("| ")]
    assert len(rows) == 17 and all(row in page for row in rows), [r for r in rows if r not in page]  # head, 16 pairs
    for model in ("linear", "trees"):
        counts = re.search(rf"^{model}: (better \d+, worse \d+, even \d+ of 8)$", out, flags=re.M).group(1)
        assert f"* {model}: {counts}" in page, (model, counts)
        noise = re.search(rf"^noise, model {model}: no feature on (\d+) of 20 seeds \(the search proposed a set on "
                          rf"(\d+)\)", out, flags=re.M).groups()
        label = "linear (default)" if model == "linear" else model
        assert f"| {label} | **{noise[0]}** | {noise[1]} |" in page, (model, noise)


# ------------------------------------------------------------------ selection.md: chapter 4's regression
def test_regression_selection_tables_are_their_records():
    """docs/results/selection.md, section 2: the success rates (the tuned run and the two untuned RGS settings) and
    the Figure 4.1 check are what the stored summaries give."""
    page = (REPO / "docs" / "results" / "selection.md").read_text()
    main = json.loads(_record("selection/regression/summary.json"))
    assert main["repeats"] == 100 and main["sizes"] == [20, 40, 60, 80, 100]
    for t, methods in main["success"].items():
        for meth, rates in methods.items():
            cells = " | ".join(f"{rates[str(m)]:.2f}" for m in main["sizes"])
            assert f"| ({t}) | {meth} | {cells} |" in page, (t, meth, cells)
    for name, label in (("regression_rgs_k5_e1", "k = 5, 1 epoch"), ("regression_rgs_k50_e1", "k = 50 (T §4.4), 1 epoch")):
        s = json.loads(_record(f"selection/{name}/summary.json"))
        for t, methods in s["success"].items():
            cells = " | ".join(f"{methods['rgs'][str(m)]:.2f}" for m in s["sizes"])
            assert f"| {label} | ({t}) | {cells} |" in page, (name, t, cells)
    for key, label in (("noise-free", "noise-free"), ("noisy", "noise variance 1/7")):
        f = main["fig41"][key]
        a, b = f["relevant_only"], f["relevant_plus_irrelevant"]
        assert f"| {label} | {a:.4f} | {b:.4f} | {b / a:.1f} |" in page, (key, a, b)
    # no table of numbers on the page without its record: the MADELON section's were removed
    assert "| gflip |" not in page and "| seed |" not in page


def test_quality_map_page_shows_no_figure_without_record():
    """docs/results/quality_map.md: its runs' outputs were never stored, so it shows no table and no figure of them
    until they are remade with records, and it says that its images overlap."""
    page = (REPO / "docs" / "results" / "quality_map.md").read_text()
    assert not re.findall(r"^\|.*\d\.\d", page, flags=re.M) and "![" not in page
    assert "experiments/quality_map/records.tar.xz" in page and "their images overlap" in " ".join(page.split())


def test_sample_compression_table_is_its_record():
    """docs/results/bounds.md, Figure 2 analogue: each problem's row is the one the script printed, the digits row is
    the mean of the 45 pairs' summaries, and the text's extremes are the records'."""
    page = _bounds_page()
    text = " ".join(page.split())
    fig = [line.rsplit(" (", 1)[0] for line in _record("bounds/sample_compression.txt").splitlines()]  # no seconds
    S = json.loads(_record("bounds/sample_compression/summary.json"))["problems"]
    assert len(S) == 54
    for prob, label in (("iris 0 vs 1", None), ("iris 1 vs 2", None), ("wine 0 vs 1", None), ("breast_cancer", None),
                        ("anes96", "anes96 (statsmodels)"), ("fair", "fair (statsmodels)")):
        line = next(line for line in fig if line.startswith(f"| {prob} |"))
        assert f"| {label or prob} |" + line[len(f"| {prob} |"):] in page, prob
    dig = {k: v for k, v in S.items() if k.startswith("digits")}
    assert len(dig) == 45

    def mean(key):
        return float(np.mean([v[key] for v in dig.values()]))

    assert (f"| digits, 45 pairs (mean) | 174-180 | {mean('pct_net'):.2f} | {mean('pct_hierarchy'):.2f} | "
            f"{mean('pct_pruned'):.2f} | {mean('acc_change'):+.4f} | {mean('acc_full'):.4f} | {mean('thm3_bound'):.3f} | "
            f"{mean('srm_pct'):.1f}, {mean('srm_eps'):.3f}, {mean('srm_acc_change'):+.4f}, {mean('srm_bound'):.3f} |"
            in page)
    lo, hi = min(dig, key=lambda k: dig[k]["acc_change"]), max(dig, key=lambda k: dig[k]["acc_change"])
    assert (f"from {dig[lo]['acc_change']:+.4f} ({lo[7:]}) to {dig[hi]['acc_change']:+.4f} ({hi[7:]})"
            .replace("from +", "from ") in text), (lo, hi)
    pruned = [k for k, v in S.items() if v["pct_pruned"] < v["pct_net"]]
    assert round(100 * len(pruned) / len(S)) == 7 and "Pruned < net on only 7 % of the problems" in text
    assert sum(v["thm3_bound"] < 1 for v in dig.values()) == 11 and "11 of the 45 digit pairs" in text
    bounds = [v["srm_bound"] for v in S.values()]
    assert f"({min(bounds):.2f}–{max(bounds):.2f} over the 54 problems)" in text  # noqa: RUF001 (the page's en dash)
    net = {k: v["pct_net"] for k, v in S.items() if not k.startswith("digits")}
    assert f"{min(v for v in net.values() if v > 50):.0f}–{max(net.values()):.0f} % on overlapping classes" in text  # noqa: RUF001 (the page's en dash)


def test_planted_signal_tables_are_their_records():
    """docs/results/tabular.md: the planted-signal tables printed by ``bench_tabular_planted.py --summarize`` from
    their stored records (issue 35's development and held-out seeds, issue 43's linear run on both generators)."""
    page = (REPO / "docs" / "results" / "tabular.md").read_text()
    script = str(REPO / "experiments" / "tabular_planted" / "bench_tabular_planted.py")
    for record, n in (("tabular_planted/dev.json", 21), ("tabular_planted/dev_seed0_old_defaults.json", 7),
                      ("tabular_planted/heldout.json", 14), ("tabular_planted/heldout_12_14.json", 21),
                      ("tabular_guard/planted_linear_seed0.json", 14)):
        out = _run(script, "--summarize", str(REPO / "experiments" / record))
        rows = [line for line in out.splitlines() if re.match(r"^\| (?!generator |style )", line)]
        assert len(rows) == n and all(row in page for row in rows), (record, [r for r in rows if r not in page])


def test_rescore_decision_table_is_its_records():
    """docs/results/tabular.md, ``rescore=8``'s decision on dev seeds 0-2: folds producing each planted quantity and
    the linear model's score with the features, before (``rescore=0``) -> after, as the two stored records give."""
    page = (REPO / "docs" / "results" / "tabular.md").read_text()
    runs = {name: {(r["generator"], r["seed"]): r for r in json.loads(_record(f"tabular_planted/{name}.json"))["runs"]}
            for name in ("dev_rescore0", "dev_rescore")}

    def count(run):
        fo = run["folds"]
        hits = sum(all(f["produced"]) for f in fo)
        each = [sum(f["produced"][i] for f in fo) for i in range(len(fo[0]["produced"]))]
        return f"{hits} ({'/'.join(map(str, each))})" if len(each) > 1 else str(hits)

    def score(run):
        return f"{np.mean([f['linear_features'] for f in run['folds']]):.4f}".replace("0.", ".")

    drops = {}
    for g in ("group_dev", "isna", "ratio", "product", "weekday", "frequency", "log_ratio"):
        before = [runs["dev_rescore0"][(g, s)] for s in (0, 1, 2)]
        after = [runs["dev_rescore"][(g, s)] for s in (0, 1, 2)]
        cells = [f"{count(a)} -> {count(b)}" for a, b in zip(before, after, strict=True)]
        cells = [re.sub(r"^(5) \(5/5\) -> 5 \(5/5\)$", "5 -> 5", c) for c in cells]
        scores = " / ".join(f"{score(a)} -> {score(b)}" for a, b in zip(before, after, strict=True))
        label = "log_ratio (log(a) / b/c)" if g == "log_ratio" else g
        assert f"| {label} | " + " | ".join(cells) + f" | {scores} |" in page, (g, cells, scores)
        for s, a, b in zip((0, 1, 2), before, after, strict=True):
            drops[(g, s)] = np.mean([f["linear_features"] for f in b["folds"]]) - \
                np.mean([f["linear_features"] for f in a["folds"]])
    worst = min(drops, key=drops.get)
    assert worst == ("ratio", 0) and f"ratio seed 0, {drops[worst]:.4f})" in page


def test_rescore_heldout_table_is_its_records():
    """docs/results/tabular.md, held-out seeds 20-24: the folds producing each planted quantity with ``rescore=0`` ->
    ``rescore=8`` and the sentence on the linear model's scores, as the four stored records give."""
    page = (REPO / "docs" / "results" / "tabular.md").read_text()
    text = " ".join(page.split())

    def runs(names):
        return {(r["generator"], r["seed"]): r for n in names
                for r in json.loads(_record(f"tabular_planted/{n}.json"))["runs"]}

    before = runs(["heldout_20_21_rescore0", "heldout_22_24_rescore0"])
    after = runs(["heldout_20_21", "heldout_22_24"])
    seeds = (20, 21, 22, 23, 24)

    def hits(run):
        return sum(all(f["produced"]) for f in run["folds"])

    def score(run):
        return float(np.mean([f["linear_features"] for f in run["folds"]]))

    for g in ("group_dev", "isna", "ratio", "product", "weekday", "frequency", "log_ratio"):
        cells = " | ".join(f"{hits(before[(g, s)])} -> {hits(after[(g, s)])}" for s in seeds)
        assert f"| {g} | {cells} |" in page, (g, cells)
    d = {k: score(after[k]) - score(before[k]) for k in after}
    lower = sorted({g for (g, _), v in d.items() if v < 0})
    assert len(d) == 35 and sum(v >= 0 for v in d.values()) == 31 and lower == ["frequency", "isna"]
    assert f"by at most {-min(d.values()):.4f}" in text, -min(d.values())
    r2 = [score(before[("log_ratio", s)]) for s in seeds], [score(after[("log_ratio", s)]) for s in seeds]
    said = " to ".join(f"{min(v):.3f}-{max(v):.3f}".replace("0.", ".") for v in r2)
    assert f"log_ratio's R^2 goes from {said}" in text, said


def test_final_defaults_heldout_table_is_its_records():
    """docs/results/tabular.md, issue 35's held-out real tables with the final defaults: the per-(table, model) table
    and the targets' counts are what ``bench_tabular_real.py --summarize`` prints from the stored records."""
    E = REPO / "experiments" / "tabular_real"
    final = [str(E / f"heldout_final_{n}.json") for n in ("large", "large_r2", "large_r3", "small")]
    openfe = [str(E / f"heldout_openfe_{n}.json") for n in ("anes96_r2", "anes96_r3", "fair_r2", "fair_r3", "large",
                                                              "small", "small_r23")]
    out = _run(str(E / "bench_tabular_real.py"), "--summarize", *final, "--openfe-from", *openfe)
    page = (REPO / "docs" / "results" / "tabular.md").read_text()
    text = " ".join(page.split())
    rows = [line for line in out.splitlines() if re.match(r"^\| \w+ \| (linear|tree) \| (5|15) \| ", line)]
    assert len(rows) == 12 and all(row in page for row in rows), [r for r in rows if r not in page]
    no_worse = re.search(r"search's set before the confirmation\) in mean on (\d+) of 12", out).group(1)
    trees = re.search(r"tree model better than raw in mean on (\d+) of 6", out).group(1)
    linear = re.search(r"linear model better than raw in mean on (\d+) of 6", out).group(1)
    median, below = re.search(r"median ([\d.]+), max", out).group(1), re.search(r"(\d+)% below 0.5", out).group(1)
    assert f"**not met, {no_worse} of 12**" in text and f"**not met, {trees} of 6**" in text
    assert f"the linear model is better than raw on {linear} of 6 tables" in text
    assert f"(median {median}, {below} % below 0.5," in text


def test_tree_gate_table_is_its_records():
    """docs/results/tabular.md, which confirmation tells tree features that help: each table's row is what
    ``bench_tabular_gate.py --summarize`` prints from the stored records."""
    E = REPO / "experiments" / "tabular_real"
    out = _run(str(E / "bench_tabular_gate.py"), "--summarize", str(E / "gate_dev_3x5.json"),
               str(E / "gate_devcat_3x5.json"))
    page = (REPO / "docs" / "results" / "tabular.md").read_text()
    rows = [line for line in out.splitlines() if re.match(r"^\| (?!table |mean )\w+ \| [-+]", line)]
    assert len(rows) == 6 and all(row in page for row in rows), [r for r in rows if r not in page]


def test_openfe_same_process_targets_are_their_records():
    """docs/results/tabular.md, OpenFE beside every default in the same process: the three targets' results are
    what ``bench_tabular_real.py --summarize`` prints from the two stored records, and OpenFE's and the searches'
    seconds a fold are the records' (medians by table; the searches' extremes)."""
    E = REPO / "experiments" / "tabular_real"
    names = ("heldout_openfe40_small", "heldout_openfe40_large")
    out = _run(str(E / "bench_tabular_real.py"), "--summarize", *(str(E / f"{n}.json") for n in names))
    text = " ".join((REPO / "docs" / "results" / "tabular.md").read_text().split())
    rows = re.findall(r"^\| (\w+) \| (linear|tree) \| \d+ \| [^|]+ \| ([-+][\d.]+) \+-", out, flags=re.M)
    assert len(rows) == 12
    no_worse = {m: [t for t, mm, d in rows if mm == m and float(d) >= 0] for m in ("linear", "tree")}
    n = sum(map(len, no_worse.values()))
    assert re.search(rf"OpenFE in mean on {n} of 12", out)
    listed = "; ".join(f"{m}: {', '.join(ts)}" for m, ts in no_worse.items())
    assert f"| {n} of 12 ({listed}) | no |" in text, listed
    trees = re.search(r"tree model better than raw in mean on (\d+) of 6", out).group(1)
    assert f"| better than raw with LightGBM | 2 of 6 tables | {trees} of 6 | no |" in text
    ratio = re.search(r"pairs, (\d+)% below 0.5; median by repeat ([\d.]+), ([\d.]+), ([\d.]+);", out).groups()
    median, top = re.search(r"fit time / OpenFE fit time per fold: median ([\d.]+), max ([\d.]+)", out).groups()
    per = [float(v) for v in re.findall(r"^\| \w+ \| ([\d.]+) \| ([\d.]+) \|$", out, flags=re.M) for v in v]
    assert len(per) == 12
    assert (f"| median {median} (by repeat {', '.join(ratio[1:])}), {ratio[0]} % of the 180 pairs below 0.5, max "
            f"{top}; per (table x search) medians {min(per):.2f}-{max(per):.2f} | yes |") in text
    folds = {r["table"]: r["folds"] for n in names for r in json.loads(_record(f"tabular_real/{n}.json"))["results"]}
    kept = {t: sorted(len(f["openfe_formulas"]) for f in fo) for t, fo in folds.items()}
    assert all(kept[t] == [1] * 15 for t in ("airquality", "penguins", "star98"))
    assert all(kept[t] == [40] * 15 for t in ("anes96", "fair"))
    assert (f"{kept['titanic'][0]}-{kept['titanic'][-1]} on titanic and at least 40 on anes96 and fair (every fold "
            "fills the 40 kept)") in text
    ofe = {t: np.median([f["seconds"]["openfe"] for f in fo]) for t, fo in folds.items()}
    order = sorted(ofe, key=ofe.get)
    cells = ", ".join(f"{t} {ofe[t]:.1f}" for t in order)
    search = [f["seconds"][f"metafx-{m}"] for fo in folds.values() for f in fo for m in ("linear", "tree")]
    assert (f"OpenFE took a median of {ofe[order[0]]:.1f}-{ofe[order[-1]]:.0f} s a fold by table ({cells}), a metafx "
            f"search {min(search):.1f}-{max(search):.1f} s.") in text, (cells, min(search), max(search))


def _monotone(repeats: tuple[str, ...]) -> tuple[dict, str]:
    """``monotone_decision.py`` on the stored ``drop_monotone`` runs of ``repeats`` (suffixes): its rows by table
    (the cells after the table's name) and its whole output."""
    E = REPO / "experiments" / "tabular_real"

    def paths(variant):
        return [str(E / f"{d}_monotone_{variant}{r}.json") for d in ("dev", "devcat") for r in repeats]

    out = _run(str(E / "monotone_decision.py"), *paths("new"), "--", *paths("cur"))
    rows = {m[0]: m[1].split(" | ") for m in re.findall(r"^\| (\w+) \| (\d.*?) \|[ |]*$", out, flags=re.M)}
    return rows, out


def _monotone_diffs(repeats: tuple[str, ...]) -> dict:
    """By table (and ``all``), new minus current of the summed gains ``A`` and ``B``, from the stored records."""
    sums: dict = {}
    for variant, sign in (("new", 1.0), ("cur", -1.0)):
        for d in ("dev", "devcat"):
            for rep in repeats:
                for r in json.loads(_record(f"tabular_real/{d}_monotone_{variant}{rep}.json"))["results"]:
                    task = 1.0 if r["task"] == "regression" else -1.0
                    for f in r["folds"]:
                        s = f["scores"]["tree"]
                        for t in (r["table"], "all"):
                            ab = sums.setdefault(t, [0.0, 0.0])
                            ab[0] += sign * task * (s["metafx"] - s["raw"])
                            ab[1] += sign * task * (s["metafx-search"] - s["raw"])
    return sums


def _monotone_failing(rows: dict, diffs: dict) -> str:
    """The rule's checks that fail (RULE_TREE_MONOTONE.md: totals, A lower by > 0.02, B by > 0.05 on a table)."""
    tot = [float(v) for v in rows["all"][1:5]]
    fail = [f"{x} total" for x, ok in (("A", tot[0] >= tot[1]), ("B", tot[2] > tot[3])) if not ok]
    for x, i, limit in (("A", 0, -0.02), ("B", 1, -0.05)):
        low = [f"{t} ({d[i]:+.4f})" for t, d in sorted(diffs.items()) if t != "all" and d[i] < limit]
        fail += [f"{x} on {', '.join(low)}"] if low else []
    return "; ".join(fail)


def test_drop_monotone_tables_are_their_records():
    """docs/results/tabular.md, ``drop_monotone``: the decision's table (repeat 1), the repeats' totals and failing
    checks, the by-table sums over 90 folds and the text's figures are what ``monotone_decision.py`` prints from
    the stored records."""
    page = (REPO / "docs" / "results" / "tabular.md").read_text()
    text = " ".join(page.split())
    r1, out = _monotone(("",))
    assert "decision: NOT ADOPTED" in out
    for t, c in r1.items():
        if t == "all":
            bold = " | ".join(f"**{v}**" for v in c[1:5])
            assert f"| **all** | {c[0]} | {bold} | | |" in page
        else:
            kept = f"{c[5].split(' / ')[1]} / {c[6].split(' / ')[1]}"
            assert f"| {t} | {' | '.join(c[:5])} | {kept} | {c[7]} |" in page, (t, c)
    diffs = _monotone_diffs(("",))
    a, b = {t: d[0] for t, d in diffs.items()}, {t: d[1] for t, d in diffs.items()}
    assert f"(`B` {b['cps1985']:.4f} lower:" in text and f"and salaries ({b['salaries']:.4f})" in text
    assert f"gained {a['all']:+.4f} over the current code" in text
    assert f"no table lower by more than {-min(v for t, v in a.items() if t != 'all'):.4f}" in text
    for label, repeats in (("repeat 1 (the decision)", ("",)), ("repeat 2", ("_r2",)), ("repeat 3", ("_r3",)),
                           ("all 90", ("", "_r2", "_r3"))):
        rows = _monotone(repeats)[0]
        assert f"| {label} | {' | '.join(rows['all'][1:5])} | {_monotone_failing(rows, _monotone_diffs(repeats))} |" in page, label
    rows = _monotone(("", "_r2", "_r3"))[0]
    by = ", ".join(f"{t} {rows[t][1]} / {rows[t][2]}" for t in ("breast_cancer", "wine", "diabetes", "cps1985",
                                                                  "hmda", "salaries"))
    assert f"By table over the 90 folds (new / current), `A`: {by}." in text, by
    lost = {t: rows[t][7].split(" / ")[1].split(" of ") for t in ("breast_cancer", "wine")}
    assert (f"lose {lost['breast_cancer'][0]} of {lost['breast_cancer'][1]} one-column transforms on breast_cancer "
            f"and {lost['wine'][0]} of {lost['wine'][1]} on wine") in text


def _table_rows(out: str) -> dict:
    """A script's markdown rows by their first cell (two cells for ``openfe_at_folds.py``'s table x model)."""
    rows = {}
    for line in out.splitlines():
        if line.startswith("| ") and not line.startswith(("| table ", "|---")):
            cells = [c.strip() for c in line.strip("|").split("|")]
            rows[cells[0] if cells[1] not in ("tree", "linear") else (cells[0], cells[1])] = cells[1:]
    return rows


def test_residual_rescore_tables_are_their_records():
    """docs/results/tabular.md, ``rescore_by="residual"``: the dev decision's table and criteria
    (``residual_decision.py``), the held-out table with the option (``residual_decision.py --info`` and
    ``openfe_at_folds.py --summary``) and OpenFE against every default (``openfe_at_folds.py --summary``), from the
    stored records."""
    E = REPO / "experiments" / "tabular_real"
    page = (REPO / "docs" / "results" / "tabular.md").read_text()
    text = " ".join(page.split())

    def paths(*names):
        return [str(E / f"{n}.json") for n in names]

    reps = ("", "_r2", "_r3")
    out = _run(str(E / "residual_decision.py"), *paths(*(f"{d}_residual_new{r}" for d in ("dev", "devcat") for r in reps)),
               "--", *paths(*(f"{d}_monotone_cur{r}" for d in ("dev", "devcat") for r in reps)))
    assert "decision: NOT ADOPTED" in out
    probe = text[text.index("probe_residual.py --folds 0 1"):text.index("OpenFE's own features do not help")]
    assert "no record of these runs was stored; rerun the two commands above" in probe
    assert not re.search(r"[-+]?\d+\.\d+|\d+ of \d+", probe.split("--residual-params", 1)[1].split("}'", 1)[1])
    metric = {"breast_cancer": "log-loss", "wine": "log-loss", "diabetes": "R^2", "cps1985": "R^2", "hmda": "log-loss",
              "salaries": "R^2"}
    dev = _table_rows(out)
    assert set(dev) == {*metric, "all"}
    for t, m in metric.items():
        assert f"| {t} ({m}) | {' | '.join(dev[t][1:])} |" in page, t
    with_out = [sum(int(dev[t][-1].split(" / ")[i]) for t in metric) for i in (0, 1)]
    a = dev["all"]
    assert (f"| **all (90 folds)** | **{a[1]}** | **{a[2]}** | | | {a[5]} | {a[6]} | {with_out[0]} / {with_out[1]} |"
            in page)
    higher, lower = re.search(r"new higher / lower: (\d+) / (\d+)", out).groups()
    worst = re.search(r"worst table A\(new\) - A\(current\) -([\d.]+)", out).group(1)
    diabetes = float(dev["diabetes"][2]) - float(dev["diabetes"][1])
    assert (f"Criteria 1-3 hold ({a[1]} > {a[2]}; {a[1]} > 0; of the {int(higher) + int(lower)} folds where the "
            f"outputs differ, new is higher in {higher} and lower in {lower}), criterion 4 fails: breast_cancer's `A` "
            f"is {worst} below current's (and diabetes's {diabetes:.4f})") in text
    runs: dict = {}
    for variant, stem in (("new", "residual_new"), ("current", "monotone_cur")):
        for d in ("dev", "devcat"):
            for r in reps:
                for res in json.loads(_record(f"tabular_real/{d}_{stem}{r}.json"))["results"]:
                    runs.setdefault((res["table"], variant), []).extend(f["seconds"]["metafx-tree"]
                                                                        for f in res["folds"])
    secs = ", ".join(f"{t} {np.median(runs[(t, 'new')]):.1f} / {np.median(runs[(t, 'current')]):.1f}"
                     for t in ("breast_cancer", "hmda", "cps1985", "diabetes"))
    assert f"new / current, different runs on the shared machine: {secs})" in text, secs
    info = _table_rows(_run(str(E / "residual_decision.py"), "--info",
                            *paths("heldout_residual_small", "heldout_residual_large"), "--",
                            *paths("heldout_main_small", "heldout_main_large", "heldout_main_large_r2",
                                   "heldout_main_large_r3")))
    ofe = _table_rows(_run(str(E / "openfe_at_folds.py"), *paths("heldout_residual_small", "heldout_residual_large"),
                           "--out", str(E / "heldout_residual_openfe.json"), "--summary"))
    for t, m in (("titanic", "log-loss"), ("airquality", "R^2"), ("penguins", "R^2"), ("star98", "R^2"),
                 ("anes96", "log-loss"), ("fair", "log-loss")):
        vs_ofe = ofe[(t, "tree")][2].replace(" +- 0.0000 (0/0)", " (0/0)")
        assert f"| {t} ({m}) | {info[t][3]} | {info[t][4]} | {vs_ofe} | {info[t][7]} | " in page, t
    assert f"every kept set, summed: {info['all'][1]} (current defaults: {info['all'][2]})" in text
    mean = {t: float(c[3].split()[0]) for t, c in info.items() if t != "all"}
    sign = {t: "better" if v > 0 else "worse" if info[t][3].startswith("-") else "equal" for t, v in mean.items()}
    assert sorted(t for t, v in sign.items() if v == "better") == ["anes96", "penguins"]
    assert sorted(sign.values()).count("worse") == 2 and sorted(sign.values()).count("equal") == 2
    assert "better than raw in mean on 2 of 6 held-out tables (penguins, anes96)" in text
    assert (f"(+{float(info['penguins'][1]):.3f} and +{float(info['anes96'][1]):.3f} over 15 folds), equal on 2 (no "
            f"output in any fold) and worse on 2 by at most {-min(mean.values()):.4f}") in text
    dev_mean = {t: float(dev[t][3].split()[0]) for t in metric}
    cur_mean = {t: float(dev[t][4].split()[0]) for t in metric}
    pos = [v for v in dev_mean.values() if v > 0]
    assert (f"better than raw in mean on {len(pos)} of 6 dev tables, never worse (the current: "
            f"{sum(v > 0 for v in cur_mean.values())} of 6), but by {min(pos):+.4f} to {max(pos):+.4f} a fold") in text
    assert min(dev_mean.values()) >= 0
    main = paths("heldout_main_small", "heldout_main_large", "heldout_main_large_r2", "heldout_main_large_r3")
    ofe = _table_rows(_run(str(E / "openfe_at_folds.py"), *main, "--models", "tree", "linear",
                           "--out", str(E / "heldout_main_openfe.json"), "--summary"))
    assert len(ofe) == 12
    for (t, m), c in ofe.items():
        assert f"| {t} | {m} | {' | '.join(c[2:])} |" in page, (t, m)
    no_worse = {m: [t for (t, mm), c in ofe.items() if mm == m and not c[2].startswith("-")] for m in ("linear", "tree")}
    listed = "; ".join(f"{m}: {', '.join(ts)}" for m, ts in no_worse.items())
    n = sum(map(len, no_worse.values()))
    assert f"**not met, {n} of 12** ({listed})" in text, listed
    seconds = [v["seconds"] for v in json.loads(_record("tabular_real/heldout_main_openfe.json")).values()]
    assert f"OpenFE's fit took a median {np.median(seconds):.1f} s a fold in these runs ({len(seconds)} (fold x model) rows;" in text


def test_every_default_heldout_table_is_its_records():
    """docs/results/tabular.md, the held-out real tables with every default of this release: metafx minus raw per
    table and model, and the tables each model gains on, as ``bench_tabular_real.py --summarize`` prints them from
    the stored ``heldout_main_*.json``."""
    E = REPO / "experiments" / "tabular_real"
    out = _run(str(E / "bench_tabular_real.py"), "--summarize",
               *(str(E / f"heldout_main_{n}.json") for n in ("small", "large", "large_r2", "large_r3")))
    page = (REPO / "docs" / "results" / "tabular.md").read_text()
    text = " ".join(page.split())
    rows = _table_rows(out[out.index("| table | model | folds | metafx - raw"):])
    assert len(rows) == 12
    for t, m in (("titanic", "log-loss"), ("airquality", "R^2"), ("penguins", "R^2"), ("star98", "R^2"),
                 ("anes96", "log-loss"), ("fair", "log-loss")):
        assert f"| {t} ({m}) | {rows[(t, 'linear')][2]} | {rows[(t, 'tree')][2]} |" in page, t
    linear = re.search(r"linear model better than raw in mean on (\d+) of 6", out).group(1)
    trees = re.search(r"tree model better than raw in mean on (\d+) of 6", out).group(1)
    assert f"The linear model gains on {linear} of 6 tables" in text and trees == "0"
    assert "LightGBM on none (target: 2 of 6)" in text


def test_rescore_follow_up_tables_are_their_records():
    """docs/results/tabular.md, after ``rescore=8``'s decision: the former held-out seeds 10-14 (ratio, log_ratio;
    ``bench_tabular_planted.py --summarize``, before from ``heldout*.json``), the dev tables' linear gains
    (``bench_tabular_real.py --summarize`` and ``--paired``) and the cost table (its record
    ``rescore_time_seed0.md``)."""
    P, E = REPO / "experiments" / "tabular_planted", REPO / "experiments" / "tabular_real"
    page = (REPO / "docs" / "results" / "tabular.md").read_text()
    text = " ".join(page.split())

    def planted(*names):
        out = "".join(_run(str(P / "bench_tabular_planted.py"), "--summarize", str(P / f"{n}.json")) for n in names)
        return {(m[0], int(m[1])): (int(m[2]), m[3]) for m in
                re.findall(r"^\| (\w+) \| (\d+) \| (\d+)[^|]*\| [\d.]+ \| [-\d.]+ -> ([-\d.]+) \|", out, flags=re.M)}

    before, after = planted("heldout", "heldout_12_14"), planted("seeds10_14_ratio_logratio")
    seeds = (10, 11, 12, 13, 14)
    for g in ("ratio", "log_ratio"):
        hits = " | ".join(f"{before[(g, s)][0]} -> {after[(g, s)][0]}" for s in seeds)
        scores = " -> ".join(" ".join(run[(g, s)][1].replace("0.", ".") for s in seeds) for run in (before, after))
        assert f"| {g} | {hits} | {scores} |" in page, (g, hits, scores)

    def gains(name):
        out = _run(str(E / "bench_tabular_real.py"), "--summarize", str(REPO / "experiments" / name))
        return dict(re.findall(r"^\| (\w+) \(dev\) \| linear \|(?: [^|]+ \|){5} ([-+][\d.]+) \(", out, flags=re.M))

    new, old = gains("tabular_planted/real_dev_linear_rescore.json"), gains("tabular_real/i35_dev_linear_new.json")
    paired = dict(re.findall(r"^\| (\w+) \| linear \| ([-+][\d.]+ \(\d+/\d+\)) \|", _run(
        str(E / "bench_tabular_real.py"), "--paired", str(P / "real_dev_linear_rescore.json"),
        str(E / "i35_dev_linear_new.json")), flags=re.M))
    bc, w = (re.match(r"([-+][\d.]+) \((\d+)/(\d+)\)", paired[t]).groups() for t in ("breast_cancer", "wine"))
    assert (f"breast_cancer {new['breast_cancer']} (was {old['breast_cancer']}; paired {bc[0]}, {bc[1]}/{bc[2]} "
            f"folds), wine {new['wine']} (was {old['wine']}; {w[0]}, {w[1]}/{w[2]}), diabetes {new['diabetes']} "
            "(the same sets)") in text
    assert new["diabetes"] == old["diabetes"] and paired["diabetes"] == "+0.0000 (0/0)"
    assert "evaluator calls per fit" not in text  # their count was never stored
    cost = (P / "rescore_time_seed0.md").read_text()
    rows = [line for line in cost.splitlines() if line.startswith("| ")]
    assert len(rows) == 8 and all(row in page for row in rows), [r for r in rows if r not in page]
    ratios = [float(r.split("|")[4]) for r in rows[1:]]
    geo = re.search(r"geometric mean of the ratios: ([\d.]+)", cost).group(1)
    assert f"{np.exp(np.mean(np.log(ratios))):.2f}" == geo and f"geometric mean of the ratios: {geo}" in text
    assert f"about {float(geo):.1f} times as long ({min(ratios):.1f}-{max(ratios):.1f})" in text


def _rule(*names: str) -> tuple[dict, str]:
    """``bench_tabular_real.py --rule`` on stored records: its rows ``(candidate, table) -> cells`` and its output."""
    E = REPO / "experiments" / "tabular_real"
    out = _run(str(E / "bench_tabular_real.py"), "--rule", *(str(E / f"{n}.json") for n in names))
    rows = {(m[0], m[1]): m[2].split(" | ") for m in re.findall(r"^\| (\S+) \| (\w+) \| (\d+ of \d+ \|.*?) \|$", out,
                                                                 flags=re.M)}
    return rows, out


def test_tree_confirmation_rule_tables_are_their_records():
    """docs/results/tabular.md, item 4 (the tree set's confirmation): the dev decision's table and text and the
    held-out table are what ``bench_tabular_real.py --rule`` prints from the stored records."""
    page = (REPO / "docs" / "results" / "tabular.md").read_text()
    text = " ".join(page.split())
    dev_names = [f"{d}_confirm_candidates_r{r}" for d in ("dev", "devcat") for r in (1, 2, 3)]
    dev, out = _rule(*dev_names)
    assert "decision: FRESH (C* replaces the default)" in out
    labels = {"T3x3@0.05": "`T3x3@0.05` (former default)", "FRESH": "**`FRESH`**"}
    for c in ("T3x3@0.05", "T3x3@0.10", "T3x3@0.25", "T3x3@0.50", "T5x3@0.05", "T5x3@0.25", "FRESH", "NONE"):
        cells = list(dev[(c, "all")])
        cells[1] = f"**{cells[1]}**" if c == "FRESH" else cells[1]
        assert f"| {labels.get(c, f'`{c}`')} | {' | '.join(cells)} |" in page, c
    by = ", ".join(f"{t} {dev[('FRESH', t)][1]}" for t in ("breast_cancer", "wine", "diabetes", "cps1985", "hmda",
                                                           "salaries"))
    assert f"`FRESH` by table (net): {by}." in text, by
    n, pos, neg, lower = re.search(r"where they differ \((\d+) folds\) g > 0 in (\d+), < 0 in (\d+) \(3: True\); "
                                   r"lower than T3x3@0.05 on (\d+) of 6", out).groups()
    assert (f"Where `FRESH` and the test decide differently ({n} folds) `g` is positive in {pos} and negative in {neg}; "
            f"it is lower than the test on {lower} table.") in text
    first, out1 = _rule(*(n for n in dev_names if n.endswith("r1")))
    assert first[("FRESH", "all")][0].endswith(" of 30")
    assert "decision: T3x3@0.05 (the default stays)" in out1
    assert f"(30 folds) no candidate beat the test (`FRESH` net {first[('FRESH', 'all')][1]})" in text
    second = _rule(*(n for n in dev_names if n.endswith("r2")))[1]
    assert "decision: T3x3@0.50 (C* replaces the default)" in second and "on the second `T3x3@0.50` would have won" in text
    t, a = dev[("T3x3@0.05", "all")], dev[("NONE", "all")]
    assert f"(gain lost {t[5]} against harm prevented {t[4]})" in text and a[2] == t[5]

    held, out = _rule("heldout_openfe_small", "heldout_openfe_small_r23", "heldout_openfe_large",
                      *(f"heldout_openfe_{t}_r{r}" for t in ("anes96", "fair") for r in (2, 3)))
    assert "decision: T3x3@0.05 (the default stays)" in out
    assert held[("T3x3@0.10", "all")] == held[("T3x3@0.25", "all")]
    for c, label in (("T3x3@0.05", "`T3x3@0.05`"), ("T3x3@0.10", "`T3x3@0.10`, `T3x3@0.25`"),
                     ("T3x3@0.50", "`T3x3@0.50`"), ("T5x3@0.05", "`T5x3@0.05`"), ("T5x3@0.25", "`T5x3@0.25`"),
                     ("FRESH", "`FRESH` (the new default)"), ("NONE", "`NONE`")):
        assert f"| {label} | {' | '.join(held[(c, 'all')][:4])} |" in page, c
    aq = held[("FRESH", "airquality")]
    assert f"(airquality `Solar.R / Wind`: {aq[1]} over {aq[0].split()[0]} folds)" in text
    none = held[("NONE", "all")]
    assert none[0] == "90 of 90" and f"(+0.1609 in all, against {none[3]} of harm)" in text and none[2] == "+0.1609"


def test_screen_dev_linear_and_confirm_levels_tables_are_their_records():
    """docs/results/tabular.md, the candidate screen: the dev tables' linear gains with the new and the former
    defaults (``bench_tabular_real.py --summarize`` / ``--paired``; the per-fold difference's std from the records)
    and the confirmation levels' table (``bench_tabular_confirm_levels.py``), from the stored records."""
    E = REPO / "experiments" / "tabular_real"
    page = (REPO / "docs" / "results" / "tabular.md").read_text()
    text = " ".join(page.split())

    def gains(name):
        out = _run(str(E / "bench_tabular_real.py"), "--summarize", str(E / f"{name}.json"))
        return dict(re.findall(r"^\| (\w+) \(dev\) \| linear \|(?: [^|]+ \|){5} ([-+][\d.]+) \(", out, flags=re.M))

    new, old = gains("i35_dev_linear_new"), gains("i35_dev_linear_old")
    paired = dict(re.findall(r"^\| (\w+) \| linear \| ([-+][\d.]+) \(", _run(
        str(E / "bench_tabular_real.py"), "--paired", str(E / "i35_dev_linear_new.json"),
        str(E / "i35_dev_linear_old.json")), flags=re.M))
    runs = {n: {r["table"]: r for r in json.loads(_record(f"tabular_real/i35_dev_linear_{n}.json"))["results"]}
            for n in ("new", "old")}
    for t in ("breast_cancer", "wine", "diabetes"):
        sign = 1.0 if runs["new"][t]["task"] == "regression" else -1.0
        d = [sign * (a["scores"]["linear"]["metafx"] - b["scores"]["linear"]["metafx"])
             for a, b in zip(runs["new"][t]["folds"], runs["old"][t]["folds"], strict=True)]
        assert f"{np.mean(d):+.4f}" == paired[t]
        assert abs(np.mean(d)) <= np.std(d, ddof=1)  # part (b): no table lower by more than its std
        assert f"| {t} | {new[t]} | {old[t]} | {paired[t]} | {np.std(d, ddof=1):.4f} |" in page, t
    out = _run(str(E / "bench_tabular_confirm_levels.py"), str(E / "dev_3x5_confirm_test.json"),
               str(E / "devcat_3x5_confirm_test.json"), "--alphas", "0.05", "0.25")
    rows = _table_rows(out)
    assert len(rows) == 7
    for t, c in rows.items():
        cells = [re.sub(r"(?<![\d.])\+0\.0000(?![\d])", "0", v) for v in c[:4]]
        assert f"| {t} | {' | '.join(cells)} |" in page, (t, cells)
    kept, net, harm = re.match(r"(\d+), ([-+][\d.]+), ([-+][\d.]+)", rows["all"][3]).groups()
    assert f"The {kept} sets only 0.25 keeps gain {float(net) - float(harm):+.3f} in all and harm {float(harm):.3f}" in text


def test_screen_heldout_text_and_openfe_run_ratios_are_their_records():
    """docs/results/tabular.md: the held-out seeds 10-14's text (folds producing the ratio and ``log(a)``, the R^2
    range) from ``bench_tabular_planted.py --summarize``, and the fit-time ratios within the OpenFE runs from
    ``bench_tabular_real.py --summarize`` of the seven ``heldout_openfe_*.json``."""
    P, E = REPO / "experiments" / "tabular_planted", REPO / "experiments" / "tabular_real"
    text = " ".join((REPO / "docs" / "results" / "tabular.md").read_text().split())
    out = "".join(_run(str(P / "bench_tabular_planted.py"), "--summarize", str(P / f"{n}.json"))
                  for n in ("heldout", "heldout_12_14"))
    ratio = {int(s): n for s, n in re.findall(r"^\| ratio \| (\d+) \| (\d+) \|", out, flags=re.M)}
    logs = {int(m[0]): (m[1], float(m[2]), float(m[3])) for m in re.findall(
        r"^\| log_ratio \| (\d+) \| \d+ \((\d+) / 5\) \| [\d.]+ \| ([\d.]+) -> ([\d.]+) \|", out, flags=re.M)}
    assert sorted(ratio) == sorted(logs) == [10, 11, 12, 13, 14]
    assert f"The ratio is produced in {', '.join(ratio[s] for s in sorted(ratio))} folds" in text
    assert f"`log(a)` in {', '.join(logs[s][0] for s in sorted(logs))} folds" in text
    raw, feat = [v[1] for v in logs.values()], [v[2] for v in logs.values()]
    assert f"(R^2 still {min(raw):.2f}-{max(raw):.2f} -> {min(feat):.2f}-{max(feat):.2f})" in text
    names = ["small", "small_r23", "large", *(f"{t}_r{r}" for t in ("anes96", "fair") for r in (2, 3))]
    out = _run(str(E / "bench_tabular_real.py"), "--summarize", *(str(E / f"heldout_openfe_{n}.json") for n in names))
    per = [float(v) for pair in re.findall(r"^\| \w+ \| ([\d.]+) \| ([\d.]+) \|$", out, flags=re.M) for v in pair]
    median, top = re.search(r"fit time / OpenFE fit time per fold: median ([\d.]+), max ([\d.]+)", out).groups()
    assert len(per) == 12 and "180 (fold x search) pairs" in out
    assert (f"the ratios are {min(per):.2f}-{max(per):.2f} by (table x search), median {median} over the 180 "
            f"(fold x search) pairs, max {top}") in text


def test_final_defaults_text_is_its_records():
    """docs/results/tabular.md, the held-out tables with the final defaults: the kept tree sets' losses and the
    fit-time column's figures in the targets' text are what ``bench_tabular_real.py --summarize`` prints."""
    E = REPO / "experiments" / "tabular_real"
    final = [str(E / f"heldout_final_{n}.json") for n in ("large", "large_r2", "large_r3", "small")]
    openfe = [str(E / f"heldout_openfe_{n}.json") for n in ("anes96_r2", "anes96_r3", "fair_r2", "fair_r3", "large",
                                                              "small", "small_r23")]
    out = _run(str(E / "bench_tabular_real.py"), "--summarize", *final, "--openfe-from", *openfe)
    text = " ".join((REPO / "docs" / "results" / "tabular.md").read_text().split())
    tree = [float(m) for m in re.findall(r"^\| \w+ \| tree \| 15 \| ([-+][\d.]+) ", out, flags=re.M)]
    assert len(tree) == 6 and max(tree) < 0
    assert f"worse in mean on all six, by {-max(tree):.4f} to {-min(tree):.4f})" in text
    below = re.search(r"180 \(fold x search\) pairs, (\d+)% below 0.5", out).group(1)
    median, top = re.search(r"per fold: median ([\d.]+), max ([\d.]+)", out).groups()
    per = [float(v) for pair in re.findall(r"^\| \w+ \| ([\d.]+) \| ([\d.]+) \|$", out, flags=re.M) for v in pair]
    assert len(per) == 12 and float(top) > 1
    assert (f"The table's column (median {median}, {below} % below 0.5, every (table x search) median at most "
            f"{max(per):.2f}, one pair of 180 above 1)") in text
