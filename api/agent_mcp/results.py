"""What the MCP tools answer: Engram's records as compact JSON a model reads at a glance.

    await claims_json(memory, view, [claim])
    [{"key": "fact:person/alice:WORKS_AT", "revision": 1, "status": "ACTIVE",
      "subject": "Alice (entity:person:alice)", "predicate": "WORKS_AT",
      "object": "Acme (entity:org:acme)", "valid": ["2023-03-01T00:00:00+00:00", null], …,
      "evidence": [{"quote": "I work at Acme", "authority": "USER_STATED", …}]}]

Entities are shown as `Name (key)`, times as ISO-8601 in UTC, intervals as `[from, to]` with
null for an open end, enums by their UPPER_CASE names as every face spells them. Names and
evidence come through the same view as the claims, so nothing above the caller's tier shows.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from graph.domain.model import Claim, Entity, EvidenceLink
from graph.domain.read_records import (
    Changes,
    ContextSnapshot,
    Explanation,
    Hit,
    MessageHit,
    Neighbourhood,
    Relation,
)
from graph.domain.wording import supported_first
from graph.memory import Memory, View

JsonObject = dict[str, Any]


def dumps(value: object) -> str:
    """One line of JSON, UTF-8 kept, no spaces after separators: cheap on a model's context."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def instant(value: datetime | None) -> str | None:
    return None if value is None else value.astimezone(UTC).isoformat()


def entity_label(entity: Entity | None, entity_id: str | None) -> str | None:
    """`Name (entity:kind:canonical)`; an entity the view cannot see shows as its id."""
    if entity_id is None:
        return None
    return f"{entity.name} ({entity.key})" if entity is not None else entity_id


def evidence_json(link: EvidenceLink) -> JsonObject:
    shown: JsonObject = {"kind": link.kind.name, "authority": link.authority.name}
    if link.text is not None:
        shown["quote"] = link.text
    if link.locator is not None:
        shown["locator"] = link.locator
    if link.observed_at is not None:
        shown["observedAt"] = instant(link.observed_at)
    if link.observation_id is not None:
        shown["observationId"] = link.observation_id
    if link.episode_id is not None:
        shown["episodeId"] = link.episode_id
    if link.note:
        shown["note"] = link.note
    return shown


async def _names(memory: Memory, view: View, ids: set[str]) -> dict[str, Entity | None]:
    wanted = sorted(ids)
    return dict(zip(wanted, await memory.reads.entities(view, wanted), strict=True))


async def claims_json(memory: Memory, view: View, claims: Sequence[Claim]) -> list[JsonObject]:
    """Claims with their subject and object named and their evidence quoted, as `view` sees."""
    names = await _names(
        memory, view, {i for c in claims for i in (c.subject_id, c.object_id) if i is not None}
    )
    evidence = await memory.reads.evidence(view, [c.id for c in claims])
    shown = []
    for claim, links in zip(claims, evidence, strict=True):
        item: JsonObject = {
            "key": claim.key,
            "text": claim.text,
            "id": claim.id,
            "revision": claim.revision,
            "type": claim.type.name,
            "status": claim.status.name,
        }
        if claim.subject_id is not None:
            item["subject"] = entity_label(names.get(claim.subject_id), claim.subject_id)
        if claim.predicate is not None:
            item["predicate"] = claim.predicate
        if claim.object_id is not None:
            item["object"] = entity_label(names.get(claim.object_id), claim.object_id)
        if claim.value is not None:
            item["value"] = claim.value
        item |= {
            "valid": [instant(claim.valid_from), instant(claim.valid_to)],
            "recorded": [instant(claim.recorded_at), instant(claim.superseded_at)],
            "confidence": claim.confidence,
            "privacy": claim.privacy.name,
        }
        if claim.reason:
            item["reason"] = claim.reason
        item["evidence"] = [evidence_json(link) for link in supported_first(links)]
        shown.append(item)
    return shown


async def hits_json(memory: Memory, view: View, hits: Sequence[Hit]) -> list[JsonObject]:
    claims = await claims_json(memory, view, [hit.claim for hit in hits])
    return [
        {
            "score": round(hit.score, 4),
            "sources": list(hit.sources),
            "state": hit.state.value,
            **claim,
        }
        for hit, claim in zip(hits, claims, strict=True)
    ]


def messages_json(hits: Sequence[MessageHit]) -> list[JsonObject]:
    return [
        {
            "score": round(hit.score, 4),
            "sources": list(hit.sources),
            "id": hit.observation.id,
            "episodeId": hit.observation.episode_id,
            "role": hit.observation.role.name,
            "observedAt": instant(hit.observation.observed_at),
            "content": hit.observation.content,
        }
        for hit in hits
    ]


def snapshot_json(space: str, snapshot: ContextSnapshot) -> JsonObject:
    return {
        "space": space,
        "text": snapshot.text,
        "bytes": snapshot.bytes,
        "keys": snapshot.keys,
        "omitted": snapshot.omitted,
    }


def _relation_json(relation: Relation, names: dict[str, Entity | None]) -> JsonObject:
    return {
        "from": entity_label(names.get(relation.source_id), relation.source_id),
        "type": relation.type,
        "to": entity_label(names.get(relation.target_id), relation.target_id),
        "valid": [instant(relation.valid_from), instant(relation.valid_to)],
        "claimKey": relation.claim_key,
    }


def neighbourhood_json(found: Neighbourhood) -> JsonObject:
    names: dict[str, Entity | None] = {e.id: e for e in found.entities}
    return {
        "entities": [
            {"name": e.name, "key": e.key, "kind": e.kind.name, "hops": found.distances[e.id]}
            for e in found.entities
        ],
        "relations": [_relation_json(r, names) for r in found.relations],
        "truncated": found.truncated,
    }


def explanation_json(found: Explanation) -> JsonObject:
    """The paths, each entity labelled as the view names it (the explanation carries them)."""
    names: dict[str, Entity | None] = {e.id: e for e in found.entities}
    paths = []
    for path in found.paths:
        steps = []
        for step in path:
            shown: JsonObject = {
                "from": entity_label(names.get(step.from_id), step.from_id),
                "relation": step.relation.type,
                "direction": "OUT" if step.forward else "IN",
                "to": entity_label(names.get(step.to_id), step.to_id),
                "valid": [instant(step.relation.valid_from), instant(step.relation.valid_to)],
            }
            if step.claim is not None:
                shown["claim"] = {
                    "key": step.claim.key,
                    "revision": step.claim.revision,
                    "status": step.claim.status.name,
                    "confidence": step.claim.confidence,
                }
            shown["evidence"] = [evidence_json(link) for link in supported_first(step.evidence)]
            steps.append(shown)
        paths.append(steps)
    answer: JsonObject = {"paths": paths}
    if found.reason:
        answer["reason"] = found.reason
    return answer


async def changes_json(memory: Memory, view: View, found: Changes) -> JsonObject:
    """The changes in time order: a claim as `claims_json` shows it (a correction with the
    revision it replaced), a forgetting as its kind and counts only."""
    claims = [c for change in found.changes for c in (change.claim, change.previous) if c]
    described = await claims_json(memory, view, claims)
    shown = {c.id: item for c, item in zip(claims, described, strict=True)}
    changes: list[JsonObject] = []
    for change in found.changes:
        item: JsonObject = {"kind": change.kind.value, "at": instant(change.at)}
        if change.claim is not None:
            item["claim"] = shown[change.claim.id]
        if change.previous is not None:
            item["replaced"] = shown[change.previous.id]
        if change.forgetting is not None:
            item["forgotten"] = {
                "selector": change.forgetting.selector_kind,
                **change.forgetting.counts,
            }
        changes.append(item)
    return {"changes": changes, "truncated": found.truncated}
