"""One seat's observation at an engine table as the flat vector a policy was trained on.

A kernel's `table_observation(turn)` rebuilds the seat's row of its `observe`; training flattens the
kernel's observation with `marl.flat_features`, field by field in the order `observe` builds them.
Flattening here, outside any jit, keeps that order: a dict passed into a jit arrives with its keys
sorted, which would permute the features of a kernel with several fields.
"""

from __future__ import annotations

from collections.abc import Mapping

import jax.numpy as jnp
import numpy as np

from negotiation_platform.kernels.marl import flat_features


def table_features(observation: Mapping[str, np.ndarray]) -> np.ndarray:
    """f32[D]: the seat's observation vector, as `MarlEnv.get_obs` gives it for the same state."""
    rows = {name: jnp.asarray(value)[None] for name, value in observation.items()}
    features: np.ndarray = np.asarray(flat_features(rows))[0]
    return features
