"""The JAX twin of the AdaSociety game: the whole game, bargaining included, over fixed-shape arrays.

Indices are the engine's (cell = x·W + y, resources in config order, players in seat order, the
27-index action layout of `encoding`), so a match can be replayed step by step into the kernel:
`init_state(params, draws)` takes the engine's map draws and `replay_step(state, actions,
priority, params)` the engine's collision priorities. The social graph is an N×N-free encoding:
each player's partner, parity, standing claim, group id and share. Imported only when a kernel is
asked for (needs JAX).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple, TypeVar

import jax
import jax.numpy as jnp
import numpy as np

from negotiation_adasociety.config import AdaSocietyConfig, HardConfig
from negotiation_adasociety.encoding import FIRST_PICK, PRODUCE, STAY, action_count, decode
from negotiation_adasociety.world import DIRECTIONS, Rules
from negotiation_platform.kernels import bitmasks, spaces, threefry
from negotiation_platform.kernels.base import BaseKernel, Moved
from negotiation_platform.kernels.env import Step
from negotiation_platform.kernels.occasional import only_if
from negotiation_platform.kernels.sampling import computed_once, distinct_indices, uniform_order, uniform_set_bit

OFFSETS = np.array(list(DIRECTIONS.values()), dtype=np.int32)
"""Row and column offset of each move index 0..3."""


Groups = tuple[jax.Array, jax.Array, jax.Array]
"""Each player's group id and share, and the next unused id."""

T = TypeVar("T")


class Params(NamedTuple):
    caps: jax.Array
    """int32[N, R]"""
    values: jax.Array
    """int32[N, R]: each player's unit value of each resource."""
    pick_requirements: jax.Array
    """int32[R, R]: items needed to see and pick each resource."""
    recipe_inputs: jax.Array
    """int32[K, R]"""
    recipe_outputs: jax.Array
    recipe_requirements: jax.Array
    pile_resource: jax.Array
    """int32[P]: the resource of each pile, in config order."""
    pile_amount: jax.Array
    event_recipe: jax.Array
    """int32[E]: the recipe of each event cell, in config order."""
    fov: jax.Array
    """int32[N]"""


class Draws(NamedTuple):
    pile_cells: jax.Array
    event_cells: jax.Array
    player_cells: jax.Array


class State(NamedTuple):
    time: jax.Array
    position: jax.Array
    """int32[N]: cell of each player."""
    inventory: jax.Array
    """int32[N, R]"""
    piles: jax.Array
    """int32[W·W, R]: units on the ground."""
    event: jax.Array
    """int32[W·W]: recipe index of each cell, −1 for none."""
    partner: jax.Array
    """int32[N]: bargaining partner, −1 for none."""
    parity: jax.Array
    proposal: jax.Array
    """f32[N]: the share a player claims in its standing proposal, 0 for none."""
    group: jax.Array
    """int32[N]: group id, −1 for none; ids are never reused."""
    share: jax.Array
    """f32[N]: share in the own group, 0 when ungrouped."""
    next_group: jax.Array
    totals: jax.Array
    """f32[N]: rewards so far."""
    done: jax.Array


BONDS = ("partner", "parity", "proposal", "group", "share", "next_group")
"""The fields of `State` that bargaining changes."""


class AdaSocietyEnv(BaseKernel[State, Params]):
    """Functional environment (gymnax style): `reset`/`step` are pure, jittable and vmappable.

    `step` is its own: a step's collision priority can be given (`transition`), and a finished
    match is frozen by turning every action into stay, which keeps the map as it is without a
    select over the whole state.

    This is the CPU formulation: its loops run only as long as the data needs (`_only_if`,
    `_fixed_point`, `_each_pair`, `_distinct`). `negotiation_adasociety.accelerator` holds the same
    rules with fixed work in their place."""

    formulation = "cpu"

    reset_when_any_done = True  # every match lasts exactly max_length steps

    def __init__(self, config: AdaSocietyConfig, game_id: str = "adasociety") -> None:
        self.config = config
        self.game_id = game_id
        self.num_agents = config.num_players
        self.num_resources = len(config.resources)
        self.size = config.map_size
        self.num_actions = action_count(config)
        self.max_length = config.max_length
        self.negotiation_steps = config.negotiation_steps
        self.fov = max(job.fov for job in config.jobs if job.count)
        self.levels = config.proposal_levels
        self.dump_at = FIRST_PICK + self.num_resources
        self.request_at = self.dump_at + self.num_resources
        self.accept_at = self.request_at + self.num_agents
        self.propose_at = self.accept_at + 2

    @classmethod
    def from_config(cls, config: AdaSocietyConfig) -> tuple[AdaSocietyEnv, Params]:
        env = cls(config, game_id="adasociety_hard" if isinstance(config, HardConfig) else "adasociety")
        return env, env.default_params()

    def action_space(self, params: Params) -> spaces.Discrete:
        """The 27-index layout of `negotiation_adasociety.encoding` (37 in the hard preset)."""
        return spaces.Discrete(self.num_actions)

    def default_params(self) -> Params:
        config, rules = self.config, Rules(self.config)
        return Params(
            caps=jnp.array(rules.caps, jnp.int32),
            values=jnp.array(rules.values, jnp.int32),
            pick_requirements=jnp.array(rules.pick_requirements, jnp.int32).reshape(self.num_resources, -1),
            recipe_inputs=jnp.array(rules.recipe_inputs, jnp.int32).reshape(len(config.recipes), -1),
            recipe_outputs=jnp.array(rules.recipe_outputs, jnp.int32).reshape(len(config.recipes), -1),
            recipe_requirements=jnp.array(rules.recipe_requirements, jnp.int32).reshape(len(config.recipes), -1),
            pile_resource=jnp.array([rules.index[p.resource] for p in config.piles for _ in range(p.count)], jnp.int32),
            pile_amount=jnp.array([p.amount for p in config.piles for _ in range(p.count)], jnp.int32),
            event_recipe=jnp.array([k for k, r in enumerate(config.recipes) for _ in range(r.count)], jnp.int32),
            fov=jnp.array([job.fov for job in config.player_jobs()], jnp.int32),
        )

    # --- a fresh match ------------------------------------------------------------------------

    def draws(self, key: jax.Array, params: Params) -> Draws:
        """Distinct cells for the piles, for the events and for the players, drawn independently."""
        keys = threefry.split(key, 3)
        cells = self.size * self.size
        counts = (params.pile_resource.shape[0], params.event_recipe.shape[0], self.num_agents)
        return Draws(*(self._distinct(k, cells, n) for k, n in zip(keys, counts, strict=True)))

    def init_state(self, params: Params, draws: Draws) -> State:
        cells, n = self.size * self.size, self.num_agents
        piles = jnp.zeros((cells, self.num_resources), jnp.int32)
        piles = piles.at[draws.pile_cells, params.pile_resource].add(params.pile_amount)
        event = jnp.full((cells,), -1, jnp.int32).at[draws.event_cells].set(params.event_recipe)
        return State(
            time=jnp.int32(0),
            position=jnp.asarray(draws.player_cells, jnp.int32),
            inventory=jnp.zeros((n, self.num_resources), jnp.int32),
            piles=piles,
            event=event,
            partner=jnp.full((n,), -1, jnp.int32),
            parity=jnp.full((n,), -1, jnp.int32),
            proposal=jnp.zeros((n,), jnp.float32),
            group=jnp.full((n,), -1, jnp.int32),
            share=jnp.zeros((n,), jnp.float32),
            next_group=jnp.int32(0),
            totals=jnp.zeros((n,), jnp.float32),
            done=jnp.bool_(False),
        )

    def engine_draws(self, match: Any) -> Draws:
        """An engine match's map draws in this form (`check_kernel`)."""
        return Draws(**{name: jnp.array(cells, jnp.int32) for name, cells in match.game.initial_draws.items()})

    def engine_step_draws(self, match: Any, index: int) -> jax.Array:
        """The collision priority the engine drew on its step `index` (from 0), for `replay_step`."""
        physical = index - self.negotiation_steps
        drawn = match.game.step_priorities[physical] if physical >= 0 else range(self.num_agents)
        return jnp.array(list(drawn), jnp.int32)

    def replay_step(self, state: State, actions: jax.Array, priority: jax.Array, params: Params) -> Step[State]:
        """`step_env` with the engine's collision priority of that step (`check_kernel`)."""
        return self.conclude(state, self.transition(state, actions, priority, params), params)

    # --- legality -------------------------------------------------------------------------------

    def legal_mask(self, state: State, params: Params) -> jax.Array:
        """bool[N, A]: the actions each player may take now (the engine's legal set, encoded)."""
        return bitmasks.unpack(self.legal_bits(state, params), self.num_actions)

    def legal_bits(self, state: State, params: Params) -> jax.Array:
        """uint32[N, ⌈A/32⌉]: `legal_mask` as bits (`bitmasks`), all that drawing a random legal move
        and checking the chosen one read: built from a few column groups, never as [N, A] booleans."""
        negotiating = state.time < self.negotiation_steps
        none = jnp.zeros((self.num_agents, bitmasks.words_for(self.num_actions)), jnp.uint32)
        # each phase's bits only in steps of that phase: the other phase's work is skipped
        social = self._only_if(negotiating, lambda: self._social_bits(state), none)
        return social | self._only_if(~negotiating, lambda: self._physical_bits(state, params), none)

    def _physical_bits(self, state: State, params: Params) -> jax.Array:
        inventory, here = state.inventory, state.position
        piles_here = state.piles[here]  # [N, R]
        sees = _holds(inventory[:, None, :], params.pick_requirements[None, :, :])  # [N, R]
        pick = (piles_here > 0) & sees & (inventory < params.caps)
        dump = inventory > 0
        recipe = state.event[here]
        safe = jnp.maximum(recipe, 0)
        visible = (recipe >= 0) & _holds(inventory, params.recipe_requirements[safe])
        fits = jnp.all(inventory - params.recipe_inputs[safe] + params.recipe_outputs[safe] <= params.caps, axis=-1)
        always = jnp.ones((self.num_agents, STAY + 1), bool)
        groups = [(0, always), (PRODUCE, (visible & fits)[:, None]), (FIRST_PICK, pick), (self.dump_at, dump)]
        return bitmasks.pack_columns(self.num_actions, groups)

    def _social_bits(self, state: State) -> jax.Array:
        n, players = self.num_agents, jnp.arange(self.num_agents)
        free = state.partner < 0
        same_group = (state.group[:, None] == state.group[None, :]) & (state.group[:, None] >= 0)
        invitable = free[None, :] & (players[:, None] != players[None, :]) & ~same_group  # [i, j]
        on_turn = ~free & (state.time % 2 == state.parity)
        partner = jnp.maximum(state.partner, 0)
        theirs = state.proposal[partner] > 0
        opened = (state.proposal > 0) | theirs
        stay = jnp.where(free, ~invitable.any(axis=1), ~on_turn)
        request = invitable & free[:, None]
        accept = on_turn & theirs
        end = on_turn & opened
        propose = jnp.broadcast_to(on_turn[:, None], (n, self.levels))
        groups = [
            (STAY, stay[:, None]),
            (self.request_at, request),
            (self.accept_at, accept[:, None]),
            (self.accept_at + 1, end[:, None]),
            (self.propose_at, propose),
        ]
        return bitmasks.pack_columns(self.num_actions, groups)

    # --- one step -------------------------------------------------------------------------------

    def move(self, key: jax.Array, state: State, actions: jax.Array, params: Params) -> Moved[State]:
        return self.transition(state, actions, uniform_order(key, self.num_agents), params)

    def transition(self, state: State, actions: jax.Array, priority: jax.Array, params: Params) -> Moved[State]:
        """One step of a live match with a given collision priority (higher wins a contested cell);
        illegal actions act as stay. The base's `conclude` freezes a finished match."""
        legal = bitmasks.bit_at(self.legal_bits(state, params), actions)
        actions = computed_once(jnp.where(legal, actions, STAY), self.num_actions)  # read in many places
        moved = self._physical(state, actions, priority, params)
        raw = jnp.sum((moved.inventory - state.inventory) * params.values, axis=1).astype(jnp.float32)
        # bargaining happens only in the first steps
        # only the fields bargaining changes go through the loop, not the whole state (the piles with it)
        before = {name: getattr(moved, name) for name in BONDS}
        social = moved._replace(
            **self._only_if(state.time < self.negotiation_steps, lambda: self._social(moved, actions), before)
        )
        same = (social.group[:, None] == social.group[None, :]) & (social.group[:, None] >= 0)
        pooled = same.astype(jnp.float32) @ raw
        rewards = jnp.where(social.group >= 0, pooled * social.share, raw)
        time = state.time + 1
        new = social._replace(time=time, totals=state.totals + rewards, done=time >= self.max_length)
        return Moved(new, rewards, {"illegal": jnp.sum(~legal & ~state.done)})

    def shaping_potential(self, state: State, params: Params) -> jax.Array:
        """f32[N]: a potential for reward shaping in training (`training.ippo`, `--shaping`): the value of
        the crafted items lying on the ground (resources no pile starts with, a hammer at 5), shared equally
        by every seat. A carpenter's dump then costs the team nothing until a miner picks the hammer up;
        shaping by its difference leaves the best policy unchanged (Ng et al., 1999)."""
        crafted = jnp.ones(self.num_resources, jnp.bool_).at[params.pile_resource].set(False)
        resource_value = jnp.array([r.value for r in self.config.resources], jnp.float32)
        ground = jnp.sum(state.piles, axis=0).astype(jnp.float32)
        total = jnp.sum(jnp.where(crafted, ground * resource_value, 0.0))
        return jnp.full((self.num_agents,), total / self.num_agents, jnp.float32)

    def _physical(self, state: State, actions: jax.Array, priority: jax.Array, params: Params) -> State:
        r = self.num_resources
        resource = jnp.arange(r)
        picked = (actions[:, None] == FIRST_PICK + resource).astype(jnp.int32)  # [N, R]
        dumped = (actions[:, None] == self.dump_at + resource).astype(jnp.int32)
        recipe = jnp.maximum(state.event[state.position], 0)
        inputs, outputs = params.recipe_inputs[recipe], params.recipe_outputs[recipe]
        crafts = (actions == PRODUCE) & _holds(state.inventory, inputs)
        inventory = state.inventory + picked - dumped + crafts[:, None] * (outputs - inputs)
        # a player picks or dumps one unit of one resource at most: one scalar per player is scattered
        # onto the ground, not a row of R
        picks, dumps = picked.any(axis=1), dumped.any(axis=1)
        which = jnp.argmax(picked | dumped, axis=1)
        cells = state.piles.shape[0]
        ground = state.piles.reshape(-1).at[state.position * r + which].add(dumps.astype(jnp.int32) - picks)
        return state._replace(
            inventory=inventory,
            piles=ground.reshape(cells, r),
            position=self._moves(state.position, actions, priority),
        )

    def _moves(self, position: jax.Array, actions: jax.Array, priority: jax.Array) -> jax.Array:
        """Greatest fixed point: a mover enters its target if it is the target's highest-priority mover and
        the target is empty or its occupant enters its own target, iterated from the winners (each pass
        only turns movers away, so at most one pass per player changes anything)."""
        size = self.size
        moving = actions < STAY
        offset = jnp.asarray(OFFSETS)[jnp.minimum(actions, 3)]
        x, y = position // size, position % size
        target = ((x + offset[:, 0]) % size) * size + (y + offset[:, 1]) % size
        contest = moving[None, :] & (target[None, :] == target[:, None])  # [i, k]: k also heads for i's target
        winner = moving & ~jnp.any(contest & (priority[None, :] > priority[:, None]), axis=1)
        occupied = position[None, :] == target[:, None]  # [i, k]: k stands on i's target
        has_occupant = occupied.any(axis=1)
        occupant = jnp.argmax(occupied, axis=1)

        enters = self._fixed_point(lambda enters: winner & (~has_occupant | enters[occupant]), winner)
        return jnp.where(enters, target, position)

    def _social(self, state: State, actions: jax.Array) -> dict[str, jax.Array]:
        """Propose/accept/end/request take effect, then matching, merging and normalisation: the new
        values of the `BONDS` fields."""
        n, players = self.num_agents, jnp.arange(self.num_agents)
        partner = jnp.maximum(state.partner, 0)
        claim_levels = jnp.arange(1, self.levels + 1, dtype=jnp.float32) / (self.levels + 1)
        proposing = (actions >= self.propose_at) & (actions < self.propose_at + self.levels)
        claims = claim_levels[jnp.clip(actions - self.propose_at, 0, self.levels - 1)]
        accepts = actions == self.accept_at
        closes = accepts | (actions == self.accept_at + 1)
        standing = state.proposal[partner]  # the partner's claim s
        # accepting scales the accepter's group by 1 − s and the proposer's group by s, at once
        factor = jnp.ones(n, jnp.float32)
        for side, value in ((players, 1.0 - standing), (partner, standing)):
            hits = accepts[:, None] & (state.group[side][:, None] == state.group[None, :]) & (state.group[None, :] >= 0)
            factor = factor * jnp.prod(jnp.where(hits, value[:, None], 1.0), axis=0)
        share = state.share * factor
        closed = closes | jnp.zeros(n, bool).at[partner].max(closes & (state.partner >= 0))
        proposal = jnp.where(proposing, claims, jnp.where(closed, 0.0, state.proposal))
        partner_after = jnp.where(closed, -1, state.partner)
        parity_after = jnp.where(closed, -1, state.parity)
        # matching: both invited each other this step; the lower id gets parity 0
        request = jnp.where((actions >= self.request_at) & (actions < self.accept_at), actions - self.request_at, -1)
        mutual = (request >= 0) & (request[jnp.maximum(request, 0)] == players)
        partner_after = jnp.where(mutual, request, partner_after)
        parity_after = jnp.where(mutual, (players > request).astype(jnp.int32), parity_after)
        proposal = jnp.where(mutual, 0.0, proposal)
        group, share, next_group = self._merge(state.group, share, state.next_group, accepts, partner, standing)
        same = (group[:, None] == group[None, :]) & (group[:, None] >= 0)
        total = same.astype(jnp.float32) @ share
        share = jnp.where(group >= 0, share / jnp.where(total > 0, total, 1.0), 0.0)
        return {
            "partner": partner_after,
            "parity": parity_after,
            "proposal": proposal,
            "group": group,
            "share": share,
            "next_group": next_group,
        }

    def _merge(
        self,
        group: jax.Array,
        share: jax.Array,
        next_group: jax.Array,
        accepts: jax.Array,
        partner: jax.Array,
        standing: jax.Array,
    ) -> Groups:
        """Accepted pairs join, in order of their lower id: a new group, a loner joining, or the higher
        id's group moving into the lower id's (`_each_pair`); a pass for a player who opens no pair
        changes nothing."""
        players = jnp.arange(self.num_agents)
        pairs = accepts[:, None] & (partner[:, None] == players[None, :])  # [accepter, proposer]
        pairs = pairs | pairs.T  # symmetric: i and j were one accepted pair
        # value each side takes into a group: 1 − s for the accepter, s for the proposer
        value = jnp.where(accepts, 1.0 - standing, (pairs & accepts[None, :]).astype(jnp.float32) @ standing)

        def join(first: jax.Array, groups: Groups) -> Groups:
            group, share, next_group = groups
            later = pairs[first] & (players > first)
            active = later.any()
            second = jnp.argmax(later)
            ga, gb = group[first], group[second]
            fresh = active & (ga < 0) & (gb < 0)
            joins_a, joins_b = active & (ga < 0) & (gb >= 0), active & (ga >= 0) & (gb < 0)
            absorb = active & (ga >= 0) & (gb >= 0) & (ga != gb)
            is_a, is_b = players == first, players == second
            group = jnp.where(absorb & (group == gb), ga, group)
            group = jnp.where(is_a & fresh, next_group, jnp.where(is_a & joins_a, gb, group))
            group = jnp.where(is_b & fresh, next_group, jnp.where(is_b & joins_b, ga, group))
            takes_value = (is_a & (fresh | joins_a)) | (is_b & (fresh | joins_b))
            return group, jnp.where(takes_value, value, share), next_group + fresh.astype(jnp.int32)

        opens = jnp.any(pairs & (players[None, :] > players[:, None]), axis=1)  # the lower id of a pair
        return self._each_pair(opens, join, (group, share, next_group))

    # --- the loops, as the CPU formulation runs them ------------------------------------------

    def _only_if(self, needed: jax.Array, compute: Callable[[], T], otherwise: T) -> T:
        """`compute()` where `needed`, else `otherwise`: no pass in a batch where no match needs it."""
        return only_if(needed, compute, otherwise)

    def _fixed_point(self, step: Callable[[jax.Array], jax.Array], start: jax.Array) -> jax.Array:
        """`step` applied from `start` until nothing changes (`step` only clears bits, and is monotone)."""

        def unsettled(carry: tuple[jax.Array, jax.Array]) -> jax.Array:
            return jnp.any(carry[0] != carry[1])

        def settle(carry: tuple[jax.Array, jax.Array]) -> tuple[jax.Array, jax.Array]:
            return carry[1], step(carry[1])

        settled: jax.Array = jax.lax.while_loop(unsettled, settle, (jnp.zeros_like(start), start))[1]
        return settled

    def _each_pair(self, opens: jax.Array, join: Callable[[jax.Array, Groups], Groups], groups: Groups) -> Groups:
        """`join` for each player that `opens` a pair, in id order, with no pass for the others. (A loop
        over the pairs' lower ids, with selects rather than scatters: cheap under vmap, and no pass at
        all on the many steps without an accepted pair. Unrolled over players, each pass read the
        others' groups of the pass before, and XLA on a CPU recomputed that chain for every entry.)"""
        players = jnp.arange(self.num_agents)

        def pending(carry: tuple[jax.Array, Groups]) -> jax.Array:
            return jnp.any(opens & (players >= carry[0]))

        def next_pair(carry: tuple[jax.Array, Groups]) -> tuple[jax.Array, Groups]:
            first = jnp.argmax(opens & (players >= carry[0]))
            return first + 1, join(first, carry[1])

        joined: Groups = jax.lax.while_loop(pending, next_pair, (jnp.int32(0), groups))[1]
        return joined

    def _distinct(self, key: jax.Array, count: int, n: int) -> jax.Array:
        """`n` distinct cells below `count` (`sampling.distinct_indices`)."""
        return distinct_indices(key, count, n)

    # --- observations ---------------------------------------------------------------------------

    def observe(self, state: State, params: Params) -> dict[str, jax.Array]:
        """Each player's RL observation (leading axis: players), the layout of the engine's `observation`."""
        return self.engine_layout(self.seen(state, params), params)

    def seen(self, state: State, params: Params) -> dict[str, jax.Array]:
        """What each player observes, each thing once: the grid's layers are the occupant, the number
        (1..K) of the recipe a visible event cell holds, and each resource's piles; the legal mask once.
        `engine_layout` spreads it into the engine's layout."""
        n, size, fov = self.num_agents, self.size, self.fov
        players = jnp.arange(n)
        span = jnp.arange(-fov, fov + 1)
        x, y = state.position // size, state.position % size
        rows = (x[:, None] + span[None, :]) % size
        cols = (y[:, None] + span[None, :]) % size
        cells = rows[:, :, None] * size + cols[:, None, :]  # [N, 2f+1, 2f+1]
        inside = (jnp.abs(span)[None, :, None] <= params.fov[:, None, None]) & (
            jnp.abs(span)[None, None, :] <= params.fov[:, None, None]
        )
        occupant = jnp.zeros(size * size, jnp.int32).at[state.position].set(players + 1)
        recipe = state.event[cells]  # [N, w, w]
        sees_event = (recipe >= 0) & _holds(
            state.inventory[:, None, None, :], params.recipe_requirements[jnp.maximum(recipe, 0)]
        )
        sees_pile = _holds(state.inventory[:, None, :], params.pick_requirements[None, :, :])  # [N, R]
        layers = [occupant[cells][:, None], jnp.where(sees_event, recipe + 1, 0)[:, None]]
        grid = jnp.concatenate([*layers, (state.piles[cells] * sees_pile[:, None, None, :]).transpose(0, 3, 1, 2)], 1)
        same = (state.group[:, None] == state.group[None, :]) & (state.group[:, None] >= 0)
        # who is invitable, every step, as the original lists it (even while one bargains, or in the physical phase)
        available = (state.partner < 0)[None, :] & ~jnp.eye(n, dtype=bool) & ~same
        partner = jnp.maximum(state.partner, 0)
        claim = jnp.where(state.partner >= 0, state.proposal[partner], 0.0)
        proposal = jnp.zeros((n, n), jnp.float32)
        if not self.config.zero_proposal_observation:
            proposal = proposal.at[players, partner].add(claim)
            proposal = proposal.at[players, players].add(jnp.where(claim > 0, 1.0 - claim, 0.0))
        split = jnp.where(state.group >= 0, state.share, 1.0)
        return {
            "grid_observation": jnp.where(inside[:, None], grid, 0),
            "inventory": state.inventory,
            "available_player": available,
            "final_split": jnp.broadcast_to(split, (n, n)),
            "time": jnp.broadcast_to(state.time, (n, 1)),
            "player_id": jnp.eye(n, dtype=bool),
            "legal_action_mask": self.legal_mask(state, params),
            "proposal": proposal,
            "social_state": jnp.broadcast_to(same & ~jnp.eye(n, dtype=bool), (n, n, n)),
        }

    def engine_layout(self, seen: Mapping[str, jax.Array], params: Params) -> dict[str, jax.Array]:
        """The engine's RL layout of `seen` (in either formulation's dtypes), as a network reads it: the
        grid with the original's always-zero second layer and each visible recipe's net output per
        resource, `action_mask` beside the legal mask, integers as int32 (the grid as int16)."""
        grid = seen["grid_observation"].astype(jnp.int32)
        recipe = grid[:, 1]  # [N, w, w]: 1..K, 0 for none
        net = params.recipe_outputs - params.recipe_inputs  # [K, R]
        made = jnp.where(recipe[..., None] > 0, net[jnp.maximum(recipe - 1, 0)], 0).transpose(0, 3, 1, 2)
        layers = [grid[:, :1], jnp.zeros_like(grid[:, :1]), made, grid[:, 2:]]
        mask = seen["legal_action_mask"]
        return {
            "grid_observation": jnp.concatenate(layers, axis=1).astype(jnp.int16),
            "inventory": seen["inventory"].astype(jnp.int32),
            "available_player": seen["available_player"].astype(jnp.int32),
            "final_split": seen["final_split"],
            "time": seen["time"].astype(jnp.int32),
            "player_id": seen["player_id"].astype(jnp.int32),
            "action_mask": mask.astype(jnp.int32),
            "legal_action_mask": mask,
            "proposal": seen["proposal"],
            "social_state": seen["social_state"].astype(jnp.int32),
        }

    def sample_actions(self, key: jax.Array, state: State, params: Params) -> jax.Array:
        """Uniformly random legal actions for every player (the `random` policy): one uniform draw per
        player picks the k-th legal action, far cheaper than a Gumbel draw per action."""
        return uniform_set_bit(key, self.legal_bits(state, params), self.num_actions)

    # --- at an engine table -----------------------------------------------------------------------

    def table_observation(self, turn: Mapping[str, Any]) -> dict[str, np.ndarray]:
        """This seat's row of `observe`, rebuilt from its turn state at an engine table: the view carries
        the engine's RL observation (`views.rl_observation`), whose window spans the seat's own field of
        view; the kernel's spans the widest job's, zero outside the seat's."""
        seen = turn["view"]["observation"]
        layers = np.asarray(seen["grid_observation"], np.int16)
        pad = self.fov - layers.shape[-1] // 2
        mask = np.asarray(seen["action_mask"], np.int32)
        return {
            "grid_observation": np.pad(layers, ((0, 0), (pad, pad), (pad, pad))),
            "inventory": np.asarray(seen["inventory"], np.int32),
            "available_player": np.asarray(seen["available_player"], np.int32),
            "final_split": np.asarray(seen["final_split"], np.float32),
            "time": np.asarray(seen["time"], np.int32),
            "player_id": np.asarray(seen["player_id"], np.int32),
            "action_mask": mask,
            "legal_action_mask": mask.astype(bool),
            "proposal": np.asarray(seen["proposal"], np.float32),
            "social_state": np.asarray(seen["social_state"], np.int32),
        }

    def table_action(self, action: np.ndarray, turn: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
        """The engine move of an action index (`encoding.decode`, players named in seat order)."""
        players = [player["agent_id"] for player in turn["view"]["players"]]
        return decode(self.config, players, int(action))


def _holds(inventory: jax.Array, needed: jax.Array) -> jax.Array:
    return jnp.all(inventory >= needed, axis=-1)
