"""Graph reads across relations: `related` (the visible neighbourhood) and `explain_relation`
(the shortest visible paths, with the claim and evidence behind every hop).

Every hop applies the visibility predicate to the relationship and to the entity it reaches, so a
relation valid in 2023 but not in 2025 vanishes from a 2025 view, and so does everything reached
only through it. Relations are the typed relationships claims assert (they carry `claimId`);
visible `MERGED_INTO` relationships are traversed too, as steps without a claim.

    near = await related(graph, view, alice.id, hops=2, first=50)
    why = await explain_relation(graph, view, alice.id, acme.id, max_hops=3, first=5)
"""

from __future__ import annotations

from typing import Any, LiteralString

from graph.domain.errors import NotFound, ValidationFailed, check_between
from graph.domain.memory_types import PREDICATE
from graph.domain.read_records import Explanation, Neighbourhood, Relation, Step
from graph.domain.timeutil import to_native, to_native_or_none
from graph.domain.vocabulary import Direction
from graph.reads.listing import CLAIM_OF_ID_WITH_EVIDENCE, claims_and_evidence
from graph.reads.resources import By, entity_record, named_entities_in, resolved_entity
from graph.reads.visibility import (
    View,
    held_bounds,
    relation_holds,
    shown_twin,
    twins,
    visible,
)
from graph.store.db import Graph

MAX_HOPS = 4
MAX_RELATED = 500
MAX_PATHS = 10
MERGED_INTO = "MERGED_INTO"

BY: tuple[By, ...] = ("id", "key")
"""The two ways a walk or a path is given where it starts (`resources.By`)."""

RELATION_PROJECTION: LiteralString = """r {.claimId, .claimKey, .status, .confidence, .reason,
  validFrom: toString(rHeldFrom), validTo: toString(rHeldTo),
  recordedAt: toString(r.recordedAt)}"""
"""What `Relation` is made of, instants as strings (`graph.domain.timeutil.to_native`); its valid
interval is the part of its fact's told interval the view shows it on (`held_bounds`)."""

_TRAVERSABLE: LiteralString = (
    relation_holds("r")
    + " AND "
    + visible("b")
    + """
  AND (r.claimId IS NOT NULL OR type(r) = 'MERGED_INTO')
  AND (size($types) = 0 OR type(r) IN $types)
WITH start, a, r, b LIMIT $limit
"""
    + held_bounds("r", relation=True)
    + "\n"
    + shown_twin("b", "reached")
    + """
RETURN CASE WHEN startNode(r) = a THEN start.id ELSE reached END AS source,
       CASE WHEN endNode(r) = a THEN start.id ELSE reached END AS target,
       reached, type(r) AS type, """
    + RELATION_PROJECTION
    + """ AS props
"""
)

# From each entity of the frontier — every node of its key the view shows (`twins`) — and to
# the node shown for each key reached (`shown_twin`): one entity per key, whatever its tiers.
_FROM_FRONTIER: LiteralString = (
    "UNWIND frontier AS id\nMATCH (start:Entity {id: id})\n" + twins("start", "a") + "\n"
)
_HOP: dict[Direction, LiteralString] = {
    Direction.OUT: _FROM_FRONTIER + "MATCH (a)-[r]->(b:Entity)\nWHERE " + _TRAVERSABLE,
    Direction.IN: _FROM_FRONTIER + "MATCH (a)<-[r]-(b:Entity)\nWHERE " + _TRAVERSABLE,
    Direction.BOTH: _FROM_FRONTIER + "MATCH (a)-[r]-(b:Entity)\nWHERE " + _TRAVERSABLE,
}

# After a hop's rows (at most $limit): the next frontier as `related` reads the rows — the keys
# first reached in this hop, in the order of the rows, while fewer than $first are reached.
_NEXT_FRONTIER: LiteralString = """
WITH hops, seen, rows, reduce(fresh = [], x IN rows[..$bound] |
  CASE WHEN x.reached IN seen OR x.reached IN fresh THEN fresh ELSE fresh + x.reached END) AS fresh
WITH hops + [rows] AS hops, seen + fresh[..$first - size(seen)] AS seen,
     fresh[..$first - size(seen)] AS frontier
"""


def _walk_query(hops: int, direction: Direction, by: By) -> LiteralString:
    """Every hop of `related` in one query: the start by id or key (no row when the view does not
    show it; a merged duplicate's survivor), then each hop from the frontier the one before
    left; the rows of each hop, in order."""
    # The collect is inside the call, so a hop that reaches nothing still yields its row.
    hop: LiteralString = (
        "CALL (frontier) {\nCALL (frontier) {\n"
        + _HOP[direction]
        + "}\nRETURN collect({source: source, target: target, reached: reached, type: type,"
        + " props: props}) AS rows\n}"
        + _NEXT_FRONTIER
    )
    walk: LiteralString = (
        resolved_entity(by, "$start", "origin")
        + "WITH [] AS hops, [origin.id] AS seen, [origin.id] AS frontier\n"
    )
    for _ in range(hops):
        walk += hop
    # Every entity reached (and the start), named as the view names it.
    return walk + named_entities_in("seen", "seen") + "RETURN seen[0] AS origin, hops, named\n"


WALK: dict[tuple[int, Direction, By], LiteralString] = {
    (hops, direction, by): _walk_query(hops, direction, by)
    for hops in range(1, MAX_HOPS + 1)
    for direction in Direction
    for by in BY
}

START: dict[By, LiteralString] = {
    by: resolved_entity(by, "$start", "e") + "RETURN e.id AS id\n" for by in BY
}
"""Whether the view shows an entity (`explain_relation` asks when it found no path)."""


def _explain_query(hops: int, from_by: By, to_by: By) -> LiteralString:
    # Variable-length bounds cannot be parameters; `hops` is one of 1..4 from this module.
    bound: LiteralString = {1: "1", 2: "2", 3: "3", 4: "4"}[hops]
    return (
        """
"""
        + resolved_entity(from_by, "$fromStart", "source")
        + twins("source", "a")
        + "\nWITH a\n"
        + resolved_entity(to_by, "$toStart", "target")
        + twins("target", "b")
        + """
WITH a, b WHERE a <> b
MATCH p = allShortestPaths((a)-[rels*1.."""
        + bound
        + """]-(b))
WHERE all(r IN rels WHERE """
        + relation_holds("r")
        + """ AND (r.claimId IS NOT NULL OR type(r) = 'MERGED_INTO'))
  AND all(x IN nodes(p) WHERE x:Entity AND """
        + visible("x")
        + """)
WITH p, rels ORDER BY length(p) LIMIT $first
CALL (rels) {
  UNWIND rels AS r
"""
        + held_bounds("r", relation=True)
        + """
  RETURN collect({source: startNode(r).id, target: endNode(r).id, type: type(r),
                  props: """
        + RELATION_PROJECTION
        + """}) AS steps
}
WITH collect({nodes: [x IN nodes(p) | x.id], steps: steps}) AS paths
"""
        # The claims behind the steps, with their evidence, and the entities on the paths.
        + "CALL (paths) {\nCALL (paths) {\nUNWIND reduce(ids = [], x IN paths |"
        + " ids + [s IN x.steps WHERE s.props.claimId IS NOT NULL | s.props.claimId]) AS id\n"
        + "WITH DISTINCT id\n"
        + CLAIM_OF_ID_WITH_EVIDENCE
        + "}\nRETURN collect({claim: claim, evidence: evidence}) AS claims\n}\n"
        + named_entities_in("reduce(ids = [], x IN paths | ids + x.nodes)", "paths")
        + "RETURN paths, claims, named\n"
    )


EXPLAIN: dict[tuple[int, By, By], LiteralString] = {
    (hops, from_by, to_by): _explain_query(hops, from_by, to_by)
    for hops in range(1, MAX_HOPS + 1)
    for from_by in BY
    for to_by in BY
}


def _relation(row: dict[str, Any]) -> Relation:
    props = row["props"]
    return Relation(
        type=row["type"],
        source_id=row["source"],
        target_id=row["target"],
        valid_from=to_native_or_none(props.get("validFrom")),
        valid_to=to_native_or_none(props.get("validTo")),
        recorded_at=to_native(props["recordedAt"]),
        claim_id=props.get("claimId"),
        claim_key=props.get("claimKey"),
        status=props.get("status"),
        confidence=props.get("confidence"),
        reason=props.get("reason"),
    )


def _check_types(types: list[str]) -> None:
    for relation_type in types:
        if relation_type != MERGED_INTO and not PREDICATE.match(relation_type):
            raise ValidationFailed(
                f"relation type {relation_type!r} is not UPPER_SNAKE_CASE", field="relationTypes"
            )


def check_related(hops: int, relation_types: list[str] | None, first: int) -> list[str]:
    """Validate `related`'s arguments (before anything is looked up); the relation types."""
    check_between("hops", hops, MAX_HOPS)
    check_between("first", first, MAX_RELATED)
    types = sorted(set(relation_types or []))
    _check_types(types)
    return types


def check_explain(max_hops: int, first: int) -> None:
    check_between("maxHops", max_hops, MAX_HOPS)
    check_between("first", first, MAX_PATHS)


async def related(
    graph: Graph,
    view: View,
    entity_id: str,
    *,
    hops: int = 1,
    relation_types: list[str] | None = None,
    direction: Direction = Direction.BOTH,
    first: int = 50,
    by: By = "id",
) -> Neighbourhood:
    """Entities reachable from the entity `entity_id` names (an id, or with `by="key"` a key; a
    merged duplicate's: from its survivor) in `hops` visible relations, breadth first; none (not
    even the start) when the start is not visible, each named as the view names it. One
    query walks every hop and names what it reached (`WALK`); each hop reads at most four times
    `first` relations, and at most `first` entities are reached."""
    types = check_related(hops, relation_types, first)
    relation_bound = first * 4
    walked = await graph.read(
        WALK[(hops, direction, by)],
        **view.params(),
        start=entity_id,
        types=types,
        limit=relation_bound + 1,
        bound=relation_bound,
        first=first,
    )
    if not walked:
        return Neighbourhood(entity_id, {}, [], False)
    entity_id = walked[0]["origin"]
    distances = {entity_id: 0}
    relations: dict[tuple[str, str, str, str | None], Relation] = {}
    truncated = False
    # The same reading of the rows as the query's own, which chose each next frontier so.
    for hop, rows in enumerate(walked[0]["hops"], start=1):
        if len(rows) > relation_bound:
            truncated = True
            rows = rows[:relation_bound]
        for row in rows:
            reached = row["reached"]
            if reached not in distances:
                if len(distances) >= first:
                    truncated = True
                    continue
                distances[reached] = hop
            relation = _relation(row)
            key = (relation.type, relation.source_id, relation.target_id, relation.claim_id)
            relations[key] = relation
    ordered = sorted(
        relations.values(),
        key=lambda r: (r.source_id, r.type, r.target_id, r.recorded_at),
    )
    named = [entity_record(row) for row in walked[0]["named"]]
    named.sort(key=lambda e: (distances[e.id], e.key))
    return Neighbourhood(entity_id, distances, ordered, truncated, tuple(named))


async def explain_relation(
    graph: Graph,
    view: View,
    from_id: str,
    to_id: str,
    *,
    max_hops: int = 3,
    first: int = 5,
    by: tuple[By, By] = ("id", "id"),
    refuse_unseen: bool = False,
) -> Explanation:
    """Up to `first` shortest visible paths from one entity to another, each given by id or key
    (`by`; a merged duplicate's: from or to its survivor), every hop explained. An end the view
    does not show is said in the answer, or with `refuse_unseen` (the ends came as references)
    is `NOT_FOUND`."""
    check_explain(max_hops, first)
    if (by[0], from_id) == (by[1], to_id):
        raise ValidationFailed("a relation is explained between two different entities")
    [found] = await graph.read(
        EXPLAIN[(max_hops, *by)], **view.params(), fromStart=from_id, toStart=to_id, first=first
    )
    rows = found["paths"]
    if not rows:
        # Only now is it worth asking why: an endpoint outside the view, or no short path.
        for end, entity_id in zip(by, (from_id, to_id), strict=True):
            if not await graph.read(START[end], **view.params(), start=entity_id):
                if refuse_unseen:
                    raise NotFound(f"no visible entity {entity_id!r}", field=end)
                return Explanation([], f"entity {entity_id} is not visible in this view")
        return Explanation(
            [], f"no visible path of at most {max_hops} hops in this asOf/knownAt view"
        )
    claims, evidence = claims_and_evidence(found["claims"], view)
    entities = sorted((entity_record(row) for row in found["named"]), key=lambda e: e.id)
    paths = []
    for row in rows:
        steps = []
        for index, raw in enumerate(row["steps"]):
            here, there = row["nodes"][index], row["nodes"][index + 1]
            relation = _relation(raw)
            claim_id = relation.claim_id
            steps.append(
                Step(
                    relation=relation,
                    from_id=here,
                    to_id=there,
                    forward=relation.source_id == here,
                    claim=claims.get(claim_id) if claim_id else None,
                    evidence=evidence.get(claim_id, []) if claim_id else [],
                )
            )
        paths.append(steps)
    paths.sort(key=lambda p: [(s.relation.type, s.to_id) for s in p])
    return Explanation(paths, None, tuple(entities))


__all__ = [
    "Direction",
    "Explanation",
    "Neighbourhood",
    "Relation",
    "Step",
    "explain_relation",
    "related",
]
