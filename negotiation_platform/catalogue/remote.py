"""`RemoteArena`: the `ArenaApi` of an arena reached over a protocol, made from the catalogue.

A transport's client implements only `call(operation, **arguments)`, which sends one operation
and returns its answer (raising the arena's `NegotiationError` on refusal). Every catalogue
operation is a method here taking its request's fields (in order, with their defaults), that
sends the arguments given, so drivers and agents use it like an `Arena`.
"""

from __future__ import annotations

import inspect
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from negotiation_platform.catalogue.entries import CATALOGUE, Operation

if TYPE_CHECKING:
    from negotiation_platform.arena import ArenaApi as _Typed
else:
    _Typed = ABC


class RemoteArena(_Typed):
    @abstractmethod
    async def call(self, operation: str, **arguments: Any) -> dict[str, Any]:
        """Run `operation` on the remote arena; None-valued arguments may be left out."""


def _method(operation: Operation) -> Callable[..., Awaitable[dict[str, Any]]]:
    """The method sending `operation`: its parameters are the request's fields."""
    fields = operation.request.model_fields
    signature = inspect.Signature(
        [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
        + [
            inspect.Parameter(
                name,
                inspect.Parameter.POSITIONAL_OR_KEYWORD,
                default=inspect.Parameter.empty if field.is_required() else field.default,
                annotation=field.annotation,
            )
            for name, field in fields.items()
        ]
    )

    async def send(self: RemoteArena, *args: object, **kwargs: object) -> dict[str, Any]:
        given = signature.bind(self, *args, **kwargs).arguments
        return await self.call(operation.name, **{k: v for k, v in given.items() if k != "self"})

    send.__name__ = send.__qualname__ = operation.name
    send.__doc__ = operation.description
    send.__signature__ = signature  # type: ignore[attr-defined]
    return send


for _operation in CATALOGUE.values():
    setattr(RemoteArena, _operation.name, _method(_operation))
