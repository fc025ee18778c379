"""Plugin discovery through pluggy and entry points; see `Registry`."""

from negotiation_platform.registry.hookspecs import hookimpl
from negotiation_platform.registry.kernel_factory import FORMULATIONS, FormulatedKernelFactory, KernelFactory
from negotiation_platform.registry.plugin_types import AgentFactory, SeatableAgent, TransportPlugin
from negotiation_platform.registry.registry import GameEntry, PluginProblem, PluginWarning, Registry

__all__ = [
    "FORMULATIONS",
    "AgentFactory",
    "FormulatedKernelFactory",
    "GameEntry",
    "KernelFactory",
    "PluginProblem",
    "PluginWarning",
    "Registry",
    "SeatableAgent",
    "TransportPlugin",
    "hookimpl",
]
