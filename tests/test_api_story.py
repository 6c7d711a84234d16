"""The GraphQL API over HTTP on a small story: exact `related` and `explainRelation` answers at
three asOf/knownAt points, including the view before a correction was recorded."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from graph.runtime import Graph
from tests.http import gql
from tests.people_story import People, on, people_story

RELATED = """
query Related($asOf: DateTime, $knownAt: DateTime, $hops: Int!) {
  related(space: "alice", entity: {key: "entity:person:alice"}, hops: $hops,
          asOf: $asOf, knownAt: $knownAt) {
    nodes { distance entity { key name } }
    relations { type status from { key } to { key } validFrom validTo }
    truncated
  }
}
"""

EXPLAIN = """
query Explain($from: String!, $to: String!, $asOf: DateTime, $knownAt: DateTime) {
  explainRelation(space: "alice", from: {key: $from}, to: {key: $to}, maxHops: 4,
                  asOf: $asOf, knownAt: $knownAt) {
    reason
    paths {
      length
      steps {
        direction
        from { name }
        to { name }
        relation { type validFrom validTo }
        claim { key revision confidence status }
        evidence { kind text observedAt }
      }
    }
  }
}
"""


@pytest.fixture
async def people(graph: Graph) -> People:
    return await people_story(graph)


async def ask(client: httpx.AsyncClient, query: str, **variables: Any) -> dict[str, Any]:
    body = await gql(client, query, variables)
    assert "errors" not in body, body
    data: dict[str, Any] = body["data"]
    return data


def nodes(data: dict[str, Any]) -> list[tuple[str, int, str]]:
    return [(n["entity"]["key"], n["distance"], n["entity"]["name"]) for n in data["nodes"]]


def edges(data: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    return [
        (
            r["from"]["key"].rsplit(":", 1)[1],
            r["type"],
            r["to"]["key"].rsplit(":", 1)[1],
            r["status"],
        )
        for r in data["relations"]
    ]


async def test_related_in_mid_2022_reaches_bob_through_acme(
    people: People, client: httpx.AsyncClient
) -> None:
    data = (await ask(client, RELATED, asOf=on(2022, 6).isoformat(), hops=2))["related"]
    assert nodes(data) == [
        ("entity:person:alice", 0, "Alice"),
        ("entity:org:acme", 1, "Acme Global"),
        ("entity:person:bob", 2, "Bob"),
    ]
    assert sorted(edges(data)) == [
        ("alice", "WORKS_AT", "acme", "active"),
        ("bob", "WORKS_AT", "acme", "active"),
    ]
    assert data["truncated"] is False


async def test_related_in_2025_follows_the_job_change_and_drops_what_only_acme_reached(
    people: People, client: httpx.AsyncClient
) -> None:
    data = (await ask(client, RELATED, asOf=on(2025, 1).isoformat(), hops=2))["related"]
    assert nodes(data) == [
        ("entity:person:alice", 0, "Alice"),
        ("entity:org:globex", 1, "Globex"),
        ("entity:project:engram", 1, "Engram"),
        ("entity:person:carol", 2, "Carol"),
    ]
    assert sorted(edges(data)) == [
        ("alice", "CONTRIBUTES_TO", "engram", "active"),
        ("alice", "WORKS_AT", "globex", "active"),
        ("carol", "CONTRIBUTES_TO", "engram", "disputed"),
        ("carol", "WORKS_AT", "globex", "active"),
    ]


async def test_related_in_2025_before_the_correction_was_recorded_still_sees_acme(
    people: People, client: httpx.AsyncClient
) -> None:
    data = (
        await ask(
            client,
            RELATED,
            asOf=on(2025, 1).isoformat(),
            knownAt=people.before_correction.isoformat(),
            hops=1,
        )
    )["related"]
    assert nodes(data) == [
        ("entity:person:alice", 0, "Alice"),
        ("entity:org:acme", 1, "Acme Global"),
        ("entity:org:globex", 1, "Globex"),
        ("entity:project:engram", 1, "Engram"),
    ]
    [acme] = [r for r in data["relations"] if r["to"]["key"] == "entity:org:acme"]
    assert acme["validTo"] is None, "before the correction, the job had no end"


async def test_explain_alice_to_bob_in_2022_walks_through_acme_with_evidence(
    people: People, client: httpx.AsyncClient
) -> None:
    data = await ask(
        client,
        EXPLAIN,
        **{"from": "entity:person:alice", "to": "entity:person:bob"},
        asOf=on(2022, 6).isoformat(),
    )
    [path] = data["explainRelation"]["paths"]
    assert data["explainRelation"]["reason"] is None
    assert path["length"] == 2
    first, second = path["steps"]
    assert (
        first["direction"],
        first["from"]["name"],
        first["relation"]["type"],
        first["to"]["name"],
    ) == ("OUT", "Alice", "WORKS_AT", "Acme Global")
    assert first["claim"] == {
        "key": "fact:person/alice:WORKS_AT:org/acme",
        "revision": 2,
        "confidence": 0.9,
        "status": "ACTIVE",
    }
    assert first["relation"]["validTo"] == "2023-06-30T00:00:00+00:00"
    # The correction only ended the relation: what showed it still shows it for the time it
    # held, and the correction is cited as what corrected it.
    assert sorted((e["kind"], e["text"]) for e in first["evidence"]) == [
        ("CORRECTED_BY", "alice left Acme at the end of June 2023"),
        ("SUPPORTED_BY", "alice WORKS_AT acme"),
    ]
    assert (second["direction"], second["from"]["name"], second["to"]["name"]) == (
        "IN",
        "Acme Global",
        "Bob",
    )
    assert second["claim"]["key"] == "fact:person/bob:WORKS_AT:org/acme"
    assert [(e["kind"], e["text"], e["observedAt"]) for e in second["evidence"]] == [
        ("SUPPORTED_BY", "bob WORKS_AT acme", "2019-01-01T00:00:00+00:00")
    ]


async def test_explain_alice_to_bob_in_2025_finds_no_path_and_says_why(
    people: People, client: httpx.AsyncClient
) -> None:
    data = await ask(
        client,
        EXPLAIN,
        **{"from": "entity:person:alice", "to": "entity:person:bob"},
        asOf=on(2025, 1).isoformat(),
    )
    assert data["explainRelation"] == {
        "reason": "no visible path of at most 4 hops in this asOf/knownAt view",
        "paths": [],
    }


@pytest.mark.parametrize(
    ("source", "target", "named"),
    [
        ("entity:person:nobody", "entity:person:noone", "entity:person:nobody"),
        ("entity:person:alice", "entity:person:noone", "entity:person:noone"),
    ],
)
async def test_explain_with_an_unknown_reference_names_it_and_the_source_first(
    people: People, client: httpx.AsyncClient, source: str, target: str, named: str
) -> None:
    """The two references are looked up at once; the error is the source's when both fail."""
    body = await gql(client, EXPLAIN, {"from": source, "to": target})
    [error] = body["errors"]
    assert error["extensions"]["code"] == "NOT_FOUND"
    assert error["message"] == f"no visible entity {named!r}"


async def test_explain_alice_to_bob_in_2025_as_known_before_the_corrections(
    people: People, client: httpx.AsyncClient
) -> None:
    data = await ask(
        client,
        EXPLAIN,
        **{"from": "entity:person:alice", "to": "entity:person:bob"},
        asOf=on(2025, 1).isoformat(),
        knownAt=people.before_correction.isoformat(),
    )
    paths = data["explainRelation"]["paths"]
    assert [[(s["relation"]["type"], s["to"]["name"]) for s in p["steps"]] for p in paths] == [
        [("WORKS_AT", "Acme Global"), ("WORKS_AT", "Bob")]
    ]
    assert paths[0]["steps"][0]["claim"]["revision"] == 1
    assert paths[0]["steps"][0]["evidence"] == [
        {
            "kind": "SUPPORTED_BY",
            "text": "alice WORKS_AT acme",
            "observedAt": "2020-01-01T00:00:00+00:00",
        }
    ], "the correction's evidence was not yet known"


async def test_a_retracted_relation_is_gone_now_but_visible_before_the_retraction(
    people: People, client: httpx.AsyncClient
) -> None:
    query = """
    query($knownAt: DateTime) {
      related(space: "alice", entity: {key: "entity:person:bob"}, relationTypes: ["KNOWS"],
              asOf: "2024-06-01T00:00:00+00:00", knownAt: $knownAt) {
        nodes { entity { key } }
      }
    }"""
    now = await ask(client, query)
    assert [n["entity"]["key"] for n in now["related"]["nodes"]] == ["entity:person:bob"]
    then = await ask(client, query, knownAt=people.before_correction.isoformat())
    assert [n["entity"]["key"] for n in then["related"]["nodes"]] == [
        "entity:person:bob",
        "entity:person:carol",
    ]


async def test_entity_names_follow_the_rename_in_valid_time(
    people: People, client: httpx.AsyncClient
) -> None:
    query = """
    query($asOf: DateTime) {
      entity(space: "alice", key: "entity:org:acme", asOf: $asOf) { name aliases }
    }"""
    assert (await ask(client, query, asOf=on(2021, 1).isoformat()))["entity"] == {
        "name": "Acme Corp",
        "aliases": [],
    }
    assert (await ask(client, query, asOf=on(2023, 1).isoformat()))["entity"] == {
        "name": "Acme Global",
        "aliases": ["Acme Corp"],
    }


async def test_claim_history_shows_every_revision_with_reasons(
    people: People, client: httpx.AsyncClient
) -> None:
    query = """
    { claimHistory(space: "alice", key: "fact:person/alice:WORKS_AT:org/acme") {
        revision status validFrom validTo reason supersededAt
        evidence { kind text } } }"""
    history = (await ask(client, query))["claimHistory"]
    assert [(h["revision"], h["status"], h["validTo"], h["reason"]) for h in history] == [
        (1, "SUPERSEDED", None, None),
        (2, "ACTIVE", "2023-06-30T00:00:00+00:00", "she left"),
    ]
    assert history[0]["supersededAt"] is not None and history[1]["supersededAt"] is None
    assert ("CORRECTED_BY", "alice left Acme at the end of June 2023") in [
        (e["kind"], e["text"]) for e in history[0]["evidence"]
    ]


async def test_a_knownat_before_the_space_existed_is_history_unavailable(
    people: People, client: httpx.AsyncClient
) -> None:
    body = await gql(
        client,
        '{ claims(space: "alice", knownAt: "2000-01-01T00:00:00+00:00") { nodes { key } } }',
    )
    assert body["data"] == {"claims": None}
    [error] = body["errors"]
    assert error["extensions"]["code"] == "HISTORY_UNAVAILABLE"
    assert error["extensions"]["field"] == "knownAt"
    assert "keeps history from" in error["message"]
