"""Scale-out: a `neo4j://` routing URI works, and every read goes out as a read transaction.

Neo4j Community answers a routing URI with a one-member routing table (the server is reader and
writer), so the same local server shows that routing works end to end. Which access mode each
transaction asks for is what the driver puts on the wire: Bolt's `BEGIN` (and an auto-commit
`RUN`) carries `'mode': 'r'` for a read and nothing for a write; the driver logs every message
it sends at DEBUG on `neo4j.io`, which is what these tests read.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from dataclasses import replace

import pytest
from neo4j import AsyncNeo4jDriver

from graph.domain.actor import Grant
from graph.domain.read_records import ClaimFilter
from graph.domain.vocabulary import Privacy
from graph.memory import DEV_ACTOR, Memory
from graph.runtime import Embedder, Neo4jTarget, Settings

SAID = "I'm Alice; I work at Acme."


def routing(target: Neo4jTarget) -> Neo4jTarget:
    """The same server behind a routing URI."""
    assert target.uri.startswith("bolt://")
    return replace(target, uri="neo4j://" + target.uri.removeprefix("bolt://"), local=None)


def transactions_begun(records: list[logging.LogRecord]) -> list[str]:
    """'r' or 'w' for each transaction the driver began (explicit, or an auto-commit RUN)."""
    modes = []
    for record in records:
        message = record.getMessage()
        # An auto-commit RUN names the database; a RUN inside a transaction does not.
        autocommit = " C: RUN " in message and "'db': " in message
        if " C: BEGIN " in message or autocommit:
            modes.append("r" if "'mode': 'r'" in message else "w")
    return modes


@pytest.fixture
async def routed(
    neo4j_target: Neo4jTarget, test_settings: Settings, embedder: Embedder
) -> AsyncIterator[Memory]:
    memory = await Memory.open(test_settings, routing(neo4j_target), embedder=embedder)
    yield memory
    await memory.close()


async def test_a_routing_uri_connects_through_the_routing_driver(routed: Memory) -> None:
    assert isinstance(routed.graph.driver, AsyncNeo4jDriver)
    readiness = await routed.admin.readiness()
    assert readiness.pending == []
    assert readiness.neomodel_shares_driver is True
    assert readiness.neomodel_database == "neo4j"


async def test_writes_and_reads_through_memory_work_over_a_routing_uri(routed: Memory) -> None:
    await routed.writes.create_space(DEV_ACTOR, "alice")
    chat = await routed.writes.open_episode(DEV_ACTOR, "alice", {"title": "onboarding"})
    said = await routed.writes.record_observation(
        DEV_ACTOR, "alice", {"episode_id": chat.id, "content": SAID, "role": "user"}
    )
    evidence = [{"observation_id": said.id}]
    await routed.writes.remember(
        DEV_ACTOR,
        "alice",
        [
            {"key": "entity:person:alice", "value": {"name": "Alice"}, "evidence": evidence},
            {"key": "entity:org:acme", "value": {"name": "Acme Corp"}, "evidence": evidence},
        ],
    )
    [works] = await routed.writes.remember(
        DEV_ACTOR,
        "alice",
        [
            {
                "type": "fact",
                "subject": {"key": "entity:person:alice"},
                "predicate": "WORKS_AT",
                "object": {"key": "entity:org:acme"},
                "evidence": evidence,
            }
        ],
    )
    view = await routed.reads.view(DEV_ACTOR, "alice")
    [history] = await routed.reads.claim_history(view, works.key)
    near = await routed.reads.related(view, {"key": "entity:person:alice"}, hops=2)
    assert history.id == works.id
    assert sorted(entity.name for entity in near.entities) == ["Acme Corp", "Alice"]
    assert [relation.type for relation in near.relations] == ["WORKS_AT"]


async def test_every_read_of_a_request_asks_for_a_read_transaction(
    routed: Memory, caplog: pytest.LogCaptureFixture
) -> None:
    await routed.writes.create_space(DEV_ACTOR, "alice")
    issued = await routed.admin.create_key("agent", [Grant("alice", Privacy.PRIVATE)])
    with caplog.at_level(logging.DEBUG, logger="neo4j.io"):
        actor = await routed.admin.authenticate(issued.secret)
        assert actor is not None
        view = await routed.reads.view(actor, "alice")
        await routed.reads.claims(view, ClaimFilter())
        await routed.reads.context(view)
        await routed.reads.spaces(actor)
        await routed.admin.readiness()
        await routed.admin.list_keys()
    begun = transactions_begun(caplog.records)
    assert len(begun) >= 7
    assert set(begun) == {"r"}


async def test_a_write_asks_for_a_write_transaction(
    routed: Memory, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.DEBUG, logger="neo4j.io"):
        await routed.writes.create_space(DEV_ACTOR, "alice")
    assert "w" in transactions_begun(caplog.records)
