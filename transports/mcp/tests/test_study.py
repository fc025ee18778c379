"""A human-AI study end to end: `study create` of 3 participants on a real SQLite file, served by a real
`serve mcp --store FILE` subprocess that resumes the matches and plays the opponents, each participant's
seat played over the play page's JSON API, then `study export`: one row per participant with their
transcript and outcome, and no token anywhere."""

from __future__ import annotations

import csv
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from browser_helpers import needs_chromium
from mcp_servers import free_port, start_mcp_server
from play_page import play_split_100

from negotiation_platform.cli.main import main
from tests.play_api import play_link, split_link


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


async def play_over_api(link: str) -> dict[str, Any]:
    """The participant's seat played through the play page's JSON API (what its script does); its result."""
    return dict((await anyio.to_thread.run_sync(play_link, link))["result"])


async def study_round_trip(tmp_path: Path, play: Callable[[str], Awaitable[dict[str, Any]]]) -> None:
    """Create a study of 3, serve it, play each participant's seat with `play`, export it."""
    store, links, results = tmp_path / "study.sqlite", tmp_path / "links.csv", tmp_path / "results.jsonl"
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    create = ["study", "create", "--game", "split_100", "--opponents", "concession", "--participants", "3"]
    create += ["--store", str(store), "--base-url", base, "--seed", "7", "--out", str(links)]
    assert await anyio.to_thread.run_sync(main, create) == 0
    rows = list(csv.DictReader(links.open()))
    assert [row["participant"] for row in rows] == ["P001", "P002", "P003"]
    assert all(row["play_url"].startswith(f"{base}/play/{row['match_id']}#token=") for row in rows)

    server = start_mcp_server(port, "--store", str(store))  # resumes the matches and plays the opponents
    try:
        finals = [await play(row["play_url"]) for row in rows]
    finally:
        server.terminate()
        server.wait(timeout=10)

    export = ["study", "export", "--store", str(store), "--links", str(links), "--out", str(results)]
    assert await anyio.to_thread.run_sync(main, export) == 0
    text = results.read_text()
    exported = [json.loads(line) for line in text.splitlines()]
    assert [row["participant"] for row in exported] == ["P001", "P002", "P003"]
    for row, link, final in zip(exported, rows, finals, strict=True):
        assert row["match_id"] == link["match_id"] and row["status"] == "finished"
        assert row["payoffs"] == final["payoffs"] and row["agreement"] is True
        kinds = [event["kind"] for event in row["transcript"]]
        assert kinds[0] == "match_started" and kinds[-1] == "match_ended"
        assert any(e["kind"] == "action" and e["actor"] == row["agent_id"] for e in row["transcript"])
        assert all(e["visible_to"] is None or row["agent_id"] in e["visible_to"] for e in row["transcript"])
    for link in rows:
        assert split_link(link["play_url"])[2] not in text  # no seat token is exported


@pytest.mark.anyio
async def test_a_study_of_three_is_created_served_played_and_exported(tmp_path: Path) -> None:
    await study_round_trip(tmp_path, play_over_api)


@pytest.mark.anyio
@needs_chromium
async def test_a_study_of_three_is_played_in_the_browser(tmp_path: Path, person: Any) -> None:
    async def in_the_browser(link: str) -> dict[str, Any]:
        return {"payoffs": await play_split_100(person, link)}

    await study_round_trip(tmp_path, in_the_browser)


def test_study_create_refuses_bad_input_and_changes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store, links = tmp_path / "study.sqlite", tmp_path / "links.csv"
    base = ["study", "create", "--game", "split_100", "--participants", "2", "--store", str(store), "--out", str(links)]
    assert main([*base, "--opponents", "nobody"]) == 2
    assert "Unknown agent 'nobody'" in capsys.readouterr().err and not links.exists()
    assert main([*base, "--opponents", "concession", "concession"]) == 2  # split_100 has one seat to fill
    assert main([*base, "--opponents", "concession", "--base-url", "ftp://x"]) == 2 and not links.exists()
    links.write_text("keep me")
    assert main([*base, "--opponents", "concession"]) == 1
    assert "exists" in capsys.readouterr().err and links.read_text() == "keep me"


def test_participant_ids_come_from_a_file_and_stay_out_of_the_store(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store, links, ids = tmp_path / "study.sqlite", tmp_path / "links.csv", tmp_path / "ids.txt"
    base = ["study", "create", "--game", "split_100", "--opponents", "concession", "--store", str(store)]
    ids.write_text("alice@example.org\nalice@example.org\n")
    assert main([*base, "--participants-file", str(ids), "--out", str(links)]) == 2
    assert "repeat" in capsys.readouterr().err and not links.exists()
    ids.write_text("alice@example.org\n\nbob@example.org\n")
    assert main([*base, "--participants-file", str(ids), "--out", str(links)]) == 0
    assert [row["participant"] for row in csv.DictReader(links.open())] == ["alice@example.org", "bob@example.org"]
    kept = b"".join(path.read_bytes() for path in tmp_path.glob("study.sqlite*"))  # the database and its journal
    assert b"participant" in kept and b"example.org" not in kept  # seats are named `participant`, never by the id
