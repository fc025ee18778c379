"""The typed OpenEnv client of a served game: OpenEnv's `EnvClient` with the game's action and observation models.

    async with NegotiationEnvClient("http://127.0.0.1:8000", "split_100") as env:
        result = await env.reset(seed=7)
        result = await env.step(env.action(action="propose", payload={"mine": 60}))

(`.sync()` gives the blocking form.) The models are made from the game's spec in this process's registry,
so the game must be installed here too; `GenericEnvClient` plays any served game with plain dicts.
"""

from __future__ import annotations

from typing import Any

from openenv.core.client_types import StepResult
from openenv.core.env_client import EnvClient

from negotiation_openenv.models import (
    NegotiationAction,
    NegotiationObservation,
    NegotiationState,
    action_model,
    observation_model,
)
from negotiation_platform.registry import Registry
from negotiation_platform.registry.registry import installed_registry


class NegotiationEnvClient(EnvClient[NegotiationAction, NegotiationObservation, NegotiationState]):
    """A session of `game` on the OpenEnv server at `base_url` (the server's root; the game's path is added)."""

    def __init__(self, base_url: str, game: str, registry: Registry | None = None, **options: Any) -> None:
        spec = (registry or installed_registry()).game(game).spec
        super().__init__(base_url=f"{base_url.rstrip('/')}/{game}", **options)
        self.game = game
        self.action_type = action_model(game, spec)
        self.observation_type = observation_model(game, spec)

    def action(self, **fields: Any) -> NegotiationAction:
        """A move of this game, validated here as the server will validate it."""
        return self.action_type.model_validate(fields)

    def _step_payload(self, action: NegotiationAction) -> dict[str, Any]:
        return action.model_dump(mode="json", exclude_none=True, exclude={"metadata"})

    def _parse_result(self, payload: dict[str, Any]) -> StepResult[NegotiationObservation]:
        fields = {**payload.get("observation", {}), "reward": payload.get("reward"), "done": payload.get("done", False)}
        observation = self.observation_type.model_validate(fields)
        return StepResult(
            observation=observation, reward=observation.reward, done=observation.done, metadata=payload.get("metadata")
        )

    def _parse_state(self, payload: dict[str, Any]) -> NegotiationState:
        return NegotiationState.model_validate(payload)
