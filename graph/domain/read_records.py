"""The records reads answer beside the resources of graph.domain.model: neighbourhoods and
explanations, pages and timelines, search hits and the context snapshot.

Plain frozen values; the reads in graph/reads build them and every door (GraphQL, CLI, MCP) shows
them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypedDict

from graph.domain.model import Claim, Entity, Episode, EvidenceLink, Observation
from graph.domain.vocabulary import Axis, ChangeKind, ClaimStatus, MemoryType, RevisionState, Role

DEFAULT_STATUSES = (ClaimStatus.ACTIVE, ClaimStatus.DISPUTED)
"""The statuses a claim list shows unless asked otherwise."""
DEFAULT_PAGE = 20
"""Claims on a page unless asked otherwise."""
DEFAULT_SEARCH_FIRST = 12
"""Search hits unless asked otherwise."""
DEFAULT_BUDGET = 2048
"""Bytes of a context snapshot unless asked otherwise."""


@dataclass(frozen=True)
class Relation:
    """One visible relationship between two entities."""

    type: str
    source_id: str
    target_id: str
    valid_from: datetime | None
    valid_to: datetime | None
    recorded_at: datetime
    claim_id: str | None
    claim_key: str | None
    status: str | None
    confidence: float | None
    reason: str | None = None


@dataclass(frozen=True)
class Neighbourhood:
    start_id: str
    distances: dict[str, int]
    """Entity id → hop distance from the start (the start is 0)."""
    relations: list[Relation]
    truncated: bool
    """True when the `first` bound (nodes) or the relation bound cut the answer."""
    entities: tuple[Entity, ...] = ()
    """The entities reached (the start among them), as the view names them, nearest first then
    by key."""


@dataclass(frozen=True)
class Step:
    """One hop of a path: the relation, which way it was walked, and why we believe it."""

    relation: Relation
    from_id: str
    to_id: str
    forward: bool
    """True when the relation points the way the path walks."""
    claim: Claim | None
    evidence: list[EvidenceLink] = field(default_factory=list)


@dataclass(frozen=True)
class Explanation:
    paths: list[list[Step]]
    reason: str | None
    """Why there is no path (None when there are paths)."""
    entities: tuple[Entity, ...] = ()
    """The entities on the paths as the view names them (read with the paths' claims)."""


@dataclass(frozen=True)
class ClaimFilter:
    type: MemoryType | None = None
    key_prefix: str | None = None
    subject_id: str | None = None
    predicate: str | None = None
    statuses: tuple[ClaimStatus, ...] = DEFAULT_STATUSES


@dataclass(frozen=True)
class ClaimPage:
    claims: list[Claim]
    end: str | None
    """Cursor of the last claim on the page (pass as `after` for the next page)."""
    has_more: bool


@dataclass(frozen=True)
class Timeline:
    claims: list[Claim] = field(default_factory=list)
    episodes: list[Episode] = field(default_factory=list)


@dataclass(frozen=True)
class Hit:
    claim: Claim
    score: float
    """Reciprocal-rank fusion score (higher is better)."""
    sources: tuple[str, ...]
    """Which lists found it: text, meaning, evidence, entity."""
    state: RevisionState = RevisionState.CURRENT
    """CURRENT unless the search included history."""


@dataclass(frozen=True)
class MessageHit:
    """A message (observation) `messages` recalled."""

    observation: Observation
    score: float
    """Reciprocal-rank fusion score (higher is better); 0 for a window without a query."""
    sources: tuple[str, ...]
    """Which lists found it: words, meaning (through a claim drawn from it), or time."""


class MessageOptions(TypedDict, total=False):
    """What `messages` may be told (all optional): words to look for, an observed-at window
    `[start, end)`, a role, an episode, how many."""

    query: str | None
    start: datetime | None
    end: datetime | None
    role: Role | None
    episode_id: str | None
    first: int


@dataclass(frozen=True)
class ContextSnapshot:
    text: str
    bytes: int
    keys: list[str]
    omitted: int
    """Candidate lines left out because they did not fit the budget."""


@dataclass(frozen=True)
class Forgetting:
    """What a tombstone tells: the kind of its selector and how many things of each kind went."""

    selector_kind: str
    counts: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Change:
    kind: ChangeKind
    at: datetime
    claim: Claim | None = None
    previous: Claim | None = None
    """The revision a `CORRECTED` claim replaced."""
    forgetting: Forgetting | None = None


class ChangeOptions(TypedDict, total=False):
    """What `changes` may be told besides its instants."""

    axis: Axis
    about: Any
    """The entity the changes are about (an id to the read; an id or a reference — id, key or
    name — at the memory's door)."""
    first: int


@dataclass(frozen=True)
class Changes:
    changes: list[Change]
    truncated: bool
