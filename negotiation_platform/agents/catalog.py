"""Agents by spec string: a registered name (`concession`) or a name with a target (`a2a:http://host:9001`).

The part after the first colon is handed to the agent factory as `target`, so a transport can
register an agent kind that plays for someone remote.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from negotiation_platform.agents.base import Agent
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.registry import Registry

if TYPE_CHECKING:
    from negotiation_platform.arena.allowlist import AllowList


def self_contained(registry: Registry) -> list[str]:
    """The agents that play by name alone (not kinds such as `llm` or `a2a` that need `kind:target`)."""
    return sorted(name for name, factory in registry.agents().items() if not getattr(factory, "needs_target", False))


def agent_description(factory: Callable[..., Any]) -> str:
    """What `agents` says of an agent kind: the first line of its factory's docstring ("" without one)."""
    lines = inspect.cleandoc(factory.__doc__ or "").splitlines()
    return lines[0] if lines else ""


def known_agent(registry: Registry, spec: str) -> bool:
    return isinstance(spec, str) and spec.partition(":")[0] in registry.agents()


def make_agent(
    registry: Registry,
    spec: str,
    seed: int,
    options: dict[str, Any] | None = None,
    allow: AllowList | None = None,
) -> Agent:
    """An agent for `spec`, seeded, given `options` (keyword options of its kind, checked by
    `check_agent_options`); unknown names raise NegotiationError(invalid_argument).

    A kind that contacts URLs (its factory says `checks_urls = True`) is handed `allow`, the URLs
    a served arena lets it contact (None: any, in-process); a served arena (`allow` given) refuses
    a kind that reads local files (`reads_local_files = True`, as a trained policy's directory)."""
    if not known_agent(registry, spec):
        raise NegotiationError(
            ErrorCode.INVALID_ARGUMENT, f"Unknown agent {spec!r}; agents: {sorted(registry.agents())}."
        )
    kind, _, target = spec.partition(":")
    factory = registry.agents()[kind]
    implied: dict[str, Any] = {"target": target} if target else {}
    if allow is not None and getattr(factory, "reads_local_files", False):
        raise NegotiationError(
            ErrorCode.FORBIDDEN,
            f"A served arena does not seat {kind!r} agents that a client names: they read the server's files.",
        )
    if allow is not None and getattr(factory, "checks_urls", False):
        implied["allow"] = allow
    agent: Agent = factory(seed=seed, name=kind, **implied, **(options or {}))
    return agent


IMPLIED = frozenset({"seed", "name", "target", "allow"})
"""What `make_agent` passes itself: not options a user sets."""


def option_names(factory: Any) -> list[str] | None:
    """The keyword options an agent factory takes: its `Options` model's fields where it declares one,
    else its keyword parameters (None: it takes any, through **kwargs)."""
    declared = getattr(factory, "Options", None)
    if isinstance(declared, type) and issubclass(declared, BaseModel):
        return sorted(declared.model_fields)
    parameters = inspect.signature(factory).parameters.values()
    if any(p.kind is p.VAR_KEYWORD for p in parameters):
        return None
    keywords = (inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return sorted(p.name for p in parameters if p.kind in keywords and p.name not in IMPLIED)


def check_agent_options(registry: Registry, kinds: Iterable[str], options: dict[str, Any]) -> None:
    """Refuse, before anything is played, option keys that an agent kind given them does not take."""
    for kind in sorted(set(kinds)):
        known = option_names(registry.agents()[kind])
        unknown = sorted(set(options) - set(known)) if known is not None else []
        if unknown:
            raise NegotiationError(
                ErrorCode.INVALID_ARGUMENT,
                f"Unknown option(s) {unknown} for {kind} agents; known options: {', '.join(known or []) or '(none)'}.",
            )
