"""The MCP `remember` tool speaks names in one call: entities by name and kind, the user's words
as evidence_text recorded in the same transaction, and a refused call records none of them."""

from __future__ import annotations

from graph.runtime import Graph
from tests.story import count
from tests.test_client import server  # noqa: F401 - the `engram serve --no-dev` fixture
from tests.test_mcp import Keys, call, keys, over_http, quotes, refused  # noqa: F401 - fixtures

SAID = "Alice: I joined Acme Corp in March"
JOINED = "2023-03-01T00:00:00+00:00"


def works_at(subject: dict[str, str]) -> dict[str, object]:
    return {
        "type": "FACT",
        "subject": subject,
        "predicate": "WORKS_AT",
        "object": {"name": "Acme Corp", "kind": "ORG"},
    }


async def test_one_remember_call_creates_entities_by_name_and_records_the_text_as_evidence(
    server: str,  # noqa: F811 - the imported fixture
    keys: Keys,  # noqa: F811 - the imported fixture
    graph: Graph,
) -> None:
    async with over_http(server, keys.agent) as session:
        [job, age] = await call(
            session,
            "remember",
            space="alice",
            evidence_text=SAID,
            observed_at=JOINED,
            items=[
                works_at({"name": "Alice", "kind": "PERSON"}),
                {"type": "FACT", "subject": {"name": "alice"}, "predicate": "AGE", "value": 34},
            ],
        )
    assert {k: job[k] for k in ("key", "subject", "predicate", "object", "valid")} == {
        "key": "fact:person/alice:WORKS_AT",
        "subject": "Alice (entity:person:alice)",
        "predicate": "WORKS_AT",
        "object": "Acme Corp (entity:org:acme-corp)",
        "valid": [JOINED, None],
    }
    assert (age["key"], age["subject"]) == ("fact:person/alice:AGE", "Alice (entity:person:alice)")
    assert quotes(job) == quotes(age) == [("SUPPORTED_BY", SAID)]
    assert job["evidence"][0]["observationId"] == age["evidence"][0]["observationId"]
    assert await count(graph, "Observation") == 1
    assert await count(graph, "Entity") == 2


async def test_a_remember_refused_for_an_ambiguous_name_records_no_observation(
    server: str,  # noqa: F811 - the imported fixture
    keys: Keys,  # noqa: F811 - the imported fixture
    graph: Graph,
) -> None:
    async with over_http(server, keys.agent) as session:
        await call(
            session,
            "remember",
            space="alice",
            evidence_text="two people called Alice",
            items=[
                {"key": "entity:person:alice-smith", "value": {"name": "Alice"}},
                {"key": "entity:person:alice-jones", "value": {"name": "Alice"}},
            ],
        )
        before = (await count(graph, "Observation"), await count(graph, "Claim"))
        text = await refused(
            session,
            "remember",
            space="alice",
            evidence_text=SAID,
            items=[works_at({"name": "Bob", "kind": "PERSON"}), works_at({"name": "alice"})],
        )
    assert text == (
        "AMBIGUOUS_SUBJECT: name 'alice' names 2 entities (entity:person:alice-jones, "
        "entity:person:alice-smith); refer to one by key or id (field items[1].subject)"
    )
    assert (await count(graph, "Observation"), await count(graph, "Claim")) == before
    assert await count(graph, "Entity") == 2


async def test_what_was_said_is_recalled_by_words_window_and_role_as_messages(
    server: str,  # noqa: F811 - the imported fixture
    keys: Keys,  # noqa: F811 - the imported fixture
) -> None:
    async with over_http(server, keys.agent) as session:
        await call(
            session,
            "remember",
            space="alice",
            evidence_text=SAID,
            observed_at=JOINED,
            items=[works_at({"name": "Alice", "kind": "PERSON"})],
        )
        found = await call(session, "messages", space="alice", query="joined Acme")
        window = await call(
            session, "messages", space="alice", role="USER", **{"from": "2023-03", "to": "2023-04"}
        )
        elsewhere = await call(session, "messages", space="alice", role="ASSISTANT")
        wrong = await refused(session, "messages", space="alice", role="CAT")
        changed = await call(
            session, "changes", space="alice", axis="VALID", **{"from": "2023-03", "to": "2023-04"}
        )
    [hit] = found
    assert {k: hit[k] for k in ("content", "role", "observedAt")} == {
        "content": SAID,
        "role": "USER",
        "observedAt": JOINED,
    }
    assert "words" in hit["sources"]
    assert [(h["content"], h["sources"]) for h in window] == [(SAID, ["time"])]
    assert elsewhere == []
    assert wrong.startswith("VALIDATION: role: ")
    assert [(c["kind"], c["claim"]["text"]) for c in changed["changes"]] == [
        ("BEGAN", "Alice works at Acme Corp")
    ]
