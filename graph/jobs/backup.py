"""Backup: a portable, checksummed archive of what Engram knew at one recorded instant, written
while writes go on.

    report = await backup(graph, Path("engram.backup"), blob_root=settings.blobs)
    report.watermark        # the recovery point: the archive holds what was known then

The backup sets every recorded-time clock to one instant, the watermark, in a write that commits
at once (`graph.store.clock.BARRIER`), and then exports, in one read transaction that takes no
lock, every row recorded by then as it was then (`graph.jobs.watermark`).
Writers are never blocked; what they record meanwhile is after the watermark and stays out. What
is forgotten meanwhile stays forgotten: the ledger is read last and holds every tombstone up to
then, and a restore replays it. The archive's format is in `graph.jobs.archive`; restoring is
`graph.jobs.restore`.
"""

from __future__ import annotations

import hashlib
import io
import json
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, LiteralString

from neo4j import AsyncManagedTransaction, Record

from graph.domain.timeutil import to_native, utc_now
from graph.erasure.ledger import replay_ledger
from graph.jobs.archive import FORMAT, Progress, encode, read_manifest
from graph.jobs.restore import RestoreReport, restore
from graph.jobs.watermark import RECORDED_BY_WATERMARK, node_at, relationship_at
from graph.store.clock import BARRIER
from graph.store.db import Graph, run
from graph.store.migrate import load as load_migrations

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
"""The watermark of a database that never recorded anything: nothing is known by it."""

# The migration ledger is not data: the target applies its own migrations, and the manifest
# records which ones the backup was made under. Meaning vectors (and the markers of the spaces
# that have their own vector index) are derived data (and would be
# most of the archive): they stay out, and the restored claims join the embedding outbox.
# The totals only size the progress bars.
COUNT: LiteralString = """
CALL () {
  MATCH (n) WHERE NOT n:Migration AND NOT n:Meaning AND NOT n:MeaningIndex
  RETURN count(n) AS nodes
}
CALL () { MATCH ()-[r]->() WHERE NOT r:MEANS RETURN count(r) AS relationships }
RETURN nodes, relationships
"""

NODES_KNOWN_BY_WATERMARK: LiteralString = (
    """
MATCH (n)
WHERE NOT n:Migration AND NOT n:Meaning AND NOT n:MeaningIndex AND NOT n:Tombstone AND ("""
    + RECORDED_BY_WATERMARK
    + """)
RETURN elementId(n) AS key, labels(n) AS labels, properties(n) AS props,
       CASE WHEN n:Episode
         THEN COUNT { (n)-[h:HAS_OBSERVATION]->() WHERE h.recordedAt > $watermark }
         ELSE 0 END AS observationsAfter,
       CASE WHEN n:Episode
         THEN COLLECT { MATCH (n)-[h:HAS_OBSERVATION]->(o) WHERE h.recordedAt <= $watermark
                        RETURN [o.privacy, o.seq] }
         ELSE [] END AS numberedByThen,
       CASE WHEN n:Episode AND n.status = 'superseded'
         THEN EXISTS { (n)<-[:SUPERSEDES]-(newer:Episode) WHERE newer.sealedAt <= $watermark }
         ELSE true END AS supersededByThen
"""
)

# A relationship recorded by the watermark joins nodes recorded by then (they existed when it was
# made); one without a recorded time (a space's audit trail) goes when either end is left out: an
# audit event's time is `at`, every other row's `recordedAt`. Tombstones have no relationships.
RELATIONSHIPS_KNOWN_BY_WATERMARK: LiteralString = """
MATCH (a)-[r]->(b)
WHERE NOT r:MEANS AND CASE
    WHEN r.recordedAt IS NOT NULL THEN r.recordedAt <= $watermark
    ELSE coalesce(a.recordedAt, a.at, $watermark) <= $watermark
      AND coalesce(b.recordedAt, b.at, $watermark) <= $watermark
  END
RETURN elementId(a) AS start, elementId(b) AS end, type(r) AS type, properties(r) AS props
"""

LIVE_BLOBS: LiteralString = """
MATCH (a:Artifact {storage: 'blob'})
WHERE a.erasedAt IS NULL AND a.recordedAt <= $watermark
RETURN DISTINCT a.locator AS locator
"""

TOMBSTONES: LiteralString = """
MATCH (t:Tombstone)
RETURN elementId(t) AS key, labels(t) AS labels, properties(t) AS props
ORDER BY t.watermark, t.id
"""


@dataclass
class BackupReport:
    path: Path
    bytes: int
    nodes: int
    """Nodes in the archive, tombstones included."""
    relationships: int
    blobs: int
    tombstones: int
    watermark: datetime
    """The recorded time the backup covers (its recovery point)."""
    seconds: float


async def backup(
    graph: Graph,
    path: Path,
    *,
    blob_root: Path,
    progress: Progress | None = None,
    as_known_at: datetime | None = None,
) -> BackupReport:
    """Write a checksummed archive of what was known at the watermark (and its live blobs) to
    `path`; writers go on meanwhile. The watermark is the clock when the backup starts, or
    `as_known_at`, an earlier recorded instant (what was forgotten since stays forgotten)."""
    started = time.perf_counter()
    tmp = path.with_name(path.name + ".partial")

    # A moment's write: every clock set to one instant at or after every tick so far.
    watermark = to_native((await graph.write(BARRIER))[0]["watermark"])

    async def work(tx: AsyncManagedTransaction) -> BackupReport:
        nonlocal watermark
        if as_known_at is not None:
            watermark = min(watermark, to_native(as_known_at))
        counts = (await run(tx, COUNT))[0]
        digests: dict[str, str] = {}
        with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as archive:

            def write(member: str, rows: list[dict[str, Any]]) -> None:
                data = "".join(_line(row) for row in rows).encode("utf-8")
                archive.writestr(member, data)
                digests[member] = hashlib.sha256(data).hexdigest()

            members = _Members(tx, archive, watermark, progress, digests)
            nodes = await members.dump(
                "nodes.jsonl", NODES_KNOWN_BY_WATERMARK, _node_row, counts["nodes"]
            )
            relationships = await members.dump(
                "relationships.jsonl",
                RELATIONSHIPS_KNOWN_BY_WATERMARK,
                _relationship_row,
                counts["relationships"],
            )
            blobs = 0
            for row in await run(tx, LIVE_BLOBS, watermark=watermark):
                relative = str(row["locator"]).removeprefix("blob:")
                source = (blob_root / relative).resolve()
                if source.is_relative_to(blob_root.resolve()) and source.is_file():
                    data = source.read_bytes()
                    archive.writestr(f"blobs/{relative}", data)
                    digests[f"blobs/{relative}"] = hashlib.sha256(data).hexdigest()
                    blobs += 1
            # Last, so every forget that reached anything exported above is in the ledger.
            tombstones = [
                {**row, "props": {k: encode(v) for k, v in row["props"].items()}}
                for row in await run(tx, TOMBSTONES)
            ]
            write("tombstones.jsonl", tombstones)
            manifest = {
                "format": FORMAT,
                "createdAt": utc_now().isoformat(),
                "watermark": watermark.isoformat(),
                "migrations": [
                    {"version": m.version, "name": m.name, "checksum": m.checksum}
                    for m in load_migrations()
                ],
                "counts": {
                    "nodes": nodes + len(tombstones),
                    "relationships": relationships,
                    "blobs": blobs,
                    "tombstones": len(tombstones),
                },
                "sha256": digests,
            }
            archive.writestr("manifest.json", json.dumps(manifest, indent=2, sort_keys=True))
        return BackupReport(
            path,
            0,
            nodes + len(tombstones),
            relationships,
            blobs,
            len(tombstones),
            watermark,
            0.0,
        )

    report = await graph.read_tx(work)
    tmp.replace(path)
    report.bytes = path.stat().st_size
    report.seconds = time.perf_counter() - started
    return report


def _line(row: dict[str, Any]) -> str:
    return json.dumps(row, sort_keys=True, ensure_ascii=False) + "\n"


def _node_row(record: Record, watermark: datetime) -> dict[str, Any]:
    props = node_at(
        record["labels"],
        record["props"],
        watermark,
        observations_after=record["observationsAfter"],
        numbered_by_then=record["numberedByThen"],
        superseded_by_then=record["supersededByThen"],
    )
    return {"key": record["key"], "labels": record["labels"], "props": props}


def _relationship_row(record: Record, watermark: datetime) -> dict[str, Any]:
    row = record.data()
    return {**row, "props": relationship_at(row["type"], row["props"], watermark)}


@dataclass
class _Members:
    """The archive's members being written from one transaction, as known at `watermark`."""

    tx: AsyncManagedTransaction
    archive: zipfile.ZipFile
    watermark: datetime
    progress: Progress | None
    digests: dict[str, str]

    async def dump(
        self,
        member: str,
        query: LiteralString,
        row_of: Callable[[Record, datetime], dict[str, Any]],
        total: int,
    ) -> int:
        """Write the rows of `query` to `member`, one JSON line each (values encoded), and note
        its sha256; the number of rows."""
        digest = hashlib.sha256()
        written = 0
        with (
            self.archive.open(member, "w") as out,
            io.TextIOWrapper(out, encoding="utf-8") as text,
        ):
            result = await self.tx.run(query, watermark=self.watermark)
            async for record in result:
                row = row_of(record, self.watermark)
                line = _line({**row, "props": {k: encode(v) for k, v in row["props"].items()}})
                text.write(line)
                digest.update(line.encode("utf-8"))
                written += 1
                if self.progress is not None and written % 1000 == 0:
                    self.progress(member, written, total)
        if self.progress is not None:
            self.progress(member, written, total)
        self.digests[member] = digest.hexdigest()
        return written


# Restoring lives in graph.jobs.restore; these names stay importable from here for callers that
# think of backup and restore as one thing.
__all__ = [
    "BackupReport",
    "RestoreReport",
    "backup",
    "read_manifest",
    "replay_ledger",
    "restore",
]
