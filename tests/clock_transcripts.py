"""A clock-heavy scenario on a served, reproducible arena, printed as one JSON transcript.

Run as `python -m tests.clock_transcripts`. Several matches run at once on a tiny turn clock
(one also on a phase clock shorter than that) with seats that never move and one that leaves:
every move after the first is a default move the clocks chose. The transcript (every match's
whole log and result) must not depend on the interpreter's hash seed (`PYTHONHASHSEED`):
tests/test_hash_seed.py runs this under several and compares the outputs.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from typing import Any

from negotiation_platform.arena import Arena
from negotiation_platform.arena.policy import ArenaPolicy

TURN_TIMEOUT = 0.02
MATCHES: list[tuple[str, dict[str, Any] | None, int, list[str]]] = [
    ("auction", None, 11, ["alice", "bob", "carol"]),
    ("auction", {"bidders": 5, "pricing": "second", "discuss_seconds": 0.01}, 3, ["e", "d", "c", "b", "a"]),
    ("adasociety", {"max_length": 6, "negotiation_steps": 3}, 5, ["w", "z", "y", "x"]),
    ("deal_or_no_deal", {"rounds": 3}, 7, ["bob", "alice"]),
    ("split_100", None, 2, ["yours", "mine"]),
]
LEAVES = "y"
"""A seat that leaves its match at once: its moves are defaults played without waiting for a clock."""


async def transcripts() -> list[dict[str, Any]]:
    ids = itertools.count(1)
    arena = Arena(
        policy=ArenaPolicy.served(reproducible=True, turn_timeout=TURN_TIMEOUT),
        new_match_id=lambda: f"m{next(ids)}",
    )
    match_ids = []
    for game_id, config, seed, names in MATCHES:
        first = await arena.start_game(game_id, config, seed, names[0])
        seats = [first] + [await arena.join_game(first["match_id"], name) for name in names[1:]]
        for seat, name in zip(seats, names, strict=True):
            if name == LEAVES:
                await arena.leave_game(first["match_id"], seat["token"])
        match_ids.append(first["match_id"])
    await asyncio.gather(*(finished(arena, match_id) for match_id in match_ids))
    return [{"events": arena.events(m), "result": await arena.get_result(m)} for m in match_ids]


async def finished(arena: Arena, match_id: str) -> None:
    cursor = 0
    while True:
        seen = await arena.watch(match_id, since=cursor, wait_seconds=5)
        if seen["status"] == "finished":
            return
        cursor = seen["cursor"]


if __name__ == "__main__":
    print(json.dumps(asyncio.run(transcripts()), sort_keys=True))
