"""Entity references in writes: by id, by key, or by a current name — never guessed.

Only entities at or below the writer's tier are found; one above it answers as if it did not
exist. (An entity key asserted at several tiers has a node at each: a writer that cannot see
the higher one creates its own, and a key or name then means the lowest-tier node one sees.)

A name that fits two entities is `AMBIGUOUS_SUBJECT`; an unknown one is `NOT_FOUND`. A reference
to an entity currently merged into another resolves to the one it was merged into.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, LiteralString

from graph.commands.inline_evidence import SESSION_EPISODES
from graph.commands.references import EntityRef
from graph.commands.writing import WriteContext
from graph.domain import memory_types as mt
from graph.domain.errors import AmbiguousSubject, NotFound
from graph.domain.vocabulary import EntityKind
from graph.reads.visibility import believed, holds

# Follows merges that hold now (recorded, not undone, valid now) to the surviving entity.
# Expects `e` (the entity referred to) and `ref` (what referred to it) bound.
_FOLLOW_MERGES: LiteralString = """
OPTIONAL MATCH (e)-[m:MERGED_INTO]->(survivor:Entity)
WHERE m.supersededAt IS NULL AND m.erasedAt IS NULL AND m.validFrom <= $now
  AND m.privacy <= $maxPrivacy AND survivor.privacy <= $maxPrivacy
WITH ref, coalesce(survivor, e) AS target
WHERE target.erasedAt IS NULL
RETURN ref, target.id AS id, target.key AS key, target.canonical AS canonical,
       coalesce(target.name, target.canonical) AS name, target.privacy AS privacy
"""

ENTITIES_BY_ID: LiteralString = (
    """
UNWIND $ids AS id
MATCH (e:Entity {id: id})
WHERE e.spaceId = $spaceId AND e.erasedAt IS NULL AND e.privacy <= $maxPrivacy
WITH e, id AS ref
"""
    + _FOLLOW_MERGES
)

# A key asserted at several tiers has a node per tier; the writer's lowest visible one is meant.
ENTITIES_BY_KEY: LiteralString = (
    """
UNWIND $entityKeys AS key
CALL (key) {
  MATCH (e:Entity {spaceId: $spaceId, key: key})
  WHERE e.erasedAt IS NULL AND e.privacy <= $maxPrivacy
  RETURN e ORDER BY e.privacy, e.recordedAt LIMIT 1
}
WITH e, key AS ref
"""
    + _FOLLOW_MERGES
)

# A name or alias an entity bears now (`ref.needle`, see `graph.commands.entity_names`: a text
# index seek on `spokenNames`, not a scan of the space's entity claims), of the kind asked for if
# one is (`ref.kind`); when no entity bears the name now, any entity that has borne it, at any
# valid time, as known now (ENGRAM.md §2: "Acme Corp" still finds the entity renamed "Acme
# Global"). The writer's view is now, at its tier (`$asOf` = `$knownAt` = `$now`). `toString`: the
# planner uses a text index only for a value it knows is a string, and a map's value it does not.
ENTITIES_BY_NAME: LiteralString = (
    """
UNWIND $names AS ref
MATCH (c:Claim)
USING TEXT INDEX c:Claim(spokenNames)
WHERE c.spokenNames CONTAINS toString(ref.needle)
  AND c.spaceId = $spaceId AND c.type = 'entity' AND c.status IN ['active', 'disputed']
  AND """
    + believed("c")
    + """
  AND (ref.kind IS NULL OR c.key STARTS WITH 'entity:' + ref.kind + ':')
WITH ref, c, CASE WHEN """
    + holds("c")
    + """ THEN 1 ELSE 0 END AS bearsNow
MATCH (e:Entity {id: c.subjectId})
WHERE e.erasedAt IS NULL AND e.privacy <= $maxPrivacy
OPTIONAL MATCH (e)-[m:MERGED_INTO]->(survivor:Entity)
WHERE m.supersededAt IS NULL AND m.erasedAt IS NULL AND m.validFrom <= $now
  AND m.privacy <= $maxPrivacy AND survivor.privacy <= $maxPrivacy
WITH ref, coalesce(survivor, e) AS target, max(bearsNow) AS bearsNow
ORDER BY target.privacy, target.recordedAt
WITH ref, target.key AS key, head(collect(target)) AS target, max(bearsNow) AS bearsNow
WITH ref, collect({key: key, target: target, bearsNow: bearsNow}) AS found,
     max(bearsNow) AS anyNow
UNWIND found AS fits
WITH ref, fits WHERE fits.bearsNow = anyNow
RETURN ref.id AS ref, fits.target.id AS id, fits.key AS key, fits.target.canonical AS canonical,
       coalesce(fits.target.name, fits.target.canonical) AS name, fits.target.privacy AS privacy
"""
)

_FOUND: LiteralString = "ref, id, key, canonical, name, privacy, null AS episode\n"

ENTITIES_FOUND: LiteralString = (
    "CALL () {"
    + ENTITIES_BY_ID
    + "} RETURN 'id' AS by, "
    + _FOUND
    + "UNION ALL\nCALL () {"
    + ENTITIES_BY_KEY
    + "} RETURN 'key' AS by, "
    + _FOUND
    + "UNION ALL\nCALL () {"
    + ENTITIES_BY_NAME
    + "} RETURN 'name' AS by, "
    + _FOUND
)
"""The three lookups in one round trip (`$ids`, `$entityKeys`, `$names`; an empty list finds
nothing), each row saying which found it."""

ENTITIES_AND_SESSIONS_FOUND: LiteralString = (
    ENTITIES_FOUND
    + "UNION ALL\nCALL () {"
    + SESSION_EPISODES
    + "} RETURN 'session' AS by, sessionKey AS ref, null AS id, null AS key, null AS canonical,"
    + " null AS name, null AS privacy, episode\n"
)
"""`ENTITIES_FOUND` and the session episodes an evidence text may go to, in one round trip."""


@dataclass(frozen=True)
class ResolvedEntity:
    id: str
    key: str
    canonical: str
    name: str
    """Its display name now (what a claim's text calls it when the write named it by key or
    id)."""
    privacy: int
    """The tier of its node: a claim below it could not show the entity (nor its name)."""


@dataclass(frozen=True)
class EntityLookup:
    """What finding references asks: their ids, their keys (given, or derived from a name and
    a kind) and their names — the parameters of `ENTITIES_BY_ID`, `_BY_KEY` and `_BY_NAME`."""

    refs: list[EntityRef]
    ids: list[str]
    keys: list[str]
    names: list[dict[str, Any]]
    index_of: dict[tuple[str, EntityKind | None], str]

    @classmethod
    def of(cls, refs: list[EntityRef]) -> EntityLookup:
        derived = {r.derived_key() for r in refs}
        named = sorted({(r.name, r.kind) for r in refs if r.name is not None}, key=str)
        index_of = {pair: str(index) for index, pair in enumerate(named)}
        return cls(
            refs,
            ids=sorted({r.id for r in refs if r.id is not None}),
            keys=sorted({r.key for r in refs if r.key is not None} | {k for k in derived if k}),
            names=[
                {
                    "id": index_of[(name, kind)],
                    "needle": mt.name_needle(name or ""),
                    "kind": kind.value if kind else None,
                }
                for name, kind in named
            ],
            index_of=index_of,
        )

    def params(self, ctx: WriteContext, session_keys: list[str]) -> dict[str, Any]:
        """The parameters of `ENTITIES_AND_SESSIONS_FOUND` (and `ENTITIES_FOUND`): the
        writer's view is now, at its tier."""
        return {
            "spaceId": ctx.space_id,
            "now": ctx.now,
            "asOf": ctx.now,
            "knownAt": ctx.now,
            "maxPrivacy": int(ctx.max_privacy),
            "ids": self.ids,
            "entityKeys": self.keys,
            "names": self.names,
            "sessionKeys": sorted(set(session_keys)),
        }

    def found(
        self, rows: list[dict[str, Any]], session_keys: list[str]
    ) -> tuple[dict[EntityRef, dict[str, dict[str, Any]]], dict[str, dict[str, Any] | None]]:
        """Each reference's candidates, and each session key's open episode (None: none), from
        the rows of `ENTITIES_AND_SESSIONS_FOUND`."""
        found: dict[tuple[str, str], list[dict[str, Any]]] = {}
        sessions: dict[str, dict[str, Any] | None] = dict.fromkeys(session_keys)
        for row in rows:
            if row["by"] == "session":
                sessions[row["ref"]] = row["episode"]
            else:
                found.setdefault((row["by"], row["ref"]), []).append(row)
        return self.candidates(found), sessions

    def candidates(
        self, found: dict[tuple[str, str], list[dict[str, Any]]]
    ) -> dict[EntityRef, dict[str, dict[str, Any]]]:
        """Each reference's candidates by key, from the rows found (keyed by `("id" | "key" |
        "name", row["ref"])`)."""
        candidates: dict[EntityRef, dict[str, dict[str, Any]]] = {}
        for ref in self.refs:
            if ref.id is not None:
                rows = found.get(("id", ref.id), [])
            elif ref.key is not None:
                rows = found.get(("key", ref.key), [])
            else:
                rows = found.get(("name", self.index_of[(ref.name or "", ref.kind)]), [])
                rows = rows + found.get(("key", ref.derived_key() or ""), [])
            candidates[ref] = {row["key"]: row for row in rows}
        return candidates


async def find_entities(
    ctx: WriteContext, refs: list[EntityRef]
) -> dict[EntityRef, dict[str, dict[str, Any]]]:
    """Every visible entity each reference may mean, by key (a name may fit several; a name
    with a kind also fits the entity its derived key names, whatever it is called now)."""
    candidates, _ = await find_entities_and_sessions(ctx, refs, [])
    return candidates


async def find_entities_and_sessions(
    ctx: WriteContext, refs: list[EntityRef], session_keys: list[str]
) -> tuple[dict[EntityRef, dict[str, dict[str, Any]]], dict[str, dict[str, Any] | None]]:
    """`find_entities`, and the open session episode of each of `session_keys` (None: none
    open), in one round trip."""
    lookup = EntityLookup.of(refs)
    rows: list[dict[str, Any]] = []
    if lookup.ids or lookup.keys or lookup.names or session_keys:
        rows = await ctx.run(
            ENTITIES_AND_SESSIONS_FOUND if session_keys else ENTITIES_FOUND,
            **lookup.params(ctx, session_keys),
        )
    return lookup.found(rows, session_keys)


def not_found(ctx: WriteContext, ref: EntityRef, field: str) -> NotFound:
    """The answer for a reference that means no entity the writer may see."""
    hint = "" if ref.name is None or ref.kind else " (give its kind to create it)"
    return NotFound(f"no entity with {ref.describe()} in space {ctx.space!r}{hint}", field=field)


def only_candidate(
    ctx: WriteContext, ref: EntityRef, rows: dict[str, dict[str, Any]], field: str
) -> ResolvedEntity:
    """The one entity `ref` means: NOT_FOUND for none, AMBIGUOUS_SUBJECT (naming the
    candidates' keys) for several."""
    if not rows:
        raise not_found(ctx, ref, field)
    if len(rows) > 1:
        raise AmbiguousSubject(
            f"{ref.describe()} names {len(rows)} entities ({', '.join(sorted(rows))}); "
            "refer to one by key or id",
            field=field,
        )
    row = next(iter(rows.values()))
    return ResolvedEntity(row["id"], row["key"], row["canonical"], row["name"], row["privacy"])


async def resolve_entities(
    ctx: WriteContext, refs: list[tuple[EntityRef, str]]
) -> dict[EntityRef, ResolvedEntity]:
    """Resolve `(ref, field)` pairs to entities that exist; the field names the input in
    errors."""
    candidates = await find_entities(ctx, [ref for ref, _ in refs])
    return {ref: only_candidate(ctx, ref, candidates[ref], field) for ref, field in refs}
