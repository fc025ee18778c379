"""`TextEnv`: any installed game as a multi-seat text environment, for training and testing LLM negotiators.

A seat reads what an `llm:` agent reads (the llm: agent's system message and `situation` text: the
game's prompt, the legal actions with their payload schemas, the messaging allowance and, after a
refusal, why) and answers with text, read by the llm: agent's parser (`grammar="json"`) or by the
compact line grammar (`grammar="compact"`, see `grammar`). The match is an engine `Match` on a clock
that never runs, so no move is ever timed out: the same game, config, seed and replies give the
same prompts, rewards and payoffs.

Refused replies (unreadable, or a move the engine refuses) change nothing; the reason is returned and
shown in the seat's next prompt. A seat whose reply is refused more than `max_retries` times in a row
on one move forfeits it: the phase's default action is played, as for an `llm:` agent that gives up.

Rewards: a game that reports a seat's reward per round (a notice `{"round": r, "your_reward": x}`
sent to that seat, as the coin games' Trust-and-Split, No-Press Split and Deal-or-No-Deal do after
each split) has it credited on the step whose move settled the round; the rest of the final payoff
(all of it, for games that report no rounds, such as split_100) arrives on the last step, credited
to the match's last round. A seat's step rewards, and its `round_rewards`, therefore always sum to
its payoff in the match's `GameResult`.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from negotiation_platform.agents.base import Decision, OutgoingMessage
from negotiation_platform.agents.llm import situation
from negotiation_platform.agents.payloads import sample_payload
from negotiation_platform.agents.random_agent import CHATTER
from negotiation_platform.agents.turns import listed_actions, messaging
from negotiation_platform.arena.game_configs import game_config
from negotiation_platform.arena.turn_state import seat_actions
from negotiation_platform.engine.events import Event, EventKind
from negotiation_platform.engine.match import Match
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.games.base_game import GameConfig
from negotiation_platform.llm_rl import grammar as grammars
from negotiation_platform.llm_rl.grammar import Grammar
from negotiation_platform.registry import Registry

REWARD_KEY = "your_reward"
"""The key of a per-round reward in a game's notice to one seat (with the round's number under `round`)."""


class SeatPrompt(BaseModel):
    """What a seat is shown before it replies: the chat's system and user messages, and the legal actions."""

    model_config = ConfigDict(frozen=True)

    system: str
    user: str
    actions: dict[str, dict[str, JsonValue]] = Field(
        description="Each legal action's name and its payload's JSON Schema."
    )


class TextStep(BaseModel):
    """What one reply did."""

    model_config = ConfigDict(frozen=True)

    accepted: bool
    error: str | None = None
    """Why the reply was refused, worded for the model (it is also shown in the seat's next prompt)."""
    code: ErrorCode | None = None
    """The refusal's stable code: `invalid_argument` for an unreadable reply, else the arena's own."""
    defaulted: bool = False
    """Too many refusals in a row: the phase's default move was played instead."""
    rewards: dict[str, float]
    """Each seat's reward realised by this step (see the module's docstring)."""
    done: bool


class TextEnv:
    """A game as a text environment: `reset`, then `step` the seats of `to_move()` until `done`.

    Args:
        game_id: an installed game (see `Registry.games()`).
        config: the game's config (None: its defaults); a bad one is refused (`INVALID_CONFIG`).
        registry: where the game is found (None: a default registry, plugins included).
        grammar: "json" (the llm: agent's replies) or "compact" (`propose 55`).
        max_retries: refused replies a seat may follow with another try on one move; the next refusal
            plays the default move.
        players: how many seats (None: the game's fewest).
    """

    def __init__(
        self,
        game_id: str,
        config: Mapping[str, object] | None = None,
        registry: Registry | None = None,
        grammar: Grammar = "json",
        max_retries: int = 2,
        players: int | None = None,
    ) -> None:
        if grammar not in ("json", "compact"):
            raise NegotiationError(ErrorCode.INVALID_ARGUMENT, f"grammar must be 'json' or 'compact', not {grammar!r}.")
        if max_retries < 0:
            raise NegotiationError(ErrorCode.INVALID_ARGUMENT, "max_retries must be 0 or more.")
        self.game_id = game_id
        entry = (registry or Registry()).game(game_id)
        self._game = entry.cls
        roles = self._game.spec.roles
        count = roles.min_players if players is None else players
        if not roles.min_players <= count <= roles.max_players:
            raise NegotiationError(
                ErrorCode.INVALID_ARGUMENT,
                f"{game_id} seats {roles.min_players}..{roles.max_players} players, not {count}.",
            )
        self.config: GameConfig = game_config(entry, dict(config) if config is not None else None)
        self.grammar: Grammar = grammar
        self.max_retries = max_retries
        self.seats: tuple[str, ...] = tuple(f"player_{i}" for i in range(1, count + 1))
        self.reset(0)

    def reset(self, seed: int = 0) -> None:
        """Start a fresh match seeded with `seed`."""
        self.seed = seed
        self._match = Match(self._game, list(self.seats), config=self.config, seed=seed, clock=lambda: 0.0)
        self._rng = random.Random(f"text-env:{seed}")
        self._refused: dict[str, int] = dict.fromkeys(self.seats, 0)
        self._last_error: dict[str, str | None] = dict.fromkeys(self.seats)
        self._paid: dict[str, float] = dict.fromkeys(self.seats, 0.0)
        self._seen: dict[str, int] = dict.fromkeys(self.seats, 0)
        """Where each seat's log was at its last move: its prompt shows the messages that came after."""
        self.round_rewards: list[dict[str, float]] = []

    @property
    def match(self) -> Match:
        """The match being played (read it; change it only through `step`)."""
        return self._match

    @property
    def done(self) -> bool:
        return self._match.finished

    def to_move(self) -> tuple[str, ...]:
        """The seats whose reply is awaited now (several in a simultaneous phase; none once done)."""
        return tuple(self._match.acting())

    def prompt(self, seat: str) -> SeatPrompt:
        """What `seat` is shown now: the llm: agent's system message and situation, and the reply format."""
        turn = self._turn(seat)
        user = situation(turn)
        error = self._last_error[seat]
        if error is not None:
            user += "\n\n" + error
        listed = listed_actions(turn)
        user += "\n\n" + grammars.format_text(self.grammar, listed)
        actions = {a["name"]: a["payload_schema"] for a in listed}
        return SeatPrompt(system=grammars.system_text(self.grammar), user=user, actions=actions)

    def step(self, seat: str, text: str) -> TextStep:
        """Play `seat`'s reply `text`; a refused one changes nothing in the match."""
        if seat not in self.to_move():
            raise NegotiationError(ErrorCode.NOT_YOUR_TURN, f"{seat} is not to move now; to move: {self.to_move()}.")
        turn = self._turn(seat)
        decision, problem = grammars.read(self.grammar, text, turn)
        start = len(self._match.events)
        if decision is None:
            error, code = f"That reply was not usable: {problem}", ErrorCode.INVALID_ARGUMENT
        else:
            refused = self._carry_out(seat, decision, bool(messaging(turn).get("uses_turn")))
            if refused is None:
                return self._stepped(seat, start, accepted=True)
            error, code = f"Your previous move was refused by the arena: {refused.message} Fix it.", refused.code
        self._refused[seat] += 1
        if self._refused[seat] <= self.max_retries:
            self._last_error[seat] = error
            return TextStep(accepted=False, error=error, code=code, rewards=dict.fromkeys(self.seats, 0.0), done=False)
        self._match.play_default(seat, f"{self.max_retries + 1} refused replies in a row: {error}", forfeit=True)
        return self._stepped(seat, start, accepted=False, error=error, code=code, defaulted=True)

    def payoffs(self) -> dict[str, float]:
        """The final payoffs, as the match's `GameResult` gives them (refused before the match is over)."""
        result = self._match.result
        if result is None:
            raise NegotiationError(ErrorCode.INVALID_ARGUMENT, "The match is not over yet: no payoffs.")
        return {seat: float(result.final_scores[seat]) for seat in self.seats}

    def legal_reply(self, seat: str, rng: random.Random | None = None) -> str:
        """A random reply in this env's grammar that the match accepts now (drawn from `rng`, else the env's
        own generator): a legal action with a random payload, or a message where only talk is open."""
        draw = rng or self._rng
        turn = self._turn(seat)
        actions = listed_actions(turn)
        trial = copy.deepcopy(self._match)  # a refused move changes nothing, so one copy serves every try
        for _ in range(50):
            if not actions:
                break
            chosen = draw.choice(actions)
            decision = Decision(action=chosen["name"], payload=sample_payload(chosen["payload_schema"], draw))
            try:
                trial.submit(seat, chosen["name"], decision.payload)
            except NegotiationError:
                continue
            return grammars.render(self.grammar, decision, turn)
        if messaging(turn).get("public"):
            return grammars.render(self.grammar, Decision(messages=[OutgoingMessage(draw.choice(CHATTER))]), turn)
        raise NegotiationError(ErrorCode.INVALID_ACTION, f"No legal move found for {seat} in phase {turn['phase']}.")

    # --- internals ------------------------------------------------------------------------

    def _turn(self, seat: str) -> dict[str, object]:
        """The turn state an llm: agent would be given now, with the keys its `situation` reads."""
        match = self._match
        return {
            "prompt": match.game.get_game_prompt(seat),
            "game_id": self.game_id,
            "agent_id": seat,
            "players": list(self.seats),
            "round": match.round,
            "rounds": match.spec.rounds,
            "phase": match.phase,
            "allowed_actions": seat_actions(match, seat),
            "messaging": match.message_allowance(seat),
            "events": [e.to_dict() for e in match.events_for(seat, self._seen[seat]) if e.kind is EventKind.MESSAGE],
        }

    def _carry_out(self, seat: str, decision: Decision, uses_turn: bool) -> NegotiationError | None:
        """Send the decision's messages, then its action (unless a message was the seat's whole turn, as a
        phase may rule: `uses_turn`); on a refusal put the match back as it was."""
        before = self._match
        if decision.messages and decision.action is not None and not uses_turn:
            self._match = copy.deepcopy(before)  # a message is logged at once: keep the match to go back to
        try:
            for message in decision.messages:
                self._match.send_message(seat, message.content)
            if decision.action is not None and not (decision.messages and uses_turn):
                self._match.submit(seat, decision.action, decision.payload)
        except NegotiationError as refused:
            self._match = before
            return refused
        return None

    def _stepped(
        self,
        seat: str,
        start: int,
        *,
        accepted: bool,
        error: str | None = None,
        code: ErrorCode | None = None,
        defaulted: bool = False,
    ) -> TextStep:
        """`seat`'s move was made: its refusals are forgotten, and the step's rewards are the per-round rewards
        its events report and, at the end, the rest of the payoffs."""
        self._refused[seat], self._last_error[seat], self._seen[seat] = 0, None, len(self._match.events)
        rewards = dict.fromkeys(self.seats, 0.0)
        for event in self._match.events.since(start):
            round_number, rewarded, reward = _round_reward(event)
            if rewarded in rewards:
                rewards[rewarded] += reward
                self._credit(round_number, rewarded, reward)
        if self.done:
            for rewarded, payoff in self.payoffs().items():
                rest = payoff - self._paid[rewarded]
                rewards[rewarded] += rest
                self._credit(self._match.round, rewarded, rest)
        return TextStep(accepted=accepted, error=error, code=code, defaulted=defaulted, rewards=rewards, done=self.done)

    def _credit(self, round_number: int, seat: str, reward: float) -> None:
        while len(self.round_rewards) < round_number:
            self.round_rewards.append(dict.fromkeys(self.seats, 0.0))
        self.round_rewards[round_number - 1][seat] += reward
        self._paid[seat] += reward


def _round_reward(event: Event) -> tuple[int, str | None, float]:
    """(round, seat, reward) of a game's per-round reward notice to one seat; (0, None, 0.0) for any other event."""
    data = event.data
    seen = event.visible_to
    if event.kind is not EventKind.NOTICE or REWARD_KEY not in data or seen is None or len(seen) != 1:
        return 0, None, 0.0
    return int(data["round"]), seen[0], float(data[REWARD_KEY])
