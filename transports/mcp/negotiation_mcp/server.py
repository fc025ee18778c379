"""The arena as an MCP server: a tool per catalogue operation (see `tools`), rules as resources, a prompt.

Built on the SDK's low-level `Server`, whose handlers answer `tools/*`, `resources/*` and
`prompts/*`; the same server runs over stdio and streamable HTTP (`serving`). Building it configures
no logging: the command line does that (`negotiation_platform.observability.logs`). Nothing here
holds game logic or match state.
"""

from __future__ import annotations

from mcp.server import Server, ServerRequestContext
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler
from mcp.shared.exceptions import MCPError
from mcp.types import (
    INVALID_PARAMS,
    CallToolRequestParams,
    CallToolResult,
    GetPromptRequestParams,
    GetPromptResult,
    ListPromptsResult,
    ListResourcesResult,
    ListResourceTemplatesResult,
    ListToolsResult,
    PaginatedRequestParams,
    Prompt,
    PromptArgument,
    PromptMessage,
    ReadResourceRequestParams,
    ReadResourceResult,
    Resource,
    TextContent,
    TextResourceContents,
)

from negotiation_mcp import tools
from negotiation_platform.agents.seating import client_kinds
from negotiation_platform.arena import MAX_WAIT_SECONDS, Arena
from negotiation_platform.errors import NegotiationError
from negotiation_platform.serving.house_seats import HouseSeats
from negotiation_platform.spec.rules_text import render_rules

INSTRUCTIONS = f"""\
Negotiation arena. Play a match: list_games → get_game_rules → start_game (optionally with built-in
opponents) or join_game → then repeat get_turn_state(wait_seconds up to {MAX_WAIT_SECONDS:g}) until
`your_turn` is true, read its `prompt` and `allowed_actions`, answer with perform_action (and
send_public_message / send_private_message when the phase allows) → get_result when `status` is
"finished". Keep your seat token secret: it is the only proof that a seat is yours."""

HOW_TO_PLAY = Prompt(
    name="how_to_play",
    description="How to play a match through these tools (optionally for one game).",
    arguments=[PromptArgument(name="game_id", required=False)],
)
RULES_MIME_TYPE = "text/markdown"

Context = ServerRequestContext[object, object]
"""What a handler is given: the request, its session and, over HTTP, the Starlette request."""


class ArenaHandlers:
    """The server's request handlers over one arena and its house seats."""

    def __init__(self, arena: Arena, house: HouseSeats) -> None:
        self.arena = arena
        self.house = house
        self.rules = {
            f"rules://{entry.game_id}": (entry.game_id, entry.spec.title, render_rules(entry.spec))
            for entry in arena.registry.games().values()
        }

    async def list_tools(self, context: Context, params: PaginatedRequestParams | None) -> ListToolsResult:
        return ListToolsResult(tools=tools.tools())

    async def call_tool(self, context: Context, params: CallToolRequestParams) -> CallToolResult:
        return await tools.call_tool(self.house, params.name, params.arguments or {}, tools.caller_of(context))

    async def list_resources(self, context: Context, params: PaginatedRequestParams | None) -> ListResourcesResult:
        return ListResourcesResult(
            resources=[
                Resource(
                    uri=uri,
                    name=f"{game_id} rules",
                    description=f"Rules of {title}, generated from its spec.",
                    mime_type=RULES_MIME_TYPE,
                )
                for uri, (game_id, title, _) in self.rules.items()
            ]
        )

    async def list_resource_templates(
        self, context: Context, params: PaginatedRequestParams | None
    ) -> ListResourceTemplatesResult:
        return ListResourceTemplatesResult(resource_templates=[])

    async def read_resource(self, context: Context, params: ReadResourceRequestParams) -> ReadResourceResult:
        found = self.rules.get(str(params.uri))
        if found is None:
            raise MCPError(
                code=INVALID_PARAMS, message=f"Unknown resource: {params.uri}", data={"uri": str(params.uri)}
            )
        return ReadResourceResult(
            contents=[TextResourceContents(uri=params.uri, text=found[2], mime_type=RULES_MIME_TYPE)]
        )

    async def list_prompts(self, context: Context, params: PaginatedRequestParams | None) -> ListPromptsResult:
        return ListPromptsResult(prompts=[HOW_TO_PLAY])

    async def get_prompt(self, context: Context, params: GetPromptRequestParams) -> GetPromptResult:
        """`how_to_play`; another name, an argument it does not take or an unknown game fails as the SDK's
        prompts always have (a JSON-RPC error)."""
        if params.name != HOW_TO_PLAY.name:
            raise ValueError(f"Unknown prompt: {params.name}")
        arguments = params.arguments or {}
        failed = ValueError(f"Error rendering prompt {HOW_TO_PLAY.name}")
        if set(arguments) - {"game_id"}:
            raise failed
        try:
            text = self.how_to_play(arguments.get("game_id", ""))
        except NegotiationError as unknown_game:
            raise failed from unknown_game
        message = PromptMessage(role="user", content=TextContent(type="text", text=text))
        return GetPromptResult(description=HOW_TO_PLAY.description, messages=[message])

    def how_to_play(self, game_id: str) -> str:
        # a client never seats the operator's llm:, mcp-llm: or policy: agents
        seated = client_kinds(self.arena.registry)
        agents = ", ".join(f"{name}:URL" if name == "a2a" else name for name in seated)
        text = f"{INSTRUCTIONS}\n\nOpponents for start_game: {agents}."
        if game_id:
            text += "\n\n" + render_rules(self.arena.registry.game(game_id).spec)
        return text


def build_server(arena: Arena, house: HouseSeats | None = None) -> Server[object]:
    """An MCP server over `arena`; `house` seats built-in opponents server-side."""
    handlers = ArenaHandlers(arena, house or HouseSeats(arena))
    return Server(
        "negotiation-platform",
        version="0.1.0",
        instructions=INSTRUCTIONS,
        get_tool_input_schema=tools.input_schema,
        on_list_tools=handlers.list_tools,
        on_call_tool=handlers.call_tool,
        on_list_resources=handlers.list_resources,
        on_list_resource_templates=handlers.list_resource_templates,
        on_read_resource=handlers.read_resource,
        on_list_prompts=handlers.list_prompts,
        on_get_prompt=handlers.get_prompt,
        # served as by the SDK's MCPServer, so the modern protocol's capabilities read the same
        on_subscriptions_listen=ListenHandler(InMemorySubscriptionBus()),
    )
