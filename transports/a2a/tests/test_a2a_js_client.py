"""The official JS A2A SDK client (`@a2a-js/sdk`, tests/js/a2a_match.mjs) against a real `serve a2a`
subprocess: it starts a match and plays it to the end in the seat's context, and sees a refusal."""

from __future__ import annotations

from typing import Any

import pytest

from tests.js_clients import require_js, run_js_client


@pytest.fixture(scope="module")
def seen(shared_a2a_base: str) -> dict[str, Any]:
    """What the JS client saw, from one run of the script for this module (the session's server)."""
    require_js("@a2a-js/sdk")
    return run_js_client("a2a_match.mjs", shared_a2a_base)


def test_the_js_client_plays_a_whole_match_in_the_seats_context(seen: dict[str, Any]) -> None:
    assert seen["reply_context_id"] == seen["context_id"]  # the reply comes in the seat's own context
    assert seen["started"]["opponents"] == ["concession"] and seen["moves"] >= 1
    assert seen["status"] == "finished" and seen["result"]["status"] == "finished"
    assert seen["result"]["match_id"] == seen["started"]["match_id"]


def test_the_js_client_sees_the_code_of_a_refusal(seen: dict[str, Any]) -> None:
    assert seen["refusal"]["error"]["code"] == "invalid_payload" and seen["refusal"]["error"]["message"]
