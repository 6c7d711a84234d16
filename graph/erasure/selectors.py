"""What a forget, a legal hold or a retention purge applies to: a selector, resolved to ids.

Selectors: one resource (claim by id — every revision of the told fact it is; by key — every
revision of every told fact of the key —, observation, episode with all its observations,
artifact, entity with every claim about it), a subject + predicate (every revision of every
claim with that subject and predicate), or a whole space.

    selection = await select(ctx, Selector(kind=SelectorKind.CLAIM, id=claim.id))
    selection.claims        # ids of every revision of the told fact
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import LiteralString

from pydantic import BaseModel, ConfigDict, model_validator

from graph.commands.entity_refs import resolve_entities
from graph.commands.references import EntityRef
from graph.commands.writing import WriteContext
from graph.domain.errors import Forbidden, Forgotten, NotFound, ValidationFailed
from graph.domain.memory_types import PREDICATE
from graph.domain.model import canonical_json
from graph.domain.vocabulary import Privacy
from graph.domain.vocabulary import SelectorKind as SelectorKind


class Selector(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: SelectorKind
    id: str | None = None
    key: str | None = None
    """A claim's key (every revision of it) or an entity's key."""
    name: str | None = None
    """An entity's current name."""
    subject: EntityRef | None = None
    predicate: str | None = None

    @model_validator(mode="after")
    def _shape(self) -> Selector:
        given = {n for n, v in (("id", self.id), ("key", self.key), ("name", self.name)) if v}
        named = sorted(given)
        if self.kind is SelectorKind.SUBJECT_PREDICATE:
            if self.subject is None or self.predicate is None or named:
                raise ValueError("a SUBJECT_PREDICATE selector gives subject and predicate")
            if not PREDICATE.match(self.predicate):
                raise ValueError("predicate must be UPPER_SNAKE_CASE")
        elif self.kind is SelectorKind.SPACE:
            if named or self.subject is not None or self.predicate is not None:
                raise ValueError("a SPACE selector names nothing but the space")
        elif (
            self.subject is not None
            or self.predicate is not None
            or len(named) != 1
            or not given <= set(self.takes())
        ):
            raise ValueError(f"a {self.kind} selector gives {' or '.join(self.takes())}")
        return self

    def takes(self) -> tuple[str, ...]:
        """What names the resource of this kind."""
        if self.kind is SelectorKind.CLAIM:
            return ("id", "key")
        if self.kind is SelectorKind.ENTITY:
            return ("id", "key", "name")
        return ("id",)

    def by_content(self) -> bool:
        """Named by a key or a name (content), rather than by an id."""
        return self.key is not None or self.name is not None


@dataclass
class Selection:
    """Ids selected, by label."""

    claims: set[str] = field(default_factory=set)
    observations: set[str] = field(default_factory=set)
    episodes: set[str] = field(default_factory=set)
    artifacts: set[str] = field(default_factory=set)
    entities: set[str] = field(default_factory=set)
    names: set[str] = field(default_factory=set)
    """The entity claims naming entities forgotten as by-products (`graph.erasure.by_products`):
    erased with their entities, counted with them, not as claims."""
    whole_space: bool = False
    subject_id: str | None = None
    predicate: str | None = None

    def all_ids(self) -> set[str]:
        return (
            self.claims
            | self.names
            | self.observations
            | self.episodes
            | self.artifacts
            | self.entities
        )

    def counts(self) -> dict[str, int]:
        return {
            "claims": len(self.claims),
            "observations": len(self.observations),
            "episodes": len(self.episodes),
            "artifacts": len(self.artifacts),
            "entities": len(self.entities),
        }


# Every selector selects only what the writer's tier reaches: the rows of a key at or below it,
# the observations of an episode at or below it, … What lies above stays as it is, and no count
# or error tells the writer it is there.
ROWS_OF_KEY: LiteralString = """
MATCH (row:Claim {spaceId: $spaceId, key: $key})
WHERE row.privacy <= $maxPrivacy
RETURN collect(row.id) AS ids
"""

# A claim by id is the told fact it is a revision of (its `factId`): one fact of a one-value key
# goes, the others stay. A row written before told facts had ids (no `factId`, or revising such a
# row) stands for its whole key, as every claim id did then.
ROWS_OF_FACT_OF_CLAIM: LiteralString = """
MATCH (c:Claim {id: $id})
WHERE c.spaceId = $spaceId AND c.privacy <= $maxPrivacy
OPTIONAL MATCH (origin:Claim {id: c.factId})
WITH c, c.factId IS NULL OR (origin IS NOT NULL AND origin.factId IS NULL) AS wholeKey
OPTIONAL MATCH (row:Claim {spaceId: $spaceId, key: c.key})
WHERE row.privacy <= $maxPrivacy AND (wholeKey OR row.factId = c.factId)
RETURN c.erasedAt IS NOT NULL AS erased, collect(row.id) AS ids
"""

_ONE: LiteralString = """
WHERE n.spaceId = $spaceId AND n.privacy <= $maxPrivacy
RETURN n.erasedAt IS NOT NULL AS erased
"""
ONE_NODE: dict[str, LiteralString] = {
    "OBSERVATION": "MATCH (n:Observation {id: $id})" + _ONE,
    "EPISODE": "MATCH (n:Episode {id: $id})" + _ONE,
    "ARTIFACT": "MATCH (n:Artifact {id: $id})" + _ONE,
    "ENTITY": "MATCH (n:Entity {id: $id})" + _ONE,
}

OBSERVATIONS_OF_EPISODE: LiteralString = """
MATCH (e:Episode {id: $id})-[:HAS_OBSERVATION]->(o:Observation)
WHERE o.privacy <= $maxPrivacy
RETURN collect(o.id) AS ids
"""

CLAIMS_ABOUT_ENTITY: LiteralString = """
CALL () {
  MATCH (c:Claim {subjectId: $id})
  WHERE c.spaceId = $spaceId AND c.privacy <= $maxPrivacy
  RETURN c.key AS key
  UNION
  MATCH (c:Claim {objectId: $id})
  WHERE c.spaceId = $spaceId AND c.privacy <= $maxPrivacy
  RETURN c.key AS key
}
WITH DISTINCT key
MATCH (row:Claim {spaceId: $spaceId, key: key})
WHERE row.privacy <= $maxPrivacy
RETURN collect(DISTINCT row.id) AS ids
"""

CLAIMS_OF_SUBJECT_PREDICATE: LiteralString = """
MATCH (c:Claim {subjectId: $subjectId})
WHERE c.spaceId = $spaceId AND c.predicate = $predicate AND c.privacy <= $maxPrivacy
WITH collect(DISTINCT c.key) AS keys
UNWIND keys AS key
MATCH (row:Claim {spaceId: $spaceId, key: key})
WHERE row.privacy <= $maxPrivacy
RETURN collect(DISTINCT row.id) AS ids
"""


def fingerprint(space_id: str, selector: Selector, selection: Selection) -> str:
    """A content-free identity of what was selected (ids only), for the tombstone."""
    body = {
        "space": space_id,
        "kind": selector.kind.value,
        "ids": sorted(selection.all_ids()),
        "subject": selection.subject_id,
        "predicateSha256": hashlib.sha256((selection.predicate or "").encode()).hexdigest(),
    }
    return hashlib.sha256(canonical_json(body).encode()).hexdigest()


async def select(ctx: WriteContext, selector: Selector) -> Selection:
    """Resolve `selector` in the writing space; NOT_FOUND / FORGOTTEN for a missing target."""
    selection = Selection()
    kind = selector.kind
    if kind is SelectorKind.SPACE:
        if ctx.max_privacy < Privacy.SECRET:
            # A whole space holds every tier; only a writer who may read them all may erase it.
            raise Forbidden(
                "forgetting a whole space needs a grant at tier secret", field="selector.kind"
            )
        selection.whole_space = True
        return selection
    if kind is SelectorKind.SUBJECT_PREDICATE:
        assert selector.subject is not None
        subject = (await resolve_entities(ctx, [(selector.subject, "subject")]))[selector.subject]
        rows = await ctx.run(
            CLAIMS_OF_SUBJECT_PREDICATE, subjectId=subject.id, predicate=selector.predicate
        )
        selection.claims = set(rows[0]["ids"])
        selection.subject_id, selection.predicate = subject.id, selector.predicate
        if not selection.claims:
            raise NotFound(
                f"no claim with subject {subject.key} and predicate {selector.predicate}",
                field="selector",
            )
        return selection
    if kind is SelectorKind.CLAIM and selector.key is not None:
        rows = await ctx.run(ROWS_OF_KEY, key=selector.key)
        if not rows[0]["ids"]:
            raise NotFound(
                f"no claim with key {selector.key!r} in this space", field="selector.key"
            )
        selection.claims = set(rows[0]["ids"])
        return selection
    if kind is SelectorKind.ENTITY and selector.by_content():
        ref = EntityRef(key=selector.key) if selector.key else EntityRef(name=selector.name)
        field = "selector.key" if selector.key else "selector.name"
        entity = (await resolve_entities(ctx, [(ref, field)]))[ref]
        selector = selector.model_copy(update={"id": entity.id, "key": None, "name": None})
    assert selector.id is not None
    if kind is SelectorKind.CLAIM:
        rows = await ctx.run(ROWS_OF_FACT_OF_CLAIM, id=selector.id)
        _exists(rows, "claim", selector.id)
        selection.claims = set(rows[0]["ids"])
        return selection
    rows = await ctx.run(ONE_NODE[kind.value], id=selector.id)
    _exists(rows, kind.value.lower(), selector.id)
    if kind is SelectorKind.OBSERVATION:
        selection.observations = {selector.id}
    elif kind is SelectorKind.ARTIFACT:
        selection.artifacts = {selector.id}
    elif kind is SelectorKind.EPISODE:
        selection.episodes = {selector.id}
        observed = await ctx.run(OBSERVATIONS_OF_EPISODE, id=selector.id)
        selection.observations = set(observed[0]["ids"])
    elif kind is SelectorKind.ENTITY:
        selection.entities = {selector.id}
        about = await ctx.run(CLAIMS_ABOUT_ENTITY, id=selector.id)
        selection.claims = set(about[0]["ids"]) if about else set()
    else:  # pragma: no cover - every kind is handled above
        raise ValidationFailed(f"unknown selector kind {kind}")
    return selection


def _exists(rows: list[dict[str, object]], what: str, target: str) -> None:
    if not rows:
        raise NotFound(f"no {what} {target!r} in this space", field="selector.id")
    if rows[0]["erased"]:
        raise Forgotten(f"{what} {target!r} was already forgotten", field="selector.id")
