"""The one visibility predicate every read uses, on every node and relationship it returns.

A row (a claim revision, a relation, an evidence link, an observation, an entity) is visible in a
`View` iff it is in a space the reader may read, at a privacy tier the reader may read,
`validFrom ≤ asOf < validTo`, `recordedAt ≤ knownAt < supersededAt`, and it is not erased.
A missing `validFrom`/`validTo`/`supersededAt` is unbounded on that side.

    >>> view = await View.open(graph, space="alice", as_of=t, known_at=None)
    >>> QUERY = "MATCH (c:Claim {spaceId: $spaceId, key: $key}) WHERE " + visible("c") + " …"
    >>> await graph.read(QUERY, **view.params(), key="pref:ui:theme")
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any, LiteralString

from graph.domain.errors import HistoryUnavailable, NotFound, ValidationFailed
from graph.domain.model import Privacy
from graph.domain.read_records import RevisionState
from graph.domain.timeutil import to_native, utc_now
from graph.store.db import Graph

_VARIABLE = re.compile(r"^[a-z][A-Za-z0-9_]{0,31}$")


def _checked(variable: str) -> Any:
    if not _VARIABLE.match(variable):
        raise ValueError(f"not a Cypher variable name: {variable!r}")
    return variable  # an identifier from our own code, never user input


def in_history(variable: str) -> LiteralString:
    """The part of the predicate that holds for every revision a reader may see in history:
    space, privacy, recorded by `knownAt`, not erased."""
    v = _checked(variable)
    return (
        f"({v}.spaceId = $spaceId AND {v}.privacy <= $maxPrivacy"
        f" AND {v}.recordedAt <= $knownAt AND {v}.erasedAt IS NULL)"
    )


def begun(variable: str) -> LiteralString:
    """In history and begun in valid time by `asOf`: every revision a search with history may
    rank — current, ended (`validTo ≤ asOf`) or superseded (`supersededAt ≤ knownAt`), never
    erased, above the reader's tier or recorded after `knownAt`."""
    v = _checked(variable)
    return f"({in_history(v)} AND ({v}.validFrom IS NULL OR {v}.validFrom <= $asOf))"


def visible(variable: str) -> LiteralString:
    """The visibility predicate for the node or relationship bound to `variable`: in history,
    valid at `asOf` and not yet superseded at `knownAt`."""
    v = _checked(variable)
    return (
        f"({begun(v)}"
        f" AND ({v}.validTo IS NULL OR $asOf < {v}.validTo)"
        f" AND ({v}.supersededAt IS NULL OR $knownAt < {v}.supersededAt))"
    )


SPACE_HISTORY: LiteralString = """
MATCH (s:Space {name: $space})
WHERE s.erasedAt IS NULL
OPTIONAL MATCH (clock:Clock {name: 'recorded'})
RETURN s.id AS id, s.recordedAt AS recordedAt, coalesce(s.clockNow, clock.now) AS clock
"""


@dataclass(frozen=True)
class View:
    """Who reads, in which space, and at which valid-time and recorded-time instants."""

    space_id: str
    space: str
    as_of: datetime
    known_at: datetime
    max_privacy: Privacy = Privacy.SECRET

    @classmethod
    async def open(
        cls,
        graph: Graph,
        space: str,
        *,
        as_of: datetime | None = None,
        known_at: datetime | None = None,
        max_privacy: Privacy = Privacy.SECRET,
    ) -> View:
        """A view of `space`; `HISTORY_UNAVAILABLE` when `knownAt` predates what is kept."""
        now = utc_now()
        as_of = _aware(as_of, "asOf") if as_of is not None else now
        rows = await graph.read(SPACE_HISTORY, space=space)
        if not rows:
            raise NotFound(f"no space named {space!r}", field="space")
        row = rows[0]
        if known_at is not None:
            known_at = _aware(known_at, "knownAt")
        else:
            # "Now" in recorded time is the space's clock when it is ahead of ours (a
            # remote Neo4j, or ticks that ran past the wall clock): a write is always visible
            # to the next default read.
            clock = to_native(row["clock"]) if row["clock"] is not None else now
            known_at = max(now, clock)
        horizon = to_native(row["recordedAt"])
        if known_at < horizon:
            raise HistoryUnavailable(
                f"space {space!r} keeps history from {horizon.isoformat()}; "
                f"knownAt {known_at.isoformat()} is before that",
                field="knownAt",
            )
        return cls(row["id"], space, as_of, known_at, max_privacy)

    def params(self) -> dict[str, Any]:
        """The parameters `visible()` refers to."""
        return {
            "spaceId": self.space_id,
            "maxPrivacy": int(self.max_privacy),
            "asOf": self.as_of,
            "knownAt": self.known_at,
        }

    def state_of(self, valid_to: datetime | None, superseded_at: datetime | None) -> RevisionState:
        """How a revision `begun()` admits stands here; superseded wins over ended (Engram
        no longer holds it at all)."""
        if superseded_at is not None and superseded_at <= self.known_at:
            return RevisionState.SUPERSEDED
        if valid_to is not None and valid_to <= self.as_of:
            return RevisionState.ENDED
        return RevisionState.CURRENT


def _aware(value: datetime, name: str) -> datetime:
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValidationFailed(f"{name} needs a UTC offset (ISO-8601 with offset)", field=name)
    return value
