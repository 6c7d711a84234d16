"""Predicate rules under tiers: declaring one is an administrative act (a key with the rules
grant), a reader is shown only the rules of predicates it can read facts of, and a rule declared
after its predicate's facts re-keys them: every view then answers as if the rule had come first,
and a view as known before the declaration as it did."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from api.app import create_app
from graph.domain.actor import Actor, Grant
from graph.domain.vocabulary import Privacy
from graph.memory import Memory
from graph.runtime import Graph, Neo4jTarget, Settings
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
async def keys(memory: Memory, graph: Graph, test_settings: Settings) -> Keys:
    await Memory(graph, test_settings).writes.create_space(Actor.operator("test"), "home")
    public = await memory.admin.create_key("public", [Grant("home", Privacy.PUBLIC, write=True)])
    secret = await memory.admin.create_key("secret", [Grant("home", Privacy.SECRET, write=True)])
    rules = await memory.admin.create_key("rules", [Grant("home", Privacy.NORMAL, rules=True)])
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


TELL = """
mutation($space: String!, $object: String!, $privacy: Privacy!, $from: DateTime,
         $to: DateTime, $says: String!, $predicate: String! = "OWNS") {
  remember(space: $space, input: {type: FACT, subject: {name: "Ann", kind: PERSON},
           predicate: $predicate, object: {name: $object, kind: OTHER}, privacy: $privacy,
           validFrom: $from, validTo: $to, evidence: [{text: $says}]}) {
    claim { key recordedAt }
    errors { code field message }
  }
}
"""

DECLARE_IN = """
mutation($space: String!, $cardinality: Cardinality!) {
  declarePredicate(space: $space, predicate: "OWNS", cardinality: $cardinality) {
    errors { code field message }
  }
}
"""

VIEW = """
query($space: String!, $asOf: DateTime, $knownAt: DateTime) {
  claims(space: $space, filter: {keyPrefix: "fact:person/ann:OWNS"}, asOf: $asOf,
         knownAt: $knownAt, first: 100) {
    nodes { key status text validFrom validTo privacy object { name }
            evidence { kind text } }
  }
}
"""

# (object, tier, valid from, valid to, what the message said), told in this order.
TOLD = [
    ("Boat", "SECRET", "2020-01-01T00:00:00Z", None, "Ann bought a boat"),
    ("Car", "PUBLIC", "2021-01-01T00:00:00Z", None, "Ann bought a car"),
    ("Bike", "PUBLIC", "2021-01-01T00:00:00Z", None, "no, it was a bike"),
    ("Car", "SECRET", "2019-01-01T00:00:00Z", "2019-06-01T00:00:00Z", "Ann leased a car"),
    ("Bike", "PUBLIC", "2021-01-01T00:00:00Z", None, "Ann rides her bike"),
]
"""Facts of `OWNS` at two tiers: a closed stint, and two values at one start in one tier
line (under `ONE`, the later replaces the earlier; the same value again corroborates)."""

INSTANTS = [None, "2019-03-01T00:00:00Z", "2019-09-01T00:00:00Z", "2020-06-01T00:00:00Z"]


@pytest.fixture
async def both_spaces(graph: Graph, test_settings: Settings) -> Keys:
    """Keys for two spaces, `home` and `away`, told the same facts."""
    memory = Memory(graph, test_settings)
    for space in ("home", "away"):
        await memory.writes.create_space(Actor.operator("test"), space)
    made = []
    for name, tier, rules in (
        ("public", Privacy.PUBLIC, False),
        ("secret", Privacy.SECRET, False),
        ("rules", Privacy.NORMAL, True),
    ):
        grants = [Grant(space, tier, write=not rules, rules=rules) for space in ("home", "away")]
        made.append((await memory.admin.create_key(name, grants)).secret)
    return Keys(*made)


async def tell(client: httpx.AsyncClient, keys: Keys, space: str, told: list[Any]) -> str:
    """Tell `told` in `space`, in order; an instant after they were all recorded (the
    recorded time of a new fact told after them: a corroborating telling writes no row)."""
    recorded = ""
    marker = ("Tea", "PUBLIC", "2018-01-01T00:00:00Z", None, "noted", "LIKES")
    for obj, tier, start, end, says, *predicate in [*told, marker]:
        writer = keys.secret if tier == "SECRET" else keys.public
        answer = await ask(
            client,
            writer,
            TELL,
            space=space,
            object=obj,
            privacy=tier,
            says=says,
            **{"from": start, "to": end, "predicate": predicate[0] if predicate else "OWNS"},
        )
        assert answer["remember"]["errors"] == [], answer
        recorded = answer["remember"]["claim"]["recordedAt"]
    return recorded


async def declare(client: httpx.AsyncClient, keys: Keys, space: str, cardinality: str) -> None:
    answer = await ask(client, keys.rules, DECLARE_IN, space=space, cardinality=cardinality)
    assert answer["declarePredicate"]["errors"] == []


async def views(
    client: httpx.AsyncClient, keys: Keys, space: str, known_at: str | None = None
) -> dict[tuple[str, str | None], Any]:
    """What a public and a secret reader see at each instant, in a stable order."""
    seen = {}
    for reader, key in (("public", keys.public), ("secret", keys.secret)):
        for instant in INSTANTS:
            nodes = (await ask(client, key, VIEW, space=space, asOf=instant, knownAt=known_at))[
                "claims"
            ]["nodes"]
            for node in nodes:
                node["evidence"] = sorted(e["text"] for e in node["evidence"])
            seen[(reader, instant)] = sorted(nodes, key=lambda n: (n["key"], n["validFrom"]))
    return seen


async def test_facts_told_before_a_rule_answer_as_if_the_rule_had_come_first(
    client: httpx.AsyncClient, both_spaces: Keys
) -> None:
    keys = both_spaces
    await declare(client, keys, "home", "ONE")
    await tell(client, keys, "home", TOLD)
    before_rule = await tell(client, keys, "away", TOLD)
    as_told = await views(client, keys, "away")

    await declare(client, keys, "away", "ONE")

    rule_first = await views(client, keys, "home")
    assert await views(client, keys, "away") == rule_first
    assert rule_first[("secret", "2020-06-01T00:00:00Z")] == [
        {
            "key": "fact:person/ann:OWNS",
            "status": "ACTIVE",
            "text": "Ann owns Boat",
            "validFrom": "2020-01-01T00:00:00+00:00",
            "validTo": "2021-01-01T00:00:00+00:00",
            "privacy": "SECRET",
            "object": {"name": "Boat"},
            "evidence": ["Ann bought a boat"],
        }
    ]
    [now] = rule_first[("public", None)]
    assert (now["object"], now["evidence"]) == (
        {"name": "Bike"},
        ["Ann rides her bike", "no, it was a bike"],
    )
    assert await views(client, keys, "away", known_at=before_rule) == as_told


async def test_facts_of_a_one_rule_split_by_value_when_the_rule_becomes_many(
    client: httpx.AsyncClient, both_spaces: Keys
) -> None:
    keys = both_spaces
    told = [TOLD[0], TOLD[1], TOLD[3]]
    await declare(client, keys, "home", "MANY")
    await tell(client, keys, "home", told)
    await declare(client, keys, "away", "ONE")
    await tell(client, keys, "away", told)

    await declare(client, keys, "away", "MANY")

    many_first = await views(client, keys, "home")
    assert await views(client, keys, "away") == many_first
    assert [n["key"] for n in many_first[("secret", None)]] == [
        "fact:person/ann:OWNS:other/boat",
        "fact:person/ann:OWNS:other/car",
    ]
    history = await ask(
        client,
        keys.secret,
        '{ claimHistory(space: "away", key: "fact:person/ann:OWNS:other/boat") '
        "{ revision reason supersededAt } }",
    )
    assert history["claimHistory"] == [
        {"revision": 1, "reason": "re-keyed: OWNS is now MANY", "supersededAt": None}
    ]


async def test_declaring_the_rule_facts_are_already_keyed_by_restates_nothing(
    client: httpx.AsyncClient, keys: Keys
) -> None:
    await ask(client, keys.secret, REMEMBER, predicate="OWNS", object="Boat", privacy="SECRET")

    same = await ask(client, keys.rules, DECLARE, predicate="OWNS", cardinality="MANY")

    assert same["declarePredicate"]["errors"] == []
    history = await ask(
        client,
        keys.secret,
        '{ claimHistory(space: "home", key: "fact:person/ann:OWNS:other/boat") { revision } }',
    )
    assert history["claimHistory"] == [{"revision": 1}]
