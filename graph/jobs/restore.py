"""Restore: a backup archive into an isolated, empty target, which replays the tombstone ledger
before it serves, then verifies itself.

    restored = await restore(target_graph, Path("engram.backup"), ledger=live_graph,
                             blob_root=target_blobs)

A restore refuses a damaged archive (`graph.jobs.archive.read_manifest`) before it touches the
target, loads into an empty database, then erases again whatever any tombstone — in the archive
or in the live ledger — says was forgotten, so a backup taken before a forget never brings it
back.
"""

from __future__ import annotations

import io
import json
import re
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, LiteralString

from graph.commands.entity_names import REFOLD_SPOKEN_NAMES
from graph.commands.told_facts_upgrade import (
    FILL_RELATION_RANKS,
    FILL_TOLD_RANKS,
    READABLE_TEXTS,
)
from graph.domain.errors import SetupError
from graph.erasure.ledger import replay_ledger, retract_orphans
from graph.erasure.purge_outbox import purge_blobs, purge_spaces
from graph.jobs.archive import Progress, decode, read_manifest
from graph.store.clock import SET_ALL_CLOCKS
from graph.store.db import Graph
from graph.store.integrity import violations
from graph.store.migrate import load as load_migrations
from graph.store.migrate import migrate
from graph.store.text_indexes import text_indexes_caught_up

BATCH = 2000
LEDGER_IN_NODES = "engram-backup/1"
"""The first format kept tombstones in nodes.jsonl (its tombstones.jsonl only repeats them)."""
_NAME = re.compile(r"^[A-Z][A-Za-z0-9_]{0,63}$")

TO_EMBED_AGAIN: LiteralString = """
MATCH (c:Claim)
WHERE c.text IS NOT NULL AND c.erasedAt IS NULL AND NOT c:Unembedded
CALL (c) { SET c:Unembedded } IN TRANSACTIONS OF 5000 ROWS
"""

IS_EMPTY: LiteralString = """
MATCH (n)
WHERE NOT n:Migration
RETURN count(n) = 0 AS empty
"""

AWAIT_INDEXES: LiteralString = "CALL db.awaitIndexes(300)"

# Loaded nodes carry the label and key below until the relationships are in; their lookup index
# (`engram_restoring`) is made by migration V0012, so a restore changes no schema.
LOAD_NODES: LiteralString = """
UNWIND $rows AS row
CREATE (n:EngramRestoring)
SET n = row.props, n.restoreKey = row.key
SET n:$(row.labels)
"""

LOAD_RELATIONSHIPS: LiteralString = """
UNWIND $rows AS row
MATCH (a:EngramRestoring {restoreKey: row.start})
MATCH (b:EngramRestoring {restoreKey: row.end})
CREATE (a)-[r:$(row.type)]->(b)
SET r = row.props
"""

FINISH_RESTORE: LiteralString = """
MATCH (n:EngramRestoring)
CALL (n) { REMOVE n:EngramRestoring REMOVE n.restoreKey } IN TRANSACTIONS OF 5000 ROWS
"""


UNERASED_TOMBSTONED: LiteralString = """
MATCH (t:Tombstone)
UNWIND t.erasedIds AS id
CALL (id) {
  MATCH (c:Claim {id: id}) WHERE c.erasedAt IS NULL OR c.valueJson IS NOT NULL RETURN c.id AS bad
  UNION MATCH (o:Observation {id: id}) WHERE o.erasedAt IS NULL OR o.content IS NOT NULL
    RETURN o.id AS bad
  UNION MATCH (e:Entity {id: id}) WHERE e.erasedAt IS NULL RETURN e.id AS bad
  UNION MATCH (a:Artifact {id: id}) WHERE a.erasedAt IS NULL RETURN a.id AS bad
  UNION MATCH (p:Episode {id: id}) WHERE p.erasedAt IS NULL RETURN p.id AS bad
}
RETURN collect(bad) AS bad
"""

UNPURGED_SPACES: LiteralString = """
MATCH (s:Space) WHERE s.erasedAt IS NOT NULL
MATCH (n {spaceId: s.id})
WHERE NOT n:Tombstone AND NOT n:AuditEvent
RETURN count(n) AS n
"""

SMOKE_ENTITY: LiteralString = """
MATCH (e:Entity)-[r]->(:Entity)
WHERE r.claimId IS NOT NULL AND r.supersededAt IS NULL AND e.erasedAt IS NULL
RETURN e.id AS id, e.spaceId AS spaceId
LIMIT 1
"""

SMOKE_RELATED: LiteralString = """
MATCH (e:Entity {id: $id})-[r]-(other:Entity)
WHERE r.claimId IS NOT NULL AND r.supersededAt IS NULL
RETURN count(other) AS reached
"""


def _props(props: dict[str, Any]) -> dict[str, Any]:
    return {k: decode(v) for k, v in props.items()}


@dataclass
class RestoreReport:
    nodes: int
    relationships: int
    blobs: int
    replayed_tombstones: int
    watermark: datetime
    """Recovery point: the recorded time the backup covers."""
    seconds: float
    """Recovery time: from opening the archive to a verified target."""
    archive_bytes: int
    checks: dict[str, Any] = field(default_factory=dict)


def check_archive(path: Path) -> dict[str, Any]:
    """The manifest of an archive this Engram can restore; `SetupError` (one line) when the
    archive is damaged or was made under migrations this Engram does not ship. Run it before
    anything is started for a restore."""
    manifest = read_manifest(path)
    ours = {m.version: m.checksum for m in load_migrations()}
    for migration in manifest["migrations"]:
        if ours.get(migration["version"]) != migration["checksum"]:
            raise SetupError(
                f"the backup was made with migration {migration['name']} that this Engram "
                "does not ship (or ships changed); restore it with a matching Engram"
            )
    return manifest


async def restore(
    target: Graph,
    path: Path,
    *,
    blob_root: Path,
    ledger: Graph | None = None,
    progress: Progress | None = None,
) -> RestoreReport:
    """Restore `path` into the empty `target`, replay tombstones, verify; returns the report."""
    started = time.perf_counter()
    manifest = check_archive(path)
    await migrate(target)
    if not (await target.read(IS_EMPTY))[0]["empty"]:
        raise SetupError("the restore target is not empty; restore into an empty database")
    await target.write(AWAIT_INDEXES)
    counts = manifest["counts"]
    with zipfile.ZipFile(path) as archive:
        nodes = await _load(target, archive, "nodes.jsonl", counts["nodes"], progress, _node)
        if manifest["format"] != LEDGER_IN_NODES:
            nodes += await _load(
                target, archive, "tombstones.jsonl", counts["tombstones"], progress, _node
            )
        relationships = await _load(
            target, archive, "relationships.jsonl", counts["relationships"], progress, _relationship
        )
        blobs = 0
        for member in archive.namelist():
            if member.startswith("blobs/") and not member.endswith("/"):
                destination = (blob_root / member.removeprefix("blobs/")).resolve()
                if not destination.is_relative_to(blob_root.resolve()):
                    raise SetupError(f"archive member {member} would leave the blob root")
                destination.parent.mkdir(parents=True, exist_ok=True)
                destination.write_bytes(archive.read(member))
                blobs += 1
    async with target.driver.session(database=target.database) as session:
        await (await session.run(FINISH_RESTORE)).consume()
    async with target.driver.session(database=target.database) as session:
        await (await session.run(TO_EMBED_AGAIN)).consume()
        # An archive made before entity claims carried their spoken names as names fold now
        # (V0011, V0015) gets them, and told facts' ranks and texts in words (V0015).
        for upgrade in (REFOLD_SPOKEN_NAMES, FILL_TOLD_RANKS, FILL_RELATION_RANKS, READABLE_TEXTS):
            await (await session.run(upgrade)).consume()
    watermark = datetime.fromisoformat(manifest["watermark"])
    await target.write(SET_ALL_CLOCKS, now=watermark)
    replayed = await replay_ledger(target, ledger) if ledger is not None else 0
    replayed += await replay_ledger(target, target)
    await retract_orphans(target)
    await purge_blobs(target, blob_root)
    await purge_spaces(target)
    await text_indexes_caught_up(target)
    checks = await verify(target, manifest, nodes, relationships)
    return RestoreReport(
        nodes=nodes,
        relationships=relationships,
        blobs=blobs,
        replayed_tombstones=replayed,
        watermark=watermark,
        seconds=time.perf_counter() - started,
        archive_bytes=path.stat().st_size,
        checks=checks,
    )


def _node(row: dict[str, Any]) -> dict[str, Any]:
    for label in row["labels"]:
        if not _NAME.match(label):
            raise SetupError(f"refusing label {label!r} from the archive")
    return {"key": row["key"], "labels": row["labels"], "props": _props(row["props"])}


def _relationship(row: dict[str, Any]) -> dict[str, Any]:
    if not _NAME.match(row["type"]):
        raise SetupError(f"refusing relationship type {row['type']!r} from the archive")
    return {
        "start": row["start"],
        "end": row["end"],
        "type": row["type"],
        "props": _props(row["props"]),
    }


async def _load(
    target: Graph,
    archive: zipfile.ZipFile,
    member: str,
    total: int,
    progress: Progress | None,
    shape: Callable[[dict[str, Any]], dict[str, Any]],
) -> int:
    query = LOAD_RELATIONSHIPS if member == "relationships.jsonl" else LOAD_NODES
    loaded = 0
    batch: list[dict[str, Any]] = []
    with archive.open(member) as raw, io.TextIOWrapper(raw, encoding="utf-8") as lines:
        for line in lines:
            batch.append(shape(json.loads(line)))
            if len(batch) >= BATCH:
                await target.write(query, rows=batch)
                loaded += len(batch)
                batch = []
                if progress is not None:
                    progress(member, loaded, total)
    if batch:
        await target.write(query, rows=batch)
        loaded += len(batch)
    if progress is not None:
        progress(member, loaded, total)
    return loaded


async def verify(
    target: Graph, manifest: dict[str, Any], nodes: int, relationships: int
) -> dict[str, Any]:
    """The restore's checks; raises SetupError when one fails."""
    checks: dict[str, Any] = {}
    expected = manifest["counts"]
    if (nodes, relationships) != (expected["nodes"], expected["relationships"]):
        raise SetupError(
            f"restored {nodes} nodes / {relationships} relationships, "
            f"the archive has {expected['nodes']} / {expected['relationships']}"
        )
    checks["counts"] = {"nodes": nodes, "relationships": relationships}
    checks["checksums"] = "verified"
    broken = await violations(target)
    if broken:
        raise SetupError(f"restored data breaks invariants: {broken}")
    checks["invariants"] = "hold"
    bad = (await target.read(UNERASED_TOMBSTONED))[0]["bad"]
    if bad:
        raise SetupError(f"tombstoned data is present after the ledger replay: {bad[:5]}")
    if (await target.read(UNPURGED_SPACES))[0]["n"]:
        raise SetupError("a forgotten space still has nodes after the replay")
    checks["tombstones"] = "no forgotten data present"
    smoke = await target.read(SMOKE_ENTITY)
    if smoke:
        reached = (await target.read(SMOKE_RELATED, id=smoke[0]["id"]))[0]["reached"]
        if reached < 1:
            raise SetupError("the smoke `related` query reached nothing")
        checks["smoke"] = f"related reached {reached} entities"
    else:
        checks["smoke"] = "no relations to walk"
    return checks
