"""What one view of a space holds now, gathered for an export (`export`, `export_markdown`):
its current claims (active and disputed) with the evidence of each visible in the view, the
entities they name (named as of the view) and its recent episodes — read through the view only,
so nothing forgotten and nothing above the reader's tier can be in it.

    memory = await gather_memory(graph, view)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import LiteralString

from graph.domain.model import Claim, Entity, Episode, EvidenceLink
from graph.domain.vocabulary import EpisodeStatus
from graph.reads.listing import EPISODES_WITH_THEIR_OBSERVATIONS, MAX_PAGE, ClaimFilter, list_claims
from graph.reads.resources import entities_by_ids
from graph.reads.visibility import View, in_history, visible
from graph.store.db import Graph
from graph.store.rows import EVIDENCE_PROJECTION, episode_record, evidence_link

RECENT_EPISODES_SHOWN = 10

EXPORT_EVIDENCE: LiteralString = (
    """
UNWIND $ids AS id
MATCH (c:Claim {id: id})-[e:SUPPORTED_BY|CONTRADICTED_BY|CORRECTED_BY]->(t)
WHERE """
    + visible("e")
    + " AND "
    + visible("t")
    + """
RETURN id, t.privacy <= c.privacy AS atClaimTier, """
    + EVIDENCE_PROJECTION
    + """ AS link
"""
)
"""The evidence of each claim visible in the view, and whether it is at the claim's own tier
(evidence is never less private than its claim)."""

RECENT_EPISODES: LiteralString = (
    """
MATCH (ep:Episode {spaceId: $spaceId})
WHERE """
    + in_history("ep")
    + """
  AND ep.startedAt <= $asOf AND ep.status <> 'tombstoned'
WITH ep ORDER BY ep.startedAt DESC, ep.id DESC LIMIT $limit
"""
    + EPISODES_WITH_THEIR_OBSERVATIONS
    + "ORDER BY episode.startedAt DESC, episode.id DESC\n"
)
"""The episodes begun by `asOf` most recently, with their observations visible in the view."""


@dataclass(frozen=True)
class Evidence:
    """One visible piece of evidence of a claim."""

    link: EvidenceLink
    at_claim_tier: bool


@dataclass
class GatheredMemory:
    """What one view of a space holds now: its current claims with their visible evidence, the
    entities they name (named as of the view) and its recent episodes."""

    view: View
    claims: list[Claim] = field(default_factory=list)
    evidence: dict[str, list[Evidence]] = field(default_factory=dict)
    entities: dict[str, Entity] = field(default_factory=dict)
    episodes: list[Episode] = field(default_factory=list)

    def nameable(self, claim: Claim) -> bool:
        """A fact is exported only when the entities it names are visible too."""
        return all(
            entity_id is None or entity_id in self.entities
            for entity_id in (claim.subject_id, claim.object_id)
        )


async def gather_memory(graph: Graph, view: View) -> GatheredMemory:
    """The current claims (active and disputed) of the view, their evidence, entities and
    recent episodes, read through `view` only."""
    memory = GatheredMemory(view)
    after: str | None = None
    while True:
        page = await list_claims(graph, view, ClaimFilter(), first=MAX_PAGE, after=after)
        memory.claims.extend(page.claims)
        if not page.has_more:
            break
        after = page.end
    ids = [claim.id for claim in memory.claims]
    for start in range(0, len(ids), 1000):
        rows = await graph.read(EXPORT_EVIDENCE, **view.params(), ids=ids[start : start + 1000])
        for row in rows:
            memory.evidence.setdefault(row["id"], []).append(
                Evidence(evidence_link(row["link"]), bool(row["atClaimTier"]))
            )
    for links in memory.evidence.values():
        links.sort(key=lambda e: (e.link.recorded_at, e.link.kind, e.link.observation_id or ""))
    entity_ids = sorted(
        {i for c in memory.claims for i in (c.subject_id, c.object_id) if i is not None}
    )
    for entity in await entities_by_ids(graph, view, entity_ids):
        if entity is not None:
            memory.entities[entity.id] = entity
    rows = await graph.read(RECENT_EPISODES, **view.params(), limit=RECENT_EPISODES_SHOWN)
    memory.episodes = [
        episode
        for episode in (episode_record(r["episode"], r["observations"]) for r in rows)
        if episode.status is not EpisodeStatus.TOMBSTONED
    ]
    return memory
