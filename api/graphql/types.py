"""Strawberry types mirroring graph/'s records.

Each object keeps the `View` it was read in (`strawberry.Private`), so nested fields — a claim's
evidence, a relation's entities — are read in the same space, at the same tier and the same
`asOf`/`knownAt`: authorisation holds on every hop, not only at the top.
"""

from __future__ import annotations

import dataclasses
import functools
from datetime import datetime
from enum import Enum
from typing import Any, TypeVar, cast

import strawberry
from strawberry.scalars import JSON
from strawberry.types import Info

from api.graphql.loaders import entity_loader, evidence_loader
from api.graphql.request_context import EngramContext
from graph.domain import model, vocabulary
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
    Role,
)
from graph.memory import Space as DomainSpace
from graph.memory import View

EngramInfo = Info[EngramContext, None]


G = TypeVar("G")


def from_record(graphql_type: type[G], record: object, **given: Any) -> G:
    """The GraphQL object of a domain record: every field (private ones included) taken from the
    record's attribute of the same name, unless `given` — so a type cannot silently miss a
    field the record has, and a renamed record field fails loudly here."""
    values = {
        name: given[name] if name in given else getattr(record, name)
        for name in _stored_fields(cast(type, graphql_type))
    }
    return graphql_type(**values)


@functools.cache
def _stored_fields(graphql_type: type) -> tuple[str, ...]:
    """The fields of a GraphQL type that hold values (resolved fields load themselves); asked
    once per type, not for each object of an answer."""
    return tuple(
        f.name
        for f in dataclasses.fields(graphql_type)
        if getattr(f, "base_resolver", None) is None
    )


@strawberry.enum(description="Privacy tiers, ordered; a key cleared for a tier reads the lower.")
class Privacy(Enum):
    PUBLIC = "public"
    NORMAL = "normal"
    PRIVATE = "private"
    SECRET = "secret"

    @staticmethod
    def of(tier: vocabulary.Privacy) -> Privacy:
        return Privacy(tier.name.lower())

    def tier(self) -> vocabulary.Privacy:
        return vocabulary.Privacy[self.name]


@strawberry.type(description="A memory space: the unit of tenancy; nothing crosses spaces.")
class Space:
    id: strawberry.ID
    name: str
    description: str
    recorded_at: datetime = strawberry.field(description="When Engram created the space.")

    @staticmethod
    def of(space: DomainSpace) -> Space:
        return from_record(Space, space)


@strawberry.type(description="A person, org, project, repo, file, url, topic or other.")
class Entity:
    id: strawberry.ID
    key: str
    kind: EntityKind
    canonical: str
    name: str = strawberry.field(description="The name valid at the view's asOf.")
    aliases: list[str]
    merged_from: list[str] = strawberry.field(description="Keys of entities merged into this.")
    recorded_at: datetime

    @staticmethod
    def of(entity: model.Entity) -> Entity:
        return from_record(Entity, entity)


async def entity_in_view(info: EngramInfo, view: View, entity_id: str | None) -> Entity | None:
    """The entity with `entity_id` as `view` shows it (through the request's DataLoader)."""
    if entity_id is None:
        return None
    found = await entity_loader(info.context, view).load(entity_id)
    return Entity.of(found) if found is not None else None


@strawberry.type(description="One piece of evidence: an observation or an artifact.")
class Evidence:
    kind: EvidenceKind
    authority: Authority
    recorded_at: datetime
    note: str | None
    observation_id: strawberry.ID | None
    artifact_id: strawberry.ID | None
    episode_id: strawberry.ID | None
    text: str | None = strawberry.field(description="Observation text or inline artifact content.")
    locator: str | None
    observed_at: datetime | None

    @staticmethod
    def of(link: model.EvidenceLink) -> Evidence:
        return from_record(Evidence, link)


@strawberry.type(description="One revision of a claim, with both time intervals.")
class Claim:
    id: strawberry.ID
    key: str
    revision: int
    type: MemoryType
    status: ClaimStatus
    predicate: str | None
    value: JSON | None
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
    subject_id: strawberry.Private[str | None]
    object_id: strawberry.Private[str | None]
    view: strawberry.Private[View]

    @staticmethod
    def of(claim: model.Claim, view: View) -> Claim:
        return from_record(Claim, claim, privacy=Privacy.of(claim.privacy), view=view)

    @strawberry.field(description="What supports, contradicts or corrected this revision.")
    async def evidence(self, info: EngramInfo) -> list[Evidence]:
        links = await evidence_loader(info.context, self.view).load(str(self.id))
        return [Evidence.of(link) for link in links]

    @strawberry.field(description="The entity the claim is about, as of the view.")
    async def subject(self, info: EngramInfo) -> Entity | None:
        return await entity_in_view(info, self.view, self.subject_id)

    @strawberry.field(description="The entity a relation claim points to, as of the view.")
    async def object(self, info: EngramInfo) -> Entity | None:
        return await entity_in_view(info, self.view, self.object_id)


@strawberry.type
class ClaimConnection:
    nodes: list[Claim]
    end_cursor: str | None = strawberry.field(description="Pass as `after` for the next page.")
    has_next_page: bool


@strawberry.type(description="Append-only source material inside an episode.")
class Observation:
    id: strawberry.ID
    episode_id: strawberry.ID
    seq: int
    kind: ObservationKind
    role: Role
    content: str
    content_hash: str
    observed_at: datetime
    privacy: Privacy
    recorded_at: datetime

    @staticmethod
    def of(observation: model.Observation) -> Observation:
        return from_record(Observation, observation, privacy=Privacy.of(observation.privacy))


@strawberry.type(
    description="A bounded slice of experience: a conversation, a tool run, an import."
)
class Episode:
    id: strawberry.ID
    title: str
    kind: EpisodeKind
    status: EpisodeStatus
    participants: list[str]
    started_at: datetime
    ended_at: datetime | None
    extractor_version: str | None
    recorded_at: datetime
    supersedes_id: strawberry.ID | None
    observations: list[Observation]

    @staticmethod
    def of(episode: model.Episode) -> Episode:
        return from_record(
            Episode, episode, observations=[Observation.of(o) for o in episode.observations]
        )


@strawberry.type(description="A file or external reference used as evidence.")
class Artifact:
    id: strawberry.ID
    storage: ArtifactStorage
    locator: str
    media_type: str
    size: int
    sha256: str | None
    recorded_at: datetime
    content: str | None

    @staticmethod
    def of(artifact: model.Artifact) -> Artifact:
        return from_record(Artifact, artifact)
