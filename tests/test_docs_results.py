"""The README's headline numbers and the results pages' tables are the ones their stored records give.

The records are read from the experiments' archives and the tables computed by the experiments' own scripts, run
as commands (``experiments/records.py cat``, ``experiments/tables.py --json``, ``experiments/transfer/analyse.py
--json``): no test imports ``experiments/``."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from functools import lru_cache

import numpy as np
from conftest import REPO


def _run(*args: str) -> str:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, check=True, cwd=REPO).stdout


@lru_cache(maxsize=None)
def _record(member: str) -> str:
    """A stored record, ``<experiment>/<path>``, from its experiment's archive."""
    return _run(str(REPO / "experiments" / "records.py"), "cat", member)


def _jsonl(member: str) -> list[dict]:
    return [json.loads(line) for line in _record(member).splitlines() if line.strip()]


def _stats(errors, ddof: int = 1) -> tuple[float, float, int]:
    a = 100 * np.asarray(errors, dtype=float)
    return float(a.mean()), float(a.std(ddof=ddof)) if len(a) > 1 else 0.0, len(a)


@lru_cache(maxsize=None)
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
    per = {J: [w < c for w, c in zip(t[("warm", J)]["per_seed"], t[("cold", J)]["per_seed"])] for J in (5, 10, 20, 50)}
    assert [sum(per[J]) for J in (5, 10, 20, 50)] == [4, 4, 3, 2]
    beats = sum(w <= c for w, c in zip(t[("warm", 10)]["per_seed"], t[("cold", 50)]["per_seed"]))
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
        for cell, budget in zip(cells, (250, 500, 1000, 2000, 3000, 6000, 12000)):
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
        for cell, arm in zip(cells, ("cold", "points", "trajectories")):
            t = s["table"][f"{arm} J={J}"]
            assert cell == f"{t['mean']:.2f} ± {t['std']:.2f}", (J, arm)
    rule = _transfer_summary(tmp_path, list(range(8)))["decision"]
    assert rule["adopted"] and rule["negative_seeds"] == 6
    assert f"{rule['mean_d']:+.2f} ± {rule['se']:.2f}" in page


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
RECORDS = REPO / "benchmarks" / "records"


def _mufasa_row(record: str) -> str:
    """The speed page's table row of one ``bench_mufasa.py`` record: yardsticks, the split, the peak memory."""
    text = (RECORDS / record).read_text()
    n = re.search(r"budget 3000, 50 steps, (\d+) MNIST images", text).group(1)
    search = re.search(r"^  search +([\d.]+) yardsticks", text, flags=re.M).group(1)
    parts = [re.search(rf"^  {name} +[\d.]+ yardsticks +([\d.]+ %)", text, flags=re.M).group(1)
             for name in ("drawing features", "computing features", r"classifier \(CV SVM\)", "other")]
    peak = re.search(r"peak memory (\d+ MB)", text).group(1)
    return f"| {n} | {search} | " + " | ".join(parts) + f" | {peak} | `benchmarks/records/{record}` |"


def test_speed_page_is_its_records():
    page = (REPO / "docs" / "results" / "speed.md").read_text()
    for record in ("mufasa_2000.txt", "mufasa_8000.txt"):
        assert _mufasa_row(record) in page, _mufasa_row(record)
    # every row of the search table names its record
    rows = re.findall(r"^\| \d+ \| .*$", page, flags=re.M)
    assert rows and all("benchmarks/records/" in row for row in rows)


def test_plugin_family_speed_is_its_record():
    """The plugin-family table of the speed page is the benchmark's stored rows."""
    import json

    page = (REPO / "docs" / "results" / "speed.md").read_text()
    rows = json.loads((RECORDS / "plugin_family_window_or.json").read_text())
    assert len(rows) == 9
    for r in rows:
        cells = f"| {r['partition']} | "
        line = next(line for line in page.splitlines() if line.startswith(cells) and (
            r["engine"].split(":")[0] in line and (("pool_rows" in line) == ("pool_rows" in r["engine"]))))
        assert f"| {r['wall']:.1f} | {r['compute']:.1f} | {r['evaluate']:.1f} | {100 * r['holdout_error']:.2f} |" in line


def test_tabular_draw_speed_is_its_record():
    """The tabular family's draw-share table of the speed page is the benchmark's stored rows (the family before
    and after its draw was batched, in one run)."""
    import json

    page = (REPO / "docs" / "results" / "speed.md").read_text()
    rows = json.loads((RECORDS / "plugin_family_tabular.json").read_text())
    assert {r["family"] for r in rows} == {"tabular", "tabular@f4db1ac"} and len(rows) == 4
    for r in rows:
        line = next(line for line in page.splitlines() if line.startswith(f"| `{r['family']}` | {r['engine']} |"))
        assert (f"| {r['wall']:.1f} | {r['draw']:.1f} | {r['compute']:.1f} | {r['evaluate']:.1f} | "
                f"{r['draw'] / r['wall']:.2f} |") in line, line


def test_tabular_cli_draw_is_its_record():
    """The speed page's command-line table (the tabular family before and after its batched draw) is the record."""
    page = (REPO / "docs" / "results" / "speed.md").read_text()
    runs = (RECORDS / "tabular_cli_draw.txt").read_text().splitlines()[1:]
    assert len(runs) == 4
    for order, run in zip(("1st", "2nd", "3rd", "4th"), runs):
        wall = float(re.search(r"wall ([\d.]+) s", run).group(1))
        d, c, e = (float(x) for x in re.search(r"draw ([\d.]+) s, compute ([\d.]+) s, evaluate ([\d.]+) s", run).groups())
        plugin = "f4db1ac (before)" if run.startswith("before") else "this change"
        assert (f"| {order} | {plugin} | {wall:.1f} | {d:.2f} | {c:.2f} | {e:.2f} | {d / wall:.2f} | "
                f"{d / (d + c + e):.2f} |") in page, run


def test_prediction_speed_is_its_record():
    text = (RECORDS / "classifier_predict.txt").read_text()
    t, p, pr, f, fr = re.search(r"transform +([\d.]+) .*\npipeline +([\d.]+) +([\d.]+)\nFeatureClassifier +([\d.]+) +"
                                r"([\d.]+)", text).groups()
    ratio = re.search(r"pipeline / FeatureClassifier: ([\d.]+)", text).group(1)
    page = (REPO / "docs" / "results" / "evaluation_speed.md").read_text()
    assert f"| {t} | 1.00 |" in page and f"| {p} | {pr} |" in page and f"| {f} | {fr} |" in page
    assert f"Pipeline / FeatureClassifier {ratio};" in page


def test_export_speed_is_its_record():
    text = (RECORDS / "export.txt").read_text()
    rows = [line for line in text.splitlines() if re.match(r"^\| a=\d ", line)]
    assert len(rows) == 4
    page = (REPO / "docs" / "results" / "export.md").read_text()
    for row in rows:
        assert row in page, row


def test_optuna_pages_are_their_records():
    """docs/results/optuna_storage.md: the storage table and the heartbeat times are what the stored output says."""
    page = (REPO / "docs" / "results" / "optuna_storage.md").read_text()
    text = (RECORDS / "optuna_storage.txt").read_text()
    for name, label in (("memory", "memory"), ("sqlite", "SQLite")):
        cells = re.search(rf"^{name} +(.*)$", text, flags=re.M).group(1).split()
        assert f"| {label} | " + " | ".join(cells) + " |" in page, name
    beat = _record("optuna_heartbeat/heartbeat_runs.txt")
    times = re.findall(r"trial 0: FAIL at .*, finished ([\d.]+) s after the kill", beat)
    assert len(times) == 3 and f"{times[0]}, {times[1]} and {times[2]} s after the kill" in " ".join(page.split())


def test_net_timings_are_their_record():
    """docs/results/bounds.md: the net hierarchy's table is the rows bench_nets.py printed."""
    rows = [line for line in (RECORDS / "nets.txt").read_text().splitlines() if re.match(r"^\| (uniform|digits) ", line)]
    page = (REPO / "docs" / "results" / "bounds.md").read_text()
    assert len(rows) == 7 and all(row in page for row in rows)
