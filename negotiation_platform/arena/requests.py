"""The request of every operation, typed, strict and checked once: the arena's operations take these.

Building a request is the one check of its input: the boundary's limits first (`wire.boundary`: size,
nesting, UTF-8 text, finite numbers, safe integers, over the whole input at once), then each field's
type and bounds. A request from the network is read here (`Request.read`, by the one dispatcher), and
so is an in-process caller's plain values (the arena's plain-value methods build one), so both meet the
same checks and the same refusals; inside the arena a request's values are trusted (the engine still
validates a payload against its game's model).

Strict: no "5" for 5, no true for 1, no argument the operation does not take. An argument left out
(or null) is not passed on, so the implementation's default applies; the schemas clients read declare
such an argument as its own type only (see `AbsentNotNull`): its null is accepted, not advertised.
The same name means the same thing in every request, except `list_matches`' `since` (a deprecated
alias of `created_after`). Field order is the implementation's positional order: a remote client's
methods take them so. The catalogue (`negotiation_platform.catalogue`) names each operation's request.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Self

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, JsonValue, ValidationError, model_validator
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue
from pydantic_core import core_schema, to_json

from negotiation_platform.arena.policy import MAX_SEED
from negotiation_platform.arena.seat_links import MAX_HUMAN_SEATS
from negotiation_platform.arena.waiting import MAX_WAIT_SECONDS
from negotiation_platform.errors import ErrorCode, NegotiationError
from negotiation_platform.wire.boundary import MAX_SAFE_INTEGER, MAX_TEXT_CHARS, check_request, place
from negotiation_platform.wire.strict_json import plain_json_chars

MAX_PAGE = 500
"""Most matches one list_matches call returns; `next_cursor` fetches the next page."""

GameId = Annotated[str, Field(description="A game id from list_games, e.g. 'split_100'.")]
Config = Annotated[
    dict[str, Any] | None, Field(description="Game config overriding defaults; see the spec from get_game_rules.")
]
Name = Annotated[str | None, Field(description="Your display name; becomes your agent id.")]
MatchId = Annotated[str, Field(description="The match id returned by start_game or list_matches.")]
Token = Annotated[str, Field(description="Your secret seat token from start_game or join_game.")]
Cursor = Annotated[int | None, Field(ge=0, le=MAX_SAFE_INTEGER, description="The `cursor` of your last call.")]
Wait = Annotated[float, Field(ge=0, le=MAX_WAIT_SECONDS, description="How long to wait for your turn or news.")]
Content = Annotated[str, Field(description="The message text.")]


class AbsentNotNull(GenerateJsonSchema):
    """The JSON Schema of a request as clients read it: an optional argument whose null means "absent"
    (`T | None = None`) is declared as `T`, without `anyOf [T, null]` and without a null default.
    Clients that coerce command-line text by a property's plain `type` (the MCP Inspector CLI up to
    0.16.5 among them) send such an argument as a string otherwise, which the strict request refuses."""

    def default_schema(self, schema: core_schema.WithDefaultSchema) -> JsonSchemaValue:
        inner = schema["schema"]
        if "default" in schema and schema["default"] is None and inner["type"] == "nullable":
            return self.generate_inner(inner["schema"])
        return super().default_schema(schema)


class Request(BaseModel):
    """An operation's arguments, checked (see the module's docstring)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    @model_validator(mode="before")
    @classmethod
    def _past_the_boundary(cls, data: object) -> object:
        """The boundary's checks of the whole input, before any field reads it: no refusal of a field
        may echo text that cannot be sent back (`NegotiationError` passes through pydantic as raised)."""
        if isinstance(data, dict):
            check_request(data)
        return data

    @classmethod
    def read(cls, arguments: object, operation: str) -> Self:
        """`arguments` read as operation `operation`'s request, or its `invalid_argument` refusal
        naming every missing, unknown and wrong argument."""
        if not isinstance(arguments, dict):
            raise NegotiationError(ErrorCode.INVALID_ARGUMENT, "`arguments` must be an object.")
        try:
            return cls.model_validate(arguments)
        except ValidationError as invalid:
            raise _refusal(cls, operation, invalid) from None

    def arguments(self) -> dict[str, JsonValue]:
        """The keyword arguments of the implementation: those given, and not null."""
        given = self.model_fields_set
        return {
            name: value
            for name in type(self).model_fields
            if name in given and (value := getattr(self, name)) is not None
        }


class NoArguments(Request):
    pass


class GameRulesRequest(Request):
    game_id: GameId
    config: Config = None


class StartGameRequest(Request):
    game_id: GameId
    config: Config = None
    seed: int | None = Field(
        default=None,
        ge=-MAX_SEED,
        le=MAX_SEED,
        description="Seed; determines the draws only on a server in reproducible mode.",
    )
    name: Name = None
    opponents: list[str] | None = Field(
        default=None,
        description="Built-in agents for the other seats, e.g. ['concession'], or 'a2a:URL' if allowed.",
    )
    human_seats: int | None = Field(
        default=None,
        ge=0,
        le=MAX_HUMAN_SEATS,
        description="Seats to keep for people (default 0; at most the seats left besides yours and the "
        "opponents'); the answer lists each one's agent_id, token and play_url (the browser page's link).",
    )


class JoinGameRequest(Request):
    match_id: MatchId
    name: Name = None


class MatchRequest(Request):
    match_id: MatchId


class SeatRequest(Request):
    match_id: MatchId
    token: Token


class TurnStateRequest(SeatRequest):
    since: Cursor = None
    wait_seconds: Wait = 0
    include_prompt: bool = Field(
        default=True, description="Include the game's prompt text (false: only the data, a smaller answer)."
    )


class PublicMessageRequest(SeatRequest):
    content: Content


class PrivateMessageRequest(SeatRequest):
    to: list[str] = Field(description="Agent ids of the recipients.")
    content: Content


def payload_size(payload: dict[str, Any]) -> dict[str, Any]:
    """`payload` (plain JSON already), unless larger than `MAX_TEXT_CHARS` characters as JSON: then refused."""
    chars = plain_json_chars(payload)  # the usual payload: flat, and short
    if (chars is None or chars > MAX_TEXT_CHARS) and len(to_json(payload)) > MAX_TEXT_CHARS:
        raise NegotiationError(ErrorCode.INVALID_PAYLOAD, f"payload is larger than {MAX_TEXT_CHARS} characters.")
    return payload


class ActionRequest(SeatRequest):
    action_type: str = Field(description="One of the turn state's allowed_actions, e.g. 'propose'.")
    payload: Annotated[dict[str, Any], AfterValidator(payload_size)] | None = Field(
        default=None,
        description="The action's payload, matching that action's payload_schema ({} or left out for none).",
    )


class WatchRequest(MatchRequest):
    since: Cursor = None
    wait_seconds: Wait = 0


Status = Literal["waiting_for_players", "running", "finished", "abandoned"]
Instant = Annotated[str | None, Field(description="Only matches created at or after this ISO 8601 time.")]


class MatchListRequest(Request):
    status: Status | None = Field(default=None, description="Only matches in this status.")
    game_id: str | None = Field(default=None, description="Only matches of this game.")
    created_after: Instant = None
    limit: int | None = Field(default=None, ge=1, le=MAX_PAGE, description="Matches per page (default 100).")
    cursor: str | None = Field(default=None, description="The `next_cursor` of the page before.")
    since: str | None = Field(
        default=None,
        description="Deprecated: the old name of `created_after` (elsewhere `since` is an event cursor).",
        json_schema_extra={"deprecated": True},
    )

    def created(self) -> str | None:
        """The implementation's `since`: `created_after`, or its deprecated alias (not both)."""
        if self.created_after is not None and self.since is not None:
            raise NegotiationError(
                ErrorCode.INVALID_ARGUMENT, "Give `created_after` only (`since` is its deprecated alias)."
            )
        return self.created_after if self.created_after is not None else self.since

    def arguments(self) -> dict[str, JsonValue]:
        """`created_after` is the implementation's `since`."""
        given = {name: value for name, value in super().arguments().items() if name != "created_after"}
        return given | ({"since": since} if (since := self.created()) is not None else {})


def _refusal(request: type[Request], operation: str, invalid: ValidationError) -> NegotiationError:
    missing: list[str] = []
    unknown: list[str] = []
    problems: list[dict[str, str]] = []
    for error in invalid.errors(include_url=False, include_input=False):
        field = place(error["loc"])
        if error["type"] == "missing":
            missing.append(field)
        elif error["type"] == "extra_forbidden":
            unknown.append(field)
        else:
            problems.append({"field": field, "problem": error["msg"]})
    said = [f"missing {missing}"] * bool(missing) + [f"unknown {unknown}"] * bool(unknown)
    said += [f"{p['field']}: {p['problem']}" for p in problems]
    fields = request.model_fields
    required = [name for name, field in fields.items() if field.is_required()]
    optional = [name for name, field in fields.items() if not field.is_required()]
    takes = f" ({operation} takes {required} and optionally {optional})"
    found = {"missing": missing, "unknown": unknown, "problems": problems}
    return NegotiationError(
        ErrorCode.INVALID_ARGUMENT,
        f"Invalid arguments for {operation}: {'; '.join(said)}" + (takes if missing or unknown else "") + ".",
        **{kind: items for kind, items in found.items() if items},
    )
