"""The original's flat action index (27 actions with the defaults), for RL parity.

Layout, with R resources, N players and C proposal levels:
0–3 move up/down/left/right · 4 stay · 5 produce · 6.. pick(r) · 6+R.. dump(r) ·
6+2R.. request_match(j) · 6+2R+N accept · 6+2R+N+1 end · 6+2R+N+2.. propose(k/(C+1)), k = 1..C.
The JAX kernel uses these indices; `encode`/`decode` translate them to the engine's actions.
"""

from __future__ import annotations

from typing import Any

from negotiation_adasociety.config import AdaSocietyConfig
from negotiation_adasociety.world import DIRECTIONS

MOVES = tuple(DIRECTIONS)
STAY, PRODUCE, FIRST_PICK = 4, 5, 6


def proposal_shares(config: AdaSocietyConfig) -> list[float]:
    """The shares a proposal may claim: k/(C+1) for k = 1..C (0.1 … 0.9 with the defaults)."""
    levels = config.proposal_levels
    return [round(k / (levels + 1), 10) for k in range(1, levels + 1)]


def action_count(config: AdaSocietyConfig) -> int:
    return FIRST_PICK + 2 * len(config.resources) + config.num_players + 2 + config.proposal_levels


def _offsets(config: AdaSocietyConfig) -> tuple[int, int, int, int]:
    """First index of dump, request_match, accept and propose."""
    dump = FIRST_PICK + len(config.resources)
    request = dump + len(config.resources)
    accept = request + config.num_players
    return dump, request, accept, accept + 2


def encode(config: AdaSocietyConfig, players: list[str], action_type: str, payload: dict[str, Any]) -> int:
    """The index of an engine action (`players` are the match's agent ids in seat order)."""
    dump, request, accept, propose = _offsets(config)
    names = config.resource_names
    match action_type:
        case "move":
            return MOVES.index(payload["direction"])
        case "stay":
            return STAY
        case "produce":
            return PRODUCE
        case "pick":
            return FIRST_PICK + names.index(payload["resource"])
        case "dump":
            return dump + names.index(payload["resource"])
        case "request_match":
            return request + players.index(payload["player"])
        case "accept":
            return accept
        case "end":
            return accept + 1
        case "propose":
            return propose + proposal_shares(config).index(round(payload["share"], 10))
    raise ValueError(f"not an AdaSociety action: {action_type!r}")


def decode(config: AdaSocietyConfig, players: list[str], index: int) -> tuple[str, dict[str, Any]]:
    """The engine action (type, payload) of an index."""
    dump, request, accept, propose = _offsets(config)
    names = config.resource_names
    if not 0 <= index < action_count(config):
        raise ValueError(f"action index {index} is outside 0..{action_count(config) - 1}")
    if index < STAY:
        return "move", {"direction": MOVES[index]}
    if index == STAY:
        return "stay", {}
    if index == PRODUCE:
        return "produce", {}
    if index < dump:
        return "pick", {"resource": names[index - FIRST_PICK]}
    if index < request:
        return "dump", {"resource": names[index - dump]}
    if index < accept:
        return "request_match", {"player": players[index - request]}
    if index == accept:
        return "accept", {}
    if index == accept + 1:
        return "end", {}
    return "propose", {"share": proposal_shares(config)[index - propose]}
