"""Mutations over HTTP: an agent's whole write path, with typed errors and nothing half-done."""

from __future__ import annotations

from typing import Any

import httpx

from graph.runtime import Graph
from tests.http import gql
from tests.story import count


async def call(client: httpx.AsyncClient, query: str, **variables: Any) -> dict[str, Any]:
    body = await gql(client, query, variables)
    assert "errors" not in body, body
    data: dict[str, Any] = body["data"]
    return data


async def test_an_agent_remembers_links_and_corrects_over_graphql(
    client: httpx.AsyncClient, graph: Graph
) -> None:
    await call(client, 'mutation { createSpace(name: "alice") { errors { code } } }')
    opened = await call(
        client,
        'mutation { openEpisode(space: "alice", input: {title: "chat"}) '
        "{ episode { id status } errors { code } } }",
    )
    episode = opened["openEpisode"]["episode"]
    assert episode["status"] == "OPEN"

    async def say(text: str) -> str:
        data = await call(
            client,
            """mutation($e: ID!, $t: String!) { recordObservation(space: "alice",
               input: {episodeId: $e, content: $t, observedAt: "2024-01-01T00:00:00Z"})
               { observation { id seq } errors { code } } }""",
            e=episode["id"],
            t=text,
        )
        return str(data["recordObservation"]["observation"]["id"])

    first = await say("I'm Alice and I work at Acme")
    for key, name in [("entity:person:alice", "Alice"), ("entity:org:acme", "Acme")]:
        await call(
            client,
            """mutation($k: String!, $n: String!, $o: ID!) { remember(space: "alice",
               input: {key: $k, value: {name: $n}, evidence: [{observationId: $o}]})
               { claim { revision } errors { code message } } }""",
            k=key,
            n=name,
            o=first,
        )
    linked = await call(
        client,
        """mutation($o: ID!) { link(space: "alice", input: {
             from: {name: "Alice"}, type: "WORKS_AT", to: {key: "entity:org:acme"},
             evidence: [{observationId: $o}], idempotencyKey: "link-1"})
           { claim { id key revision recordedAt subject { name } object { name } }
             errors { code } } }""",
        o=first,
    )
    claim = linked["link"]["claim"]
    assert (claim["key"], claim["revision"]) == ("fact:person/alice:WORKS_AT", 1)
    assert (claim["subject"]["name"], claim["object"]["name"]) == ("Alice", "Acme")
    assert claim["recordedAt"].endswith("+00:00")

    left = await say("I left Acme last month")
    correction = """mutation($id: ID!, $o: ID!, $rev: Int!) { correct(space: "alice", input: {
        claimId: $id, kind: SUPERSEDE, validTo: "2024-06-01T00:00:00Z", reason: "left",
        evidence: [{observationId: $o}], expectedRevision: $rev})
      { claim { revision validTo } errors { code field message } } }"""
    fixed = await call(client, correction, id=claim["id"], o=left, rev=1)
    assert fixed["correct"] == {
        "claim": {"revision": 2, "validTo": "2024-06-01T00:00:00+00:00"},
        "errors": [],
    }
    stale = await call(client, correction, id=claim["id"], o=left, rev=1)
    assert stale["correct"]["claim"] is None
    [conflict] = stale["correct"]["errors"]
    assert (conflict["code"], conflict["field"]) == ("REVISION_CONFLICT", "expectedRevision")
    assert conflict["message"] == "fact:person/alice:WORKS_AT is at revision 2, not 1"


async def test_input_errors_are_typed_and_write_nothing(
    client: httpx.AsyncClient, graph: Graph
) -> None:
    await call(client, 'mutation { createSpace(name: "alice") { errors { code } } }')
    no_evidence = await call(
        client,
        """mutation { remember(space: "alice", input: {key: "pref:ui:theme",
             value: {value: "dark"}, evidence: []}) { claim { id } errors { code field } } }""",
    )
    assert no_evidence["remember"]["errors"] == [{"code": "VALIDATION", "field": "evidence"}]
    bad_type = await call(
        client,
        """mutation { link(space: "alice", input: {from: {key: "entity:person:a"},
             type: "works at", to: {key: "entity:org:b"}, evidence: [{observationId: "x"}]})
             { errors { code field message } } }""",
    )
    assert bad_type["link"]["errors"][0]["code"] == "VALIDATION"
    assert "UPPER_SNAKE_CASE" in bad_type["link"]["errors"][0]["message"]
    unknown_space = await call(
        client,
        'mutation { openEpisode(space: "nowhere") { errors { code field } } }',
    )
    assert unknown_space["openEpisode"]["errors"] == [{"code": "NOT_FOUND", "field": "space"}]
    assert await count(graph, "Claim") == 0
    assert await count(graph, "Episode") == 0


async def test_a_batch_names_the_item_whose_input_is_wrong_and_writes_nothing(
    client: httpx.AsyncClient, graph: Graph
) -> None:
    await call(client, 'mutation { createSpace(name: "alice") { errors { code } } }')
    refused = await call(
        client,
        """mutation { rememberMany(space: "alice", inputs: [
             {key: "pref:ui:theme", value: {value: "dark"}, evidence: [{observationId: "o"}]},
             {key: "pref:ui:font", value: {size: 12}, evidence: [{observationId: "o"}]},
             {key: "pref:ui:lang", value: {value: "en"}, evidence: []}])
             { claims { id } errors { code field message } } }""",
    )
    assert refused["rememberMany"] == {
        "claims": [],
        "errors": [
            {
                "code": "VALIDATION",
                "field": "inputs[1].value.value",
                "message": "a preference value needs 'value'",
            }
        ],
    }
    assert await count(graph, "Claim") == 0
