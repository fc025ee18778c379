"""`RemoteArena`: the `ArenaApi` of an arena reached over a protocol, written once.

A transport's client implements only `call(operation, **arguments)`, which sends one operation
of the shared table and returns its result (raising the arena's `NegotiationError` on refusal);
every `ArenaApi` method here is that call, so drivers and agents use it like an `Arena`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any


class RemoteArena(ABC):
    @abstractmethod
    async def call(self, operation: str, **arguments: Any) -> dict[str, Any]:
        """Run `operation` on the remote arena; None-valued arguments may be left out."""

    async def list_games(self) -> dict[str, Any]:
        return await self.call("list_games")

    async def get_game_rules(self, game_id: str, config: dict[str, Any] | None = None) -> dict[str, Any]:
        return await self.call("get_game_rules", game_id=game_id, config=config)

    async def start_game(
        self,
        game_id: str,
        config: dict[str, Any] | None = None,
        seed: int | None = None,
        name: str | None = None,
        opponents: list[str] | None = None,
        human_seats: int | None = None,
    ) -> dict[str, Any]:
        return await self.call(
            "start_game",
            game_id=game_id,
            config=config,
            seed=seed,
            name=name,
            opponents=opponents,
            human_seats=human_seats,
        )

    async def join_game(self, match_id: str, name: str | None = None) -> dict[str, Any]:
        return await self.call("join_game", match_id=match_id, name=name)

    async def get_turn_state(
        self,
        match_id: str,
        token: str,
        since: int | None = None,
        wait_seconds: float = 0,
        include_prompt: bool = True,
    ) -> dict[str, Any]:
        return await self.call(
            "get_turn_state",
            match_id=match_id,
            token=token,
            since=since,
            wait_seconds=wait_seconds,
            include_prompt=include_prompt,
        )

    async def send_public_message(self, match_id: str, token: str, content: str) -> dict[str, Any]:
        return await self.call("send_public_message", match_id=match_id, token=token, content=content)

    async def send_private_message(self, match_id: str, token: str, to: list[str], content: str) -> dict[str, Any]:
        return await self.call("send_private_message", match_id=match_id, token=token, to=to, content=content)

    async def perform_action(
        self, match_id: str, token: str, action_type: str, payload: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        return await self.call(
            "perform_action", match_id=match_id, token=token, action_type=action_type, payload=payload or {}
        )

    async def leave_game(self, match_id: str, token: str) -> dict[str, Any]:
        return await self.call("leave_game", match_id=match_id, token=token)

    async def get_result(self, match_id: str) -> dict[str, Any]:
        return await self.call("get_result", match_id=match_id)

    async def list_matches(
        self,
        status: str | None = None,
        game_id: str | None = None,
        since: str | None = None,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> dict[str, Any]:
        return await self.call("list_matches", status=status, game_id=game_id, since=since, limit=limit, cursor=cursor)

    async def watch(self, match_id: str, since: int | None = None, wait_seconds: float = 0) -> dict[str, Any]:
        return await self.call("watch", match_id=match_id, since=since, wait_seconds=wait_seconds)
