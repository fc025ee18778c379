"""The AdaSociety negotiation game on the engine: one round per environment step.

Players submit sealed actions; when the last one is in, the step resolves in the original's
order: actions in seat order at the pre-move position, collisions, rewards as inventory value
change, then the social post-updates and the group split. All randomness is the match's seeded
generator: the map draws at the start, one collision priority order per physical step.
"""

from __future__ import annotations

from typing import Any

from negotiation_adasociety import person
from negotiation_adasociety.config import AdaSocietyConfig, HardConfig
from negotiation_adasociety.encoding import action_count, decode, encode, proposal_shares
from negotiation_adasociety.game_spec import build_spec
from negotiation_adasociety.legality import refusal
from negotiation_adasociety.narration import describe
from negotiation_adasociety.social import Society
from negotiation_adasociety.views import player_view, prompt_lines, public_view, rl_observation
from negotiation_adasociety.world import Draws, Rules, World
from negotiation_platform.games.bargaining import BargainingPosition
from negotiation_platform.games.base_game import BaseGame, GameResult, GameState, PlayerAction
from negotiation_platform.games.prompting import compose_prompt
from negotiation_platform.spec import ActionSpec, GameSpec, Happening, payload_schema
from negotiation_platform.spec.narration import Fact


class AdaSocietyGame(BaseGame[AdaSocietyConfig]):
    """Seed 001's negotiation mini-game, with the original environment's rules and numbers."""

    Config = AdaSocietyConfig
    game_title = "AdaSociety negotiation"

    @classmethod
    def build_spec(cls, config: AdaSocietyConfig) -> GameSpec:
        return build_spec(config, cls.spec_id(), cls.game_title)

    @classmethod
    def spec_id(cls) -> str:
        return "adasociety"

    # --- lifecycle --------------------------------------------------------------------------

    def initialize_game(self, players: list[str]) -> bool:
        config = self.settings
        self.players = list(players)
        self.draws = Draws.sample(config, self.rng)
        self.rules = Rules(config)
        self.world = World(self.rules, self.draws)
        self.jobs = [job.name for job in config.player_jobs()]
        self.society = Society(self.players, self.jobs)
        self.step = 0
        self.totals = [0.0] * len(players)
        self.last_rewards = [0.0] * len(players)
        self.step_priorities: list[list[int]] = []
        self._pending: dict[int, dict[str, Any]] = {}
        self._legal: dict[int, list[dict[str, Any]]] = {}
        self._views: dict[int, dict[str, Any]] = {}
        decoded = (decode(config, self.players, i) for i in range(action_count(config)))
        self._catalogue = [{"type": kind, **payload} for kind, payload in decoded]
        """Every action by index; the legal ones are filtered from it each step."""
        self.state = GameState.ACTIVE
        return True

    def use_draws(self, draws: Draws) -> None:
        """Lay the map out from given draws instead of the seeded ones (a JAX kernel's, a test's), before
        the first step; the draws must fit the config."""
        if self.step:
            raise RuntimeError("the map can only be replaced before the first step")
        self.draws = Draws.checked(self.settings, draws)
        self.world = World(self.rules, self.draws)
        self._legal.clear()
        self._views.clear()

    @property
    def initial_draws(self) -> dict[str, list[int]]:
        """The map draws, for replaying this match into the JAX kernel's `init_state`."""
        return {name: list(getattr(self.draws, name)) for name in ("pile_cells", "event_cells", "player_cells")}

    @property
    def negotiating(self) -> bool:
        return self.step < self.settings.negotiation_steps

    def process_action(self, action: PlayerAction) -> dict[str, Any]:
        """Seal the action; the step resolves when the phase closes (everyone has acted)."""
        self._pending[self.players.index(action.player_id)] = {"type": action.action_type, **action.action_data}
        return {"step": self.step, "submitted": sorted(self._pending)}

    def end_phase(self, phase_name: str) -> None:
        self._resolve_step()

    def check_end_conditions(self) -> bool:
        return self.step >= self.settings.max_length

    def calculate_scores(self) -> dict[str, float]:
        return dict(zip(self.players, self.totals, strict=True))

    # --- one environment step -----------------------------------------------------------------

    def _resolve_step(self) -> None:
        world, society, count = self.world, self.society, len(self.players)
        before = [world.value(i) for i in range(count)]
        targets: dict[int, int] = {}
        for player in range(count):
            action = self._pending.get(player, {"type": "stay"})
            match action["type"]:
                case "move":
                    targets[player] = self.rules.neighbour(world.position[player], action["direction"])
                case "pick":
                    world.pick(player, self.rules.index[action["resource"]])
                case "dump":
                    world.dump(player, self.rules.index[action["resource"]])
                case "produce":
                    world.produce(player)
                case "request_match":
                    society.request(player, self.players.index(action["player"]))
                case "propose":
                    society.propose(player, action["share"])
                case "accept":
                    society.accept(player)
                case "end":
                    society.end(player)
        if not self.negotiating:
            priority = self.rng.sample(range(count), count)
            self.step_priorities.append(priority)
            world.move(targets, priority)
        raw = [world.value(i) - before[i] for i in range(count)]
        groups_before = society.summary()
        society.post_update()
        self.last_rewards = society.split([float(r) for r in raw])
        self.totals = [total + reward for total, reward in zip(self.totals, self.last_rewards, strict=True)]
        if society.summary() != groups_before:
            self.notify({"step": self.step, "groups": society.summary()})
        self.step += 1
        self._pending.clear()
        self._legal.clear()
        self._views.clear()

    # --- what a player may do ---------------------------------------------------------------

    def legal_actions(self, player_id: str) -> list[dict[str, Any]]:
        """Every action ({"type", **payload}) the player may take this step, in action-index order."""
        player = self.players.index(player_id)
        if player not in self._legal:
            self._legal[player] = [a for a in self._catalogue if self._refusal(player, a) is None]
        return self._legal[player]

    def legal_mask(self, player_id: str) -> list[bool]:
        """The RL action mask: one flag per action index."""
        legal = {self._index(a) for a in self.legal_actions(player_id)}
        return [i in legal for i in range(action_count(self.settings))]

    @property
    def catalogue(self) -> list[dict[str, Any]]:
        """Every action ({"type", **payload}) of the game, in action-index order."""
        return self._catalogue

    def _index(self, action: dict[str, Any]) -> int:
        return encode(self.settings, self.players, action["type"], {k: v for k, v in action.items() if k != "type"})

    def _refusal(self, player: int, action: dict[str, Any]) -> str | None:
        return refusal(self.world, self.society, self.players, self.step, self.negotiating, player, action)

    def action_error(self, player_id: str, action: dict[str, Any]) -> str | None:
        return self._refusal(self.players.index(player_id), action)

    def available_actions(self, player_id: str, candidates: list[str]) -> list[str]:
        legal = {a["type"] for a in self.legal_actions(player_id)}
        return [name for name in candidates if name in legal]

    def action_payload_schema(self, player_id: str, action: ActionSpec) -> dict[str, Any]:
        """Only the payloads legal now: the resources you can pick or dump, the players you can invite."""
        schema = payload_schema(action.payload)
        field = {"pick": "resource", "dump": "resource", "request_match": "player"}.get(action.name)
        if field is None:
            return schema
        options = [a[field] for a in self.legal_actions(player_id) if a["type"] == action.name]
        properties = {**schema["properties"], field: {**schema["properties"][field], "enum": options}}
        properties[field].pop("$ref", None)
        return {**schema, "properties": properties}

    # --- what a player sees -------------------------------------------------------------------

    def observation(self, player_id: str) -> dict[str, Any]:
        """The RL observation of the JAX kernel, as nested lists."""
        return rl_observation(self, self.players.index(player_id))

    def get_player_view(self, player_id: str) -> dict[str, Any]:
        """The seat's view; built once per step and shared (treat it as read-only)."""
        player = self.players.index(player_id)
        if player not in self._views:
            self._views[player] = player_view(self, player)
        return self._views[player]

    def public_view(self) -> dict[str, Any]:
        return public_view(self)

    def bargaining_position(self, player_id: str) -> BargainingPosition | None:
        """For scripted negotiators, while the seat bargains with a partner: a menu of the shares it may
        claim (each worth that share to it), the smallest share as its reservation (`batna`) and the
        share the partner's standing proposal would leave it. None without a partner."""
        player = self.players.index(player_id)
        partner = self.society.partner(player)
        if partner is None:
            return None
        shares = proposal_shares(self.settings)
        claim = self.society.proposal(partner)
        mine = self.society.proposal(player)
        return {
            "action": "propose",
            "accept_action": "accept",
            "menu": [{"payload": {"share": share}, "utility": share} for share in shares],
            "batna": shares[0],
            "standing_utility": None if claim is None else round(1.0 - claim, 10),
            "standing_offer": None if claim is None else {"share": claim},
            "my_last_offer": None if mine is None else {"share": mine},
        }

    def get_game_prompt(self, player_id: str) -> str:
        view = self.get_player_view(player_id)
        heading = f"{self.game_title.upper()} — you are {view['you']['name']} ({player_id})"
        return compose_prompt(self.rules_text, heading, prompt_lines(view), self.open_actions(player_id))

    def describe_event(self, event: Happening, reader: str | None) -> str:
        return describe(event, reader) or super().describe_event(event, reader)

    def seat_facts(self, player_id: str) -> list[Fact]:
        return person.seat_facts(self, player_id)

    # --- results ------------------------------------------------------------------------------

    def agreement_terms(self) -> dict[str, Any] | None:
        groups = self.society.summary()
        return {"groups": groups} if groups else None

    def get_result(self) -> GameResult:
        result = super().get_result()
        names = self.settings.resource_names
        result.game_data.update(
            {
                "steps": self.step,
                "inventories": {
                    agent: dict(zip(names, inventory, strict=True))
                    for agent, inventory in zip(self.players, self.world.inventory, strict=True)
                },
                "social_graph": self.society.export(),
            }
        )
        return result

    def kernel_arrays(self) -> dict[str, Any]:
        """The state as the JAX kernel holds it (cell = x·W + y), for parity checks and RL tooling."""
        return {
            "time": self.step,
            "position": list(self.world.position),
            "inventory": [list(row) for row in self.world.inventory],
            "piles": [list(cell) for cell in self.world.piles],
            **self.society.arrays(),
        }


class AdaSocietyHardGame(AdaSocietyGame):
    """The original's `negotiation_hard` task: 15×15, 8 players, coal behind a hammer, iron behind a torch."""

    Config = HardConfig
    game_title = "AdaSociety negotiation (hard)"

    @classmethod
    def spec_id(cls) -> str:
        return "adasociety_hard"
