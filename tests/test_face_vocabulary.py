"""Every face speaks the schema's words: the Python client's enums (the vocabulary's own) are named
exactly as the GraphQL enums of the same name in `schema.graphql`, every document the client
sends is valid against the schema, and the MCP tools' enum arguments list the same names.
Pure: no Neo4j."""

from __future__ import annotations

import asyncio
from enum import Enum
from pathlib import Path
from typing import Any

import pytest
from graphql import GraphQLEnumType, build_schema, parse, validate

import api.client
from api.agent_mcp.transports import build_server
from api.client import documents
from graph.domain import vocabulary

pytestmark = pytest.mark.fast

SCHEMA = build_schema((Path(__file__).resolve().parents[1] / "schema.graphql").read_text())


def client_enum_types() -> list[type[Enum]]:
    exported = (getattr(api.client, name) for name in api.client.__all__)
    return [
        value
        for value in exported
        if isinstance(value, type) and issubclass(value, Enum) and value.__name__ != "Unset"
    ]


def test_the_client_speaks_the_whole_vocabulary_itself() -> None:
    assert {e.__module__ for e in client_enum_types()} == {"graph.domain.vocabulary"}
    assert len(client_enum_types()) == len(vocabulary.__all__) == 20


@pytest.mark.parametrize("enum", client_enum_types(), ids=lambda e: e.__name__)
def test_each_client_enum_has_the_names_of_the_graphql_enum_of_its_name(
    enum: type[Enum],
) -> None:
    graphql_enum = SCHEMA.get_type(enum.__name__)
    assert isinstance(graphql_enum, GraphQLEnumType), f"no GraphQL enum {enum.__name__}"
    assert [m.name for m in enum] == list(graphql_enum.values)


DOCUMENTS = {name: value for name, value in vars(documents).items() if name.isupper()}


@pytest.mark.parametrize("name", sorted(set(DOCUMENTS) - {"ERRORS", "VIEW"}))
def test_every_document_the_client_sends_is_valid_against_the_schema(name: str) -> None:
    assert validate(SCHEMA, parse(DOCUMENTS[name])) == []


def mcp_enums() -> dict[tuple[str, str], list[str]]:
    """Each MCP tool argument (or nested field) that takes an enum, with the names it lists."""

    async def listed() -> list[Any]:
        return list(await build_server(None).list_tools())  # type: ignore[arg-type]

    found: dict[tuple[str, str], list[str]] = {}

    def walk(tool: str, where: str, schema: Any) -> None:
        if isinstance(schema, dict):
            if "enum" in schema and all(isinstance(v, str) for v in schema["enum"]):
                found[(tool, where)] = list(schema["enum"])
            for name, inner in schema.items():
                walk(tool, f"{where}.{name}" if where else name, inner)
        elif isinstance(schema, list):
            for inner in schema:
                walk(tool, where, inner)

    for tool in asyncio.run(listed()):
        walk(tool.name, "", tool.input_schema)
    return found


def test_every_enum_an_mcp_tool_takes_is_a_graphql_enum_by_its_names() -> None:
    graphql_enums = {
        tuple(t.values) for t in SCHEMA.type_map.values() if isinstance(t, GraphQLEnumType)
    }
    listed = mcp_enums()
    assert listed, "the tools take enums"
    strays = {where: names for where, names in listed.items() if tuple(names) not in graphql_enums}
    assert strays == {}
