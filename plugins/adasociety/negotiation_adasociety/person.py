"""What an AdaSociety seat knows, said for a person: where it stands, what it holds and values, its
group and bargain, its reward, and why the moves it cannot make now are closed."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from negotiation_platform.spec.narration import Fact, percent, plain_value

if TYPE_CHECKING:
    from negotiation_adasociety.game import AdaSocietyGame


def seat_facts(game: AdaSocietyGame, player_id: str) -> list[Fact]:
    view = game.get_player_view(player_id)
    you = view["you"]
    row, col = you["position"]
    held = {k: v for k, v in you["inventory"].items() if v}
    valued = {k: v for k, v in you["values"].items() if v}
    facts = [
        Fact("you are", f"{you['name']}, a {you['job']}, at row {row}, column {col} (ringed on the map)"),
        Fact("step", f"{view['step'] + 1} of {view['max_length']}, {view['phase']} phase"),
        Fact("you hold", _counts(held) or "nothing"),
        Fact("you value", _counts(valued) or "nothing"),
        Fact(
            "your reward",
            f"{plain_value(round(view['reward']['total'], 2))} so far "
            f"(last step {plain_value(round(view['reward']['last_step'], 2))})",
        ),
        Fact("your group", _group(view, player_id)),
    ]
    bargain = view["bargaining"]
    if bargain is not None:
        claims = [f"you claim {_share(bargain['your_claim'])}", f"they claim {_share(bargain['partner_claim'])}"]
        turn = "your turn" if bargain["your_turn"] else "their turn (partners act on alternate steps)"
        facts.append(Fact("bargaining with", f"{bargain['partner']}: {', '.join(claims)}; {turn}"))
    closed = closed_moves(game, player_id)
    if closed:
        facts.append(Fact("not possible now", "; ".join(closed)))
    return facts


def closed_moves(game: AdaSocietyGame, player_id: str) -> list[str]:
    """Each move of this phase the seat cannot make now, with the rules' reason."""
    phase = game.spec.phase(game.current_phase) if game.current_phase else None
    if phase is None:
        return []
    open_now = {a["type"] for a in game.legal_actions(player_id)}
    closed = []
    for action in phase.actions:
        if action.name in open_now:
            continue
        example = next((a for a in game.catalogue if a["type"] == action.name), {"type": action.name})
        why = game.action_error(player_id, example)
        if why:
            label = action.name.replace("_", " ")
            closed.append(f"{label}: {why.removeprefix(action.name + ': ').rstrip('.')}")
    return closed


def _counts(amounts: dict[str, Any]) -> str:
    return ", ".join(f"{name} {plain_value(amount)}" for name, amount in amounts.items())


def _share(claim: float | None) -> str:
    return "nothing yet" if claim is None else percent(claim)


def _group(view: dict[str, Any], player_id: str) -> str:
    for group in view["groups"]:
        shares = group["shares"]
        if player_id in shares and len(shares) > 1:
            others = ", ".join(p for p in shares if p != player_id)
            return f"with {others} (your share {percent(shares[player_id])})"
    return "on your own"
