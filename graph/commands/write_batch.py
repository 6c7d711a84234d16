"""The writes a command has planned, sent to Neo4j as one statement at its end.

A command reads what it needs, plans every row, edge and audit event in Python (nothing is
written until every check has passed), and hands the plans to `write_all`: one round trip, one
statement (`WRITE_ALL`) whose parts run in order — observations, entities, supersessions, claims,
revision links, relations, evidence links and copies, entity display names, audit events — each
part seeing what the parts before it wrote. Each part is an `UNWIND` over its own list and does
nothing when its list is empty, so one statement, planned once, serves every command.

    await write_all(ctx, inline_plan, write_plan, evidence_plan, audit)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, LiteralString, Protocol

from graph.commands.captions import REFRESH_DISPLAY_NAMES
from graph.commands.writing import WriteContext

APPEND_OBSERVATIONS: LiteralString = """
UNWIND $counts AS count
MATCH (e:Episode {id: count.id})
SET e.observationCounts = count.counts
WITH collect(e) AS touched
UNWIND $observations AS props
MATCH (e:Episode {id: props.episodeId})
CREATE (o:Observation)
SET o = props, o.recordedAt = $now, o.observedAt = datetime(props.observedAt)
CREATE (e)-[:HAS_OBSERVATION {recordedAt: $now}]->(o)
"""

CREATE_AUDIT_EVENTS: LiteralString = """
UNWIND $events AS event
CREATE (a:AuditEvent)
SET a = event, a.at = $now, a.spaceId = $spaceId, a.actor = $actor
"""


# The kind label comes from captions.kind_label's allow-list.
CREATE_ENTITIES: LiteralString = """
UNWIND $entities AS entity
CREATE (e:Entity)
SET e = entity.props, e.recordedAt = $now, e.name = entity.props.canonical
SET e:$(entity.label)
"""

SUPERSEDE_CLAIMS: LiteralString = """
UNWIND $supersededIds AS id
MATCH (c:Claim {id: id})
SET c.supersededAt = $now
WITH c
WHERE c.objectId IS NOT NULL
MATCH (:Entity {id: c.subjectId})-[r]->(:Entity {id: c.objectId})
WHERE r.claimId = c.id AND r.supersededAt IS NULL
SET r.supersededAt = $now, r.current = false
"""

CREATE_CLAIMS: LiteralString = """
UNWIND $claims AS row
CREATE (c:Claim:Unembedded)
SET c = row, c.recordedAt = $now, c.validFrom = datetime(row.validFrom),
    c.validTo = datetime(row.validTo), c.supersededAt = datetime(row.supersededAt),
    c.archivedAt = datetime(row.archivedAt)
WITH c
WHERE c.subjectId IS NOT NULL
MATCH (subject:Entity {id: c.subjectId})
CREATE (c)-[:ABOUT {recordedAt: $now}]->(subject)
"""

CREATE_REVISES: LiteralString = """
UNWIND $revises AS link
MATCH (newer:Claim {id: link.fromId})
MATCH (older:Claim {id: link.toId})
CREATE (newer)-[:REVISES {recordedAt: $now}]->(older)
"""

# The relationship type is a predicate checked by memory_types.is_predicate.
CREATE_RELATIONS: LiteralString = """
UNWIND $relations AS relation
MATCH (s:Entity {id: relation.subjectId})
MATCH (o:Entity {id: relation.objectId})
CREATE (s)-[r:$(relation.type)]->(o)
SET r = relation.props, r.recordedAt = $now, r.validFrom = datetime(relation.props.validFrom),
    r.validTo = datetime(relation.props.validTo),
    r.supersededAt = datetime(relation.props.supersededAt)
"""


def _link_evidence(label: LiteralString, links: LiteralString) -> LiteralString:
    """Evidence links (`link.kind` an EvidenceKind value) from claims to the `label` nodes
    the rows of `$links` name."""
    return (
        "UNWIND $"
        + links
        + """ AS link
MATCH (c:Claim {id: link.claimId})
MATCH (t:"""
        + label
        + """ {id: link.targetId})
CREATE (c)-[e:$(link.kind)]->(t)
SET e = link.props, e.recordedAt = $now
"""
    )


LINK_OBSERVATIONS = _link_evidence("Observation", "observationLinks")
LINK_ARTIFACTS = _link_evidence("Artifact", "artifactLinks")

COPY_SUPPORT: LiteralString = """
UNWIND $copies AS copy
MATCH (old:Claim {id: copy.fromId})-[e:SUPPORTED_BY]->(target)
WHERE e.erasedAt IS NULL AND target.erasedAt IS NULL
MATCH (new:Claim {id: copy.toId})
WHERE target.privacy >= new.privacy AND target.privacy <= $maxPrivacy
CREATE (new)-[e2:$(coalesce(copy.kind, 'SUPPORTED_BY'))]->(target)
SET e2 = properties(e), e2.recordedAt = $now, e2.privacy = new.privacy,
    e2.note = coalesce(copy.note, e.note)
"""
"""The evidence supporting each `copy.fromId` that the writer may read and `copy.toId` may
carry, linked to `copy.toId` too: as support (a new revision keeps its evidence), or as
`copy.kind` with `copy.note` (what supports one side of a dispute contradicts the other)."""


def _in_order(*parts: LiteralString) -> LiteralString:
    statement: LiteralString = ""
    for part in parts:
        statement = statement + "CALL () {" + part + "}\n"
    return statement


WRITE_ALL: LiteralString = _in_order(
    APPEND_OBSERVATIONS,
    CREATE_ENTITIES,
    SUPERSEDE_CLAIMS,
    CREATE_CLAIMS,
    CREATE_REVISES,
    CREATE_RELATIONS,
    LINK_OBSERVATIONS,
    LINK_ARTIFACTS,
    COPY_SUPPORT,
    REFRESH_DISPLAY_NAMES,
    CREATE_AUDIT_EVENTS,
)
"""Every planned write of a command, in order (`$now`, `$spaceId`, `$actor`, `$maxPrivacy` and
one list per part)."""


@dataclass
class Writes:
    """The lists `WRITE_ALL` takes, filled by the plans of one command."""

    observations: list[dict[str, Any]] = field(default_factory=list)
    counts: list[dict[str, Any]] = field(default_factory=list)
    """Each episode taking observations, with its new counts per tier."""
    entities: list[dict[str, Any]] = field(default_factory=list)
    superseded_ids: list[str] = field(default_factory=list)
    claims: list[dict[str, Any]] = field(default_factory=list)
    revises: list[dict[str, str]] = field(default_factory=list)
    relations: list[dict[str, Any]] = field(default_factory=list)
    observation_links: list[dict[str, Any]] = field(default_factory=list)
    artifact_links: list[dict[str, Any]] = field(default_factory=list)
    copies: list[dict[str, str]] = field(default_factory=list)
    named_entity_ids: list[str] = field(default_factory=list)
    """Entities whose display name may have changed."""
    events: list[dict[str, Any]] = field(default_factory=list)

    def params(self) -> dict[str, list[Any]]:
        return {
            "observations": self.observations,
            "counts": self.counts,
            "entities": self.entities,
            "supersededIds": self.superseded_ids,
            "claims": self.claims,
            "revises": self.revises,
            "relations": self.relations,
            "observationLinks": self.observation_links,
            "artifactLinks": self.artifact_links,
            "copies": self.copies,
            "namedEntityIds": sorted(set(self.named_entity_ids)),
            "events": self.events,
        }


class PlannedWrites(Protocol):
    """A plan that adds its writes to a command's `Writes`."""

    def add_to(self, writes: Writes, ctx: WriteContext) -> None: ...


async def write_all(ctx: WriteContext, *plans: PlannedWrites) -> None:
    """Write what `plans` planned, in one statement (nothing when they planned nothing)."""
    writes = Writes()
    for plan in plans:
        plan.add_to(writes, ctx)
    params = writes.params()
    if not any(params.values()):
        return
    await ctx.run(WRITE_ALL, **params)
