"""What exists only because of what a forget erases, and goes with it (ENGRAM.md §3).

Forgetting a fact also forgets:

* **the messages it alone was drawn from**: an observation or artifact survives only while
  another surviving claim cites it — entity claims written because the fact named a new entity
  (`byNaming`) do not count, so a fact written by names with its message as evidence takes its
  sentence with it;
* **the entities no surviving claim references**: an entity the erased claims named, which no
  other unerased claim has as subject or object (its own `byNaming` names aside), is forgotten
  with its names — or lifted, when claims above the writer's tier still name it
  (`engine.LIFT_ENTITIES`).

An entity that survives but whose `byNaming` name cited only erased material is named again on
the evidence of a surviving claim about it (`RECITE_NAMES`), so an entity named in passing does
not lose its name when one of several facts about it is forgotten.

Only what the writer's tier reaches is looked at: evidence is at least as private as the claims
it supports, so nothing above the tier can depend on what is found here.

    await add_by_products(ctx, selection, held=held_ids)
"""

from __future__ import annotations

from typing import LiteralString

from graph.commands.writing import WriteContext
from graph.erasure.selectors import Selection

EXCLUSIVE_EVIDENCE: LiteralString = """
UNWIND $ids AS id
MATCH (:Claim {id: id})-[:SUPPORTED_BY|CONTRADICTED_BY|CORRECTED_BY]->(t)
WITH DISTINCT t
WHERE t.erasedAt IS NULL AND t.privacy <= $maxPrivacy AND NOT EXISTS {
  MATCH (t)<-[:SUPPORTED_BY|CONTRADICTED_BY|CORRECTED_BY]-(other:Claim)
  WHERE NOT other.id IN $ids AND other.byNaming IS NULL
}
RETURN t.id AS id, t:Observation AS observation
"""

# The entities the erased claims name that no other unerased claim at or below the writer's tier
# references (as subject or object; an entity's `byNaming` names are not references), with
# those names: they go with the claims.
ORPHANED_ENTITIES: LiteralString = """
UNWIND $ids AS id
MATCH (c:Claim {id: id})
UNWIND [x IN [c.subjectId, c.objectId] WHERE x IS NOT NULL] AS entityId
WITH DISTINCT entityId
MATCH (e:Entity {id: entityId})
WHERE e.erasedAt IS NULL AND e.spaceId = $spaceId AND e.privacy <= $maxPrivacy
  AND NOT EXISTS {
    MATCH (o:Claim {subjectId: e.id})
    WHERE o.erasedAt IS NULL AND o.byNaming IS NULL AND o.privacy <= $maxPrivacy
      AND NOT o.id IN $ids
  }
  AND NOT EXISTS {
    MATCH (o:Claim {objectId: e.id})
    WHERE o.erasedAt IS NULL AND o.privacy <= $maxPrivacy AND NOT o.id IN $ids
  }
OPTIONAL MATCH (name:Claim {subjectId: e.id})
WHERE name.type = 'entity' AND name.erasedAt IS NULL AND name.privacy <= $maxPrivacy
RETURN e.id AS id, collect(name.id) AS names
"""

# A surviving entity's `byNaming` name left without support is cited again on what supports a
# surviving claim about the entity (at or below the writer's tier, and at least as private as the
# name: evidence is never less private than its claim).
RECITE_NAMES: LiteralString = """
UNWIND $ids AS id
MATCH (c:Claim {id: id})
WHERE c.byNaming AND c.supersededAt IS NULL AND c.erasedAt IS NULL
  AND c.status IN ['active', 'disputed']
  AND NOT EXISTS { MATCH (c)-[:SUPPORTED_BY]->(t) WHERE t.erasedAt IS NULL }
CALL (c) {
  CALL (c) {
    MATCH (o:Claim {subjectId: c.subjectId}) RETURN o
    UNION
    MATCH (o:Claim {objectId: c.subjectId}) RETURN o
  }
  WITH o
  WHERE o.erasedAt IS NULL AND o.supersededAt IS NULL AND o.byNaming IS NULL
    AND o.privacy <= $maxPrivacy
  MATCH (o)-[e:SUPPORTED_BY]->(t)
  WHERE e.erasedAt IS NULL AND t.erasedAt IS NULL AND t.privacy >= c.privacy
    AND t.privacy <= $maxPrivacy
  RETURN e, t ORDER BY e.recordedAt, t.id LIMIT 1
}
CREATE (c)-[again:SUPPORTED_BY]->(t)
SET again = properties(e), again.recordedAt = $now, again.privacy = c.privacy,
    again.note = 'named again on what supports a surviving claim about it'
RETURN c.id AS id
"""


async def add_by_products(ctx: WriteContext, selection: Selection, *, held: set[str]) -> None:
    """Add to `selection` the evidence only its claims cite and the entities only they name
    (with their names), leaving out what a legal hold keeps (`held`)."""
    ids = sorted(selection.claims)
    for row in await ctx.run(EXCLUSIVE_EVIDENCE, ids=ids):
        if row["id"] not in held:
            target = selection.observations if row["observation"] else selection.artifacts
            target.add(row["id"])
    for row in await ctx.run(ORPHANED_ENTITIES, ids=ids):
        if row["id"] in held or any(name in held for name in row["names"]):
            continue
        selection.entities.add(row["id"])
        selection.names.update(set(row["names"]) - selection.claims)


async def recite_names(ctx: WriteContext, candidates: list[str]) -> set[str]:
    """Cite again, on a surviving claim's evidence, the `byNaming` names among `candidates`
    that lost their support; the ids of those cited again."""
    rows = await ctx.run(RECITE_NAMES, ids=candidates)
    return {row["id"] for row in rows}
