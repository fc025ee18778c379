"""The report: analyse a real tournament folder and write markdown, HTML and PNG figures."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from negotiation_platform.errors import NegotiationError
from negotiation_platform.tournament import run_tournament

pytest.importorskip("matplotlib")

from negotiation_platform.report import write_report

PNG = b"\x89PNG\r\n\x1a\n"


def test_report_writes_tables_and_figures(tmp_path: Path) -> None:
    run_tournament(
        ["split_100", "company_car", "auction"], ["random", "concession"], seeds=2, swap_roles=True, out=tmp_path
    )
    written = write_report(tmp_path, samples=20)
    names = {path.name for path in written}
    assert {"report.md", "report.html", "ratings.png", "split_100_outcomes.png", "split_100_concession.png",
            "company_car_payoffs.png", "auction_payoffs.png"} <= names  # fmt: skip
    assert "auction_outcomes.png" not in names  # three seats: no two-role scatter
    for path in written:
        assert path.exists() and path.stat().st_size > 0
        if path.suffix == ".png":
            assert path.read_bytes().startswith(PNG)
    markdown = (tmp_path / "report.md").read_text()
    assert "## split_100: meta-game" in markdown and "![ratings.png](figures/ratings.png)" in markdown
    assert "<img src='figures/ratings.png'" in (tmp_path / "report.html").read_text()
    analysis = json.loads((tmp_path / "analysis.json").read_text())
    assert sum(analysis["metagame"]["auction"]["nash"]) == pytest.approx(1.0)


def test_report_of_an_empty_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(NegotiationError):
        write_report(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "negotiation_platform.cli.main", "report", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and done.stderr.startswith("negotiation-platform report: ")
    assert not (tmp_path / "report.md").exists()
