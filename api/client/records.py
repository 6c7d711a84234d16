"""Typed records of the API's answers: frozen dataclasses, each asked for and read by its own
fields (`wire.selection`, `wire.from_wire`), with aware `datetime`s and the vocabulary's enums."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from api.client.wire import JSONValue
from graph.domain.vocabulary import (
    Authority,
    ClaimStatus,
    EntityKind,
    EpisodeKind,
    EpisodeStatus,
    EvidenceKind,
    MemoryType,
    ObservationKind,
    Privacy,
    RevisionState,
    Role,
)


@dataclass(frozen=True)
class Space:
    id: str
    name: str
    description: str
    recorded_at: datetime


@dataclass(frozen=True)
class Episode:
    id: str
    title: str
    kind: EpisodeKind
    status: EpisodeStatus
    participants: list[str]
    started_at: datetime
    ended_at: datetime | None
    recorded_at: datetime


@dataclass(frozen=True)
class Observation:
    id: str
    episode_id: str
    seq: int
    kind: ObservationKind
    role: Role
    content: str
    observed_at: datetime
    privacy: Privacy
    recorded_at: datetime


@dataclass(frozen=True)
class Entity:
    id: str
    key: str
    kind: EntityKind
    canonical: str
    name: str
    aliases: list[str]
    merged_from: list[str]
    recorded_at: datetime


@dataclass(frozen=True)
class Evidence:
    kind: EvidenceKind
    authority: Authority
    recorded_at: datetime
    note: str | None
    observation_id: str | None
    artifact_id: str | None
    episode_id: str | None
    text: str | None
    locator: str | None
    observed_at: datetime | None


@dataclass(frozen=True)
class Claim:
    """One revision of a claim, with both time intervals and its evidence."""

    id: str
    key: str
    revision: int
    type: MemoryType
    status: ClaimStatus
    predicate: str | None
    value: JSONValue
    text: str
    confidence: float
    importance: float
    privacy: Privacy
    pinned: bool
    reason: str | None
    actor: str
    valid_from: datetime | None
    valid_to: datetime | None
    recorded_at: datetime
    superseded_at: datetime | None
    evidence: list[Evidence]
    subject: Entity | None
    object: Entity | None


@dataclass(frozen=True)
class ClaimPage:
    claims: list[Claim] = field(metadata={"wire": "nodes"})
    end_cursor: str | None
    has_next_page: bool


@dataclass(frozen=True)
class SearchHit:
    claim: Claim
    score: float
    sources: list[str]
    """The ranked lists that found it: text, meaning, evidence, entity."""
    state: RevisionState
    """CURRENT, or with `include_history` also ENDED or SUPERSEDED."""


@dataclass(frozen=True)
class MessageHit:
    """A message `messages` recalled: what was said, and how it was found."""

    observation: Observation
    score: float
    sources: list[str]
    """The lists that found it: words, meaning, or time (a window without a query)."""


@dataclass(frozen=True)
class Relation:
    """A typed relation between two entities (`source` -[type]-> `target`)."""

    type: str
    source: Entity | None = field(metadata={"wire": "from"})
    target: Entity | None = field(metadata={"wire": "to"})
    valid_from: datetime | None
    valid_to: datetime | None
    recorded_at: datetime
    claim_id: str | None
    claim_key: str | None
    status: str | None
    confidence: float | None
    reason: str | None


@dataclass(frozen=True)
class RelatedEntity:
    entity: Entity
    distance: int


@dataclass(frozen=True)
class Related:
    nodes: list[RelatedEntity]
    relations: list[Relation]
    truncated: bool


@dataclass(frozen=True)
class Step:
    relation: Relation
    direction: str
    source: Entity | None = field(metadata={"wire": "from"})
    target: Entity | None = field(metadata={"wire": "to"})
    claim: Claim | None
    evidence: list[Evidence]


@dataclass(frozen=True)
class Path:
    steps: list[Step]
    length: int


@dataclass(frozen=True)
class Explanation:
    paths: list[Path]
    reason: str | None
    """Why there is no path, when there is none."""


@dataclass(frozen=True)
class ContextSnapshot:
    text: str
    bytes: int
    keys: list[str]
    omitted: int


@dataclass(frozen=True)
class ForgetReceipt:
    """What a forget erased (counts, never content) and its tombstone."""

    tombstone_id: str
    watermark: datetime
    claims: int
    observations: int
    episodes: int
    artifacts: int
    entities: int
    made_inactive: int
    whole_space: bool
    replayed: bool
