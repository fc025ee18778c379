"""resource_allocation (ResourceAllocationGame): two teams agree on one joint GPU/CPU plan."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Annotated, Any

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, create_model, model_validator

from negotiation_platform.games.bargaining import BargainingTerms, MenuItem
from negotiation_platform.games.base_game import MAX_VALUE, ConfigInput, PlayerAction, RngInput
from negotiation_platform.games.bilateral import BilateralConfig, BilateralNegotiation

MAX_HOURS = 1_000
"""Most hours of a plan (`total_resources` is at most this)."""
MENU_STEP = 5
"""Grid step of the offers listed for scripted negotiators (the game itself takes any numbers)."""


ROLES = ("development", "marketing")


Value = Annotated[float, Field(ge=-MAX_VALUE, le=MAX_VALUE)]


class ResourceAllocationConfig(BilateralConfig):
    total_resources: float = Field(default=100, gt=0, le=MAX_HOURS, description="Bounds the menu of offers too.")
    bandwidth: float = Field(default=380, ge=0, le=MAX_VALUE, description="Limit on 4 x gpu_hours + 4 x cpu_hours.")
    bandwidth_per_hour: float = Field(default=4, ge=0, le=MAX_VALUE)
    min_gpu_hours: float = Field(default=5, ge=0, le=MAX_HOURS)
    min_cpu_hours: float = Field(default=5, ge=0, le=MAX_HOURS)
    utility_coefficients: dict[str, tuple[Value, Value]] = Field(
        default={"development": (8, 6), "marketing": (6, 8)},
        description="Per role: (value of a GPU hour, value of a CPU hour).",
    )
    batnas: dict[str, Value] = {"development": 300, "marketing": 270}
    uncertainty: bool = Field(default=False, description="Show a noisy 'above your BATNA?' hint in prompts.")
    uncertainty_range: float = Field(
        default=2.0, ge=0, le=MAX_VALUE, description="The hint's noise is uniform in ±range."
    )

    @model_validator(mode="after")
    def _feasible(self) -> ResourceAllocationConfig:
        least = self.min_gpu_hours + self.min_cpu_hours
        if least > self.total_resources or self.bandwidth_per_hour * least > self.bandwidth:
            raise ValueError(
                f"no plan is legal: the minimum hours ({least:g}) exceed total_resources ({self.total_resources:g}) "
                f"or their bandwidth ({self.bandwidth_per_hour * least:g}) exceeds bandwidth ({self.bandwidth:g})"
            )
        for name in ("utility_coefficients", "batnas"):
            if set(getattr(self, name)) != set(ROLES):
                raise ValueError(f"{name} must give exactly the roles {list(ROLES)}")
        return self


@cache
def _plan_payload(total: float) -> type[BaseModel]:
    """The plan payload of games with `total` hours (cached: one class per total); no plan uses more."""

    def hours(name: str, short: str, label: str) -> Any:
        return (float, Field(ge=0, le=total, validation_alias=AliasChoices(name, short), description=f"{label} hours."))

    return create_model(
        "PlanPayload",
        __config__=ConfigDict(extra="forbid", populate_by_name=True),
        gpu_hours=hours("gpu_hours", "gpu", "GPU"),
        cpu_hours=hours("cpu_hours", "cpu", "CPU"),
    )


class ResourceAllocationGame(BilateralNegotiation[ResourceAllocationConfig]):
    """Development and Marketing negotiate one joint allocation of GPU and CPU hours."""

    Config = ResourceAllocationConfig
    spec_id = "resource_allocation"
    roles = ROLES
    role_labels = {"development": "Team A", "marketing": "Team B"}
    proposal_action = "propose"
    proposal_aliases = ("offer",)
    accept_same_round = False
    score_at_offer_round = True
    game_title = "Resource allocation"
    game_summary = (
        "Two teams must agree on one joint plan of GPU hours and CPU hours for a shared project. "
        "The teams value the two resources differently; the plan must respect shared capacity limits."
    )

    def __init__(
        self, config: ConfigInput = None, *, game_id: str = "resource_allocation", rng: RngInput = None
    ) -> None:
        super().__init__(game_id, config, rng=rng)

    @classmethod
    def proposal_payload(cls, config: ResourceAllocationConfig) -> type[BaseModel]:
        return _plan_payload(config.total_resources)

    @classmethod
    def outcome_text(cls, config: ResourceAllocationConfig) -> str:
        c = config
        return (
            f"A plan must satisfy gpu_hours + cpu_hours <= {c.total_resources:g}, "
            f"{c.bandwidth_per_hour:g} x gpu_hours + {c.bandwidth_per_hour:g} x cpu_hours <= {c.bandwidth:g}, "
            f"gpu_hours >= {c.min_gpu_hours:g} and cpu_hours >= {c.min_cpu_hours:g}. An accepted plan pays each team "
            "its own linear utility of the plan; an offer can be accepted only in a later round and is scored with "
            "the BATNAs of the round it was made. Without agreement each team gets its decayed BATNA."
        )

    def initialize_game(self, players: list[str]) -> dict[str, object]:  # type: ignore[override]
        super().initialize_game(players)
        spread = self.settings.uncertainty_range if self.settings.uncertainty else 0.0
        # Drawn now, so that showing a prompt never consumes randomness.
        self.game_data["hint_noise"] = {
            p: [self.rng.uniform(-spread, spread) for _ in range(self.max_rounds)] for p in self.players
        }
        return self.documented_state()

    def documented_state(self) -> dict[str, object]:
        """Adds `resource_history`: every plan proposed so far, oldest first."""
        history = [{"by": o["by"], "round": o["round"], **o["terms"]} for o in self.game_data["offers"]]
        return {**super().documented_state(), "resource_history": history}

    def private_details(self, role: str) -> dict[str, object]:
        gpu_value, cpu_value = self.settings.utility_coefficients[role]
        return {"utility_coefficients": {"gpu_hours": gpu_value, "cpu_hours": cpu_value}}

    def public_details(self) -> dict[str, object]:
        c = self.settings
        return {
            "constraints": {
                "total_resources": c.total_resources,
                "bandwidth": c.bandwidth,
                "bandwidth_per_hour": c.bandwidth_per_hour,
                "min_gpu_hours": c.min_gpu_hours,
                "min_cpu_hours": c.min_cpu_hours,
            }
        }

    @property
    def batna_values(self) -> dict[str, float]:
        """The documented attribute: each team's BATNA before decay, by team (`game.batna_values["development"]`).
        Each player's BATNA at the deciding round is the engine's hook, `player_batnas()`."""
        return {role: self.base_batna(role) for role in self.settings.batnas}

    def base_batna(self, role: str) -> float:
        return float(self.settings.batnas[role])

    def terms_of(self, payload: Mapping[str, object]) -> dict[str, float]:
        """The plan in the engine's names, from them or from the documented `gpu`/`cpu`."""
        plan = _plan_payload(self.settings.total_resources).model_validate(payload).model_dump()
        return {"gpu_hours": float(plan["gpu_hours"]), "cpu_hours": float(plan["cpu_hours"])}

    def calculate_utility(self, player: str, gpu_hours: float, cpu_hours: float, round_num: int = 1) -> float:
        """The team's linear utility of a plan (the documented signature; the round does not change it)."""
        gpu_value, cpu_value = self.settings.utility_coefficients[self.role_of(player)]
        return gpu_value * gpu_hours + cpu_value * cpu_hours

    def role_utility(self, role: str, terms: dict[str, Any], round_number: int) -> float:
        return self.calculate_utility(role, terms["gpu_hours"], terms["cpu_hours"], round_number)

    def no_deal_utility(self, role: str, final_round: int) -> float:
        return self.get_current_batna(role, final_round)

    def constraint_violations(self, gpu_hours: float, cpu_hours: float) -> list[str]:
        c = self.settings
        used = gpu_hours + cpu_hours
        bandwidth = c.bandwidth_per_hour * gpu_hours + c.bandwidth_per_hour * cpu_hours
        checks = [
            (used <= c.total_resources, f"Total resources exceeded: {used:g} > {c.total_resources:g}"),
            (bandwidth <= c.bandwidth, f"Bandwidth exceeded: {bandwidth:g} > {c.bandwidth:g}"),
            (gpu_hours >= c.min_gpu_hours, f"GPU hours below minimum: {gpu_hours:g} < {c.min_gpu_hours:g}"),
            (cpu_hours >= c.min_cpu_hours, f"CPU hours below minimum: {cpu_hours:g} < {c.min_cpu_hours:g}"),
        ]
        return [message for ok, message in checks if not ok]

    def check_constraints_and_update(self, gpu_hours: float, cpu_hours: float) -> None:
        """Record every violated constraint, readably, in game_data['constraint_check']."""
        messages = self.constraint_violations(gpu_hours, cpu_hours)
        self.game_data["constraint_check"] = {
            "constraints_met": not messages,
            "messages": messages,
            "gpu_hours": gpu_hours,
            "cpu_hours": cpu_hours,
            "total_usage": gpu_hours + cpu_hours,
        }

    def offer_error(self, player_id: str, payload: Mapping[str, object]) -> str | None:
        terms = self.terms_of(payload)
        messages = self.constraint_violations(terms["gpu_hours"], terms["cpu_hours"])
        return None if not messages else "Plan violates constraints: " + "; ".join(messages) + "."

    def process_action(self, action: PlayerAction) -> dict[str, object]:
        if action.action_type == self.proposal_action:
            terms = self.terms_of(action.action_data)
            self.check_constraints_and_update(terms["gpu_hours"], terms["cpu_hours"])
        return super().process_action(action)

    def describe_terms(self, terms: Mapping[str, object]) -> str:
        return f"{terms['gpu_hours']:g} GPU hours, {terms['cpu_hours']:g} CPU hours"

    def situation(self, player_id: str) -> list[str]:
        gpu_value, cpu_value = self.settings.utility_coefficients[self.role_of(player_id)]
        lines = [f"Your utility of a plan: {gpu_value:g} x gpu_hours + {cpu_value:g} x cpu_hours."]
        standing = self.standing_offer_for(player_id)
        if standing is not None:
            utility = self.role_utility(self.role_of(player_id), standing["terms"], standing["round"])
            batna = self.get_current_batna(player_id, standing["round"])
            noise = self.game_data["hint_noise"][player_id][max(self.current_round, 1) - 1]
            verdict = "above" if utility + noise >= batna else "below"
            lines.append(f"The offer you can accept looks {verdict} your BATNA (estimate {utility + noise:,.1f}).")
        return lines

    def bargaining_terms(self, player_id: str) -> BargainingTerms:
        role = self.role_of(player_id)
        menu: list[MenuItem] = [
            {"payload": {"gpu_hours": x, "cpu_hours": y}, "utility": self.calculate_utility(role, x, y)}
            for x in range(0, int(self.settings.total_resources) + 1, MENU_STEP)
            for y in range(0, int(self.settings.total_resources) + 1, MENU_STEP)
            if not self.constraint_violations(x, y)
        ]
        return {"menu": menu}
