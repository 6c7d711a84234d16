"""Lists through a `View`: claims with keyset cursors, evidence in batches, the timeline.

    page = await list_claims(graph, view, ClaimFilter(type=MemoryType.PREF), first=20)
    more = await list_claims(graph, view, ClaimFilter(type=MemoryType.PREF), after=page.end)

Pages are ordered newest recorded first (`recordedAt`, then `id`) and continue strictly after the
cursor, so concurrent writes never repeat or skip a row already paged past.
"""

from __future__ import annotations

import base64
import json
from datetime import datetime
from typing import Any, LiteralString

from graph.domain.errors import ValidationFailed, check_between
from graph.domain.model import Claim, EvidenceLink
from graph.domain.read_records import DEFAULT_PAGE, ClaimFilter, ClaimPage, Timeline
from graph.reads.shown_claims import CLAIM_WITH_VISIBLE_EVIDENCE, SHOWN_CLAIM_PROJECTION
from graph.reads.visibility import View, believed, holds, in_history, twins, visible
from graph.store.db import Graph
from graph.store.rows import (
    CLAIM_PROJECTION,
    EVIDENCE_PROJECTION,
    claim_record,
    episode_record,
    evidence_link,
)

MAX_PAGE = 100
MAX_TIMELINE = 500

_WANTED_CLAIMS: LiteralString = (
    visible("c")
    + """
  AND ($type IS NULL OR c.type = $type)
  AND ($keyPrefix IS NULL OR c.key STARTS WITH $keyPrefix)
  AND ($predicate IS NULL OR c.predicate = $predicate)
  AND c.status IN $statuses
  AND ($afterAt IS NULL OR c.recordedAt < $afterAt
       OR (c.recordedAt = $afterAt AND c.id < $afterId))
  AND """
    + holds("c")
    + """
WITH c ORDER BY c.recordedAt DESC, c.id DESC
LIMIT $limit
"""
    + SHOWN_CLAIM_PROJECTION
    + """ AS claim
ORDER BY c.recordedAt DESC, c.id DESC
"""
)

LIST_CLAIMS: LiteralString = "MATCH (c:Claim {spaceId: $spaceId})\nWHERE " + _WANTED_CLAIMS

# About one subject: from its entity (every node of its key the view shows, `twins`) through the
# subject index, never over the whole space.
LIST_CLAIMS_ABOUT: LiteralString = (
    "MATCH (subject:Entity {id: $subjectId})\n"
    + twins("subject", "twin")
    + "\nMATCH (c:Claim {subjectId: twin.id})\nWHERE c.spaceId = $spaceId AND "
    + _WANTED_CLAIMS
)


EVIDENCE_OF_CLAIMS: LiteralString = (
    """
UNWIND $ids AS id
MATCH (c:Claim {id: id})
MATCH (c)-[e:SUPPORTED_BY|CONTRADICTED_BY|CORRECTED_BY]->(t)
WHERE """
    + visible("e")
    + " AND "
    + visible("t")
    + """
RETURN id, """
    + EVIDENCE_PROJECTION
    + """ AS link
"""
)

CLAIMS_BY_IDS: LiteralString = (
    """
UNWIND $ids AS id
MATCH (c:Claim {id: id})
WHERE """
    + in_history("c")
    + """
RETURN """
    + CLAIM_PROJECTION
    + """ AS claim
"""
)

CLAIM_OF_ID_WITH_EVIDENCE: LiteralString = (
    """
MATCH (c:Claim {id: id})
WHERE """
    + in_history("c")
    + CLAIM_WITH_VISIBLE_EVIDENCE
)
"""The claim revision of each `id` (an `UNWIND` binds it before) kept in history at `knownAt`,
with the evidence of it the view shows; read by `claims_and_evidence`."""

CLAIMS_WITH_EVIDENCE: LiteralString = "UNWIND $ids AS id\n" + CLAIM_OF_ID_WITH_EVIDENCE

TIMELINE_CLAIMS: LiteralString = (
    """
MATCH (c:Claim {spaceId: $spaceId})
WHERE """
    + believed("c")
    + """
  AND c.validFrom >= $from AND c.validFrom < $to
RETURN """
    + CLAIM_PROJECTION
    + """ AS claim
ORDER BY c.validFrom, c.key, c.revision
LIMIT $limit
"""
)

EPISODES_WITH_THEIR_OBSERVATIONS: LiteralString = (
    """OPTIONAL MATCH (ep)-[:HAS_OBSERVATION]->(o:Observation)
WHERE """
    + visible("o")
    + """
WITH ep, collect(properties(o)) AS observations
RETURN properties(ep) AS episode, observations
"""
)
"""Follows episodes `ep` (in order): each with its observations visible in the view."""

TIMELINE_EPISODES: LiteralString = (
    """
MATCH (ep:Episode {spaceId: $spaceId})
WHERE """
    + in_history("ep")
    + """
  AND ep.startedAt >= $from AND ep.startedAt < $to
WITH ep ORDER BY ep.startedAt, ep.id LIMIT $limit
"""
    + EPISODES_WITH_THEIR_OBSERVATIONS
    + "ORDER BY episode.startedAt, episode.id\n"
)


def encode_cursor(claim: Claim) -> str:
    raw = json.dumps([claim.recorded_at.isoformat(), claim.id])
    return base64.urlsafe_b64encode(raw.encode()).decode()


def decode_cursor(cursor: str) -> tuple[datetime, str]:
    try:
        at, claim_id = json.loads(base64.urlsafe_b64decode(cursor.encode()))
        return datetime.fromisoformat(at), str(claim_id)
    except (ValueError, TypeError) as failure:
        raise ValidationFailed(f"not a cursor from this API: {failure}", field="after") from None


async def list_claims(
    graph: Graph,
    view: View,
    claim_filter: ClaimFilter,
    *,
    first: int = DEFAULT_PAGE,
    after: str | None = None,
) -> ClaimPage:
    """One page of the claims visible in `view` that match the filter."""
    check_between("first", first, MAX_PAGE)
    after_at, after_id = decode_cursor(after) if after else (None, None)
    rows = await graph.read(
        LIST_CLAIMS if claim_filter.subject_id is None else LIST_CLAIMS_ABOUT,
        **view.params(),
        type=claim_filter.type.value if claim_filter.type else None,
        keyPrefix=claim_filter.key_prefix,
        subjectId=claim_filter.subject_id,
        predicate=claim_filter.predicate,
        statuses=[s.value for s in claim_filter.statuses],
        afterAt=after_at,
        afterId=after_id,
        limit=first + 1,
    )
    claims = [claim_record(row["claim"], known_at=view.known_at) for row in rows[:first]]
    return ClaimPage(claims, encode_cursor(claims[-1]) if claims else None, len(rows) > first)


async def evidence_of(graph: Graph, view: View, claim_ids: list[str]) -> list[list[EvidenceLink]]:
    """The evidence visible in `view` of each claim, in one query (a DataLoader's batch)."""
    rows = await graph.read(EVIDENCE_OF_CLAIMS, **view.params(), ids=sorted(set(claim_ids)))
    by_claim: dict[str, list[EvidenceLink]] = {}
    for row in rows:
        if row["link"].get("kind"):  # else deleted by a concurrent forget as this read ran
            by_claim.setdefault(row["id"], []).append(evidence_link(row["link"]))
    for links in by_claim.values():
        links.sort(key=lambda link: (link.recorded_at, link.kind, link.observation_id or ""))
    return [by_claim.get(claim_id, []) for claim_id in claim_ids]


async def claims_by_ids(graph: Graph, view: View, claim_ids: list[str]) -> list[Claim | None]:
    """Claim revisions by id, as kept in history at `knownAt` (a DataLoader's batch)."""
    rows = await graph.read(CLAIMS_BY_IDS, **view.params(), ids=sorted(set(claim_ids)))
    found = {row["claim"]["id"]: claim_record(row["claim"], known_at=view.known_at) for row in rows}
    return [found.get(claim_id) for claim_id in claim_ids]


async def claims_with_evidence(
    graph: Graph, view: View, claim_ids: list[str]
) -> tuple[dict[str, Claim], dict[str, list[EvidenceLink]]]:
    """Claim revisions by id (as kept in history at `knownAt`) and the evidence visible in
    `view` of each, in one query."""
    if not claim_ids:
        return {}, {}
    rows = await graph.read(CLAIMS_WITH_EVIDENCE, **view.params(), ids=sorted(set(claim_ids)))
    return claims_and_evidence(rows, view)


def claims_and_evidence(
    rows: list[dict[str, Any]], view: View
) -> tuple[dict[str, Claim], dict[str, list[EvidenceLink]]]:
    """`CLAIM_OF_ID_WITH_EVIDENCE`'s rows as claims by id and the evidence of each."""
    claims: dict[str, Claim] = {}
    evidence: dict[str, list[EvidenceLink]] = {}
    for row in rows:
        claim = claim_record(row["claim"], row["evidence"], known_at=view.known_at)
        claims[claim.id] = claim
        evidence[claim.id] = list(claim.evidence)
    return claims, evidence


async def timeline(
    graph: Graph, view: View, start: datetime, end: datetime, *, first: int = 100
) -> Timeline:
    """What began in `[start, end)` of valid time — claims (as known at `knownAt`, whatever
    `asOf`) and episodes — in time order."""
    check_between("first", first, MAX_TIMELINE)
    if end <= start:
        raise ValidationFailed("a timeline ends after it starts", field="to")
    params: dict[str, Any] = {**view.params(), "from": start, "to": end, "limit": first}
    claims = [
        claim_record(r["claim"], known_at=view.known_at)
        for r in await graph.read(TIMELINE_CLAIMS, **params)
    ]
    episodes = [
        episode_record(r["episode"], r["observations"])
        for r in await graph.read(TIMELINE_EPISODES, **params)
    ]
    return Timeline(claims, episodes)


__all__ = [
    "ClaimFilter",
    "ClaimPage",
    "Timeline",
    "claims_by_ids",
    "claims_with_evidence",
    "evidence_of",
    "list_claims",
    "timeline",
]
