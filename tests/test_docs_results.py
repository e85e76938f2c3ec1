"""The README's headline numbers and the results pages' tables are the ones their stored records give.

The tables come from the experiments' own scripts, run as commands (``experiments/tables.py --json``,
``experiments/transfer/analyse.py --json``) over the records in the experiments' archives: no test imports
``experiments/``."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from functools import lru_cache

from conftest import REPO


@lru_cache(maxsize=None)
def _tables() -> dict:
    out = subprocess.run([sys.executable, str(REPO / "experiments" / "tables.py"), "--json"], capture_output=True,
                         text=True, check=True, cwd=REPO)
    return json.loads(out.stdout)


def _transfer_summary(tmp_path, seeds: list[int] | None = None) -> dict:
    out = tmp_path / f"summary_{len(seeds or [])}.json"
    cmd = [sys.executable, str(REPO / "experiments" / "transfer" / "analyse.py"), "--json", str(out)]
    subprocess.run(cmd + (["--seeds", *map(str, seeds)] if seeds else []), capture_output=True, text=True,
                   check=True, cwd=REPO)
    return json.loads(out.read_text())


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
    """The MNIST page's `guided` row (partitions 0-9, 7 budgets) is the stored protocol records' mean ± std."""
    per_budget = _tables()["protocol_guided"]
    page = (REPO / "docs" / "results" / "mnist.md").read_text()
    cells = _row(page, "guided").split(" | ")
    for cell, budget in zip(cells, (250, 500, 1000, 2000, 3000, 6000, 12000)):
        mean, std, n = per_budget[str(budget)]
        assert cell == f"{mean:.2f} ± {std:.2f} ({n})", f"budget {budget}"


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
