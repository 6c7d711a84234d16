"""Authorisation over HTTP: keys by spaces by tiers, for every query and nested field.

Two spaces, each with a normal-tier and a secret-tier fact whose evidence is itself private.
Keys: `alice_normal` (read alice up to normal), `alice_secret_writer` (read+write alice up to
secret), `bob_reader` (read bob only). Nothing leaks across spaces or above a key's tier —
not at the top level and not through nested fields, related or explainRelation.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from api.app import create_app
from graph.domain.actor import Actor, Grant
from graph.domain.vocabulary import Privacy, SelectorKind
from graph.memory import ForgetInput, Memory, Selector
from graph.runtime import Graph, Neo4jTarget, Settings
from tests.http import gql, running
from tests.story import Story, new_story


@dataclass
class World:
    keys: dict[str, str]
    alice: Story
    bob: Story
    ids: dict[str, str]


async def populate(story: Story, person: str) -> dict[str, str]:
    ids: dict[str, str] = {}
    for key, name in [(f"entity:person:{person}", person.title()), ("entity:org:acme", "Acme")]:
        ids[key] = (await story.entity(key, name)).subject_id or ""
    said = await story.say(f"{person} works at acme")
    normal = await story.remember(
        said,
        type="fact",
        subject={"key": f"entity:person:{person}"},
        predicate="WORKS_AT",
        object={"key": "entity:org:acme"},
    )
    secret_said = await story.say(f"{person}'s salary is 100", role="user")
    await story.graph.write(
        "MATCH (o:Observation {id: $id}) SET o.privacy = 3", id=secret_said
    )  # the source itself is secret
    secret = await story.remember(
        secret_said,
        type="fact",
        subject={"key": f"entity:person:{person}"},
        predicate="EARNS",
        value=100,
        privacy=3,
    )
    private_source = await story.say(f"{person} likes tea")
    await story.graph.write("MATCH (o:Observation {id: $id}) SET o.privacy = 2", id=private_source)
    tea = await story.remember(private_source, key="pref:other:drink", value={"value": "tea"})
    ids.update(normal=normal.id, secret=secret.id, tea=tea.id, episode=story.episode_id)
    return ids


@pytest.fixture
async def world(memory: Memory, graph: Graph) -> World:
    alice = await new_story(graph, "alice")
    bob = await new_story(graph, "bob")
    ids = await populate(alice, "alice")
    await populate(bob, "bob")
    keys = {
        "alice_normal": (
            await memory.admin.create_key("n", [Grant("alice", Privacy.NORMAL)])
        ).secret,
        "alice_secret_writer": (
            await memory.admin.create_key("w", [Grant("alice", Privacy.SECRET, write=True)])
        ).secret,
        "bob_reader": (await memory.admin.create_key("b", [Grant("bob", Privacy.SECRET)])).secret,
    }
    return World(keys, alice, bob, ids)


@pytest.fixture
async def client(
    test_settings: Settings, neo4j_target: Neo4jTarget
) -> AsyncIterator[httpx.AsyncClient]:
    production = test_settings.model_copy(update={"dev": False})
    async with running(create_app(production, neo4j_target)) as http:
        yield http


async def as_key(
    client: httpx.AsyncClient, world: World, key: str, query: str, **variables: Any
) -> dict[str, Any]:
    headers = {"authorization": f"Bearer {world.keys[key]}"}
    return await gql(client, query, variables, headers=headers)


QUERIES = {
    "entity": '{ entity(space: "alice", key: "entity:person:alice") { name } }',
    "claims": '{ claims(space: "alice") { nodes { key } } }',
    "claimHistory": '{ claimHistory(space: "alice", key: "pref:other:drink") { revision } }',
    "episode": 'query($id: ID!) { episode(space: "alice", id: $id) { title } }',
    "timeline": (
        '{ timeline(space: "alice", from: "2000-01-01T00:00:00Z", to: "2100-01-01T00:00:00Z")'
        " { claims { key } } }"
    ),
    "related": '{ related(space: "alice", entity: {key: "entity:person:alice"}) { truncated } }',
    "explainRelation": (
        '{ explainRelation(space: "alice", from: {key: "entity:person:alice"},'
        ' to: {key: "entity:org:acme"}) { reason } }'
    ),
    "search": '{ search(space: "alice", query: "acme") { score } }',
    "context": '{ context(space: "alice") { text } }',
}


async def test_no_key_or_a_bad_or_revoked_key_is_401(
    memory: Memory, world: World, client: httpx.AsyncClient
) -> None:
    assert (await client.post("/graphql", json={"query": "{ spaces { name } }"})).status_code == 401
    bad = {"authorization": "Bearer egk_000000000000_not-a-real-secret-at-all"}
    assert (
        await client.post("/graphql", json={"query": "{ spaces { name } }"}, headers=bad)
    ).status_code == 401
    key_id = world.keys["bob_reader"].split("_")[1]
    assert await memory.admin.revoke_key(key_id) is True
    revoked = {"x-api-key": world.keys["bob_reader"]}
    assert (
        await client.post("/graphql", json={"query": "{ spaces { name } }"}, headers=revoked)
    ).status_code == 401
    assert (await client.get("/healthz")).status_code == 200


async def test_spaces_lists_only_the_spaces_a_key_grants(
    world: World, client: httpx.AsyncClient
) -> None:
    for key, expected in [("alice_normal", ["alice"]), ("bob_reader", ["bob"])]:
        body = await as_key(client, world, key, "{ spaces { name } }")
        assert [s["name"] for s in body["data"]["spaces"]] == expected


@pytest.mark.parametrize("name", sorted(QUERIES))
async def test_every_query_on_an_ungranted_space_is_forbidden(
    world: World, client: httpx.AsyncClient, name: str
) -> None:
    body = await as_key(client, world, "bob_reader", QUERIES[name], id=world.ids["episode"])
    [error] = body["errors"]
    assert error["extensions"] == {"code": "FORBIDDEN", "field": "space"}, name
    assert "may not read space 'alice'" in error["message"]
    assert json.dumps(body).count("alice") == 1, "only the error message names the space"


@pytest.mark.parametrize("name", sorted(QUERIES))
async def test_every_query_answers_a_key_that_grants_the_space(
    world: World, client: httpx.AsyncClient, name: str
) -> None:
    body = await as_key(client, world, "alice_normal", QUERIES[name], id=world.ids["episode"])
    assert "errors" not in body, body


async def test_claims_above_the_keys_tier_are_invisible_everywhere(
    world: World, client: httpx.AsyncClient
) -> None:
    everything = """{
      claims(space: "alice", first: 100) { nodes { key privacy evidence { text } } }
      search(space: "alice", query: "salary 100 EARNS") { claim { key } }
      context(space: "alice", budgetBytes: 4000) { text }
      related(space: "alice", entity: {key: "entity:person:alice"}) {
        relations { type claimKey }
      }
    }"""
    normal = json.dumps(await as_key(client, world, "alice_normal", everything))
    secret = json.dumps(await as_key(client, world, "alice_secret_writer", everything))
    assert "EARNS" not in normal and "salary" not in normal
    assert "EARNS" in secret and "salary is 100" in secret


async def test_nested_evidence_above_the_keys_tier_is_hidden(
    world: World, client: httpx.AsyncClient
) -> None:
    query = (
        '{ claims(space: "alice", filter: {keyPrefix: "pref:"}) '
        "{ nodes { key evidence { text } } } }"
    )
    normal = await as_key(client, world, "alice_normal", query)
    assert normal["data"]["claims"]["nodes"] == [{"key": "pref:other:drink", "evidence": []}]
    secret = await as_key(client, world, "alice_secret_writer", query)
    assert secret["data"]["claims"]["nodes"] == [
        {"key": "pref:other:drink", "evidence": [{"text": "alice likes tea"}]}
    ]


async def test_an_entity_id_from_another_space_is_not_found(
    world: World, client: httpx.AsyncClient
) -> None:
    bob_entity = await world.bob.graph.read(
        "MATCH (e:Entity {key: 'entity:person:bob'}) RETURN e.id AS id"
    )
    query = (
        'query($id: ID!) { related(space: "alice", entity: {id: $id}) '
        "{ nodes { entity { key } } } }"
    )
    body = await as_key(client, world, "alice_secret_writer", query, id=bob_entity[0]["id"])
    assert body["errors"][0]["extensions"]["code"] == "NOT_FOUND"
    explain = """query($id: ID!) { explainRelation(space: "alice",
      from: {key: "entity:person:alice"}, to: {id: $id}) { reason } }"""
    body = await as_key(client, world, "alice_secret_writer", explain, id=bob_entity[0]["id"])
    assert body["errors"][0]["extensions"]["code"] == "NOT_FOUND"


async def test_writes_need_a_write_grant(world: World, client: httpx.AsyncClient) -> None:
    mutation = """mutation { openEpisode(space: "alice", input: {title: "x"}) {
        episode { title } errors { code field } } }"""
    denied = await as_key(client, world, "alice_normal", mutation)
    assert denied["data"]["openEpisode"] == {
        "episode": None,
        "errors": [{"code": "FORBIDDEN", "field": "space"}],
    }
    allowed = await as_key(client, world, "alice_secret_writer", mutation)
    assert allowed["data"]["openEpisode"] == {"episode": {"title": "x"}, "errors": []}
    other = await as_key(client, world, "alice_secret_writer", mutation.replace("alice", "bob"))
    assert other["data"]["openEpisode"]["errors"] == [{"code": "FORBIDDEN", "field": "space"}]


async def test_a_key_never_writes_above_its_tier(
    memory: Memory, world: World, client: httpx.AsyncClient
) -> None:
    mutation = """mutation($id: ID!) { correct(space: "alice", input: {claimId: $id,
        kind: RETRACT, reason: "x", evidence: [{observationId: $id}]}) { errors { code } } }"""
    writer = {
        "alice_secret_writer": await memory.admin.create_key(
            "w2", [Grant("alice", Privacy.NORMAL, True)]
        )
    }
    world.keys["alice_normal_writer"] = writer["alice_secret_writer"].secret
    hidden = await as_key(client, world, "alice_normal_writer", mutation, id=world.ids["secret"])
    assert hidden["data"]["correct"]["errors"] == [{"code": "NOT_FOUND"}]
    remember = """mutation { remember(space: "alice", input: {key: "pref:ui:x", value: {value: 1},
        privacy: SECRET, evidence: [{observationId: "none"}]}) { errors { code field } } }"""
    above = await as_key(client, world, "alice_normal_writer", remember)
    assert above["data"]["remember"]["errors"] == [{"code": "FORBIDDEN", "field": "privacy"}]


async def test_legal_holds_need_a_legal_grant(
    memory: Memory, world: World, client: httpx.AsyncClient
) -> None:
    mutation = """mutation { setLegalHold(space: "alice", selector: {kind: SPACE},
        reason: "audit") { holdId errors { code } } }"""
    refused = await as_key(client, world, "alice_secret_writer", mutation)
    assert refused["data"]["setLegalHold"]["errors"] == [{"code": "FORBIDDEN"}]
    world.keys["counsel"] = (
        await memory.admin.create_key("c", [Grant("alice", Privacy.SECRET, write=True, legal=True)])
    ).secret
    placed = await as_key(client, world, "counsel", mutation)
    assert placed["data"]["setLegalHold"]["errors"] == []


async def test_forgetting_a_space_withdraws_its_grants_from_every_key(
    memory: Memory, world: World, client: httpx.AsyncClient
) -> None:
    both = await memory.admin.create_key(
        "both", [Grant("alice", Privacy.SECRET, write=True), Grant("bob", Privacy.NORMAL)]
    )
    world.keys["both"] = both.secret
    operator = Actor.operator("test")
    await memory.forgetting.forget(
        operator,
        "alice",
        ForgetInput(selector=Selector(kind=SelectorKind.SPACE), reason="account closed"),
    )
    await memory.writes.create_space(operator, "alice", "someone else, same name")
    query = '{ claims(space: "alice") { nodes { key } } }'
    for key in ("both", "alice_normal", "alice_secret_writer"):
        refused = await as_key(client, world, key, query)
        assert refused["errors"][0]["extensions"] == {"code": "FORBIDDEN", "field": "space"}, key
    bob = await as_key(client, world, "both", '{ claims(space: "bob") { nodes { key } } }')
    assert "errors" not in bob and len(bob["data"]["claims"]["nodes"]) == 4
    grants = {k["keyId"]: k["grants"] for k in await memory.admin.list_keys()}
    assert grants[both.key_id] == [
        {"space": "bob", "tier": "normal", "write": False, "legal": False, "rules": False}
    ]
    assert sorted(len(g) for g in grants.values()) == [0, 0, 1, 1]
