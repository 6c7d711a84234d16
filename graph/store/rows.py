"""Rows from Cypher to the domain records of graph.domain.model (and the Cypher projections they
need)."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any, LiteralString

from neo4j.time import DateTime

from graph.domain.model import Artifact, Claim, Episode, EvidenceLink, Observation
from graph.domain.timeutil import to_native, to_native_or_none
from graph.domain.vocabulary import (
    ArtifactStorage,
    Authority,
    ClaimStatus,
    EpisodeKind,
    EpisodeStatus,
    EvidenceKind,
    MemoryType,
    ObservationKind,
    Privacy,
    Role,
)

EVIDENCE_PROJECTION: LiteralString = """
{kind: type(e), authority: e.authority, note: e.note, recordedAt: toString(e.recordedAt),
 observationId: CASE WHEN t:Observation THEN t.id END,
 artifactId: CASE WHEN t:Artifact THEN t.id END,
 episodeId: t.episodeId, text: t.content, locator: t.locator,
 observedAt: toString(coalesce(t.observedAt, t.recordedAt))}
"""
"""Projection of an evidence link `e` to its target `t` (instants as strings, see
`graph.domain.timeutil.to_native`)."""

CLAIM_PROJECTION: LiteralString = """c {.id, .spaceId, .key, .revision, .type, .subjectId,
  .predicate, .objectId, .valueJson, .text, .status, .confidence, .importance, .privacy, .pinned,
  .reason, .actor, validFrom: toString(c.validFrom), validTo: toString(c.validTo),
  recordedAt: toString(c.recordedAt), supersededAt: toString(c.supersededAt)}"""
"""What `claim_record` reads of a claim `c`, instants as strings: a read of claims hydrates no
temporal value (the driver spends about 100 µs on each)."""


STORED_CLAIM: LiteralString = """c {.*, validFrom: toString(c.validFrom),
  validTo: toString(c.validTo), recordedAt: toString(c.recordedAt),
  supersededAt: toString(c.supersededAt), archivedAt: toString(c.archivedAt),
  erasedAt: toString(c.erasedAt)}"""
"""Every property of a claim `c`, its instants as strings: what a write plans from
(`ClaimRow.from_props`). A key's told facts all stay current, so a write to a long-told key
loads many rows; as driver temporal values their instants cost more than the rest of the
write (a 10,000-message conversation spent a quarter of its time building them)."""


def native_props(props: dict[str, Any]) -> dict[str, Any]:
    """Neo4j temporal values in a property map as Python datetimes."""
    return {k: (to_native(v) if isinstance(v, DateTime) else v) for k, v in props.items()}


def evidence_link(row: dict[str, Any]) -> EvidenceLink:
    return EvidenceLink(
        kind=EvidenceKind(row["kind"]),
        authority=Authority(row["authority"]),
        recorded_at=to_native(row["recordedAt"]),
        note=row.get("note"),
        observation_id=row.get("observationId"),
        artifact_id=row.get("artifactId"),
        episode_id=row.get("episodeId"),
        text=row.get("text"),
        locator=row.get("locator"),
        observed_at=to_native_or_none(row.get("observedAt")),
    )


def claim_record(
    props: dict[str, Any],
    evidence: list[dict[str, Any]] | None = None,
    *,
    known_at: datetime | None,
) -> Claim:
    """A claim revision as a view at `known_at` shows it — one status per view: a revision
    superseded by then is `SUPERSEDED` (and one superseded later shows as it was then, not
    superseded); `known_at` None: as the database holds it now (a command's answer)."""
    superseded_at = to_native_or_none(props.get("supersededAt"))
    if superseded_at is not None and known_at is not None and superseded_at > known_at:
        superseded_at = None
    status = ClaimStatus(props["status"])
    if superseded_at is not None:
        status = ClaimStatus.SUPERSEDED
    # A link a concurrent forget deleted while this read ran reads as a row without a kind
    # (Neo4j reads committed data): it is gone, not shown.
    links = sorted(
        (evidence_link(row) for row in evidence or [] if row and row.get("kind")),
        key=lambda link: (
            link.recorded_at,
            link.kind,
            link.observation_id or link.artifact_id or "",
        ),
    )
    return Claim(
        id=props["id"],
        space_id=props["spaceId"],
        key=props["key"],
        revision=int(props["revision"]),
        type=MemoryType(props["type"]),
        subject_id=props.get("subjectId"),
        predicate=props.get("predicate"),
        object_id=props.get("objectId"),
        value=json.loads(props["valueJson"]) if props.get("valueJson") is not None else None,
        text=props.get("text") or "",
        status=status,
        confidence=float(props["confidence"]),
        importance=float(props["importance"]),
        privacy=Privacy(int(props["privacy"])),
        pinned=bool(props.get("pinned")),
        reason=props.get("reason"),
        actor=props.get("actor") or "",
        valid_from=to_native_or_none(props.get("validFrom")),
        valid_to=to_native_or_none(props.get("validTo")),
        recorded_at=to_native(props["recordedAt"]),
        superseded_at=superseded_at,
        evidence=tuple(links),
    )


def observation_record(props: dict[str, Any]) -> Observation:
    return Observation(
        id=props["id"],
        space_id=props["spaceId"],
        episode_id=props["episodeId"],
        seq=int(props["seq"]),
        kind=ObservationKind(props["kind"]),
        role=Role(props["role"]),
        content=props["content"],
        content_hash=props["contentHash"],
        observed_at=to_native(props["observedAt"]),
        privacy=Privacy(int(props["privacy"])),
        recorded_at=to_native(props["recordedAt"]),
    )


def episode_record(
    props: dict[str, Any], observations: list[dict[str, Any]] | None = None
) -> Episode:
    return Episode(
        id=props["id"],
        space_id=props["spaceId"],
        title=props.get("title") or "",
        kind=EpisodeKind(props["kind"]),
        status=EpisodeStatus(props["status"]),
        participants=tuple(props.get("participants") or ()),
        started_at=to_native(props["startedAt"]),
        ended_at=to_native_or_none(props.get("endedAt")),
        extractor_version=props.get("extractorVersion"),
        recorded_at=to_native(props["recordedAt"]),
        supersedes_id=props.get("supersedesId"),
        observations=tuple(
            sorted(
                (observation_record(o) for o in observations or [] if o),
                key=lambda o: (o.recorded_at, o.seq),
            )
        ),
    )


def artifact_record(props: dict[str, Any]) -> Artifact:
    return Artifact(
        id=props["id"],
        space_id=props["spaceId"],
        storage=ArtifactStorage(props["storage"]),
        locator=props["locator"],
        media_type=props["mediaType"],
        size=int(props["size"]),
        sha256=props.get("sha256"),
        recorded_at=to_native(props["recordedAt"]),
        content=props.get("content"),
    )
