"""A played match as text: one line per event, then the payoffs and the outcome (what `play` prints).

Everything in a result came from players or a server: it is printed through `shown`, so neither
rich markup (`[bold]` in a name) nor control and bidi characters (an ESC sequence in a chat) act
on the terminal; they show as written."""

from __future__ import annotations

import json
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from negotiation_platform.wire.unicode_text import terminal_safe


def shown(value: object) -> str:
    """`value` as rich markup that prints it literally: markup escaped, control and bidi characters as escapes."""
    return escape(terminal_safe(str(value)))


def print_transcript(console: Console, result: dict[str, Any]) -> None:
    console.print(f"[bold]{shown(result['game'])}[/] seed={shown(result['seed'])} players={shown(result['players'])}")
    for event in result["events"]:
        console.print(event_line(event), soft_wrap=True)
    print_outcome(console, result)


def print_outcome(console: Console, result: dict[str, Any]) -> None:
    """The payoffs as a table, then the agreement, terms, winner and rounds.

    The winner (the most surplus over its BATNA) is left out when there is none: "winner: None" beside
    terms that name a winner of their own (an auction's) read as a contradiction."""
    table = Table("agent", "payoff")
    for agent, payoff in result["payoffs"].items():
        table.add_row(shown(agent), f"{payoff:g}")
    console.print(table)
    winner = f"  winner: {result['winner']}" if result["winner"] is not None else ""
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
