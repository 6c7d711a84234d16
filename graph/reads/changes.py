"""What changed between two instants, on either time axis (ENGRAM.md §4: `changes`).

* **Valid time** ("what changed about Mara in 2023"): as known at the view's `knownAt`, where a
  told fact began or ended being what a view shows — `BEGAN` and `ENDED` at the instants of
  `[from, to)` where a key's timeline (`graph.domain.timeline.segments`) moves from one fact to
  another, or to none. A closed stint inside an open value is the stint's `BEGAN` and `ENDED`
  and the open value's `ENDED` and `BEGAN` again.
* **Recorded time** ("what did we learn since yesterday"): claim revisions recorded in
  `[from, to)` (by `knownAt`): a new told fact `BEGAN`, a revision of an earlier one — a
  correction, a retraction, a dispute, a telling that replaced it — `CORRECTED` (with the
  revision it replaced); and, unless the question is `about` one entity, forgettings as their
  tombstones alone: `FORGOTTEN`, with the selector's kind, when, and how many things — never a
  subject or any content.

Everything is read through the view: its space, its tier (a tombstone too: one made at a tier
above the reader's is not shown), and never anything erased.

    found = await changes(graph, view, start, end, axis=Axis.VALID, about=mara.id)
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any, LiteralString

from graph.domain.errors import ValidationFailed, check_between
from graph.domain.memory_types import POLICIES, ConflictPolicy
from graph.domain.model import Claim
from graph.domain.read_records import Change, Changes, Forgetting
from graph.domain.timeline import Told, segments
from graph.domain.timeutil import to_native
from graph.domain.vocabulary import Axis, ChangeKind
from graph.reads.visibility import ASSERTING, View, believed, in_history, twin_ids
from graph.store.db import Graph
from graph.store.rows import CLAIM_PROJECTION, claim_record

MAX_CHANGES = 500


def _claims_about(kept: LiteralString) -> LiteralString:
    """The space's claims `c` that `kept` keeps, about `$about` (or all, without it)."""
    return (
        twin_ids("about", "about")
        + "MATCH (c:Claim {spaceId: $spaceId})\nWHERE "
        + kept
        + "\n  AND ($about IS NULL OR c.subjectId IN about OR c.objectId IN about)"
    )


# The keys with a told fact believed at `knownAt` that starts or ends in `[from, to)`, and every
# told fact of those keys believed then (their timelines are worked out in Python).
VALID_CHANGES: LiteralString = (
    _claims_about(believed("c"))
    + """
  AND ((c.validFrom >= $from AND c.validFrom < $to) OR (c.validTo >= $from AND c.validTo < $to))
WITH DISTINCT c.key AS key
ORDER BY key LIMIT $keys
MATCH (c:Claim {spaceId: $spaceId, key: key})
WHERE """
    + believed("c")
    + """
RETURN key, collect("""
    + CLAIM_PROJECTION
    + """) AS told
ORDER BY key
"""
)

RECORDED_CHANGES: LiteralString = (
    _claims_about(in_history("c"))
    + """
  AND c.recordedAt >= $from AND c.recordedAt < $to
WITH c ORDER BY c.recordedAt, c.id LIMIT $first
OPTIONAL MATCH (c)-[:REVISES]->(previous:Claim)
WHERE """
    + in_history("previous")
    + """
RETURN """
    + CLAIM_PROJECTION
    + """ AS claim,
       CASE WHEN previous IS NULL THEN NULL ELSE previous {.*,
         validFrom: toString(previous.validFrom), validTo: toString(previous.validTo),
         recordedAt: toString(previous.recordedAt),
         supersededAt: toString(previous.supersededAt)} END AS previous
ORDER BY c.recordedAt, c.id
"""
)

FORGETTINGS: LiteralString = """
MATCH (t:Tombstone {spaceId: $spaceId})
WHERE t.watermark >= $from AND t.watermark < $to AND t.watermark <= $knownAt
  AND coalesce(t.tier, 3) <= $maxPrivacy
RETURN t.selectorKind AS kind, toString(t.watermark) AS at, t.countsJson AS counts
ORDER BY t.watermark
LIMIT $first
"""


def _check(start: datetime, end: datetime, first: int) -> None:
    for instant, name in ((start, "from"), (end, "to")):
        if instant.utcoffset() is None:
            raise ValidationFailed(f"{name} needs a UTC offset (ISO-8601 with offset)", field=name)
    if end <= start:
        raise ValidationFailed("`to` comes after `from`", field="to")
    check_between("first", first, MAX_CHANGES)


def _told(claim: Claim) -> Told:
    return Told(
        claim.id,
        claim.valid_from,
        claim.valid_to,
        claim.recorded_at,
        0,
        claim.status.value in ASSERTING,
    )


async def changes(
    graph: Graph,
    view: View,
    start: datetime,
    end: datetime,
    *,
    axis: Axis = Axis.RECORDED,
    about: Any = None,
    first: int = 100,
) -> Changes:
    """What began, ended, was corrected or forgotten in `[start, end)` on `axis`, in time
    order (at most `first`), about the entity with id `about` when given."""
    _check(start, end, first)
    params = {**view.params(), "from": start, "to": end, "about": about, "first": first + 1}
    found: list[Change] = []
    if axis is Axis.VALID:
        rows = await graph.read(VALID_CHANGES, **params, keys=first + 1)
        for row in rows:
            found.extend(_valid_changes(row["told"], start, end, view.known_at))
    else:
        for row in await graph.read(RECORDED_CHANGES, **params):
            claim = claim_record(row["claim"], known_at=view.known_at)
            previous = row["previous"]
            if previous is None:
                found.append(Change(ChangeKind.BEGAN, claim.recorded_at, claim))
            else:
                before = claim_record(previous, known_at=view.known_at)
                found.append(Change(ChangeKind.CORRECTED, claim.recorded_at, claim, before))
        if about is None:
            for row in await graph.read(FORGETTINGS, **params):
                counts = {k: int(v) for k, v in json.loads(row["counts"] or "{}").items() if v}
                forgetting = Forgetting(row["kind"], counts)
                found.append(
                    Change(ChangeKind.FORGOTTEN, to_native(row["at"]), forgetting=forgetting)
                )
    found.sort(key=lambda change: (change.at, change.kind != ChangeKind.ENDED, _id(change)))
    return Changes(found[:first], len(found) > first)


def _valid_changes(
    rows: list[dict[str, Any]], start: datetime, end: datetime, known_at: datetime
) -> list[Change]:
    claims = [claim_record(props, known_at=known_at) for props in rows]
    by_id = {claim.id: claim for claim in claims}
    if POLICIES[claims[0].type] is ConflictPolicy.VERSIONED:
        # Versioned revisions coexist: each begins and ends on its own.
        timeline = [(c.valid_from, c.valid_to, c) for c in claims]
    else:
        timeline = [
            (s.start, s.end, by_id[s.fact.id]) for s in segments([_told(c) for c in claims])
        ]
    found: list[Change] = []
    for began, ended, claim in timeline:
        if began is not None and start <= began < end:
            found.append(Change(ChangeKind.BEGAN, began, claim))
        if ended is not None and start <= ended < end:
            found.append(Change(ChangeKind.ENDED, ended, claim))
    return found


def _id(change: Change) -> str:
    return change.claim.id if change.claim is not None else ""
