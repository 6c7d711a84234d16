"""What the client sends: entity and evidence references and one claim to remember."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeAlias

from api.client.enums import (
    Authority,
    Cardinality,
    EntityKind,
    JSONValue,
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

    def data(self) -> dict[str, str]:
        parts = (("id", self.id), ("key", self.key), ("name", self.name), ("kind", self.kind))
        return {k: v for k, v in parts if v is not None}


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

    def data(self) -> dict[str, str]:
        pairs = (
            ("observationId", self.observation_id),
            ("artifactId", self.artifact_id),
            ("text", self.text),
            ("role", self.role),
            ("observedAt", instant(self.observed_at)),
            ("episodeId", self.episode_id),
            ("authority", self.authority),
            ("note", self.note),
        )
        return {k: v for k, v in pairs if v is not None}


Cited: TypeAlias = "EvidenceRef | str"


def evidence_data(evidence: Sequence[Cited]) -> list[dict[str, str]]:
    return [{"observationId": e} if isinstance(e, str) else e.data() for e in evidence]


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

    def data(self) -> dict[str, Any]:
        fields: dict[str, Any] = {
            "evidence": evidence_data(self.evidence),
            "key": self.key,
            "type": self.type,
            "subject": self.subject.data() if self.subject else None,
            "predicate": self.predicate,
            "object": self.object.data() if self.object else None,
            "value": self.value,
            "confidence": self.confidence,
            "importance": self.importance,
            "privacy": self.privacy,
            "validFrom": instant(self.valid_from),
            "validTo": instant(self.valid_to),
            "idempotencyKey": self.idempotency_key,
            "expectedRevision": self.expected_revision,
            "pinned": self.pinned,
            "cardinality": self.cardinality,
        }
        return {k: v for k, v in fields.items() if v is not None}


def instant(value: datetime | None) -> str | None:
    """A time as the API's `DateTime` (give it a UTC offset: a naive one is `VALIDATION`)."""
    return value.isoformat() if value is not None else None
