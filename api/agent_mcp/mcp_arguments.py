"""The shapes MCP tools take, described for a model that has not read Engram's docs.

Every field carries its description and its enum spelled out, so the JSON schema a host shows a
model says what to send: entities by key or current name, times ISO-8601 with an offset.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

from graph.domain.cardinality import Cardinality
from graph.domain.errors import ValidationFailed
from graph.domain.model import EntityKind, MemoryType, Privacy

Space = Annotated[
    str, Field(description="The memory space (tenant) to work in, e.g. 'alice'.", min_length=1)
]
AsOf = Annotated[
    AwareDatetime | None,
    Field(
        description="Valid time: read the world as it was at this instant (ISO-8601 with offset, "
        "e.g. 2024-01-01T00:00:00Z). Default now."
    ),
]
KnownAt = Annotated[
    AwareDatetime | None,
    Field(
        description="Recorded time: read what Engram knew at this instant (ISO-8601 with "
        "offset). Default now."
    ),
]
Tier = Literal["public", "normal", "private", "secret"]


class EntityArg(BaseModel):
    """An entity, by exactly one of its key or its current name (with a kind, a write creates
    it when nothing has that name)."""

    model_config = ConfigDict(extra="forbid")

    key: str | None = Field(
        default=None,
        description="The entity's key: entity:<kind>:<canonical>, kind one of person, org, "
        "project, repo, file, url, topic, other (e.g. entity:person:alice).",
    )
    name: str | None = Field(
        default=None, description="The entity's current name or alias, e.g. 'Alice'."
    )
    kind: EntityKind | None = Field(
        default=None,
        description="With a name: person, org, project, repo, file, url, topic or other. "
        "In remember, an entity of that kind and name is created if none exists.",
    )

    def ref(self, field: str) -> dict[str, str]:
        """The reference the memory door takes; VALIDATION unless exactly one is given."""
        given = {k: v for k, v in (("key", self.key), ("name", self.name)) if v is not None}
        if len(given) != 1:
            raise ValidationFailed(f"{field} gives exactly one of key or name", field=field)
        if self.kind is not None:
            if self.name is None:
                raise ValidationFailed(f"{field}: kind goes with a name", field=f"{field}.kind")
            given["kind"] = self.kind.value
        return given


class MemoryItemArg(BaseModel):
    """One claim to remember: a keyed memory (profile, pref, goal, task, decision, entity,
    event, case, pattern) or a fact (subject, predicate, object or value)."""

    model_config = ConfigDict(extra="forbid")

    type: MemoryType | None = Field(
        default=None,
        description="Memory type. 'fact' for subject–predicate–object; the others follow "
        "from the key and may be left out.",
    )
    key: str | None = Field(
        default=None,
        description="Stable key. profile:<subject>, pref:<writing|coding|tools|ui|other>:<name>, "
        "goal:<project_or_topic>:<name>, task:<project>:<task_id>, decision:<project>:<topic>, "
        "entity:<kind>:<canonical>, event:<scope>:<YYYY-MM-DD>:<slug>, case:<domain>:<slug>, "
        "pattern:<domain>:<name>. Leave out for a fact (derived from subject and predicate).",
    )
    subject: EntityArg | None = Field(default=None, description="A fact's subject entity.")
    predicate: str | None = Field(
        default=None, description="A fact's predicate, UPPER_SNAKE_CASE, e.g. WORKS_AT."
    )
    object: EntityArg | None = Field(
        default=None, description="A fact's object entity (or give value instead)."
    )
    value: Any = Field(
        default=None,
        description='JSON value. An entity\'s is {"name": "Alice"}; a pref\'s e.g. '
        '{"value": "dark"}; a fact\'s literal object, e.g. 42.',
    )
    cardinality: Cardinality | None = Field(
        default=None,
        description="A fact's rule: 'one' (one current value per subject, e.g. WORKS_AT: a new "
        "value supersedes the old) or 'many' (values coexist, e.g. KNOWS). Default: the "
        "space's rule.",
    )
    confidence: float = Field(default=0.9, ge=0.0, le=1.0, description="0–1.")
    importance: float = Field(default=0.5, ge=0.0, le=1.0, description="0–1.")
    privacy: Tier = Field(default="normal", description="Who may read it: a key's tier or above.")
    valid_from: AwareDatetime | None = Field(
        default=None,
        description="When it became true (ISO-8601 with offset); default the evidence's time.",
    )
    valid_to: AwareDatetime | None = Field(
        default=None, description="When it stopped being true (exclusive); default open."
    )
    evidence: list[str] = Field(
        default_factory=list,
        description="Ids of observations already recorded that support it (evidence_text of "
        "the call is added to every item).",
    )
    idempotency_key: str | None = Field(
        default=None, description="A replay with the same key returns the first result."
    )
    expected_revision: int | None = Field(
        default=None, ge=0, description="Refuse with REVISION_CONFLICT unless this is current."
    )

    def command(self, inline: dict[str, Any] | None = None) -> dict[str, Any]:
        """The item as the memory door's remember data; `inline` is evidence text to record
        with it."""
        evidence: list[dict[str, Any]] = [{"observation_id": i} for i in self.evidence]
        data: dict[str, Any] = {
            "confidence": self.confidence,
            "importance": self.importance,
            "privacy": Privacy[self.privacy.upper()],
            "evidence": evidence + ([inline] if inline else []),
        }
        for name in ("type", "key", "predicate", "value", "valid_from", "valid_to", "cardinality"):
            if (given := getattr(self, name)) is not None:
                data[name] = given
        for name in ("idempotency_key", "expected_revision"):
            if (given := getattr(self, name)) is not None:
                data[name] = given
        if self.subject is not None:
            data["subject"] = self.subject.ref("subject")
        if self.object is not None:
            data["object"] = self.object.ref("object")
        return data
