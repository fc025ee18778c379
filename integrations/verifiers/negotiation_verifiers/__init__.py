"""negotiation_platform's games as verifiers v1 multi-agent environments (`import verifiers.v1 as vf`).

verifiers finds a taskset by its package: `vf.load_environment(NegotiationEnvConfig(...))` (or the taskset
id `negotiation_verifiers` on verifiers' CLI) resolves this package's `__all__`: its taskset, its
environment and its seats' default harness.
"""

from negotiation_verifiers.env import (
    PAYOFF,
    NegotiationData,
    NegotiationEnv,
    NegotiationEnvConfig,
    NegotiationTask,
    NegotiationTaskset,
    NegotiationTasksetConfig,
    load_environment,
)
from negotiation_verifiers.harness import SeatHarness, SeatHarnessConfig

__all__ = [
    "PAYOFF",
    "NegotiationData",
    "NegotiationEnv",
    "NegotiationEnvConfig",
    "NegotiationTask",
    "NegotiationTaskset",
    "NegotiationTasksetConfig",
    "SeatHarness",
    "SeatHarnessConfig",
    "load_environment",
]
