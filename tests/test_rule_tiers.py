"""Predicate rules under tiers: declaring one is an administrative act (a key with the rules
grant), a reader is shown only the rules of predicates it can read facts of, and a rule that
would give facts already written other keys is refused."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from api.app import create_app
from graph.commands.apikeys import Grant, create_key
from graph.domain.actor import Actor
from graph.domain.model import Privacy
from graph.memory import Memory
from graph.store.db import Graph, Neo4jTarget
from graph.store.neomodel_bridge import share_driver
from graph.store.settings import Settings
from tests.http import gql, running

DECLARE = """
mutation($predicate: String!, $cardinality: Cardinality!) {
  declarePredicate(space: "home", predicate: $predicate, cardinality: $cardinality) {
    rule { predicate cardinality declared }
    errors { code field message }
  }
}
"""

RULES = '{ predicateRules(space: "home") { predicate cardinality declared } }'

REMEMBER = """
mutation($predicate: String!, $object: String!, $privacy: Privacy!) {
  remember(space: "home", input: {type: FACT, subject: {name: "Ann", kind: PERSON},
           predicate: $predicate, object: {name: $object, kind: OTHER}, privacy: $privacy,
           evidence: [{text: "Ann told us"}]}) {
    claim { key }
    errors { code field message }
  }
}
"""


@dataclass(frozen=True)
class Keys:
    public: str
    """Reads and writes `home` up to public."""
    secret: str
    """Reads and writes `home` up to secret, without the rules grant."""
    rules: str
    """Reads `home` up to normal, with the rules grant."""


@pytest.fixture
async def keys(graph: Graph, test_settings: Settings) -> Keys:
    await Memory(graph, test_settings).create_space(Actor.operator("test"), "home")
    await share_driver(graph)
    public = await create_key("public", [Grant("home", Privacy.PUBLIC, write=True)])
    secret = await create_key("secret", [Grant("home", Privacy.SECRET, write=True)])
    rules = await create_key("rules", [Grant("home", Privacy.NORMAL, rules=True)])
    return Keys(public.secret, secret.secret, rules.secret)


@pytest.fixture
async def client(
    test_settings: Settings, neo4j_target: Neo4jTarget
) -> AsyncIterator[httpx.AsyncClient]:
    production = test_settings.model_copy(update={"dev": False})
    async with running(create_app(production, neo4j_target)) as http:
        yield http


async def ask(client: httpx.AsyncClient, key: str, query: str, **variables: Any) -> Any:
    body = await gql(client, query, variables, headers={"authorization": f"Bearer {key}"})
    assert "errors" not in body, body
    return body["data"]


async def declared(client: httpx.AsyncClient, key: str) -> dict[str, str]:
    rules = (await ask(client, key, RULES))["predicateRules"]
    return {r["predicate"]: r["cardinality"] for r in rules if r["declared"]}


async def test_only_a_key_with_the_rules_grant_declares_a_rule_whatever_its_tier(
    client: httpx.AsyncClient, keys: Keys
) -> None:
    for writer in (keys.public, keys.secret):
        refused = await ask(client, writer, DECLARE, predicate="OWNS", cardinality="ONE")
        assert refused["declarePredicate"]["rule"] is None
        [error] = refused["declarePredicate"]["errors"]
        assert (error["code"], error["field"]) == ("FORBIDDEN", "space")
        assert "may not declare predicate rules" in error["message"]
    assert await declared(client, keys.rules) == {}

    done = await ask(client, keys.rules, DECLARE, predicate="OWNS", cardinality="ONE")
    assert done["declarePredicate"] == {
        "rule": {"predicate": "OWNS", "cardinality": "ONE", "declared": True},
        "errors": [],
    }


async def test_a_reader_sees_the_rules_of_predicates_it_can_read_facts_of(
    client: httpx.AsyncClient, keys: Keys
) -> None:
    for predicate in ("OWNS", "GUARDS"):
        await ask(client, keys.rules, DECLARE, predicate=predicate, cardinality="MANY")
    secret_fact = await ask(
        client, keys.secret, REMEMBER, predicate="GUARDS", object="Vault", privacy="SECRET"
    )
    public_fact = await ask(
        client, keys.public, REMEMBER, predicate="OWNS", object="Boat", privacy="PUBLIC"
    )
    assert secret_fact["remember"]["errors"] == public_fact["remember"]["errors"] == []

    assert await declared(client, keys.public) == {"OWNS": "MANY"}
    assert await declared(client, keys.secret) == {"GUARDS": "MANY", "OWNS": "MANY"}
    assert await declared(client, keys.rules) == {"GUARDS": "MANY", "OWNS": "MANY"}
    defaults = (await ask(client, keys.public, RULES))["predicateRules"]
    assert {"predicate": "WORKS_AT", "cardinality": "ONE", "declared": False} in defaults


async def test_a_rule_that_would_rekey_facts_already_written_is_refused(
    client: httpx.AsyncClient, keys: Keys
) -> None:
    await ask(client, keys.secret, REMEMBER, predicate="OWNS", object="Boat", privacy="SECRET")

    same = await ask(client, keys.rules, DECLARE, predicate="OWNS", cardinality="MANY")
    other = await ask(client, keys.rules, DECLARE, predicate="OWNS", cardinality="ONE")

    assert same["declarePredicate"]["errors"] == []
    assert other["declarePredicate"]["rule"] is None
    assert other["declarePredicate"]["errors"] == [
        {
            "code": "VALIDATION",
            "field": "cardinality",
            "message": "predicate OWNS already has facts keyed under the other rule in this "
            "space; a rule is declared before a predicate's first fact (Engram does not re-key "
            "facts)",
        }
    ]
    assert await declared(client, keys.rules) == {"OWNS": "MANY"}
    later = await ask(
        client, keys.secret, REMEMBER, predicate="OWNS", object="Car", privacy="SECRET"
    )
    assert later["remember"]["claim"]["key"] == "fact:person/ann:OWNS:other/car"
