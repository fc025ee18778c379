"""A game of this platform as a TextArena `Env`, played through `TextEnv`.

TextArena asks one player at a time (`get_observation` names it, `step` takes its reply); the
platform's phases may wait on several seats at once. The seats TextEnv awaits are asked in seat
order, each reply hidden from the others until the match reveals it, so a simultaneous phase
plays out as a sequence TextArena can drive. Player id `i` is `TextEnv.seats[i]`.

Nothing here draws from the global `random`: TextEnv seeds its own generator, and the TextArena
`State` kept for observations and `game_info` is built without a seed (`ta.State` seeds the
global `random` when given one).
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping

import textarena as ta
from pydantic import BaseModel, Field

from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.llm_rl.grammar import Grammar
from negotiation_platform.llm_rl.text_env import TextEnv, TextStep
from negotiation_platform.registry import Registry

__all__ = ["NegotiationState", "NegotiationTextArenaEnv", "StepInfo"]

_OBS = ta.ObservationType


class StepInfo(BaseModel):
    """What `step` reports besides `done` (TextArena's `info`, as a dict)."""

    accepted: bool = Field(description="Whether the reply was a legal move.")
    error: str | None = Field(default=None, description="Why the reply was refused, as shown to the player.")
    defaulted: bool = Field(default=False, description="Whether the spec's default move was played instead.")
    rewards: dict[int, float] = Field(default_factory=dict, description="Per player id, what this step realised.")


class NegotiationState(ta.State):  # type: ignore[misc]
    """TextArena's book-keeping (observations, role names, `game_info`, `error_allowance`)."""

    def __init__(self, num_players: int, error_allowance: int) -> None:
        super().__init__(num_players=num_players, seed=None)  # a seed here would reseed the global random
        self.error_allowance = error_allowance
        self.error_count = 0


class NegotiationTextArenaEnv(ta.Env):  # type: ignore[misc]
    """`reset(num_players, seed)`, `get_observation()`, `step(reply)`, `close() -> (rewards, game_info)`.

    A refused reply is shown to its player as TextArena's invalid-move notice and the same player
    is asked again; once a player has had more than `state.error_allowance` refusals in a row (1 by
    default, as in TextArena; settable after `reset`) the spec's default move is played for it and
    `game_info[pid]["invalid_move"]` is set. Rewards are the match's payoffs.
    """

    state: NegotiationState

    def __init__(
        self,
        game: str,
        config: Mapping[str, object] | None = None,
        registry: Registry | None = None,
        grammar: Grammar = "json",
        error_allowance: int = 1,
    ) -> None:
        self.game = game
        self.config = config
        self.registry = registry if registry is not None else Registry()
        self.grammar = grammar
        self.error_allowance = error_allowance
        self.seed: int | None = None
        self._text_env: TextEnv | None = None
        self._prompted: set[int] = set()

    @property
    def text_env(self) -> TextEnv:
        """The running TextEnv (after `reset`)."""
        if self._text_env is None:
            raise NegotiationError(ErrorCode.NOT_STARTED, "call reset(num_players, seed) first")
        return self._text_env

    def reset(self, num_players: int, seed: int | None = None) -> None:
        """A fresh match; `seed=None` draws one from the OS, never from the global `random`."""
        match_seed = secrets.randbelow(2**31) if seed is None else seed
        text_env = TextEnv(
            self.game,
            config=self.config,
            registry=self.registry,
            grammar=self.grammar,
            max_retries=self.error_allowance,
            players=num_players,
        )
        text_env.reset(seed=match_seed)
        state = NegotiationState(num_players, self.error_allowance)
        state.standard_resets(role_mapping={pid: f"Player {pid}" for pid in range(num_players)})
        for pid, seat in enumerate(text_env.seats):
            state.game_info[pid]["seat"] = seat
        self.seed, self._text_env, self.state, self._prompted = match_seed, text_env, state, set()
        self._ask_next()

    def step(self, action: str) -> tuple[bool, dict[str, object]]:
        """Play the current player's reply; `(done, info)` with `info` a `StepInfo` as a dict."""
        text_env, state = self.text_env, self.state
        if text_env.done:
            return True, StepInfo(accepted=False, error="the match is over").model_dump()
        pid = state.current_player_id
        state.add_observation(action, _OBS.PLAYER_ACTION, from_id=pid, to_id=pid)
        text_env.max_retries = state.error_allowance
        result = text_env.step(text_env.seats[pid], _unbracket(action))
        self._record(pid, result)
        if text_env.done:
            self._finish()
        else:
            self._ask_next()
        info = StepInfo(
            accepted=result.accepted,
            error=result.error,
            defaulted=result.defaulted,
            rewards={text_env.seats.index(seat): reward for seat, reward in result.rewards.items()},
        )
        return state.done, info.model_dump()

    def get_observation(self) -> tuple[int, list[tuple[int, str, object]]]:
        """The current player and what it has been shown since it was last asked (TextArena's messages)."""
        state = self._started()
        return state.current_player_id, state.get_current_player_observation()

    def close(self) -> tuple[dict[int, float] | None, dict[int, dict[str, object]]]:
        """`(rewards, game_info)`: rewards per player id (None before the match ends)."""
        state = self._started()
        return state.rewards, state.game_info

    def _started(self) -> NegotiationState:
        """The state, refused before `reset`."""
        _ = self.text_env
        return self.state

    def _record(self, pid: int, result: TextStep) -> None:
        """Count the reply as TextArena would: a refusal stays on the player, anything played moves on."""
        state = self.state
        if not result.accepted and not result.defaulted:
            state.error_count += 1
            state.add_observation(
                f"Player {pid} attempted an invalid move. Reason: {result.error} Please resubmit a valid move.",
                _OBS.GAME_ADMIN,
                to_id=pid,
            )
            return
        state.error_count = 0
        state.turn += 1
        state.game_info[pid]["turn_count"] += 1
        if result.defaulted:
            state.game_info[pid]["invalid_move"] = True
            state.add_observation(
                f"Player {pid} made too many invalid moves: the default move was played. Reason: {result.error}",
                _OBS.GAME_ADMIN,
                to_id=pid,
            )

    def _ask_next(self) -> None:
        """Make the first awaited seat (in seat order) the current player and show it its prompt."""
        text_env, state = self.text_env, self.state
        seat = text_env.to_move()[0]
        pid = text_env.seats.index(seat)
        prompt = text_env.prompt(seat)
        if pid not in self._prompted:
            self._prompted.add(pid)
            state.add_observation(prompt.system, _OBS.PROMPT, to_id=pid)
        state.add_observation(prompt.user, _OBS.GAME_BOARD, to_id=pid)
        state.current_player_id = pid

    def _finish(self) -> None:
        """Rewards are the match's payoffs, by player id."""
        text_env, state = self.text_env, self.state
        payoffs = text_env.payoffs()
        state.rewards = {pid: payoffs[seat] for pid, seat in enumerate(text_env.seats)}
        reason = "The match is over. Payoffs: " + ", ".join(
            f"Player {pid} {reward:g}" for pid, reward in state.rewards.items()
        )
        for info in state.game_info.values():
            info["reason"] = reason
        state.add_observation(reason, _OBS.GAME_ADMIN)
        state.done = True


def _unbracket(reply: str) -> str:
    """Undo TextArena's `ActionFormattingWrapper`, which puts a bracket-free reply inside `[...]`."""
    text = reply.strip()
    inner = text[1:-1]
    if len(text) >= 2 and text[0] == "[" and text[-1] == "]" and "[" not in inner and "]" not in inner:
        return inner
    return reply
