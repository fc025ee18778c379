"""The `mcp-llm:MODEL` agent's options, apart from the agent so the registry lists them without MCP."""

from __future__ import annotations

from pydantic import Field

from negotiation_platform.agents.chat_options import EndpointOptions


class McpLlmOptions(EndpointOptions):
    """The endpoint's options (see `EndpointOptions`) and the bounds on the model's tool calls and tokens.

    Attributes:
        max_calls_per_turn: tool calls (and replies that call none) in one turn before the move is forfeited.
        max_calls: tool calls in the whole match before every later move is forfeited.
        max_tokens_per_turn: tokens (prompt and completion, as the endpoint reports them) the model may
            use in one turn: once reached, no more requests that turn and the move is forfeited.
        max_tokens_per_match: the same over the whole match: once reached, every later move is forfeited.
    """

    max_calls_per_turn: int = Field(8, ge=1, le=1_000)
    max_calls: int = Field(400, ge=1, le=100_000)
    max_tokens_per_turn: int = Field(200_000, ge=1, le=100_000_000)
    max_tokens_per_match: int = Field(5_000_000, ge=1, le=10_000_000_000)
