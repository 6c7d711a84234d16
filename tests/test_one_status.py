"""One revision, one status per view: a revision superseded by the view's `knownAt` is never
`ACTIVE` in that view — not in a mutation's answer, `claims`, `claimHistory`, a search with
history, an export, nor the Browser guide's history — and a search with history ranks the
`CURRENT` revision of a key above the others.
"""

from __future__ import annotations

import json
from typing import Any

import httpx

from graph.runtime import Graph, guide_queries
from tests.http import gql

FACT = "fact:person/alice:WORKS_AT"
SAID = [{"text": "Alice: I work at Acme. No, Globex — I mixed them up."}]


def works_at(org: str) -> dict[str, Any]:
    return {
        "type": "FACT",
        "subject": {"name": "Alice", "kind": "PERSON"},
        "predicate": "WORKS_AT",
        "object": {"name": org, "kind": "ORG"},
        "validFrom": "2020-01-01T00:00:00Z",
        "evidence": SAID,
    }


async def data(client: httpx.AsyncClient, query: str, **variables: Any) -> dict[str, Any]:
    answer = await gql(client, query, variables)
    assert "errors" not in answer, answer
    return answer["data"]  # type: ignore[no-any-return]


async def statuses_in_view(
    client: httpx.AsyncClient, graph: Graph, known_at: str | None
) -> dict[str, Any]:
    """Every surface's (object name, status) pairs in the view known at `known_at`."""
    found = await data(
        client,
        """query($knownAt: DateTime) {
          claimHistory(space: "s", key: "fact:person/alice:WORKS_AT", knownAt: $knownAt) {
            status object { name } }
          search(space: "s", query: "Alice works at", includeHistory: true, knownAt: $knownAt) {
            state claim { key status object { name } } }
          claims(space: "s", knownAt: $knownAt, filter: {predicate: "WORKS_AT",
                 statuses: [ACTIVE, DISPUTED, RETRACTED, SUPERSEDED]}) {
            nodes { status object { name } } }
        }""",
        knownAt=known_at,
    )
    return {
        "history": [(c["object"]["name"], c["status"]) for c in found["claimHistory"]],
        "search": [
            (h["claim"]["object"]["name"], h["claim"]["status"], h["state"])
            for h in found["search"]
            if h["claim"]["key"] == FACT
        ],
        "claims": [(c["object"]["name"], c["status"]) for c in found["claims"]["nodes"]],
    }


async def test_a_revision_superseded_by_knownat_is_never_active_on_any_surface(
    client: httpx.AsyncClient, graph: Graph
) -> None:
    await data(client, 'mutation { createSpace(name: "s") { space { id } } }')
    told = await data(
        client,
        """mutation($inputs: [RememberInput!]!) { rememberMany(space: "s", inputs: $inputs) {
             claims { id status recordedAt object { name } } errors { code } } }""",
        inputs=[works_at("Acme"), works_at("Globex")],
    )
    answered = told["rememberMany"]["claims"]
    assert [(c["object"]["name"], c["status"]) for c in answered] == [
        ("Acme", "SUPERSEDED"),
        ("Globex", "ACTIVE"),
    ], "the later item of a batch replaced the earlier one at the same start"
    before = answered[1]["recordedAt"]
    await data(
        client,
        """mutation { remember(space: "s", input: {key: "entity:org:initech",
             value: {name: "Initech"}, evidence: [{text: "Initech is a company"}]}) {
             claim { id } } }""",
    )
    corrected = await data(
        client,
        """mutation($id: ID!) { correct(space: "s", input: {claimId: $id, kind: SUPERSEDE,
             object: {name: "Initech", kind: ORG}, reason: "it was Initech",
             evidence: [{text: "Alice: sorry, Initech"}]}) {
             claim { status object { name } } errors { code message } } }""",
        id=answered[1]["id"],
    )
    assert corrected["correct"]["claim"] == {"status": "ACTIVE", "object": {"name": "Initech"}}, (
        corrected
    )

    then = await statuses_in_view(client, graph, before)
    assert then["history"] == [("Acme", "SUPERSEDED"), ("Globex", "ACTIVE")]
    assert then["claims"] == [("Globex", "ACTIVE")]
    assert then["search"][0] == ("Globex", "ACTIVE", "CURRENT")
    assert ("Acme", "SUPERSEDED", "SUPERSEDED") in then["search"]

    now = await statuses_in_view(client, graph, None)
    assert now["history"] == [
        ("Acme", "SUPERSEDED"),
        ("Globex", "SUPERSEDED"),
        ("Initech", "ACTIVE"),
    ]
    assert now["claims"] == [("Initech", "ACTIVE")]
    assert now["search"][0] == ("Initech", "ACTIVE", "CURRENT"), "CURRENT ranks first in a key"
    for _, status, state in now["search"]:
        assert (status == "ACTIVE") == (state == "CURRENT")

    exported = await data(client, '{ export(space: "s", format: JSONL) }')
    lines = [json.loads(line) for line in exported["export"].splitlines() if line]
    assert [line.get("object") for line in lines if line.get("predicate") == "WORKS_AT"] == [
        "entity:org:initech"
    ]

    guide = {"space": "s", "person": "entity:person:alice"}
    for other in ("globex", "initech"):
        history = await graph.read(
            guide_queries.RELATION_HISTORY, **guide, other=f"entity:org:{other}"
        )
        assert [(row["revision"], row["status"]) for row in history] == [
            (1, "superseded"),
            (2, "superseded"),
            (3, "active"),
        ]
