"""The shapes MCP tools take, described for a model that has not read Engram's docs.

Every field carries its description and its enum spelled out, so the JSON schema a host shows a
model says what to send: entities by key or current name, times ISO-8601 with an offset.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum
from typing import Annotated, Any, TypeVar

from pydantic import AwareDatetime, BaseModel, BeforeValidator, ConfigDict, Field, WithJsonSchema

from graph.domain.errors import ValidationFailed
from graph.domain.timeutil import parse_instant
from graph.domain.vocabulary import Cardinality, EntityKind, MemoryType, Privacy, Role

Space = Annotated[
    str, Field(description="The memory space (tenant) to work in, e.g. 'alice'.", min_length=1)
]
E = TypeVar("E", bound=Enum)


def named(enum: type[E]) -> Callable[[object], object]:
    """A validator taking a member of `enum` by its UPPER_CASE name, as every face spells it
    (GraphQL's enums, the client's, the CLI's); a lower-case spelling is taken too."""
    names = [member.name for member in enum]

    def parse(value: object) -> object:
        if isinstance(value, enum):
            return value
        if isinstance(value, str) and value.upper() in names:
            return enum[value.upper()]
        raise ValueError(f"must be one of {', '.join(names)}")

    return parse


def names_of(enum: type[Enum], description: str) -> WithJsonSchema:
    """The JSON schema of a by-name argument: its names, and what it means."""
    names = [member.name for member in enum]
    return WithJsonSchema({"type": "string", "enum": names, "description": description})


def _instant(value: object) -> object:
    return parse_instant(value) if isinstance(value, str) else value


Instant = Annotated[AwareDatetime, BeforeValidator(_instant)]
"""ISO-8601 with a UTC offset, or a bare YYYY-MM-DD or YYYY-MM (its first instant, UTC)."""

AsOf = Annotated[
    Instant | None,
    Field(
        description="Valid time: read the world as it was at this instant (ISO-8601 with "
        "offset, e.g. 2024-01-01T00:00:00Z, or a date 2024-01-01). Default now."
    ),
]
KnownAt = Annotated[
    Instant | None,
    Field(
        description="Recorded time: read what Engram knew at this instant (ISO-8601 with "
        "offset, or a date). Default now."
    ),
]
MemoryTypeArg = Annotated[
    MemoryType,
    BeforeValidator(named(MemoryType)),
    names_of(MemoryType, "The memory type: FACT, PROFILE, PREF, GOAL, TASK, …"),
]
EntityKindArg = Annotated[
    EntityKind,
    BeforeValidator(named(EntityKind)),
    names_of(EntityKind, "PERSON, ORG, PROJECT, REPO, FILE, URL, TOPIC or OTHER."),
]
PrivacyArg = Annotated[
    Privacy,
    BeforeValidator(named(Privacy)),
    names_of(Privacy, "Who may read it: PUBLIC, NORMAL, PRIVATE or SECRET."),
]
CardinalityArg = Annotated[
    Cardinality,
    BeforeValidator(named(Cardinality)),
    names_of(
        Cardinality,
        "A fact's rule: ONE (one current value per subject, e.g. WORKS_AT) or MANY (values "
        "coexist, e.g. KNOWS). Default: the space's rule.",
    ),
]
RoleArg = Annotated[
    Role,
    BeforeValidator(named(Role)),
    names_of(Role, "Who said it: USER, ASSISTANT, TOOL, SYSTEM or DOCUMENT."),
]


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
    kind: EntityKindArg | None = Field(
        default=None,
        description="With a name: PERSON, ORG, PROJECT, REPO, FILE, URL, TOPIC or OTHER. "
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

    type: MemoryTypeArg | None = Field(
        default=None,
        description="Memory type: FACT for subject–predicate–object; the others follow from "
        "the key and may be left out.",
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
    cardinality: CardinalityArg | None = Field(default=None)
    confidence: float = Field(default=0.9, ge=0.0, le=1.0, description="0–1.")
    importance: float = Field(default=0.5, ge=0.0, le=1.0, description="0–1.")
    privacy: PrivacyArg = Field(default=Privacy.NORMAL)
    valid_from: Instant | None = Field(
        default=None,
        description="When it became true (ISO-8601 with offset, or a date); default the "
        "evidence's time (the name an entity is created with: from the open beginning).",
    )
    valid_to: Instant | None = Field(
        default=None,
        description="When it stopped being true, exclusive (ISO-8601 with offset, or a date); "
        "default open.",
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
            "privacy": self.privacy,
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
