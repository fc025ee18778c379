"""The operations' requests, as the catalogue names them: the arena's own (`negotiation_platform.arena.requests`),
which its operations take, checked once when built."""

from negotiation_platform.arena.requests import (
    MAX_PAGE,
    AbsentNotNull,
    ActionRequest,
    GameRulesRequest,
    JoinGameRequest,
    MatchListRequest,
    MatchRequest,
    NoArguments,
    PrivateMessageRequest,
    PublicMessageRequest,
    Request,
    SeatRequest,
    StartGameRequest,
    TurnStateRequest,
    WatchRequest,
)

__all__ = [
    "MAX_PAGE",
    "AbsentNotNull",
    "ActionRequest",
    "GameRulesRequest",
    "JoinGameRequest",
    "MatchListRequest",
    "MatchRequest",
    "NoArguments",
    "PrivateMessageRequest",
    "PublicMessageRequest",
    "Request",
    "SeatRequest",
    "StartGameRequest",
    "TurnStateRequest",
    "WatchRequest",
]
