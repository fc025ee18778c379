"""`gatherer`: a scripted AdaSociety player that forms groups and hands hammers over.

Negotiation: every gatherer computes the same pairing of the players who are free to match
(carpenters with miners first, then anyone not in the same group) from the public social state,
so partners invite each other in the same step; in a bargain it claims the level nearest one
half and accepts any claim of at most one half. Physical: carpenters gather one wood and one stone,
craft a hammer on an event cell and carry it next to a miner of their group, where they drop it;
miners walk onto dropped hammers and pick them up. Outside AdaSociety it plays like `random`.
"""

from __future__ import annotations

from typing import Any

from negotiation_platform.agents.base import Decision
from negotiation_platform.agents.random_agent import RandomAgent

HAMMER, WOOD, STONE = "hammer", "wood", "stone"
STEPS = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1)}


class GathererAgent:
    """AdaSociety groups by a shared pairing and even shares, then hammers crafted and handed to miners.

    Plays like `random` outside AdaSociety (the module's docstring has the whole script)."""

    reads_prompt = False
    reads_turn_in_place = True

    def __init__(self, seed: int = 0, name: str = "gatherer") -> None:
        self.name = name
        self._fallback = RandomAgent(seed=seed, name=name)

    def observe(self, turn: dict[str, Any]) -> None:
        """Show every turn to the fallback, whose random draws count the seat's moves."""
        self._fallback.observe(turn)

    def decide(self, turn: dict[str, Any]) -> Decision:
        self.observe(turn)
        view = turn.get("view") or {}
        allowed = {a["name"]: a for a in turn.get("allowed_actions", [])}
        if "you" not in view or "observation" not in view or not allowed:
            return self._fallback.decide(turn)
        choice = self._negotiate(view, allowed) if view["phase"] == "negotiation" else self._work(view, allowed)
        if choice is None or not _permitted(allowed, *choice):
            choice = ("stay", {}) if "stay" in allowed else None
        return self._fallback.decide(turn) if choice is None else Decision(action=choice[0], payload=choice[1])

    # --- negotiation ------------------------------------------------------------------------

    def _negotiate(self, view: dict[str, Any], allowed: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
        bargain = view["bargaining"]
        if bargain is not None:
            if not bargain["your_turn"]:
                return "stay", {}
            claim = bargain["partner_claim"]
            if claim is not None and claim <= 0.5 + 1e-9 and "accept" in allowed:
                return "accept", {}
            return "propose", {"share": _nearest(allowed, "propose", "share", 0.5)}
        me = view["you"]["agent_id"]
        partner = _pairing(view).get(me)
        if partner in view["invitable"]:
            return "request_match", {"player": partner}
        return ("request_match", {"player": view["invitable"][0]}) if view["invitable"] else None

    # --- physical ---------------------------------------------------------------------------

    def _work(self, view: dict[str, Any], allowed: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
        you = view["you"]
        if you["caps"].get(HAMMER, 0) and not you["caps"].get(WOOD, 0):
            return self._fetch_hammer(view, allowed)
        inventory = you["inventory"]
        if inventory.get(HAMMER, 0):
            return self._deliver(view, allowed)
        if inventory.get(WOOD, 0) and inventory.get(STONE, 0):
            if "produce" in allowed:
                return "produce", {}
            return self._towards(view, [tuple(e["position"]) for e in view["visible_events"]])
        needed = WOOD if not inventory.get(WOOD, 0) else STONE
        if _permitted(allowed, "pick", {"resource": needed}):
            return "pick", {"resource": needed}
        return self._towards(view, [tuple(p["position"]) for p in view["visible_piles"] if p["resource"] == needed])

    def _fetch_hammer(self, view: dict[str, Any], allowed: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
        if _permitted(allowed, "pick", {"resource": HAMMER}):
            return "pick", {"resource": HAMMER}
        return self._towards(view, [tuple(p["position"]) for p in view["visible_piles"] if p["resource"] == HAMMER])

    def _deliver(self, view: dict[str, Any], allowed: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
        """Walk next to a miner of the own group (any miner if ungrouped) and drop the hammer there."""
        mates = _group_mates(view)
        jobs = {p["agent_id"]: p["job"] for p in view["players"]}
        miners = [tuple(p["position"]) for p in view["visible_players"] if jobs[p["agent_id"]] != view["you"]["job"]]
        preferred = [
            tuple(p["position"])
            for p in view["visible_players"]
            if p["agent_id"] in mates and jobs[p["agent_id"]] != view["you"]["job"]
        ]
        targets = preferred or miners
        size, here = view["map_size"], tuple(view["you"]["position"])
        if any(_distance(size, here, t) <= 1 for t in targets) and "dump" in allowed:
            return "dump", {"resource": HAMMER}
        beside = [((x + dx) % size, (y + dy) % size) for x, y in targets for dx, dy in STEPS.values()]
        return self._towards(view, beside)

    def _towards(self, view: dict[str, Any], targets: list[tuple[int, int]]) -> tuple[str, dict[str, Any]] | None:
        """The first step of a shortest wrapped path to the nearest target, around the players in view."""
        size, here = view["map_size"], tuple(view["you"]["position"])
        blocked = {tuple(p["position"]) for p in view["visible_players"]}
        goals = set(targets) - blocked
        first_step: dict[tuple[int, ...], str | None] = {here: None}
        frontier = [here]
        while frontier and not goals & set(first_step):
            following = []
            for cell in frontier:
                for direction, (dx, dy) in STEPS.items():
                    nxt = ((cell[0] + dx) % size, (cell[1] + dy) % size)
                    if nxt not in first_step and nxt not in blocked:
                        first_step[nxt] = first_step[cell] or direction
                        following.append(nxt)
            frontier = following
        reached = sorted(goals & set(first_step))
        first = first_step[reached[0]] if reached else None
        return None if first is None else ("move", {"direction": first})


def _pairing(view: dict[str, Any]) -> dict[str, str]:
    """The same greedy pairing for every gatherer: free players in index order, each taking the first later
    free player of another job, else the first later free player outside its group."""
    busy = {agent for b in view["bargains"] for agent in b["players"]}
    group = {agent: g["group"] for g in view["groups"] for agent in g["shares"]}
    players = [p for p in view["players"] if p["agent_id"] not in busy]
    pairs: dict[str, str] = {}

    def fits(a: dict[str, Any], b: dict[str, Any]) -> bool:
        ga = group.get(a["agent_id"])
        return b["agent_id"] not in pairs and (ga is None or ga != group.get(b["agent_id"]))

    for i, first in enumerate(players):
        if first["agent_id"] in pairs:
            continue
        later = [p for p in players[i + 1 :] if fits(first, p)]
        other = next((p for p in later if p["job"] != first["job"]), later[0] if later else None)
        if other is not None:
            pairs[first["agent_id"]], pairs[other["agent_id"]] = other["agent_id"], first["agent_id"]
    return pairs


def _group_mates(view: dict[str, Any]) -> set[str]:
    me = view["you"]["agent_id"]
    return next((set(g["shares"]) - {me} for g in view["groups"] if me in g["shares"]), set())


def _distance(size: int, a: tuple[int, ...], b: tuple[int, ...]) -> int:
    return sum(min((p - q) % size, (q - p) % size) for p, q in zip(a, b, strict=True))


def _permitted(allowed: dict[str, Any], action: str, payload: dict[str, Any]) -> bool:
    """Whether the action is allowed now with this payload, as far as the narrowed schemas say."""
    if action not in allowed:
        return False
    properties = allowed[action]["payload_schema"].get("properties", {})
    return all(value in properties.get(key, {}).get("enum", [value]) for key, value in payload.items())


def _nearest(allowed: dict[str, Any], action: str, field: str, target: float) -> float:
    options = allowed[action]["payload_schema"]["properties"][field]["enum"]
    return float(min(options, key=lambda v: (abs(v - target), v)))
