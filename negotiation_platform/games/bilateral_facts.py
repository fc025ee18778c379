"""What a seat of a bilateral game knows, said for a person: its role, BATNA, private details, the
standing offer and what accepting it would score, in the game's units (`BilateralNegotiation.amount`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from negotiation_platform.spec.narration import Fact

if TYPE_CHECKING:
    from negotiation_platform.games.bilateral import BilateralNegotiation


def seat_facts(game: BilateralNegotiation[Any], player_id: str) -> list[Fact]:
    role = game.role_of(player_id)
    round_number = max(game.current_round, 1)
    facts = [
        Fact("your role", f"{game.role_labels[role]} ({role})"),
        Fact("your BATNA now", game.amount(game.get_current_batna(player_id, round_number))),
        *(Fact(k.replace("_", " "), _said(game, v)) for k, v in game.private_details(role).items()),
        *(Fact(k.replace("_", " "), _said(game, v)) for k, v in game.public_details().items()),
        Fact("proposals left", f"{game.proposals_left(player_id)} of {game.max_proposals}"),
        Fact("standing offer", standing_text(game, player_id)),
        Fact("no deal", f"you score {game.amount(0)}"),
    ]
    return facts


def standing_text(game: BilateralNegotiation[Any], player_id: str) -> str:
    """The other side's standing offer from the reader's side: its terms and what accepting scores."""
    offer = game.standing_offer_for(player_id)
    if offer is None:
        return "none yet"
    return f"{game.describe_terms(offer['terms'])}: accepting would score you {accept_score(game, player_id)}"


def accept_score(game: BilateralNegotiation[Any], player_id: str) -> str | None:
    """What accepting the standing offer now would score `player_id`, in the game's units (None: no offer)."""
    offer = game.standing_offer_for(player_id)
    if offer is None:
        return None
    scored = game.role_utility(game.role_of(player_id), offer["terms"], max(game.current_round, 1))
    return game.amount(scored)


def _said(game: BilateralNegotiation[Any], value: object) -> str:
    return game.amount(value) if isinstance(value, int | float) else str(value)
