"""The Cypher of Engram's Neo4j Browser guide: one named query per slide, run as shown.

The guide (served by Engram at `/browser-guide/`, played by the printed Browser URL) puts each
query on a slide of its own (the slides' words are the web app's, `api.browser_guide_page`), so
what a person runs in Browser is exactly what the tests run. Every query takes its parameters
from one `:params` line (`GUIDE_PARAMS`):

    await graph.read(CURRENT_GRAPH, **guide_params(space="alice"))

Each query is anchored on the space by name, walks only entities and the relation edges claims
assert (`claimId` set: no MERGED_INTO, no Meaning/Clock/Migration/AuditEvent nodes), and shows
current edges only (`current: true`, valid now or at `$asOf`) unless its slide is about history.
A tombstone shows what it records — when, which selector, why, by whom, how much — and never
content (it holds none; the slide also leaves out its keyed fingerprints).
"""

from __future__ import annotations

from typing import Any, LiteralString

GUIDE_PARAMS: dict[str, str] = {
    "space": "alice",
    "person": "entity:person:alice",
    "other": "entity:org:acme",
    "asOf": "2022-06-01T00:00:00Z",
}
"""The parameters every slide uses, with the values the guide sets first (edit them in Browser)."""

CURRENT_GRAPH: LiteralString = """MATCH (s:Space {name: $space})
MATCH (a:Entity {spaceId: s.id})-[r {current: true}]->(b:Entity)
WHERE r.claimId IS NOT NULL AND r.status IN ['active', 'disputed']
  AND (r.validFrom IS NULL OR r.validFrom <= datetime())
  AND (r.validTo IS NULL OR datetime() < r.validTo)
  // one value of a key at a time: no fact of its key told later holds today
  AND NOT EXISTS { MATCH (later:Claim {spaceId: s.id, key: r.claimKey})
    WHERE later.toldRank > r.toldRank AND later.supersededAt IS NULL
      AND later.erasedAt IS NULL AND later.status IN ['active', 'disputed']
      AND (later.validFrom IS NULL OR later.validFrom <= datetime())
      AND (later.validTo IS NULL OR datetime() < later.validTo) }
RETURN a, r, b"""
"""What the space holds now: every relation that is currently recorded, valid today, and the
one its key shows today (no fact of its key that starts later holds today)."""

NEIGHBOURHOOD_AS_OF: LiteralString = """MATCH (s:Space {name: $space})
MATCH (p:Entity {spaceId: s.id, key: $person})
MATCH path = (p)-[rels*1..2]-(:Entity)
WHERE all(r IN rels WHERE r.current AND r.claimId IS NOT NULL
  AND r.status IN ['active', 'disputed']
  AND (r.validFrom IS NULL OR r.validFrom <= datetime($asOf))
  AND (r.validTo IS NULL OR datetime($asOf) < r.validTo)
  AND NOT EXISTS { MATCH (later:Claim {spaceId: s.id, key: r.claimKey})
    WHERE later.toldRank > r.toldRank AND later.supersededAt IS NULL
      AND later.erasedAt IS NULL AND later.status IN ['active', 'disputed']
      AND (later.validFrom IS NULL OR later.validFrom <= datetime($asOf))
      AND (later.validTo IS NULL OR datetime($asOf) < later.validTo) })
RETURN path"""
"""Who `$person` was connected to, two hops out, as the world was at `$asOf` (as known now)."""

RELATION_EVIDENCE: LiteralString = """MATCH (s:Space {name: $space})
MATCH (a:Entity {spaceId: s.id, key: $person})-[r {current: true}]->(b:Entity {key: $other})
WHERE r.claimId IS NOT NULL
MATCH (c:Claim {id: r.claimId})-[e:SUPPORTED_BY|CORRECTED_BY|CONTRADICTED_BY]->(evidence)
WHERE evidence.erasedAt IS NULL
RETURN a, r, b, c, e, evidence"""
"""The claim behind each current relation from `$person` to `$other`, and what it rests on."""

BEFORE_CORRECTION: LiteralString = """MATCH (s:Space {name: $space})
MATCH (p:Entity {spaceId: s.id, key: $person})-[old]-(:Entity)
WHERE old.claimId IS NOT NULL AND old.supersededAt IS NOT NULL
WITH p, max(old.supersededAt) AS corrected
MATCH (p)-[r]-(o:Entity)
WHERE r.claimId IS NOT NULL AND r.status IN ['active', 'disputed']
  AND r.recordedAt < corrected AND (r.supersededAt IS NULL OR corrected <= r.supersededAt)
  AND (r.validFrom IS NULL OR r.validFrom <= datetime())
  AND (r.validTo IS NULL OR datetime() < r.validTo)
RETURN p, r, o"""
"""`$person`'s relations valid today as Engram knew them just before the latest correction of
one of them (recorded time `knownAt` = that correction, exclusive)."""

RELATION_HISTORY: LiteralString = """MATCH (s:Space {name: $space})
MATCH (:Entity {spaceId: s.id, key: $person})-[r]->(:Entity {key: $other})
WHERE r.claimId IS NOT NULL
WITH s, collect(DISTINCT r.claimKey) AS keys
MATCH (c:Claim {spaceId: s.id})
WHERE c.key IN keys
RETURN c.caption AS claim, c.revision AS revision,
  CASE WHEN c.supersededAt IS NULL THEN c.status ELSE 'superseded' END AS status,
  toString(c.validFrom) AS validFrom, toString(c.validTo) AS validTo,
  toString(c.recordedAt) AS recordedAt, toString(c.supersededAt) AS supersededAt,
  c.reason AS reason
ORDER BY c.recordedAt, c.revision"""
"""Every revision of the claims relating `$person` to `$other`: both times, status and reason."""

TOMBSTONES: LiteralString = """MATCH (s:Space {name: $space})
MATCH (t:Tombstone {spaceId: s.id})
RETURN toString(t.at) AS forgottenAt, t.selectorKind AS selector, t.reason AS reason,
  t.actor AS actor, t.tier AS tier, size(t.erasedIds) AS erasedNodes, t.countsJson AS counts
ORDER BY forgottenAt"""
"""What each forget in the space recorded: when, what kind of selector, why, who, how much."""


def guide_params(**overrides: Any) -> dict[str, Any]:
    """The guide's parameters with `overrides`, as the driver takes them."""
    return {**GUIDE_PARAMS, **overrides}


__all__ = [
    "BEFORE_CORRECTION",
    "CURRENT_GRAPH",
    "GUIDE_PARAMS",
    "NEIGHBOURHOOD_AS_OF",
    "RELATION_EVIDENCE",
    "RELATION_HISTORY",
    "TOMBSTONES",
    "guide_params",
]
