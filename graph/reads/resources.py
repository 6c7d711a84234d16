"""Reads of single resources through a `View`: claims, claim history, entities, episodes.

    view = await View.open(graph, "alice", as_of=last_year)
    [c.value for c in await claims_by_key(graph, view, "pref:ui:theme")]
    [{'value': 'dark'}]

Every query here filters every node and relationship it returns with `visible()` (or, for history,
`in_history()`); evidence is shown only where the link and its target are visible too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, LiteralString

from graph.domain import memory_types as mt
from graph.domain.errors import AmbiguousSubject, NotFound, ValidationFailed
from graph.domain.model import Claim, Entity, Episode
from graph.domain.timeutil import to_native
from graph.domain.vocabulary import EntityKind
from graph.reads.shown_claims import SHOWN_CLAIM_WITH_VISIBLE_EVIDENCE
from graph.reads.visibility import View, believed, holds, in_history, visible
from graph.store.db import Graph
from graph.store.rows import CLAIM_PROJECTION, EVIDENCE_PROJECTION, claim_record, episode_record

CLAIM_BY_ID: LiteralString = (
    """
MATCH (c:Claim {id: $id})
WHERE """
    + holds("c")
    + SHOWN_CLAIM_WITH_VISIBLE_EVIDENCE
)

CLAIMS_BY_KEY: LiteralString = (
    """
MATCH (c:Claim {spaceId: $spaceId, key: $key})
WHERE """
    + holds("c")
    + SHOWN_CLAIM_WITH_VISIBLE_EVIDENCE
    + "ORDER BY claim.revision DESC"
)

CLAIM_HISTORY: LiteralString = (
    """
MATCH (c:Claim {spaceId: $spaceId, key: $key})
WHERE """
    + in_history("c")
    + """
OPTIONAL MATCH (c)-[e:SUPPORTED_BY|CONTRADICTED_BY|CORRECTED_BY]->(t)
WHERE """
    + in_history("e")
    + " AND "
    + in_history("t")
    + """
RETURN """
    + CLAIM_PROJECTION
    + """ AS claim,
       collect(DISTINCT CASE WHEN t IS NULL THEN NULL ELSE """
    + EVIDENCE_PROJECTION
    + """ END) AS evidence
ORDER BY claim.revision
"""
)

By = Literal["id", "key"]
"""How a reference names an entity without a lookup of its name: by id, or by key."""


def resolved_entity(by: By, param: LiteralString, entity: LiteralString) -> LiteralString:
    """Binds `entity` to the entity the parameter `param` names by id or key (`by`) when the view
    shows it — by key, the key's node at the lowest tier the view shows, first recorded (a key
    named at several tiers has a node at each) — or to its survivor when it is a merged
    duplicate; no row when the view does not show it. Every read of an entity by id or key
    starts so (`ENTITY_BY_ID`, `ENTITY_BY_KEY`, the walks and paths of `traverse`)."""
    given: LiteralString = "given_" + entity
    if by == "id":
        start: LiteralString = f"MATCH ({given}:Entity {{id: {param}}})\nWHERE " + visible(given)
    else:
        start = (
            f"CALL () {{\nMATCH (keyed:Entity {{spaceId: $spaceId, key: {param}}})\nWHERE "
            + visible("keyed")
            + f"\nRETURN keyed AS {given} ORDER BY keyed.privacy, keyed.recordedAt LIMIT 1\n}}"
        )
    return (
        start
        + f"\nOPTIONAL MATCH ({given})-[merged_{entity}:MERGED_INTO]->"
        + f"(survivor_{entity}:Entity)\nWHERE "
        + visible(f"merged_{entity}")
        + " AND "
        + visible(f"survivor_{entity}")
        + f"\nWITH *, coalesce(survivor_{entity}, {given}) AS {entity}\n"
    )


_ENTITY_VIEW: LiteralString = (
    """OPTIONAL MATCH (c:Claim {spaceId: $spaceId, key: entity.key})
WHERE """
    + holds("c")
    + """ AND c.status IN ['active', 'disputed']
WITH entity, c ORDER BY c.privacy DESC
WITH entity, head(collect(c)) AS naming
OPTIONAL MATCH (duplicate:Entity)-[m2:MERGED_INTO]->(entity)
WHERE """
    + visible("m2")
    + " AND "
    + visible("duplicate")
    + """
RETURN entity {.id, .spaceId, .key, .kind, .canonical, recordedAt: toString(entity.recordedAt)}
         AS entity,
       naming.name AS name, naming.aliases AS aliases, collect(duplicate.key) AS mergedFrom
"""
)

ENTITY_BY_ID: LiteralString = resolved_entity("id", "$id", "entity") + _ENTITY_VIEW

NAMED_ENTITIES: LiteralString = (
    """
MATCH (e:Entity {id: id})
WHERE """
    + visible("e")
    + """
OPTIONAL MATCH (c:Claim {spaceId: $spaceId, key: e.key})
WHERE """
    + holds("c")
    + """ AND c.status IN ['active', 'disputed']
WITH e, c ORDER BY c.privacy DESC
WITH e, head(collect(c)) AS naming
RETURN e {.id, .spaceId, .key, .kind, .canonical, recordedAt: toString(e.recordedAt)} AS entity,
       naming.name AS name, naming.aliases AS aliases, [] AS mergedFrom
"""
)
"""The entity of each `id` the view shows, named as the view names it (an `UNWIND` or a list
binds `id` before it); one row each, read by `entity_record`."""

ENTITIES_BY_IDS: LiteralString = "UNWIND $ids AS id\n" + NAMED_ENTITIES


def named_entities_in(ids: LiteralString, scope: LiteralString) -> LiteralString:
    """A `CALL` binding `named` to `NAMED_ENTITIES`' rows (as maps) for the ids of the list
    expression `ids`, in a query that has bound the variable `scope` (both from this package's
    own queries); it yields its row even when no id is visible (the collect is inside)."""
    return (
        "CALL ("
        + scope
        + ") {\nCALL ("
        + scope
        + ") {\nUNWIND "
        + ids
        + " AS id\nWITH DISTINCT id\n"
        + NAMED_ENTITIES
        + "}\nRETURN collect({entity: entity, name: name, aliases: aliases,"
        + " mergedFrom: mergedFrom}) AS named\n}\n"
    )


# An entity key asserted at several tiers has one entity node per tier (a writer never meets a
# node above its tier, so it creates its own); a reader that sees several reads the lowest.
ENTITY_BY_KEY: LiteralString = resolved_entity("key", "$key", "entity") + _ENTITY_VIEW


EPISODE: LiteralString = (
    """
MATCH (ep:Episode {id: $id})
WHERE """
    + in_history("ep")
    + """
OPTIONAL MATCH (ep)-[:HAS_OBSERVATION]->(o:Observation)
WHERE """
    + visible("o")
    + """
RETURN properties(ep) AS episode, collect(properties(o)) AS observations
"""
)


def _entity_ids_by_name(bearing: LiteralString) -> LiteralString:
    return (
        """
MATCH (c:Claim)
USING TEXT INDEX c:Claim(spokenNames)
WHERE c.spokenNames CONTAINS toString($needle) AND c.spaceId = $spaceId AND c.type = 'entity'
  AND """
        + bearing
        + """ AND c.status IN ['active', 'disputed']
  AND ($kind IS NULL OR c.key STARTS WITH 'entity:' + $kind + ':')
MATCH (e:Entity {id: c.subjectId})
WHERE """
        + visible("e")
        + """
WITH DISTINCT e ORDER BY e.privacy, e.recordedAt
// A key held at several tiers names its lowest-tier entity (see ENTITY_BY_KEY).
WITH e.key AS key, head(collect(e.id)) AS id
RETURN id, key
ORDER BY key
"""
    )


ENTITY_IDS_BY_NAME = _entity_ids_by_name(holds("c"))
"""The entities bearing a name in the view (at its `asOf`, as known at its `knownAt`)."""

ENTITY_IDS_BY_BORNE_NAME = _entity_ids_by_name(believed("c"))
"""The entities that have borne a name at any valid time, as known at the view's `knownAt`:
what a name resolves to when nothing bore it at `asOf` (ENGRAM.md §2)."""


def _claim(row: dict[str, Any], view: View) -> Claim:
    return claim_record(row["claim"], row["evidence"], known_at=view.known_at)


async def get_claim(graph: Graph, view: View, claim_id: str) -> Claim:
    """One claim revision, if visible in `view`."""
    rows = await graph.read(CLAIM_BY_ID, **view.params(), id=claim_id)
    if not rows:
        raise NotFound(f"no visible claim {claim_id!r}", field="id")
    return _claim(rows[0], view)


async def claims_by_key(graph: Graph, view: View, key: str) -> list[Claim]:
    """The revisions of `key` visible in `view` (one per time slice for overwrite types;
    several for versioned ones), newest revision first."""
    return [_claim(row, view) for row in await graph.read(CLAIMS_BY_KEY, **view.params(), key=key)]


async def claim_history(graph: Graph, view: View, key: str) -> list[Claim]:
    """Every revision of `key` recorded by `view.known_at`, in the order they were recorded,
    with both intervals (told: as the writer gave them).

    A revision superseded after `knownAt` shows as it was then (not yet superseded)."""
    history = sorted(
        (
            claim_record(row["claim"], row["evidence"], known_at=view.known_at)
            for row in await graph.read(CLAIM_HISTORY, **view.params(), key=key)
        ),
        key=lambda claim: (claim.recorded_at, claim.privacy, claim.revision),
    )
    if not history:
        raise NotFound(
            f"no claim with key {key!r} known at {view.known_at.isoformat()}", field="key"
        )
    return history


async def get_entity(
    graph: Graph, view: View, *, entity_id: str | None = None, key: str | None = None
) -> Entity:
    """An entity with its name as of `view.as_of`; a merged duplicate reads as its survivor."""
    if entity_id is not None:
        rows = await graph.read(ENTITY_BY_ID, **view.params(), id=entity_id)
    else:
        rows = await graph.read(ENTITY_BY_KEY, **view.params(), key=key)
    if not rows:
        raise NotFound(
            f"no visible entity {entity_id or key!r}", field="id" if entity_id else "key"
        )
    return entity_record(rows[0])


def reference(ref: Mapping[str, str | None]) -> dict[str, str]:
    """What an entity reference gives: exactly one of id, key or name (a kind only with a
    name)."""
    given = {k: v for k, v in ref.items() if v is not None and k != "kind"}
    if len(given) != 1 or not given.keys() <= {"id", "key", "name"}:
        raise ValidationFailed("an entity reference gives exactly one of id, key or name")
    if ref.get("kind") is not None and "name" not in given:
        raise ValidationFailed("kind goes with a name", field="kind")
    return given


async def find_entity(
    graph: Graph,
    view: View,
    *,
    entity_id: str | None = None,
    key: str | None = None,
    name: str | None = None,
    kind: str | None = None,
) -> Entity:
    """The entity one of id, key or name refers to. A name (folded: case, spacing, `-` and `_`
    ignored; of `kind` if given) is looked up in the view first — at its asOf, as known at its
    knownAt — and when nothing bore it then, among every name an entity has borne as known at
    knownAt; a name that fits several is `AMBIGUOUS_SUBJECT`."""
    if name is not None:
        needle = mt.name_needle(name)
        rows = await graph.read(ENTITY_IDS_BY_NAME, **view.params(), needle=needle, kind=kind)
        if not rows:
            rows = await graph.read(
                ENTITY_IDS_BY_BORNE_NAME, **view.params(), needle=needle, kind=kind
            )
        if not rows:
            raise NotFound(f"no visible entity named {name!r}", field="name")
        if len(rows) > 1:
            keys = ", ".join(row["key"] for row in rows)
            raise AmbiguousSubject(
                f"name {name!r} fits {len(rows)} entities ({keys}); use a key or id", field="name"
            )
        entity_id = rows[0]["id"]
    return await get_entity(graph, view, entity_id=entity_id, key=key)


async def entities_by_ids(graph: Graph, view: View, ids: list[str]) -> list[Entity | None]:
    """Entities by id with their names as of `view.as_of` (a DataLoader's batch; merges are not
    followed here: each id reads as itself)."""
    rows = await graph.read(ENTITIES_BY_IDS, **view.params(), ids=sorted(set(ids)))
    found = {row["entity"]["id"]: entity_record(row) for row in rows}
    return [found.get(entity_id) for entity_id in ids]


def entity_record(row: dict[str, Any]) -> Entity:
    props = row["entity"]
    return Entity(
        id=props["id"],
        space_id=props["spaceId"],
        key=props["key"],
        kind=EntityKind(props["kind"]),
        canonical=props["canonical"],
        recorded_at=to_native(props["recordedAt"]),
        name=row["name"] or props["canonical"],
        aliases=tuple(row["aliases"] or ()),
        merged_from=tuple(sorted(row["mergedFrom"])),
    )


async def get_episode(graph: Graph, view: View, episode_id: str) -> Episode:
    """An episode with the observations visible in `view`."""
    rows = await graph.read(EPISODE, **view.params(), id=episode_id)
    if not rows:
        raise NotFound(f"no visible episode {episode_id!r}", field="id")
    return episode_record(rows[0]["episode"], rows[0]["observations"])
