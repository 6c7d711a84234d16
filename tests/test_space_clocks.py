"""A clock per space: recorded time strictly increasing within a space, writers of different
spaces never waiting for each other, and a backup's watermark still one consistent instant."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import LiteralString

import pytest

from graph.commands.writing import TICK_IN_SPACE
from graph.domain.model import Claim
from graph.memory import DEV_ACTOR, Memory
from graph.runtime import Embedder, Graph, Settings
from tests.support import until_async


@pytest.fixture
async def memory(graph: Graph, test_settings: Settings, embedder: Embedder) -> Memory:
    return Memory(graph, test_settings, embedder)


async def said_in(memory: Memory, space: str) -> str:
    """A new space with one observation in it; the observation's id."""
    await memory.writes.create_space(DEV_ACTOR, space)
    chat = await memory.writes.open_episode(DEV_ACTOR, space, {"title": "chat"})
    said = await memory.writes.record_observation(
        DEV_ACTOR, space, {"episode_id": chat.id, "content": "many things", "role": "user"}
    )
    return said.id


BLOCKED_TRANSACTIONS: LiteralString = """
SHOW TRANSACTIONS YIELD status WHERE status STARTS WITH 'Blocked' RETURN count(*) AS blocked
"""


async def blocked_on_a_lock(graph: Graph, writer: asyncio.Task[Claim]) -> None:
    """Until Neo4j shows a transaction waiting for a lock (the writer has reached the clock)."""

    async def one_blocked() -> bool:
        assert not writer.done(), "the writer finished without waiting"
        return (await graph.read(BLOCKED_TRANSACTIONS))[0]["blocked"] > 0

    await until_async(one_blocked, within=30, every=0.01, failing="no writer waited for the clock")


async def remember(memory: Memory, space: str, said: str, n: int) -> Claim:
    [claim] = await memory.writes.remember(
        DEV_ACTOR,
        space,
        [
            {
                "key": f"pref:other:n{n}",
                "value": {"value": n},
                "evidence": [{"observation_id": said}],
            }
        ],
    )
    return claim


async def test_concurrent_writers_of_one_space_record_strictly_increasing_times(
    memory: Memory, graph: Graph
) -> None:
    said = await said_in(memory, "alice")
    claims = await asyncio.gather(*(remember(memory, "alice", said, n) for n in range(30)))
    stamps = sorted(claim.recorded_at for claim in claims)
    audit = await graph.read(
        "MATCH (a:AuditEvent {spaceId: $id}) RETURN a.at AS at", id=claims[0].space_id
    )
    [clock] = await graph.read("MATCH (s:Space {name: 'alice'}) RETURN s.clockNow AS now")
    assert len(set(stamps)) == 30
    assert len({row["at"] for row in audit}) == len(audit) == 30 + 3, "space, episode, said"
    assert clock["now"].to_native() == stamps[-1]


async def test_a_write_in_one_space_commits_while_another_space_s_clock_is_held(
    memory: Memory, graph: Graph
) -> None:
    in_alice = await said_in(memory, "alice")
    in_bob = await said_in(memory, "bob")
    async with graph.driver.session(database=graph.database) as session:
        held = await session.begin_transaction()
        [tick] = await (await held.run(TICK_IN_SPACE, space="alice")).data()
        waiting = asyncio.create_task(remember(memory, "alice", in_alice, 1))
        bob = await asyncio.wait_for(remember(memory, "bob", in_bob, 1), timeout=30)
        await blocked_on_a_lock(graph, waiting)
        alice_waited = not waiting.done()
        await held.rollback()
        alice = await asyncio.wait_for(waiting, timeout=30)
    assert bob.revision == 1
    assert alice_waited, "alice's writer waits for alice's clock"
    assert alice.recorded_at > tick["now"].to_native()


async def test_a_backup_watermark_orders_every_space_s_writes(
    memory: Memory, tmp_path: Path
) -> None:
    in_alice = await said_in(memory, "alice")
    in_bob = await said_in(memory, "bob")
    before = await remember(memory, "alice", in_alice, 1)
    report = await memory.admin.backup(tmp_path / "b.zip")
    after_bob = await remember(memory, "bob", in_bob, 1)
    after_alice = await remember(memory, "alice", in_alice, 2)
    assert before.recorded_at <= report.watermark
    assert after_bob.recorded_at > report.watermark
    assert after_alice.recorded_at > report.watermark
