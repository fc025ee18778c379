"""Who seats which agent, in process: every opponent is checked and made before a match exists (a plugin's
factory that fails in its own way too), and a stored seat is played again as the one who seated it could."""

from __future__ import annotations

from typing import Any

import pytest

from negotiation_platform.agents.seating import SeatedBy, client_kinds
from negotiation_platform.arena import Arena
from negotiation_platform.arena.policy import ArenaPolicy
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.serving.house_seats import HouseSeats
from negotiation_platform.serving.operations import run_operation

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def broken(seed: int = 0, name: str = "broken") -> Any:
    """A plugin's agent kind whose factory fails with something other than a NegotiationError."""
    raise KeyError("a plugin's own bug")


async def test_a_failing_factory_is_a_structured_refusal_and_leaves_no_match(monkeypatch: pytest.MonkeyPatch) -> None:
    arena = Arena(policy=ArenaPolicy.served())
    kinds = {**arena.registry.agents(), "broken": broken}
    monkeypatch.setattr(arena.registry, "agents", lambda: kinds)
    house = HouseSeats(arena)
    expected = {
        "broken": (ErrorCode.INVALID_ARGUMENT, "Agent 'broken' could not be made (KeyError)."),
        "random:http://127.0.0.1:9/x": (ErrorCode.INVALID_ARGUMENT, "'random' agents take no target"),
        "llm:gpt-4o": (ErrorCode.FORBIDDEN, "Only this server's operator seats 'llm' agents"),
    }
    for opponent, (code, message) in expected.items():
        with pytest.raises(NegotiationError) as refused:  # the first opponent is fine: the second one counts
            await run_operation(house, "start_game", {"game_id": "auction", "opponents": ["concession", opponent]})
        assert refused.value.code is code and refused.value.message.startswith(message), refused.value
    assert (await arena.list_matches())["matches"] == []
    assert "broken" in client_kinds(arena.registry) and "llm" not in client_kinds(arena.registry)


async def test_a_resumed_seat_is_checked_as_the_one_who_seated_it(caplog: pytest.LogCaptureFixture) -> None:
    house = HouseSeats(Arena(policy=ArenaPolicy.served()))
    spawned: list[str] = []
    house._spawn = lambda match_id, seat: spawned.append(seat.agent.name)  # type: ignore[method-assign]
    for by in (SeatedBy.OPERATOR.value, SeatedBy.CLIENT.value, None):
        house._play_again("m", "llm", "token", {"agent": "llm:fake-model", "seed": 1, "by": by})
    house._play_again("m", "concession", "token", {"agent": "concession", "seed": 1})
    assert spawned == ["llm", "concession"]  # a seat without the operator's mark is a client's: no llm
    assert caplog.text.count("Only this server's operator seats 'llm' agents") == 2
