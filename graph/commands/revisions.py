"""Claim revisions: the state of a key, and the plan of rows one transaction writes.

Rows are never edited: a revision is a new `(:Claim)` node; the rows it replaces get
`supersededAt` (and so do the relations they asserted). A claim whose object is an entity
asserts a real, typed relationship between the two entities carrying the row's intervals.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, LiteralString

from graph.commands.captions import kind_label
from graph.commands.claim_rows import ASSERTING, ClaimRow
from graph.commands.write_batch import Writes, write_all
from graph.commands.writing import WriteContext, new_id
from graph.domain import memory_types as mt
from graph.domain.errors import Forgotten, NotFound, ValidationFailed
from graph.domain.intervals import Interval
from graph.domain.model import Claim
from graph.domain.timeline import Told, shown
from graph.domain.vocabulary import ClaimStatus, MemoryType, Privacy
from graph.store.rows import EVIDENCE_PROJECTION, STORED_CLAIM, claim_record

# A key as the writer sees it: only rows at or below its tier count, for the revision numbers as
# for the rows it may supersede, so a key held above the tier answers as if it were new.
LOAD_KEY_STATES: LiteralString = (
    """
UNWIND $claimKeys AS key
OPTIONAL MATCH (c:Claim {spaceId: $spaceId, key: key})
WHERE c.privacy <= $maxPrivacy
WITH key, c.privacy AS privacy, max(c.revision) AS head,
     collect(CASE WHEN c.supersededAt IS NULL AND c.erasedAt IS NULL THEN """
    + STORED_CLAIM
    + """ END)
       AS current
WITH key,
     collect(CASE WHEN privacy IS NULL THEN NULL ELSE [privacy, head] END) AS heads,
     reduce(rows = [], part IN collect(current) | rows + part) AS current
CALL (key) {
  OPTIONAL MATCH (e:Entity {spaceId: $spaceId, key: key})
  WHERE e.privacy <= $maxPrivacy AND e.erasedAt IS NULL
  RETURN e.id AS entityId, e.privacy AS entityPrivacy
  ORDER BY e.privacy, e.recordedAt
  LIMIT 1
}
RETURN key, heads, current, entityId, entityPrivacy
"""
)

LOAD_CLAIMS: LiteralString = (
    """
UNWIND $ids AS id
MATCH (c:Claim {id: id})
OPTIONAL MATCH (c)-[e:SUPPORTED_BY|CONTRADICTED_BY|CORRECTED_BY]->(t)
WHERE t.erasedAt IS NULL AND e.erasedAt IS NULL AND t.privacy <= $maxPrivacy
RETURN """
    + STORED_CLAIM
    + """ AS claim, collect(CASE WHEN t IS NULL THEN NULL ELSE """
    + EVIDENCE_PROJECTION
    + """ END) AS evidence
"""
)


@dataclass
class KeyState:
    """What a key holds as one writer sees it (rows at or below its tier), as the transaction
    plans its writes.

    Each tier's rows of a key are a line of their own: a write at tier P supersedes only rows
    at P. Revision numbers count per tier: a row at tier P is numbered after every row of the key
    at P or below, never after a row above P. So numbers say nothing about rows a reader cannot
    see, and a writer below another's tier can never collide with or skip over its rows (the
    uniqueness constraint is on space, key, privacy and revision)."""

    key: str
    heads: dict[int, int]
    """Highest revision number ever used at each tier the writer sees (erased rows included)."""
    current: list[ClaimRow]
    """Rows not superseded and not erased."""
    entity_id: str | None = None
    entity_privacy: int | None = None

    def head_at(self, privacy: Privacy | int) -> int:
        """The revision a write at `privacy` follows (what `expectedRevision` names): the
        newest number at that tier or below."""
        return max((n for p, n in self.heads.items() if p <= int(privacy)), default=0)

    def next_revision(self, privacy: Privacy | int) -> int:
        """The number of a new row at `privacy`: after every row at that tier or below."""
        tier = int(privacy)
        revision = 1 + max((n for p, n in self.heads.items() if p <= tier), default=0)
        self.heads[tier] = revision
        return revision

    def line(self, privacy: Privacy | int) -> list[ClaimRow]:
        """The current rows of the key's line at `privacy`: the rows a write at that tier
        supersedes, restates or corroborates (never a row of another tier's line)."""
        return [row for row in self.current if row.privacy == int(privacy)]

    def latest_current_id(self, privacy: Privacy | int) -> str | None:
        """The newest current row of the line a new row at `privacy` continues."""
        rows = self.line(privacy)
        if not rows:
            return None
        return max(rows, key=lambda row: row.revision).id

    def row(self, claim_id: str) -> ClaimRow:
        """The current row `claim_id` (which the caller found current)."""
        return next(row for row in self.current if row.id == claim_id)


async def load_key_states(ctx: WriteContext, keys: list[str]) -> dict[str, KeyState]:
    rows = await ctx.run(LOAD_KEY_STATES, claimKeys=sorted(set(keys)))
    return {row["key"]: key_state(row) for row in rows}


def key_state(row: dict[str, Any]) -> KeyState:
    """A key's state from its row of `LOAD_KEY_STATES`."""
    return KeyState(
        key=row["key"],
        heads={int(p): int(n) for p, n in row["heads"]},
        current=[ClaimRow.from_props(props) for props in row["current"]],
        entity_id=row["entityId"],
        entity_privacy=row["entityPrivacy"],
    )


async def load_claims(ctx: WriteContext, ids: list[str]) -> dict[str, Claim]:
    """Claim rows by id with their unerased evidence at or below the writer's tier (for
    command results, replays included); FORGOTTEN when one was erased — a replay never
    brings content back."""
    rows = await ctx.run(LOAD_CLAIMS, ids=sorted(set(ids)))
    for row in rows:
        if row["claim"].get("erasedAt") is not None:
            raise Forgotten(f"claim {row['claim']['id']} was forgotten", field="idempotencyKey")
    return {
        row["claim"]["id"]: claim_record(row["claim"], row["evidence"], known_at=None)
        for row in rows
    }


async def current_of_key(ctx: WriteContext, key: str) -> str:
    """The id of the one current revision of `key` the writer sees."""
    try:
        mt.parse_key(key)
    except ValidationFailed as failure:
        raise ValidationFailed(failure.message, field="claimKey") from None
    current = (await load_key_states(ctx, [key]))[key].current
    if not current:
        raise NotFound(
            f"no current claim with key {key!r} in space {ctx.space!r}", field="claimKey"
        )
    if mt.overwrites(current[0].type) and len(current) > 1:
        # Told facts of a one-value key stand side by side: the key names the one shown now
        # (else, when none holds now, the one that would be shown last).
        told = {row.id: told_fact(row) for row in current}
        now = shown(list(told.values()), ctx.now) or max(told.values(), key=Told.rank)
        return now.id
    if len(current) > 1:
        ids = ", ".join(sorted(row.id for row in current))
        raise ValidationFailed(
            f"key {key!r} has {len(current)} current revisions ({ids}); give claimId",
            field="claimKey",
        )
    return current[0].id


def told_fact(row: ClaimRow) -> Told:
    """A stored row as the choice between told facts sees it (`graph.domain.timeline`)."""
    return Told(
        row.id,
        row.valid_from,
        row.valid_to,
        row.recorded_at or datetime.max.replace(tzinfo=UTC),
        row.told_seq,
        row.status in ASSERTING,
    )


@dataclass(frozen=True)
class NewEntity:
    """An `(:Entity)` a write creates with the first claim of its key."""

    id: str
    space_id: str
    key: str
    privacy: Privacy

    def param(self) -> dict[str, Any]:
        _, kind, canonical = self.key.split(":", 2)
        props = {
            "id": self.id,
            "spaceId": self.space_id,
            "key": self.key,
            "kind": kind,
            "canonical": canonical,
            "privacy": int(self.privacy),
        }
        return {"props": props, "label": kind_label(kind)}


@dataclass
class WritePlan:
    """Rows, supersessions and entities to write at the end of a transaction; each row that
    asserts a relation gets its relationship."""

    entities: list[NewEntity] = field(default_factory=list)
    superseded: list[str] = field(default_factory=list)
    rows: list[ClaimRow] = field(default_factory=list)
    revises: list[tuple[str, str]] = field(default_factory=list)
    """(newer row id, the row it revises)."""

    def entity_for(self, ctx: WriteContext, key: str, state: KeyState, privacy: Privacy) -> str:
        """The entity an `entity:` key names, created with its first claim at or below the
        claim's tier (a reader of the claim can then read its entity)."""
        if state.entity_id is None or (state.entity_privacy or 0) > privacy:
            state.entity_privacy = int(privacy)
            state.entity_id = new_id()
            self.entities.append(NewEntity(state.entity_id, ctx.space_id, key, privacy))
        return state.entity_id

    def supersede(self, ctx: WriteContext, old: ClaimRow, state: KeyState) -> None:
        """End `old` in recorded time. A row planned earlier in this same transaction ends
        as it begins (`[now, now)`): it was never current, but its revision is kept (and so is
        its relation, ended with it)."""
        state.current = [row for row in state.current if row.id != old.id]
        if old.recorded_at is None:
            old.superseded_at = ctx.now
        else:
            self.superseded.append(old.id)

    def create(self, row: ClaimRow, state: KeyState, *, revises: str | None) -> None:
        self.rows.append(row)
        state.current.append(row)
        if revises is not None:
            self.revises.append((row.id, revises))

    def restate(
        self,
        ctx: WriteContext,
        old: ClaimRow,
        state: KeyState,
        interval: Interval,
        *,
        status: ClaimStatus | None = None,
        reason: str | None = None,
    ) -> ClaimRow:
        """A new row repeating `old` over `interval` (the part of it that still holds)."""
        row = old.restated(
            id=new_id(),
            revision=state.next_revision(old.privacy),
            valid_from=interval.start,
            valid_to=interval.end,
            actor=ctx.actor,
            reason=reason or f"restates revision {old.revision} over the time it still holds",
            status=status or old.status,
        )
        self.create(row, state, revises=old.id)
        return row

    def pending_ids(self) -> set[str]:
        return {row.id for row in self.rows}

    def add_to(self, writes: Writes, ctx: WriteContext) -> None:
        writes.entities.extend(entity.param() for entity in self.entities)
        writes.superseded_ids.extend(self.superseded)
        ranks = {row.id: row.told_rank(ctx.now) for row in self.rows}
        writes.claims.extend({**row.props(), "toldRank": ranks[row.id]} for row in self.rows)
        writes.revises.extend({"fromId": newer, "toId": older} for newer, older in self.revises)
        writes.relations.extend(
            {
                "subjectId": row.subject_id,
                "objectId": row.object_id,
                "type": row.predicate,
                "props": {**row.relation_props(), "toldRank": ranks[row.id]},
            }
            for row in self.rows
            if row.asserts_relation()
        )
        writes.named_entity_ids.extend(
            row.subject_id
            for row in self.rows
            if row.type is MemoryType.ENTITY and row.subject_id is not None
        )

    async def write(self, ctx: WriteContext) -> None:
        await write_all(ctx, self)
