"""The tombstone ledger replayed onto a restored graph: whatever any tombstone says was forgotten
is erased again, so no restore brings forgotten data back.

    applied = await replay_ledger(restored, live)    # the live ledger's tombstones
    applied += await replay_ledger(restored, restored)  # the archive's own, applied again
    await retract_orphans(restored)
"""

from __future__ import annotations

import json
from typing import Any, LiteralString

from neo4j import AsyncManagedTransaction

from graph.commands.writing import TICK_NOW, WriteContext
from graph.domain.timeline import rank_instant
from graph.domain.timeutil import to_native
from graph.domain.vocabulary import Privacy
from graph.erasure.engine import CASCADE, CASCADE_REASON, Erasure, erase
from graph.erasure.selectors import Selection
from graph.store.clock import TICK_SPACE_BY_ID
from graph.store.db import Graph, run

LEDGER: LiteralString = """
MATCH (t:Tombstone)
RETURN properties(t) AS tombstone
ORDER BY t.watermark, t.id
"""

KNOWN_TOMBSTONES: LiteralString = """
MATCH (t:Tombstone)
RETURN t.id AS id
"""

INSERT_TOMBSTONE: LiteralString = """
CREATE (t:Tombstone)
SET t = $props
FOREACH (_ IN CASE WHEN t.pendingBlobs IS NULL THEN [] ELSE [1] END | SET t:PendingBlobs)
"""

IDS_BY_LABEL: LiteralString = """
UNWIND $ids AS id
CALL (id) {
  MATCH (c:Claim {id: id}) RETURN 'claims' AS kind
  UNION MATCH (o:Observation {id: id}) RETURN 'observations' AS kind
  UNION MATCH (e:Episode {id: id}) RETURN 'episodes' AS kind
  UNION MATCH (a:Artifact {id: id}) RETURN 'artifacts' AS kind
  UNION MATCH (e:Entity {id: id}) RETURN 'entities' AS kind
}
RETURN id, kind
"""

ADD_PENDING_BLOBS: LiteralString = """
MATCH (t:Tombstone {id: $id})
SET t.pendingBlobs = coalesce(t.pendingBlobs, []) + $blobs, t:PendingBlobs
"""

MARK_SPACE_PURGE: LiteralString = """
MATCH (t:Tombstone {id: $id})
SET t.pendingSpacePurge = true, t:PendingSpacePurge
"""

# A backup holds rows as they were at its watermark, but what a later forget erased stays erased,
# evidence links included; a claim that lost its only evidence that way is retracted here, as the
# forget's own cascade did in the live graph after the watermark.
ORPHANED_CLAIMS: LiteralString = """
MATCH (c:Claim)
WHERE c.supersededAt IS NULL AND c.erasedAt IS NULL AND c.status IN ['active', 'disputed']
  AND NOT EXISTS { MATCH (c)-[:SUPPORTED_BY]->(t) WHERE t.erasedAt IS NULL }
RETURN c.spaceId AS spaceId, collect(c.id) AS ids
"""

# An entity a forget below some tier lifted (see forget.LIFT_ENTITIES) is lifted again: an older
# backup holds it at the tier it had, where it must not come back into view.
REPLAY_LIFTS: LiteralString = """
UNWIND $lifts AS lift
MATCH (e:Entity {id: lift.id})
WHERE e.erasedAt IS NULL AND e.privacy < lift.privacy
SET e.privacy = lift.privacy
WITH e
CALL (e) {
  MATCH (e)-[m:MERGED_INTO]-(:Entity)
  WHERE m.privacy <= $tier
  DELETE m
}
"""

SPACE_BY_ID: LiteralString = """
MATCH (s:Space {id: $id})
RETURN s.name AS name, s.erasedAt IS NOT NULL AS erased
"""


async def replay_ledger(target: Graph, ledger: Graph) -> int:
    """Apply every tombstone of `ledger` that `target` has not applied yet; returns how many."""
    known = {row["id"] for row in await target.read(KNOWN_TOMBSTONES)}
    applied = 0
    for row in await ledger.read(LEDGER):
        tombstone = row["tombstone"]
        if tombstone["id"] in known and ledger is not target:
            continue
        await _apply(target, tombstone, insert=tombstone["id"] not in known)
        known.add(tombstone["id"])
        applied += 1
    return applied


async def retract_orphans(target: Graph) -> int:
    """Give every active claim left without unerased evidence a retracted revision (the
    forget cascade); returns how many."""
    retracted = 0
    for row in await target.read(ORPHANED_CLAIMS):

        async def work(tx: AsyncManagedTransaction, row: dict[str, Any] = row) -> int:
            now = to_native((await run(tx, TICK_SPACE_BY_ID, spaceId=row["spaceId"]))[0]["now"])
            done = await run(
                tx,
                CASCADE,
                ids=row["ids"],
                spaceId=row["spaceId"],
                now=now,
                nowRank=rank_instant(now),
                reason=CASCADE_REASON,
                actor="restore",
            )
            return len(done)

        retracted += await target.write_tx(work)
    return retracted


async def _apply(target: Graph, tombstone: dict[str, Any], *, insert: bool) -> None:
    async def work(tx: AsyncManagedTransaction) -> None:
        # The space's clock when the space is there (its recorded times stay strictly
        # increasing); the global one for a tombstone of a space the archive does not hold.
        space = await run(tx, SPACE_BY_ID, id=tombstone["spaceId"])
        tick = await run(tx, TICK_SPACE_BY_ID, spaceId=tombstone["spaceId"]) if space else []
        now = to_native((tick or await run(tx, TICK_NOW))[0]["now"])
        erasure = Erasure()
        if space:
            # The ledger is replayed as an operator: what was erased is erased at every tier.
            ctx = WriteContext(
                tx, now, tombstone["spaceId"], space[0]["name"], "restore", Privacy.SECRET, True
            )
            selection = Selection(whole_space=tombstone["selectorKind"] == "SPACE")
            if selection.whole_space and space[0]["erased"]:
                selection = Selection()
            else:
                for found in await run(tx, IDS_BY_LABEL, ids=tombstone.get("erasedIds") or []):
                    getattr(selection, found["kind"]).add(found["id"])
            erasure = await erase(ctx, selection, by_products=False)
            if tombstone.get("liftedJson"):
                lifts = json.loads(tombstone["liftedJson"])
                await run(
                    tx,
                    REPLAY_LIFTS,
                    lifts=[{"id": k, "privacy": int(v)} for k, v in sorted(lifts.items())],
                    tier=int(tombstone.get("tier", Privacy.SECRET)),
                )
        if insert:
            await run(tx, INSERT_TOMBSTONE, props=dict(tombstone))
        if space and erasure.blobs:
            # The archive brought these files back; the purge after the replay deletes them.
            await run(tx, ADD_PENDING_BLOBS, id=tombstone["id"], blobs=sorted(erasure.blobs))
        if tombstone["selectorKind"] == "SPACE":
            # Whatever of the space the archive still holds is purged after the replay.
            await run(tx, MARK_SPACE_PURGE, id=tombstone["id"])

    await target.write_tx(work)
