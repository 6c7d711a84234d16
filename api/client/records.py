"""Typed records of the API's answers: frozen dataclasses built from GraphQL data
(`Claim.of(data)`), with aware `datetime`s and the enums of `enums`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from api.client.enums import (
    Authority,
    ClaimStatus,
    EntityKind,
    EpisodeKind,
    EpisodeStatus,
    EvidenceKind,
    JSONValue,
    MemoryType,
    ObservationKind,
    Privacy,
    RevisionState,
    Role,
)


def _time(value: Any) -> datetime | None:
    return datetime.fromisoformat(value) if value is not None else None


def _required_time(value: Any) -> datetime:
    return datetime.fromisoformat(value)


@dataclass(frozen=True)
class Space:
    id: str
    name: str
    description: str
    recorded_at: datetime

    @classmethod
    def of(cls, d: Mapping[str, Any]) -> Space:
        return cls(d["id"], d["name"], d["description"], _required_time(d["recordedAt"]))


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

    @classmethod
    def of(cls, d: Mapping[str, Any]) -> Episode:
        return cls(
            d["id"],
            d["title"],
            EpisodeKind(d["kind"]),
            EpisodeStatus(d["status"]),
            list(d["participants"]),
            _required_time(d["startedAt"]),
            _time(d["endedAt"]),
            _required_time(d["recordedAt"]),
        )


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

    @classmethod
    def of(cls, d: Mapping[str, Any]) -> Observation:
        return cls(
            d["id"],
            d["episodeId"],
            d["seq"],
            ObservationKind(d["kind"]),
            Role(d["role"]),
            d["content"],
            _required_time(d["observedAt"]),
            Privacy(d["privacy"]),
            _required_time(d["recordedAt"]),
        )


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

    @classmethod
    def of(cls, d: Mapping[str, Any]) -> Entity:
        return cls(
            d["id"],
            d["key"],
            EntityKind(d["kind"]),
            d["canonical"],
            d["name"],
            list(d["aliases"]),
            list(d["mergedFrom"]),
            _required_time(d["recordedAt"]),
        )

    @classmethod
    def maybe(cls, d: Mapping[str, Any] | None) -> Entity | None:
        return cls.of(d) if d is not None else None


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

    @classmethod
    def of(cls, d: Mapping[str, Any]) -> Evidence:
        return cls(
            EvidenceKind(d["kind"]),
            Authority(d["authority"]),
            _required_time(d["recordedAt"]),
            d["note"],
            d["observationId"],
            d["artifactId"],
            d["episodeId"],
            d["text"],
            d["locator"],
            _time(d["observedAt"]),
        )


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

    @classmethod
    def of(cls, d: Mapping[str, Any]) -> Claim:
        return cls(
            d["id"],
            d["key"],
            d["revision"],
            MemoryType(d["type"]),
            ClaimStatus(d["status"]),
            d["predicate"],
            d["value"],
            d["text"],
            d["confidence"],
            d["importance"],
            Privacy(d["privacy"]),
            d["pinned"],
            d["reason"],
            d["actor"],
            _time(d["validFrom"]),
            _time(d["validTo"]),
            _required_time(d["recordedAt"]),
            _time(d["supersededAt"]),
            [Evidence.of(e) for e in d["evidence"]],
            Entity.maybe(d["subject"]),
            Entity.maybe(d["object"]),
        )


@dataclass(frozen=True)
class ClaimPage:
    claims: list[Claim]
    end_cursor: str | None
    has_next_page: bool

    @classmethod
    def of(cls, d: Mapping[str, Any]) -> ClaimPage:
        return cls([Claim.of(c) for c in d["nodes"]], d["endCursor"], d["hasNextPage"])


@dataclass(frozen=True)
class SearchHit:
    claim: Claim
    score: float
    sources: list[str]
    """The ranked lists that found it: text, meaning, evidence, entity."""
    state: RevisionState
    """CURRENT, or with `include_history` also ENDED or SUPERSEDED."""

    @classmethod
    def of(cls, d: Mapping[str, Any]) -> SearchHit:
        return cls(Claim.of(d["claim"]), d["score"], list(d["sources"]), RevisionState(d["state"]))


@dataclass(frozen=True)
class MessageHit:
    """A message `messages` recalled: what was said, and how it was found."""

    observation: Observation
    score: float
    sources: list[str]
    """The lists that found it: words, meaning, or time (a window without a query)."""

    @classmethod
    def of(cls, d: Mapping[str, Any]) -> MessageHit:
        return cls(Observation.of(d["observation"]), d["score"], list(d["sources"]))


@dataclass(frozen=True)
class Relation:
    """A typed relation between two entities (`source` -[type]-> `target`)."""

    type: str
    source: Entity | None
    target: Entity | None
    valid_from: datetime | None
    valid_to: datetime | None
    recorded_at: datetime
    claim_id: str | None
    claim_key: str | None
    status: str | None
    confidence: float | None
    reason: str | None

    @classmethod
    def of(cls, d: Mapping[str, Any]) -> Relation:
        return cls(
            d["type"],
            Entity.maybe(d["from"]),
            Entity.maybe(d["to"]),
            _time(d["validFrom"]),
            _time(d["validTo"]),
            _required_time(d["recordedAt"]),
            d["claimId"],
            d["claimKey"],
            d["status"],
            d["confidence"],
            d["reason"],
        )


@dataclass(frozen=True)
class RelatedEntity:
    entity: Entity
    distance: int


@dataclass(frozen=True)
class Related:
    nodes: list[RelatedEntity]
    relations: list[Relation]
    truncated: bool

    @classmethod
    def of(cls, d: Mapping[str, Any]) -> Related:
        return cls(
            [RelatedEntity(Entity.of(n["entity"]), n["distance"]) for n in d["nodes"]],
            [Relation.of(r) for r in d["relations"]],
            d["truncated"],
        )


@dataclass(frozen=True)
class Step:
    relation: Relation
    direction: str
    source: Entity | None
    target: Entity | None
    claim: Claim | None
    evidence: list[Evidence]

    @classmethod
    def of(cls, d: Mapping[str, Any]) -> Step:
        return cls(
            Relation.of(d["relation"]),
            d["direction"],
            Entity.maybe(d["from"]),
            Entity.maybe(d["to"]),
            Claim.of(d["claim"]) if d["claim"] is not None else None,
            [Evidence.of(e) for e in d["evidence"]],
        )


@dataclass(frozen=True)
class Path:
    steps: list[Step]
    length: int


@dataclass(frozen=True)
class Explanation:
    paths: list[Path]
    reason: str | None
    """Why there is no path, when there is none."""

    @classmethod
    def of(cls, d: Mapping[str, Any]) -> Explanation:
        paths = [Path([Step.of(s) for s in p["steps"]], p["length"]) for p in d["paths"]]
        return cls(paths, d["reason"])


@dataclass(frozen=True)
class ContextSnapshot:
    text: str
    bytes: int
    keys: list[str]
    omitted: int

    @classmethod
    def of(cls, d: Mapping[str, Any]) -> ContextSnapshot:
        return cls(d["text"], d["bytes"], list(d["keys"]), d["omitted"])


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

    @classmethod
    def of(cls, d: Mapping[str, Any]) -> ForgetReceipt:
        return cls(
            d["tombstoneId"],
            _required_time(d["watermark"]),
            d["claims"],
            d["observations"],
            d["episodes"],
            d["artifacts"],
            d["entities"],
            d["madeInactive"],
            d["wholeSpace"],
            d["replayed"],
        )
