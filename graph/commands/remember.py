"""remember: create or revise claims, with evidence, in one transaction.

    >>> [claim] = await remember(graph, "alice", [RememberInput(
    ...     key="pref:ui:theme", value={"value": "dark"},
    ...     evidence=[EvidenceRef(observation_id=said_dark)])], actor=agent)
    >>> claim.revision, claim.status
    (1, <ClaimStatus.ACTIVE: 'active'>)

A second remember of a key follows its type's policy: **overwrite** supersedes the rows it
replaces (what held before the new `validFrom` is written again as its own row, so `asOf`
earlier still answers the old value); **versioned** adds a coexisting row. Re-stating the value a
current row already holds over the same time adds evidence to that row instead of a revision.
Nothing is written unless every item passes: key grammar, value shape, entities, evidence, gate,
`expectedRevision`.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, JsonValue, model_validator

from graph.commands.audit import AuditLog, check_idempotency_key, find_replays, request_hash
from graph.commands.entity_refs import EntityRef, ResolvedEntity, resolve_entities
from graph.commands.evidence import (
    MAX_EVIDENCE,
    EvidencePlan,
    EvidenceRef,
    ResolvedEvidence,
    resolve_evidence,
)
from graph.commands.revisions import (
    KeyState,
    WritePlan,
    claim_row,
    interval_of,
    load_claims,
    load_key_states,
)
from graph.commands.writing import WriteContext, run_command
from graph.domain import memory_types as mt
from graph.domain.actor import Actor
from graph.domain.errors import Conflict, Forbidden, RevisionConflict, ValidationFailed
from graph.domain.intervals import Interval, pieces_kept
from graph.domain.model import Claim, EvidenceKind, MemoryType, Policy, Privacy, canonical_json
from graph.store.db import Graph
from graph.store.rows import claim_record


class RememberInput(BaseModel):
    """One claim to remember. Give `key` (its type follows), or for a `fact` the subject,
    predicate and object (the key is derived)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    type: MemoryType | None = None
    key: str | None = None
    subject: EntityRef | None = None
    predicate: str | None = None
    object: EntityRef | None = None
    value: JsonValue = None
    confidence: float = Field(default=0.9, ge=0.0, le=1.0)
    importance: float = Field(default=0.5, ge=0.0, le=1.0)
    privacy: Privacy = Privacy.NORMAL
    valid_from: AwareDatetime | None = None
    valid_to: AwareDatetime | None = None
    evidence: list[EvidenceRef] = Field(min_length=1, max_length=MAX_EVIDENCE)
    idempotency_key: str | None = None
    expected_revision: int | None = Field(default=None, ge=0)
    pinned: bool = False

    @model_validator(mode="after")
    def _consistent(self) -> RememberInput:
        if self.valid_from and self.valid_to and self.valid_to <= self.valid_from:
            raise ValueError("valid_to must be after valid_from")
        return self

    def memory_type(self) -> MemoryType:
        if self.key is not None:
            parsed = mt.parse_key(self.key)
            if self.type is not None and self.type is not parsed.type:
                raise ValidationFailed(
                    f"type {self.type} does not match key {self.key!r}", field="type"
                )
            return parsed.type
        if self.type is None:
            raise ValidationFailed("give a key (or, for a fact, type 'fact')", field="key")
        if self.type is not MemoryType.FACT:
            raise ValidationFailed(f"a {self.type} claim needs its key", field="key")
        return self.type


def validate(item: RememberInput) -> MemoryType:
    """Everything checkable without the database; raises a typed error."""
    check_idempotency_key(item.idempotency_key)
    memory_type = item.memory_type()
    if len(canonical_json(item.value).encode()) > mt.MAX_VALUE_BYTES:
        raise ValidationFailed(f"value is larger than {mt.MAX_VALUE_BYTES} bytes", field="value")
    if memory_type is MemoryType.FACT:
        if item.subject is None or item.predicate is None:
            raise ValidationFailed("a fact needs a subject and a predicate", field="predicate")
        if not mt.is_predicate(item.predicate):
            raise ValidationFailed(
                f"predicate {item.predicate!r} must be UPPER_SNAKE_CASE (≤ 64) and not one of "
                "Engram's own relationship types",
                field="predicate",
            )
        if (item.object is None) == (item.value is None):
            raise ValidationFailed("a fact has exactly one of object or value", field="object")
        if item.key is not None:
            parsed = mt.parse_key(item.key)
            if parsed.part("predicate") != item.predicate:
                raise ValidationFailed(
                    f"key {item.key!r} names predicate {parsed.part('predicate')!r}, "
                    f"not {item.predicate!r}",
                    field="key",
                )
    else:
        if item.predicate is not None or item.object is not None:
            raise ValidationFailed(
                f"only facts have a predicate and an object, not {memory_type}", field="predicate"
            )
        if memory_type is MemoryType.ENTITY and item.subject is not None:
            raise ValidationFailed("an entity claim is about itself: no subject", field="subject")
        assert item.key is not None
        mt.check_value(mt.parse_key(item.key), item.value)
    return memory_type


async def remember(
    graph: Graph, space: str, items: Sequence[RememberInput], *, actor: Actor
) -> list[Claim]:
    """Remember `items` in one transaction (all or nothing); one claim revision per item."""
    if not items:
        return []
    types = [validate(item) for item in items]

    async def work(ctx: WriteContext) -> list[Claim]:
        return await _remember_in(ctx, list(items), types)

    return await run_command(graph, space, actor, work)


async def remember_in(ctx: WriteContext, items: Sequence[RememberInput]) -> list[Claim]:
    """`remember` inside a writing transaction that has begun (`begin_write`)."""
    return await _remember_in(ctx, list(items), [validate(item) for item in items])


async def _remember_in(
    ctx: WriteContext, items: list[RememberInput], types: list[MemoryType]
) -> list[Claim]:
    hashes = {
        item.idempotency_key: ("remember", request_hash("remember", item.model_dump(mode="json")))
        for item in items
        if item.idempotency_key is not None
    }
    replays = await find_replays(ctx, hashes)
    # A replay returns the first result and resolves nothing: its entities or evidence may
    # have been forgotten since, which the loaded result reports as FORGOTTEN.
    fresh = [item for item in items if item.idempotency_key not in replays]
    for item in fresh:
        if item.privacy > ctx.max_privacy:
            tier = item.privacy.name.lower()
            raise Forbidden(f"this key may not write at privacy {tier}", field="privacy")

    entity_refs: list[tuple[EntityRef, str]] = []
    for item in fresh:
        if item.subject is not None:
            entity_refs.append((item.subject, "subject"))
        if item.object is not None:
            entity_refs.append((item.object, "object"))
    entities = await resolve_entities(ctx, entity_refs)
    evidence = await resolve_evidence(ctx, [ref for item in fresh for ref in item.evidence])

    keys = [
        _key_of(item, t, entities) if item.idempotency_key not in replays else ""
        for item, t in zip(items, types, strict=True)
    ]
    states = await load_key_states(ctx, [key for key in keys if key])
    plan = WritePlan()
    evidence_plan = EvidencePlan()
    audit = AuditLog()
    result_ids: list[str] = []
    in_batch: dict[str, tuple[RememberInput, str]] = {}
    for item, memory_type, key in zip(items, types, keys, strict=True):
        if item.idempotency_key in replays:
            result_ids.append(replays[item.idempotency_key].result["claimId"])
            continue
        if item.idempotency_key in in_batch:
            earlier_item, earlier_id = in_batch[item.idempotency_key]
            if earlier_item != item:
                raise Conflict(
                    f"idempotency key {item.idempotency_key!r} is used twice in one batch "
                    "for different requests",
                    field="idempotencyKey",
                )
            result_ids.append(earlier_id)
            continue
        authorities = {evidence[ref.target_id].authority for ref in item.evidence}
        mt.check_gate(memory_type, confidence=item.confidence, authorities=authorities)
        state = states[key]
        head = state.head_at(item.privacy)
        if item.expected_revision is not None and item.expected_revision != head:
            raise RevisionConflict(
                f"{key} is at revision {head}, not {item.expected_revision}",
                field="expectedRevision",
            )
        claim_id = _plan_item(
            ctx, item, memory_type, key, state, entities, evidence, plan, evidence_plan
        )
        result_ids.append(claim_id)
        if item.idempotency_key is not None:
            in_batch[item.idempotency_key] = (item, claim_id)
        audit.add(
            "remember",
            [claim_id],
            idempotency_key=item.idempotency_key,
            request_hash=hashes[item.idempotency_key][1] if item.idempotency_key else None,
            result={"claimId": claim_id},
        )
    await plan.write(ctx)
    await evidence_plan.write(ctx)
    await audit.write(ctx)
    return await _results(ctx, result_ids, plan, evidence_plan, evidence)


async def _results(
    ctx: WriteContext,
    result_ids: list[str],
    plan: WritePlan,
    evidence_plan: EvidencePlan,
    evidence: dict[str, ResolvedEvidence],
) -> list[Claim]:
    """The claims a remember answers with: rows written now are built from what was written
    (no second read of a large batch); corroborated and replayed rows are loaded."""
    written = {str(row["id"]): row for row in plan.rows if row.get("supersededAt") is None}
    links: dict[str, list[dict[str, Any]]] = {}
    for link in evidence_plan.links:
        if link["claimId"] in written:
            cited = evidence[link["targetId"]]
            links.setdefault(link["claimId"], []).append(cited.projection(link, ctx.now))
    loaded = await load_claims(ctx, [i for i in result_ids if i not in written])
    return [
        claim_record({**written[i], "recordedAt": ctx.now}, links.get(i, []))
        if i in written
        else loaded[i]
        for i in result_ids
    ]


def _key_of(
    item: RememberInput, memory_type: MemoryType, entities: dict[EntityRef, ResolvedEntity]
) -> str:
    if item.key is not None:
        if memory_type is MemoryType.FACT:
            assert item.subject is not None
            parsed = mt.parse_key(item.key)
            subject = entities[item.subject]
            expected = mt.fact_key(subject.key, item.predicate or "", None).split(":", 2)[1]
            if parsed.part("subject") != expected:
                raise ValidationFailed(
                    f"key {item.key!r} names subject {parsed.part('subject')!r}, "
                    f"but the subject is {expected!r}",
                    field="key",
                )
        return item.key
    assert item.subject is not None and item.predicate is not None
    object_key = entities[item.object].key if item.object is not None else None
    return mt.fact_key(entities[item.subject].key, item.predicate, object_key)


def _plan_item(
    ctx: WriteContext,
    item: RememberInput,
    memory_type: MemoryType,
    key: str,
    state: KeyState,
    entities: dict[EntityRef, ResolvedEntity],
    evidence: dict[str, Any],
    plan: WritePlan,
    evidence_plan: EvidencePlan,
) -> str:
    cited = [evidence[ref.target_id] for ref in item.evidence]
    valid_from: datetime | None = item.valid_from or min(e.observed_at for e in cited)
    interval = Interval(valid_from, item.valid_to)
    subject = entities[item.subject] if item.subject is not None else None
    obj = entities[item.object] if item.object is not None else None
    subject_id: str | None
    if memory_type is MemoryType.ENTITY:
        subject_id = plan.entity_for(ctx, key, state, item.privacy)
    else:
        subject_id = subject.id if subject else None
    content = {
        "subjectId": subject_id,
        "predicate": item.predicate,
        "objectId": obj.id if obj else None,
        "valueJson": canonical_json(item.value),
    }
    policy = mt.POLICIES[memory_type]

    # A key's rows at each tier are a line of their own: a write changes only its own tier's
    # line, so no reader below a tier ever sees its rows ended by a write it cannot see.
    line = state.line(item.privacy)
    if policy is Policy.OVERWRITE:
        same = [
            row
            for row in line
            if all(row.get(k) == v for k, v in content.items())
            and row["status"] != "retracted"
            and interval_of(row).covers(interval)
        ]
        if same:
            # Re-stating what a current row holds: corroborate it, no new revision.
            row = same[0]
            for resolved in cited:
                evidence_plan.link(row, EvidenceKind.SUPPORTED_BY, resolved)
            return str(row["id"])
        for old in [r for r in line if interval_of(r).overlaps(interval)]:
            plan.supersede(ctx, old, state)
            for piece in pieces_kept(interval_of(old), interval, keep_tail=True):
                kept = plan.restate(ctx, old, state, piece)
                evidence_plan.copy_support(old["id"], kept["id"])

    first_revision = state.head_at(item.privacy) == 0
    row = claim_row(
        ctx,
        key=key,
        revision=state.next_revision(item.privacy),
        memory_type=memory_type,
        value=item.value,
        content=content,
        confidence=item.confidence,
        importance=item.importance,
        privacy=item.privacy,
        pinned=item.pinned,
        interval=interval,
        subject_name=subject.canonical if subject else None,
        object_name=obj.canonical if obj else None,
        reason=None if first_revision else f"{policy} policy: remembered again",
    )
    plan.create(row, state, revises=state.latest_current_id(item.privacy))
    for resolved in cited:
        evidence_plan.link(row, EvidenceKind.SUPPORTED_BY, resolved)
    return str(row["id"])
