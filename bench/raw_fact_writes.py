"""The floor under conversation ingest: what Neo4j itself takes, on this machine, to store what
Engram stores for one fact with its evidence text — written by one hand-made statement with no
reads, no checks, no clock and no planning.

A fact stated by a message becomes, in Engram's graph, an `Observation` (the message, linked
from its episode), a `Claim:Unembedded` (linked `ABOUT` its subject), the fact's relationship
between the two entities, a `SUPPORTED_BY` link from the claim to the observation, and audit
events: one per act of the batch (the observations recorded, the facts remembered), as Engram
writes them. The floor writes exactly those nodes and relationships, with the property sets
Engram gave the same kinds of rows (copied from rows Engram wrote, so every index Engram's rows
touch is touched alike). Every fact is a new claim here; a restatement in Engram writes no
claim, so `evidence only` (an observation and its link per fact, onto claims written before,
and the batch's audit events) is the floor of that case.

`bench.ingest` measures these beside Engram in each round: a rate no faster than the floor's
cannot be reached by making Engram's own work cheaper, only by storing less.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, LiteralString

from graph.memory import Memory

# The message as an observation of its episode; then its claim's evidence link; after the rows,
# the batch's audit events.
_OBSERVED: LiteralString = """
CREATE (o:Observation)
SET o = row.observation, o.recordedAt = $now
CREATE (episode)-[:HAS_OBSERVATION {recordedAt: $now}]->(o)
"""
_SUPPORTED_AND_AUDITED: LiteralString = """
CREATE (c)-[e:SUPPORTED_BY]->(o)
SET e = row.support, e.recordedAt = $now
WITH count(*) AS facts
UNWIND $audits AS audit
CREATE (a:AuditEvent)
SET a = audit, a.at = $now
"""

# One statement per batch; the relationship type is one of bench.ingest's PREDICATES.
RAW_FACTS: LiteralString = (
    """
MATCH (episode:Episode {id: $episodeId})
UNWIND $rows AS row
MATCH (subject:Entity {id: row.subjectId})
MATCH (object:Entity {id: row.objectId})"""
    + _OBSERVED
    + """CREATE (c:Claim:Unembedded)
SET c = row.claim, c.recordedAt = $now
CREATE (c)-[:ABOUT {recordedAt: $now}]->(subject)
CREATE (subject)-[r:$(row.predicate)]->(object)
SET r = row.relation, r.recordedAt = $now"""
    + _SUPPORTED_AND_AUDITED
)

RAW_EVIDENCE: LiteralString = (
    """
MATCH (episode:Episode {id: $episodeId})
UNWIND $rows AS row
MATCH (c:Claim {id: row.claimId})"""
    + _OBSERVED
    + _SUPPORTED_AND_AUDITED.lstrip("\n")
)

# Templates: one row of each kind that Engram wrote for a fact with an evidence text, and the
# audit events of the batch that wrote it.
ENGRAM_ROWS: LiteralString = """
MATCH (s:Space {name: $space})
MATCH (c:Claim {spaceId: s.id, type: 'fact'})-[e:SUPPORTED_BY]->(o:Observation)
MATCH (c)-[:ABOUT]->(subject:Entity)-[r]->(object:Entity)
WHERE r.claimId = c.id
WITH s, c, e, o, r
LIMIT 1
MATCH (a:AuditEvent {spaceId: s.id, at: c.recordedAt})
RETURN s.id AS spaceId, properties(c) AS claim, properties(e) AS support,
       properties(o) AS observation, properties(r) AS relation,
       collect(properties(a)) AS audits, o.episodeId AS episodeId
"""

ENTITY_IDS: LiteralString = """
MATCH (e:Entity {spaceId: $spaceId})
RETURN e.id AS id
"""

CLAIM_IDS: LiteralString = """
MATCH (c:Claim {spaceId: $spaceId, type: 'fact'})
RETURN c.id AS id
LIMIT 5000
"""


@dataclass
class Floor:
    """Raw rows shaped like the ones Engram wrote into `space`, written into that same space."""

    memory: Memory
    templates: dict[str, Any]
    entity_ids: list[str]
    claim_ids: list[str]
    serial: Iterator[int]

    @classmethod
    async def of(cls, memory: Memory, space: str) -> Floor:
        """Templates from `space`, which Engram has written facts with evidence texts into."""
        [templates] = await memory.graph.read(ENGRAM_ROWS, space=space)
        entities = await memory.graph.read(ENTITY_IDS, spaceId=templates["spaceId"])
        claims = await memory.graph.read(CLAIM_IDS, spaceId=templates["spaceId"])
        return cls(
            memory,
            templates,
            [row["id"] for row in entities],
            [row["id"] for row in claims],
            iter(range(10**12)),
        )

    def _common(self, n: int) -> dict[str, Any]:
        t = self.templates
        text = f"#{n} raw floor message {uuid.uuid4().hex[:8]}"
        return {
            "observation": {
                **t["observation"],
                "id": str(uuid.uuid4()),
                "content": text,
                "seq": 1_000_000 + n,
            },
            "support": t["support"],
        }

    def audits(self, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The batch's audit events, as Engram wrote them for one of its batches: one per act,
        listing the observations recorded or the claims remembered."""
        observations = [row["observation"]["id"] for row in rows]
        claims = [row["claim"]["id"] if "claim" in row else row["claimId"] for row in rows]
        return [
            {
                **{key: value for key, value in audit.items() if key != "at"},
                "id": str(uuid.uuid4()),
                "targetIds": observations if audit["action"] == "recordObservation" else claims,
            }
            for audit in self.templates["audits"]
        ]

    def fact_rows(self, count: int) -> list[dict[str, Any]]:
        rows = []
        for _ in range(count):
            n = next(self.serial)
            claim_id = str(uuid.uuid4())
            subject = self.entity_ids[n % len(self.entity_ids)]
            obj = self.entity_ids[(n * 7 + 1) % len(self.entity_ids)]
            claim = {
                **self.templates["claim"],
                "id": claim_id,
                "key": f"fact:raw:{n}",
                "revision": 1,
                "subjectId": subject,
                "objectId": obj,
                "text": f"raw floor fact {n}",
            }
            claim.pop("supersededAt", None)
            rows.append(
                {
                    **self._common(n),
                    "claim": claim,
                    "subjectId": subject,
                    "objectId": obj,
                    "predicate": "KNOWS",
                    "relation": {**self.templates["relation"], "claimId": claim_id},
                }
            )
        return rows

    def evidence_rows(self, count: int) -> list[dict[str, Any]]:
        rows = []
        for _ in range(count):
            n = next(self.serial)
            rows.append({**self._common(n), "claimId": self.claim_ids[n % len(self.claim_ids)]})
        return rows

    async def write(self, statement: LiteralString, rows: list[dict[str, Any]]) -> None:
        await self.memory.graph.write(
            statement,
            rows=rows,
            audits=self.audits(rows),
            episodeId=self.templates["episodeId"],
            now=self.templates["claim"]["recordedAt"],
        )

    async def batched(self, statement: LiteralString, facts: int, size: int) -> float:
        """Facts per second, `size` per transaction."""
        make = self.fact_rows if statement is RAW_FACTS else self.evidence_rows
        batches = [make(size) for _ in range(facts // size)]
        started = time.perf_counter()
        for rows in batches:
            await self.write(statement, rows)
        return facts // size * size / (time.perf_counter() - started)

    async def single_ms(self, calls: int) -> list[float]:
        """Milliseconds of each transaction writing one fact (begin, the statement, commit)."""
        latencies = []
        for _ in range(calls):
            rows = self.fact_rows(1)
            started = time.perf_counter()
            await self.write(RAW_FACTS, rows)
            latencies.append((time.perf_counter() - started) * 1000)
        return latencies
