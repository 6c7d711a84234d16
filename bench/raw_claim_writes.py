"""The floors under `remember`: what Neo4j itself takes, on this machine, to store what Engram
stored for a batch of claims — written by one hand-made statement with no reads, no checks, no
clock and no planning — and, beside it, Neo4j's own limit: bare nodes and bare relationships.

**Same shape.** After Engram has written a batch, the claims it wrote are read back (untimed):
each claim's properties, the entity it created (an entity claim names a new one), its `ABOUT`
link, the relationship a fact asserts between two entities (the one whose `claimId` is the
claim's), its `SUPPORTED_BY` links to observations, and the batch's one audit event. `copy`
turns them into rows with new ids and keys (`<key>#raw<n>`), and `SAME_SHAPE` writes them in one
transaction: the same labels, the same property maps (instants stored as datetimes, made from
text in the statement as Engram's own writes make them), the same relationships and one audit
event per batch. What it does not do is Engram's work: no lookups, no supersession of earlier
revisions, no display names.

**Bare.** `BARE_NODES` creates `n` nodes with two properties, `BARE_RELATIONSHIPS` one
relationship with two properties between two existing nodes per row (found by element id): how
far the fact shape itself is from what this Neo4j does with the least work per row.

Everything written carries the bench space's `spaceId`, so deleting the space removes it.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, LiteralString

from bench._support import OPERATOR
from bench.mix import ClaimSpec
from graph.domain.memory_types import fact_key
from graph.domain.model import canonical_json
from graph.memory import Memory

# The claims of one Engram call that its transaction wrote (recorded at `$now`), with what hangs
# off them; the entities that transaction created. Instants come back as text (`[key, text]`).
WRITTEN: LiteralString = """
UNWIND $ids AS id
MATCH (c:Claim {id: id})
WHERE c.recordedAt = datetime($now)
OPTIONAL MATCH (c)-[:ABOUT]->(s:Entity)
OPTIONAL MATCH (s)-[r]->(o:Entity)
WHERE r.claimId = c.id
RETURN properties(c) AS claim,
       [k IN keys(c) WHERE c[k] IS :: ZONED DATETIME | [k, toString(c[k])]] AS claimInstants,
       [x IN [s, o] WHERE x.recordedAt = c.recordedAt |
        {props: properties(x), labels: labels(x),
         instants: [k IN keys(x) WHERE x[k] IS :: ZONED DATETIME | [k, toString(x[k])]]}]
         AS entities,
       type(r) AS relationType, s.id AS subjectId, o.id AS objectId,
       properties(r) AS relation,
       [k IN keys(r) WHERE r[k] IS :: ZONED DATETIME | [k, toString(r[k])]] AS relationInstants,
       [(c)-[e:SUPPORTED_BY]->(t:Observation) |
        {targetId: t.id, props: properties(e),
         instants: [k IN keys(e) WHERE e[k] IS :: ZONED DATETIME | [k, toString(e[k])]]}]
         AS evidence
"""

# When each call's transaction wrote: the latest recordedAt among the claims it answered with.
RECORDED: LiteralString = """
UNWIND $calls AS call
MATCH (c:Claim)
WHERE c.id IN call.ids
RETURN call.n AS n, toString(max(c.recordedAt)) AS now
"""

AUDITED: LiteralString = """
MATCH (a:AuditEvent {spaceId: $spaceId, at: datetime($now)})
WHERE a.action = $action
RETURN properties(a) AS audit,
       [k IN keys(a) WHERE a[k] IS :: ZONED DATETIME | [k, toString(a[k])]] AS instants
"""

# One statement per batch, in parts as Engram's own (each sees what the one before wrote): the
# entities the batch created (an entity claim names a new one), then per claim its node, its
# ABOUT link, the relationship a fact asserts (its type a predicate Engram checked) and its
# evidence links, then one audit event.
SAME_SHAPE: LiteralString = """
CALL () {
  UNWIND $entities AS entity
  CREATE (e:Entity)
  SET e = entity.props, e.recordedAt = $now
  SET e:$(entity.labels)
}
CALL () {
  UNWIND $rows AS row
  CREATE (c:Claim:Unembedded)
  SET c = row.claim, c.recordedAt = $now, c.validFrom = datetime(row.claim.validFrom),
      c.validTo = datetime(row.claim.validTo),
      c.supersededAt = datetime(row.claim.supersededAt),
      c.archivedAt = datetime(row.claim.archivedAt)
  WITH c, row
  CALL (c, row) {
    WITH c, row WHERE row.claim.subjectId IS NOT NULL
    MATCH (subject:Entity {id: row.claim.subjectId})
    CREATE (c)-[:ABOUT {recordedAt: $now}]->(subject)
    WITH subject, row WHERE row.relation IS NOT NULL
    MATCH (object:Entity {id: row.objectId})
    CREATE (subject)-[r:$(row.relationType)]->(object)
    SET r = row.relation, r.recordedAt = $now, r.validFrom = datetime(row.relation.validFrom),
        r.validTo = datetime(row.relation.validTo),
        r.supersededAt = datetime(row.relation.supersededAt)
  }
  CALL (c, row) {
    UNWIND row.evidence AS link
    MATCH (o:Observation {id: link.targetId})
    CREATE (c)-[e:SUPPORTED_BY]->(o)
    SET e = link.props, e.recordedAt = $now
  }
}
CREATE (a:AuditEvent)
SET a = $audit, a.at = $now
"""

# The bare claim: the Claim properties Engram would give a claim of the mix (`claim_row`) and one
# evidence relationship per claim, nothing else.
BARE_CLAIM: LiteralString = """
UNWIND $rows AS row
MATCH (o:Observation {id: row.observationId})
CREATE (c:Claim)
SET c = row.props, c.recordedAt = datetime()
CREATE (c)-[:SUPPORTED_BY {authority: 'user_stated', spaceId: row.props.spaceId,
                           privacy: row.props.privacy, recordedAt: datetime()}]->(o)
"""

BARE_NODES: LiteralString = """
UNWIND range(1, $n) AS i
CREATE (:BenchBare {spaceId: $spaceId, i: i})
"""

ANCHORS: LiteralString = """
UNWIND range(1, $n) AS i
CREATE (b:BenchBare {spaceId: $spaceId, i: -i})
RETURN elementId(b) AS id
"""

BARE_RELATIONSHIPS: LiteralString = """
UNWIND $pairs AS pair
MATCH (a) WHERE elementId(a) = pair.a
MATCH (b) WHERE elementId(b) = pair.b
CREATE (a)-[:BENCH_BARE {spaceId: $spaceId, i: pair.i}]->(b)
"""

ANCHOR_COUNT = 1000

INSTANTS_WRITTEN: dict[str, frozenset[str]] = {
    "claim": frozenset({"validFrom", "validTo", "supersededAt", "archivedAt"}),
    "relation": frozenset({"validFrom", "validTo", "supersededAt"}),
    "evidence": frozenset(),
    "entity": frozenset(),
    "audit": frozenset(),
}
"""Per kind of map, the instants `SAME_SHAPE` writes as datetimes from text; the time of the
write (`recordedAt`, an audit event's `at`) is the statement's `$now`."""
NOW_KEYS = frozenset({"recordedAt", "at"})


def _as_written(kind: str, props: Mapping[str, Any], instants: list[list[str]]) -> dict[str, Any]:
    """A map read back, its instants as text (the statement makes datetimes of them)."""
    copied = dict(props)
    for key, text in instants:
        if key in NOW_KEYS:
            copied.pop(key)
        elif key in INSTANTS_WRITTEN[kind]:
            copied[key] = text
        else:
            raise ValueError(f"the floor does not write the {kind} instant {key!r} as a datetime")
    return copied


@dataclass
class Written:
    """What one Engram call wrote, read back: its claims (with what hangs off them) and its
    audit event (instants as text)."""

    claims: list[dict[str, Any]]
    audit: dict[str, Any]


@dataclass
class Copy:
    """One raw transaction's parameters: rows shaped like a `Written`, new ids and keys."""

    entities: list[dict[str, Any]]
    rows: list[dict[str, Any]]
    audit: dict[str, Any]


@dataclass
class SameShape:
    """Reads back what Engram wrote in a space and writes copies of it, one call at a time."""

    memory: Memory
    space_id: str
    serial: Iterator[int] = field(default_factory=lambda: iter(range(1, 10**12)))

    async def written(self, calls: list[list[str]], action: str = "remember") -> list[Written]:
        """What each call (the ids of the claims it answered with) wrote."""
        graph = self.memory.graph
        stamps = await graph.read(
            RECORDED, calls=[{"n": n, "ids": ids} for n, ids in enumerate(calls)]
        )
        now = {row["n"]: row["now"] for row in stamps}
        found = []
        for n, ids in enumerate(calls):
            claims = await graph.read(WRITTEN, ids=ids, now=now[n])
            audits = await graph.read(AUDITED, spaceId=self.space_id, now=now[n], action=action)
            if len(audits) != 1:
                raise RuntimeError(f"expected one {action!r} audit event, found {len(audits)}")
            [audit] = audits
            found.append(Written(claims, _as_written("audit", audit["audit"], audit["instants"])))
        return found

    def copy(self, written: Written) -> Copy:
        """Rows writing what `written` holds again, under new ids and keys."""
        renamed: dict[str, str] = {}
        entities: list[dict[str, Any]] = []
        rows = []
        for read in written.claims:
            n = next(self.serial)
            for made in read["entities"]:
                props = _as_written("entity", made["props"], made["instants"])
                if props["id"] not in renamed:
                    renamed[props["id"]] = str(uuid.uuid4())
                    props |= {"id": renamed[props["id"]], "key": f"{props['key']}#raw{n}"}
                    entities.append({"props": props, "labels": made["labels"]})
            claim = _as_written("claim", read["claim"], read["claimInstants"])
            old_id, old_key = claim["id"], claim["key"]
            renamed[old_id] = claim["id"] = str(uuid.uuid4())
            claim["key"] = f"{old_key}#raw{n}"
            for name in ("subjectId", "objectId", "factId"):
                claim[name] = renamed.get(claim.get(name) or "", claim.get(name))
            relation = None
            if read["relation"] is not None:
                relation = _as_written("relation", read["relation"], read["relationInstants"])
                if "claimId" in relation:
                    relation["claimId"] = claim["id"]
                if relation.get("claimKey") == old_key:
                    relation["claimKey"] = claim["key"]
            rows.append(
                {
                    "claim": claim,
                    "relation": relation,
                    "relationType": read["relationType"],
                    "objectId": renamed.get(read["objectId"] or "", read["objectId"]),
                    "evidence": [
                        {
                            "targetId": link["targetId"],
                            "props": _as_written("evidence", link["props"], link["instants"]),
                        }
                        for link in read["evidence"]
                    ],
                }
            )
        audit = {**written.audit, "id": str(uuid.uuid4())}
        audit["targetIds"] = [renamed.get(t, t) for t in audit.get("targetIds") or []]
        return Copy(entities, rows, audit)

    async def write(self, copy: Copy) -> None:
        """One transaction writing `copy` (its time is the statement's own)."""
        now = datetime.now(UTC)
        await self.memory.graph.write(
            SAME_SHAPE, entities=copy.entities, rows=copy.rows, audit=copy.audit, now=now
        )


@dataclass
class Bare:
    """Bare claims, nodes and relationships in a space (`space_id`), a batch per transaction."""

    memory: Memory
    space_id: str
    anchors: list[str] = field(default_factory=list)
    serial: int = 0

    def claim_row(
        self, spec: ClaimSpec, observation_id: str, at: datetime, entity_ids: dict[str, str]
    ) -> dict[str, Any]:
        """The properties Engram would give a claim of the mix, under a key of its own."""
        fields = spec.fields
        subject, obj = fields.get("subject"), fields.get("object")
        if subject is not None:
            key = fact_key(subject["key"], fields["predicate"], obj["key"] if obj else None)
        else:
            key = fields["key"]
        self.serial += 1
        memory_type = key.split(":", 1)[0]
        return {
            "observationId": observation_id,
            "props": {
                "id": str(uuid.uuid4()),
                "spaceId": self.space_id,
                "key": f"{key}#bare{self.serial}",
                "revision": 1,
                "type": memory_type,
                "subjectId": entity_ids.get(subject["key"]) if subject else None,
                "predicate": fields.get("predicate"),
                "objectId": entity_ids.get(obj["key"]) if obj else None,
                "valueJson": canonical_json(fields.get("value")),
                "text": f"[{memory_type}:{key}]\n{spec.sentence}",
                "status": "active",
                "confidence": fields.get("confidence", 0.9),
                "importance": 0.5,
                "privacy": 1,
                "pinned": False,
                "actor": OPERATOR.name,
                "validFrom": fields.get("valid_from") or at,
                "validTo": fields.get("valid_to"),
            },
        }

    async def claims(self, rows: list[dict[str, Any]]) -> None:
        await self.memory.graph.write(BARE_CLAIM, rows=rows)

    async def set_up(self) -> None:
        """The nodes the bare relationships connect (untimed)."""
        rows = await self.memory.graph.write(ANCHORS, n=ANCHOR_COUNT, spaceId=self.space_id)
        self.anchors = [row["id"] for row in rows]

    async def nodes(self, n: int) -> None:
        await self.memory.graph.write(BARE_NODES, n=n, spaceId=self.space_id)

    def pairs(self, n: int) -> list[dict[str, Any]]:
        count, pairs = len(self.anchors), []
        for _ in range(n):
            self.serial += 1
            i = self.serial
            pairs.append(
                {"a": self.anchors[i % count], "b": self.anchors[(i * 7 + 1) % count], "i": i}
            )
        return pairs

    async def relationships(self, pairs: list[dict[str, Any]]) -> None:
        await self.memory.graph.write(BARE_RELATIONSHIPS, pairs=pairs, spaceId=self.space_id)
