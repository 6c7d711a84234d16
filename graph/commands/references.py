"""What a write refers to, as it is given: an entity (by id, key or name) and a piece of evidence
(an observation, an artifact, or the text of one to record). Pydantic models every door's input
is checked against; they look nothing up (`entity_refs`, `evidence` resolve them).

    EntityRef(name="Ada Lovelace", kind=EntityKind.PERSON).derived_key()
    'entity:person:ada-lovelace'
    EvidenceRef(text="I moved to Acme last month", role=Role.USER)
"""

from __future__ import annotations

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, model_validator

from graph.domain import memory_types as mt
from graph.domain.vocabulary import Authority, EntityKind, Role

MAX_EVIDENCE = 50
MAX_OBSERVATION_CHARS = 100_000
"""The longest observation (and evidence text) Engram records, in characters."""


class EntityRef(BaseModel):
    """Exactly one of: an entity id, an entity key (`entity:<kind>:<canonical>`), or a name —
    with a `kind`, a name a write may create (`{name: "Ada Lovelace", kind: person}`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str | None = None
    key: str | None = None
    name: str | None = Field(default=None, max_length=500)
    kind: EntityKind | None = None

    @model_validator(mode="after")
    def _exactly_one(self) -> EntityRef:
        given = [v for v in (self.id, self.key, self.name) if v is not None]
        if len(given) != 1:
            raise ValueError("an entity reference gives exactly one of id, key or name")
        if self.name is not None and not self.name.strip():
            raise ValueError("a name has some text")
        if self.kind is not None and self.name is None:
            raise ValueError("kind goes with a name (a key or an id names its entity already)")
        return self

    def describe(self) -> str:
        if self.id is not None:
            return f"id {self.id!r}"
        if self.key is not None:
            return f"key {self.key!r}"
        kind = f" of kind {self.kind}" if self.kind is not None else ""
        return f"name {self.name!r}{kind}"

    def derived_key(self) -> str | None:
        """The key an entity created from this name and kind gets."""
        if self.name is None or self.kind is None:
            return None
        return mt.entity_key(self.kind, self.name)


class EvidenceRef(BaseModel):
    """One observation or artifact a write cites — or the text of one to record with the write
    (in the same transaction), in the open episode `episode_id` or the writer's session
    episode of the day."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    observation_id: str | None = None
    artifact_id: str | None = None
    text: str | None = Field(default=None, min_length=1, max_length=MAX_OBSERVATION_CHARS)
    role: Role | None = None
    observed_at: AwareDatetime | None = None
    episode_id: str | None = None
    authority: Authority | None = None
    note: str | None = Field(default=None, max_length=1000)

    @model_validator(mode="after")
    def _exactly_one_target(self) -> EvidenceRef:
        given = [v for v in (self.observation_id, self.artifact_id, self.text) if v is not None]
        if len(given) != 1:
            raise ValueError("evidence gives exactly one of observation_id, artifact_id or text")
        if self.text is None and (
            self.role is not None or self.observed_at is not None or self.episode_id is not None
        ):
            raise ValueError("role, observed_at and episode_id go with evidence text")
        return self

    @property
    def target_id(self) -> str:
        return self.observation_id or self.artifact_id or ""
