"""Entry-point target: registers the AdaSociety games, the `gatherer` agent and the JAX kernels."""

from __future__ import annotations

from typing import Any

from negotiation_adasociety.game import AdaSocietyGame, AdaSocietyHardGame
from negotiation_adasociety.gatherer import GathererAgent
from negotiation_platform.registry import hookimpl


@hookimpl
def register_games() -> list[type[Any]]:
    return [AdaSocietyGame, AdaSocietyHardGame]


@hookimpl
def register_agents() -> dict[str, Any]:
    return {"gatherer": GathererAgent}


@hookimpl
def register_kernels() -> dict[str, str]:
    kernel = "negotiation_adasociety.kernels:AdaSocietyEnv"
    return {"adasociety": kernel, "adasociety_hard": kernel}


@hookimpl
def render_board(game_id: str, view: dict[str, Any], events: list[dict[str, Any]]) -> str | None:
    if game_id not in (AdaSocietyGame.spec_id(), AdaSocietyHardGame.spec_id()):
        return None
    from negotiation_adasociety.board import adasociety_board

    return adasociety_board(view)
