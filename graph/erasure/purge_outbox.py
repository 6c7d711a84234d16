"""The purge outbox: work a forget leaves for after its commit — blob files to delete,
forgotten spaces' grants to withdraw from API keys and their nodes to sweep — marked on the
tombstones (or the closed space) so draining it never scans the ledger. `engram serve`, a restore
and every forget drain it; each step is safe to repeat.
"""

from __future__ import annotations

from pathlib import Path
from typing import LiteralString

from graph.commands.apikeys import withdraw_forgotten_grants
from graph.meaning.space_indexes import drop_index
from graph.store.db import Graph

# The outbox: tombstones labelled while work remains, so draining it never scans the ledger.
PENDING_BLOBS: LiteralString = """
MATCH (t:PendingBlobs)
RETURN t.id AS id, t.pendingBlobs AS blobs
"""

BLOB_STILL_USED: LiteralString = """
MATCH (a:Artifact {locator: $locator})
WHERE a.erasedAt IS NULL
MATCH (s:Space {id: a.spaceId})
WHERE s.erasedAt IS NULL
RETURN count(a) AS n
"""

BLOBS_PURGED: LiteralString = """
MATCH (t:Tombstone {id: $id})
REMOVE t.pendingBlobs, t:PendingBlobs
SET t.blobsPurgedAt = datetime()
"""

PENDING_SPACE_PURGES: LiteralString = """
MATCH (t:PendingSpacePurge)
RETURN t.id AS id, t.spaceId AS spaceId
"""

# One label at a time, so each sweep is anchored on a label (and its spaceId index) instead of
# scanning every node of every space; audit events and tombstones of the space stay.
_PURGE: LiteralString = """
WHERE n.spaceId = $spaceId
CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 2000 ROWS
"""
PURGE_SPACE_NODES: tuple[LiteralString, ...] = (
    "MATCH (n:Meaning)" + _PURGE,
    "MATCH (n:Claim)" + _PURGE,
    "MATCH (n:Observation)" + _PURGE,
    "MATCH (n:Episode)" + _PURGE,
    "MATCH (n:Artifact)" + _PURGE,
    "MATCH (n:Entity)" + _PURGE,
    "MATCH (n:LegalHold)" + _PURGE,
)

SPACE_PURGED: LiteralString = """
MATCH (t:Tombstone {id: $id})
REMOVE t.pendingSpacePurge, t:PendingSpacePurge
SET t.spacePurgedAt = datetime()
"""


async def purge_blobs(graph: Graph, blob_root: Path) -> int:
    """Delete blob files tombstones still list (unless another live artifact uses them)."""
    removed = 0
    for row in await graph.read(PENDING_BLOBS):
        for relative in row["blobs"]:
            still_used = await graph.read(BLOB_STILL_USED, locator=f"blob:{relative}")
            path = (blob_root / relative).resolve()
            if (
                still_used[0]["n"] == 0
                and path.is_relative_to(blob_root.resolve())
                and path.is_file()
            ):
                path.unlink()
                removed += 1
        await graph.write(BLOBS_PURGED, id=row["id"])
    return removed


async def purge_spaces(graph: Graph) -> int:
    """Withdraw forgotten spaces' grants, then physically delete their nodes (closed already
    at commit)."""
    await withdraw_forgotten_grants(graph)
    purged = 0
    for row in await graph.read(PENDING_SPACE_PURGES):
        await drop_index(graph, row["spaceId"])
        async with graph.driver.session(database=graph.database) as session:
            for purge in PURGE_SPACE_NODES:
                result = await session.run(purge, spaceId=row["spaceId"])
                await result.consume()
        await graph.write(SPACE_PURGED, id=row["id"])
        purged += 1
    return purged
