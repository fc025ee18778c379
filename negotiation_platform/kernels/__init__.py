"""JAX kernels: batched utilities, exact outcome analysis and functional environments (needs the `jax` extra).

Importing `negotiation_platform` never imports this package; importing this package imports JAX.
Environments follow gymnax: pure `reset(key, params)` and `step(key, state, actions, params)`
functions over arrays (`step` starts a fresh match where one ended, `step_env` does not), usable
under `jit`, `vmap` and `lax.scan`. Free-text messages are not
modelled in kernels: a kernel plays the game's moves only (a coin game's talk phase is skipped).
"""

from __future__ import annotations

try:
    import jax  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError("negotiation_platform.kernels needs JAX: pip install 'negotiation-platform[jax]'") from exc

from negotiation_platform.kernels.base import BaseKernel, Moved
from negotiation_platform.kernels.discovery import kernel_for, kernel_games, make
from negotiation_platform.kernels.env import Env, Step
from negotiation_platform.kernels.rollout import Policy, rollout

__all__ = ["BaseKernel", "Env", "Moved", "Policy", "Step", "kernel_for", "kernel_games", "make", "rollout"]
