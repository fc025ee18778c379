"""One seat's observation at an engine table as the flat vector a policy was trained on.

A kernel's `table_observation(turn)` rebuilds the seat's row of its `observe`; training flattens the
kernel's observation with `marl.flat_features`, field by field in the order `observe` builds them.
Flattening here, outside any jit, keeps that order: a dict passed into a jit arrives with its keys
sorted, which would permute the features of a kernel with several fields.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from negotiation_platform.kernels.marl import MASK_FIELDS


def table_features(observation: Mapping[str, np.ndarray]) -> np.ndarray:
    """f32[D]: the seat's observation vector, as `MarlEnv.get_obs` gives it for the same state: the
    fields of `marl.flat_features`, flattened with NumPy (one seat's few fields, where each JAX
    dispatch would cost more than the work)."""
    parts = [
        np.asarray(value).astype(np.float32).reshape(-1)
        for name, value in observation.items()
        if name not in MASK_FIELDS
    ]
    return np.concatenate(parts)
