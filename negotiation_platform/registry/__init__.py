"""Plugin discovery through pluggy and entry points; see `Registry`."""

from negotiation_platform.registry.hookspecs import hookimpl
from negotiation_platform.registry.registry import GameEntry, PluginProblem, PluginWarning, Registry

__all__ = ["GameEntry", "PluginProblem", "PluginWarning", "Registry", "hookimpl"]
