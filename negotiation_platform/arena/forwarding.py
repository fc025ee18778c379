"""Forwarding a call to the arena process that holds its match, so that any process answers any call.

With several arena processes on one store, a call that changes a match (`FORWARDED`) is played by
the process holding the match's lease; any other refuses it with `wrong_owner`. With a peer secret
(`--peer-secret-file`), `run_operation` forwards such a call instead: the same operation, arguments
and caller go to the holder, and its answer (its result, or its structured refusal) is the answer.
A plain round-robin balancer in front of N processes then works. Reads need no forwarding: every
process reads every match from the store, waits included.

The network is hostile, so:

* The holder's address is its `--instance` URL as the store's lease row names it, read again from
  the store for each forwarded call: never from a request. Only an http(s) URL is ever contacted,
  and only at its origin's `PEER_PATH`.
* Each forwarded request is signed with the shared secret (HMAC-SHA256 over a timestamp and the
  body; see `peer_route`, which checks it in constant time, within `MAX_SKEW_SECONDS`, once), so
  nobody without the secret can speak for a caller (and so dodge or spend its per-caller limits),
  and the secret itself never travels.
* The holder's answer is hostile input too (`peer_answer`): bounded in size and time, and taken only
  in the shared answer models; anything else is a `wrong_owner` refusal saying what was wrong.
* One hop at most: a call that came from a peer is never forwarded again (`HOP`); if its holder
  lost the match meanwhile, the answer is `wrong_owner`.

Without a peer secret nothing is forwarded and `wrong_owner` names the holder, as before.
"""

from __future__ import annotations

import hashlib
import hmac
import importlib.util
import logging
import time
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, get_args
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, ValidationError

from negotiation_platform.arena.limits import CALLER, Caller
from negotiation_platform.arena.peer_answer import ANSWER_SECONDS, AnswerModels, BadAnswer, answer_of, post
from negotiation_platform.errors import CannotStart, ErrorCode, NegotiationError

if TYPE_CHECKING:
    import httpx

    from negotiation_platform.arena.arena import Arena
    from negotiation_platform.arena.persistence import Persistence

PEER_PATH = "/peer/operation"
"""Where a process that has a peer secret takes calls forwarded by its peers (see `peer_route`)."""
TIME_HEADER = "x-negotiation-peer-time"
SIGNATURE_HEADER = "x-negotiation-peer-signature"
MAX_SKEW_SECONDS = 30.0
"""How old (or how far ahead, between two hosts' clocks) a signed request may be."""
MIN_SECRET_BYTES = 16
CONNECT_SECONDS = 5.0
Forwardable = Literal[
    "join_game", "leave_game", "send_public_message", "send_private_message", "perform_action", "bind_context"
]
"""The operations that change a match, and so are played only by its holder; and `Arena.bind_context`
(not an operation: A2A binds a new seat's context with it, see `bind_context` here)."""
FORWARDED = frozenset(get_args(Forwardable))
HOP: ContextVar[bool] = ContextVar("negotiation_peer_hop", default=False)
"""Set while a call forwarded by a peer runs: it is never forwarded again."""
log = logging.getLogger(__name__)


class PeerCaller(BaseModel):
    """The original caller (`limits.Caller`), so the holder counts the per-caller limits by it."""

    model_config = ConfigDict(extra="forbid", strict=True)
    address: str
    session: str | None = None


class ForwardedCall(BaseModel):
    """The body of a forwarded call: nothing in it says where to send anything."""

    model_config = ConfigDict(extra="forbid", strict=True)
    operation: Forwardable
    arguments: dict[str, Any]
    caller: PeerCaller | None = None


def signature(secret: bytes, stamp: str, body: bytes) -> str:
    """HMAC-SHA256 of `stamp`, a newline and `body`, in hex."""
    return hmac.new(secret, stamp.encode() + b"\n" + body, hashlib.sha256).hexdigest()


def peer_endpoint(owner: str | None) -> str | None:
    """Where a lease's owner takes forwarded calls: its http(s) URL's origin plus `PEER_PATH`; None
    for an owner that is not such a URL (an instance named otherwise is never contacted)."""
    if owner is None:
        return None
    try:
        parts = urlsplit(owner)
        parts.port  # noqa: B018 (raises on a port that is not a number)
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname or "@" in parts.netloc:
        return None
    return f"{parts.scheme}://{parts.netloc}{PEER_PATH}"


class Peers:
    """What a process needs to forward: the shared secret, and the store whose leases name the holders."""

    def __init__(self, secret: bytes, persistence: Persistence, answers: AnswerModels) -> None:
        self.secret = secret
        self.persistence = persistence
        self.answers = answers
        self._client: httpx.AsyncClient | None = None

    async def holder(self, match_id: str) -> str | None:
        """The owner of the match's lease, as stored now."""
        store = self.persistence.store
        return await self.persistence.read(lambda: store.owner(match_id))

    async def send(self, name: str, endpoint: str, call: ForwardedCall) -> dict[str, Any]:
        """POST the signed call to `endpoint`; the peer's result for operation `name`, or its refusal
        raised (see `peer_answer`: `BadAnswer` for an answer that is neither)."""
        import httpx

        if self._client is None:  # made on the serving loop; proxies from the environment never see peer calls
            self._client = httpx.AsyncClient(
                timeout=httpx.Timeout(ANSWER_SECONDS, connect=CONNECT_SECONDS), trust_env=False
            )
        body = call.model_dump_json().encode()
        stamp = repr(time.time())
        headers = {
            "content-type": "application/json",
            TIME_HEADER: stamp,
            SIGNATURE_HEADER: signature(self.secret, stamp, body),
        }
        return answer_of(name, await post(self._client, endpoint, body, headers), self.answers)


async def forward(
    arena: Arena, name: str, arguments: dict[str, Any], caller: Caller | None, refused: NegotiationError
) -> dict[str, Any]:
    """The holder's answer to a call this process refused with `refused` (`wrong_owner`); raises
    `refused` itself where nothing may be forwarded (no peer secret, a call from a peer, an operation
    that changes nothing, a holder that is not an http(s) URL or is this process)."""
    peers = arena.peers
    match_id = arguments.get("match_id")
    if peers is None or HOP.get() or name not in FORWARDED or not isinstance(match_id, str):
        raise refused
    owner = await peers.holder(match_id)
    endpoint = peer_endpoint(owner)
    if endpoint is None or owner == peers.persistence.owner:
        raise refused
    call = ForwardedCall.model_validate(
        {
            "operation": name,
            "arguments": arguments,
            "caller": None if caller is None else {"address": caller.address, "session": caller.session},
        }
    )
    try:
        return await peers.send(name, endpoint, call)
    except NegotiationError:
        raise  # the holder's own refusal, in the shared error model
    except BadAnswer as wrong:
        log.warning("%s on match %s: the answer of %s was refused: %s", name, match_id, owner, wrong)
        raise NegotiationError(
            ErrorCode.WRONG_OWNER,
            f"Match {match_id} is played on another arena process ({owner}), whose answer was not an arena "
            f"answer ({wrong}); nothing is known of what it did: read the match's state before trying again.",
            owner=owner,
        ) from None
    except Exception as failure:  # any other failure of the peer or of the network is one refusal
        why = f"{type(failure).__name__}: {failure}"  # the peer's URL at most: the secret is never in it
        log.warning("could not forward %s on match %s to %s: %s", name, match_id, owner, why)
        raise NegotiationError(
            ErrorCode.WRONG_OWNER,
            f"Match {match_id} is played on another arena process ({owner}), which could not be reached; "
            "try again (if that process is gone, another takes the match over once its lease expires).",
            owner=owner,
        ) from None


async def changed(arena: Arena, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """The arena's operation `name` (one that changes a match) with `arguments`, played by the match's
    holder where another process holds it (as `run_operation` does): for the play page, which calls
    the arena itself."""
    try:
        result: dict[str, Any] = await getattr(arena, name)(**arguments)
    except NegotiationError as refused:
        if refused.code is not ErrorCode.WRONG_OWNER:
            raise
        return await forward(arena, name, arguments, CALLER.get(), refused)
    return result


async def bind_context(arena: Arena, match_id: str, token: str) -> str:
    """`Arena.bind_context`, made by the match's holder where another process holds it (as `forward`)."""
    try:
        return await arena.bind_context(match_id, token)
    except NegotiationError as refused:
        if refused.code is not ErrorCode.WRONG_OWNER:
            raise
        bound = await forward(arena, "bind_context", {"match_id": match_id, "token": token}, None, refused)
        context_id: str = bound["context_id"]  # checked by `peer_answer.BoundContext`
        return context_id


def read_secret(path: str) -> bytes:
    """The peer secret in the file at `path` (stripped), or `CannotStart` saying why it cannot be used."""
    try:
        secret = Path(path).read_text(encoding="utf-8").strip().encode()
    except (OSError, UnicodeError) as exc:
        raise CannotStart(f"cannot read --peer-secret-file {path}: {getattr(exc, 'strerror', None) or exc}") from None
    if len(secret) < MIN_SECRET_BYTES:
        raise CannotStart(f"--peer-secret-file {path} must hold at least {MIN_SECRET_BYTES} characters")
    return secret


def peers_for(
    secret_file: str | None, instance: str | None, persistence: Persistence | None, answers: AnswerModels
) -> Peers | None:
    """The `Peers` of `--peer-secret-file` (None without one), reading each peer's answer by `answers`;
    it needs `--instance` to be the URL peers reach this process at, and a store (`CannotStart` otherwise)."""
    if secret_file is None:
        return None
    if peer_endpoint(instance) is None:
        raise CannotStart(
            "--peer-secret-file needs --instance URL: the http(s) URL the other processes reach this one at"
        )
    secret = read_secret(secret_file)
    if persistence is None:
        raise CannotStart("--peer-secret-file needs a shared --store (a postgresql:// URL)")
    if importlib.util.find_spec("httpx") is None:
        raise CannotStart('--peer-secret-file needs httpx: pip install "negotiation-platform[view]"')
    return Peers(secret, persistence, answers)


def decode(body: bytes) -> ForwardedCall:
    """A forwarded call's body, or ValueError."""
    try:
        return ForwardedCall.model_validate_json(body)
    except ValidationError as exc:
        raise ValueError(f"{exc.error_count()} problem(s)") from None
