"""The AdaSociety spec: one round per environment step, a negotiation phase for the first steps and a
physical phase for the rest, every player acting once per step, all at the same time."""

from __future__ import annotations

from functools import cache
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, create_model

from negotiation_adasociety.config import AdaSocietyConfig
from negotiation_adasociety.encoding import proposal_shares
from negotiation_adasociety.world import DIRECTIONS
from negotiation_platform.spec import (
    ActionSpec,
    DefaultAction,
    GameSpec,
    OutcomeKind,
    OutcomeSpec,
    PhaseLimits,
    PhaseSpec,
    RolesSpec,
    TurnOrder,
)

NEGOTIATION, PHYSICAL = "negotiation", "physical"
STRICT = ConfigDict(extra="forbid", strict=True)


class MovePayload(BaseModel):
    model_config = STRICT

    direction: Literal["up", "down", "left", "right"] = Field(
        description="up and down change the row, left and right the column; the map wraps around."
    )


class RequestPayload(BaseModel):
    model_config = STRICT

    player: str = Field(min_length=1, max_length=200, description="The agent id of the player you invite.")


@cache
def resource_payload(names: tuple[str, ...]) -> type[BaseModel]:
    """`{resource}` restricted to this config's resources."""
    field: Any = (Literal[names], Field(description="One of the resources: " + ", ".join(names) + "."))
    return create_model("ResourcePayload", __config__=STRICT, resource=field)


@cache
def propose_payload(levels: int) -> type[BaseModel]:
    """`{share}`: the share of the group reward you claim for yourself, one of k/(levels+1)."""
    shares = [round(k / (levels + 1), 10) for k in range(1, levels + 1)]

    def on_the_scale(share: float) -> float:
        if round(share, 10) not in shares:
            raise ValueError(f"share must be one of {shares}")
        return round(share, 10)

    field: Any = (
        Annotated[float, AfterValidator(on_the_scale)],
        Field(
            ge=shares[0],
            le=shares[-1],
            json_schema_extra={"enum": list[Any](shares)},
            description="The share you claim for yourself; your partner's side gets the rest.",
        ),
    )
    return create_model("ProposePayload", __config__=STRICT, share=field)


def build_spec(config: AdaSocietyConfig, game_id: str, title: str) -> GameSpec:
    names = config.resource_names
    stay = ActionSpec(name="stay", description="Do nothing this step.", aliases=("no_act",))
    limits = PhaseLimits(turns=1, seconds_per_turn=config.seconds_per_step)
    phases: list[PhaseSpec] = []
    if config.negotiation_steps:
        levels = proposal_shares(config)
        phases.append(
            PhaseSpec(
                name=NEGOTIATION,
                description=(
                    f"Steps 0..{config.negotiation_steps - 1}. Without a partner you must invite someone who is "
                    "not in your group and not bargaining (you may stay only if nobody is); two players who invite "
                    "each other in the same step become partners. The lower id has parity 0, the other 1, and a "
                    "partner acts only on steps whose parity (step mod 2) is its own. The opener must propose; "
                    f"then each turn one may propose again, accept or end. A proposal claims one of {levels} of "
                    "the pair's future reward for the proposer; accepting joins the two sides into one group, the "
                    "accepter's side scaled by 1 − share and the proposer's by share, then normalised."
                ),
                turn_order=TurnOrder.SIMULTANEOUS,
                limits=limits,
                actions=(
                    ActionSpec(name="request_match", description="Invite a player to bargain.", payload=RequestPayload),
                    ActionSpec(
                        name="propose",
                        description="Claim a share of the pair's reward.",
                        payload=propose_payload(config.proposal_levels),
                    ),
                    ActionSpec(name="accept", description="Accept your partner's standing proposal."),
                    ActionSpec(name="end", description="End the bargain; both of you may match again at once."),
                    stay,
                ),
                default_action=DefaultAction(action="stay"),
                last_round=config.negotiation_steps,
            )
        )
    if config.physical_steps:
        phases.append(
            PhaseSpec(
                name=PHYSICAL,
                description=(
                    f"Steps {config.negotiation_steps}..{config.max_length - 1}. Everyone acts at once: pick, dump "
                    "and produce happen on your cell before anyone moves; then moves resolve (a contested cell goes "
                    "to one mover at random, a blocked mover stays). Your reward each step is the change in your "
                    "inventory's value, pooled inside your group and paid out by shares."
                ),
                turn_order=TurnOrder.SIMULTANEOUS,
                limits=limits,
                actions=(
                    ActionSpec(
                        name="move",
                        description="Step to a neighbouring cell: " + ", ".join(DIRECTIONS) + ".",
                        payload=MovePayload,
                    ),
                    stay,
                    ActionSpec(
                        name="produce",
                        description="Craft on an event cell: its inputs become its outputs (nothing happens "
                        "without the inputs).",
                    ),
                    ActionSpec(
                        name="pick",
                        description="Take one unit from a pile on your cell.",
                        payload=resource_payload(names),
                    ),
                    ActionSpec(
                        name="dump", description="Put one unit you hold on your cell.", payload=resource_payload(names)
                    ),
                ),
                default_action=DefaultAction(action="stay"),
                reveal_actions=False,
                first_round=config.negotiation_steps + 1,
            )
        )
    jobs = ", ".join(f"{job.count} {job.name}(s)" for job in config.jobs if job.count)
    return GameSpec(
        id=game_id,
        title=title,
        summary=(
            f"{config.num_players} players ({jobs}) on a {config.map_size}×{config.map_size} torus first bargain "
            "over how to split their future rewards and form groups, then gather resources and craft. Each "
            "round is one step of the environment."
        ),
        roles=RolesSpec(min_players=config.num_players, max_players=config.num_players),
        rounds=config.max_length,
        phases=tuple(phases),
        outcome=OutcomeSpec(
            kind=OutcomeKind.ENGINE_RULE,
            description="Each player's payoff is the sum of its rewards over all steps, after group splitting.",
        ),
    )
