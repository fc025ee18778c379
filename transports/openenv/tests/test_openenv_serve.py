"""`negotiation-platform serve openenv` as a real server on a free 127.0.0.1 port, driven by OpenEnv's own
clients over WebSocket: whole matches, concurrent sessions, refused moves, every installed game."""

from __future__ import annotations

import asyncio
import json
import urllib.request
from collections.abc import Iterator

import pytest

pytest.importorskip("openenv")

from openenv.core.client_types import StepResult
from openenv.core.generic_client import GenericEnvClient
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from negotiation_openenv.client import NegotiationEnvClient
from negotiation_openenv.environment import NegotiationEnvironment, make_table
from negotiation_openenv.models import NegotiationObservation
from negotiation_platform.cli.main import main
from negotiation_platform.registry import Registry
from tests.cli_servers import cli_server

pytestmark = pytest.mark.anyio
SEED = 7


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    """`serve openenv` with no game named: every installed game, the others played by `concession`."""
    with cli_server("serve", "openenv", "--opponents", "concession") as (port, _):
        yield f"http://127.0.0.1:{port}"


async def _play_split(env: NegotiationEnvClient, mine: int) -> list[StepResult[NegotiationObservation]]:
    """A whole split_100 match: the learner proposes `mine` every turn until the match ends."""
    results: list[StepResult[NegotiationObservation]] = [await env.reset(seed=SEED)]
    while not results[-1].done:
        results.append(await env.step(env.action(action="propose", payload={"mine": mine}, message="deal?")))
    return results


async def test_a_whole_match_over_websocket_is_the_environments_match(base: str) -> None:
    async with NegotiationEnvClient(base, "split_100") as env:
        results = await _play_split(env, 50)
        state = await env.state()
    final = results[-1].observation
    assert final.done and final.payoffs is not None and final.prompt == ""
    # every seat's rewards over the episode add up to its payoff; the learner's is OpenEnv's scalar reward
    for seat, payoff in final.payoffs.items():
        assert sum(r.observation.rewards[seat] for r in results) == payoff
    assert [r.reward for r in results] == [r.observation.rewards["player_1"] for r in results]
    assert state.done and state.seed == SEED and state.step_count == len(results) - 1
    # the same seed and moves in process give the same observations: the server plays the text environment
    local = NegotiationEnvironment(make_table(Registry(), "split_100", opponents=["concession"]))
    expected = [local.reset(seed=SEED)]
    while not expected[-1].done:
        expected.append(local.step(local.table.action(action="propose", payload={"mine": 50}, message="deal?")))
    assert [r.observation.model_dump() for r in results] == [o.model_dump() for o in expected]


async def test_concurrent_sessions_are_separate_episodes(base: str) -> None:
    async def walk_away() -> list[StepResult[NegotiationObservation]]:
        async with NegotiationEnvClient(base, "split_100") as env:
            first = await env.reset(seed=SEED)
            return [first, await env.step(env.action(action="walk_away"))]

    async def greedy() -> list[StepResult[NegotiationObservation]]:
        async with NegotiationEnvClient(base, "split_100") as env:
            return await _play_split(env, 90)

    walked, played = await asyncio.gather(walk_away(), greedy())
    assert walked[-1].observation.payoffs == {"player_1": 0.0, "player_2": 0.0}
    assert len(played) > 2 and played[-1].done
    # the greedy session went on past the other's end, unaffected by it
    assert played[1].observation.round == 2 and not played[1].done


async def test_a_refused_move_is_a_structured_error_and_changes_nothing(base: str) -> None:
    async with NegotiationEnvClient(base, "split_100") as env:
        start = await env.reset(seed=SEED)
        before = await env.state()
        refused = await env.step(env.action(action="accept"))  # nothing is on the table to accept yet
        assert refused.observation.error is not None and refused.observation.error.code == "invalid_argument"
        assert "accept" in refused.observation.error.message
        assert refused.reward == 0.0 and not refused.done
        assert await env.state() == before
        assert refused.observation.legal_actions == start.observation.legal_actions == ["propose", "walk_away"]
        moved = await env.step(env.action(action="propose", payload={"mine": 60}))
        assert moved.observation.error is None and (await env.state()).step_count == 1


async def test_a_move_that_breaks_the_spec_never_reaches_the_match(base: str) -> None:
    async with GenericEnvClient(base_url=base + "/split_100") as env:  # sends what it is given, unchecked
        await env.reset(seed=SEED)
        before = await env.state()
        with pytest.raises(RuntimeError, match="VALIDATION_ERROR"):  # OpenEnv's error, from the spec's model
            await env.step({"action": "propose", "payload": {"mine": 150}})
        with pytest.raises(RuntimeError, match="VALIDATION_ERROR"):
            await env.step({"action": "haggle"})
        assert await env.state() == before
        moved = await env.step({"action": "propose", "payload": {"mine": 60}})
        assert moved.observation["error"] is None and (await env.state())["step_count"] == 1


async def test_the_prompts_json_reply_is_a_typed_action(base: str) -> None:
    """What a model writes when it follows its prompt's JSON reply format (`action_type`) is played as `action`."""
    async with GenericEnvClient(base_url=base + "/split_100") as env:
        await env.reset(seed=SEED)
        moved = await env.step({"action_type": "propose", "payload": {"mine": 60}, "message": "deal?"})
        assert moved.observation["error"] is None and (await env.state())["step_count"] == 1
        with pytest.raises(RuntimeError, match="VALIDATION_ERROR"):  # its payload checked as `action`'s
            await env.step({"action_type": "propose", "payload": {"mine": 150}})


async def test_text_actions_are_the_reply_alone_and_play_the_same_match() -> None:
    """`--actions text`: the schema's one required field is `reply` (what verifiers' openenv taskset fills with a
    model's raw text); a compact reply plays the same match as the typed action does."""
    with cli_server("serve", "openenv", "split_100", "--actions", "text", "--grammar", "compact") as (port, _):
        url = f"http://127.0.0.1:{port}/split_100"
        with urllib.request.urlopen(url + "/schema") as answer:
            schema = json.load(answer)["action"]
        assert schema["required"] == ["reply"] and set(schema["properties"]) == {"reply", "metadata"}
        async with GenericEnvClient(base_url=url) as env:
            results = [await env.reset(seed=SEED)]
            with pytest.raises(RuntimeError, match="VALIDATION_ERROR"):  # a typed move is not this table's action
                await env.step({"action": "propose", "payload": {"mine": 50}})
            while not results[-1].done:
                results.append(await env.step({"reply": "propose 50"}))
    typed = NegotiationEnvironment(make_table(Registry(), "split_100", opponents=["concession"]))
    expected = [typed.reset(seed=SEED)]
    while not expected[-1].done:
        expected.append(typed.step(typed.table.action(action="propose", payload={"mine": 50})))
    assert [r.reward for r in results] == [o.reward for o in expected]
    assert results[-1].observation["payoffs"] == expected[-1].payoffs


async def test_every_installed_game_is_served(base: str) -> None:
    with urllib.request.urlopen(base + "/") as answer:
        listed = json.load(answer)["games"]
    assert set(listed) == set(Registry().games())
    async with GenericEnvClient(base_url=base + "/no_press") as env:  # OpenEnv's untyped client
        result = await env.reset(seed=1)
        assert result.observation["legal_actions"] == ["split"] and result.observation["game"] == "no_press"


async def test_a_websocket_from_a_foreign_origin_is_refused(base: str) -> None:
    url = base.replace("http://", "ws://") + "/split_100/ws"
    with pytest.raises(InvalidStatus):
        async with connect(url, origin="http://attacker.example"):
            pass


def test_an_unknown_game_is_refused_before_serving(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "openenv", "no_such_game", "--port", "1"]) == 2
    assert "no_such_game" in capsys.readouterr().err
