"""`ArenaApi`: the operations a seat needs, whether the arena is in-process or behind a transport.

`Arena` satisfies it directly; the MCP and A2A clients satisfy it over their protocols (their
`RemoteArena` methods are made from the operation catalogue), so the same drivers and agents play
through any of them. It is the catalogue's typed face for type checkers: a test checks each method
against its catalogue entry's request model (same arguments, order and defaults).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from pydantic import JsonValue

if TYPE_CHECKING:
    from negotiation_platform.arena.requests import StartGameRequest


class ArenaApi(Protocol):
    async def get_game_rules(self, game_id: str, config: dict[str, Any] | None = None) -> dict[str, Any]: ...

    async def start_game(
        self, game_id: str, config: dict[str, JsonValue] | None = None, seed: int | None = None, name: str | None = None
    ) -> dict[str, Any]: ...

    async def join_game(self, match_id: str, name: str | None = None) -> dict[str, Any]: ...

    async def get_turn_state(
        self,
        match_id: str,
        token: str,
        since: int | None = None,
        wait_seconds: float = 0,
        include_prompt: bool = True,
    ) -> dict[str, Any]: ...

    async def send_public_message(self, match_id: str, token: str, content: str) -> dict[str, Any]: ...

    async def send_private_message(self, match_id: str, token: str, to: list[str], content: str) -> dict[str, Any]: ...

    async def perform_action(
        self, match_id: str, token: str, action_type: str, payload: dict[str, JsonValue] | None = None
    ) -> dict[str, Any]: ...

    async def leave_game(self, match_id: str, token: str) -> dict[str, Any]: ...

    async def get_result(self, match_id: str) -> dict[str, Any]: ...


class HouseApi(Protocol):
    """What runs the catalogue's `house` entries: `start_game` with built-in `opponents` seated around the
    arena's (`serving.house_seats.HouseSeats`, a layer above, which the catalogue does not import);
    `start_game_request` takes the request checked."""

    async def start_game_request(self, request: StartGameRequest) -> dict[str, Any]: ...

    async def start_game(
        self,
        game_id: str,
        config: dict[str, JsonValue] | None = None,
        seed: int | None = None,
        name: str | None = None,
        opponents: list[str] | None = None,
        human_seats: int | None = None,
    ) -> dict[str, Any]: ...
