"""The answer of every operation, typed: what a client can rely on (MCP `structured_content`, A2A data).

The arena returns plain dicts; these models describe their stable fields for clients and LLMs
(the MCP tools' output schemas are theirs), and allow the extra fields a game adds (its view, its
bargaining position). A refusal is `Refusal`, on every transport.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from negotiation_platform.arena.paging import MAX_PAGE_EVENTS
from negotiation_platform.errors import ErrorBody as ErrorBody  # the shared error model, declared below the arena

MORE = f"Whether more events follow `cursor` (a page holds at most {MAX_PAGE_EVENTS}): call again from there."


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow")


class GameSummary(_Open):
    id: str
    title: str
    roles: list[str] | str
    source: str


class GameList(_Open):
    games: list[GameSummary]


class GameRules(_Open):
    game_id: str
    rules: str = Field(description="Plain-language rules generated from the spec.")
    spec: dict[str, Any] = Field(description="The full spec, with the JSON Schema of every action payload.")


class HumanSeat(_Open):
    agent_id: str
    token: str
    play_url: str | None = Field(default=None, description="The seat's play page link, for the person.")


class StartedMatch(_Open):
    match_id: str
    agent_id: str = Field(description="Your seat's agent id.")
    token: str = Field(description="Secret seat token: pass it to every call for this seat; never share it.")
    seats: int
    opponents: list[str] = Field(default_factory=list, description="Agent ids of the built-in opponents seated.")
    play_url: str | None = Field(default=None, description="Your seat's play page (on servers that serve it).")
    human_seats: list[HumanSeat] = Field(default_factory=list, description="The seats kept for people.")


class JoinedMatch(_Open):
    agent_id: str
    token: str
    play_url: str | None = Field(default=None, description="Your seat's play page (on servers that serve it).")


class TurnStateAnswer(_Open):
    model_config = ConfigDict(extra="allow", title="TurnState")

    match_id: str
    game_id: str
    agent_id: str
    status: str = Field(description="waiting_for_players, running, finished (or abandoned).")
    your_turn: bool
    acting: list[str]
    events: list[dict[str, Any]] = Field(description="Events you may see since the cursor you passed.")
    cursor: int = Field(description="Pass as `since` next time to get only newer events.")
    more: bool = Field(default=False, description=MORE)


class ActionOutcome(_Open):
    ok: bool
    status: str
    your_turn: bool
    acting: list[str]
    events: list[dict[str, Any]]
    cursor: int
    more: bool = Field(default=False, description=MORE)


class LeftMatch(_Open):
    ok: bool
    status: str


class MatchResult(_Open):
    match_id: str
    game_id: str
    status: str
    result: dict[str, Any] | None


class Spectacle(_Open):
    match_id: str
    game_id: str
    status: str = Field(description="waiting_for_players, running or finished.")
    acting: list[str]
    events: list[dict[str, Any]] = Field(description="Public events since the cursor you passed.")
    cursor: int = Field(description="Pass as `since` next time to get only newer events.")
    more: bool = Field(default=False, description=MORE)
    revealed: bool = Field(
        description="Whether private events are included (a finished match, on a server that reveals)."
    )


class SeatCount(_Open):
    filled: int
    total: int


class MatchSummary(_Open):
    match_id: str
    game_id: str
    status: str = Field(description="waiting_for_players, running, finished or abandoned.")
    seats: SeatCount
    players: list[str] = Field(description="Agent ids of the seats taken.")
    round: int
    created_at: str = Field(description="When the match was created (ISO 8601, UTC).")
    payoffs: dict[str, float] | None = Field(description="Each player's payoff, once finished.")


class MatchList(_Open):
    matches: list[MatchSummary]
    limits: dict[str, Any] = Field(default_factory=dict, description="This server's limits and clocks.")
    next_cursor: str | None = Field(default=None, description="Pass as `cursor` for the next page; null on the last.")


class Refusal(BaseModel):
    """The answer to a refused call, on every transport: the call changed nothing."""

    error: ErrorBody
