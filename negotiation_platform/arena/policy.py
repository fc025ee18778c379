"""`ArenaPolicy`: what an arena allows and guarantees, in-process (trusting) or served (shared, hostile).

In-process (tests, the CLI's `play`) every seat belongs to one host, so the arena is reproducible:
a match's draws come from the seed it was started with, and there are no clocks or limits. A
served arena is shared by strangers, so `ArenaPolicy.served()` turns on what protects them:

* **Seeds.** Unless the server runs with `--reproducible`, a match's draws (every seat's private
  values, BATNAs, hands) come from HMAC(server secret, match id and the client's seed or fresh
  randomness): the match creator's seed cannot reproduce another seat's secrets, and two matches
  never share draws. The seed actually used is revealed only in `get_result` once the match is
  over, so a finished match can still be replayed.
* **Turn clock.** Every seat that must act has `turn_timeout` seconds to do something; then its
  default move is played and logged as a timeout event, so a dead client cannot stall a match.
* **Limits.** At most `max_live_matches` unfinished matches, at most `max_live_per_caller` of
  them holding a seat of one caller and `max_live_per_address` of one address, at most
  `max_waiting_per_caller` matches waiting for players per caller (see `arena.limits` for what a
  caller is and what counts), and finished matches leave memory after `finished_ttl` (as do
  matches still waiting for players that long after their last seat was taken).
* **Spectators.** Anyone may watch a match's public events; a seat's private messages, sealed moves
  and own view stay hidden, even after the end unless the server is told to reveal finished
  matches (`reveal_finished`).
* **Steps off the event loop.** Each step of a match (an action, a message, a clock running out)
  runs in a worker thread, so one slow game never stalls the server's other matches. In-process
  the host owns every seat and a thread hop costs more than a step of most games, so steps run
  on the loop.
* **Remote agents.** `a2a:URL` opponents are refused unless the URL is under an allowed prefix
  (same scheme, host and port, and a path under the prefix's; `allowlist` says how URLs are
  compared), and a remote seat contacts nothing else (its card's endpoints and any redirect are
  checked too), so callers cannot make the server fetch arbitrary URLs.
* **Operator's agents.** Agents that spend the operator's model budget or read its files (`llm:`,
  `mcp-llm:`, `policy:`) are seated only by the operator, unless it offers clients an exact spec
  (`offered_agents`); see `negotiation_platform.agents.seating`.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from negotiation_platform.wire.allowlist import AllowList
from negotiation_platform.wire.boundary import MAX_SAFE_INTEGER

DEFAULT_TURN_TIMEOUT = 120.0
DEFAULT_MAX_LIVE_MATCHES = 1000
DEFAULT_MAX_WAITING_PER_CALLER = 10
CALLER_SHARE = 10
"""By default one caller may hold a seat in a tenth of `max_live_matches` (100 of 1000)..."""
ADDRESS_SHARE = 4
"""...and the callers of one address in a quarter (250 of 1000): no one can lock the others out."""
DEFAULT_FINISHED_TTL = 3600.0
MAX_SEED = MAX_SAFE_INTEGER
"""Largest seed magnitude: every integer a JavaScript client reads (a float64) must come back exact."""


@dataclass(frozen=True)
class ArenaPolicy:
    reproducible: bool = True
    turn_timeout: float | None = None
    max_live_matches: int | None = None
    max_waiting_per_caller: int | None = None
    finished_ttl: float | None = None
    max_live_per_caller: int | None = None
    max_live_per_address: int | None = None
    remote_agents: AllowList | None = None
    """URLs remote (`a2a:URL`) opponents may live under and be reached at; None allows any (in-process only)."""
    offered_agents: frozenset[str] = frozenset()
    """Opponent specs a client may name although only the operator seats their kind (`--offer-opponent`)."""
    reveal_finished: bool = False
    """Whether spectators of a finished match see its private events and every seat's view."""
    steps_in_thread: bool = False
    """Run each step of a match in a worker thread (a server: no game can stall the others)."""
    play_base_url: str | None = None
    """Where the play page is served (`http://HOST:PORT`): seats get their `play_url` there; None: no links."""
    secret: bytes = field(default_factory=lambda: secrets.token_bytes(32), repr=False)

    @classmethod
    def served(
        cls,
        *,
        reproducible: bool = False,
        turn_timeout: float | None = DEFAULT_TURN_TIMEOUT,
        max_live_matches: int | None = DEFAULT_MAX_LIVE_MATCHES,
        max_waiting_per_caller: int | None = DEFAULT_MAX_WAITING_PER_CALLER,
        finished_ttl: float | None = DEFAULT_FINISHED_TTL,
        max_live_per_caller: int | None = None,
        max_live_per_address: int | None = None,
        remote_agents: Iterable[str] = (),
        offered_agents: Iterable[str] = (),
        reveal_finished: bool = False,
        play_base_url: str | None = None,
    ) -> ArenaPolicy:
        """The policy of an arena shared over a network: secret draws, clocks, limits, no remote fetches.
        Per-caller and per-address limits left None are shares of `max_live_matches` (see CALLER_SHARE)."""
        if max_live_matches is not None:
            max_live_per_caller = max_live_per_caller or max(1, max_live_matches // CALLER_SHARE)
            max_live_per_address = max_live_per_address or max(max_live_per_caller, max_live_matches // ADDRESS_SHARE)
        return cls(
            reproducible=reproducible,
            turn_timeout=turn_timeout,
            max_live_matches=max_live_matches,
            max_waiting_per_caller=max_waiting_per_caller,
            finished_ttl=finished_ttl,
            max_live_per_caller=max_live_per_caller,
            max_live_per_address=max_live_per_address,
            remote_agents=AllowList.of(remote_agents),
            offered_agents=frozenset(offered_agents),
            reveal_finished=reveal_finished,
            steps_in_thread=True,
            play_base_url=play_base_url,
        )

    def match_seed(self, match_id: str, client_seed: int | None) -> int:
        """The seed a match's draws come from (see the module docstring for why it is derived)."""
        if self.reproducible:
            return client_seed if client_seed is not None else secrets.randbelow(2**31)
        material = f"{match_id}:{client_seed if client_seed is not None else secrets.token_hex(16)}"
        digest = hmac.new(self.secret, material.encode(), hashlib.sha256).digest()
        return int.from_bytes(digest[:7], "big") >> 3  # 53 bits: at most MAX_SEED

    def limits(self) -> dict[str, Any]:
        """What `list_matches` tells callers about this arena's limits."""
        return {
            "max_live_matches": self.max_live_matches,
            "max_live_per_caller": self.max_live_per_caller,
            "max_live_per_address": self.max_live_per_address,
            "max_waiting_per_caller": self.max_waiting_per_caller,
            "finished_ttl_seconds": self.finished_ttl,
            "turn_timeout_seconds": self.turn_timeout,
            "reproducible_seeds": self.reproducible,
            "reveals_finished_matches": self.reveal_finished,
        }
