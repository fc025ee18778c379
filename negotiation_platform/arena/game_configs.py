"""A game's config as a request gives it (JSON), parsed by the game's config model or refused."""

from __future__ import annotations

from typing import cast

from pydantic import ValidationError

from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.games.base_game import GameConfig
from negotiation_platform.games.setups import shared_setup
from negotiation_platform.registry import GameEntry
from negotiation_platform.spec.payload_checks import validation_problems


def game_config(entry: GameEntry, config: object) -> GameConfig:
    """`config` parsed by the game's config model, or refused as `INVALID_CONFIG` naming every problem."""
    if config is not None and not isinstance(config, dict):
        raise NegotiationError(ErrorCode.INVALID_CONFIG, "config must be a JSON object or null.")
    try:
        return cast(GameConfig, shared_setup(entry.cls, config).settings)  # parsed once per distinct config
    except ValidationError as exc:
        problems = validation_problems(exc, "(config)")
        raise NegotiationError(
            ErrorCode.INVALID_CONFIG,
            f"Invalid config for {entry.game_id}: " + "; ".join(f"{p['field']}: {p['problem']}" for p in problems),
            problems=problems,
        ) from None
