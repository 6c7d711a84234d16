"""Writes that speak names over GraphQL: facts by name and kind with their evidence as text in
one transaction, errors that name their item, predicate rules, correct and forget by key."""

from __future__ import annotations

from typing import Any

import httpx

from graph.runtime import Graph
from tests.http import gql
from tests.story import count

SAID = {"text": "Alice: I joined Acme Corp last week", "observedAt": "2024-01-10T00:00:00Z"}
ALICE = {"name": "Alice", "kind": "PERSON"}
ACME = {"name": "Acme Corp", "kind": "ORG"}

REMEMBER_MANY = """mutation($inputs: [RememberInput!]!) { rememberMany(space: "alice",
    inputs: $inputs) { claims { key revision subject { key name } object { key name }
    evidence { kind authority text observedAt } } errors { code field message } } }"""


async def call(client: httpx.AsyncClient, query: str, **variables: Any) -> dict[str, Any]:
    body = await gql(client, query, variables)
    assert "errors" not in body, body
    data: dict[str, Any] = body["data"]
    return data


def fact(subject: dict[str, str], predicate: str, obj: dict[str, str], **more: Any) -> Any:
    return {
        "type": "FACT",
        "subject": subject,
        "predicate": predicate,
        "object": obj,
        "evidence": [SAID],
        **more,
    }


async def space(client: httpx.AsyncClient) -> None:
    await call(client, 'mutation { createSpace(name: "alice") { errors { code } } }')


async def entity_keys(graph: Graph) -> list[str]:
    rows = await graph.read("MATCH (e:Entity) RETURN e.key AS key ORDER BY key")
    return [row["key"] for row in rows]


async def test_remember_many_by_names_creates_entities_and_records_the_text_once(
    client: httpx.AsyncClient, graph: Graph
) -> None:
    await space(client)
    data = await call(
        client,
        REMEMBER_MANY,
        inputs=[
            fact(ALICE, "WORKS_AT", ACME),
            fact({"name": "alice"}, "KNOWS", {"name": "Bob", "kind": "PERSON"}),
        ],
    )
    payload = data["rememberMany"]
    assert payload["errors"] == []
    evidence = {
        "kind": "SUPPORTED_BY",
        "authority": "USER_STATED",
        "text": "Alice: I joined Acme Corp last week",
        "observedAt": "2024-01-10T00:00:00+00:00",
    }
    assert payload["claims"] == [
        {
            "key": "fact:person/alice:WORKS_AT",
            "revision": 1,
            "subject": {"key": "entity:person:alice", "name": "Alice"},
            "object": {"key": "entity:org:acme-corp", "name": "Acme Corp"},
            "evidence": [evidence],
        },
        {
            "key": "fact:person/alice:KNOWS:person/bob",
            "revision": 1,
            "subject": {"key": "entity:person:alice", "name": "Alice"},
            "object": {"key": "entity:person:bob", "name": "Bob"},
            "evidence": [evidence],
        },
    ]
    assert await entity_keys(graph) == [
        "entity:org:acme-corp",
        "entity:person:alice",
        "entity:person:bob",
    ]
    assert await count(graph, "Observation") == 1
    assert await count(graph, "Episode") == 1


async def test_an_ambiguous_name_in_item_two_names_that_item_and_writes_nothing(
    client: httpx.AsyncClient, graph: Graph
) -> None:
    await space(client)
    for key in ("entity:person:alice-smith", "entity:person:alice-jones"):
        await call(
            client,
            REMEMBER_MANY,
            inputs=[{"key": key, "value": {"name": "Alice"}, "evidence": [SAID]}],
        )
    before = (await count(graph, "Claim"), await count(graph, "Observation"))
    data = await call(
        client,
        REMEMBER_MANY,
        inputs=[
            fact({"name": "Carol", "kind": "PERSON"}, "WORKS_AT", ACME),
            {
                "key": "pref:ui:theme",
                "value": {"value": "dark"},
                "evidence": [{"text": "Carol: dark mode please"}],
            },
            fact({"name": "alice"}, "WORKS_AT", ACME),
        ],
    )
    assert data["rememberMany"] == {
        "claims": [],
        "errors": [
            {
                "code": "AMBIGUOUS_SUBJECT",
                "field": "inputs[2].subject",
                "message": "name 'alice' names 2 entities (entity:person:alice-jones, "
                "entity:person:alice-smith); refer to one by key or id",
            }
        ],
    }
    assert (await count(graph, "Claim"), await count(graph, "Observation")) == before
    assert await entity_keys(graph) == ["entity:person:alice-jones", "entity:person:alice-smith"]


async def test_declare_predicate_changes_the_rule_predicate_rules_lists(
    client: httpx.AsyncClient,
) -> None:
    await space(client)
    declared = await call(
        client,
        'mutation { declarePredicate(space: "alice", predicate: "WORKS_AT", cardinality: MANY) '
        "{ rule { predicate cardinality declared } errors { code } } }",
    )
    assert declared["declarePredicate"] == {
        "rule": {"predicate": "WORKS_AT", "cardinality": "MANY", "declared": True},
        "errors": [],
    }
    rules = await call(
        client, 'query { predicateRules(space: "alice") { predicate cardinality declared } }'
    )
    listed = {r["predicate"]: (r["cardinality"], r["declared"]) for r in rules["predicateRules"]}
    assert listed["WORKS_AT"] == ("MANY", True)
    assert listed["LIVES_IN"] == ("ONE", False)
    assert "KNOWS" not in listed
    data = await call(
        client,
        REMEMBER_MANY,
        inputs=[fact(ALICE, "WORKS_AT", ACME), fact(ALICE, "WORKS_AT", ACME | {"name": "Globex"})],
    )
    assert [c["key"] for c in data["rememberMany"]["claims"]] == [
        "fact:person/alice:WORKS_AT:org/acme-corp",
        "fact:person/alice:WORKS_AT:org/globex",
    ]
    stated = await call(
        client,
        REMEMBER_MANY,
        inputs=[fact(ALICE, "WORKS_AT", ACME, cardinality="ONE")],
    )
    [error] = stated["rememberMany"]["errors"]
    assert (error["code"], error["field"]) == ("VALIDATION", "inputs[0].cardinality")


async def test_correct_by_claim_key_revises_the_current_revision(
    client: httpx.AsyncClient,
) -> None:
    await space(client)
    await call(client, REMEMBER_MANY, inputs=[fact(ALICE, "WORKS_AT", ACME)])
    correction = """mutation($key: String!) { correct(space: "alice", input: {claimKey: $key,
        kind: RETRACT, reason: "she left", evidence: [{text: "Alice: I left Acme"}]})
      { claim { key revision status } errors { code field } } }"""
    done = await call(client, correction, key="fact:person/alice:WORKS_AT")
    assert done["correct"] == {
        "claim": {"key": "fact:person/alice:WORKS_AT", "revision": 2, "status": "RETRACTED"},
        "errors": [],
    }
    missing = await call(client, correction, key="fact:person/alice:LIVES_IN")
    assert missing["correct"]["claim"] is None
    assert [(e["code"], e["field"]) for e in missing["correct"]["errors"]] == [
        ("NOT_FOUND", "claimKey")
    ]


async def test_forget_selects_a_claim_by_key_and_an_entity_by_name(
    client: httpx.AsyncClient, graph: Graph
) -> None:
    await space(client)
    bob = {"name": "Bob", "kind": "PERSON"}
    await call(
        client, REMEMBER_MANY, inputs=[fact(ALICE, "WORKS_AT", ACME), fact(bob, "WORKS_AT", ACME)]
    )
    forget = """mutation($s: SelectorInput!) { forget(space: "alice", selector: $s,
        reason: "asked") { receipt { claims entities } errors { code field } } }"""
    by_key = await call(client, forget, s={"kind": "CLAIM", "key": "fact:person/alice:WORKS_AT"})
    # Alice was named by that fact alone, so she goes with it; Acme Corp is Bob's employer too.
    assert by_key["forget"] == {"receipt": {"claims": 1, "entities": 1}, "errors": []}
    by_name = await call(client, forget, s={"kind": "ENTITY", "name": "acme corp"})
    assert by_name["forget"]["errors"] == []
    assert by_name["forget"]["receipt"]["entities"] == 2, "Acme Corp, and Bob whom it alone named"
    kept = [key for key in await entity_keys(graph) if not key.startswith("forgotten:")]
    assert kept == []


async def test_authority_is_given_as_an_enum_and_checked_against_the_texts_role(
    client: httpx.AsyncClient, graph: Graph
) -> None:
    await space(client)
    stated = {"text": "I prefer dark mode", "authority": "USER_STATED"}
    data = await call(
        client,
        REMEMBER_MANY,
        inputs=[{"key": "pref:ui:theme", "value": {"value": "dark"}, "evidence": [stated]}],
    )
    [claim] = data["rememberMany"]["claims"]
    assert [(e["authority"], e["text"]) for e in claim["evidence"]] == [
        ("USER_STATED", "I prefer dark mode")
    ]
    refused = await call(
        client,
        REMEMBER_MANY,
        inputs=[
            {
                "key": "pref:ui:font",
                "value": {"value": "mono"},
                "evidence": [{**stated, "text": "You like mono", "role": "ASSISTANT"}],
            }
        ],
    )
    [error] = refused["rememberMany"]["errors"]
    assert (error["code"], error["field"]) == ("VALIDATION", "inputs[0].evidence[0].authority")
    assert refused["rememberMany"]["claims"] == []
    assert await count(graph, "Observation") == 1
