"""Outcome spaces of the built-in games, enumerated exactly (or on an integer grid), with utilities.

Each function reads the numbers from the game's own Config, so the analysis follows the rules
of record; feed the utilities to `analysis.summarize` for the frontier, Nash point and max welfare.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

import jax
import jax.numpy as jnp
import numpy as np

from negotiation_platform.kernels.utilities import integrative_utilities, resource_allocation_utilities

if TYPE_CHECKING:
    from negotiation_platform.games.integrative_negotiation import IntegrativeConfig
    from negotiation_platform.games.resource_allocation import ResourceAllocationConfig
    from negotiation_platform.games.split_100 import Split100Config


def split_100_outcomes(config: Split100Config) -> tuple[np.ndarray, jax.Array]:
    """Every agreed split (seat 0 keeps x) and its undiscounted utilities."""
    shares = np.arange(config.total + 1)
    utilities = jnp.stack([shares, config.total - shares], axis=-1).astype(jnp.float32)
    return shares, utilities


def integrative_outcomes(config: IntegrativeConfig) -> tuple[np.ndarray, jax.Array]:
    """Every combination of options (as option indices) and its (IT, Marketing) utilities."""
    issues = list(config.issues.values())
    choices = np.array(list(itertools.product(*(range(len(issue.options)) for issue in issues))), dtype=np.int32)
    roles = ("IT", "Marketing")
    weights = jnp.array([[config.weights[role][name] for name in config.issues] for role in roles], jnp.float32)
    width = max(len(issue.options) for issue in issues)
    points = jnp.array(
        [[list(issue.points[role]) + [0.0] * (width - len(issue.options)) for issue in issues] for role in roles],
        jnp.float32,
    )
    return choices, integrative_utilities(jnp.asarray(choices), weights, points)


def resource_allocation_outcomes(config: ResourceAllocationConfig) -> tuple[np.ndarray, jax.Array]:
    """Every integer plan (gpu_hours, cpu_hours) that meets the constraints, and its utilities by role."""
    grid = np.array(
        [(x, y) for x in range(int(config.total_resources) + 1) for y in range(int(config.total_resources) + 1)],
        dtype=np.float32,
    )
    x, y = grid[:, 0], grid[:, 1]
    feasible = (
        (x + y <= config.total_resources)
        & (config.bandwidth_per_hour * (x + y) <= config.bandwidth)
        & (x >= config.min_gpu_hours)
        & (y >= config.min_cpu_hours)
    )
    plans = grid[feasible]
    coefficients = jnp.array(
        [config.utility_coefficients["development"], config.utility_coefficients["marketing"]], jnp.float32
    )
    return plans, resource_allocation_utilities(jnp.asarray(plans[:, 0]), jnp.asarray(plans[:, 1]), coefficients)
