"""The one-query floors of `bench.read_latency`: what `related` (2 hops) and `explainRelation`
(≤ 3 hops) cost as one hand-written Cypher statement each: the same traversal under the same
bounds, with the same visibility predicate on every relationship and entity it touches (the
floor issue 13 measures against), and nothing else: no view read, no names, no claims, no
evidence.

The predicate is written out here, not imported: a bench's floor is Cypher of its own, and it
must say the same as `graph.reads.visibility.visible` (space, privacy, valid time at `$asOf`,
recorded time at `$knownAt`, not erased; a missing bound is open) and, for a relation, as
`relation_holds` (the told fact its key shows then).
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


def shown(r: LiteralString) -> LiteralString:
    """A relation seen in the view and the one its key shows at `$asOf`: no told fact of its key
    that ranks above it (`toldRank`) is seen then (as `graph.reads.visibility.relation_holds`)."""
    return (
        f"({seen(r)} AND ({r}.claimKey IS NULL OR NOT EXISTS {{"
        f" MATCH (over:Claim {{spaceId: $spaceId, key: {r}.claimKey}})"
        f" WHERE over.toldRank > {r}.toldRank AND {seen('over')} }}))"
    )


# A relation `related` follows: one a claim asserts, or a merge.
_FOLLOWED: LiteralString = "(r.claimId IS NOT NULL OR type(r) = 'MERGED_INTO')"

# Two hops out from one entity under `related`'s bounds: at most `$limit` relation rows a hop
# and `$first` entities, the start among them (the domain also drops a second hop's relation to
# an entity past that bound; the floor keeps it, so it never does less than the domain).
RAW_RELATED: LiteralString = (
    """
MATCH (a:Entity {id: $id})
WHERE """
    + seen("a")
    + """
OPTIONAL CALL (a) {
  MATCH (a)-[r]-(b:Entity)
  WHERE """
    + _FOLLOWED
    + " AND "
    + shown("r")
    + " AND "
    + seen("b")
    + """
  RETURN r, b
  LIMIT $limit
}
WITH a, collect(r) AS near, [x IN collect(DISTINCT b) WHERE x <> a][..$first - 1] AS frontier
OPTIONAL CALL (frontier) {
  UNWIND frontier AS b
  MATCH (b)-[r]-(c:Entity)
  WHERE """
    + _FOLLOWED
    + " AND "
    + shown("r")
    + " AND "
    + seen("c")
    + """
  RETURN r
  LIMIT $limit
}
WITH near, collect(r) AS far
RETURN [r IN near + far | {source: startNode(r).id, target: endNode(r).id, type: type(r),
                          claimId: r.claimId, props: properties(r)}] AS relations
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
WHERE all(r IN rels WHERE """
    + _FOLLOWED
    + " AND "
    + shown("r")
    + """)
  AND all(x IN nodes(p) WHERE x:Entity AND """
    + seen("x")
    + """)
RETURN [x IN nodes(p) | x.id] AS nodes,
       [r IN rels | {type: type(r), props: properties(r)}] AS steps
LIMIT $first
"""
)
