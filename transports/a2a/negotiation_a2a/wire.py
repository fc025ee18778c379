"""A2A plumbing shared by the servers and clients: messages with structured values, cards, apps, one request.

a2a-sdk 1.x types are protobuf messages, and a data part stores every number as a double: 2 goes
out on the wire as 2.0. So every structured value this transport sends travels twice
(`structured`): as a data part, and as a text part of media type application/json holding its
exact JSON, where integers stay integers. Readers take the JSON text part first (`values_of`);
a peer that sends only data parts has its whole floats turned back into ints (`plain`). A part
that holds no value this side can read (see `Unreadable`) is the sender's mistake: readers raise
`Unreadable`, which a server answers as a refusal, never as a crash.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from typing import Any

from a2a.client import Client, ClientConfig, create_client
from a2a.helpers import get_text_parts, new_data_part, new_message, new_text_part
from a2a.server.agent_execution import AgentExecutor
from a2a.server.context import ServerCallContext
from a2a.server.jsonrpc_models import JSONParseError
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_rest_routes
from a2a.server.routes.common import DefaultServerCallContextBuilder
from a2a.server.routes.jsonrpc_dispatcher import JsonRpcDispatcher
from a2a.server.tasks import InMemoryTaskStore
from a2a.types import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentSkill,
    Message,
    Part,
    Role,
    SendMessageConfiguration,
    SendMessageRequest,
)
from google.protobuf.json_format import MessageToDict
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from negotiation_platform.arena.limits import Caller

JSONRPC_PATH = "/a2a/jsonrpc"
REST_PATH = "/a2a/rest"
JSON_MEDIA_TYPE = "application/json"


def plain(value: Any) -> Any:
    """Data read from a protobuf part, with whole floats back as ints (7.0 → 7)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


class Unreadable(ValueError):
    """A message part that holds no value this side can read: a data part holding NaN or an infinite
    number (which JSON cannot carry), or an application/json part nested too deep or with a number too
    long for the JSON parser."""


def data_parts(message: Message) -> list[Any]:
    return [plain(_data(part)) for part in message.parts if part.HasField("data")]


def _data(part: Part) -> Any:
    try:
        return MessageToDict(part.data)
    except ValueError:  # protobuf writes no NaN or infinity as JSON
        raise Unreadable("a data part holds NaN or an infinite number, which JSON cannot carry") from None


def structured(value: Any) -> list[Part]:
    """`value` as a data part and as its exact JSON in an application/json text part."""
    return [data(value), new_text_part(json.dumps(value), media_type=JSON_MEDIA_TYPE)]


def values_of(message: Message) -> list[Any]:
    """The structured values in `message`: its application/json text parts, parsed (exact), or, when it
    has none (a peer that sends data parts only), its data parts with whole floats read back as ints.
    Raises `Unreadable` for a part that holds no value this side can read."""
    exact = []
    for part in message.parts:
        if part.HasField("text") and part.media_type == JSON_MEDIA_TYPE:
            try:
                exact.append(json.loads(part.text))
            except json.JSONDecodeError:
                continue
            except RecursionError:
                raise Unreadable("an application/json part is nested too deep to read") from None
            except ValueError:  # an integer of thousands of digits
                raise Unreadable("an application/json part holds a number too long to read") from None
    return exact or data_parts(message)


def text_of(message: Message) -> str:
    return "\n".join(get_text_parts(message.parts))


def reply(parts: list[Part], context_id: str | None) -> Message:
    return new_message(parts, context_id=context_id, role=Role.ROLE_AGENT)


def data(value: Any) -> Part:
    """A data part alone, as a peer that does not send the JSON text part would."""
    return new_data_part(value)


def text(value: str) -> Part:
    return new_text_part(value)


def agent_card(name: str, description: str, base_url: str, skills: list[AgentSkill]) -> AgentCard:
    base = base_url.rstrip("/")
    return AgentCard(
        name=name,
        description=description,
        version="0.1.0",
        supported_interfaces=[
            AgentInterface(protocol_binding="JSONRPC", protocol_version="1.0", url=base + JSONRPC_PATH),
            AgentInterface(protocol_binding="HTTP+JSON", protocol_version="1.0", url=base + REST_PATH),
        ],
        capabilities=AgentCapabilities(streaming=False, push_notifications=False),
        default_input_modes=["application/json", "text/plain"],
        default_output_modes=["application/json", "text/plain"],
        skills=skills,
    )


class _WithClientAddress(DefaultServerCallContextBuilder):
    """Also records the peer's address, so an executor can tell callers apart (`caller_of`)."""

    def build(self, request: Request) -> ServerCallContext:
        context = super().build(request)
        context.state["client_host"] = request.client.host if request.client else "unknown"
        return context


def caller_of(context: ServerCallContext | None, context_id: str | None = None) -> Caller:
    """Who calls: the peer's address, in the A2A context `context_id` (not the bearer token of
    --auth-token-file: every client shares that one)."""
    state = context.state if context is not None else {}
    return Caller("address:" + str(state.get("client_host", "unknown")), context_id or None)


class _JsonRpc(JsonRpcDispatcher):
    """Answers a body Python's JSON parser gives up on (nested thousands deep, an integer of thousands
    of digits, bytes that are not UTF-8) as a parse error (-32700), like any body that is not JSON,
    where the SDK answers an internal error (-32603)."""

    async def handle_requests(self, request: Request) -> Response:
        try:
            await request.json()  # Starlette keeps the parsed body for the dispatcher
        except json.JSONDecodeError:
            pass  # the dispatcher answers it
        except (RecursionError, ValueError) as failure:
            reason = (
                "nested too deep"
                if isinstance(failure, RecursionError)
                else "not UTF-8 text"
                if isinstance(failure, UnicodeDecodeError)
                else "a number too long to read"
            )
            return self._generate_error_response(None, JSONParseError(message=f"Parse error: {reason}"))
        return await super().handle_requests(request)


def a2a_app(executor: AgentExecutor, card: AgentCard) -> Starlette:
    """The agent card at /.well-known/agent-card.json, JSON-RPC and REST endpoints."""
    handler = DefaultRequestHandler(agent_executor=executor, task_store=InMemoryTaskStore(), agent_card=card)
    builder = _WithClientAddress()
    rpc = _JsonRpc(request_handler=handler, context_builder=builder)
    return Starlette(
        routes=[
            *create_agent_card_routes(card),
            Route(JSONRPC_PATH, rpc.handle_requests, methods=["POST"]),
            *create_rest_routes(handler, path_prefix=REST_PATH, context_builder=builder),
        ]
    )


async def open_client(agent: str | AgentCard, config: ClientConfig) -> Client:
    """A client for the agent at a URL (its card is fetched) or described by a card already read."""
    return await create_client(agent, client_config=config)


async def ask(client: Client, parts: list[Part], context_id: str, timeout: float) -> Message:
    """Send one user message in `context_id` and return the agent's reply message (or its task's)."""
    message = Message(role=Role.ROLE_USER, parts=parts, message_id=uuid.uuid4().hex, context_id=context_id)
    request = SendMessageRequest(message=message, configuration=SendMessageConfiguration())

    async def first_reply() -> Message:
        async for event in client.send_message(request):
            kind = event.WhichOneof("payload")
            if kind == "message":
                return event.message
            if kind == "task":
                task = event.task
                if task.status.HasField("message"):
                    return task.status.message
                parts_out = [p for artifact in task.artifacts for p in artifact.parts]
                return new_message(parts_out, context_id=context_id)
        raise ValueError("the agent sent no reply")

    return await asyncio.wait_for(first_reply(), timeout)
