"""A game as an OpenEnv `Environment`: one learner seat, the other seats played by built-in agents.

Each session (one WebSocket connection) has its own environment, and each `reset` starts an episode: a
match of the llm_rl text environment (`TextEnv`), whose other seats are played by `AgentSeat`s (built-in
agents by name, `llm:` endpoints) until the learner is to move. A typed action is written as a reply in
the text environment's grammar and judged there, so a learner sees exactly what a TRL or TextArena learner
sees: a refused move changes nothing and comes back as a structured `error` (the move may be tried again;
after `max_retries` refusals in a row the phase's default move is played), the learner's reward per step
is OpenEnv's `reward` and every seat's is in `rewards`, and the rewards of an episode sum to the payoffs.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from openenv.core.env_server.interfaces import Environment

from negotiation_openenv.models import (
    NegotiationAction,
    NegotiationObservation,
    NegotiationState,
    StepError,
    action_model,
    observation_model,
    reply_model,
)
from negotiation_platform.agents.base import Decision, OutgoingMessage
from negotiation_platform.agents.catalog import make_agent
from negotiation_platform.agents.seating import SeatedBy
from negotiation_platform.arena.turn_state import seat_actions
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.llm_rl import grammar as grammars
from negotiation_platform.llm_rl.grammar import Grammar
from negotiation_platform.llm_rl.seat_agents import AgentSeat
from negotiation_platform.llm_rl.text_env import TextEnv, TextStep
from negotiation_platform.registry import Registry

Actions = Literal["typed", "text"]
"""A table's action model: the game's typed actions (`action_model`) or the reply text alone (`reply_model`)."""
MAX_SEED = 2**31 - 1
"""The largest seed drawn for a reset that names none."""


@dataclass(frozen=True)
class Table:
    """What every session of one served game shares: the game, who learns, who plays the others, the models."""

    game: str
    registry: Registry
    seat: int = 0
    opponents: tuple[str, ...] = ("concession",)
    grammar: Grammar = "json"
    max_retries: int = 2
    actions: Actions = "typed"
    action: type[NegotiationAction] = field(default=NegotiationAction, compare=False)
    observation: type[NegotiationObservation] = field(default=NegotiationObservation, compare=False)


def make_table(
    registry: Registry,
    game: str,
    *,
    seat: int = 0,
    opponents: Sequence[str] = ("concession",),
    grammar: Grammar = "json",
    max_retries: int = 2,
    actions: Actions = "typed",
) -> Table:
    """The table of `game`, its settings checked now (an unknown game or agent, a seat out of range: refused
    with NegotiationError) rather than at a session's first reset."""
    seats = TextEnv(game, registry=registry, grammar=grammar, max_retries=max_retries).seats
    if not 0 <= seat < len(seats):
        raise NegotiationError(ErrorCode.INVALID_ARGUMENT, f"{game} has seats 0..{len(seats) - 1}, not {seat}.")
    if len(opponents) not in (1, len(seats) - 1):
        raise NegotiationError(
            ErrorCode.INVALID_ARGUMENT, f"{game} has {len(seats) - 1} other seats: name one opponent or one for each."
        )
    for agent in opponents:
        make_agent(registry, agent, seed=0, by=SeatedBy.OPERATOR)
    spec = registry.game(game).spec
    return Table(
        game,
        registry,
        seat,
        tuple(opponents),
        grammar,
        max_retries,
        actions,
        action_model(game, spec) if actions == "typed" else reply_model(game),
        observation_model(game, spec),
    )


class NegotiationEnvironment(Environment[NegotiationAction, NegotiationObservation, NegotiationState]):
    """One session's episodes of a table's game (see the module's docstring)."""

    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self, table: Table) -> None:
        super().__init__()
        self.table = table
        self._env = TextEnv(table.game, registry=table.registry, grammar=table.grammar, max_retries=table.max_retries)
        self._learner = self._env.seats[table.seat]
        self._others: list[AgentSeat] = []
        self._state = NegotiationState(game=table.game, seat=self._learner)

    def reset(self, seed: int | None = None, episode_id: str | None = None, **kwargs: Any) -> NegotiationObservation:
        """A new match seeded with `seed` (drawn at random when None); the other seats play up to the learner's
        first move."""
        seed = secrets.randbelow(MAX_SEED) if seed is None else seed
        env, table = self._env, self.table
        env.reset(seed)
        others = [s for s in env.seats if s != self._learner]
        specs = table.opponents if len(table.opponents) > 1 else table.opponents * len(others)
        self._others = [
            AgentSeat(table.registry, spec, other, seed=seed * 1000 + index)
            for index, (other, spec) in enumerate(zip(others, specs, strict=True))
        ]
        self._state = NegotiationState(episode_id=episode_id, game=table.game, seed=seed, seat=self._learner)
        return self._observe(self._play_others(dict.fromkeys(env.seats, 0.0)))

    def step(self, action: NegotiationAction, timeout_s: float | None = None, **kwargs: Any) -> NegotiationObservation:
        """The learner's move, then the other seats' until the learner is to move again or the match is over."""
        env = self._env
        if env.done:
            return self._observe(error=StepError(code=ErrorCode.MATCH_OVER, message="The match is over: reset."))
        try:
            step = env.step(self._learner, self._reply(action))
        except NegotiationError as refused:  # not the learner's turn: nothing was played
            return self._observe(error=StepError(code=refused.code, message=refused.message))
        if not step.accepted and not step.defaulted:
            return self._observe(error=_refusal(step))
        self._state.step_count += 1
        rewards = self._play_others(dict(step.rewards))
        return self._observe(rewards, error=_refusal(step) if step.defaulted else None, defaulted=step.defaulted)

    @property
    def state(self) -> NegotiationState:
        match = self._env.match
        return self._state.model_copy(update={"round": match.round, "phase": match.phase, "done": self._env.done})

    def _reply(self, action: NegotiationAction) -> str:
        """The action as the text a seat replies with in the table's grammar (a raw `reply` as it is)."""
        if action.reply is not None:
            return action.reply
        payload = action.payload.model_dump(mode="json") if action.payload is not None else {}
        messages = [OutgoingMessage(action.message)] if action.message is not None else []
        decision = Decision(messages=messages, action=action.action, payload=payload)
        schema = action.payload.model_json_schema() if action.payload is not None else {}
        listed = [{"name": action.action, "payload_schema": schema}] if action.action is not None else []
        return grammars.render(self.table.grammar, decision, {"allowed_actions": listed})

    def _play_others(self, rewards: dict[str, float]) -> dict[str, float]:
        """Every other seat that is to move plays until only the learner is awaited or the match is over;
        their steps' rewards are added to `rewards`."""
        env = self._env
        while not env.done and (due := [s for s in self._others if s.seat in env.to_move()]):
            for other in due:
                if other.seat in env.to_move():
                    for seat, reward in other.play(env).rewards.items():
                        rewards[seat] += reward
        return rewards

    def _observe(
        self, rewards: dict[str, float] | None = None, error: StepError | None = None, defaulted: bool = False
    ) -> NegotiationObservation:
        env, seat = self._env, self._learner
        rewards = rewards if rewards is not None else dict.fromkeys(env.seats, 0.0)
        match = env.match
        prompt = env.prompt(seat) if seat in env.to_move() else None
        return self.table.observation(
            game=self.table.game,
            seat=seat,
            system=prompt.system if prompt else "",
            prompt=prompt.user if prompt else "",
            legal_actions=[a["name"] for a in seat_actions(match, seat)] if prompt else [],
            to_move=list(env.to_move()),
            round=match.round,
            phase=match.phase,
            rewards=rewards,
            payoffs=env.payoffs() if env.done else None,
            error=error,
            defaulted=defaulted,
            reward=rewards[seat],
            done=env.done,
        )


def _refusal(step: TextStep) -> StepError:
    return StepError(code=step.code or ErrorCode.INVALID_ACTION, message=step.error or "The move was refused.")
