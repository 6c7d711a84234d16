"""The API's enums, spelled as in `schema.graphql`, and the client's JSON and UNSET types."""

from __future__ import annotations

from enum import Enum, StrEnum
from typing import Final, Literal, TypeAlias

JSONValue: TypeAlias = "bool | int | float | str | list[JSONValue] | dict[str, JSONValue] | None"
"""A claim's value, as the API's `JSON` scalar carries it."""


class Unset(Enum):
    UNSET = "UNSET"


UNSET: Final = Unset.UNSET
"""Leave a field out (where leaving it out and sending null mean different things)."""
Unsettable: TypeAlias = Literal[Unset.UNSET]


class Privacy(StrEnum):
    PUBLIC = "PUBLIC"
    NORMAL = "NORMAL"
    PRIVATE = "PRIVATE"
    SECRET = "SECRET"


class MemoryType(StrEnum):
    PROFILE = "PROFILE"
    PREF = "PREF"
    GOAL = "GOAL"
    TASK = "TASK"
    DECISION = "DECISION"
    ENTITY = "ENTITY"
    EVENT = "EVENT"
    CASE = "CASE"
    PATTERN = "PATTERN"
    FACT = "FACT"


class Cardinality(StrEnum):
    ONE = "ONE"
    MANY = "MANY"


class ClaimStatus(StrEnum):
    ACTIVE = "ACTIVE"
    SUPERSEDED = "SUPERSEDED"
    RETRACTED = "RETRACTED"
    DISPUTED = "DISPUTED"


class CorrectionKind(StrEnum):
    SUPERSEDE = "SUPERSEDE"
    RETRACT = "RETRACT"
    DISPUTE = "DISPUTE"


class Direction(StrEnum):
    OUT = "OUT"
    IN = "IN"
    BOTH = "BOTH"


class EpisodeKind(StrEnum):
    CONVERSATION = "CONVERSATION"
    TOOL_RUN = "TOOL_RUN"
    IMPORT = "IMPORT"
    OTHER = "OTHER"


class EpisodeStatus(StrEnum):
    OPEN = "OPEN"
    SEALED = "SEALED"
    SUPERSEDED = "SUPERSEDED"
    TOMBSTONED = "TOMBSTONED"


class ObservationKind(StrEnum):
    MESSAGE = "MESSAGE"
    TOOL_RESULT = "TOOL_RESULT"
    DOCUMENT_EXCERPT = "DOCUMENT_EXCERPT"
    OTHER = "OTHER"


class Role(StrEnum):
    USER = "USER"
    ASSISTANT = "ASSISTANT"
    TOOL = "TOOL"
    SYSTEM = "SYSTEM"
    DOCUMENT = "DOCUMENT"


class Authority(StrEnum):
    USER_STATED = "USER_STATED"
    TOOL_OUTPUT = "TOOL_OUTPUT"
    DOCUMENT = "DOCUMENT"
    AGENT_INFERRED = "AGENT_INFERRED"
    IMPORTED = "IMPORTED"


class EntityKind(StrEnum):
    PERSON = "PERSON"
    ORG = "ORG"
    PROJECT = "PROJECT"
    REPO = "REPO"
    FILE = "FILE"
    URL = "URL"
    TOPIC = "TOPIC"
    OTHER = "OTHER"


class EvidenceKind(StrEnum):
    SUPPORTED_BY = "SUPPORTED_BY"
    CONTRADICTED_BY = "CONTRADICTED_BY"
    CORRECTED_BY = "CORRECTED_BY"


class RevisionState(StrEnum):
    """Where a search hit's revision stands in the view (see `search(include_history=True)`)."""

    CURRENT = "CURRENT"
    ENDED = "ENDED"
    SUPERSEDED = "SUPERSEDED"


class SelectorKind(StrEnum):
    CLAIM = "CLAIM"
    OBSERVATION = "OBSERVATION"
    EPISODE = "EPISODE"
    ARTIFACT = "ARTIFACT"
    ENTITY = "ENTITY"
    SUBJECT_PREDICATE = "SUBJECT_PREDICATE"
    SPACE = "SPACE"
