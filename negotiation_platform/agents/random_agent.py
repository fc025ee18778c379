"""`random`: picks uniformly among the legal actions, with a random valid payload."""

from __future__ import annotations

import random
from collections.abc import Mapping

from negotiation_platform.agents.base import Decision, OutgoingMessage
from negotiation_platform.agents.payloads import sample_payload
from negotiation_platform.agents.turns import listed_actions, messaging, seen_events
from negotiation_platform.engine.event_log import played_by_default

OWN_MOVES = frozenset({"action", "message"})
"""Event kinds that are a seat's own decisions (a default the engine played is marked `timed_out` or `forfeited`)."""
CHATTER = ("Let's find a fair deal.", "I am listening.", "What do you propose?")
"""What a random seat says where only talk is open."""


class RandomAgent:
    """Uniformly random legal actions, reading only the turn state's actions and their payload schemas.

    Each decision draws from a generator seeded by the agent's seed, how many moves its seat has made
    (counted from the events it is shown) and how many times in a row it was refused there: a fresh agent
    shown the whole log, as a restarted server's house seat is, decides exactly as the first one would
    have, and the same seed gives the same play however the turns are timed.
    """

    reads_prompt = False

    reads_turn_in_place = True

    def __init__(self, seed: int = 0, name: str = "random") -> None:
        self.name = name
        self._seed = seed
        self._counted_to = 0
        """The last event sequence number counted."""
        self._moves = 0
        self._draw: tuple[int, int] = (-1, 0)
        """(moves, attempt) of the last decision; the attempt counts retries after refusals."""

    def decide(self, turn: Mapping[str, object]) -> Decision:
        rng = self._generator(turn)
        actions = listed_actions(turn)
        if not actions:
            if messaging(turn).get("public"):
                return Decision(messages=[OutgoingMessage(self._chatter(rng))])
            return Decision()
        choice = rng.choice(actions)
        return Decision(action=choice["name"], payload=sample_payload(choice["payload_schema"], rng))

    def observe(self, turn: Mapping[str, object]) -> None:
        """Count the seat's own moves among the turn's new events. The drivers call this with the turns
        that are not the seat's move; an agent that keeps a RandomAgent as a fallback passes it every
        turn, also those it decides itself, so the count stays whole."""
        me = turn.get("agent_id")
        for event in seen_events(turn):
            if event["seq"] > self._counted_to:
                self._counted_to = event["seq"]
                own = event["actor"] == me and event["kind"] in OWN_MOVES
                if own and not played_by_default(event["data"]):
                    self._moves += 1

    def _generator(self, turn: Mapping[str, object]) -> random.Random:
        self.observe(turn)
        moves, attempt = self._draw
        retry = "refusal" in turn and moves == self._moves
        self._draw = (self._moves, attempt + 1 if retry else 0)
        return random.Random(f"{self._seed}:{self._draw[0]}:{self._draw[1]}")

    @staticmethod
    def _chatter(rng: random.Random) -> str:
        return rng.choice(CHATTER)
