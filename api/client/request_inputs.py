"""What the client sends: entity and evidence references and one claim to remember. Each goes
out as its given fields (`wire.to_wire`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TypeAlias

from api.client.wire import JSONValue
from graph.domain.vocabulary import (
    Authority,
    Cardinality,
    EntityKind,
    MemoryType,
    Privacy,
    Role,
)


@dataclass(frozen=True, kw_only=True)
class EntityRef:
    """An entity by exactly one of its id, its key (`entity:person:alice`) or its name; a name
    with a `kind` is created by a write when no entity has it."""

    id: str | None = None
    key: str | None = None
    name: str | None = None
    kind: EntityKind | None = None

    def __post_init__(self) -> None:
        if sum(part is not None for part in (self.id, self.key, self.name)) != 1:
            raise ValueError("an EntityRef names exactly one of id, key or name")
        if self.kind is not None and self.name is None:
            raise ValueError("an EntityRef's kind goes with a name")


@dataclass(frozen=True, kw_only=True)
class EvidenceRef:
    """An observation or artifact cited as evidence (a plain `str` is an observation id), or
    `text` to record with the write, in its transaction (in `episode_id`, or the caller's
    session episode of the day)."""

    observation_id: str | None = None
    artifact_id: str | None = None
    text: str | None = None
    role: Role | None = None
    observed_at: datetime | None = None
    episode_id: str | None = None
    authority: Authority | None = None
    note: str | None = None


Cited: TypeAlias = "EvidenceRef | str"


def cited(evidence: Sequence[Cited]) -> list[EvidenceRef]:
    """Evidence as references (a plain `str` is an observation id)."""
    return [EvidenceRef(observation_id=e) if isinstance(e, str) else e for e in evidence]


@dataclass(frozen=True, kw_only=True)
class MemoryItem:
    """One claim to remember: its `key` (`pref:ui:theme`, `entity:person:alice`), or for a fact
    its `subject`, `predicate` and `object` or `value`; always at least one piece of evidence."""

    evidence: Sequence[Cited]
    key: str | None = None
    type: MemoryType | None = None
    subject: EntityRef | None = None
    predicate: str | None = None
    object: EntityRef | None = None
    value: JSONValue = None
    confidence: float | None = None
    importance: float | None = None
    privacy: Privacy | None = None
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    idempotency_key: str | None = None
    expected_revision: int | None = None
    pinned: bool | None = None
    cardinality: Cardinality | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "evidence", cited(self.evidence))
