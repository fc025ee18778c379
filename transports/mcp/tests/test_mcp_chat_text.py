"""Chat that holds a NUL, or nothing a reader sees, is refused over a real MCP server as `invalid_argument`,
and nothing is sent (the engine checks it once, for every transport)."""

from __future__ import annotations

from contextlib import nullcontext

import pytest
from mcp import Client

from negotiation_mcp.client import McpArena
from negotiation_platform.errors import ErrorCode, NegotiationError

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_chat_with_a_nul_or_only_invisible_characters_is_refused_over_mcp(shared_mcp_url: str) -> None:
    with nullcontext(shared_mcp_url) as url:  # the session's server: this test reads only its match
        async with Client(url) as client:
            arena = McpArena(client)
            first = await arena.start_game("split_100", seed=1, name="a")
            second = await arena.join_game(first["match_id"], name="b")
            seat = first if (await arena.get_turn_state(first["match_id"], first["token"]))["your_turn"] else second
            for content in ("hi\x00there", "\u200b\u200d\ufeff \u2060"):
                with pytest.raises(NegotiationError) as refused:
                    await arena.send_public_message(first["match_id"], seat["token"], content)
                assert refused.value.code is ErrorCode.INVALID_ARGUMENT
                assert refused.value.details == {"field": "content"}
            state = await arena.get_turn_state(first["match_id"], seat["token"])
            assert [e for e in state["events"] if e["kind"] == "message"] == []
            await arena.send_public_message(first["match_id"], seat["token"], "hello")
            state = await arena.get_turn_state(first["match_id"], seat["token"])
            assert [e["data"]["content"] for e in state["events"] if e["kind"] == "message"] == ["hello"]
