"""Every number of the AdaSociety negotiation game, as a validated config with the original's defaults.

The defaults are the original environment's `negotiation` task: a 7×7 torus, 2 carpenters and 2
miners, 4 wood and 4 stone piles of 5 units, 41 hammer-crafting cells, 120 steps of which the
first 21 are the negotiation phase. `HARD` holds the `negotiation_hard` task's values. A config
is checked for feasibility when it is built (everything must fit on the map), so no draw can fail.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, create_model, model_validator
from pydantic.fields import FieldInfo

from negotiation_platform.games.base_game import GameConfig

MAX_MAP_SIZE = 64
MAX_PLAYERS = 16
MAX_LENGTH = 10_000
MAX_AMOUNT = 1_000_000
"""Most units of an item in any amount, cap, value or requirement of the config."""
MAX_CELLS = MAX_MAP_SIZE**2
Amounts = dict[str, Annotated[int, Field(ge=0, le=MAX_AMOUNT)]]
"""Units by resource name (checked again against the resources when the config is built)."""


class _Part(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ResourceSpec(_Part):
    """A kind of item. Its place in `resources` is its index in every array and action encoding."""

    name: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    value: int = Field(ge=0, le=MAX_AMOUNT, description="Unit value of an item held by a job that does not value it.")
    requirements: Amounts = Field(
        default_factory=dict, description="Items a player must hold to see or pick a pile of this resource."
    )


class RecipeSpec(_Part):
    """What an event cell turns inputs into, when a player produces on it."""

    name: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    inputs: Amounts
    outputs: Amounts
    requirements: Amounts = Field(
        default_factory=dict, description="Items a player must hold to see (and use) this event cell."
    )
    count: int = Field(ge=0, le=MAX_CELLS, description="How many cells of the map hold this event.")


class PileSpec(_Part):
    """Piles of one resource placed at random on distinct cells when a match starts."""

    resource: str
    count: int = Field(ge=0, le=MAX_CELLS)
    amount: int = Field(ge=1, le=MAX_AMOUNT, description="Units in each pile.")


class JobSpec(_Part):
    """What a kind of player can hold and how much it values each item."""

    name: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    fov: int = Field(ge=0, le=MAX_MAP_SIZE, description="View radius: the player sees a (2·fov+1)² window.")
    caps: Amounts = Field(description="Most items of each resource it may hold (missing: 0).")
    values: Amounts = Field(description="Its own unit value of each resource (missing: the resource's value).")
    count: int = Field(ge=0, le=MAX_PLAYERS, description="How many players have this job (ids are given in job order).")


WOOD, STONE, HAMMER, COAL, TORCH, IRON = "wood", "stone", "hammer", "coal", "torch", "iron"


class AdaSocietyConfig(GameConfig):
    """The AdaSociety negotiation task; the defaults are the original's `negotiation` config."""

    map_size: int = Field(default=7, ge=2, le=MAX_MAP_SIZE, description="Side of the square torus map.")
    resources: tuple[ResourceSpec, ...] = (
        ResourceSpec(name=WOOD, value=1),
        ResourceSpec(name=STONE, value=1),
        ResourceSpec(name=HAMMER, value=5),
    )
    recipes: tuple[RecipeSpec, ...] = (
        RecipeSpec(name="hammer_craft", inputs={WOOD: 1, STONE: 1}, outputs={HAMMER: 1}, count=41),
    )
    piles: tuple[PileSpec, ...] = (
        PileSpec(resource=WOOD, count=4, amount=5),
        PileSpec(resource=STONE, count=4, amount=5),
    )
    jobs: tuple[JobSpec, ...] = (
        JobSpec(
            name="carpenter",
            fov=3,
            caps={WOOD: 100, STONE: 100, HAMMER: 1},
            values={WOOD: 1, STONE: 1, HAMMER: 5},
            count=2,
        ),
        JobSpec(name="miner", fov=3, caps={HAMMER: 100}, values={HAMMER: 10}, count=2),
    )
    max_length: int = Field(default=120, ge=1, le=MAX_LENGTH, description="Steps in a match (both phases).")
    negotiation_steps: int = Field(
        default=21,
        ge=0,
        le=MAX_LENGTH,
        description="Steps of the negotiation phase, t = 0..negotiation_steps-1. The original's config says 20, "
        "and its action mask allows bargaining while t <= 20: 21 steps, the rule the published baselines ran under.",
    )
    proposal_levels: int = Field(
        default=9, ge=1, le=99, description="C: a proposal claims k/(C+1) of the reward for the proposer, k = 1..C."
    )
    zero_proposal_observation: bool = Field(
        default=False,
        description="Compatibility with the original's RL observation, whose `proposal` field is always zero.",
    )
    seconds_per_step: float | None = Field(default=None, gt=0, le=86_400, description="Clock of each step, if any.")

    @property
    def num_players(self) -> int:
        return sum(job.count for job in self.jobs)

    @property
    def resource_names(self) -> tuple[str, ...]:
        return tuple(r.name for r in self.resources)

    @property
    def physical_steps(self) -> int:
        return self.max_length - self.negotiation_steps

    def player_jobs(self) -> list[JobSpec]:
        """The job of each player id, in id order (jobs in the order listed)."""
        return [job for job in self.jobs for _ in range(job.count)]

    @model_validator(mode="after")
    def _feasible(self) -> AdaSocietyConfig:
        names = self.resource_names
        if len(set(names)) != len(names) or not names:
            raise ValueError(f"resources must be non-empty with distinct names, got {list(names)}")
        known = set(names)

        def check(where: str, mapping: dict[str, int], *, positive: bool = False) -> None:
            unknown = sorted(set(mapping) - known)
            if unknown:
                raise ValueError(f"{where} names unknown resources {unknown}; resources are {list(names)}")
            bad = {k: v for k, v in mapping.items() if positive and v < 1}  # the types bound them to 0..MAX_AMOUNT
            if bad:
                raise ValueError(f"{where} has out-of-range amounts {bad}")

        for resource in self.resources:
            check(f"resource {resource.name!r} requirements", resource.requirements, positive=True)
        for recipe in self.recipes:
            check(f"recipe {recipe.name!r} inputs", recipe.inputs, positive=True)
            check(f"recipe {recipe.name!r} outputs", recipe.outputs, positive=True)
            check(f"recipe {recipe.name!r} requirements", recipe.requirements, positive=True)
        for job in self.jobs:
            check(f"job {job.name!r} caps", job.caps)
            check(f"job {job.name!r} values", job.values)
        for pile in self.piles:
            if pile.resource not in known:
                raise ValueError(f"pile of unknown resource {pile.resource!r}; resources are {list(names)}")
        cells = self.map_size**2
        for what, count in (
            ("piles", sum(p.count for p in self.piles)),
            ("event cells", sum(r.count for r in self.recipes)),
            ("players", self.num_players),
        ):
            if count > cells:
                side = self.map_size
                raise ValueError(f"{count} {what} do not fit on distinct cells of a {side}×{side} map")
        if not 2 <= self.num_players <= MAX_PLAYERS:
            raise ValueError(f"the game needs 2..{MAX_PLAYERS} players, the jobs give {self.num_players}")
        if len({job.name for job in self.jobs}) != len(self.jobs):
            raise ValueError("job names repeat")
        if len({recipe.name for recipe in self.recipes}) != len(self.recipes):
            raise ValueError("recipe names repeat")
        if self.negotiation_steps > self.max_length:
            raise ValueError(f"negotiation_steps ({self.negotiation_steps}) exceeds max_length ({self.max_length})")
        return self


HARD: dict[str, Any] = {
    "map_size": 15,
    "resources": [
        {"name": WOOD, "value": 1},
        {"name": STONE, "value": 1},
        {"name": HAMMER, "value": 5},
        {"name": COAL, "value": 2, "requirements": {HAMMER: 1}},
        {"name": TORCH, "value": 20},
        {"name": IRON, "value": 3, "requirements": {TORCH: 1}},
    ],
    "recipes": [
        {"name": "hammer_craft", "inputs": {WOOD: 1, STONE: 1}, "outputs": {HAMMER: 1}, "count": 98},
        {
            "name": "torch_craft",
            "inputs": {WOOD: 1, COAL: 1},
            "outputs": {TORCH: 1},
            "requirements": {COAL: 1},
            "count": 98,
        },
    ],
    "piles": [
        {"resource": WOOD, "count": 16, "amount": 5},
        {"resource": STONE, "count": 4, "amount": 5},
        {"resource": COAL, "count": 4, "amount": 5},
        {"resource": IRON, "count": 5, "amount": 2},
    ],
    "jobs": [
        {
            "name": "carpenter",
            "fov": 2,
            "caps": {WOOD: 100, STONE: 100, HAMMER: 1, COAL: 0, TORCH: 100, IRON: 100},
            "values": {WOOD: 1, STONE: 1, HAMMER: 5, COAL: 10, TORCH: 30, IRON: 20},
            "count": 4,
        },
        {
            "name": "miner",
            "fov": 2,
            "caps": {WOOD: 0, STONE: 0, HAMMER: 100, COAL: 100, TORCH: 1, IRON: 0},
            "values": {WOOD: 1, STONE: 1, HAMMER: 5, COAL: 10, TORCH: 30, IRON: 20},
            "count": 4,
        },
    ],
    "max_length": 240,
    "negotiation_steps": 41,
}
"""The original's `negotiation_hard` task: 15×15, 8 players, coal behind a hammer, iron behind a torch."""


def _with_defaults(name: str, values: dict[str, Any]) -> type[AdaSocietyConfig]:
    """A subclass of `AdaSocietyConfig` whose defaults are `values` (validated once, here)."""
    parsed = AdaSocietyConfig(**values)
    fields: dict[str, Any] = {
        key: (info.annotation, FieldInfo.merge_field_infos(info, default=getattr(parsed, key)))
        for key, info in AdaSocietyConfig.model_fields.items()
        if key in values
    }
    return create_model(name, __base__=AdaSocietyConfig, __doc__="The hard task's defaults.", **fields)


HardConfig = _with_defaults("HardConfig", HARD)
