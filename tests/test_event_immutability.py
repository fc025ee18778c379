"""A logged event never changes: in every installed game, under random play mixed with clocks running
out and default moves, each event reads the same (as JSON) when it first appears, at the end of the
match, and in a real SQLite store that was written as the arena writes it (each change's new events)."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Iterator

import pytest

from negotiation_platform.arena.persistence import Persistence
from negotiation_platform.engine import Event, EventKind, Match
from negotiation_platform.registry import Registry
from negotiation_platform.store import open_store
from negotiation_platform.store.records import MatchRecord, SeatRecord
from negotiation_platform.testing.playthrough import Playthrough, random_move
from tests.conftest import FakeClock

GAMES = sorted(Registry().games())
SEEDS = (1, 2, 3)
MAX_STEPS = 3_000
CLOCK_RUNS_OUT = 0.15
"""Share of steps where the turn's (or in sealed and free phases the phase's) clock runs out first."""
SEAT_FORFEITS = 0.1
"""Share of steps where one acting seat forfeits its move (a late or garbled remote agent)."""
PLAYERS_MOST = 8


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Persistence]:
    opened = open_store(str(tmp_path_factory.mktemp("immutability") / "matches.db"))
    assert opened is not None
    yield Persistence(opened, "property-test")
    opened.close()


def as_json(event: Event) -> str:
    return json.dumps(event.to_dict(), sort_keys=True)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("game_id", GAMES)
def test_every_event_reads_the_same_when_it_appears_at_the_end_and_in_the_store(
    game_id: str, seed: int, store: Persistence
) -> None:
    entry = Registry().game(game_id)
    config = entry.cls.parse_config(None)
    players = [f"p{i}" for i in range(1, entry.cls.spec_for(config).roles.min_players + 1)]
    assert len(players) <= PLAYERS_MOST
    clock = FakeClock()
    match = Match(entry.cls, players, config=config, seed=seed, match_id=f"{game_id}-{seed}", clock=clock)
    store.create(
        MatchRecord(
            match_id=match.match_id,
            game_id=game_id,
            config=config.model_dump(mode="json"),
            seed=seed,
            seats_total=len(players),
            status="running",
            created_at=time.time(),
            seats=tuple(SeatRecord(p, p, f"hash-{p}") for p in players),
        )
    )
    store.write(match.match_id, events=list(match.events), round=match.round)
    first_seen = {e.seq: as_json(e) for e in match.events}
    rng = random.Random(seed)
    played = Playthrough(match)
    for _ in range(MAX_STEPS):
        if match.finished:
            break
        before = len(match.events)
        acting, draw = match.acting(), rng.random()
        if not acting or draw < CLOCK_RUNS_OUT:
            if match.deadline is not None:
                clock.advance(match.deadline - clock())
                match.expire_due()
            else:
                match.time_out()
        elif draw < CLOCK_RUNS_OUT + SEAT_FORFEITS:
            match.play_default(rng.choice(acting), "turn clock: no move in time")
        else:
            random_move(played, rng.choice(acting), rng)
        new = match.events.since(before)
        first_seen.update((e.seq, as_json(e)) for e in new)
        store.write(match.match_id, events=list(new), round=match.round)
    assert match.finished, f"{game_id} had not ended after {MAX_STEPS} steps"

    at_the_end = {e.seq: as_json(e) for e in match.events}
    stored = {e.seq: as_json(e) for e in store.store.events(match.match_id)}
    changed = {seq: (seen, at_the_end[seq]) for seq, seen in first_seen.items() if at_the_end[seq] != seen}
    assert not changed, "events changed after they were logged (as first seen, at the end)"
    assert stored == at_the_end == first_seen


def test_a_clock_that_closes_a_step_with_no_submission_keeps_that_reveal_empty() -> None:
    """The case that leaked: AdaSociety's negotiation step closed by its clock with nobody moving (its
    default, staying, is not allowed to a seat that could invite), then a sealed invitation next step."""
    entry = Registry().game("adasociety")
    players = ["p1", "p2", "p3", "p4"]
    match = Match(entry.cls, players, seed=1, clock=FakeClock())
    match.time_out()
    assert [e.data for e in match.events if e.kind is EventKind.REVEALED] == [{"submissions": {}}]
    match.submit("p1", "request_match", {"player": "p2"})
    assert [e.data for e in match.events if e.kind is EventKind.REVEALED] == [{"submissions": {}}]
