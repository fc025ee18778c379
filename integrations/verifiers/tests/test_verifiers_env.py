"""Whole matches played through verifiers' own episode loop (`Env.run_episode`): each seat a verifiers agent
whose model is the scripted endpoint, reached over HTTP through verifiers' interception and eval client.

The payoffs are checked against a match replayed outside verifiers from the replies its traces recorded.
"""

from __future__ import annotations

import pytest

vf = pytest.importorskip("verifiers.v1", reason="verifiers is installed only in its own environment (tox -e verifiers)")

from negotiation_verifiers import PAYOFF, NegotiationEnv, load_environment  # noqa: E402
from negotiation_verifiers.scripted import scripted_endpoint  # noqa: E402

from negotiation_platform.llm_rl.text_env import TextEnv  # noqa: E402

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def _episode(env: NegotiationEnv, seed: int, model_seed: int) -> vf.Episode:
    async with scripted_endpoint(model_seed) as url:
        ctx = vf.ModelContext(model="scripted", client=vf.EvalClientConfig(base_url=url, api_key_var="SCRIPTED_KEY"))
        task = next(t for t in env.taskset.take(seed + 1) if t.data.seed == seed)
        async with env.serving():
            return await env.run_episode(task, ctx)


def _replies(episode: vf.Episode) -> dict[str, list[str]]:
    return {
        str(trace.agent.name): [(m.content or "").strip() for m in trace.assistant_messages]
        for trace in episode.traces
        if trace.agent is not None
    }


def _replayed_payoffs(game: str, seed: int, replies: dict[str, list[str]]) -> dict[str, float]:
    """The match the recorded replies make, played on a fresh TextEnv in turn order."""
    match = TextEnv(game, grammar="compact")
    match.reset(seed)
    left = {seat: list(said) for seat, said in replies.items()}
    while not match.done:
        for seat in match.to_move():
            if seat in match.to_move():
                match.step(seat, left[seat].pop(0))
    assert all(not said for said in left.values()), "every recorded reply was a move of the match"
    return match.payoffs()


@pytest.mark.parametrize(("game", "seed", "model_seed"), [("split_100", 0, 0), ("trust_and_split", 1, 0)])
async def test_a_whole_match_through_verifiers_pays_each_seat_its_payoff(game: str, seed: int, model_seed: int) -> None:
    env = load_environment(game, grammar="compact")
    episode = await _episode(env, seed, model_seed)
    assert episode.ok, episode.errors
    traces = {trace.agent.name: trace for trace in episode.traces if trace.agent is not None}
    assert sorted(traces) == ["player_1", "player_2"]
    replies = _replies(episode)
    assert sum(len(said) for said in replies.values()) >= 3, "the scripted seats played several moves"
    payoffs = _replayed_payoffs(game, seed, replies)
    assert {seat: trace.rewards[PAYOFF].score for seat, trace in traces.items()} == payoffs
    for seat, trace in traces.items():
        assert sum(trace.info["round_rewards"]) == pytest.approx(payoffs[seat])


async def test_the_same_seeds_give_the_same_episode() -> None:
    env = load_environment("split_100", grammar="compact")
    first, second = [await _episode(env, 2, 0) for _ in range(2)]
    assert _replies(first) == _replies(second)
    assert [t.rewards for t in first.traces] == [t.rewards for t in second.traces]


async def test_a_seat_whose_run_ends_early_is_defaulted_and_the_match_still_ends() -> None:
    env = load_environment("split_100", grammar="compact", player_2={"max_turns": 1})
    episode = await _episode(env, 0, 0)
    traces = {trace.agent.name: trace for trace in episode.traces if trace.agent is not None}
    assert traces["player_2"].num_turns == 1  # verifiers' own turn limit ended its run
    rewards = {seat: trace.rewards[PAYOFF].score for seat, trace in traces.items()}
    assert {seat: sum(trace.info["round_rewards"]) for seat, trace in traces.items()} == rewards
