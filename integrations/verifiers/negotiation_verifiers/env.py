"""A game as a verifiers v1 multi-agent environment: one `AgentConfig` per seat, the match as the episode.

The taskset yields one task per seed; `NegotiationEnv.run` plays that seed's match of the core's `TextEnv`
with one verifiers interaction per seat: the seat to move gets its prompt (what an `llm:` agent reads) as a
user turn, its reply is the move (refused replies are shown again with the reason, as `TextEnv` rules), and
when the match is over each seat's trace gets its payoff as the reward `payoff`, with the per-round rewards
in `trace.info["round_rewards"]`.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from contextlib import AsyncExitStack
from typing import Literal

import verifiers.v1 as vf
from pydantic import Field, JsonValue

from negotiation_platform.llm_rl.text_env import TextEnv

PAYOFF = "payoff"
"""The name of each seat's reward: its payoff in the match."""


def _seat() -> vf.AgentConfig:
    """A seat's default: the local runtime (no box to provision); the harness left to the taskset's own,
    this package's `SeatHarness`."""
    return vf.AgentConfig(runtime=vf.SubprocessConfig())


class NegotiationTasksetConfig(vf.TasksetConfig):
    """Which game, and how its seats reply (`--env.taskset.*`)."""

    game: str = "split_100"
    config: dict[str, JsonValue] | None = None
    """The game's config (None: its defaults)."""
    grammar: Literal["json", "compact"] = "json"
    max_retries: int = Field(2, ge=0)
    """Refused replies a seat may follow with another try on one move; then the phase's default is played."""
    seeds: int | None = Field(None, ge=1)
    """How many tasks (seeds 0, 1, ...); None: without end."""


class NegotiationData(vf.TaskData):
    seed: int
    """The match's seed: the same seed and replies give the same match."""


class NegotiationTask(vf.Task[NegotiationData, vf.State, vf.TaskConfig]):
    pass


class NegotiationTaskset(vf.Taskset[NegotiationTask, NegotiationTasksetConfig]):
    """One task per seed. The seats are prompted by the env (the task has no prompt of its own)."""

    INFINITE = True

    def load(self) -> Iterator[NegotiationTask]:
        seeds = itertools.count() if self.config.seeds is None else range(self.config.seeds)
        for seed in seeds:
            data = NegotiationData.model_validate({"name": f"{self.config.game}#{seed}", "seed": seed})
            yield NegotiationTask(data, self.config.task)


class NegotiationEnvConfig(vf.EnvConfig):
    """The seats, named as the game's (`--env.player_1.model ...`). A game with more seats needs a config
    subclass declaring them."""

    taskset: NegotiationTasksetConfig = NegotiationTasksetConfig(id="negotiation_verifiers")
    player_1: vf.AgentConfig = _seat()
    player_2: vf.AgentConfig = _seat()


class NegotiationEnv(vf.Env[NegotiationEnvConfig]):
    async def run(self, task: vf.Task[vf.TaskData, vf.State, vf.TaskConfig], agents: vf.Agents) -> None:
        options = self.config.taskset
        game = TextEnv(options.game, options.config, grammar=options.grammar, max_retries=options.max_retries)
        assert isinstance(task.data, NegotiationData)
        game.reset(task.data.seed)
        payoffs = dict.fromkeys(game.seats, 0.0)
        async with AsyncExitStack() as stack:
            seats = {}
            ended: set[str] = set()
            for seat in game.seats:
                data = task.data.model_copy(update={"system_prompt": game.prompt(seat).system})
                seats[seat] = await stack.enter_async_context(getattr(agents, seat).interaction(type(task)(data)))
            while not game.done:
                for seat in game.to_move():
                    if seat not in game.to_move():  # a simultaneous phase settled by another seat's move
                        continue
                    reply = ""  # a seat whose run has ended (a limit, a failed call): refused, then defaulted
                    if seat not in ended:
                        segment = await seats[seat].turn(game.prompt(seat).user)
                        if segment.terminated:
                            ended.add(seat)
                        else:
                            reply = segment.last_reply
                    step = game.step(seat, reply)
                    for rewarded, reward in step.rewards.items():
                        payoffs[rewarded] += reward
        for seat, interaction in seats.items():
            interaction.trace.record_reward(PAYOFF, payoffs[seat])
            interaction.trace.info["round_rewards"] = [rewards[seat] for rewards in game.round_rewards]


def load_environment(
    game: str = "split_100",
    config: dict[str, JsonValue] | None = None,
    grammar: Literal["json", "compact"] = "json",
    seeds: int | None = None,
    **seats: dict[str, JsonValue],
) -> NegotiationEnv:
    """The environment for `game` (verifiers' `load_environment` over a `NegotiationEnvConfig`); `seats` are
    merged onto a seat's default agent, e.g. `player_2={"model": "other"}`."""
    taskset = NegotiationTasksetConfig(
        id="negotiation_verifiers", game=game, config=config, grammar=grammar, seeds=seeds
    )
    env = vf.load_environment(NegotiationEnvConfig(taskset=taskset, **seats))
    assert isinstance(env, NegotiationEnv)
    return env
