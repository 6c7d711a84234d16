"""The domain's vocabulary: enums and the records reads return.

Stored in Neo4j (labels and relationship types):

    (:Space {id, name, description, recordedAt, forgetSalt, erasedAt, grantsToWithdraw,
             clockNow (the space's recorded-time clock), clockLocked}
        a forgotten space is closed: renamed `forgotten-<id>`, its old name kept in
        `grantsToWithdraw` until the API keys that granted it have lost the grant
    (:Entity {id, spaceId, key, kind, canonical, privacy, recordedAt, erasedAt})
        its names and aliases are those of its `entity:` claims, so they are bi-temporal too
    (:Claim {id, spaceId, key, revision, type, subjectId, predicate, objectId, valueJson, text,
             status, confidence, importance, privacy, pinned, reason, actor,
             validFrom, validTo, recordedAt, supersededAt, erasedAt})       one node per revision
    (:Claim)-[:SUPPORTED_BY|CONTRADICTED_BY|CORRECTED_BY {recordedAt, authority, note}]->
        (:Observation | :Artifact)                                          evidence
    (:Claim)-[:REVISES]->(:Claim)                                           revision chain
    (:Entity)-[:WORKS_AT {claimId, claimKey, revision, spaceId, privacy, status,
                          validFrom, validTo, recordedAt, supersededAt}]->(:Entity)   relations
    (:Entity)-[:MERGED_INTO {mergeId, spaceId, privacy, validFrom, recordedAt, supersededAt}]->
        (:Entity)
    (:Episode {id, spaceId, title, kind, status, participants, startedAt, endedAt,
               extractorVersion, privacy, observationCounts (per tier), recordedAt, sealedAt})
    (:Episode)-[:HAS_OBSERVATION]->(:Observation {id, spaceId, episodeId, seq, kind, role,
               content, contentHash, observedAt, privacy, recordedAt, erasedAt})
    (:Artifact {id, spaceId, storage, locator, mediaType, size, sha256, content, recordedAt})
    (:Claim)-[:ABOUT]->(:Entity), (:Claim)-[:DISPUTED_WITH]->(:Claim),
    (:Episode)-[:SUPERSEDES]->(:Episode)                                    for Browser walks
    (:AuditEvent {id, spaceId, action, actor, at, idempotencyKey (SHA-256), requestHash,
                  outcome, targetIds, resultJson (ids only), detail (never content)})
    (:Tombstone {id, spaceId, selectorKind, fingerprint, reason, actor, tier, at, watermark,
                 erasedIds, liftedJson, contentFingerprints (HMAC), countsJson})  the ledger
    (:LegalHold {id, spaceId, selectorJson, reason, actor, privacy, recordedAt, releasedAt})
    (:ApiKey {keyId, secretSha256, name, grants, createdAt, revokedAt})  neomodel's (ApiKey)
    (:Clock {name: 'recorded', now})  the global clock: space creation, backup barriers
    (:Migration {version, name, checksum, appliedAt, durationMs})  neomodel's (MigrationRecord)

Privacy tiers make lines. Every claim, entity, observation, episode, artifact, relation, merge
and hold has a `privacy` tier; a writer at tier T works on the graph as a reader at T sees it:
a key's rows at each tier are a line of their own (a write at P supersedes only rows at P;
revisions and an episode's observation `seq` count per tier, after everything at that tier or
below), an entity key may have a node per tier, idempotency keys are scoped by tier, and
evidence is at least as private as every claim linked to it. So nothing a writer does or is
told depends on what lies above its tier.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from graph.domain.vocabulary import (
    ArtifactStorage,
    Authority,
    ClaimStatus,
    EntityKind,
    EpisodeKind,
    EpisodeStatus,
    EvidenceKind,
    MemoryType,
    ObservationKind,
    Privacy,
    Role,
)

ROLE_AUTHORITY: dict[Role, tuple[Authority, ...]] = {
    Role.USER: (Authority.USER_STATED, Authority.AGENT_INFERRED, Authority.IMPORTED),
    Role.ASSISTANT: (Authority.AGENT_INFERRED, Authority.IMPORTED),
    Role.TOOL: (Authority.TOOL_OUTPUT, Authority.AGENT_INFERRED, Authority.IMPORTED),
    Role.SYSTEM: (Authority.DOCUMENT, Authority.AGENT_INFERRED, Authority.IMPORTED),
    Role.DOCUMENT: (Authority.DOCUMENT, Authority.AGENT_INFERRED, Authority.IMPORTED),
}
"""Authorities evidence from an observation by each role may carry; the first is the default."""


def canonical_json(value: Any) -> str:
    """One spelling per JSON value: sorted keys, no spaces, UTF-8 kept."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


@dataclass(frozen=True)
class EvidenceLink:
    """One piece of evidence of a claim revision, as visible at the view's knownAt."""

    kind: EvidenceKind
    authority: Authority
    recorded_at: datetime
    note: str | None
    observation_id: str | None = None
    artifact_id: str | None = None
    episode_id: str | None = None
    text: str | None = None
    """The observation's content, or an inline artifact's; None for blobs and external refs."""
    locator: str | None = None
    observed_at: datetime | None = None


@dataclass(frozen=True)
class Claim:
    """One revision of a claim."""

    id: str
    space_id: str
    key: str
    revision: int
    type: MemoryType
    subject_id: str | None
    predicate: str | None
    object_id: str | None
    value: Any
    text: str
    status: ClaimStatus
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
    evidence: tuple[EvidenceLink, ...] = field(default=())

    @property
    def is_current(self) -> bool:
        return self.superseded_at is None


@dataclass(frozen=True)
class Entity:
    id: str
    space_id: str
    key: str
    kind: EntityKind
    canonical: str
    recorded_at: datetime
    name: str
    """The name valid at the view's asOf (the canonical form when none is recorded then)."""
    aliases: tuple[str, ...] = ()
    merged_from: tuple[str, ...] = ()
    """Keys of entities merged into this one, as visible in the view."""


@dataclass(frozen=True)
class Observation:
    id: str
    space_id: str
    episode_id: str
    seq: int
    kind: ObservationKind
    role: Role
    content: str
    content_hash: str
    observed_at: datetime
    privacy: Privacy
    recorded_at: datetime


@dataclass(frozen=True)
class Episode:
    id: str
    space_id: str
    title: str
    kind: EpisodeKind
    status: EpisodeStatus
    participants: tuple[str, ...]
    started_at: datetime
    ended_at: datetime | None
    extractor_version: str | None
    recorded_at: datetime
    supersedes_id: str | None = None
    observations: tuple[Observation, ...] = ()


@dataclass(frozen=True)
class Artifact:
    id: str
    space_id: str
    storage: ArtifactStorage
    locator: str
    media_type: str
    size: int
    sha256: str | None
    """None only for an external reference whose hash was not declared."""
    recorded_at: datetime
    content: str | None = None
