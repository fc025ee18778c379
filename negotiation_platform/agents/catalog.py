"""Agents by spec string: a registered name (`concession`) or a name with a target (`a2a:http://host:9001`).

The part after the first colon is handed to the agent factory as `target`, so a transport can
register an agent kind that plays for someone remote.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable, Collection, Iterable, Mapping
from typing import TYPE_CHECKING

from pydantic import BaseModel

from negotiation_platform.agents.base import Agent, is_agent
from negotiation_platform.agents.seating import SeatedBy, check_agent
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.registry import Registry

if TYPE_CHECKING:
    from negotiation_platform.wire.allowlist import AllowList

log = logging.getLogger(__name__)


def self_contained(registry: Registry) -> list[str]:
    """The agents that play by name alone (not kinds such as `llm` or `a2a` that need `kind:target`)."""
    return sorted(name for name, factory in registry.agents().items() if not getattr(factory, "needs_target", False))


def agent_description(factory: Callable[..., object]) -> str:
    """What `agents` says of an agent kind: the first line of its factory's docstring ("" without one)."""
    lines = inspect.cleandoc(factory.__doc__ or "").splitlines()
    return lines[0] if lines else ""


def known_agent(registry: Registry, spec: str) -> bool:
    return isinstance(spec, str) and spec.partition(":")[0] in registry.agents()


def make_agent(
    registry: Registry,
    spec: str,
    seed: int,
    options: Mapping[str, object] | None = None,
    allow: AllowList | None = None,
    *,
    by: SeatedBy,
    offered: Collection[str] = (),
) -> Agent:
    """An agent for `spec`, seeded, given `options` (keyword options of its kind, checked by
    `check_agent_options`), once `check_agent` let `by` seat it (see `seating`); refusals, and any
    failure of the kind's factory, raise NegotiationError.

    A kind that contacts URLs (its factory says `checks_urls = True`) is handed `allow`, the URLs
    a served arena lets it contact (None: any, in-process)."""
    factory = check_agent(registry, spec, by=by, allow=allow, offered=offered)
    kind, _, target = spec.partition(":")
    implied: dict[str, object] = {"target": target} if target else {}
    if allow is not None and getattr(factory, "checks_urls", False):
        implied["allow"] = allow
    try:
        agent = factory(seed=seed, name=kind, **implied, **(options or {}))
    except NegotiationError:
        raise
    except Exception as failure:  # a plugin's factory that fails in its own way: a structured refusal still
        log.warning("agent %r could not be made", spec, exc_info=True)
        raise NegotiationError(
            ErrorCode.INVALID_ARGUMENT, f"Agent {spec!r} could not be made ({type(failure).__name__})."
        ) from None
    if not is_agent(agent):
        raise NegotiationError(
            ErrorCode.INVALID_ARGUMENT, f"Agent {spec!r} could not be made (its factory made no agent)."
        )
    return agent


IMPLIED = frozenset({"seed", "name", "target", "allow"})
"""What `make_agent` passes itself: not options a user sets."""


def option_names(factory: Callable[..., object]) -> list[str] | None:
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


def check_agent_options(registry: Registry, kinds: Iterable[str], options: Mapping[str, object]) -> None:
    """Refuse, before anything is played, option keys that an agent kind given them does not take."""
    for kind in sorted(set(kinds)):
        known = option_names(registry.agents()[kind])
        unknown = sorted(set(options) - set(known)) if known is not None else []
        if unknown:
            raise NegotiationError(
                ErrorCode.INVALID_ARGUMENT,
                f"Unknown option(s) {unknown} for {kind} agents; known options: {', '.join(known or []) or '(none)'}.",
            )
