"""Any game as an environment for TRL's `GRPOTrainer(environment_factory=...)`: one seat learns, the others play
inside each tool call.

`make_trl_env("split_100", opponents="concession")` returns a class with a zero-argument constructor, `reset(**row)`
(a row of `seed_dataset`: the match starts from its `seed`, so every rollout of a group starts alike), one tool per
action type of the game with the payload's fields as typed arguments (`propose(mine: int)`, `accept()`),
`send_public_message(content)` where a phase of the game allows public messages, and `get_reward()`.

A tool call is the learner seat's reply: the text environment (`TextEnv`) judges it, then every other seat that is
to move plays (a built-in agent, or an `llm:` endpoint) until the learner is to move again or the match is over. The
call returns what the model reads next: why its move was refused (the match unchanged), or its next prompt, or the
outcome. `get_reward()` is the learner's final payoff (the match's result, undiscounted); a rollout that stopped
calling tools before the end is finished first by the game's default moves for the learner, as for a seat that
never answers, so every rollout is scored on a whole match.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from pydantic import JsonValue

from negotiation_platform.agents.base import Decision, OutgoingMessage
from negotiation_platform.agents.catalog import make_agent
from negotiation_platform.agents.seating import SeatedBy
from negotiation_platform.arena.turn_state import seat_actions
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.llm_rl import grammar as grammars
from negotiation_platform.llm_rl.grammar import Grammar
from negotiation_platform.llm_rl.seat_agents import AgentSeat
from negotiation_platform.llm_rl.text_env import TextEnv
from negotiation_platform.llm_rl.tool_methods import tool_method
from negotiation_platform.registry import Registry
from negotiation_platform.spec import Channel, payload_schema
from negotiation_platform.spec.rules_text import render_rules

RESERVED = frozenset({"reset", "get_reward", "send_public_message"})
INSTRUCTIONS = (
    "You negotiate in a game against other players. Make each move by calling one of the tools; "
    "each call answers with what you see next. The game's rules and your situation follow."
)
TOOLS_NOTE = "Make your move by calling one of the tools."


class TrlSeatEnv:
    """One learner seat of a game for TRL; `make_trl_env` makes subclasses with the game's tools.

    Only `reset`, `get_reward` and the made tools are public methods: TRL turns every other public one into a tool."""

    game: ClassVar[str]
    seat: ClassVar[int | str] = 0
    opponents: ClassVar[tuple[str, ...]] = ("concession",)
    grammar: ClassVar[Grammar] = "json"
    config: ClassVar[Mapping[str, object] | None] = None
    registry: ClassVar[Registry]
    schemas: ClassVar[dict[str, dict[str, JsonValue]]] = {}
    """Each action's payload JSON Schema (the spec's), to write a tool call as a reply in the grammar."""

    def __init__(self) -> None:
        self._env = TextEnv(self.game, config=self.config, registry=self.registry, grammar=self.grammar)
        self._others: list[AgentSeat] = []
        self._learner = ""

    def reset(self, **row: Any) -> str:
        """Start the match of the row's `seed` (0 without one); the others play up to the learner's first move,
        whose situation is returned."""
        seed = int(row.get("seed", 0))
        env = self._env
        env.reset(seed=seed)
        self._learner = env.seats[self.seat] if isinstance(self.seat, int) else self.seat
        others = [s for s in env.seats if s != self._learner]
        specs = self.opponents if len(self.opponents) > 1 else self.opponents * len(others)
        self._others = [
            AgentSeat(self.registry, spec, other, seed=seed * 1000 + index)
            for index, (other, spec) in enumerate(zip(others, specs, strict=True))
        ]
        self._play_others()
        return self._situation(rules=True)

    def get_reward(self) -> float:
        """The learner's final payoff; a match left unfinished is first played out with the learner's defaults."""
        env = self._env
        while not env.done:
            if self._learner in env.to_move():
                env.step(self._learner, "")  # refused until the retries run out: the default move is played
            self._play_others()
        return env.payoffs()[self._learner]

    def _move(self, action: str | None, payload: dict[str, JsonValue], message: str | None = None) -> str:
        """The learner's move (an action, or a message alone) judged by the text environment, then the others'."""
        env = self._env
        if env.done:
            return "The match is over: " + self._outcome()
        if self._learner not in env.to_move():
            return "It is not your turn."
        messages = [OutgoingMessage(message)] if message is not None else []
        listed = {"allowed_actions": [{"name": action, "payload_schema": self.schemas[action]}] if action else []}
        reply = grammars.render(self.grammar, Decision(messages=messages, action=action, payload=payload), listed)
        step = env.step(self._learner, reply)
        if not step.accepted and not step.defaulted:
            return f"Refused: {step.error}"
        self._play_others()
        note = "" if step.accepted else f"Refused: {step.error} The default move was played for you.\n\n"
        return note + self._situation()

    def _play_others(self) -> None:
        """Every other seat that is to move plays, until only the learner is awaited or the match is over."""
        env = self._env
        while not env.done and (due := [s for s in self._others if s.seat in env.to_move()]):
            for other in due:
                if other.seat in env.to_move():
                    other.play(env)

    def _situation(self, rules: bool = False) -> str:
        """The learner's prompt without the grammar's reply format (it moves by tools), and without the game's
        rules after the first (`reset` shows them; every tool result counts against the completion's length)."""
        env = self._env
        if env.done:
            return "The match is over: " + self._outcome()
        user = env.prompt(self._learner).user
        allowed = seat_actions(env.match, self._learner)
        reminder = grammars.format_text(self.grammar, allowed)
        user = user.removesuffix("\n\n" + reminder)
        if not rules:
            user = user.replace(render_rules(env.match.spec), "", 1)
        return user + "\n\n" + TOOLS_NOTE

    def _outcome(self) -> str:
        payoffs = self._env.payoffs()
        return f"your payoff is {payoffs[self._learner]:g}; every seat's: {json.dumps(payoffs)}."


def make_trl_env(
    game: str,
    *,
    seat: int | str = 0,
    opponents: str | Sequence[str] = "concession",
    grammar: Grammar = "json",
    config: Mapping[str, object] | None = None,
    registry: Registry | None = None,
) -> type[TrlSeatEnv]:
    """A class for `GRPOTrainer(environment_factory=...)`: `seat` (index or agent id) learns; `opponents` plays the
    other seats (one spec for all, or one per other seat in seat order): built-in agents by name, `llm:` endpoints.

    Unknown games and agents, and actions that cannot be tools, are refused here (NegotiationError), not in training."""
    registry = registry or Registry()
    spec = registry.game(game).spec
    seats = TextEnv(game, config=config, registry=registry, grammar=grammar).seats  # the game, config and grammar
    if seat not in seats and not (isinstance(seat, int) and 0 <= seat < len(seats)):
        raise NegotiationError(ErrorCode.INVALID_ARGUMENT, f"Seat {seat!r} is not one of {game}'s seats {seats}.")
    specs = (opponents,) if isinstance(opponents, str) else tuple(opponents)
    if len(specs) not in (1, len(seats) - 1):
        raise NegotiationError(
            ErrorCode.INVALID_ARGUMENT, f"{game} has {len(seats) - 1} other seats: name one opponent or one for each."
        )
    for agent in specs:
        if agent == "self":
            raise NegotiationError(
                ErrorCode.INVALID_ARGUMENT, "Opponent 'self' (a frozen copy of the model) is not supported yet."
            )
        make_agent(registry, agent, seed=0, by=SeatedBy.OPERATOR)  # refused now rather than at the first reset
    namespace: dict[str, object] = {
        "game": game,
        "seat": seat,
        "opponents": specs,
        "grammar": grammar,
        "config": config,
        "registry": registry,
        "schemas": {action.name: payload_schema(action.payload) for phase in spec.phases for action in phase.actions},
        "__doc__": f"The game {game!r} for TRL's GRPOTrainer; seat {seat!r} learns against {', '.join(specs)}.",
    }
    for phase in spec.phases:
        for action in phase.actions:
            if action.name in RESERVED or action.name.startswith("_"):
                raise NegotiationError(
                    ErrorCode.INVALID_ARGUMENT, f"Action {action.name!r} of {game!r} cannot be a tool name."
                )
            namespace.setdefault(
                action.name, tool_method(action.name, action.description, payload_schema(action.payload), _act)
            )
    if any(phase.messaging.channel in (Channel.PUBLIC, Channel.BOTH) for phase in spec.phases):
        namespace["send_public_message"] = send_public_message
    return type(f"TrlEnv_{game}", (TrlSeatEnv,), namespace)


# The bodies of the tool methods `tool_method` makes methods of the env class: `self` is the env.
def _act(self: TrlSeatEnv, action: str, arguments: dict[str, Any]) -> str:
    return self._move(action, arguments)


def _say(self: TrlSeatEnv, action: str, arguments: dict[str, Any]) -> str:
    return self._move(None, {}, arguments["content"])


MESSAGE_SCHEMA: dict[str, JsonValue] = {
    "properties": {"content": {"type": "string", "description": "What you say to the other players."}},
    "required": ["content"],
}
send_public_message = tool_method(
    "send_public_message", "Send a message every player reads, where the phase allows one", MESSAGE_SCHEMA, _say
)


def seed_dataset(n: int, start: int = 0) -> Any:
    """`n` rows for `GRPOTrainer(train_dataset=...)`: `seed` start..start+n-1 and a `prompt` (a chat message list)
    that tells the model to move by tools; `reset` appends the seat's rules and situation to it."""
    from datasets import Dataset  # type: ignore[import-untyped]  # it ships no type information

    return Dataset.from_dict(
        {
            "prompt": [[{"role": "user", "content": INSTRUCTIONS}] for _ in range(n)],
            "seed": list(range(start, start + n)),
        }
    )
