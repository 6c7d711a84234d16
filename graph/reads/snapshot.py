"""The core snapshot an agent injects into its prompt: at most `budget_bytes` of UTF-8.

Profile, preferences, active goals, open tasks and recent decisions, as visible in the view, one
line each (`[type:key] summary`), in a deterministic order: by type, then importance (high
first), then recency (newest first), then key. Given an entity the conversation is `about`,
its current facts come right after the profile, with names as of the view
(`[fact:fact:person/alice:WORKS_AT] Alice WORKS_AT Acme Global`). A line that does not
fit is left out (and counted); the text never exceeds the budget.

    >>> snapshot = await context_snapshot(graph, view, budget_bytes=2048)
    >>> len(snapshot.text.encode()) <= 2048
    True
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import LiteralString

from graph.domain import memory_types as mt
from graph.domain.errors import ValidationFailed
from graph.domain.model import Claim, ClaimStatus, Entity, MemoryType
from graph.domain.read_records import DEFAULT_BUDGET, ContextSnapshot
from graph.reads.resources import entities_by_ids
from graph.reads.visibility import View, visible
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
    + visible("c")
    + """
  AND c.status IN ['active', 'disputed'] AND c.archivedAt IS NULL
RETURN """
    + CLAIM_PROJECTION
    + """ AS claim
"""
)


FACTS_ABOUT: LiteralString = (
    """
MATCH (c:Claim {spaceId: $spaceId, subjectId: $subjectId})
WHERE c.type = 'fact' AND """
    + visible("c")
    + """
  AND c.status IN ['active', 'disputed'] AND c.archivedAt IS NULL
RETURN """
    + CLAIM_PROJECTION
    + """ AS claim
"""
)


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
    if claim.type is MemoryType.FACT and claim.subject_id in names:
        said = names.get(claim.object_id or "") or mt.summarize(claim.value)
        summary = f"{names[claim.subject_id]} {claim.predicate} {said}".replace("\n", " ")
    else:
        summary = mt.summarize(claim.value).replace("\n", " ")
    return f"[{claim.type}:{claim.key}]{disputed} {summary}".rstrip()


async def context_snapshot(
    graph: Graph, view: View, *, budget_bytes: int = DEFAULT_BUDGET, about: Entity | None = None
) -> ContextSnapshot:
    if not 1 <= budget_bytes <= MAX_BUDGET:
        raise ValidationFailed(
            f"budgetBytes must be between 1 and {MAX_BUDGET}", field="budgetBytes"
        )
    claims = [claim_record(r["claim"]) for r in await graph.read(CONTEXT_CLAIMS, **view.params())]
    names: dict[str, str] = {}
    if about is not None:
        rows = await graph.read(FACTS_ABOUT, **view.params(), subjectId=about.id)
        facts = [claim_record(r["claim"]) for r in rows]
        objects = sorted({f.object_id for f in facts if f.object_id})
        named = await entities_by_ids(graph, view, objects) if objects else []
        names = {e.id: e.name for e in named if e is not None} | {about.id: about.name}
        claims += facts
    newest: dict[str, Claim] = {}
    for claim in claims:
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
        key=lambda c: (ORDER.index(c.type), -c.importance, -_recency(c).timestamp(), c.key)
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
