"""neomodel owns the API keys and the migration ledger: it reaches Engram's database from any
context without private attributes, its declared schema is the migrated one, and a forgotten
space's grants are withdrawn through it — after the forget commits, before the name can be taken
again."""

from __future__ import annotations

import asyncio
import contextvars
import io
import json
from pathlib import Path

from neomodel import adb, get_config

from graph.commands.apikeys import (
    ApiKey,
    Grant,
    authenticate,
    create_key,
    list_keys,
    revoke_key,
    withdraw_space_grants,
)
from graph.commands.spaces import list_spaces
from graph.domain.actor import Actor
from graph.domain.vocabulary import Privacy, SelectorKind
from graph.erasure.forget import forget
from graph.jobs.backup import backup
from graph.jobs.restore import restore
from graph.memory import ForgetInput, Memory, Selector
from graph.runtime import Graph
from graph.store.migrate import MigrationRecord
from graph.store.neomodel_bridge import (
    DATABASE_NAME,
    bound_graph,
    in_neomodel,
    neomodel_database,
    neomodel_driver_is,
    share_driver,
)

OPERATOR = Actor.operator("test")

MARKED = "MATCH (s:Space) WHERE s.grantsToWithdraw IS NOT NULL RETURN s"
CONSTRAINTS = "SHOW CONSTRAINTS YIELD name, labelsOrTypes, properties RETURN * ORDER BY name"


async def test_neomodel_reaches_the_configured_database_from_a_fresh_context(
    graph: Graph,
) -> None:
    await share_driver(graph)
    # A request's context is no child of the one share_driver ran in.
    fresh = contextvars.Context()
    database = await asyncio.create_task(neomodel_database(graph), context=fresh)
    assert (database, neomodel_driver_is(graph)) == (graph.database, True)


async def test_set_connection_binds_the_database_only_in_its_own_context(graph: Graph) -> None:
    """What the bridge rests on: if neomodel ever makes the database process-wide, this fails
    and `share_driver` can simply call `set_connection`."""
    config = get_config()
    try:
        config.database_name = "system"
        elsewhere = contextvars.Context()
        await asyncio.create_task(adb.set_connection(driver=graph.driver), context=elsewhere)
        there = asyncio.create_task(adb.cypher_query(DATABASE_NAME), context=elsewhere.copy())
        here = await asyncio.create_task(
            adb.cypher_query(DATABASE_NAME), context=contextvars.Context()
        )
        assert ((await there)[0], here[0]) == ([["system"]], [["neo4j"]])
    finally:
        await share_driver(graph)


async def test_the_schema_neomodel_declares_is_the_migrated_one(graph: Graph) -> None:
    before = await graph.read(CONSTRAINTS)
    said = io.StringIO()
    for model in (ApiKey, MigrationRecord):
        await in_neomodel(graph, adb.install_labels(model, stdout=said))
    assert await graph.read(CONSTRAINTS) == before
    assert {"name": "api_key_id", "labelsOrTypes": ["ApiKey"], "properties": ["keyId"]} in before
    assert {
        "name": "migration_version",
        "labelsOrTypes": ["Migration"],
        "properties": ["version"],
    } in before
    assert said.getvalue().count("Neo.ClientError.Schema.ConstraintAlreadyExists") == 2


async def test_a_forgotten_name_is_taken_again_only_after_its_grants_are_withdrawn(
    memory: Memory,
    graph: Graph,
) -> None:
    await share_driver(graph)
    await memory.writes.create_space(OPERATOR, "alice", "")
    issued = await create_key("k", [Grant("alice", Privacy.NORMAL), Grant("bob", Privacy.NORMAL)])
    # What a crash between a forget's commit and its outbox leaves: closed, grants still there.
    await graph.write(
        "MATCH (s:Space {name: 'alice'}) "
        "SET s.erasedAt = datetime(), s.grantsToWithdraw = s.name, s.name = 'forgotten-' + s.id"
    )
    await memory.writes.create_space(OPERATOR, "alice", "someone else")
    assert [s.description for s in await list_spaces(graph)] == ["someone else"]
    assert [k["grants"] for k in await list_keys()] == [
        [{"space": "bob", "tier": "normal", "write": False, "legal": False, "rules": False}]
    ]
    actor = await authenticate(graph, issued.secret)
    assert actor is not None and sorted(actor.grants) == ["bob"]
    assert await graph.read(MARKED) == []


async def test_concurrent_withdrawals_and_a_revoke_lose_none_of_their_changes(
    graph: Graph,
) -> None:
    await share_driver(graph)
    spaces = [f"s{i}" for i in range(6)]
    issued = await create_key("k", [Grant(space, Privacy.NORMAL) for space in spaces])
    changed = await asyncio.gather(
        revoke_key(issued.key_id), *(withdraw_space_grants(graph, s) for s in spaces)
    )
    assert changed == [True, 1, 1, 1, 1, 1, 1]
    assert [(k["grants"], k["revoked"]) for k in await list_keys()] == [([], True)]
    assert await withdraw_space_grants(graph, "s0") == 0


async def test_a_restore_withdraws_again_the_grants_of_a_space_forgotten_after_its_backup(
    memory: Memory, graph: Graph, restored: Graph, tmp_path: Path
) -> None:
    await share_driver(graph)
    await memory.writes.create_space(OPERATOR, "alice", "")
    issued = await create_key("k", [Grant("alice", Privacy.NORMAL), Grant("bob", Privacy.NORMAL)])
    await backup(graph, tmp_path / "b.zip", blob_root=tmp_path)
    await forget(
        graph,
        "alice",
        ForgetInput(selector=Selector(kind=SelectorKind.SPACE), reason="closed"),
        actor=OPERATOR,
        blob_root=tmp_path,
    )
    try:
        await restore(restored, tmp_path / "b.zip", blob_root=tmp_path / "r", ledger=graph)
        # neomodel has one driver per process: the restore's withdrawal bound it to the target.
        assert bound_graph() is restored
    finally:
        await share_driver(graph)
    rows = await restored.read(
        "MATCH (k:ApiKey {keyId: $id}) RETURN k.grants AS grants", id=issued.key_id
    )
    assert [json.loads(row["grants"]) for row in rows] == [
        [{"space": "bob", "tier": "normal", "write": False, "legal": False, "rules": False}]
    ]
    assert await restored.read(MARKED) == []
