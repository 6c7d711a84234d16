"""The words Engram speaks, one enum per concept: every face uses these — graph/ stores their
values, GraphQL, MCP and the CLI show their names, and the Python client (`api.client`) reads and
sends them by name. A leaf: the standard library only, so the client may import it.

    >>> ClaimStatus["ACTIVE"] is ClaimStatus.ACTIVE, ClaimStatus.ACTIVE.value
    (True, 'active')
"""

from __future__ import annotations

from enum import IntEnum, StrEnum

__all__ = [
    "ArtifactStorage",
    "Authority",
    "Axis",
    "Cardinality",
    "ChangeKind",
    "ClaimStatus",
    "CorrectionKind",
    "Direction",
    "EntityKind",
    "EpisodeKind",
    "EpisodeStatus",
    "ErrorCode",
    "EvidenceKind",
    "ExportFormat",
    "MemoryType",
    "ObservationKind",
    "Privacy",
    "RevisionState",
    "Role",
    "SelectorKind",
]


class MemoryType(StrEnum):
    PROFILE = "profile"
    PREF = "pref"
    GOAL = "goal"
    TASK = "task"
    DECISION = "decision"
    ENTITY = "entity"
    EVENT = "event"
    CASE = "case"
    PATTERN = "pattern"
    FACT = "fact"


class ClaimStatus(StrEnum):
    ACTIVE = "active"
    SUPERSEDED = "superseded"
    RETRACTED = "retracted"
    DISPUTED = "disputed"


class CorrectionKind(StrEnum):
    SUPERSEDE = "SUPERSEDE"
    RETRACT = "RETRACT"
    DISPUTE = "DISPUTE"


class Privacy(IntEnum):
    """Privacy tiers, ordered: a reader cleared for a tier reads it and every lower one."""

    PUBLIC = 0
    NORMAL = 1
    PRIVATE = 2
    SECRET = 3


class Authority(StrEnum):
    """How strongly a piece of evidence supports a claim."""

    USER_STATED = "user_stated"
    TOOL_OUTPUT = "tool_output"
    DOCUMENT = "document"
    AGENT_INFERRED = "agent_inferred"
    IMPORTED = "imported"


class EvidenceKind(StrEnum):
    SUPPORTED_BY = "SUPPORTED_BY"
    CONTRADICTED_BY = "CONTRADICTED_BY"
    CORRECTED_BY = "CORRECTED_BY"


class EpisodeStatus(StrEnum):
    OPEN = "open"
    SEALED = "sealed"
    SUPERSEDED = "superseded"
    TOMBSTONED = "tombstoned"


class EpisodeKind(StrEnum):
    CONVERSATION = "conversation"
    TOOL_RUN = "tool_run"
    IMPORT = "import"
    OTHER = "other"


class ObservationKind(StrEnum):
    MESSAGE = "message"
    TOOL_RESULT = "tool_result"
    DOCUMENT_EXCERPT = "document_excerpt"
    OTHER = "other"


class Role(StrEnum):
    """Who produced an observation; decides the authority its evidence may claim."""

    USER = "user"
    ASSISTANT = "assistant"
    TOOL = "tool"
    SYSTEM = "system"
    DOCUMENT = "document"


class ArtifactStorage(StrEnum):
    INLINE = "inline"
    BLOB = "blob"
    EXTERNAL = "external"


class EntityKind(StrEnum):
    PERSON = "person"
    ORG = "org"
    PROJECT = "project"
    REPO = "repo"
    FILE = "file"
    URL = "url"
    TOPIC = "topic"
    OTHER = "other"


class SelectorKind(StrEnum):
    CLAIM = "CLAIM"
    OBSERVATION = "OBSERVATION"
    EPISODE = "EPISODE"
    ARTIFACT = "ARTIFACT"
    ENTITY = "ENTITY"
    SUBJECT_PREDICATE = "SUBJECT_PREDICATE"
    SPACE = "SPACE"


class Cardinality(StrEnum):
    ONE = "one"
    """One current value per subject: a new value supersedes the old in valid time."""
    MANY = "many"
    """Values coexist: each has a key of its own."""


class RevisionState(StrEnum):
    """Where a claim revision stands in a view: still held, over in valid time, or replaced."""

    CURRENT = "CURRENT"
    """Valid at `asOf` and still believed at `knownAt`."""
    ENDED = "ENDED"
    """Still believed at `knownAt`, but its valid time ended by `asOf`."""
    SUPERSEDED = "SUPERSEDED"
    """Replaced by a later revision by `knownAt` (whatever its valid time)."""


class Direction(StrEnum):
    OUT = "OUT"
    IN = "IN"
    BOTH = "BOTH"


class Axis(StrEnum):
    VALID = "VALID"
    RECORDED = "RECORDED"


class ChangeKind(StrEnum):
    BEGAN = "BEGAN"
    ENDED = "ENDED"
    CORRECTED = "CORRECTED"
    FORGOTTEN = "FORGOTTEN"


class ExportFormat(StrEnum):
    """What an export is written as: JSONL in the import format, or a Markdown document."""

    JSONL = "jsonl"
    MARKDOWN = "markdown"


class ErrorCode(StrEnum):
    NOT_FOUND = "NOT_FOUND"
    VALIDATION = "VALIDATION"
    REVISION_CONFLICT = "REVISION_CONFLICT"
    HISTORY_UNAVAILABLE = "HISTORY_UNAVAILABLE"
    FORBIDDEN = "FORBIDDEN"
    LEGAL_HOLD = "LEGAL_HOLD"
    FORGOTTEN = "FORGOTTEN"
    GATE_REFUSED = "GATE_REFUSED"
    AMBIGUOUS_SUBJECT = "AMBIGUOUS_SUBJECT"
    CONFLICT = "CONFLICT"
