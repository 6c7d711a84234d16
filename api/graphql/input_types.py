"""GraphQL input types. Each becomes plain data and is validated by graph/'s pydantic models
(`graph.domain.inputs.parse`), so the API and the Python commands share one set of rules.

Fields left out stay out (`UNSET`): `correct(validTo: null)` opens an interval, while leaving
`validTo` out keeps the old one.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime
from enum import Enum
from typing import Any

import strawberry
from strawberry.scalars import JSON

from api.graphql.types import Privacy
from graph.domain.vocabulary import (
    Authority,
    Cardinality,
    ClaimStatus,
    CorrectionKind,
    EntityKind,
    EpisodeKind,
    MemoryType,
    ObservationKind,
    Role,
    SelectorKind,
)


def to_data(value: Any) -> Any:
    """An input object as plain data: UNSET fields dropped, enums as their stored values."""
    if value is strawberry.UNSET:
        raise ValueError("UNSET has no data")
    if isinstance(value, Privacy):
        return int(value.tier())
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, list):
        return [to_data(item) for item in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            f.name: to_data(getattr(value, f.name))
            for f in dataclasses.fields(value)
            if getattr(value, f.name) is not strawberry.UNSET
        }
    if isinstance(value, datetime):
        return value.isoformat()
    return value


@strawberry.input(
    description="Exactly one of: an entity id, its key, or a current name (case and spacing "
    "ignored). In a write the name is current now, and with a kind it creates the entity when "
    "nothing has that name (key entity:<kind>:<name-hyphenated>); in a read it is current in "
    "the view (asOf/knownAt). A name that fits several entities is AMBIGUOUS_SUBJECT."
)
class EntityRefInput:
    id: strawberry.ID | None = strawberry.UNSET
    key: str | None = strawberry.UNSET
    name: str | None = strawberry.UNSET
    kind: EntityKind | None = strawberry.field(
        default=strawberry.UNSET,
        description="With a name: only entities of this kind fit, and a write creates one.",
    )


@strawberry.input(
    description="Exactly one of: an observation or an artifact cited, or the text of one to "
    "record with the write (same transaction), in episodeId or the writer's session episode."
)
class EvidenceInput:
    observation_id: strawberry.ID | None = strawberry.UNSET
    artifact_id: strawberry.ID | None = strawberry.UNSET
    text: str | None = strawberry.field(
        default=strawberry.UNSET, description="What was said or read, recorded as evidence."
    )
    role: Role | None = strawberry.field(
        default=strawberry.UNSET, description="Who said the text (default USER)."
    )
    observed_at: datetime | None = strawberry.field(
        default=strawberry.UNSET, description="When the text was said (default: now)."
    )
    episode_id: strawberry.ID | None = strawberry.field(
        default=strawberry.UNSET, description="The open episode the text goes in."
    )
    authority: Authority | None = strawberry.field(
        default=strawberry.UNSET,
        description="Default: the first the source's role allows (USER: USER_STATED).",
    )
    note: str | None = strawberry.UNSET


@strawberry.input(description="One claim to remember (give its key, or a fact's parts).")
class RememberInput:
    evidence: list[EvidenceInput]
    type: MemoryType | None = strawberry.UNSET
    key: str | None = strawberry.UNSET
    subject: EntityRefInput | None = strawberry.UNSET
    predicate: str | None = strawberry.UNSET
    object: EntityRefInput | None = strawberry.UNSET
    value: JSON | None = strawberry.UNSET
    confidence: float | None = strawberry.UNSET
    importance: float | None = strawberry.UNSET
    privacy: Privacy | None = strawberry.UNSET
    valid_from: datetime | None = strawberry.UNSET
    valid_to: datetime | None = strawberry.UNSET
    idempotency_key: str | None = strawberry.UNSET
    expected_revision: int | None = strawberry.UNSET
    pinned: bool | None = strawberry.UNSET
    cardinality: Cardinality | None = strawberry.field(
        default=strawberry.UNSET,
        description="A fact's rule for this write: ONE (the key is subject + predicate, a new "
        "value supersedes the old) or MANY (a key per object). Default: the space's rule.",
    )


@strawberry.input(description="A typed relation between two entities, backed by a claim.")
class LinkInput:
    source: EntityRefInput = strawberry.field(name="from")
    type: str = strawberry.field(description="UPPER_SNAKE_CASE relation type, e.g. WORKS_AT.")
    target: EntityRefInput = strawberry.field(name="to")
    evidence: list[EvidenceInput]
    confidence: float | None = strawberry.UNSET
    importance: float | None = strawberry.UNSET
    privacy: Privacy | None = strawberry.UNSET
    valid_from: datetime | None = strawberry.UNSET
    valid_to: datetime | None = strawberry.UNSET
    idempotency_key: str | None = strawberry.UNSET
    expected_revision: int | None = strawberry.UNSET
    cardinality: Cardinality | None = strawberry.field(
        default=strawberry.UNSET, description="ONE or MANY for this write (see remember)."
    )


@strawberry.input(
    description="SUPERSEDE, RETRACT or DISPUTE one current claim revision, by claimId or by "
    "claimKey (the key's current revision)."
)
class CorrectInput:
    claim_id: strawberry.ID | None = strawberry.UNSET
    claim_key: str | None = strawberry.UNSET
    kind: CorrectionKind
    reason: str
    evidence: list[EvidenceInput] | None = strawberry.UNSET
    value: JSON | None = strawberry.UNSET
    object: EntityRefInput | None = strawberry.UNSET
    valid_from: datetime | None = strawberry.UNSET
    valid_to: datetime | None = strawberry.UNSET
    confidence: float | None = strawberry.UNSET
    importance: float | None = strawberry.UNSET
    privacy: Privacy | None = strawberry.UNSET
    against_claim_id: strawberry.ID | None = strawberry.UNSET
    expected_revision: int | None = strawberry.UNSET
    idempotency_key: str | None = strawberry.UNSET


@strawberry.input
class OpenEpisodeInput:
    title: str | None = strawberry.UNSET
    kind: EpisodeKind | None = strawberry.UNSET
    participants: list[str] | None = strawberry.UNSET
    started_at: datetime | None = strawberry.UNSET
    extractor_version: str | None = strawberry.UNSET
    supersedes: strawberry.ID | None = strawberry.UNSET
    privacy: Privacy | None = strawberry.UNSET
    idempotency_key: str | None = strawberry.UNSET


@strawberry.input
class ObservationInput:
    episode_id: strawberry.ID
    content: str
    kind: ObservationKind | None = strawberry.UNSET
    role: Role | None = strawberry.UNSET
    observed_at: datetime | None = strawberry.UNSET
    privacy: Privacy | None = strawberry.UNSET
    idempotency_key: str | None = strawberry.UNSET


@strawberry.input
class SealEpisodeInput:
    episode_id: strawberry.ID
    ended_at: datetime | None = strawberry.UNSET
    idempotency_key: str | None = strawberry.UNSET


@strawberry.input(description="Merge a duplicate entity into a survivor (undoable).")
class MergeInput:
    survivor: EntityRefInput
    duplicate: EntityRefInput
    reason: str
    valid_from: datetime | None = strawberry.UNSET
    idempotency_key: str | None = strawberry.UNSET


@strawberry.input(description="Exactly one of content (inline), path (blob) or url (external).")
class ArtifactInput:
    content: str | None = strawberry.UNSET
    path: str | None = strawberry.UNSET
    url: str | None = strawberry.UNSET
    media_type: str | None = strawberry.UNSET
    sha256: str | None = strawberry.UNSET
    size: int | None = strawberry.UNSET
    privacy: Privacy | None = strawberry.UNSET
    idempotency_key: str | None = strawberry.UNSET


@strawberry.input(
    description="What to forget or hold: one resource (by id; a CLAIM also by key, an ENTITY "
    "by key or name), a subject + predicate, a space."
)
class SelectorInput:
    kind: SelectorKind
    id: strawberry.ID | None = strawberry.UNSET
    key: str | None = strawberry.UNSET
    name: str | None = strawberry.UNSET
    subject: EntityRefInput | None = strawberry.UNSET
    predicate: str | None = strawberry.UNSET


@strawberry.input(description="A predicate's rule: ONE or MANY.")
class PredicateRuleInput:
    predicate: str
    cardinality: Cardinality


@strawberry.input
class ClaimFilterInput:
    type: MemoryType | None = None
    key_prefix: str | None = None
    subject: EntityRefInput | None = None
    predicate: str | None = None
    statuses: list[ClaimStatus] | None = strawberry.field(
        default=None, description="Default: active and disputed."
    )


def drop_nones(data: dict[str, Any], *names: str) -> dict[str, Any]:
    """Fields where GraphQL `null` means "use the default" rather than "no value"."""
    return {k: v for k, v in data.items() if not (k in names and v is None)}


DEFAULTED = (
    "type",
    "key",
    "subject",
    "predicate",
    "object",
    "confidence",
    "importance",
    "privacy",
    "idempotency_key",
    "expected_revision",
    "pinned",
    "title",
    "kind",
    "participants",
    "started_at",
    "extractor_version",
    "supersedes",
    "role",
    "observed_at",
    "ended_at",
    "media_type",
    "size",
    "evidence",
    "against_claim_id",
    "claim_id",
    "claim_key",
    "cardinality",
    "text",
    "episode_id",
    "name",
    "id",
    "authority",
    "note",
    "content",
    "path",
    "url",
    "sha256",
    "valid_from",
)


def command_data(value: Any) -> dict[str, Any]:
    """An input as the data of a graph/ command model."""
    cleaned: dict[str, Any] = _clean(to_data(value))
    return cleaned


def _clean(data: Any) -> Any:
    if isinstance(data, dict):
        return {k: _clean(v) for k, v in drop_nones(data, *DEFAULTED).items()}
    if isinstance(data, list):
        return [_clean(item) for item in data]
    return data
