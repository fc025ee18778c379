"""A played match as text: one line per event, then the payoffs and the outcome (what `play` prints)."""

from __future__ import annotations

import json
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table


def print_transcript(console: Console, result: dict[str, Any]) -> None:
    console.print(f"[bold]{escape(result['game'])}[/] seed={result['seed']} players={escape(str(result['players']))}")
    for event in result["events"]:
        console.print(event_line(event), soft_wrap=True)
    print_outcome(console, result)


def print_outcome(console: Console, result: dict[str, Any]) -> None:
    """The payoffs as a table, then the agreement, terms, winner and rounds.

    The winner (the most surplus over its BATNA) is left out when there is none: "winner: None" beside
    terms that name a winner of their own (an auction's) read as a contradiction."""
    table = Table("agent", "payoff")
    for agent, payoff in result["payoffs"].items():
        table.add_row(agent, f"{payoff:g}")
    console.print(table)
    winner = f"  winner: {result['winner']}" if result["winner"] is not None else ""
    console.print(
        f"agreement: {result['agreement']}  terms: {result['terms']}{winner}  rounds: {result['rounds']}",
        markup=False,
    )


def event_line(event: dict[str, Any]) -> str:
    """`#seq rROUND PHASE` then what happened; an event only some players saw names them (`a → b: ...`)."""
    kind, data, actor = event["kind"], event["data"], event["actor"]
    where = f"[dim]#{event['seq']:>3} r{event['round']} {event['phase'] or '-'}[/]"
    if kind == "message":
        to = "everyone" if data["to"] is None else ", ".join(data["to"])
        return f"{where} {escape(f'{actor} → {to}: ' + data['content'])}"
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
        return f"{where} {escape(f'{actor or SENT_BY_THE_GAME} → ' + ', '.join(seen_by) + ': ' + what)}"
    return f"{where} {escape(f'{actor} {what}' if actor else what)}"


SENT_BY_THE_GAME = "game"
"""Who a private event without an actor (a notice, a private view's update) comes from."""
