"""Turning a utility or value target into a concrete offer, shared by the scripted negotiators.

A game's `bargaining` position describes offers either by one numeric payload `field` (with
`best`, `reservation` and `standing` values of that field) or by a `menu` of offers with the
agent's own utility for each.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping

from pydantic import JsonValue

from negotiation_platform.agents.base import Decision
from negotiation_platform.agents.turns import AllowedAction
from negotiation_platform.games.bargaining import BargainingPosition, MenuItem


def bargain_toward(
    position: BargainingPosition, allowed: dict[str, AllowedAction], target_of: Callable[[float, float], float]
) -> Decision | None:
    """Accept the standing offer when it is worth the target, else offer the target (None: neither is open).

    `target_of(best, reservation)` gives the target in the position's terms: the field's value, or a
    utility for a menu (whose reservation is the BATNA). The scripted negotiators differ only in it.
    """
    if "menu" in position:
        target = target_of(max(item["utility"] for item in position["menu"]), position["batna"])
        standing, better_is_higher = position.get("standing_utility"), True
    else:
        target = target_of(position["best"], position["reservation"])
        standing, better_is_higher = position.get("standing"), position["best"] >= position["reservation"]
    accept = position.get("accept_action")
    if accept in allowed and standing is not None and (standing >= target if better_is_higher else standing <= target):
        return Decision(action=accept)
    if position["action"] not in allowed:
        return None
    if "menu" in position:
        payload = menu_offer(position["menu"], target, position.get("standing_offer"))
        return None if payload is None else Decision(action=position["action"], payload=payload)
    return Decision(
        action=position["action"], payload=field_offer(allowed[position["action"]], position["field"], target)
    )


def field_offer(action: Mapping[str, object], field: str, value: float) -> dict[str, JsonValue]:
    """A payload setting `field` to `value`, clamped to the schema's bounds and rounded for integers."""
    prop = schema_object(schema_object(schema_object(action.get("payload_schema")).get("properties")).get(field))
    if "minimum" in prop:
        value = max(value, schema_number(prop, "minimum"))
    if "maximum" in prop:
        value = min(value, schema_number(prop, "maximum"))
    return {field: round(value) if prop.get("type") == "integer" else on_grid(value, prop)}


def on_grid(value: float, prop: Mapping[str, object]) -> float:
    """`value` rounded to the schema's `multipleOf` (a price in whole cents), inside its bounds."""
    step = float(schema_number(prop, "multipleOf"))
    if not step:
        return value
    decimals = max(0, -math.floor(math.log10(step))) + 2
    snapped = round(round(value / step) * step, decimals)
    if "minimum" in prop and snapped < schema_number(prop, "minimum"):
        snapped = round(snapped + step, decimals)
    if "maximum" in prop and snapped > schema_number(prop, "maximum"):
        snapped = round(snapped - step, decimals)
    return snapped


def schema_object(value: object) -> Mapping[str, JsonValue]:
    """`value` where a JSON Schema holds an object (its properties, one field's keywords); else empty."""
    return value if isinstance(value, dict) else {}


def schema_number(prop: Mapping[str, object], key: str, default: float = 0.0) -> float:
    """A numeric keyword of a field's schema (`minimum`, `multipleOf`, …); `default` where it has none."""
    value = prop.get(key)
    return value if isinstance(value, int | float) else default


def menu_offer(
    menu: list[MenuItem], floor: float, similar_to: Mapping[str, object] | None
) -> dict[str, JsonValue] | None:
    """The offer worth at least `floor` to me that is most like the other side's standing offer.

    Matching the other side's choices where it costs nothing is what finds integrative trades;
    ties go to the offer closest to `floor` (the most generous one), then to menu order.
    """
    acceptable = [item for item in menu if item["utility"] >= floor]
    if not acceptable:
        return None
    target = _flatten(similar_to or {})

    def score(item: MenuItem) -> tuple[int, float]:
        mine = _flatten(item["payload"])
        shared = sum(1 for key, value in target.items() if mine.get(key) == value)
        return (-shared, item["utility"] - floor)

    return dict(min(acceptable, key=score)["payload"])


def menu_utility(menu: list[MenuItem], payload: Mapping[str, object] | None) -> float | None:
    """My utility of a payload found in the menu (None if it is not there)."""
    if payload is None:
        return None
    flat = _flatten(payload)
    return next((item["utility"] for item in menu if _flatten(item["payload"]) == flat), None)


def _flatten(value: object, prefix: str = "") -> dict[str, object]:
    if not isinstance(value, dict):
        return {prefix: value}
    flat: dict[str, object] = {}
    for key, inner in value.items():
        flat.update(_flatten(inner, f"{prefix}.{key}" if prefix else str(key)))
    return flat
