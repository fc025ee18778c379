"""With `--log-format json` every line a server writes on stderr is one JSON object, its banners too.

`serve mcp|a2a|view` printed where they listen, the viewer and the play page as plain lines beside
the JSON log lines, which broke a log shipper reading stderr line by line.
"""

from __future__ import annotations

import json

import httpx
import pytest

from tests.cli_servers import cli_server, server_log


@pytest.mark.parametrize(
    "serve", [("serve", "mcp", "--transport", "http"), ("serve", "a2a"), ("serve", "view", "--store", ":memory:")]
)
def test_every_stderr_line_of_a_server_is_json(serve: tuple[str, ...]) -> None:
    with cli_server("--log-format", "json", "--log-level", "info", *serve) as (port, proc):
        httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=60)  # answered once serving: all was announced
        lines = server_log(proc).splitlines()  # stops it: uvicorn's shutdown lines are there too
    records = [json.loads(line) for line in lines]
    said = [r["message"] for r in records if r.get("logger") == "negotiation_platform.announce"]
    assert any(f"127.0.0.1:{port}" in message for message in said), lines
