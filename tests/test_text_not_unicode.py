"""Text that UTF-8 cannot carry (a lone surrogate, as Python's json reads the escape "\\ud800") is
refused as a structured error before it reaches a match or the store: through the operations
table, as every transport calls the arena, and through the arena's own methods, as the viewer and
in-process callers do. Before, it was logged into the match and every later read of it failed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from negotiation_platform.arena import Arena
from negotiation_platform.arena.limits import Caller
from negotiation_platform.arena.persistence import attach_store
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.serving.operations import run_operation
from tests.test_arena_hardening import served_arena

pytestmark = pytest.mark.anyio
LONE = "\ud800"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def refusal(call: Any) -> NegotiationError:
    with pytest.raises(NegotiationError) as info:
        await call
    json.dumps(info.value.to_dict()).encode("utf-8")  # the refusal itself can be sent
    return info.value


async def test_text_that_is_not_unicode_is_refused_anywhere_and_nothing_is_stored(tmp_path: Path) -> None:
    store = str(tmp_path / "matches.db")
    arena, house = served_arena()
    attach_store(arena, store, "here")
    alice = await run_operation(
        house, "start_game", {"game_id": "split_100", "name": "alice"}, caller=Caller("address:a")
    )
    match_id = alice["match_id"]
    await run_operation(house, "join_game", {"match_id": match_id, "name": "bob"}, caller=Caller("address:b"))
    seat = {"match_id": match_id, "token": alice["token"]}
    logged = len(arena.events(match_id))

    through_operations = [
        ("send_public_message", {**seat, "content": f"hi {LONE}"}),
        ("send_private_message", {**seat, "to": ["bob"], "content": LONE}),
        ("perform_action", {**seat, "action_type": "propose", "payload": {"mine": 50, "why": [LONE]}}),
        ("perform_action", {**seat, "action_type": "propose", "payload": {LONE: 50}}),
        ("perform_action", {**seat, "action_type": LONE}),
        ("get_turn_state", {"match_id": LONE, "token": alice["token"]}),
        ("get_turn_state", {**seat, LONE: 1}),
        ("get_result", {"match_id": "m" + LONE}),
        ("watch", {"match_id": LONE}),
        ("join_game", {"match_id": LONE}),
        ("start_game", {"game_id": LONE}),
        ("start_game", {"game_id": "split_100", "name": LONE}),
        ("start_game", {"game_id": "split_100", "config": {"deep": {LONE: 1}}}),
        ("get_game_rules", {"game_id": "split_100", "config": {"x": LONE}}),
        ("list_matches", {"game_id": LONE}),
    ]
    for name, arguments in through_operations:
        refused = await refusal(run_operation(house, name, arguments))
        assert refused.code is ErrorCode.INVALID_ARGUMENT and "lone surrogate" in refused.message, (name, refused)

    direct = [  # the viewer and in-process callers call the arena itself
        arena.send_public_message(match_id, alice["token"], LONE),
        arena.watch(LONE),
        arena.spectate(LONE),
        arena.get_result(LONE),
        arena.list_matches(game_id=LONE),
        arena.start_game("split_100", name=f"a{LONE}"),
    ]
    for call in direct:
        refused = await refusal(call)
        assert refused.code is ErrorCode.INVALID_ARGUMENT and "lone surrogate" in refused.message
    # a payload or config from this process is read as its request is from the network: the same refusal
    refused = await refusal(arena.perform_action(match_id, alice["token"], "propose", {"mine": LONE}))
    assert refused.code is ErrorCode.INVALID_ARGUMENT and "lone surrogate" in refused.message
    refused = await refusal(arena.start_game("split_100", config={LONE: 1}))
    assert refused.code is ErrorCode.INVALID_ARGUMENT and "lone surrogate" in refused.message

    assert len(arena.events(match_id)) == logged
    reader = Arena()
    attach_store(reader, store, "reader", read_only=True)
    seen = await reader.watch(match_id)  # what the store holds reads back, and holds nothing new
    assert seen["status"] == "running" and seen["cursor"] == logged
