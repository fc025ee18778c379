"""Who may seat which agent, and under which name: the checks every opponent passes before a match exists.

An agent kind declares on its factory what it needs and what it spends:

* `needs_target`: it is named `kind:TARGET` (`llm:MODEL`, `a2a:URL`); a kind without it takes no target.
* `spends_operator_budget`: it calls the operator's model endpoint with the operator's key (`llm`, `mcp-llm`).
* `reads_local_files`: it reads the server's files at a path its target names (`policy:DIR`).
* `checks_urls`: it contacts the URL its target names, so a served arena's allow-list applies (`a2a`).

Who seats an agent is said explicitly (`SeatedBy`): the operator (the command line, a config, a
study's file) may seat any kind; a client of a served arena may not seat a kind that spends the
operator's budget or reads its files, unless the operator offered that exact spec (`serve ...
--offer-opponent`). The remote-agent allow-list is consulted only for kinds that contact URLs: it
admits `a2a:` seats and nothing else.

A client's seat name may not be an agent kind's or a person's (`human`, a study's `participant`):
other seats would take it for a house agent or a person.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from enum import StrEnum
from typing import TYPE_CHECKING

from negotiation_platform.arena.arguments import seat_id_base
from negotiation_platform.arena.seat_links import HUMAN_NAME, PARTICIPANT_NAME
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.registry import AgentFactory, Registry

if TYPE_CHECKING:
    from negotiation_platform.wire.allowlist import AllowList

PEOPLE = frozenset({HUMAN_NAME, PARTICIPANT_NAME})
"""Seat names that say a person plays: the seats kept for people and a study's participant."""
_NUMBERED = re.compile(r"_\d+$")


class SeatedBy(StrEnum):
    """Who seats an agent: the operator (trusted) or a client of a served arena (a stranger)."""

    OPERATOR = "operator"
    CLIENT = "client"


def operator_only(factory: Callable[..., object]) -> str | None:
    """Why only the operator may seat agents of this kind (None: a client may too)."""
    if getattr(factory, "spends_operator_budget", False):
        return "they call the server's model endpoint with its operator's key"
    if getattr(factory, "reads_local_files", False):
        return "they read the server's files"
    return None


def client_kinds(registry: Registry) -> list[str]:
    """The agent kinds a client may name as opponents (those the operator offers aside)."""
    return sorted(name for name, factory in registry.agents().items() if operator_only(factory) is None)


def check_agent(
    registry: Registry,
    spec: str,
    *,
    by: SeatedBy,
    allow: AllowList | None = None,
    offered: Collection[str] = (),
) -> AgentFactory:
    """The factory of `spec` once every check passed, without making anything: a known kind, a target
    exactly when the kind takes one, a kind `by` may seat (or a spec in `offered`), and for a kind that
    contacts URLs a target `allow` allows (None: any). Refusals are NegotiationError
    (invalid_argument for a malformed spec, forbidden for one this seater may not have)."""
    if not isinstance(spec, str):
        raise NegotiationError(ErrorCode.INVALID_ARGUMENT, "An agent is named by a string, e.g. concession.")
    kind, colon, target = spec.partition(":")
    factory = registry.agents().get(kind)
    if factory is None:
        raise NegotiationError(
            ErrorCode.INVALID_ARGUMENT, f"Unknown agent {spec!r}; agents: {sorted(registry.agents())}."
        )
    needs_target = getattr(factory, "needs_target", False)
    if colon and not needs_target:
        raise NegotiationError(ErrorCode.INVALID_ARGUMENT, f"{kind!r} agents take no target: name them {kind!r}.")
    if needs_target and not target:
        raise NegotiationError(ErrorCode.INVALID_ARGUMENT, f"{kind!r} agents need a target: {kind}:TARGET.")
    reason = operator_only(factory)
    if by is SeatedBy.CLIENT and reason is not None and spec not in offered:
        raise NegotiationError(
            ErrorCode.FORBIDDEN,
            f"Only this server's operator seats {kind!r} agents: {reason}.",
            refused={spec: f"{kind!r} agents are seated by the operator only"},
        )
    why = allow.refusal(target) if allow is not None and getattr(factory, "checks_urls", False) else None
    if why is not None:
        raise NegotiationError(
            ErrorCode.FORBIDDEN,
            f"This server does not seat this remote agent: {why}. "
            "Its operator can allow URL prefixes with `serve ... --allow-remote-agent PREFIX`.",
            refused={spec: why},
        )
    return factory


def kept_name(registry: Registry, name: str) -> bool:
    """Whether a seat name's agent id would read as an agent kind's or a person's seat (compared as the
    arena spells ids, ignoring case and the `_N` that numbers repeated names): no client may take it."""
    base = _NUMBERED.sub("", seat_id_base(name)).casefold()
    return base in {kind.casefold() for kind in registry.agents()} | PEOPLE


def check_seat_name(registry: Registry, name: str | None) -> None:
    """Refuse a client's seat name that `kept_name` keeps for the server's agents and people."""
    if name is not None and kept_name(registry, name):
        raise NegotiationError(
            ErrorCode.INVALID_ARGUMENT,
            f"The seat name {name!r} is kept for the server's agents and people; pick another.",
        )
