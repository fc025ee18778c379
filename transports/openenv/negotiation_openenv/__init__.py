"""OpenEnv transport: every game as an OpenEnv environment (`negotiation-platform serve openenv`), with typed
actions and observations made from the game's spec, and the typed client (`NegotiationEnvClient`).

Imports nothing of OpenEnv itself: `models`, `environment`, `app` and `client` do.
"""
