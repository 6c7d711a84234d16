"""A claim revision as the write path holds it: the properties of one `(:Claim)` node, typed.

The write path reads the current rows of a key (`revisions.KeyState`), plans new ones (a new
value, a restatement of the part of an old row that still holds, a retraction), and writes them
with `SET c = row`. Storage names (`spaceId`, `valueJson`, `validFrom`, …) appear only here,
where a node's property map becomes a `ClaimRow` and back, and in the Cypher; commands speak
fields. Reads map nodes to `graph.domain.model.Claim` instead (`graph.store.rows`).

    row = ClaimRow.from_props(node_properties)
    row.interval().covers(other.interval()), row.props()["key"]
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from graph.commands.captions import caption
from graph.commands.writing import WriteContext, new_id
from graph.domain import memory_types as mt
from graph.domain.intervals import Interval
from graph.domain.model import Claim, EvidenceLink, canonical_json
from graph.domain.timeline import told_rank
from graph.domain.timeutil import instant_text, to_native_or_none
from graph.domain.vocabulary import ClaimStatus, MemoryType, Privacy

ASSERTING = frozenset({ClaimStatus.ACTIVE, ClaimStatus.DISPUTED})
"""Statuses whose rows assert their relation (a retracted row asserts nothing)."""


@dataclass(slots=True)
class ClaimRow:
    """One claim revision: stored (`recorded_at` set) or planned in this transaction."""

    id: str
    space_id: str
    key: str
    revision: int
    type: MemoryType
    status: ClaimStatus
    privacy: Privacy
    confidence: float
    importance: float
    actor: str
    subject_id: str | None = None
    predicate: str | None = None
    object_id: str | None = None
    value_json: str | None = None
    """The value as canonical JSON (what identical values compare by)."""
    pinned: bool = False
    reason: str | None = None
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    text: str = ""
    """The claim's words, with the names the write used: what people read and search ranks."""
    caption: str = ""
    """The one line a person sees in Browser."""
    name: str | None = None
    """An entity claim's name, with its `aliases` and both as compared (`spoken_names`,
    `graph.commands.entity_names`)."""
    aliases: list[str] | None = None
    spoken_names: str | None = None
    fact_id: str | None = None
    """The told fact this row is a revision of: a `remember` tells a new fact; its corrections,
    restatements and a later telling at the same `validFrom` are revisions of it (None: a row
    written before told facts had ids — its fact is its whole key)."""
    told_seq: int = 0
    """Its place in the batch that told it: of two facts of a key told at once with the same
    `validFrom`, the later item's is shown (`graph.domain.timeline`)."""
    by_naming: bool = False
    """An entity claim written only because a fact named a new entity: it does not keep the
    message it cites alive when that fact is forgotten (ENGRAM.md §3)."""
    recorded_at: datetime | None = None
    """None for a row planned in this transaction (it is recorded at the transaction's time)."""
    superseded_at: datetime | None = None
    archived_at: datetime | None = None
    erased_at: datetime | None = None

    @classmethod
    def from_props(cls, props: dict[str, Any]) -> ClaimRow:
        """A row from a `(:Claim)` node's property map (an erased row has lost its content)."""
        return cls(
            id=props["id"],
            space_id=props["spaceId"],
            key=props["key"],
            revision=int(props["revision"]),
            type=MemoryType(props["type"]),
            status=ClaimStatus(props["status"]),
            privacy=Privacy(int(props["privacy"])),
            confidence=float(props["confidence"]),
            importance=float(props["importance"]),
            actor=props.get("actor") or "",
            subject_id=props.get("subjectId"),
            predicate=props.get("predicate"),
            object_id=props.get("objectId"),
            value_json=props.get("valueJson"),
            pinned=bool(props.get("pinned")),
            reason=props.get("reason"),
            valid_from=to_native_or_none(props.get("validFrom")),
            valid_to=to_native_or_none(props.get("validTo")),
            text=props.get("text") or "",
            caption=props.get("caption") or "",
            name=props.get("name"),
            aliases=props.get("aliases"),
            spoken_names=props.get("spokenNames"),
            fact_id=props.get("factId"),
            told_seq=int(props.get("toldSeq") or 0),
            by_naming=bool(props.get("byNaming")),
            recorded_at=to_native_or_none(props.get("recordedAt")),
            superseded_at=to_native_or_none(props.get("supersededAt")),
            archived_at=to_native_or_none(props.get("archivedAt")),
            erased_at=to_native_or_none(props.get("erasedAt")),
        )

    def props(self) -> dict[str, Any]:
        """The property map a new node is written with, its instants as text (the statement
        makes them datetimes; `recordedAt` is the transaction's time, set by the statement;
        nothing new is erased)."""
        return {
            "id": self.id,
            "spaceId": self.space_id,
            "key": self.key,
            "revision": self.revision,
            "type": self.type.value,
            "subjectId": self.subject_id,
            "predicate": self.predicate,
            "objectId": self.object_id,
            "valueJson": self.value_json,
            "status": self.status.value,
            "confidence": self.confidence,
            "importance": self.importance,
            "privacy": int(self.privacy),
            "pinned": self.pinned,
            "reason": self.reason,
            "actor": self.actor,
            "validFrom": instant_text(self.valid_from),
            "validTo": instant_text(self.valid_to),
            "text": self.text,
            "caption": self.caption,
            "name": self.name,
            "aliases": self.aliases,
            "spokenNames": self.spoken_names,
            "factId": self.fact_id,
            "toldSeq": self.told_seq,
            "byNaming": self.by_naming or None,
            "supersededAt": instant_text(self.superseded_at),
            "archivedAt": instant_text(self.archived_at),
        }

    def written(self, recorded_at: datetime, evidence: list[EvidenceLink]) -> Claim:
        """The claim a read would show for this new row once written at `recorded_at`, with
        its `evidence` (a command answers with it, without reading it back); a row replaced
        again in the same transaction is `SUPERSEDED` (one status per view)."""
        return Claim(
            id=self.id,
            space_id=self.space_id,
            key=self.key,
            revision=self.revision,
            type=self.type,
            subject_id=self.subject_id,
            predicate=self.predicate,
            object_id=self.object_id,
            value=self.value(),
            text=self.text,
            status=ClaimStatus.SUPERSEDED if self.superseded_at else self.status,
            confidence=self.confidence,
            importance=self.importance,
            privacy=self.privacy,
            pinned=self.pinned,
            reason=self.reason,
            actor=self.actor,
            valid_from=self.valid_from,
            valid_to=self.valid_to,
            recorded_at=recorded_at,
            superseded_at=self.superseded_at,
            evidence=tuple(
                sorted(evidence, key=lambda e: (e.kind, e.observation_id or e.artifact_id or ""))
            ),
        )

    def told_rank(self, now: datetime) -> str:
        """Its rank among the told facts of its key (`graph.domain.timeline.told_rank`); a row
        planned in this transaction is recorded `now`."""
        recorded = self.recorded_at or now
        return told_rank(self.status in ASSERTING, self.valid_from, recorded, self.told_seq)

    def interval(self) -> Interval:
        """When the row says its value held (valid time)."""
        return Interval(self.valid_from, self.valid_to)

    def value(self) -> Any:
        return json.loads(self.value_json) if self.value_json is not None else None

    def asserts_relation(self) -> bool:
        """A row whose object is an entity asserts a typed relationship while it is active or
        disputed."""
        return self.object_id is not None and self.status in ASSERTING

    def restated(self, **changes: Any) -> ClaimRow:
        """A new, unwritten row repeating this one with `changes` (the caller gives its id,
        revision, interval, actor and reason)."""
        return dataclasses.replace(
            self, recorded_at=None, superseded_at=None, erased_at=None, **changes
        )

    def relation_props(self) -> dict[str, Any]:
        """The properties of the relationship this row asserts (a copy of its own)."""
        return {
            "claimId": self.id,
            "claimKey": self.key,
            "revision": self.revision,
            "spaceId": self.space_id,
            "privacy": int(self.privacy),
            "status": self.status.value,
            "confidence": self.confidence,
            "validFrom": instant_text(self.valid_from),
            "validTo": instant_text(self.valid_to),
            "toldSeq": self.told_seq,
            "supersededAt": instant_text(self.superseded_at),
            "current": self.superseded_at is None,
        }


@dataclass(frozen=True)
class ClaimContent:
    """What a claim is about and says, as a new row stores it."""

    subject_id: str | None
    predicate: str | None
    object_id: str | None
    value: Any

    def matches(self, row: ClaimRow) -> bool:
        """`row` says exactly this (the same subject, predicate, object and value)."""
        return (
            row.subject_id == self.subject_id
            and row.predicate == self.predicate
            and row.object_id == self.object_id
            and row.value_json == canonical_json(self.value)
        )


def claim_row(
    ctx: WriteContext,
    *,
    key: str,
    revision: int,
    memory_type: MemoryType,
    content: ClaimContent,
    confidence: float,
    importance: float,
    privacy: Privacy,
    pinned: bool,
    interval: Interval,
    subject_name: str | None,
    object_name: str | None,
    reason: str | None,
    status: ClaimStatus = ClaimStatus.ACTIVE,
) -> ClaimRow:
    """A new claim row: its text is the claim's words with the names the write used
    (`memory_types.claim_text`), what search ranks and people read; its caption is that text
    cut to one line for Neo4j Browser."""
    value = content.value
    row = ClaimRow(
        id=new_id(),
        space_id=ctx.space_id,
        key=key,
        revision=revision,
        type=memory_type,
        status=status,
        privacy=privacy,
        confidence=confidence,
        importance=importance,
        actor=ctx.actor,
        subject_id=content.subject_id,
        predicate=content.predicate,
        object_id=content.object_id,
        value_json=canonical_json(value),
        pinned=pinned,
        reason=reason,
        valid_from=interval.start,
        valid_to=interval.end,
    )
    if memory_type is MemoryType.ENTITY:
        canonical = key.split(":", 2)[2]
        name = (value or {}).get("name") or canonical
        aliases = [a for a in (value or {}).get("aliases", []) if a != name]
        row.name, row.aliases, row.spoken_names = name, aliases, mt.spoken_names([name, *aliases])
        also = f" (also: {', '.join(aliases)})" if aliases else ""
        attrs = mt.summarize((value or {}).get("attrs"))
        row.text = f"{name}{also}" + (f"; {attrs}" if attrs else "")
    else:
        row.text = mt.claim_text(
            memory_type,
            key,
            value,
            subject=subject_name,
            predicate=content.predicate,
            obj=object_name,
        )
    row.caption = caption(memory_type, row.text)
    return row
