"""The argument schemas clients read (MCP tools' input schemas, A2A skills' `Arguments (JSON Schema)`)
declare each optional argument as its own type: a client that converts text by a property's plain `type`
(as the MCP Inspector's CLI does) must be able to send every one. A null is still accepted where it
means "absent" (older clients send it), only no longer advertised."""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp import Client

from negotiation_a2a.arena_server import SCHEMA_LABEL, arena_card
from negotiation_mcp.server import build_server
from negotiation_platform.arena import Arena
from negotiation_platform.catalogue import CATALOGUE
from negotiation_platform.catalogue.dispatch import checked
from negotiation_platform.serving.house_seats import HouseSeats
from negotiation_platform.serving.operations import run_operation
from tests.json_places import json_objects


def advertised_nulls(schema: Any) -> list[str]:
    """Where `schema` offers null: a `{"type": "null"}` branch, a type list naming null, a null default."""
    found: list[str] = []
    for path, part in json_objects(schema):
        kinds = part.get("type")
        if kinds == "null" or (isinstance(kinds, list) and "null" in kinds):
            found.append(path)
        if "default" in part and part["default"] is None:
            found.append(f"{path}/default")
    return found


def test_the_null_finder_sees_an_optional_declared_as_any_of_t_and_null() -> None:
    old = {"properties": {"seed": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": None}}}
    assert advertised_nulls(old) == ["/properties/seed/default", "/properties/seed/anyOf/1"]


@pytest.mark.anyio
async def test_no_mcp_tool_advertises_null_and_each_argument_has_its_plain_type() -> None:
    async with Client(build_server(Arena())) as client:
        tools = {tool.name: tool.input_schema for tool in (await client.list_tools()).tools}
    for name, operation in CATALOGUE.items():
        assert advertised_nulls(tools[name]) == [], name
        for argument in operation.required + operation.optional:  # what plain-`type` clients convert by
            declared = tools[name]["properties"][argument]
            assert "anyOf" not in declared and isinstance(declared.get("type"), str), (name, argument)


def test_no_a2a_skill_advertises_null() -> None:
    for skill in arena_card("http://127.0.0.1:9").skills:
        schema = json.loads(skill.description.splitlines()[-1].removeprefix(SCHEMA_LABEL))
        assert advertised_nulls(schema) == [], skill.id
        assert set(schema["properties"]) == set(CATALOGUE[skill.id].required + CATALOGUE[skill.id].optional)


def test_an_explicit_null_still_means_absent_for_every_optional_argument() -> None:
    for name, operation in CATALOGUE.items():
        for argument in operation.optional:
            if operation.request.model_fields[argument].default is not None:
                continue  # not nullable: its null was refused before and still is
            nulled = checked(operation, {**operation.example, argument: None})
            given = {**operation.example}
            given.pop(argument, None)
            assert nulled.arguments() == checked(operation, given).arguments(), (name, argument)


@pytest.mark.anyio
async def test_a_client_sending_null_plays_as_before() -> None:
    house = HouseSeats(Arena())
    started = await run_operation(
        house, "start_game", {"game_id": "split_100", "opponents": ["concession"], "seed": None, "config": None}
    )
    seat = {"match_id": started["match_id"], "token": started["token"]}
    moved = await run_operation(house, "perform_action", {**seat, "action_type": "walk_away", "payload": None})
    assert moved["ok"] and moved["status"] == "finished"
