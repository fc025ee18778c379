"""verifiers' own `openenv` taskset against `negotiation-platform serve openenv`: the server a real subprocess
on a free 127.0.0.1 port, the taskset connected to it by `base_url`, whole episodes run by verifiers' episode
loop (`Env.run_episode`) with the scripted model as the learner seat's model.

The episode's reward (`openenv_reward`, the sum of the steps' rewards) is checked against the same match replayed
in process from the replies its trace recorded.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

vf = pytest.importorskip("verifiers.v1", reason="verifiers is installed only in its own environment (tox -e verifiers)")
pytest.importorskip("openenv", reason="the OpenEnv transport needs openenv==0.4.1 (tox -e verifiers installs it)")

from negotiation_verifiers import SeatHarnessConfig  # noqa: E402
from negotiation_verifiers.scripted import scripted_endpoint  # noqa: E402
from verifiers.v1.tasksets.openenv import OpenEnvConfig, OpenEnvEnvConfig  # noqa: E402

from negotiation_openenv.environment import NegotiationEnvironment, make_table  # noqa: E402
from negotiation_platform.registry import Registry  # noqa: E402
from tests.cli_servers import cli_server  # noqa: E402

pytestmark = pytest.mark.anyio
GAME = "split_100"
REWARD = "openenv_reward"
"""The taskset's reward: the sum of the OpenEnv steps' rewards, the learner seat's here."""
SERVED = ("--grammar", "compact", "--actions", "text", "--opponents", "concession")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    """`serve openenv` of one game: compact replies, the reply text as the action's one required field."""
    with cli_server("serve", "openenv", GAME, *SERVED) as (port, _):
        yield f"http://127.0.0.1:{port}/{GAME}"


async def _episodes(base_url: str, seeds: list[int], model_seed: int = 0) -> list[vf.Episode]:
    """One episode per seed through verifiers' loop; the learner's harness is the integration's in-process one
    (verifiers' default would install a program from the network)."""
    player = vf.AgentConfig(runtime=vf.SubprocessConfig(), harness=SeatHarnessConfig(id="negotiation_verifiers"))
    taskset = OpenEnvConfig(id="openenv", base_url=base_url, resets=[{"seed": seed} for seed in seeds])
    env = vf.load_environment(OpenEnvEnvConfig(taskset=taskset, player=player))
    async with scripted_endpoint(model_seed) as url:
        ctx = vf.ModelContext(model="scripted", client=vf.EvalClientConfig(base_url=url, api_key_var="SCRIPTED_KEY"))
        async with env.serving():
            return [await env.run_episode(task, ctx) for task in env.taskset.take(len(seeds))]


def _replies(episode: vf.Episode) -> list[str]:
    (trace,) = episode.traces
    return [(m.content or "").strip() for m in trace.assistant_messages]


def _replayed(seed: int, replies: list[str]) -> tuple[float, dict[str, float]]:
    """The learner's summed step rewards and the payoffs of the match the replies make on a fresh in-process
    environment of the same table (the opponents seeded as the server seeds them)."""
    local = NegotiationEnvironment(make_table(Registry(), GAME, grammar="compact", actions="text"))
    observation = local.reset(seed=seed)
    rewards = 0.0
    for reply in replies:
        assert not observation.done, "every recorded reply was a step of the match"
        observation = local.step(local.table.action(reply=reply))
        rewards += observation.reward or 0.0
    assert observation.done and observation.payoffs is not None
    return rewards, observation.payoffs


@pytest.mark.parametrize("model_seed", [2, 3])
async def test_verifiers_openenv_taskset_plays_whole_matches_on_serve_openenv(base_url: str, model_seed: int) -> None:
    seeds = [0, 1]
    episodes = await _episodes(base_url, seeds, model_seed)
    for seed, episode in zip(seeds, episodes, strict=True):
        assert episode.ok, episode.errors
        replies = _replies(episode)
        assert len(replies) >= 2, "the scripted learner played several moves"
        rewards, payoffs = _replayed(seed, replies)
        (trace,) = episode.traces
        assert trace.rewards[REWARD].score == rewards == payoffs["player_1"] > 0  # these model seeds make a deal


async def test_the_same_seed_gives_the_same_episode(base_url: str) -> None:
    first, second = [(await _episodes(base_url, [5], model_seed=2))[0] for _ in range(2)]
    assert _replies(first) == _replies(second)
    assert first.traces[0].rewards == second.traces[0].rewards
