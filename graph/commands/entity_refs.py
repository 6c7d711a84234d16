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

from pydantic import BaseModel, ConfigDict, model_validator

from graph.commands.writing import WriteContext
from graph.domain.errors import AmbiguousSubject, NotFound
from graph.store.db import run

# Follows merges that hold now (recorded, not undone, valid now) to the surviving entity.
# Expects `e` (the entity referred to) and `ref` (what referred to it) bound.
_FOLLOW_MERGES: LiteralString = """
OPTIONAL MATCH (e)-[m:MERGED_INTO]->(survivor:Entity)
WHERE m.supersededAt IS NULL AND m.erasedAt IS NULL AND m.validFrom <= $now
  AND m.privacy <= $maxPrivacy AND survivor.privacy <= $maxPrivacy
WITH ref, coalesce(survivor, e) AS target
WHERE target.erasedAt IS NULL
RETURN ref, target.id AS id, target.key AS key, target.canonical AS canonical
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
UNWIND $keys AS key
CALL (key) {
  MATCH (e:Entity {spaceId: $spaceId, key: key})
  WHERE e.erasedAt IS NULL AND e.privacy <= $maxPrivacy
  RETURN e ORDER BY e.privacy, e.recordedAt LIMIT 1
}
WITH e, key AS ref
"""
    + _FOLLOW_MERGES
)

# A name or alias of an entity claim that is current and valid now.
ENTITIES_BY_NAME: LiteralString = """
UNWIND $names AS name
MATCH (c:Claim {spaceId: $spaceId, type: 'entity'})
WHERE c.supersededAt IS NULL AND c.erasedAt IS NULL AND c.status IN ['active', 'disputed']
  AND c.privacy <= $maxPrivacy
  AND (c.validFrom IS NULL OR c.validFrom <= $now) AND (c.validTo IS NULL OR $now < c.validTo)
  AND (toLower(c.name) = toLower(name) OR toLower(name) IN [a IN c.aliases | toLower(a)])
MATCH (e:Entity {id: c.subjectId})
WHERE e.erasedAt IS NULL AND e.privacy <= $maxPrivacy
WITH DISTINCT name, e
OPTIONAL MATCH (e)-[m:MERGED_INTO]->(survivor:Entity)
WHERE m.supersededAt IS NULL AND m.erasedAt IS NULL AND m.validFrom <= $now
  AND m.privacy <= $maxPrivacy AND survivor.privacy <= $maxPrivacy
WITH DISTINCT name, coalesce(survivor, e) AS target
ORDER BY target.privacy, target.recordedAt
WITH name, target.key AS key, head(collect(target)) AS target
RETURN name AS ref, target.id AS id, key, target.canonical AS canonical
"""


class EntityRef(BaseModel):
    """Exactly one of: an entity id, an entity key (`entity:<kind>:<canonical>`), or a name."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str | None = None
    key: str | None = None
    name: str | None = None

    @model_validator(mode="after")
    def _exactly_one(self) -> EntityRef:
        given = [v for v in (self.id, self.key, self.name) if v is not None]
        if len(given) != 1:
            raise ValueError("an entity reference gives exactly one of id, key or name")
        return self

    def describe(self) -> str:
        if self.id is not None:
            return f"id {self.id!r}"
        if self.key is not None:
            return f"key {self.key!r}"
        return f"name {self.name!r}"


@dataclass(frozen=True)
class ResolvedEntity:
    id: str
    key: str
    canonical: str


async def resolve_entities(
    ctx: WriteContext, refs: list[tuple[EntityRef, str]]
) -> dict[EntityRef, ResolvedEntity]:
    """Resolve `(ref, field)` pairs; the field names the input in errors."""
    ids = sorted({r.id for r, _ in refs if r.id is not None})
    keys = sorted({r.key for r, _ in refs if r.key is not None})
    names = sorted({r.name for r, _ in refs if r.name is not None})
    found: dict[tuple[str, str], list[dict[str, Any]]] = {}
    params: dict[str, Any] = {
        "spaceId": ctx.space_id,
        "now": ctx.now,
        "maxPrivacy": int(ctx.max_privacy),
    }
    for kind, query, values, arg in (
        ("id", ENTITIES_BY_ID, ids, "ids"),
        ("key", ENTITIES_BY_KEY, keys, "keys"),
        ("name", ENTITIES_BY_NAME, names, "names"),
    ):
        if values:
            for row in await run(ctx.tx, query, **params, **{arg: values}):
                found.setdefault((kind, row["ref"]), []).append(row)
    resolved: dict[EntityRef, ResolvedEntity] = {}
    for ref, field in refs:
        lookup = ("id", ref.id) if ref.id else ("key", ref.key) if ref.key else ("name", ref.name)
        rows = found.get((lookup[0], lookup[1] or ""), [])
        unique = {row["id"]: row for row in rows}
        if not unique:
            raise NotFound(f"no entity with {ref.describe()} in space {ctx.space!r}", field=field)
        if len(unique) > 1:
            keys_found = ", ".join(sorted(row["key"] for row in unique.values()))
            raise AmbiguousSubject(
                f"{ref.describe()} names {len(unique)} entities ({keys_found}); "
                "refer to one by key or id",
                field=field,
            )
        row = next(iter(unique.values()))
        resolved[ref] = ResolvedEntity(row["id"], row["key"], row["canonical"])
    return resolved
