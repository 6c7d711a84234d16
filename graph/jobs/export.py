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

    view = await View.open(graph, "alice", max_privacy=Privacy.NORMAL)
    text = await export_space(graph, view, ExportFormat.JSONL)
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from graph.domain.model import Claim, EvidenceLink, canonical_json
from graph.domain.vocabulary import Authority, ClaimStatus, EvidenceKind, ExportFormat, MemoryType
from graph.jobs.export_markdown import markdown
from graph.jobs.gathering import GatheredMemory, gather_memory
from graph.reads.visibility import View
from graph.store.db import Graph


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
