"""Integers in answers stay within what a JavaScript client holds exactly (a float64: ±(2^53 − 1)).

A JS client reads every JSON number as a float64; a seed beyond 2^53 comes back rounded, and the
match it names can no longer be replayed.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from negotiation_platform.agents import BatnaAwareAgent, RandomAgent, play_match
from negotiation_platform.arena import Arena
from negotiation_platform.arena.policy import MAX_SEED, ArenaPolicy
from negotiation_platform.catalogue import CATALOGUE
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.games.base_game import MAX_VALUE
from tests.json_places import json_objects


def as_javascript_reads(answer: dict[str, Any]) -> Any:
    """The answer as a JS client sees it: through JSON, every number a float64."""
    return json.loads(json.dumps(answer), parse_int=float)


async def played(arena: Arena, seed: int | None) -> dict[str, Any]:
    agents = [RandomAgent(seed=1, name="r"), BatnaAwareAgent(name="b")]
    return await play_match(arena, "deal_or_no_deal", agents, seed=seed)


def transcript(result: dict[str, Any]) -> str:
    """Everything the seats saw, with the match's id (its only difference from a replay) left out."""
    events = [(e["seq"], e["kind"], e.get("actor"), e["data"]) for e in result["events"]]
    return json.dumps(events).replace(result["match_id"], "MATCH")


def outcome(result: dict[str, Any]) -> str:
    """The answer (payoffs, terms, the seed itself) but the events, without the match's id."""
    return json.dumps({k: v for k, v in result.items() if k != "events"}).replace(result["match_id"], "MATCH")


@pytest.mark.anyio
async def test_a_served_matchs_seed_as_javascript_reads_it_replays_the_match() -> None:
    served = await played(Arena(policy=ArenaPolicy.served()), seed=None)
    seed = int(as_javascript_reads(served)["seed"])
    assert seed == served["seed"]
    replayed = await played(Arena(), seed=seed)
    assert transcript(replayed) == transcript(served)
    assert outcome(replayed) == outcome(served)


@given(match_id=st.text(max_size=40), client_seed=st.none() | st.integers(-MAX_SEED, MAX_SEED))
def test_derived_seeds_fit_in_53_bits(match_id: str, client_seed: int | None) -> None:
    seed = ArenaPolicy.served().match_seed(match_id, client_seed)
    assert 0 <= seed <= MAX_SEED == 2**53 - 1
    assert float(seed) == seed


@pytest.mark.anyio
@pytest.mark.parametrize("seed", [MAX_SEED + 1, -MAX_SEED - 1, 2**64, True, 1.5])
async def test_a_seed_javascript_cannot_hold_is_refused(seed: Any) -> None:
    arena = Arena()
    with pytest.raises(NegotiationError) as info:
        await arena.start_game("deal_or_no_deal", seed=seed, name="me")
    assert info.value.code is ErrorCode.INVALID_ARGUMENT
    assert (await arena.list_matches())["matches"] == []
    bounds = CATALOGUE["start_game"].arguments_schema["properties"]["seed"]
    assert (bounds["minimum"], bounds["maximum"]) == (-MAX_SEED, MAX_SEED)


@pytest.mark.anyio
@pytest.mark.parametrize("seed", [MAX_SEED, -MAX_SEED])
async def test_the_extreme_seeds_are_accepted_and_read_back_exactly(seed: int) -> None:
    result = await played(Arena(), seed=seed)
    assert int(as_javascript_reads(result)["seed"]) == seed


def unbounded_numbers(schema: Any) -> list[str]:
    """Where a JSON Schema admits a number without bounds within ±(2^53 − 1), or bounds beyond them."""
    found = []
    for path, part in json_objects(schema):
        if part.get("type") in ("integer", "number"):
            low = part.get("minimum", part.get("exclusiveMinimum"))
            high = part.get("maximum", part.get("exclusiveMaximum"))
            if low is None or high is None or not -MAX_SEED <= low <= high <= MAX_SEED:
                found.append(path)
    return found


@pytest.mark.anyio
async def test_every_installed_games_configs_and_payloads_keep_numbers_within_javascript_integers() -> None:
    """A game's config and payloads are echoed in answers (get_result's config, views, events)."""
    assert MAX_VALUE <= MAX_SEED
    arena = Arena()
    games = arena.registry.games()
    assert len(games) == len((await arena.list_games())["games"])
    for game_id, entry in games.items():
        assert unbounded_numbers(await arena.get_game_rules(game_id)) == [], game_id  # the payloads' schemas
        assert unbounded_numbers(entry.cls.Config.model_json_schema()) == [], game_id
