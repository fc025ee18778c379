"""Every game of a registry as a TextArena environment, `Negotiation-<game>-v0`.

    from negotiation_platform.llm_rl.textarena_env import register_textarena_envs
    register_textarena_envs()          # then: env = textarena.make("Negotiation-split_100-v0")

TextArena is imported here only when registering, so the package imports without it.
"""

from __future__ import annotations

import random

from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.registry import Registry

__all__ = ["register_textarena_envs", "textarena_env_id"]


def textarena_env_id(game_id: str) -> str:
    """The TextArena id a game is registered under."""
    return f"Negotiation-{game_id}-v0"


def register_textarena_envs(registry: Registry | None = None) -> list[str]:
    """Register every game of `registry` (None: a default one, plugins included); return the ids.

    Registering again replaces this function's earlier entries (so a registry with more plugins
    takes effect); an id some other package registered is refused. Importing TextArena moves the
    global `random`; its state is put back.
    """
    saved = random.getstate()
    try:
        import textarena as ta
        from textarena.envs.registration import ENV_REGISTRY

        from negotiation_platform.llm_rl.textarena_game import NegotiationTextArenaEnv
    finally:
        random.setstate(saved)
    games = registry if registry is not None else Registry()
    ids = [textarena_env_id(game_id) for game_id in sorted(games.games())]
    for env_id in ids:
        spec = ENV_REGISTRY.get(env_id)
        if spec is not None and spec.entry_point is not NegotiationTextArenaEnv:
            raise NegotiationError(ErrorCode.INVALID_ARGUMENT, f"{env_id} is already registered by another package")
    for game_id, env_id in zip(sorted(games.games()), ids, strict=True):
        ENV_REGISTRY.pop(env_id, None)
        ta.register(id=env_id, entry_point=NegotiationTextArenaEnv, game=game_id, registry=games)
    return ids
