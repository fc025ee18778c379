"""A played match as text: one line per event, then the payoffs and the outcome (what `play` prints).

Everything in a result came from players or a server: it is printed through `shown`, so neither
rich markup (`[bold]` in a name) nor control and bidi characters (an ESC sequence in a chat) act
on the terminal; they show as written."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from negotiation_platform.engine.events import Event
from negotiation_platform.engine.match import Match
from negotiation_platform.games.narrated import narrated
from negotiation_platform.wire.unicode_text import terminal_safe

if TYPE_CHECKING:
    from negotiation_platform.games.base_game import BaseGame, GameConfig
    from negotiation_platform.registry import Registry


def shown(value: object) -> str:
    """`value` as rich markup that prints it literally: markup escaped, control and bidi characters as escapes."""
    return escape(terminal_safe(str(value)))


def print_transcript(console: Console, result: dict[str, Any], registry: Registry | None = None) -> None:
    """The match line by line in the game's plain words (`describe_event`, the game rebuilt from the
    events when `registry` has it), each move's raw form dimmed beside it; then the outcome."""
    console.print(f"[bold]{shown(result['game'])}[/] seed={shown(result['seed'])} players={shown(result['players'])}")
    game = None if registry is None else replayed_game(registry, result)
    for event in narrated(game, result["events"], None):
        console.print(event_line(event), soft_wrap=True)
    print_outcome(console, result)


def replayed_game(registry: Registry, result: Mapping[str, Any]) -> BaseGame[GameConfig] | None:
    """The game of a played match, rebuilt by replaying its events (None where that cannot be done: a
    game this registry lacks, a log from elsewhere that does not replay)."""
    try:
        game_cls = registry.game(result["game"]).cls
        events = [Event.from_dict(e) for e in result["events"]]
        config, seed = result.get("config"), result["seed"]
        return Match.replay(game_cls, list(result["players"]), events, config=config, seed=seed).game
    except Exception:  # the transcript then uses the default words; it is never worth failing over
        return None


def print_outcome(console: Console, result: dict[str, Any]) -> None:
    """The payoffs as a table, then the agreement, terms, winner and rounds.

    Payoffs are rounded to the cent (no float artefacts such as 32.400000000000006). The winner is seed 000's
    rule, the most surplus over its BATNA, not the largest payoff: the line says so. It is left out when there
    is none: "winner: None" beside terms that name a winner of their own (an auction's) read as a contradiction."""
    table = Table("agent", "payoff")
    for agent, payoff in result["payoffs"].items():
        table.add_row(shown(agent), f"{round(payoff, 2):.12g}")
    console.print(table)
    winner = f"  winner (most surplus over BATNA): {result['winner']}" if result["winner"] is not None else ""
    outcome = f"agreement: {result['agreement']}  terms: {result['terms']}{winner}  rounds: {result['rounds']}"
    console.print(shown(outcome))


def event_line(event: dict[str, Any]) -> str:
    """`#seq rROUND PHASE` then what happened; an event only some players saw names them (`a → b: ...`)."""
    kind, data, actor = event["kind"], event["data"], event["actor"]
    place = f"#{event['seq']:>3} r{event['round']} {event['phase'] or '-'}"
    where = f"[dim]{shown(place)}[/]"
    if kind == "message":
        to = "everyone" if data["to"] is None else ", ".join(data["to"])
        return f"{where} {shown(f'{actor} → {to}: ' + data['content'])}"
    if "text" in event:  # the game's words, the raw move dimmed beside them
        seen_by = event.get("visible_to")
        to = "" if seen_by is None else f"{actor or SENT_BY_THE_GAME} → {', '.join(seen_by)}: "
        said = f"{kind}: {event['text']}" if seen_by is not None and actor is None else event["text"]
        raw = f"  [dim]{shown(data['action_type'] + ' ' + json.dumps(data['payload']))}[/]" if kind == "action" else ""
        return f"{where} {shown(to + said)}{raw}"
    if kind == "action":
        late = " (timed out)" if data.get("timed_out") else " (forfeited)" if data.get("forfeited") else ""
        what = f"{data['action_type']} {json.dumps(data['payload'])}{late}"
    elif kind == "timeout" and data.get("forfeit"):
        actor, what = ", ".join(data["players"]), f"forfeited: {data['reason']}"
    elif kind == "match_ended":
        what = "match ended"
    else:
        what = f"{kind} {json.dumps(data) if data else ''}".rstrip()
    seen_by = event.get("visible_to")
    if seen_by is not None:
        return f"{where} {shown(f'{actor or SENT_BY_THE_GAME} → ' + ', '.join(seen_by) + ': ' + what)}"
    return f"{where} {shown(f'{actor} {what}' if actor else what)}"


SENT_BY_THE_GAME = "game"
"""Who a private event without an actor (a notice, a private view's update) comes from."""
