"""Writing what a `remember` batch planned in one query: the observations its evidence texts
become, its entities, the rows it supersedes and creates with their `REVISES` links and
relations, its evidence edges, the display names it changes and its audit events.

Each part is the statement `revisions.WritePlan.write`, `evidence.EvidencePlan.write`,
`episodes.APPEND_OBSERVATIONS` and `audit.AuditLog.write` run one by one, as a unit subquery here
(each sees what the ones before it wrote), in their order: observations before the evidence
edges to them, stored support copied after the plan's own edges.
"""

from __future__ import annotations

from typing import Any, LiteralString

from graph.commands.audit import AuditLog, key_digest
from graph.commands.evidence import EvidencePlan
from graph.commands.inline_evidence import InlinePlan
from graph.commands.revisions import WritePlan
from graph.commands.writing import WriteContext
from graph.domain.model import MemoryType
from graph.store.db import run

WRITE_BATCH: LiteralString = """
CALL () {
  UNWIND $counts AS count
  MATCH (e:Episode {id: count.id})
  SET e.observationCounts = count.counts
}
CALL () {
  UNWIND $observations AS props
  MATCH (e:Episode {id: props.episodeId})
  CREATE (o:Observation)
  SET o = props, o.recordedAt = $now
  CREATE (e)-[:HAS_OBSERVATION {recordedAt: $now}]->(o)
}
CALL () {
  UNWIND $entities AS entity
  CREATE (e:Entity)
  SET e = entity.props, e.recordedAt = $now, e.name = entity.props.canonical
  SET e:$(entity.label)
}
CALL () {
  UNWIND $superseded AS id
  MATCH (c:Claim {id: id})
  SET c.supersededAt = $now
  WITH c
  WHERE c.objectId IS NOT NULL
  MATCH (:Entity {id: c.subjectId})-[r]->(:Entity {id: c.objectId})
  WHERE r.claimId = c.id AND r.supersededAt IS NULL
  SET r.supersededAt = $now, r.current = false
}
CALL () {
  UNWIND $rows AS row
  CREATE (c:Claim:Unembedded)
  SET c = row, c.recordedAt = $now
  WITH c
  WHERE c.subjectId IS NOT NULL
  MATCH (subject:Entity {id: c.subjectId})
  CREATE (c)-[:ABOUT {recordedAt: $now}]->(subject)
}
CALL () {
  UNWIND $revises AS link
  MATCH (newer:Claim {id: link.fromId})
  MATCH (older:Claim {id: link.toId})
  CREATE (newer)-[:REVISES {recordedAt: $now}]->(older)
}
CALL () {
  UNWIND $relations AS relation
  MATCH (s:Entity {id: relation.subjectId})
  MATCH (o:Entity {id: relation.objectId})
  CREATE (s)-[r:$(relation.type)]->(o)
  SET r = relation.props, r.recordedAt = $now
}
CALL () {
  UNWIND $named AS id
  MATCH (e:Entity {id: id})
  WHERE e.erasedAt IS NULL
  CALL (e) {
    OPTIONAL MATCH (c:Claim {subjectId: e.id})
    WHERE c.type = 'entity' AND c.supersededAt IS NULL AND c.erasedAt IS NULL
      AND c.status IN ['active', 'disputed'] AND c.privacy <= e.privacy
      AND (c.validFrom IS NULL OR c.validFrom <= $now) AND (c.validTo IS NULL OR $now < c.validTo)
    WITH c ORDER BY c.validFrom DESC, c.recordedAt DESC, c.revision DESC
    RETURN head(collect(c.name)) AS name
  }
  SET e.name = coalesce(name, e.canonical)
}
CALL () {
  UNWIND $observationLinks AS link
  MATCH (c:Claim {id: link.claimId})
  MATCH (o:Observation {id: link.targetId})
  CREATE (c)-[e:$(link.kind)]->(o)
  SET e = link.props, e.recordedAt = $now
}
CALL () {
  UNWIND $artifactLinks AS link
  MATCH (c:Claim {id: link.claimId})
  MATCH (a:Artifact {id: link.targetId})
  CREATE (c)-[e:$(link.kind)]->(a)
  SET e = link.props, e.recordedAt = $now
}
CALL () {
  UNWIND $copies AS copy
  MATCH (old:Claim {id: copy.fromId})-[e:SUPPORTED_BY]->(target)
  WHERE e.erasedAt IS NULL AND target.erasedAt IS NULL
  MATCH (new:Claim {id: copy.toId})
  WHERE target.privacy >= new.privacy AND target.privacy <= $maxPrivacy
  CREATE (new)-[e2:SUPPORTED_BY]->(target)
  SET e2 = properties(e), e2.recordedAt = $now, e2.privacy = new.privacy
}
CALL () {
  UNWIND $events AS event
  CREATE (a:AuditEvent)
  SET a = event, a.at = $now, a.spaceId = $spaceId, a.actor = $actor
}
"""


def _events(ctx: WriteContext, *logs: AuditLog) -> list[dict[str, Any]]:
    """The events of `logs` as `AuditLog.write` stores them (idempotency keys as digests)."""
    return [
        {
            **event,
            "idempotencyKey": key_digest(event["idempotencyKey"], ctx.max_privacy)
            if event["idempotencyKey"]
            else None,
        }
        for log in logs
        for event in log.events
    ]


async def write_batch(
    ctx: WriteContext,
    inline: InlinePlan,
    plan: WritePlan,
    evidence: EvidencePlan,
    audit: AuditLog,
) -> None:
    """Write everything a batch planned, in one query."""
    named = {row["subjectId"] for row in plan.rows if row["type"] == MemoryType.ENTITY.value}
    await run(
        ctx.tx,
        WRITE_BATCH,
        now=ctx.now,
        spaceId=ctx.space_id,
        actor=ctx.actor,
        maxPrivacy=int(ctx.max_privacy),
        counts=inline.counts(),
        observations=inline.observations,
        entities=plan.entities,
        superseded=plan.superseded,
        rows=plan.rows,
        revises=plan.revises,
        relations=plan.relations,
        named=sorted(named),
        observationLinks=[link for link in evidence.links if link["label"] == "Observation"],
        artifactLinks=[link for link in evidence.links if link["label"] == "Artifact"],
        copies=evidence.copies,
        events=_events(ctx, inline.audit, audit),
    )
