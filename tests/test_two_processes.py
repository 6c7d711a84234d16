"""Nothing assumes one API process: what one process changes, another sees on its next call.

Engram keeps no in-process copy of anything a second process could change: a key is looked up
on every request (and on every call of a stdio MCP session), a space's id and clock are read
when a view or a write opens, and the DataLoaders live for one request. These tests change
state in one process (a real `engram` command, or a second `Memory` on its own driver) and ask
the other at once.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from api.agent_mcp.transports import stdio_caller
from graph.domain.actor import Grant
from graph.domain.errors import Forbidden, NotFound
from graph.domain.vocabulary import Privacy
from graph.memory import DEV_ACTOR, Memory
from graph.runtime import Embedder, Graph, Neo4jTarget, Settings, connect
from tests.support import engram_env, run_engram


@pytest.fixture
async def this(graph: Graph, test_settings: Settings, embedder: Embedder) -> Memory:
    return Memory(graph, test_settings, embedder)


@pytest.fixture
async def other(
    neo4j_target: Neo4jTarget, test_settings: Settings, embedder: Embedder
) -> AsyncIterator[Memory]:
    """A second memory on its own driver (and connection pool), as a second API process."""
    connection = await connect(neo4j_target)
    yield Memory(connection, test_settings, embedder)
    await connection.close()


async def test_a_key_revoked_by_another_process_is_refused_at_once(
    this: Memory, test_settings: Settings, neo4j_target: Neo4jTarget
) -> None:
    await this.writes.create_space(DEV_ACTOR, "alice")
    issued = await this.admin.create_key("agent", [Grant("alice", Privacy.PRIVATE, write=True)])
    call = stdio_caller(this, DEV_ACTOR, issued.secret)
    before = await this.admin.authenticate(issued.secret)
    _, acting = await call(None)  # type: ignore[arg-type]  # the stdio caller ignores ctx
    assert before is not None
    assert acting.name == before.name == f"key:{issued.key_id}:agent"

    done = run_engram(engram_env(test_settings, neo4j_target), "keys", "revoke", issued.key_id)

    assert done.returncode == 0, done.stderr
    assert await this.admin.authenticate(issued.secret) is None
    with pytest.raises(Forbidden, match="revoked"):
        await call(None)  # type: ignore[arg-type]


async def test_a_space_forgotten_in_one_memory_is_gone_in_the_other_at_once(
    this: Memory, other: Memory
) -> None:
    first = await this.writes.create_space(DEV_ACTOR, "alice")
    issued = await this.admin.create_key("agent", [Grant("alice", Privacy.SECRET, write=True)])
    agent = await other.admin.authenticate(issued.secret)
    assert agent is not None
    assert (await other.reads.view(agent, "alice")).space_id == first.id

    await this.forgetting.forget(
        DEV_ACTOR, "alice", {"selector": {"kind": "SPACE"}, "reason": "asked to forget"}
    )

    with pytest.raises(NotFound):
        await other.reads.view(DEV_ACTOR, "alice")
    await this.forgetting.drain_purges()
    assert await other.admin.authenticate(issued.secret) is not None
    again = await this.writes.create_space(DEV_ACTOR, "alice")
    assert again.id != first.id
    assert (await other.reads.view(DEV_ACTOR, "alice")).space_id == again.id
    withdrawn = await other.admin.authenticate(issued.secret)
    assert withdrawn is not None
    assert withdrawn.grants == {}
