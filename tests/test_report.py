"""The report: analyse a real tournament folder and write markdown, HTML and PNG figures."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from negotiation_platform.errors import NegotiationError
from negotiation_platform.research.tournament import run_tournament

pytest.importorskip("matplotlib")

from negotiation_platform.registry import Registry
from negotiation_platform.research.report import concession_figure, outcome_figure, write_report
from negotiation_platform.research.report_format import Unit, cell

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
    page = (tmp_path / "report.html").read_text()
    assert "<img src='figures/ratings.png'" in page
    assert "<style>" in page and "<link" not in page and "http" not in page  # styled, and offline
    assert "e+0" not in page and "e+0" not in markdown  # company_car's utilities are written 38,710, not 3.871e+04
    assert "%</td>" in page  # agreement rates and Nash weights are percentages
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


@pytest.mark.parametrize(
    ("value", "unit", "written"),
    [
        (38709.6, Unit.AMOUNT, "38,710"),
        (-1234.5, Unit.AMOUNT, "-1,234"),
        (45.5, Unit.AMOUNT, "45.50"),
        (0.6667, Unit.SHARE, "66.7%"),
        (12, Unit.COUNT, "12"),
        (1234567, Unit.COUNT, "1,234,567"),
        (1512.4, Unit.RATING, "1,512"),
        (3.25, Unit.ROUNDS, "3.2"),
        (float("nan"), Unit.AMOUNT, "–"),
        (None, Unit.SHARE, "–"),
        ("concession", Unit.TEXT, "concession"),
    ],
)
def test_numbers_are_written_for_their_unit(value: object, unit: Unit, written: str) -> None:
    assert cell(value, unit) == written


def test_figures_name_the_roles_and_count_rounds_in_whole_numbers(tmp_path: Path) -> None:
    run_tournament(["company_car"], ["concession", "batna"], seeds=2, swap_roles=True, out=tmp_path)
    import matplotlib.pyplot as plt

    from negotiation_platform.research.analysis import analyze
    from negotiation_platform.research.tournament import finished_rows

    matches = analyze(list(finished_rows(tmp_path).values()), samples=5)["matches"]
    outcomes = outcome_figure("company_car", matches, Registry())
    axes = outcomes.axes[0]
    assert (axes.get_xlabel(), axes.get_ylabel()) == ("utility of Party A", "utility of Party B")
    curves = concession_figure("company_car", matches).axes[0]
    assert curves.get_xlabel() == "round" and curves.get_ylabel()
    ticks = [t for t in curves.get_xticks() if curves.get_xlim()[0] <= t <= curves.get_xlim()[1]]
    assert ticks and all(float(t).is_integer() for t in ticks)
    plt.close("all")


def test_llm_usage_cost_and_failed_matches_have_their_tables(tmp_path: Path) -> None:
    from tests.fake_openai import FakeModel, closed_port, serve

    down = f"http://127.0.0.1:{closed_port()}/v1"
    run_tournament(
        ["company_car"],
        ["llm:fake-model", "concession"],
        out=tmp_path,
        agent_options={"base_url": down, "api_key": "t"},
    )
    for endpoint in serve(FakeModel(malformed_first=False)):
        run_tournament(
            ["split_100"],
            ["llm:fake-model", "concession"],
            out=tmp_path,
            agent_options={"base_url": endpoint, "api_key": "t"},
            prices={"fake-model": {"input": 2.5, "output": 10.0}},
        )
    write_report(tmp_path, samples=5)
    markdown = (tmp_path / "report.md").read_text()
    usage = markdown.split("## LLM usage and cost", 1)[1].split("\n## ", 1)[0]
    assert "| agent | seats | forfeits | calls |" in usage and "| cost |" in usage
    assert "\n| llm:fake-model | 3 | 0 | 4 |" in usage and "\n| total | 3 |" in usage  # two matches, three seats
    assert "| $0.0001 |" in usage  # four calls of two tokens at $2.50 and $10 per million
    failed = markdown.split("## Failed matches", 1)[1]
    assert f"EndpointError: {down} could not serve model 'fake-model'" in failed and failed.rstrip().endswith("| 2 |")
