"""The Starlette app: health, readiness, GraphQL end to end, Neo4j Browser."""

from __future__ import annotations

from pathlib import Path

import pytest

from api.app import create_app
from graph.memory import Memory
from graph.runtime import Graph, LocalNeo4j, Neo4jTarget, Settings
from tests.http import gql, running


@pytest.fixture(scope="session")
def browser_dir(test_settings: Settings) -> Path:
    return LocalNeo4j(test_settings).browser_dir()


async def test_healthz_answers_while_the_process_is_up(
    test_settings: Settings, neo4j_target: Neo4jTarget
) -> None:
    async with running(create_app(test_settings, neo4j_target)) as client:
        response = await client.get("/healthz")
    assert (response.status_code, response.json()) == (200, {"status": "ok"})


async def test_readyz_is_ready_when_neo4j_answers_and_migrations_are_applied(
    test_settings: Settings, neo4j_target: Neo4jTarget
) -> None:
    async with running(create_app(test_settings, neo4j_target)) as client:
        response = await client.get("/readyz")
    assert response.status_code == 200
    assert response.json() == {
        "status": "ready",
        "database": "neo4j",
        "neomodel": {"sharesDriver": True, "database": "neo4j"},
    }


async def test_readyz_is_unready_while_a_migration_is_pending(
    test_settings: Settings, neo4j_target: Neo4jTarget, graph: Graph
) -> None:
    app = create_app(test_settings, neo4j_target, migrate_on_start=False)
    try:
        async with running(app) as client:
            await graph.write("MATCH (m:Migration {version: 2}) DELETE m")
            response = await client.get("/readyz")
            assert response.status_code == 503
            assert response.json() == {
                "status": "unready",
                "reason": "pending migrations",
                "pending": ["V0002__indexes"],
            }
    finally:
        await Memory(graph, test_settings).admin.migrate()


async def test_graphql_lists_spaces_end_to_end(
    test_settings: Settings, neo4j_target: Neo4jTarget
) -> None:
    async with running(create_app(test_settings, neo4j_target)) as client:
        created = await gql(
            client,
            'mutation { createSpace(name: "alice", description: "Alice\'s memory") '
            "{ space { name description } errors { code } } }",
        )
        assert created == {
            "data": {
                "createSpace": {
                    "space": {"name": "alice", "description": "Alice's memory"},
                    "errors": [],
                }
            },
            "extensions": {"queries": 1},
        }
        listed = await gql(client, "{ spaces { name description recordedAt } }")
    [space] = listed["data"]["spaces"]
    assert (space["name"], space["description"]) == ("alice", "Alice's memory")
    assert space["recordedAt"].endswith("+00:00")


async def test_create_space_refuses_a_bad_name_with_a_typed_error_and_writes_nothing(
    test_settings: Settings, neo4j_target: Neo4jTarget, graph: Graph
) -> None:
    async with running(create_app(test_settings, neo4j_target)) as client:
        result = await gql(
            client,
            'mutation { createSpace(name: "Not OK!") { space { id } errors { code field } } }',
        )
    assert result["data"]["createSpace"] == {
        "space": None,
        "errors": [{"code": "VALIDATION", "field": "name"}],
    }
    assert await graph.read("MATCH (n) WHERE NOT n:Migration RETURN n") == []


async def test_browser_is_served_preset_to_the_bolt_uri_and_user_with_the_guide_playing(
    test_settings: Settings, neo4j_target: Neo4jTarget, browser_dir: Path
) -> None:
    async with running(create_app(test_settings, neo4j_target, browser_dir=browser_dir)) as client:
        redirect = await client.get("/browser")
        page = await client.get("/browser/")
    assert redirect.status_code == 307
    port = neo4j_target.uri.rsplit(":", 1)[1]
    assert redirect.headers["location"] == (
        f"http://engram.test/browser/?dbms=bolt%3A%2F%2Fneo4j%40127.0.0.1%3A{port}&db=neo4j"
        "&preselectAuthMethod=NATIVE&cmd=play&arg=http%3A%2F%2Fengram.test%2Fbrowser-guide%2F"
    ), "the user and database preset, Engram's guide playing"
    assert page.status_code == 200
    assert "<title>Neo4j Browser</title>" in page.text
