"""What an operator sees of real servers: one log line per request (text or JSON, never a token or a
context id), `/healthz`, and `/metrics` counting requests by operation and outcome code."""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx
import pytest

from negotiation_platform.errors import NegotiationError
from negotiation_platform.observability.metrics import BUCKETS
from tests.cli_servers import cli_server, server_log

pytestmark = pytest.mark.anyio
REQUEST_LOGGER = "negotiation_platform.requests"


def request_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith(f"INFO {REQUEST_LOGGER}: ")]


def fields(line: str) -> dict[str, str]:
    return dict(re.findall(r"(\w+)=(\S+)", line.split(": ", 1)[1]))


def sample(metrics: str, name: str, **labels: str) -> float:
    """The value of the sample `name{labels}` in a text exposition (all its labels given, in order)."""
    wanted = name + ("{" + ",".join(f'{k}="{v}"' for k, v in labels.items()) + "}" if labels else "")
    values = [line.rsplit(" ", 1)[1] for line in metrics.splitlines() if line.rsplit(" ", 1)[0] == wanted]
    assert values, f"no sample {wanted} in:\n{metrics}"
    return float(values[0])


async def test_mcp_server_logs_each_call_once_and_counts_it() -> None:
    pytest.importorskip("negotiation_mcp")
    from negotiation_mcp.client import connect

    with cli_server("serve", "mcp", "--transport", "http", "--store", ":memory:", "--log-level", "info") as (
        port,
        proc,
    ):
        base = f"http://127.0.0.1:{port}"
        async with connect(f"{base}/mcp") as arena:
            started = await arena.start_game("split_100", name="alice", opponents=["concession"], seed=3)
            token, match_id = started["token"], started["match_id"]
            await arena.get_turn_state(match_id, token)
            with pytest.raises(NegotiationError) as refused:
                await arena.perform_action(match_id, token, "no_such_action", {})
        async with httpx.AsyncClient(base_url=base) as http:
            page = await http.get(f"/play/api/matches/{match_id}/state", headers={"x-seat-token": token})
            health = await http.get("/healthz")
            metrics = (await http.get("/metrics")).text
        stderr = server_log(proc)
    assert page.status_code == 200 and health.status_code == 200 and health.json() == {"status": "ok"}
    lines = request_lines(stderr)
    calls = [fields(line) for line in lines]
    assert [c["operation"] for c in calls] == ["start_game", "get_turn_state", "perform_action", "play"]
    assert all(c["match"] == match_id and c["seat"] == "alice" for c in calls)
    assert [c["code"] for c in calls] == ["ok", "ok", refused.value.code.value, "ok"]
    assert all(float(c["duration_ms"]) >= 0 for c in calls)
    assert token not in stderr
    assert sample(metrics, "negotiation_requests_total", operation="start_game", code="ok") == 1
    assert sample(metrics, "negotiation_requests_total", operation="perform_action", code=refused.value.code.value) == 1
    assert sample(metrics, "negotiation_requests_total", operation="play", code="ok") == 1
    for bound in (*map(repr, BUCKETS), "+Inf"):
        assert sample(metrics, "negotiation_request_seconds_bucket", operation="get_turn_state", le=bound) <= 1
    assert sample(metrics, "negotiation_request_seconds_count", operation="get_turn_state") == 1
    assert sample(metrics, "negotiation_matches", state="live") == 1
    assert sample(metrics, "negotiation_store_errors_total") == 0
    assert "# TYPE negotiation_request_seconds histogram" in metrics


async def test_a2a_server_logs_json_lines_without_tokens_or_contexts() -> None:
    pytest.importorskip("negotiation_a2a")
    from negotiation_a2a.client import connect

    flags = ("--store", ":memory:", "--log-level", "info", "--log-format", "json")
    with cli_server("serve", "a2a", *flags) as (port, proc):
        async with connect(f"http://127.0.0.1:{port}") as arena:
            started = await arena.start_game("split_100", name="bob", opponents=["concession"])
            # in the seat's own context, whose id stands for the token
            await arena.call("get_turn_state", match_id=started["match_id"])
            with pytest.raises(NegotiationError):
                await arena.call("no_such_operation")
        stderr = server_log(proc)
    records = [json.loads(line) for line in stderr.splitlines()]  # every line, the banners too
    banners = [r["message"] for r in records if r["logger"] == "negotiation_platform.announce"]
    assert len(banners) == 3 and all(" on http://127.0.0.1:" in line for line in banners)
    requests = [r for r in records if r["logger"] == REQUEST_LOGGER]
    assert [(r["operation"], r["code"]) for r in requests] == [
        ("start_game", "ok"),
        ("get_turn_state", "ok"),
        ("other", "unknown_operation"),
    ]
    assert requests[1]["seat"] == "bob" and requests[1]["match"] == started["match_id"]
    assert {"time", "level", "message", "duration_ms"} <= requests[0].keys()
    assert started["token"] not in stderr and started["context_id"] not in stderr
    assert started["context_id"].rpartition(".")[2] not in stderr


async def test_viewer_health_is_open_and_metrics_need_the_token(tmp_path: Path) -> None:
    secret = tmp_path / "token"
    secret.write_text("s3cret-operator-token\n")
    flags = ("--store", str(tmp_path / "matches.db"), "--auth-token-file", str(secret), "--log-level", "info")
    with cli_server("serve", "view", *flags) as (port, proc):
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as http:
            health = await http.get("/healthz")
            anonymous = await http.get("/metrics")
            guessed = await http.get("/view/api/matches", headers={"authorization": "Bearer a-guess"})
            bearer = {"authorization": "Bearer s3cret-operator-token"}
            missing = await http.get("/view/api/matches/no-such-match", headers=bearer)
            metrics = await http.get("/metrics", headers=bearer)
        stderr = server_log(proc)
    assert health.status_code == 200 and anonymous.status_code == guessed.status_code == 401
    assert missing.status_code == 404
    assert metrics.status_code == 200 and metrics.headers["content-type"].startswith("text/plain; version=0.0.4")
    assert sample(metrics.text, "negotiation_requests_total", operation="view", code="unknown_match") == 1
    # The two 401s are counted and logged, as the check that refused them (not their token).
    assert sample(metrics.text, "negotiation_requests_total", operation="auth", code="forbidden") == 2
    *refused, line = request_lines(stderr)
    assert [fields(r)["operation"] + " " + fields(r)["code"] for r in refused] == ["auth forbidden"] * 2
    assert "a-guess" not in stderr
    assert fields(line) | {"duration_ms": "?"} == {
        "operation": "view",
        "match": "-",
        "seat": "-",
        "code": "unknown_match",
        "duration_ms": "?",
    }
    assert "s3cret-operator-token" not in stderr
