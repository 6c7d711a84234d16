"""Planning the rows of one `remember` batch once its references are resolved: each item's
checks that need the batch (idempotency key, gate, `expectedRevision`), its revision under its
type's policy, its evidence links, and the claims the batch answers with.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from graph.commands.claim_rows import ClaimContent, claim_row
from graph.commands.entity_refs import EntityRef, ResolvedEntity
from graph.commands.evidence import EvidencePlan, EvidenceRef, ResolvedEvidence
from graph.commands.predicate_rules import PredicateRules
from graph.commands.remember_refs import BatchEntities, fact_key
from graph.commands.revisions import KeyState, WritePlan, load_claims
from graph.commands.writing import WriteContext
from graph.domain import memory_types as mt
from graph.domain.errors import Conflict, RevisionConflict
from graph.domain.intervals import Interval, pieces_kept
from graph.domain.model import Claim, ClaimStatus, EvidenceKind, MemoryType, Policy, Privacy
from graph.store.rows import claim_record

if TYPE_CHECKING:
    from graph.commands.remember import RememberInput


def batch_entities(
    ctx: WriteContext,
    batch: BatchEntities,
    states: dict[str, KeyState],
    plan: WritePlan,
    work: list[tuple[int, RememberInput, MemoryType, bool]],
    keys: dict[int, str],
) -> dict[EntityRef, ResolvedEntity]:
    """Every reference's entity, those the batch creates given their ids now (each at the
    tier of the first entity claim of its key in the batch)."""
    tiers: dict[str, Privacy] = {}
    for position, (_, item, memory_type, _) in enumerate(work):
        if memory_type is MemoryType.ENTITY:
            tiers.setdefault(keys[position], item.privacy)
    resolved: dict[EntityRef, ResolvedEntity] = {}
    for ref, found in batch.found.items():
        if isinstance(found, ResolvedEntity):
            resolved[ref] = found
        else:
            entity_id = plan.entity_for(ctx, found, states[found], tiers[found])
            resolved[ref] = ResolvedEntity(entity_id, found, found.split(":", 2)[2])
    return resolved


def checked_item(
    ctx: WriteContext,
    item: RememberInput,
    memory_type: MemoryType,
    key: str,
    state: KeyState,
    entities: dict[EntityRef, ResolvedEntity],
    evidence: dict[Any, ResolvedEvidence],
    plan: WritePlan,
    evidence_plan: EvidencePlan,
    in_batch: dict[str, tuple[RememberInput, str]],
) -> str:
    """Plan one item after the checks that need the batch: its idempotency key, the gate and
    `expectedRevision`; answers its claim id."""
    if item.idempotency_key in in_batch:
        earlier_item, earlier_id = in_batch[item.idempotency_key]
        if earlier_item != item:
            raise Conflict(
                f"idempotency key {item.idempotency_key!r} is used twice in one batch "
                "for different requests",
                field="idempotencyKey",
            )
        return earlier_id
    cited = [evidence[cite_key(ref, item)] for ref in item.evidence]
    mt.check_gate(memory_type, confidence=item.confidence, authorities={e.authority for e in cited})
    head = state.head_at(item.privacy)
    if item.expected_revision is not None and item.expected_revision != head:
        raise RevisionConflict(
            f"{key} is at revision {head}, not {item.expected_revision}",
            field="expectedRevision",
        )
    return _plan_item(ctx, item, memory_type, key, state, entities, cited, plan, evidence_plan)


def cite_key(ref: EvidenceRef, item: RememberInput) -> Any:
    return ref.target_id if ref.text is None else (ref, int(item.privacy))


async def results_of(
    ctx: WriteContext,
    result_ids: list[str],
    plan: WritePlan,
    evidence_plan: EvidencePlan,
    evidence: dict[Any, ResolvedEvidence],
) -> list[Claim]:
    """The claims a remember answers with: rows written now are built from what was written
    (no second read of a large batch; a row superseded again in the same batch ends where it
    begins), stored rows corroborated and replayed rows are loaded, and so are rows written now
    that got copies of a stored row's evidence (only the database has those)."""
    copied = {copy["toId"] for copy in evidence_plan.copies}
    written = {row.id: row for row in plan.rows if row.id not in copied}
    by_target = {e.ref.target_id: e for e in evidence.values()}
    links: dict[str, list[dict[str, Any]]] = {}
    for link in evidence_plan.links:
        if link["claimId"] in written:
            cited = by_target[link["targetId"]]
            links.setdefault(link["claimId"], []).append(cited.projection(link, ctx.now))
    unwritten = [i for i in result_ids if i not in written]
    loaded = await load_claims(ctx, unwritten) if unwritten else {}
    return [
        claim_record(written[i].stored_props(ctx.now), links.get(i, []))
        if i in written
        else loaded[i]
        for i in result_ids
    ]


def key_of(
    item: RememberInput,
    memory_type: MemoryType,
    batch: BatchEntities,
    rules: PredicateRules | None,
) -> str:
    if memory_type is not MemoryType.FACT:
        assert item.key is not None
        return item.key
    assert item.subject is not None and rules is not None
    # Keys are derived before the batch's new entities have ids: from their keys alone.
    subject = _key(batch.found[item.subject])
    obj = _key(batch.found[item.object]) if item.object is not None else None
    return fact_key(item, subject, obj, rules)


def _key(found: ResolvedEntity | str) -> str:
    return found.key if isinstance(found, ResolvedEntity) else found


def _plan_item(
    ctx: WriteContext,
    item: RememberInput,
    memory_type: MemoryType,
    key: str,
    state: KeyState,
    entities: dict[EntityRef, ResolvedEntity],
    cited: list[ResolvedEvidence],
    plan: WritePlan,
    evidence_plan: EvidencePlan,
) -> str:
    valid_from: datetime | None = item.valid_from or min(e.observed_at for e in cited)
    interval = Interval(valid_from, item.valid_to)
    subject = entities[item.subject] if item.subject is not None else None
    obj = entities[item.object] if item.object is not None else None
    subject_id: str | None
    if memory_type is MemoryType.ENTITY:
        subject_id = plan.entity_for(ctx, key, state, item.privacy)
    else:
        subject_id = subject.id if subject else None
    content = ClaimContent(subject_id, item.predicate, obj.id if obj else None, item.value)
    policy = mt.POLICIES[memory_type]

    # A key's rows at each tier are a line of their own: a write changes only its own tier's
    # line, so no reader below a tier ever sees its rows ended by a write it cannot see.
    line = state.line(item.privacy)
    if policy is Policy.OVERWRITE:
        same = [
            row
            for row in line
            if content.matches(row)
            and row.status is not ClaimStatus.RETRACTED
            and row.interval().covers(interval)
        ]
        if same:
            # Re-stating what a current row holds: corroborate it, no new revision.
            row = same[0]
            for resolved in cited:
                evidence_plan.link(row, EvidenceKind.SUPPORTED_BY, resolved)
            return row.id
        for old in [r for r in line if r.interval().overlaps(interval)]:
            plan.supersede(ctx, old, state)
            for piece in pieces_kept(old.interval(), interval, keep_tail=True):
                kept = plan.restate(ctx, old, state, piece)
                evidence_plan.copy_support(old, kept.id)

    first_revision = state.head_at(item.privacy) == 0
    row = claim_row(
        ctx,
        key=key,
        revision=state.next_revision(item.privacy),
        memory_type=memory_type,
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
    return row.id
