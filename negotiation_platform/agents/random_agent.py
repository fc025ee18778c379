"""`random`: picks uniformly among the legal actions, with a random valid payload."""

from __future__ import annotations

import random
from typing import Any

from negotiation_platform.agents.base import Decision, OutgoingMessage
from negotiation_platform.agents.payloads import sample_payload


class RandomAgent:
    """Uniformly random legal actions, reading only the turn state's actions and their payload schemas."""

    reads_prompt = False

    def __init__(self, seed: int = 0, name: str = "random") -> None:
        self.name = name
        self._rng = random.Random(seed)

    def decide(self, turn: dict[str, Any]) -> Decision:
        actions = turn.get("allowed_actions", [])
        messaging = turn.get("messaging", {})
        if not actions:
            if messaging.get("public"):
                return Decision(messages=[OutgoingMessage(self._chatter())])
            return Decision()
        choice = self._rng.choice(actions)
        return Decision(action=choice["name"], payload=sample_payload(choice["payload_schema"], self._rng))

    def _chatter(self) -> str:
        return self._rng.choice(["Let's find a fair deal.", "I am listening.", "What do you propose?"])
