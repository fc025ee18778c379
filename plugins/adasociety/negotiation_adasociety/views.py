"""What one player sees: its egocentric window, inventory, the social state and its legal actions.

`player_view` is the structured view the arena sends; `rl_observation` is the same information in
the RL layout of the original (and of the JAX kernel); `prompt_lines` renders the view as text for
language-model agents, with the window drawn as a character grid.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from negotiation_adasociety.game import AdaSocietyGame


def window_cells(game: AdaSocietyGame, player: int) -> list[list[int]]:
    """Cell indices of the player's (2·fov+1)² window, row by row, centred on it, wrapped on the torus."""
    size, fov = game.rules.size, game.settings.player_jobs()[player].fov
    x, y = divmod(game.world.position[player], size)
    return [[((x + dx) % size) * size + (y + dy) % size for dy in range(-fov, fov + 1)] for dx in range(-fov, fov + 1)]


def rl_observation(game: AdaSocietyGame, player: int) -> dict[str, Any]:
    """The original's RL observation with its two bugs fixed (see the plugin's README):
    `proposal` holds the standing claims (zero with `zero_proposal_observation`) and `social_state`
    the same-group adjacency. Piles on one cell are summed."""
    world, rules, society, config = game.world, game.rules, game.society, game.settings
    count, resources = len(game.players), rules.num_resources
    occupant = {cell: i for i, cell in enumerate(world.position)}
    cells = window_cells(game, player)
    layers: list[list[list[int]]] = [[[occupant[c] + 1 if c in occupant else 0 for c in row] for row in cells]]
    layers.append([[0 for _ in row] for row in cells])
    nothing = [0] * resources
    seen_recipes = [
        rules.recipe_delta[k] if world.sees_recipe(player, k) else nothing for k in range(len(rules.recipe_delta))
    ]
    event_at = world.event_at
    for r in range(resources):
        layers.append([[seen_recipes[event_at[c]][r] if event_at[c] >= 0 else 0 for c in row] for row in cells])
    for r in range(resources):
        visible = world.sees_pile(player, r)
        layers.append([[world.piles[c][r] if visible else 0 for c in row] for row in cells])
    invitable = set(society.invitable(player))  # every step, as the original's RL observation lists it
    proposal = [0.0] * count
    partner = society.partner(player)
    claim = None if partner is None else society.proposal(partner)
    if claim is not None and not config.zero_proposal_observation:
        proposal[partner] = claim  # type: ignore[index]
        proposal[player] = 1.0 - claim
    groups = [society.group_of(i) for i in range(count)]
    return {
        "grid_observation": layers,
        "inventory": list(world.inventory[player]),
        "available_player": [int(i in invitable) for i in range(count)],
        "final_split": [society.share(i) if groups[i] is not None else 1.0 for i in range(count)],
        "time": [game.step],
        "player_id": [int(i == player) for i in range(count)],
        "action_mask": [int(flag) for flag in game.legal_mask(game.players[player])],
        "proposal": proposal,
        "social_state": [
            [int(i != j and groups[i] is not None and groups[i] == groups[j]) for j in range(count)]
            for i in range(count)
        ],
    }


def player_view(game: AdaSocietyGame, player: int) -> dict[str, Any]:
    world, rules, society, config = game.world, game.rules, game.society, game.settings
    names, size, players = config.resource_names, rules.size, game.players
    cells = [c for row in window_cells(game, player) for c in row]
    seen = list(dict.fromkeys(cells))
    partner = society.partner(player)
    return {
        **_clock(game),
        "you": {
            "agent_id": players[player],
            "index": player,
            "name": society.graph.nodes[player]["name"],
            "job": game.jobs[player],
            "position": list(divmod(world.position[player], size)),
            "inventory": dict(zip(names, world.inventory[player], strict=True)),
            "caps": dict(zip(names, rules.caps[player], strict=True)),
            "values": dict(zip(names, rules.values[player], strict=True)),
        },
        "players": [
            {"agent_id": agent, "index": i, "name": society.graph.nodes[i]["name"], "job": game.jobs[i]}
            for i, agent in enumerate(players)
        ],
        "window": render_window(game, player),
        "visible_piles": [
            {"resource": names[r], "amount": world.piles[c][r], "position": list(divmod(c, size))}
            for c in seen
            for r in range(rules.num_resources)
            if world.piles[c][r] > 0 and world.sees_pile(player, r)
        ],
        "visible_events": [
            {"recipe": config.recipes[world.visible_event(player, c)].name, "position": list(divmod(c, size))}
            for c in seen
            if world.visible_event(player, c) >= 0
        ],
        "visible_players": [
            {"agent_id": players[i], "position": list(divmod(world.position[i], size))}
            for i in range(len(players))
            if i != player and world.position[i] in seen
        ],
        "invitable": [players[j] for j in society.invitable(player)] if game.negotiating else [],
        "bargaining": None
        if partner is None
        else {
            "partner": players[partner],
            "your_turn": society.on_turn(player, game.step),
            "your_claim": society.proposal(player),
            "partner_claim": society.proposal(partner),
        },
        "bargains": _bargains(game),
        "groups": society.summary(),
        "reward": {"last_step": game.last_rewards[player], "total": game.totals[player]},
        "observation": rl_observation(game, player),
    }


def public_view(game: AdaSocietyGame) -> dict[str, Any]:
    """What a spectator may see while the match runs: only what every player sees whatever it holds.

    The bargains and groups are shown to everyone. The map is common knowledge only when every
    job's window covers the whole torus: then the positions, the piles of resources that need
    nothing to be seen, and the event cells of recipes that need nothing to be seen are public.
    Inventories, rewards and anything seen only by holding something stay private.
    """
    world, rules, society, config = game.world, game.rules, game.society, game.settings
    names, size, players = config.resource_names, rules.size, game.players
    whole_map = all(2 * job.fov + 1 >= size for job in config.player_jobs())
    cells = range(size * size) if whole_map else range(0)
    open_resources = [r for r in range(rules.num_resources) if not any(rules.pick_requirements[r])]
    return {
        **_clock(game),
        "map_public": whole_map,
        "resources": list(names),
        "players": [
            {
                "agent_id": agent,
                "index": i,
                "name": society.graph.nodes[i]["name"],
                "job": game.jobs[i],
                "position": list(divmod(world.position[i], size)) if whole_map else None,
            }
            for i, agent in enumerate(players)
        ],
        "piles": [
            {"resource": names[r], "amount": world.piles[c][r], "position": list(divmod(c, size))}
            for c in cells
            for r in open_resources
            if world.piles[c][r] > 0
        ],
        "events": [
            {"recipe": config.recipes[k].name, "position": list(divmod(c, size))}
            for c in cells
            if (k := world.event_at[c]) >= 0 and not any(rules.recipe_requirements[k])
        ],
        "bargains": _bargains(game),
        "groups": society.summary(),
    }


def _clock(game: AdaSocietyGame) -> dict[str, Any]:
    """Where the match stands, as every view shows it."""
    config = game.settings
    return {
        "step": game.step,
        "phase": "negotiation" if game.negotiating else "physical",
        "negotiation_steps": config.negotiation_steps,
        "max_length": config.max_length,
        "map_size": config.map_size,
    }


def _bargains(game: AdaSocietyGame) -> list[dict[str, Any]]:
    """Every pair bargaining now with both standing claims (shown to everyone, as in the original)."""
    society, players = game.society, game.players
    return [
        {"players": [players[i], players[j]], "claims": [society.proposal(i), society.proposal(j)]}
        for i in range(len(players))
        if (j := society.partner(i)) is not None and i < j
    ]


def render_window(game: AdaSocietyGame, player: int) -> list[str]:
    """The window as text rows: @ you, digits other players, a resource's letter for a pile, * an event."""
    world, names = game.world, game.settings.resource_names
    symbols = _resource_symbols(names)
    occupant = {cell: i for i, cell in enumerate(world.position)}
    rows = []
    for row in window_cells(game, player):
        text = []
        for cell in row:
            piles = [r for r in range(len(names)) if world.piles[cell][r] > 0 and world.sees_pile(player, r)]
            if occupant.get(cell) == player:
                text.append("@")
            elif cell in occupant:
                text.append(str(occupant[cell]) if occupant[cell] < 10 else "P")
            elif piles:
                text.append(symbols[max(piles, key=lambda r: world.piles[cell][r])])
            elif world.visible_event(player, cell) >= 0:
                text.append("*")
            else:
                text.append(".")
        rows.append(" ".join(text))
    return rows


def _resource_symbols(names: tuple[str, ...]) -> list[str]:
    initials = [name[0].upper() for name in names]
    if len(set(initials)) == len(initials):
        return initials
    return [chr(ord("a") + r) for r in range(len(names))]


def prompt_lines(view: dict[str, Any]) -> list[str]:
    """The view in sentences, for language-model agents."""
    you = view["you"]
    lines = [
        f"Step {view['step']} of {view['max_length']} ({view['phase']} phase; negotiation lasts steps "
        f"0..{view['negotiation_steps'] - 1}).",
        f"You are {you['name']} (agent id {you['agent_id']}, job {you['job']}) at row {you['position'][0]}, "
        f"column {you['position'][1]} of a {view['map_size']}×{view['map_size']} torus.",
        f"Inventory: {you['inventory']}; caps: {you['caps']}; your unit values: {you['values']}.",
        "Your view (rows top to bottom; @ you, digits players by index, letters piles, * event cells, . empty):",
        *(f"    {row}" for row in view["window"]),
        "Players: " + ", ".join(f"{p['index']} = {p['agent_id']} ({p['name']})" for p in view["players"]) + ".",
        "Piles in view: "
        + (
            ", ".join(f"{p['amount']} {p['resource']} at {tuple(p['position'])}" for p in view["visible_piles"])
            or "none"
        )
        + ".",
        "Groups: "
        + (
            "; ".join(", ".join(f"{agent} {share:.3f}" for agent, share in g["shares"].items()) for g in view["groups"])
            or "none"
        )
        + ".",
        f"Reward last step {view['reward']['last_step']:g}, total {view['reward']['total']:g}.",
    ]
    if view["phase"] == "negotiation":
        bargain = view["bargaining"]
        if bargain is None:
            lines.append(f"You have no partner; invitable now: {view['invitable'] or 'nobody'}.")
        else:
            claim = bargain["partner_claim"]
            standing = "no standing proposal" if claim is None else f"claims {claim:g}, you would get {1 - claim:g}"
            turn = "your turn" if bargain["your_turn"] else "not your turn"
            lines.append(f"You are bargaining with {bargain['partner']}, who {standing}; it is {turn}.")
    return lines
