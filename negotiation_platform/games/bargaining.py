"""The typed shape of `BaseGame.bargaining_position`: what a game tells scripted negotiators.

The built-in `concession` and `batna` agents play any game that describes its offers this way; it
reaches them in the turn state as `bargaining` (plain JSON). Two forms: one numeric payload
`field` moved from `best` towards `reservation`, or a `menu` of whole offers with their utility.
"""

from __future__ import annotations

from typing import Required, TypedDict

from pydantic import JsonValue


class MenuItem(TypedDict):
    """One whole offer of a menu and what it is worth to the seat."""

    payload: dict[str, JsonValue]
    """The proposal action's payload, exactly as it would be submitted."""
    utility: float
    """Its worth to the seat, in the units of `batna`."""


class BargainingTerms(TypedDict, total=False):
    """The keys of a bargaining position other than its `action`: what a bilateral game adds for its
    own offers (see `BilateralNegotiation.bargaining_terms`)."""

    accept_action: str | None
    """The action that accepts the standing offer, or None."""
    field: str
    """Numeric form: the payload field the agent sets."""
    best: float
    """Numeric form: the value of `field` the seat would like most."""
    reservation: float
    """Numeric form: the value of `field` at which the seat is indifferent to no deal."""
    standing: float | None
    """Numeric form: the other side's standing offer in `field`'s terms, or None."""
    menu: list[MenuItem]
    """Menu form: the offers the seat may make, each with its utility."""
    batna: float
    """Menu form (and bilateral games): the seat's utility of no deal now."""
    standing_utility: float | None
    """Menu form: what the other side's standing offer is worth to the seat, or None."""
    standing_offer: dict[str, JsonValue] | None
    """Menu form: the other side's standing offer as a payload, or None."""
    my_last_offer: dict[str, JsonValue] | None
    """The seat's own last offer as a payload, or None."""


class BargainingPosition(BargainingTerms, total=False):
    """A seat's bargaining position: the proposal `action` and one of the two forms' keys."""

    action: Required[str]
    """The proposal action (`propose`, `offer`, `bid`, …)."""
