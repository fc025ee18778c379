"""The parts of a seat's turn state (as `arena.answers` builds it) that a kernel's table observation reads."""

from __future__ import annotations

from typing import Any

from negotiation_platform.engine import Match


def seat_turn(match: Match, player: str) -> dict[str, Any]:
    return {
        "game_id": match.game.spec.id,
        "agent_id": player,
        "players": list(match.players),
        "your_turn": player in match.acting(),
        "view": match.game.get_player_view(player),
    }
