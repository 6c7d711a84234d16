"""The one visibility predicate every read uses, on every node and relationship it returns.

A row (a claim revision, a relation, an evidence link, an observation, an entity) is visible in a
`View` iff it is in a space the reader may read, at a privacy tier the reader may read,
`validFrom ≤ asOf < validTo`, `recordedAt ≤ knownAt < supersededAt`, and it is not erased.
A missing `validFrom`/`validTo`/`supersededAt` is unbounded on that side.

    view = await View.open(graph, space="alice", as_of=t, known_at=None)
    QUERY = "MATCH (c:Claim {spaceId: $spaceId, key: $key}) WHERE " + visible("c") + " …"
    await graph.read(QUERY, **view.params(), key="pref:ui:theme")
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, LiteralString, TypeVar

from graph.domain.errors import HistoryUnavailable, NotFound, ValidationFailed
from graph.domain.model import Claim
from graph.domain.timeutil import to_native, utc_now
from graph.domain.vocabulary import Privacy, RevisionState
from graph.store.db import Graph

T = TypeVar("T")

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


def believed(variable: str) -> LiteralString:
    """In history and still believed at `knownAt` (not superseded by then), whatever its valid
    time: the told facts a view chooses between (ENGRAM.md §2)."""
    v = _checked(variable)
    return f"({in_history(v)} AND ({v}.supersededAt IS NULL OR $knownAt < {v}.supersededAt))"


ASSERTING: LiteralString = "['active', 'disputed']"
"""The statuses of claims that assert what they say (a retracted claim asserts nothing)."""

ONE_VALUE_TYPES: LiteralString = "['pref', 'goal', 'task', 'entity', 'case', 'pattern', 'fact']"
"""The memory types whose key holds one value at a time (the overwrite policy): a view shows one
told fact of such a key at each instant (`memory_types.POLICIES`, checked by a test)."""


def _rivals(variable: str, key: LiteralString) -> LiteralString:
    """`MATCH … WHERE` of the told facts of `variable`'s key that rank above it
    (`timeline.told_rank`, stored as `toldRank`), bound to `<variable>Rival`; their visibility
    is for the caller to add."""
    v = _checked(variable)
    x = _checked(f"{v}Rival")
    # The hint: left to itself the planner may reach the rivals through the space's claims
    # recorded by `$knownAt` (a range over the whole space) instead of the key's few rows.
    return (
        f"MATCH ({x}:Claim {{spaceId: $spaceId, key: {key}}}) "
        f"USING INDEX {x}:Claim(spaceId, key) WHERE {x}.toldRank > {v}.toldRank"
    )


def holds(variable: str) -> LiteralString:
    """`visible()` and shown in the view: no told fact of the same one-value key that ranks
    above it holds at `asOf` (ENGRAM.md §2). For a claim `c` (its `key`)."""
    v = _checked(variable)
    x = _checked(f"{v}Rival")
    rivals = _rivals(v, f"{v}.key")
    return (
        f"({visible(v)} AND (NOT {v}.type IN {ONE_VALUE_TYPES}"
        f" OR NOT EXISTS {{ {rivals} AND {visible(x)} }}))"
    )


def relation_holds(variable: str) -> LiteralString:
    """`holds()` for a relation `r` asserted by a fact (its `claimKey` and `claimId`); a
    relation without a claim (a merge) is only `visible()`."""
    v = _checked(variable)
    x = _checked(f"{v}Rival")
    rivals = _rivals(v, f"{v}.claimKey")
    return (
        f"({visible(v)} AND ({v}.claimKey IS NULL OR NOT EXISTS {{ {rivals} AND {visible(x)} }}))"
    )


def twins(entity: str, twin: str) -> LiteralString:
    """`MATCH … WHERE` binding `twin` to every node of `entity`'s key the view shows: a key
    named at several tiers has a node at each (`graph.commands.entity_refs`), and a reader who
    sees several reads them as one entity."""
    e, t = _checked(entity), _checked(twin)
    return f"MATCH ({t}:Entity {{spaceId: {e}.spaceId, key: {e}.key}}) WHERE {visible(t)}"


def twin_ids(entity_param: LiteralString, ids: str) -> LiteralString:
    """Binds `ids` to the ids of every node of the key of the entity whose id is the parameter
    `entity_param` (none when it is null), as `twins()` finds them; starts a query."""
    p, out = _checked(entity_param), _checked(ids)
    return (
        f"OPTIONAL MATCH (twinOf:Entity {{id: ${p}}})\nOPTIONAL {twins('twinOf', 'twin')}\n"
        f"WITH collect(twin.id) AS {out}\n"
    )


def shown_twin(entity: str, shown: str) -> LiteralString:
    """A `CALL` binding `shown` to the id of the node a reader is shown for `entity`'s key: the
    lowest tier it sees, then the first recorded (as `entity_refs` and `resources` choose)."""
    e, out = _checked(entity), _checked(shown)
    return (
        f"CALL ({e}) {{ {twins(e, 'seen')} RETURN seen.id AS {out}"
        " ORDER BY seen.privacy, seen.recordedAt LIMIT 1 }"
    )


def held_bounds(variable: str, *, relation: bool = False) -> LiteralString:
    """A `CALL` binding `<variable>HeldFrom` and `<variable>HeldTo`: the part of the told
    interval of a row shown at `asOf` on which it is shown (`timeline.held`) — from where the
    last told fact ranking above it ended before `asOf`, to where the next one begins."""
    v = _checked(variable)
    x = _checked(f"{v}Rival")
    key: LiteralString = f"{v}.claimKey" if relation else f"{v}.key"
    one_value: LiteralString = "true" if relation else f"{v}.type IN {ONE_VALUE_TYPES}"
    return (
        f"CALL ({v}) {{ OPTIONAL {_rivals(v, key)} AND {one_value} AND {believed(x)}"
        f" WITH {v}, min(CASE WHEN {x}.validFrom > $asOf THEN {x}.validFrom END) AS cut,"
        f" max(CASE WHEN {x}.validTo <= $asOf THEN {x}.validTo END) AS resumed"
        f" RETURN CASE WHEN resumed IS NOT NULL AND"
        f" ({v}.validFrom IS NULL OR resumed > {v}.validFrom) THEN resumed"
        f" ELSE {v}.validFrom END AS {v}HeldFrom,"
        f" CASE WHEN cut IS NOT NULL AND ({v}.validTo IS NULL OR cut < {v}.validTo) THEN cut"
        f" ELSE {v}.validTo END AS {v}HeldTo }}"
    )


SPACE_HISTORY: LiteralString = """
MATCH (s:Space {name: $space})
WHERE s.erasedAt IS NULL
OPTIONAL MATCH (clock:Clock {name: 'recorded'})
RETURN s.id AS id, toString(s.recordedAt) AS recordedAt,
       toString(coalesce(s.clockNow, clock.now)) AS clock
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
        rows = await graph.read(SPACE_HISTORY, space=space)
        return cls.of_space(rows, space, now, as_of, known_at, max_privacy)

    @classmethod
    async def open_beside(
        cls,
        graph: Graph,
        space: str,
        space_id: str,
        read: Callable[[View], Awaitable[T]],
        *,
        as_of: datetime | None = None,
        known_at: datetime | None = None,
        max_privacy: Privacy = Privacy.SECRET,
    ) -> tuple[View, T]:
        """`read` in the view `open` gives, run beside `open`'s own query on the view guessed
        from the space's id (`knownAt` this process's now, unless given): one round trip's wait
        instead of two. The space's answer proves the guess (`proven_by`), or `read` runs again
        in the view it gives (the name now another space's, a write recorded since, history
        not kept that far back)."""
        now = utc_now()
        guess = cls(
            space_id,
            space,
            _aware(as_of, "asOf") if as_of is not None else now,
            _aware(known_at, "knownAt") if known_at is not None else now,
            max_privacy,
        )
        rows, found = await asyncio.gather(
            graph.read(SPACE_HISTORY, space=space), read(guess), return_exceptions=True
        )
        if isinstance(rows, BaseException):
            raise rows
        if not guess.proven_by(rows, given_known_at=known_at is not None):
            view = cls.of_space(rows, space, now, as_of, known_at, max_privacy)
            return view, await read(view)
        if isinstance(found, BaseException):
            raise found
        return guess, found

    @classmethod
    def of_space(
        cls,
        rows: list[dict[str, Any]],
        space: str,
        now: datetime,
        as_of: datetime | None,
        known_at: datetime | None,
        max_privacy: Privacy,
    ) -> View:
        """The view `open` gives, from the space's `SPACE_HISTORY` rows read at `now`."""
        as_of = _aware(as_of, "asOf") if as_of is not None else now
        if not rows:
            raise NotFound(f"no space named {space!r}", field="space")
        row = rows[0]
        if known_at is not None:
            known_at = _aware(known_at, "knownAt")
        else:
            # "Now" in recorded time is the space's clock when it is ahead of ours (a
            # remote Neo4j, or ticks that ran past the wall clock): a write is always visible
            # to the next default read.
            known_at = max(now, _clock(row, now))
        horizon = to_native(row["recordedAt"])
        if known_at < horizon:
            raise HistoryUnavailable(
                f"space {space!r} keeps history from {horizon.isoformat()}; "
                f"knownAt {known_at.isoformat()} is before that",
                field="knownAt",
            )
        return cls(row["id"], space, as_of, known_at, max_privacy)

    def proven_by(self, rows: list[dict[str, Any]], *, given_known_at: bool) -> bool:
        """Whether this view, guessed before the space's `SPACE_HISTORY` rows were read, is the
        one they give: the same space, history kept from before `knownAt`, and — `knownAt`
        not given — no write recorded after it."""
        if not rows or rows[0]["id"] != self.space_id:
            return False
        row = rows[0]
        if to_native(row["recordedAt"]) > self.known_at:
            return False
        return given_known_at or _clock(row, self.known_at) <= self.known_at

    def params(self) -> dict[str, Any]:
        """The parameters `visible()` refers to."""
        return {
            "spaceId": self.space_id,
            "maxPrivacy": int(self.max_privacy),
            "asOf": self.as_of,
            "knownAt": self.known_at,
        }

    def state_of(self, claim: Claim, shown: bool) -> RevisionState:
        """How a revision `begun()` admits stands here (`shown`: it `holds()` in the view);
        superseded wins over ended (Engram no longer holds it at all), and a told fact that
        is over by `asOf` — its own time ended, or a later told fact of its key holds then —
        is `ENDED`."""
        if claim.superseded_at is not None and claim.superseded_at <= self.known_at:
            return RevisionState.SUPERSEDED
        return RevisionState.CURRENT if shown else RevisionState.ENDED


def _clock(row: dict[str, Any], otherwise: datetime) -> datetime:
    """The space's recorded-time clock from its `SPACE_HISTORY` row."""
    return to_native(row["clock"]) if row["clock"] is not None else otherwise


def _aware(value: datetime, name: str) -> datetime:
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValidationFailed(f"{name} needs a UTC offset (ISO-8601 with offset)", field=name)
    return value
