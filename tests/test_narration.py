"""Events in plain words (`BaseGame.describe_event`), from the reader's side, for every built-in game; the
fallback for a game that fails to say one; the prompt a person reads; the CLI transcript in words."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from negotiation_adasociety.game import AdaSocietyGame
from negotiation_adasociety.narration import groups_text
from negotiation_coin_games.variants import CoinsClassic
from negotiation_platform.agents.llm import situation
from negotiation_platform.arena.arena import Arena
from negotiation_platform.cli.transcript import print_transcript
from negotiation_platform.engine import Match
from negotiation_platform.games import AuctionGame, CompanyCarGame, Split100Game
from negotiation_platform.games.narrated import event_text, narrated
from negotiation_platform.games.prompting import RESPONSE_FORMAT, for_a_person
from negotiation_platform.registry import Registry
from negotiation_platform.spec import Happening
from negotiation_platform.spec.narration import default_text, dollars


def texts(match: Match, reader: str | None) -> list[str]:
    return [event_text(match.game, e.to_dict(), reader) for e in match.events if e.visible_for(reader)]


def test_split_100_offers_and_acceptance_read_from_each_side() -> None:
    m = Match(Split100Game, ["alice", "concession"], seed=1)
    proposer = m.acting()[0]
    other = next(p for p in m.players if p != proposer)
    m.submit(proposer, "propose", {"mine": 82})
    m.submit(other, "accept", {})
    assert f"{proposer} offers you 18 and keeps 82" in texts(m, other)
    assert f"you offer {other} 18 and keep 82" in texts(m, proposer)
    assert f"{proposer} offers {other} 18 and keeps 82" in texts(m, None)
    assert f"you accept: you get 18, {proposer} gets 82" in texts(m, other)
    assert texts(m, None)[-1] == "The match is over."


def test_company_car_says_dollars_and_roles() -> None:
    m = Match(CompanyCarGame, ["alice", "bob"], seed=1)
    first = m.acting()[0]
    m.submit(first, "offer", {"price": 41000.5})
    said = texts(m, first)
    assert any(line.startswith("you (Party") and line.endswith("offer $41,000.50") for line in said), said
    assert dollars(41000) == "$41,000" and dollars(-2.5) == "-$2.50"


def test_auction_bids_and_the_sale() -> None:
    m = Match(AuctionGame, ["a", "b", "c"], seed=1)
    for p in m.players:
        m.submit(p, "done", {})
    for amount, p in zip((45, 30, 10), m.players, strict=True):
        m.submit(p, "bid", {"amount": amount})
    said = texts(m, "a")
    assert "you bid 45" in said[-4]  # revealed sealed bids, in the game's words
    assert "you win the item at 45 (bids: you 45, b 30, c 10)" in said


def test_adasociety_groups_and_moves_from_a_seat() -> None:
    groups = [{"group": 0, "shares": {"you_seat": 0.6, "gatherer_2": 0.4}}, {"group": 1, "shares": {"x": 1.0}}]
    assert groups_text(groups, "you_seat") == "gatherer_2 and you formed a group (your share 60%)"
    assert groups_text([], "you_seat").startswith("No groups now")
    game = AdaSocietyGame({"negotiation_steps": 0, "max_length": 3})
    move = Happening(kind="action", actor="p1", data={"action_type": "move", "payload": {"direction": "up"}})
    assert game.describe_event(move, "p1") == "you move up"
    assert game.describe_event(move, None) == "p1 moves up"
    assert game.describe_event(Happening(kind="round_started", data={"round": 3}), None) == "Round 3 begins."


def test_coin_games_claims_in_words() -> None:
    game = CoinsClassic()
    claim = Happening(kind="action", actor="b", data={"action_type": "split", "payload": {"hat": 2, "ball": 1}})
    assert game.describe_event(claim, "a") == "b claims 2 hat, 1 ball"
    assert game.describe_event(Happening(kind="notice", data={"round": 2, "your_reward": 7.5}), "a") == (
        "Round 2: you get 7.5"
    )


def test_a_game_without_words_of_its_own_gets_the_default_and_a_failing_one_falls_back() -> None:
    bid = {"kind": "action", "actor": "x", "data": {"action_type": "make_offer", "payload": {"amount": 3.25}}}
    assert event_text(None, bid, "x") == "you make offer amount 3.25"

    class Broken(Split100Game):
        def describe_event(self, event: Happening, reader: str | None) -> str:
            raise RuntimeError("a plugin's bug")

    [line] = narrated(Broken(), [bid], None)
    assert line["text"] == "x makes offer amount 3.25" and line["data"] == bid["data"]
    message = Happening(kind="message", actor="x", data={"content": "hi", "to": ["y"]})
    assert default_text(message, "y") == "x says to you: hi"


def test_the_prompt_a_person_reads_has_no_response_format() -> None:
    m = Match(Split100Game, ["a", "b"], seed=1)
    prompt = m.game.get_game_prompt(m.acting()[0])
    assert RESPONSE_FORMAT in prompt
    shown = for_a_person(prompt)
    assert RESPONSE_FORMAT not in shown and '"action_type"' not in shown and "Split $100" in shown


def test_the_cli_transcript_is_in_the_games_words_with_the_raw_move_beside() -> None:
    m = Match(Split100Game, ["a", "b"], seed=2)
    first = m.acting()[0]
    second = next(p for p in m.players if p != first)
    m.submit(first, "propose", {"mine": 70})
    m.submit(second, "accept", {})
    result = {
        "game": "split_100",
        "seed": 2,
        "config": {},
        "players": m.players,
        "events": [e.to_dict() for e in m.events],
        "payoffs": {first: 70.0, second: 30.0},
        "agreement": True,
        "terms": None,
        "winner": first,
        "rounds": 1,
    }
    out = io.StringIO()
    print_transcript(Console(file=out, width=200, color_system=None), result, Registry())
    text = out.getvalue()
    assert f'{first} offers {second} 30 and keeps 70  propose {{"mine": 70}}' in text
    assert f"{second} accepts: {second} gets 30, {first} gets 70" in text


@pytest.mark.anyio
async def test_an_llm_seats_prompt_says_what_happened_in_the_games_words() -> None:
    arena = Arena()
    a = await arena.start_game("split_100", seed=3, name="alice")
    b = await arena.join_game(a["match_id"], name="bob")
    alice, bob = await arena.seat_for(a["match_id"], a["token"]), await arena.seat_for(a["match_id"], b["token"])
    await alice.act("propose", {"mine": 60})
    turn = await bob.turn(0)
    assert turn.narration() == ["alice offers you 40 and keeps 60"]
    assert "What happened since your last turn:\n- alice offers you 40 and keeps 60" in situation(turn)
    assert "What happened" not in situation(turn.to_dict())  # a turn read over the wire: as before


def test_seat_facts_and_action_effects_in_the_games_units() -> None:
    m = Match(Split100Game, ["a", "b"], seed=1)
    first = m.acting()[0]
    second = next(p for p in m.players if p != first)
    m.submit(first, "propose", {"mine": 82})
    facts = {f.label: f.text for f in m.game.seat_facts(second)}
    assert facts["standing offer"] == f"{first} offers: you would get $18 ({first} keeps $82)"
    assert facts["to split"] == "$100" and facts["no deal"] == "you get $0"
    assert m.game.action_effect(second, "accept") == "you get $18"
    assert m.game.action_effect(first, "accept") is None

    car = Match(CompanyCarGame, ["a", "b"], seed=1)
    opener = car.acting()[0]
    other = next(p for p in car.players if p != opener)
    car.submit(opener, "offer", {"price": 40500})
    facts = {f.label: f.text for f in car.game.seat_facts(other)}
    assert facts["your role"] in ("Party A (buyer)", "Party B (seller)")
    batna = car.game.get_current_batna(other, 1)
    assert facts["your BATNA now"] == dollars(round(batna, 2)) and "," in facts["your BATNA now"]
    assert facts["standing offer"].startswith("$40,500: accepting would score you $")
    assert car.game.action_effect(other, "accept").startswith("deal at $40,500, you score $")  # type: ignore[union-attr]
    assert "Your score on a deal is your BATNA plus your surplus" in car.game.get_game_prompt(other)


def test_adasociety_facts_say_where_you_are_and_why_moves_are_closed() -> None:
    m = Match(AdaSocietyGame, ["p1", "p2", "p3", "p4"], config={"negotiation_steps": 0, "max_length": 3}, seed=2)
    facts = {f.label: f.text for f in m.game.seat_facts("p1")}
    assert facts["you are"].startswith(m.game.get_player_view("p1")["you"]["name"])
    assert facts["step"] == "1 of 3, physical phase" and facts["your group"] == "on your own"
    closed = facts["not possible now"]
    assert "dump: you hold no " in closed and "dump: dump" not in closed  # nothing held yet; the reason said once
