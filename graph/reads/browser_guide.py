"""The Cypher of Engram's Neo4j Browser guide: one named query per slide, run as shown.

The guide (served by Engram at `/browser-guide/`, played by the printed Browser URL) is rendered
from `SLIDES`, so what a person runs in Browser is exactly what the tests run. Every query takes
its parameters from one `:params` line (`GUIDE_PARAMS`):

    await graph.read(CURRENT_GRAPH, **guide_params(space="alice"))

Each query is anchored on the space by name, walks only entities and the relation edges claims
assert (`claimId` set: no MERGED_INTO, no Meaning/Clock/Migration/AuditEvent nodes), and shows
current edges only (`current: true`, valid now or at `$asOf`) unless its slide is about history.
A tombstone shows what it records — when, which selector, why, by whom, how much — and never
content (it holds none; the slide also leaves out its keyed fingerprints).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, LiteralString

from graph.store.local.browser_settings import (
    GUIDE_PATH,
    STYLE_PATH,
    allowed_guide_hosts,
    guide_origin,
    post_connect_commands,
)

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


@dataclass(frozen=True)
class Slide:
    """One slide: a title, a few sentences (HTML) and the query it runs (None: text only)."""

    title: str
    text: str
    cypher: str | None = None
    draws: bool = True
    """True when the query returns nodes and edges (Browser draws them), False for a table."""


SLIDES: tuple[Slide, ...] = (
    Slide(
        "Engram in Neo4j Browser",
        "Entities carry their current <code>name</code> and their kind as a label "
        "(<code>:Person</code>, <code>:Org</code>, …); relation edges say whether they are "
        "<code>current</code>. First apply Engram's style, then set the parameters every slide "
        "uses (change <code>space</code> to your space's name). Click a block to run it.",
    ),
    Slide(
        "A space's current graph",
        "Every relation that is recorded now and valid today. Superseded revisions "
        "(<code>current: false</code>) and relations that ended are left out.",
        CURRENT_GRAPH,
    ),
    Slide(
        "One person's neighbourhood as of a date",
        "Who <code>$person</code> was connected to, two hops out, as the world was at "
        "<code>$asOf</code> — as Engram knows it now.",
        NEIGHBOURHOOD_AS_OF,
    ),
    Slide(
        "The evidence behind a relation",
        "The claim that asserts each current relation from <code>$person</code> to "
        "<code>$other</code>, and the observations it rests on (<code>SUPPORTED_BY</code>, "
        "<code>CORRECTED_BY</code> when a correction changed it).",
        RELATION_EVIDENCE,
    ),
    Slide(
        "What was known before a correction",
        "The relations of <code>$person</code> valid today, as Engram knew them just before the "
        "latest correction of one of them: the edge the correction replaced is drawn again.",
        BEFORE_CORRECTION,
    ),
    Slide(
        "A relation's history",
        "Every revision of the claims relating <code>$person</code> to <code>$other</code>: "
        "valid time (<code>validFrom</code>…<code>validTo</code>), recorded time "
        "(<code>recordedAt</code>…<code>supersededAt</code>), status and the reason given.",
        RELATION_HISTORY,
        draws=False,
    ),
    Slide(
        "What a tombstone records",
        "A forget erases content in every revision and leaves a tombstone: when, what kind of "
        "selector, why, by whom and how much — never what was said.",
        TOMBSTONES,
        draws=False,
    ),
)


def guide_params(**overrides: Any) -> dict[str, Any]:
    """The guide's parameters with `overrides`, as the driver takes them."""
    return {**GUIDE_PARAMS, **overrides}


__all__ = [
    "GUIDE_PATH",
    "SLIDES",
    "STYLE_PATH",
    "Slide",
    "allowed_guide_hosts",
    "guide_origin",
    "guide_params",
    "post_connect_commands",
]
