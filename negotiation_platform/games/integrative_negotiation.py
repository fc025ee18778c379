"""integrative_negotiation (IntegrativeNegotiationsGame): IT and Marketing trade across four issues."""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from functools import cache
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, JsonValue, TypeAdapter, create_model, model_validator
from pydantic.fields import FieldInfo

from negotiation_platform.games import negotiation_tools
from negotiation_platform.games.bargaining import BargainingTerms, MenuItem
from negotiation_platform.games.base_game import MAX_VALUE, ConfigInput, RngInput
from negotiation_platform.games.bilateral import BilateralConfig, BilateralNegotiation

Number = Annotated[float, Field(ge=-MAX_VALUE, le=MAX_VALUE)]
"""Points, weights, BATNAs, snap bounds and numbers proposed for an issue."""
Option = Annotated[int, Field(ge=-MAX_VALUE, le=MAX_VALUE)] | str
ROLES = ("IT", "Marketing")
MAX_OPTIONS = 10
MAX_PROPOSALS = 10_000
"""Bound on the number of distinct proposals (the product of the option counts): scripted
negotiators list them all."""


class Issue(BaseModel):
    """One issue: its options in order, each role's points per option, and (numeric) snap bounds."""

    model_config = ConfigDict(frozen=True, allow_inf_nan=False)
    options: tuple[Option, ...] = Field(min_length=1, max_length=MAX_OPTIONS)
    points: dict[str, tuple[Number, ...]]
    snap_upper_bounds: tuple[Number, ...] | None = Field(
        default=None, description="Numeric issues: a number <= bound i snaps to option i; above the last, to the last."
    )
    unit: str = ""

    @model_validator(mode="after")
    def _coherent(self) -> Issue:
        if len(set(self.options)) != len(self.options):
            raise ValueError("options repeat")
        if set(self.points) != set(ROLES) or any(len(p) != len(self.options) for p in self.points.values()):
            raise ValueError(f"points must give one number per option for exactly the roles {list(ROLES)}")
        if self.snap_upper_bounds is not None and len(self.snap_upper_bounds) != len(self.options) - 1:
            raise ValueError("snap_upper_bounds must have one bound fewer than there are options")
        return self


DEFAULT_ISSUES: dict[str, Issue] = {
    "server_room": Issue(
        options=(50, 100, 150),
        points={"IT": (10, 30, 60), "Marketing": (60, 30, 10)},
        snap_upper_bounds=(75, 125),
        unit="sqm",
    ),
    "meeting_access": Issue(
        options=(2, 4, 7),
        points={"IT": (60, 30, 10), "Marketing": (10, 30, 60)},
        snap_upper_bounds=(3, 5),
        unit="days/week",
    ),
    "cleaning": Issue(options=("IT", "Shared", "Outsourced"), points={"IT": (10, 30, 60), "Marketing": (60, 30, 10)}),
    "branding": Issue(
        options=("Minimal", "Moderate", "Prominent"), points={"IT": (60, 30, 10), "Marketing": (10, 30, 60)}
    ),
}


class IntegrativeConfig(BilateralConfig):
    issues: dict[str, Issue] = Field(default_factory=lambda: dict(DEFAULT_ISSUES))
    weights: dict[str, dict[str, Number]] = {
        "IT": {"server_room": 0.4, "meeting_access": 0.1, "cleaning": 0.3, "branding": 0.2},
        "Marketing": {"server_room": 0.1, "meeting_access": 0.4, "cleaning": 0.2, "branding": 0.3},
    }
    batnas: dict[str, Number] = {"IT": 27, "Marketing": 19}

    @model_validator(mode="after")
    def _coherent(self) -> IntegrativeConfig:
        if not self.issues:
            raise ValueError("there must be at least one issue")
        if math.prod(len(issue.options) for issue in self.issues.values()) > MAX_PROPOSALS:
            raise ValueError(f"the issues allow more than {MAX_PROPOSALS:,} distinct proposals")
        if set(self.weights) != set(ROLES) or any(set(w) != set(self.issues) for w in self.weights.values()):
            raise ValueError(f"weights must give every issue a weight for exactly the roles {list(ROLES)}")
        if set(self.batnas) != set(ROLES):
            raise ValueError(f"batnas must give exactly the roles {list(ROLES)}")
        return self


def _issue_field(name: str, issue: Issue) -> tuple[type, FieldInfo]:
    if issue.snap_upper_bounds is not None:
        return (
            float,
            Field(
                ge=-MAX_VALUE,
                le=MAX_VALUE,
                description=f"{name} in {issue.unit}; numbers snap to one of {list(issue.options)}",
                json_schema_extra={"examples": list(issue.options)},
            ),
        )
    return (str, Field(description=f"one of {list(issue.options)}", json_schema_extra={"enum": list(issue.options)}))


_ISSUES = TypeAdapter(dict[str, Issue])


@cache
def _proposal_payload(issues_json: bytes) -> type[BaseModel]:
    """The payload model for a set of issues, cached by their JSON (pydantic classes are costly to build)."""
    issues = _ISSUES.validate_json(issues_json)
    proposal = create_model(
        "IssueProposal",
        __config__=ConfigDict(extra="forbid"),
        **{name: _issue_field(name, issue) for name, issue in issues.items()},  # type: ignore[call-overload]
    )
    return create_model(
        "ProposalPayload",
        __config__=ConfigDict(extra="forbid"),
        proposal=(proposal, Field(description="A choice for every issue.")),
    )


class IntegrativeNegotiationsGame(BilateralNegotiation[IntegrativeConfig]):
    """Multi-issue office negotiation in which trading issues beats splitting each one."""

    Config = IntegrativeConfig
    spec_id = "integrative_negotiation"
    roles = ROLES
    role_labels = {"IT": "Team A", "Marketing": "Team B"}
    proposal_action = "propose"
    game_title = "Office space negotiation"
    game_summary = (
        "Two teams share an office and must settle four issues together: server room size, meeting room "
        "access, cleaning responsibility and branding visibility. They care about the issues differently."
    )

    def __init__(
        self, config: ConfigInput = None, *, game_id: str = "integrative_negotiation", rng: RngInput = None
    ) -> None:
        super().__init__(game_id, config, rng=rng)

    @classmethod
    def proposal_payload(cls, config: IntegrativeConfig) -> type[BaseModel]:
        return _proposal_payload(_ISSUES.dump_json(config.issues))

    @classmethod
    def outcome_text(cls, config: IntegrativeConfig) -> str:
        return (
            "An agreement pays each team the sum over issues of its weight times its points for the chosen "
            "option. Without agreement both get 0."
        )

    def base_batna(self, role: str) -> float:
        return float(self.settings.batnas[role])

    # --- options ------------------------------------------------------------------------

    def snap_option(self, issue_name: str, value: object) -> Option:
        """The option a value stands for: numbers snap by the issue's bounds, text matches case-insensitively.

        Raises ValueError naming the valid options when there is none.
        """
        issue = self.settings.issues[issue_name]
        if issue.snap_upper_bounds is not None and isinstance(value, int | float) and not isinstance(value, bool):
            for bound, option in zip(issue.snap_upper_bounds, issue.options, strict=False):
                if value <= bound:
                    return option
            return issue.options[-1]
        for option in issue.options:
            if str(option).strip().lower() == str(value).strip().lower():
                return option
        raise ValueError(f"Unknown option {value!r} for {issue_name}; valid options: {list(issue.options)}.")

    def is_valid_proposal(self, proposal: Mapping[str, object]) -> bool:
        """Whether the proposal names every issue with a valid option."""
        return self.proposal_error(proposal) is None

    def proposal_error(self, proposal: object) -> str | None:
        if not isinstance(proposal, dict) or not proposal:
            return "A proposal must choose an option for every issue."
        missing = [name for name in self.settings.issues if name not in proposal]
        if missing:
            return f"The proposal must name all issues; missing: {missing}."
        extra = [name for name in proposal if name not in self.settings.issues]
        if extra:
            return f"Unknown issues {extra}; the issues are {list(self.settings.issues)}."
        for name, value in proposal.items():
            try:
                self.snap_option(name, value)
            except ValueError as exc:
                return str(exc)
        return None

    def validate_response(self, response: Mapping[str, object]) -> bool:
        """Whether a parsed response has a known type, and a proposal when it proposes."""
        kind = response.get("type")
        if kind not in (self.proposal_action, "accept", "reject"):
            return False
        return kind != self.proposal_action or isinstance(response.get("proposal"), dict)

    def offer_error(self, player_id: str, payload: Mapping[str, object]) -> str | None:
        return self.proposal_error(payload.get("proposal"))

    def terms_of(self, payload: dict[str, Any]) -> dict[str, Any]:
        proposal = payload["proposal"]
        return {name: self.snap_option(name, proposal[name]) for name in self.settings.issues}

    def payload_of(self, terms: Mapping[str, JsonValue]) -> dict[str, JsonValue]:
        return {"proposal": dict(terms)}

    # --- utility ------------------------------------------------------------------------

    def points_for(self, role: str) -> dict[str, dict[Option, float]]:
        return {
            name: dict(zip(issue.options, issue.points[role], strict=True))
            for name, issue in self.settings.issues.items()
        }

    def calculate_utility(self, player: str, proposal: Mapping[str, object]) -> float:
        """Σ weight × points for the player's role; 0.0 for an invalid proposal."""
        if self.proposal_error(proposal) is not None:
            return 0.0
        role = self.role_of(player)
        terms = {name: self.snap_option(name, proposal[name]) for name in self.settings.issues}
        return negotiation_tools.calculate_utility(terms, self.settings.weights[role], self.points_for(role))

    def role_utility(self, role: str, terms: Mapping[str, object], round_number: int) -> float:
        return negotiation_tools.calculate_utility(terms, self.settings.weights[role], self.points_for(role))

    def private_details(self, role: str) -> dict[str, object]:
        return {"weights": dict(self.settings.weights[role]), "points": self.points_for(role)}

    def public_details(self) -> dict[str, object]:
        issues = self.settings.issues
        return {"issues": {name: {"options": list(i.options), "unit": i.unit} for name, i in issues.items()}}

    # --- what players see ---------------------------------------------------------------

    def describe_terms(self, terms: Mapping[str, object]) -> str:
        return ", ".join(f"{name}: {value}" for name, value in terms.items())

    def situation(self, player_id: str) -> list[str]:
        role = self.role_of(player_id)
        weights, points = self.settings.weights[role], self.points_for(role)
        lines = ["Your priorities (weight; points per option):"]
        for name, issue in self.settings.issues.items():
            options = ", ".join(
                f"{option}{' ' + issue.unit if issue.unit else ''} = {points[name][option]:g}"
                for option in issue.options
            )
            lines.append(f"  {name} (weight {weights[name]:g}): {options}")
        lines.append("Your utility = sum of weight x points over the four issues.")
        return lines

    def bargaining_terms(self, player_id: str) -> BargainingTerms:
        role = self.role_of(player_id)
        names = list(self.settings.issues)
        menu: list[MenuItem] = []
        for combo in itertools.product(*(self.settings.issues[n].options for n in names)):
            terms: dict[str, JsonValue] = dict(zip(names, combo, strict=True))
            menu.append({"payload": {"proposal": terms}, "utility": self.role_utility(role, terms, 1)})
        return {"menu": menu}
