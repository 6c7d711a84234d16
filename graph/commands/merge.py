"""merge_entities / unmerge_entities: duplicates into one, recorded so it can be undone.

A merge is a `(:Entity)-[:MERGED_INTO {mergeId, validFrom, recordedAt, supersededAt}]->(:Entity)`
relationship: nothing is moved or deleted. Reads that see the merge (its `validFrom ≤ asOf`,
recorded by `knownAt`, not undone) show the duplicate as the survivor; views before it still
show two entities. Undoing sets the merge's `supersededAt`.
"""

from __future__ import annotations

from typing import Any, LiteralString

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

from graph.commands.audit import (
    AuditLog,
    Undo,
    check_idempotency_key,
    find_replays,
    request_hash,
    undo_once,
)
from graph.commands.entity_refs import resolve_entities
from graph.commands.references import EntityRef
from graph.commands.writing import WriteContext, new_id, run_command
from graph.domain.actor import Actor
from graph.domain.errors import ValidationFailed
from graph.domain.vocabulary import Privacy
from graph.store.db import Graph

CURRENT_MERGES: LiteralString = """
UNWIND $ids AS id
MATCH (e:Entity {id: id})-[m:MERGED_INTO]-(:Entity)
WHERE m.supersededAt IS NULL AND m.erasedAt IS NULL AND m.privacy <= $maxPrivacy
RETURN id, m.mergeId AS mergeId, startNode(m).id = id AS outgoing
"""

CREATE_MERGE: LiteralString = """
MATCH (duplicate:Entity {id: $duplicateId})
MATCH (survivor:Entity {id: $survivorId})
CREATE (duplicate)-[m:MERGED_INTO]->(survivor)
SET m = $props, m.recordedAt = $now,
    m.privacy = reduce(p = $floor, x IN [duplicate.privacy, survivor.privacy] |
                       CASE WHEN x > p THEN x ELSE p END)
"""

UNMERGE = Undo(
    query="""
MATCH (:Entity)-[m:MERGED_INTO {mergeId: $id}]->(:Entity)
WHERE m.spaceId = $spaceId AND m.privacy <= $maxPrivacy
WITH m, m.supersededAt IS NOT NULL AS alreadyUndone
SET m.supersededAt = coalesce(m.supersededAt, $now), m.undoReason = coalesce(m.undoReason, $reason)
RETURN alreadyUndone
""",
    action="unmergeEntities",
    what="merge",
    field="mergeId",
    already="alreadyUndone",
)


class MergeInput(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    survivor: EntityRef
    duplicate: EntityRef
    reason: str = Field(min_length=1, max_length=2000)
    valid_from: AwareDatetime | None = None
    idempotency_key: str | None = None


async def merge_entities(graph: Graph, space: str, merge: MergeInput, *, actor: Actor) -> str:
    """Merge `duplicate` into `survivor`; returns the merge id (for undo)."""
    check_idempotency_key(merge.idempotency_key)

    async def work(ctx: WriteContext) -> str:
        fingerprint = request_hash("mergeEntities", merge.model_dump(mode="json"))
        if merge.idempotency_key is not None:
            replays = await find_replays(
                ctx, {merge.idempotency_key: ("mergeEntities", fingerprint)}
            )
            if merge.idempotency_key in replays:
                return str(replays[merge.idempotency_key].result["mergeId"])
        resolved = await resolve_entities(
            ctx, [(merge.survivor, "survivor"), (merge.duplicate, "duplicate")]
        )
        survivor, duplicate = resolved[merge.survivor], resolved[merge.duplicate]
        if survivor.id == duplicate.id:
            raise ValidationFailed(
                f"{duplicate.key} is already {survivor.key} (the same entity, or merged into it)",
                field="duplicate",
            )
        await _refuse_chains(ctx, duplicate.id)
        merge_id = new_id()
        props: dict[str, Any] = {
            "mergeId": merge_id,
            "spaceId": ctx.space_id,
            "reason": merge.reason,
            "validFrom": merge.valid_from or ctx.now,
            "actor": ctx.actor,
        }
        await ctx.run(
            CREATE_MERGE,
            duplicateId=duplicate.id,
            survivorId=survivor.id,
            props=props,
            # The merge's reason is caller text: the default tier (or the writer's, if lower),
            # and never below the entities it joins.
            floor=int(min(Privacy.NORMAL, ctx.max_privacy)),
        )
        await (
            AuditLog()
            .add(
                "mergeEntities",
                [duplicate.id, survivor.id],
                idempotency_key=merge.idempotency_key,
                request_hash=fingerprint,
                result={"mergeId": merge_id},
            )
            .write(ctx)
        )
        return merge_id

    return await run_command(graph, space, actor, work)


async def _refuse_chains(ctx: WriteContext, duplicate_id: str) -> None:
    # resolve_entities followed current merges already, so the survivor is never a duplicate;
    # a duplicate that others were merged into would make a chain.
    # Merges above the writer's tier are not its to know of (a chain through one is read as
    # its first step, like any merge).
    rows = await ctx.run(CURRENT_MERGES, ids=[duplicate_id])
    if any(not row["outgoing"] for row in rows):
        raise ValidationFailed(
            "other entities are merged into this duplicate; merge into the survivor instead",
            field="duplicate",
        )


async def unmerge_entities(
    graph: Graph, space: str, merge_id: str, reason: str, *, actor: Actor
) -> bool:
    """Undo a merge from now on; False when it was undone already."""
    if not reason.strip():
        raise ValidationFailed("an undo gives its reason", field="reason")
    return await undo_once(graph, space, actor, UNMERGE, merge_id, reason)
