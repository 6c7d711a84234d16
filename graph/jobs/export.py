"""Exports a person can take away: the current memory of a space, as one reader sees it.

Two formats of the same gathering (`gather_memory`), read through one `View` — the reader's
space, tier, `asOf` and `knownAt` — so nothing forgotten and nothing above the reader's tier can
appear:

* **JSONL in the import format** (`graph.jobs.importer` reads it back): one line per current claim
  revision (statuses active and disputed), entity claims first so the facts that name them
  import after them. Importing the file into a new space gives the same current view — the same
  claims (key, type, value, subject, predicate, object, confidence, importance, privacy, valid
  interval), the same entities and relations. Each line also carries the quotes of the evidence
  that supported it at the claim's own tier (an import turns the line into an observation at the
  claim's tier, so more private evidence never travels with it).
* **Markdown** (`graph.jobs.export_markdown`): a document a person reads — profile, preferences,
  current facts with their evidence quotes, goals, open tasks, decisions, entities, recent
  episodes.

What does not travel in JSONL: past revisions (the import format has no recorded time),
disputes (a disputed claim is exported as active), merges of entities, pins, and evidence that
is more private than its claim. A fact about an entity whose own entity claim is not valid at
`asOf` (named only later) is exported, but an import refuses it (`NOT_FOUND`) and reports so.

    >>> view = await View.open(graph, "alice", max_privacy=Privacy.NORMAL)
    >>> text = await export_space(graph, view, ExportFormat.JSONL)
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any, LiteralString

from graph.domain.model import (
    Authority,
    Claim,
    ClaimStatus,
    Entity,
    Episode,
    EpisodeStatus,
    EvidenceKind,
    EvidenceLink,
    MemoryType,
    canonical_json,
)
from graph.jobs.export_markdown import markdown
from graph.reads.listing import MAX_PAGE, ClaimFilter, list_claims
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
OPTIONAL MATCH (ep)-[:HAS_OBSERVATION]->(o:Observation)
WHERE """
    + visible("o")
    + """
WITH ep, collect(properties(o)) AS observations
RETURN properties(ep) AS episode, observations
ORDER BY episode.startedAt DESC, episode.id DESC
"""
)
"""The episodes begun by `asOf` most recently, with their observations visible in the view."""


class ExportFormat(StrEnum):
    JSONL = "jsonl"
    MARKDOWN = "markdown"


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


def _instant(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def _authority(supports: list[EvidenceLink]) -> str:
    """The authority one imported observation may carry for all of a claim's support: the
    strongest the importer can give a line (the gates need `user_stated` for profiles and
    preferences)."""
    held = {link.authority for link in supports}
    for authority in (Authority.USER_STATED, Authority.DOCUMENT, Authority.AGENT_INFERRED):
        if authority in held:
            return authority.value
    return Authority.IMPORTED.value


def _order(claim: Claim) -> tuple[Any, ...]:
    first = claim.valid_from.isoformat() if claim.valid_from else ""
    return (claim.type is not MemoryType.ENTITY, claim.key, claim.privacy, first, claim.revision)


def jsonl_item(memory: GatheredMemory, claim: Claim) -> dict[str, Any]:
    """One claim as an import line (a JSON object)."""
    supports = [
        e.link
        for e in memory.evidence.get(claim.id, [])
        if e.at_claim_tier and e.link.kind is EvidenceKind.SUPPORTED_BY
    ]
    item: dict[str, Any] = {"type": claim.type.value, "key": claim.key}
    if claim.type is MemoryType.FACT:
        item["subject"] = memory.entities[claim.subject_id or ""].key
        item["predicate"] = claim.predicate
        if claim.object_id is not None:
            item["object"] = memory.entities[claim.object_id].key
    if claim.object_id is None:
        # As a JSON text, so a literal string value is never re-read as a number or a boolean.
        item["value_json"] = canonical_json(claim.value)
    item.update(
        status=ClaimStatus.ACTIVE.value,
        confidence=claim.confidence,
        importance=claim.importance,
        privacy=int(claim.privacy),
    )
    if claim.valid_from is not None:
        item["valid_from"] = _instant(claim.valid_from)
    if claim.valid_to is not None:
        item["valid_to"] = _instant(claim.valid_to)
    observed = [link.observed_at for link in supports if link.observed_at is not None]
    item["observed_at"] = _instant(min(observed) if observed else claim.recorded_at)
    item["authority"] = _authority(supports)
    quotes = [
        {"quote": link.text, "observed_at": _instant(link.observed_at)}
        for link in supports
        if link.text is not None
    ]
    if quotes:
        item["evidence"] = quotes
    return item


def jsonl(memory: GatheredMemory) -> str:
    """The memory as JSONL import lines, one claim each, in a stable order."""
    claims = sorted((c for c in memory.claims if memory.nameable(c)), key=_order)
    return "".join(
        json.dumps(jsonl_item(memory, claim), ensure_ascii=False) + "\n" for claim in claims
    )


async def export_space(graph: Graph, view: View, export_format: ExportFormat) -> str:
    """The current memory of `view`'s space, as its reader sees it, in `export_format`."""
    memory = await gather_memory(graph, view)
    if export_format is ExportFormat.MARKDOWN:
        return markdown(memory)
    return jsonl(memory)


__all__ = ["ExportFormat", "GatheredMemory", "export_space", "gather_memory", "jsonl", "markdown"]
