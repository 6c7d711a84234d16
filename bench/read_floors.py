"""The one-query floors of `bench.read_latency`: what `related` (2 hops) and `explainRelation`
(≤ 3 hops) cost as one hand-written Cypher statement each, with the same visibility predicate
on every relationship and entity they touch (the floor issue 13 measures against), and nothing
else: no view read, no start check, no names, no claims, no evidence.

The predicate is written out here, not imported: a bench's floor is Cypher of its own, and it
must say the same as `graph.reads.visibility.visible` (space, privacy, valid time at `$asOf`,
recorded time at `$knownAt`, not erased; a missing bound is open).
"""

from __future__ import annotations

from typing import LiteralString


def seen(v: LiteralString) -> LiteralString:
    """Visible in the view whose `View.params()` the statement gets."""
    return (
        f"({v}.spaceId = $spaceId AND {v}.privacy <= $maxPrivacy"
        f" AND {v}.recordedAt <= $knownAt AND {v}.erasedAt IS NULL"
        f" AND ({v}.validFrom IS NULL OR {v}.validFrom <= $asOf)"
        f" AND ({v}.validTo IS NULL OR $asOf < {v}.validTo)"
        f" AND ({v}.supersededAt IS NULL OR $knownAt < {v}.supersededAt))"
    )


# Two hops out from one entity, `first` entities at hop 1, relations that carry a claim.
RAW_RELATED: LiteralString = (
    """
MATCH (a:Entity {id: $id})
WHERE """
    + seen("a")
    + """
MATCH (a)-[r1]-(b:Entity)
WHERE r1.claimId IS NOT NULL AND """
    + seen("r1")
    + " AND "
    + seen("b")
    + """
WITH b, collect({source: startNode(r1).id, target: endNode(r1).id, type: type(r1),
                 props: properties(r1)}) AS via
LIMIT $first
OPTIONAL MATCH (b)-[r2]-(c:Entity)
WHERE r2.claimId IS NOT NULL AND """
    + seen("r2")
    + " AND "
    + seen("c")
    + """
RETURN b.id AS near, via,
       collect({source: startNode(r2).id, target: endNode(r2).id, type: type(r2),
                props: properties(r2)})[..$limit] AS next
"""
)

# The shortest paths of at most 3 visible hops between two visible entities.
RAW_EXPLAIN: LiteralString = (
    """
MATCH (a:Entity {id: $fromId})
WHERE """
    + seen("a")
    + """
MATCH (b:Entity {id: $toId})
WHERE """
    + seen("b")
    + """
MATCH p = allShortestPaths((a)-[rels*1..3]-(b))
WHERE all(r IN rels WHERE r.claimId IS NOT NULL AND """
    + seen("r")
    + """)
  AND all(x IN nodes(p) WHERE """
    + seen("x")
    + """)
RETURN [x IN nodes(p) | x.id] AS nodes,
       [r IN rels | {type: type(r), props: properties(r)}] AS steps
LIMIT $first
"""
)
