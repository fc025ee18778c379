"""The physical world of an AdaSociety match: the torus, piles, event cells, positions and inventories.

Plain Python lists indexed the same way as the JAX kernel's arrays (cell = x·W + y, resources in
config order, players in seat order), so one step here and one kernel step can be compared value
for value. The world knows nothing of seats, phases or the social graph.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from negotiation_adasociety.config import AdaSocietyConfig

DIRECTIONS: dict[str, tuple[int, int]] = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1)}
"""Row and column offsets of each move; `up` lowers the row index, as in the original."""


@dataclass(frozen=True)
class Draws:
    """Every random cell choice a match starts from (the kernel's `init_state` takes the same)."""

    pile_cells: tuple[int, ...]
    event_cells: tuple[int, ...]
    player_cells: tuple[int, ...]

    @classmethod
    def sample(cls, config: AdaSocietyConfig, rng: random.Random) -> Draws:
        """Distinct cells for the piles, for the events and for the players, drawn independently."""
        cells = range(config.map_size**2)
        return cls(
            pile_cells=tuple(rng.sample(cells, sum(p.count for p in config.piles))),
            event_cells=tuple(rng.sample(cells, sum(r.count for r in config.recipes))),
            player_cells=tuple(rng.sample(cells, config.num_players)),
        )

    @classmethod
    def checked(cls, config: AdaSocietyConfig, draws: Draws) -> Draws:
        """`draws` if each list has the config's length and holds distinct cells of the map."""
        cells = config.map_size**2
        expected = {
            "pile_cells": sum(p.count for p in config.piles),
            "event_cells": sum(r.count for r in config.recipes),
            "player_cells": config.num_players,
        }
        for name, length in expected.items():
            chosen = getattr(draws, name)
            if len(chosen) != length or len(set(chosen)) != length or not all(0 <= c < cells for c in chosen):
                raise ValueError(f"{name} must be {length} distinct cells in 0..{cells - 1}, got {chosen}")
        return draws


class Rules:
    """The config turned into lookup tables: caps, unit values, recipe vectors, requirements."""

    def __init__(self, config: AdaSocietyConfig) -> None:
        self.config = config
        self.size = config.map_size
        names = config.resource_names
        self.index = {name: r for r, name in enumerate(names)}
        self.num_resources = len(names)
        jobs = config.player_jobs()
        self.caps = [[job.caps.get(name, 0) for name in names] for job in jobs]
        defaults = [resource.value for resource in config.resources]
        self.values = [[job.values.get(name, defaults[r]) for r, name in enumerate(names)] for job in jobs]
        self.pick_requirements = [self._vector(resource.requirements) for resource in config.resources]
        self.recipe_inputs = [self._vector(recipe.inputs) for recipe in config.recipes]
        self.recipe_outputs = [self._vector(recipe.outputs) for recipe in config.recipes]
        self.recipe_requirements = [self._vector(recipe.requirements) for recipe in config.recipes]
        self.recipe_delta = [
            [made - used for made, used in zip(out, inp, strict=True)]
            for out, inp in zip(self.recipe_outputs, self.recipe_inputs, strict=True)
        ]
        """What producing each recipe adds to (+) or takes from (−) an inventory, per resource."""

    def _vector(self, amounts: dict[str, int]) -> list[int]:
        vector = [0] * self.num_resources
        for name, amount in amounts.items():
            vector[self.index[name]] = amount
        return vector

    def neighbour(self, cell: int, direction: str) -> int:
        dx, dy = DIRECTIONS[direction]
        x, y = divmod(cell, self.size)
        return ((x + dx) % self.size) * self.size + (y + dy) % self.size


def holds(inventory: list[int], needed: list[int]) -> bool:
    return all(have >= need for have, need in zip(inventory, needed, strict=True))


class World:
    """Mutable physical state; every method that changes it is one rule of the game."""

    def __init__(self, rules: Rules, draws: Draws) -> None:
        config = rules.config
        self.rules = rules
        cells = config.map_size**2
        self.piles = [[0] * rules.num_resources for _ in range(cells)]
        placed = iter(draws.pile_cells)
        for pile in config.piles:
            for _ in range(pile.count):
                self.piles[next(placed)][rules.index[pile.resource]] += pile.amount
        self.event_at = [-1] * cells
        placed = iter(draws.event_cells)
        for recipe_index, recipe in enumerate(config.recipes):
            for _ in range(recipe.count):
                self.event_at[next(placed)] = recipe_index
        self.position = list(draws.player_cells)
        self.inventory = [[0] * rules.num_resources for _ in draws.player_cells]

    # --- what a player may do -------------------------------------------------------------

    def pick_error(self, player: int, resource: int) -> str | None:
        rules, name = self.rules, self.rules.config.resource_names[resource]
        if self.piles[self.position[player]][resource] <= 0 or not self.sees_pile(player, resource):
            return f"pick: no {name} on your cell"
        if self.inventory[player][resource] >= rules.caps[player][resource]:
            held, cap = self.inventory[player][resource], rules.caps[player][resource]
            return f"pick: you already hold {held} {name}, your cap is {cap}"
        return None

    def dump_error(self, player: int, resource: int) -> str | None:
        if self.inventory[player][resource] <= 0:
            return f"dump: you hold no {self.rules.config.resource_names[resource]}"
        return None

    def produce_error(self, player: int) -> str | None:
        """Legal on a visible event cell whose outputs fit under the caps; inputs need not be held (then it
        does nothing), as in the original's action mask."""
        recipe = self.visible_event(player, self.position[player])
        if recipe < 0:
            return "produce: there is no event on your cell"
        rules, inventory = self.rules, self.inventory[player]
        for r, (have, cap) in enumerate(zip(inventory, rules.caps[player], strict=True)):
            if have - rules.recipe_inputs[recipe][r] + rules.recipe_outputs[recipe][r] > cap:
                name = rules.config.resource_names[r]
                return f"produce: its output would take your {name} above your cap of {cap}"
        return None

    def sees_pile(self, player: int, resource: int) -> bool:
        return holds(self.inventory[player], self.rules.pick_requirements[resource])

    def sees_recipe(self, player: int, recipe: int) -> bool:
        return holds(self.inventory[player], self.rules.recipe_requirements[recipe])

    def visible_event(self, player: int, cell: int) -> int:
        """The recipe index at `cell` if `player` holds what it takes to see it, else −1."""
        recipe = self.event_at[cell]
        return recipe if recipe >= 0 and self.sees_recipe(player, recipe) else -1

    # --- effects (called only for legal actions) ------------------------------------------

    def pick(self, player: int, resource: int) -> None:
        self.piles[self.position[player]][resource] -= 1
        self.inventory[player][resource] += 1

    def dump(self, player: int, resource: int) -> None:
        self.inventory[player][resource] -= 1
        self.piles[self.position[player]][resource] += 1

    def produce(self, player: int) -> None:
        recipe = self.event_at[self.position[player]]
        inventory, inputs = self.inventory[player], self.rules.recipe_inputs[recipe]
        if not holds(inventory, inputs):
            return
        for r, (used, made) in enumerate(zip(inputs, self.rules.recipe_outputs[recipe], strict=True)):
            inventory[r] += made - used

    def move(self, targets: dict[int, int], priority: list[int]) -> None:
        """Move every player in `targets` (player → target cell) that wins its cell.

        The winner of a contested cell is the mover with the highest `priority`; it enters if the
        cell is empty or its occupant leaves it. That is the greatest fixed point of "succeeds",
        so swaps and rotations succeed and a chain behind a blocked player stays put.
        """
        winner: dict[int, int] = {}
        for player, cell in targets.items():
            if cell not in winner or priority[player] > priority[winner[cell]]:
                winner[cell] = player
        occupant = {cell: player for player, cell in enumerate(self.position)}
        succeeds = {player: winner[cell] == player for player, cell in targets.items()}
        for _ in range(len(self.position)):
            succeeds = {
                player: ok and (targets[player] not in occupant or succeeds.get(occupant[targets[player]], False))
                for player, ok in succeeds.items()
            }
        for player, ok in succeeds.items():
            if ok:
                self.position[player] = targets[player]

    def value(self, player: int) -> int:
        """What the player's inventory is worth to it (each unit at its job's value)."""
        return sum(count * unit for count, unit in zip(self.inventory[player], self.rules.values[player], strict=True))
