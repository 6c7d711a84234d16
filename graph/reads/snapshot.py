"""The core snapshot an agent injects into its prompt: at most `budget_bytes` of UTF-8.

Profile, the space's current facts, preferences, active goals, open tasks and recent decisions,
as visible in the view, one line each in words (never a key), in a deterministic order: by
type, then importance (high first), then recency (newest first), then key. A fact reads with its
entities' names as of the view (`Alice works at Acme Global`); any other claim with its kind
first (`Preference: ui theme: dark`). Given an entity the conversation is `about`, its current
facts come first among the facts. A line that does not fit is left out (and counted); the text
never exceeds the budget; `keys` says which claim each line is.

    snapshot = await context_snapshot(graph, view, budget_bytes=2048)
    len(snapshot.text.encode()) <= 2048
    True
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import LiteralString

from graph.domain import memory_types as mt
from graph.domain.errors import check_between
from graph.domain.model import Claim, Entity
from graph.domain.read_records import DEFAULT_BUDGET, ContextSnapshot
from graph.domain.vocabulary import ClaimStatus, MemoryType
from graph.reads.resources import entities_by_ids
from graph.reads.visibility import View, holds, twins
from graph.store.db import Graph
from graph.store.rows import CLAIM_PROJECTION, claim_record

MAX_BUDGET = 65536
RECENT_DECISIONS = 5
ORDER = (
    MemoryType.PROFILE,
    MemoryType.FACT,
    MemoryType.PREF,
    MemoryType.GOAL,
    MemoryType.TASK,
    MemoryType.DECISION,
)
_EPOCH = datetime(1, 1, 1, tzinfo=UTC)

CONTEXT_CLAIMS: LiteralString = (
    """
MATCH (c:Claim {spaceId: $spaceId})
WHERE c.type IN ['profile', 'pref', 'goal', 'task', 'decision'] AND """
    + holds("c")
    + """
  AND c.status IN ['active', 'disputed'] AND c.archivedAt IS NULL
RETURN """
    + CLAIM_PROJECTION
    + """ AS claim
"""
)


_SHOWN_FACT: LiteralString = (
    """c.type = 'fact' AND """
    + holds("c")
    + """
  AND c.status IN ['active', 'disputed'] AND c.archivedAt IS NULL
"""
)

SPACE_FACTS: LiteralString = (
    """
MATCH (c:Claim {spaceId: $spaceId})
WHERE c.recordedAt <= $knownAt AND """
    + _SHOWN_FACT
    + """
WITH c ORDER BY c.recordedAt DESC LIMIT $limit
RETURN """
    + CLAIM_PROJECTION
    + """ AS claim
"""
)
"""The space's current facts learned last (by the index on recorded time, so a big space is not
read whole): no more than a snapshot could hold, ranked by importance afterwards."""

FACTS_ABOUT: LiteralString = (
    """
MATCH (subject:Entity {id: $subjectId})
"""
    + twins("subject", "twin")
    + """
MATCH (c:Claim {subjectId: twin.id})
WHERE c.spaceId = $spaceId AND """
    + _SHOWN_FACT
    + """
RETURN """
    + CLAIM_PROJECTION
    + """ AS claim
"""
)


LABELS = {
    MemoryType.PROFILE: "Profile",
    MemoryType.PREF: "Preference",
    MemoryType.GOAL: "Goal",
    MemoryType.TASK: "Task",
    MemoryType.DECISION: "Decision",
}


def _wanted(claim: Claim) -> bool:
    value = claim.value if isinstance(claim.value, dict) else {}
    if claim.type is MemoryType.GOAL:
        return bool(value.get("status", "active") == "active")
    if claim.type is MemoryType.TASK:
        return value.get("status") in mt.OPEN_TASK_STATUSES
    return True


def _recency(claim: Claim) -> datetime:
    return claim.valid_from or claim.recorded_at or _EPOCH


def _line(claim: Claim, names: dict[str, str]) -> str:
    disputed = " (disputed)" if claim.status is ClaimStatus.DISPUTED else ""
    if claim.type is MemoryType.FACT:
        said = mt.claim_text(
            claim.type,
            claim.key,
            claim.value,
            subject=names.get(claim.subject_id or ""),
            predicate=claim.predicate,
            obj=names.get(claim.object_id or "") if claim.object_id else None,
        )
    else:
        said = f"{LABELS.get(claim.type, claim.type.value)}: {claim.text}"
    return " ".join(f"{said}{disputed}".split())


async def context_snapshot(
    graph: Graph, view: View, *, budget_bytes: int = DEFAULT_BUDGET, about: Entity | None = None
) -> ContextSnapshot:
    check_between("budgetBytes", budget_bytes, MAX_BUDGET)
    # A line is at least ~16 bytes: the space's facts are read as far as the budget could hold.
    limit = budget_bytes // 16 + 1
    reads = [
        graph.read(CONTEXT_CLAIMS, **view.params()),
        graph.read(SPACE_FACTS, **view.params(), limit=limit),
    ]
    if about is not None:
        reads.append(graph.read(FACTS_ABOUT, **view.params(), subjectId=about.id))
    found = await asyncio.gather(*reads)
    claims = [claim_record(r["claim"], known_at=view.known_at) for r in found[0]]
    facts = {
        r["claim"]["id"]: claim_record(r["claim"], known_at=view.known_at)
        for rows in found[1:]
        for r in rows
    }
    first = {r["claim"]["id"] for r in found[2]} if about is not None else set()
    named = sorted({i for f in facts.values() for i in (f.subject_id, f.object_id) if i})
    entities = await entities_by_ids(graph, view, named) if named else []
    names = {e.id: e.name for e in entities if e is not None}
    newest: dict[str, Claim] = {}
    for claim in [*claims, *facts.values()]:
        # Versioned keys keep several rows: the newest (then the most confident) speaks.
        held = newest.get(claim.key)
        if held is None or (_recency(claim), claim.confidence) > (_recency(held), held.confidence):
            newest[claim.key] = claim
    candidates = [c for c in newest.values() if _wanted(c)]
    decisions = sorted(
        (c for c in candidates if c.type is MemoryType.DECISION), key=_recency, reverse=True
    )
    dropped = {c.key for c in decisions[RECENT_DECISIONS:]}
    candidates = [c for c in candidates if c.key not in dropped]
    candidates.sort(
        key=lambda c: (
            ORDER.index(c.type),
            c.id not in first,
            -c.importance,
            -_recency(c).timestamp(),
            c.key,
        )
    )
    lines: list[str] = []
    keys: list[str] = []
    used = 0
    omitted = 0
    for claim in candidates:
        line = _line(claim, names)
        cost = len(line.encode("utf-8")) + (1 if lines else 0)
        if used + cost > budget_bytes:
            omitted += 1
            continue
        lines.append(line)
        keys.append(claim.key)
        used += cost
    text = "\n".join(lines)
    return ContextSnapshot(text, len(text.encode("utf-8")), keys, omitted)
