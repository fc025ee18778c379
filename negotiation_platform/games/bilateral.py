"""The shared protocol of the three documented games, written once.

Two players, roles drawn from the seed; `rounds` rounds in which both act once in a freshly
shuffled order; at most `rounds - 1` proposals each (a spec budget the engine enforces).
Agreement when a player accepts the other's standing offer, or both make identical offers in
the same round. A reject ends the game only when the rejecting player has no proposals left.
Each game supplies its roles, proposal payload, terms, utilities and prompt details.
"""

from __future__ import annotations

import copy
from abc import abstractmethod
from collections.abc import Mapping
from typing import Annotated, Any, ClassVar, TypedDict, TypeVar

from pydantic import BaseModel, Field, JsonValue

from negotiation_platform.games import bilateral_facts, json_response
from negotiation_platform.games.bargaining import BargainingPosition, BargainingTerms
from negotiation_platform.games.base_game import (
    MAX_MESSAGE_CHARS,
    MAX_MESSAGES,
    MAX_ROUNDS,
    MAX_SECONDS,
    BaseGame,
    GameConfig,
    GameState,
    PlayerAction,
)
from negotiation_platform.games.prompting import compose_prompt
from negotiation_platform.spec import (
    ActionSpec,
    Channel,
    DefaultAction,
    GameSpec,
    MessagingPolicy,
    OutcomeSpec,
    PhaseLimits,
    PhaseSpec,
    RoleAssignment,
    RolesSpec,
    StartRule,
)
from negotiation_platform.spec.narration import Fact, Happening, does, plain_value

Decay = Annotated[float, Field(ge=0, le=1)]
"""A per-round decay rate: a BATNA shrinks by it each round and never grows (nor overflows)."""


class Offer(TypedDict):
    """A proposal as the game keeps it (in `game_data["offers"]` and `["standing"]`): who made it, its
    normalised terms (`terms_of`) and the round it was made in."""

    by: str
    terms: dict[str, Any]
    round: int


class BilateralConfig(GameConfig):
    rounds: int = Field(
        default=5, ge=2, le=MAX_ROUNDS, description="Rounds; each player may make rounds - 1 proposals."
    )
    batna_decay: Decay | dict[str, Decay] = Field(
        default=0.015, description="Per-round BATNA decay, one rate or one per role, each from 0 to 1."
    )
    seconds_per_turn: float | None = Field(default=None, gt=0, le=MAX_SECONDS)
    messages_per_turn: int = Field(
        default=0,
        ge=0,
        le=MAX_MESSAGES,
        description="Public messages a player may send on its turn, before acting (0, the game of record: none).",
    )
    max_message_length: int = Field(default=500, ge=1, le=MAX_MESSAGE_CHARS, description="Characters per message.")


BilateralConfigT = TypeVar("BilateralConfigT", bound=BilateralConfig)


class BilateralNegotiation(BaseGame[BilateralConfigT]):
    """Template for two-party games with offers, accept and reject under BATNA decay."""

    roles: ClassVar[tuple[str, str]]
    role_labels: ClassVar[dict[str, str]]
    """Neutral labels used in prompts (Party A/B, Team A/B)."""
    proposal_action: ClassVar[str] = "offer"
    proposal_aliases: ClassVar[tuple[str, ...]] = ()
    accept_same_round: ClassVar[bool] = True
    """Whether an offer may be accepted in the round it was made."""
    score_at_offer_round: ClassVar[bool] = False
    """Score an accepted offer with the BATNAs of the round it was made (else the round of agreement)."""
    spec_id: ClassVar[str]
    game_title: ClassVar[str]
    game_summary: ClassVar[str]

    # --- what each game supplies ----------------------------------------------------------

    @classmethod
    @abstractmethod
    def proposal_payload(cls, config: Any) -> type[BaseModel]:
        """The pydantic model of a proposal's payload."""

    @classmethod
    @abstractmethod
    def outcome_text(cls, config: Any) -> str:
        """How agreements and no deals pay, in words."""

    @abstractmethod
    def base_batna(self, role: str) -> float: ...

    @abstractmethod
    def terms_of(self, payload: dict[str, Any]) -> dict[str, Any]:
        """Normalised terms of a proposal (what is compared and scored)."""

    @abstractmethod
    def role_utility(self, role: str, terms: dict[str, Any], round_number: int) -> float:
        """The utility of agreed `terms` for `role`, agreed (or offered) in `round_number`."""

    def payload_of(self, terms: Mapping[str, JsonValue]) -> dict[str, JsonValue]:
        """The proposal payload that stands for `terms` (the inverse of `terms_of`)."""
        return dict(terms)

    def offer_error(self, player_id: str, payload: Mapping[str, object]) -> str | None:
        """Game-specific reasons to refuse a proposal (constraints, unknown options)."""
        return None

    def no_deal_utility(self, role: str, final_round: int) -> float:
        return 0.0

    @abstractmethod
    def situation(self, player_id: str) -> list[str]:
        """Prompt lines particular to the game (context, values, standing offer in its terms)."""

    @abstractmethod
    def bargaining_terms(self, player_id: str) -> BargainingTerms:
        """The game-specific part of `bargaining_position` (a numeric field, or a menu of offers)."""

    @abstractmethod
    def private_details(self, role: str) -> dict[str, object]:
        """What only the player in `role` knows besides its BATNA (budget, cost, utility weights)."""

    @abstractmethod
    def public_details(self) -> dict[str, object]:
        """What both players know of the game (the listed price, the constraints, the issues)."""

    # --- spec -----------------------------------------------------------------------------

    @classmethod
    def build_spec(cls, config: BilateralConfigT) -> GameSpec:
        proposals = config.rounds - 1
        return GameSpec(
            id=cls.spec_id,
            title=cls.game_title,
            summary=cls.game_summary,
            roles=RolesSpec(
                names=tuple(cls.role_labels[r] for r in cls.roles),
                min_players=2,
                max_players=2,
                assignment=RoleAssignment.SEEDED,
            ),
            rounds=config.rounds,
            phases=(
                PhaseSpec(
                    name="negotiate",
                    description="both players act once per round, in an order shuffled every round; "
                    "the second sees the first's action",
                    start=StartRule.SHUFFLED,
                    limits=PhaseLimits(turns=1, seconds_per_turn=config.seconds_per_turn),
                    messaging=MessagingPolicy(
                        channel=Channel.PUBLIC if config.messages_per_turn else Channel.NONE,
                        per_turn=config.messages_per_turn,
                        max_length=config.max_message_length,
                    ),
                    actions=(
                        ActionSpec(
                            name=cls.proposal_action,
                            description="make an offer (identical offers in the same round are an agreement)",
                            payload=cls.proposal_payload(config),
                            max_per_player=proposals,
                            aliases=cls.proposal_aliases,
                        ),
                        ActionSpec(name="accept", description="accept the other player's standing offer"),
                        ActionSpec(
                            name="reject",
                            description="decline; this ends the game only if you have no proposals left",
                        ),
                    ),
                    default_action=DefaultAction(action="reject"),
                ),
            ),
            outcome=OutcomeSpec(description=cls.outcome_text(config)),
        )

    # --- documented lifecycle ---------------------------------------------------------------

    def initialize_game(self, players: list[str]) -> dict[str, object]:  # type: ignore[override]
        """Seat exactly two players and draw their roles from the game's seeded generator.

        Returns the initial state, as the documented games do (`state["role_assignments"]`).
        """
        if len(players) != 2:
            raise ValueError(f"{self.spec.id} needs exactly 2 players, got {len(players)}")
        self.players = list(players)
        drawn = self.rng.sample(list(self.roles), 2)
        self.game_data = {
            "role_assignments": dict(zip(drawn, self.players, strict=True)),
            "roles": dict(zip(self.players, drawn, strict=True)),
            "offers": [],
            "standing": {},
            "proposals_made": dict.fromkeys(self.players, 0),
            "agreement": None,
            "ended_by": None,
            "acted": [],
            "rounds_exhausted": False,
            "errors": [],
        }
        self.current_round = 1
        self.state = GameState.ACTIVE
        return self.documented_state()

    def documented_state(self) -> dict[str, object]:
        """The game state in the documented shape, as `initialize_game` and `process_actions` return it.

        The game's own data (a copy), with the documented keys: `game_type`, `players`, `current_round`,
        `max_rounds`, `private_info` (each player's role, BATNA and private values), `public_info`,
        `game_config`, `agreement_reached`, `game_over`, and once the game is over `final_utilities`
        and `utility_surplus` (None before).
        """
        over = self.check_end_conditions()
        return {
            **copy.deepcopy(self.game_data),
            "game_type": self.spec_id,
            "players": list(self.players),
            "current_round": self.current_round,
            "max_rounds": self.max_rounds,
            "private_info": {p: self.private_info(p) for p in self.players},
            "public_info": {"title": self.game_title, "summary": self.game_summary, **self.public_details()},
            "game_config": dict(self.config),
            "agreement_reached": self.game_data["agreement"] is not None,
            "game_over": over,
            "final_utilities": self.calculate_scores() if over else None,
            "utility_surplus": self.surplus() if over else None,
        }

    def private_info(self, player_id: str) -> dict[str, object]:
        role = self.role_of(player_id)
        return {
            "role": role,
            "label": self.role_labels[role],
            "batna": self.base_batna(role),
            **self.private_details(role),
        }

    def begin_round(self, round_number: int) -> None:
        super().begin_round(round_number)
        self.game_data["acted"] = []

    def seat_roles(self) -> dict[str, str] | None:
        """The roles drawn from the seed, by their names in the spec."""
        return {p: self.role_labels[role] for p, role in self.game_data["roles"].items()}

    def role_of(self, player: str) -> str:
        """A seated player's role; a role name is returned as is (so documented calls may pass either).

        A seat is looked up first: players may be named after roles ("buyer", "seller") while the
        seed gave them the other role.
        """
        seated: dict[str, str] = self.game_data.get("roles", {})
        if player in seated or player not in self.roles:
            return seated[player]
        return player

    def other(self, player_id: str) -> str:
        return next(p for p in self.players if p != player_id)

    def decay_rate(self, role: str) -> float:
        decay = self.settings.batna_decay
        return float(decay.get(role, 0.0)) if isinstance(decay, dict) else float(decay)

    def get_current_batna(self, player: str, round_num: int) -> float:
        """batna × (1 − decay) ** (round − 1), for a player id or a role name."""
        role = self.role_of(player)
        return self.base_batna(role) * (1 - self.decay_rate(role)) ** (max(round_num, 1) - 1)

    @property
    def max_proposals(self) -> int:
        action = self.spec.phases[0].action(self.proposal_action)
        assert action is not None and action.max_per_player is not None
        return action.max_per_player

    def proposals_left(self, player_id: str) -> int:
        return self.max_proposals - int(self.game_data["proposals_made"][player_id])

    def standing_offer_for(self, player_id: str) -> Offer | None:
        """The other player's standing offer that `player_id` could accept now, if any."""
        offer: Offer | None = self.game_data["standing"].get(self.other(player_id))
        if offer is None or (not self.accept_same_round and offer["round"] >= self.current_round):
            return None
        return offer

    # --- validation -------------------------------------------------------------------------

    def available_actions(self, player_id: str, candidates: list[str]) -> list[str]:
        can_accept = self.standing_offer_for(player_id) is not None
        can_propose = self.proposals_left(player_id) > 0
        return [a for a in candidates if (a != "accept" or can_accept) and (a != self.proposal_action or can_propose)]

    def action_error(self, player_id: str, action: Mapping[str, object]) -> str | None:
        kind = action.get("type")
        if kind == "accept" and self.standing_offer_for(player_id) is None:
            if not self.accept_same_round and self.game_data["standing"].get(self.other(player_id)):
                return "An offer can be accepted only in a round after the one it was made in."
            return "There is no offer from the other party to accept."
        if kind in (self.proposal_action, *self.proposal_aliases):
            if self.proposals_left(player_id) <= 0:
                return f"Proposal limit reached: you have made all {self.max_proposals} proposals."
            payload = {k: v for k, v in action.items() if k != "type"}
            return self.offer_error(player_id, payload)
        return None

    # --- processing -----------------------------------------------------------------------

    def process_action(self, action: PlayerAction) -> dict[str, object]:
        self.add_action(action)
        data = self.game_data
        player, round_number = action.player_id, self.current_round
        data["acted"].append(player)
        if action.action_type == self.proposal_action:
            offer: Offer = {"by": player, "terms": self.terms_of(action.action_data), "round": round_number}
            data["offers"].append(offer)
            data["proposals_made"][player] += 1
            rival = data["standing"].get(self.other(player))
            data["standing"][player] = offer
            if rival is not None and rival["round"] == round_number and rival["terms"] == offer["terms"]:
                self._agree(offer, how="identical offers")
        elif action.action_type == "accept":
            accepted = self.standing_offer_for(player)
            assert accepted is not None, "the engine and action_error only let a valid accept through"
            self._agree(accepted, how="accepted")
        elif action.action_type == "reject" and self.proposals_left(player) <= 0:
            data["ended_by"] = player
        return data

    def _agree(self, offer: Mapping[str, object], how: str) -> None:
        self.game_data["agreement"] = {
            "terms": copy.deepcopy(offer["terms"]),
            "round": self.current_round,
            "offer_round": offer["round"],
            "proposed_by": offer["by"],
            "how": how,
        }

    def process_actions(
        self, actions: dict[str, dict[str, Any]], game_state: Mapping[str, object] | None = None
    ) -> dict[str, object]:
        """Documented batch form for use without the engine: each player's action in order, then the
        round advances once both have acted. An invalid action is recorded in `errors`, not applied.
        Returns `documented_state()` (with `agreement_reached`, `final_utilities`, `game_over`)."""
        for player, raw in actions.items():
            if self.check_end_conditions():
                break
            action = raw["decision"] if isinstance(raw.get("decision"), dict) else raw
            reason = self.explain_invalid_action(player, action)
            if reason is not None:
                self.game_data["errors"].append({"player": player, "round": self.current_round, "error": reason})
                continue
            name = self.spec.phases[0].action(str(action["type"]))
            assert name is not None
            data = {k: v for k, v in action.items() if k != "type"}
            self.process_action(
                PlayerAction(player, name.name, data, float(len(self.actions_history)), self.current_round)
            )
        if not self.check_end_conditions() and set(self.game_data["acted"]) >= set(self.players):
            if self.current_round >= self.max_rounds:
                self.game_data["rounds_exhausted"] = True
            else:
                self.begin_round(self.current_round + 1)
        if self.check_end_conditions():
            self.state = GameState.COMPLETED
        return self.documented_state()

    def is_game_over(self, game_state: Mapping[str, object] | None = None) -> bool:
        data: Mapping[str, object] = game_state if game_state is not None else self.game_data
        if data.get("agreement_reached") or data.get("agreement"):
            return True
        if data.get("ended_by") or data.get("rounds_exhausted"):
            return True
        current = data.get("current_round", self.current_round)
        return isinstance(current, int | float | str) and int(current) > self.max_rounds

    def check_end_conditions(self) -> bool:
        return self.is_game_over()

    # --- outcome --------------------------------------------------------------------------

    def deciding_round(self) -> int:
        agreement = self.game_data.get("agreement")
        if agreement is None:
            return min(max(self.current_round, 1), self.max_rounds)
        return int(agreement["offer_round"] if self.score_at_offer_round else agreement["round"])

    def agreement_terms(self) -> dict[str, JsonValue] | None:
        agreement = self.game_data.get("agreement")
        return None if agreement is None else dict(agreement["terms"])

    def player_batnas(self) -> dict[str, float]:
        return {p: self.get_current_batna(p, self.deciding_round()) for p in self.players}

    def calculate_scores(self) -> dict[str, float]:
        terms, round_number = self.agreement_terms(), self.deciding_round()
        if terms is None:
            return {p: self.no_deal_utility(self.role_of(p), round_number) for p in self.players}
        return {p: self.role_utility(self.role_of(p), terms, round_number) for p in self.players}

    def get_game_summary(self, game_state: Mapping[str, object] | None = None) -> dict[str, object]:
        agreement = self.game_data.get("agreement")
        summary: dict[str, object] = {
            "game_type": self.game_title,
            "players": dict(self.game_data["roles"]),
            "agreement_reached": agreement is not None,
            "agreement_details": agreement,
            "final_agreement": self.agreement_terms(),
            "utilities": self.calculate_scores(),
            "batnas": self.player_batnas(),
            "surplus": self.surplus(),
            "winner": self.get_winner(),
            "rounds_played": self.current_round,
        }
        if agreement is None:
            summary["failure_reason"] = (
                f"{self.game_data['ended_by']} rejected with no proposals left"
                if self.game_data["ended_by"]
                else "no agreement within the round limit"
            )
        return summary

    # --- documented JSON helpers ----------------------------------------------------------

    def validate_json_response(self, response: str) -> bool:
        return json_response.validate_json_response(response)

    def parse_json_response(self, response: str) -> dict[str, JsonValue]:
        return json_response.parse_json_response(response)

    # --- what players see -----------------------------------------------------------------

    def describe_terms(self, terms: Mapping[str, object]) -> str:
        return ", ".join(f"{k}={v}" for k, v in terms.items())

    def score_note(self, player_id: str) -> str:
        """What the score rewards, for the prompt (a game whose score is not a plain utility says its own)."""
        return "An agreement worth less to you than your BATNA is worse than no deal."

    def amount(self, value: float) -> str:
        """A utility or price in the game's units, rounded as the game shows it (money games: dollars)."""
        return plain_value(round(float(value), 2))

    def seat_facts(self, player_id: str) -> list[Fact]:
        return bilateral_facts.seat_facts(self, player_id)

    def action_effect(self, player_id: str, action: str) -> str | None:
        """Accepting: the deal and its score; declining with no proposals left: no deal."""
        if action == "accept":
            offer = self.standing_offer_for(player_id)
            if offer is not None:
                score = bilateral_facts.accept_score(self, player_id)
                return f"deal at {self.describe_terms(offer['terms'])}, you score {score}"
        if action == "reject" and self.proposals_left(player_id) <= 0:
            return f"no deal, you score {self.amount(0)}"
        return None

    def describe_event(self, event: Happening, reader: str | None) -> str:
        """Offers in the game's terms and who holds which role: "Party B (concession) offers $41,000"."""
        actor = event.actor
        if event.kind != "action" or actor not in self.players:
            return super().describe_event(event, reader)
        role = self.role_labels[self.role_of(actor)]
        if event.action_type == self.proposal_action or event.action_type in self.proposal_aliases:
            try:
                terms = self.terms_of(dict(event.payload))
            except (KeyError, TypeError, ValueError):
                return super().describe_event(event, reader)
            return f"{does(actor, reader, 'offer', aside=role)} {self.describe_terms(terms)}"
        agreement = self.game_data.get("agreement")
        if event.action_type == "accept" and agreement is not None and agreement["how"] == "accepted":
            return f"{does(actor, reader, 'accept', aside=role)}: a deal at {self.describe_terms(agreement['terms'])}"
        if event.action_type == "reject":
            return does(actor, reader, "decline", aside=role)
        return super().describe_event(event, reader)

    def get_player_view(self, player_id: str) -> dict[str, JsonValue]:
        role = self.role_of(player_id)
        rival = self.game_data["standing"].get(self.other(player_id))
        mine = self.game_data["standing"].get(player_id)
        return {
            "round": self.current_round,
            "rounds": self.max_rounds,
            "your_label": self.role_labels[role],
            "your_batna": round(self.get_current_batna(player_id, self.current_round), 4),
            "proposals_left": self.proposals_left(player_id),
            "opponent_latest_offer": None if rival is None else {"terms": rival["terms"], "round": rival["round"]},
            "your_latest_offer": None if mine is None else {"terms": mine["terms"], "round": mine["round"]},
            "agreement": self.game_data["agreement"],
        }

    def public_view(self) -> dict[str, JsonValue]:
        """The round; once the match is over also each seat's role index (`role_order`), to place its
        outcome against the frontier (who held which role is no secret then)."""
        view: dict[str, JsonValue] = {"round": self.current_round, "rounds": self.max_rounds}
        if self.state is GameState.COMPLETED:
            view["role_order"] = [list(self.roles).index(self.role_of(p)) for p in self.players]
        return view

    def bargaining_position(self, player_id: str) -> BargainingPosition | None:
        standing = self.standing_offer_for(player_id)
        mine = self.game_data["standing"].get(player_id)
        round_number = max(self.current_round, 1)
        role = self.role_of(player_id)
        return {
            "action": self.proposal_action,
            "accept_action": "accept",
            "batna": self.get_current_batna(player_id, round_number),
            "standing_utility": None
            if standing is None
            else self.role_utility(role, standing["terms"], self._scoring_round(standing)),
            "my_last_offer": None if mine is None else self.payload_of(mine["terms"]),
            "standing_offer": None if standing is None else self.payload_of(standing["terms"]),
            **self.bargaining_terms(player_id),
        }

    def _scoring_round(self, offer: Offer) -> int:
        return int(offer["round"]) if self.score_at_offer_round else max(self.current_round, 1)

    def get_game_prompt(self, player_id: str, game_state: Mapping[str, object] | None = None) -> str:
        view = self.get_player_view(player_id)
        rival: Offer | None = self.game_data["standing"].get(self.other(player_id))  # the view's latest offer
        lines = [
            f"You are {view['your_label']}. Round {view['round']} of {view['rounds']}.",
            f"Your BATNA this round (after decay): {view['your_batna']:,.2f}. {self.score_note(player_id)}",
            f"Proposals left: {view['proposals_left']} of {self.max_proposals}.",
            "Opponent's latest offer: "
            + ("none yet." if rival is None else f"{self.describe_terms(rival['terms'])} (round {rival['round']})."),
            *self.situation(player_id),
        ]
        heading = f"{self.game_title.upper()} — round {view['round']} of {view['rounds']}"
        return compose_prompt(self.rules_text, heading, lines, self.open_actions(player_id))
