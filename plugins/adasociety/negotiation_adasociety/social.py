"""The social graph: matching, bargaining, groups and shares, kept in a `networkx.DiGraph`.

Nodes are the players (by seat index, with their agent id and job as attributes) and the groups
(`("group", g)`, ids never reused). Edges: group → member with `share`; player → bargaining
partner with `parity` and, once it proposed, `proposal` (the share it claims for itself). The
graph is the state; requests and accepts of the current step live only until its post-update,
as the original's temporary edges do. Users get the graph in a match's result and can run any
networkx analysis on the coalitions.
"""

from __future__ import annotations

from typing import Any

import networkx as nx

Group = tuple[str, int]


class Society:
    def __init__(self, agent_ids: list[str], jobs: list[str]) -> None:
        self.graph = nx.DiGraph()
        for index, (agent_id, job) in enumerate(zip(agent_ids, jobs, strict=True)):
            self.graph.add_node(index, kind="player", agent_id=agent_id, job=job, name=f"{job}_{index}")
        self.size = len(agent_ids)
        self.next_group = 0
        self.requests: dict[int, int] = {}
        self.accepts: list[tuple[int, int, float, float]] = []
        """(accepter, proposer, accepter's value, proposer's value) in the order they happened this step."""

    # --- reading --------------------------------------------------------------------------

    def group_of(self, player: int) -> Group | None:
        return next((node for node in self.graph.predecessors(player) if isinstance(node, tuple)), None)

    def share(self, player: int) -> float:
        group = self.group_of(player)
        return float(self.graph.edges[group, player]["share"]) if group is not None else 0.0

    def members(self, group: Group) -> list[int]:
        return sorted(self.graph.successors(group))

    def groups(self) -> list[Group]:
        return sorted(node for node in self.graph.nodes if isinstance(node, tuple))

    def partner(self, player: int) -> int | None:
        return next((node for node in self.graph.successors(player) if isinstance(node, int)), None)

    def parity(self, player: int) -> int | None:
        partner = self.partner(player)
        return None if partner is None else int(self.graph.edges[player, partner]["parity"])

    def proposal(self, player: int) -> float | None:
        """The share `player` claims for itself in its standing proposal, if it made one."""
        partner = self.partner(player)
        return None if partner is None else self.graph.edges[player, partner].get("proposal")

    def invitable(self, player: int) -> list[int]:
        """Whom `player` may invite: anyone else not in its group and not bargaining."""
        group = self.group_of(player)
        return [
            other
            for other in range(self.size)
            if other != player and self.partner(other) is None and (group is None or self.group_of(other) != group)
        ]

    def on_turn(self, player: int, step: int) -> bool:
        parity = self.parity(player)
        return parity is not None and step % 2 == parity

    # --- actions (take effect at once, in seat order) --------------------------------------

    def request(self, player: int, other: int) -> None:
        self.requests[player] = other

    def propose(self, player: int, claim: float) -> None:
        partner = self.partner(player)
        assert partner is not None
        self.graph.edges[player, partner]["proposal"] = claim

    def accept(self, player: int) -> None:
        """Take the partner's standing claim s: this side's group is scaled by 1−s, the partner's by s, now."""
        partner = self.partner(player)
        assert partner is not None
        claim = self.graph.edges[partner, player]["proposal"]
        values = [self._scale(player, 1.0 - claim), self._scale(partner, claim)]
        self.accepts.append((player, partner, values[0], values[1]))
        self.end(player)

    def end(self, player: int) -> None:
        partner = self.partner(player)
        assert partner is not None
        self.graph.remove_edge(player, partner)
        self.graph.remove_edge(partner, player)

    def _scale(self, player: int, factor: float) -> float:
        group = self.group_of(player)
        if group is None:
            return factor
        for member in self.members(group):
            self.graph.edges[group, member]["share"] *= factor
        return self.share(player)

    # --- post-update, once per step, after everyone acted ----------------------------------

    def post_update(self) -> None:
        """Matching, then merging accepted pairs into groups, then normalising shares; requests lapse."""
        for player, other in sorted(self.requests.items()):
            if player < other and self.requests.get(other) == player:
                self.graph.add_edge(player, other, parity=0)
                self.graph.add_edge(other, player, parity=1)
        self.requests.clear()
        touched: set[Group] = set()
        pairs = sorted((a, p, va, vp) if a < p else (p, a, vp, va) for a, p, va, vp in self.accepts)
        for first, second, first_value, second_value in pairs:
            touched.add(self._merge(first, second, first_value, second_value))
        self.accepts.clear()
        # in id order, not the set's hash order; a group merged away later in the step is gone
        for group in sorted(touched & set(self.graph.nodes)):
            members = self.members(group)
            total = sum(self.graph.edges[group, m]["share"] for m in members)
            for member in members:
                self.graph.edges[group, member]["share"] /= total

    def _merge(self, first: int, second: int, first_value: float, second_value: float) -> Group:
        """Join an accepted pair (`first` the lower id): a new group, a loner joining a group, or the
        higher id's group moving into the lower id's group."""
        group_a, group_b = self.group_of(first), self.group_of(second)
        if group_a is None and group_b is None:
            group = ("group", self.next_group)
            self.next_group += 1
            self.graph.add_node(group, kind="group")
            self.graph.add_edge(group, first, share=first_value)
            self.graph.add_edge(group, second, share=second_value)
            return group
        if group_a is None and group_b is not None:
            self.graph.add_edge(group_b, first, share=first_value)
            return group_b
        if group_b is None and group_a is not None:
            self.graph.add_edge(group_a, second, share=second_value)
            return group_a
        assert group_a is not None and group_b is not None
        if group_a != group_b:
            for member in self.members(group_b):
                self.graph.add_edge(group_a, member, share=self.graph.edges[group_b, member]["share"])
            self.graph.remove_node(group_b)
        return group_a

    def split(self, rewards: list[float]) -> list[float]:
        """Each group pools its members' rewards and pays the pool out by shares; loners keep theirs."""
        paid = list(rewards)
        for group in self.groups():
            members = self.members(group)
            pool = sum(rewards[m] for m in members)
            for member in members:
                paid[member] = pool * self.graph.edges[group, member]["share"]
        return paid

    # --- export ---------------------------------------------------------------------------

    def arrays(self) -> dict[str, list[Any]]:
        """The kernel's social arrays: partner, parity, proposal, group id and share per player."""
        players = range(self.size)
        groups = [self.group_of(p) for p in players]
        return {
            "partner": [-1 if (q := self.partner(p)) is None else q for p in players],
            "parity": [-1 if (q := self.parity(p)) is None else q for p in players],
            "proposal": [self.proposal(p) or 0.0 for p in players],
            "group": [-1 if g is None else g[1] for g in groups],
            "share": [self.share(p) for p in players],
        }

    def summary(self) -> list[dict[str, Any]]:
        """Groups with their members (agent ids) and shares, for views and results."""
        agent = nx.get_node_attributes(self.graph, "agent_id")
        return [
            {"group": g[1], "shares": {agent[m]: self.graph.edges[g, m]["share"] for m in self.members(g)}}
            for g in self.groups()
        ]

    def export(self) -> dict[str, Any]:
        """The graph as networkx node-link data with JSON-safe node ids (players: agent ids; groups: group:g)."""
        agent = nx.get_node_attributes(self.graph, "agent_id")
        labelled = nx.relabel_nodes(self.graph, lambda n: f"group:{n[1]}" if isinstance(n, tuple) else agent[n])
        data: dict[str, Any] = nx.node_link_data(labelled, edges="edges")
        return data
